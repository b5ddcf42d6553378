//! The bordering (block-iterative) inverse of a Hermitian matrix.

use crate::check::{self, Backend};
use crate::cpu;
use crate::error::{Error, Result};
use gpu_blas::blas2::Uplo;
use gpu_blas::{DeviceMatrix, MatMut, MatRef, Scalar};
use num_traits::{FromPrimitive, ToPrimitive};

/// How many border rows the bordering method adds per step. The default, 256 rows, is the
/// fastest of 64, 256 and 512 at n = 8000 on an H100 (with 512 equal).
///
/// ```
/// use dense_inverse::Bordering;
/// assert_eq!(Bordering::default(), Bordering::Blocked(256));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bordering {
    /// One row per step, as published: a matrix–vector product, a dot product and a rank-1
    /// update per step (`2n³` flops, all level 2).
    Unblocked,
    /// `b` rows per step (`b = 0` is taken as 1): `W⁻¹·R` as a matrix product, a `b × b` Schur
    /// complement inverted by the unblocked method, a rank-`b` update as a matrix product.
    /// On the GPU a Schur complement larger than `64 × 64` is itself inverted by 64-row steps.
    Blocked(usize),
}

impl Default for Bordering {
    fn default() -> Self {
        Bordering::Blocked(256)
    }
}

/// The breakdown threshold `n·ε·‖A‖₁` (see [`bordering_inverse`]).
pub(crate) fn threshold<T: Scalar>(n: usize, norm1: T::Real) -> T::Real {
    T::Real::from_usize(n.max(1)).unwrap_or_else(num_traits::Float::max_value)
        * T::epsilon()
        * norm1
}

pub(crate) fn invert_host<T: Scalar>(
    op: &'static str,
    n: usize,
    h: &mut [T],
    variant: Bordering,
) -> Result<()> {
    let norm = cpu::condition::norm1(n, h);
    let thr = threshold::<T>(n, norm);
    let r = match variant {
        Bordering::Unblocked => cpu::bordering::unblocked(n, h, thr, 0).map(drop),
        Bordering::Blocked(b) => cpu::bordering::blocked(n, h, b, thr),
    };
    r.map_err(|b| Error::SingularLeadingBlock {
        op,
        step: b.step,
        beta: b.beta,
        threshold: thr.to_f64().unwrap_or(f64::NAN),
    })
}

/// `A⁻¹` of a Hermitian (real symmetric) matrix into a new `n × n` matrix (both triangles,
/// exactly Hermitian) by the bordering method, reading only the `uplo` triangle of `a` (the
/// imaginary parts of its diagonal are ignored).
///
/// With `W_t` the leading `t × t` block, `r` the first `t − 1` entries of column `t` and
/// `ρ = a_tt`: `q = −W_{t−1}⁻¹·r`, `β_t = ρ + rᴴ·q` (the Schur complement of `W_{t−1}` in
/// `W_t`, real), and
/// `W_t⁻¹ = [[W_{t−1}⁻¹ + q·qᴴ/β_t, q/β_t], [qᴴ/β_t, 1/β_t]]`; `W_n⁻¹ = A⁻¹`.
/// [`Bordering::Blocked`]`(b)` adds `b` rows at once: `Q = −W⁻¹·R`, `S = D + Rᴴ·Q`,
/// `W⁻¹ ← [[W⁻¹ + Q·S⁻¹·Qᴴ, Q·S⁻¹], [S⁻¹·Qᴴ, S⁻¹]]`, with `S⁻¹` by the unblocked method.
///
/// The method does not pivot, so it needs every leading block `W_t` nonsingular (true for
/// positive or negative definite matrices; indefinite ones may fail).
///
/// **Breakdown threshold.** `β_t` is the last pivot of an `LDLᴴ` factorization of `W_t`, and
/// `W_t − β_t·e_t·e_tᴴ` is exactly singular: `|β_t|` is the size of a perturbation of one
/// diagonal entry that makes the leading block singular. Rounding alone perturbs `A` by about
/// `n·ε·‖A‖` (the backward error of the products forming `β_t`), so a step with
/// `|β_t| ≤ n·ε·‖A‖₁` cannot be told apart from an exactly singular leading block, and dividing
/// by it would amplify rounding errors past `1/(n·ε)`: such a step is refused with
/// [`Error::SingularLeadingBlock`]. A pivoted method ([`crate::lu_inverse`],
/// [`crate::gauss_jordan_inverse`]) handles these matrices when they are invertible.
///
/// Memory: the result; the blocked form adds four `n × b` blocks.
///
/// # Errors
/// [`Error::SingularLeadingBlock`] naming the 1-based step `t`, `|β_t|` and the threshold;
/// [`Error::NotSquare`]; [`gpu_blas::Error::NonFinite`] (referenced triangle);
/// On a GPU the unblocked form runs `gpu_blas`'s `hemv`, `dotc` and `her` per step (one host
/// synchronization per step to check `β`); the blocked form runs its products with cuBLAS
/// `gemm` and inverts each `b × b` Schur complement on the host.
///
/// ```
/// use dense_inverse::{bordering_inverse, Bordering, Error};
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let dev = Device::cpu();
/// let a = DeviceMatrix::from_array(&dev, &ndarray::array![[2.0f64, 1.0], [1.0, 1.0]])?;
/// let x = bordering_inverse(Uplo::Lower, &a, Bordering::Unblocked)?.to_array()?;
/// assert_eq!(x, ndarray::array![[1.0, -1.0], [-1.0, 2.0]]);
/// // Invertible, but the leading 1×1 block is zero: the unpivoted method stops at step 1.
/// let b = DeviceMatrix::from_array(&dev, &ndarray::array![[0.0f64, 1.0], [1.0, 0.0]])?;
/// let err = bordering_inverse(Uplo::Upper, &b, Bordering::Blocked(8)).unwrap_err();
/// assert!(matches!(err, Error::SingularLeadingBlock { step: 1, .. }));
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn bordering_inverse<'a, T: Scalar>(
    uplo: Uplo,
    a: impl Into<MatRef<'a, T>>,
    variant: Bordering,
) -> Result<DeviceMatrix<T>> {
    const OP: &str = "bordering_inverse";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => match variant {
            Bordering::Unblocked => Ok(crate::gpu::bordering::unblocked(OP, uplo, &a)?.0),
            Bordering::Blocked(b) => Ok(crate::gpu::bordering::blocked(OP, uplo, &a, b)?.0),
        },
        Backend::Cpu => {
            let mut h = check::read_hermitian(OP, uplo, &a)?;
            invert_host(OP, n, &mut h, variant)?;
            check::new_matrix(a.device(), n, h)
        }
    }
}

/// `A ← A⁻¹` in place for a Hermitian matrix by the bordering method (see
/// [`bordering_inverse`]); only the `uplo` triangle is read, both triangles of the view are
/// written. Any square view is accepted.
///
/// Memory: one `n × n` host working copy (plus four `n × b` blocks when blocked).
///
/// # Errors
/// As [`bordering_inverse`]; all reported before anything is written (on error `a` is
/// unchanged).
///
/// ```
/// use dense_inverse::{bordering_inverse_in_place, Bordering};
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let mut a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[4.0f64, 0.0], [0.0, -2.0]])?;
/// bordering_inverse_in_place(Uplo::Upper, &mut a, Bordering::Blocked(1))?;
/// assert_eq!(a.to_array()?, ndarray::array![[0.25, 0.0], [0.0, -0.5]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn bordering_inverse_in_place<'a, T: Scalar>(
    uplo: Uplo,
    a: impl Into<MatMut<'a, T>>,
    variant: Bordering,
) -> Result<()> {
    const OP: &str = "bordering_inverse_in_place";
    let mut a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => match variant {
            Bordering::Unblocked => {
                let (w, _) = crate::gpu::bordering::unblocked(OP, uplo, &a.as_ref())?;
                Ok(a.copy_from(&w.view())?)
            }
            Bordering::Blocked(b) => {
                let (w, _) = crate::gpu::bordering::blocked(OP, uplo, &a.as_ref(), b)?;
                Ok(a.copy_from(&w.view())?)
            }
        },
        Backend::Cpu => {
            let mut h = check::read_hermitian(OP, uplo, &a.as_ref())?;
            invert_host(OP, n, &mut h, variant)?;
            check::write(&mut a, &h)
        }
    }
}
