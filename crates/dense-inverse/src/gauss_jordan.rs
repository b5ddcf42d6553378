//! Gauss-Jordan inversion with partial pivoting, blocked so that the bulk of the work is
//! matrix products.

use crate::check::{self, Backend};
use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu;
use gpu_blas::{DeviceMatrix, MatMut, MatRef, Scalar};

fn invert_host<T: Scalar>(op: &'static str, n: usize, h: &mut [T]) -> Result<()> {
    cpu::gauss_jordan::invert(n, h).map_err(|step| Error::Singular { op, step })
}

/// `A⁻¹` into a new `n × n` matrix by Gauss-Jordan elimination with partial pivoting, in place
/// in the result.
///
/// Pivot `k` (after interchanging row `k` with the row of largest `|re| + |im|` at or below it
/// in column `k`) is a sweep with `d = a_kk`: `a_kk ← 1/d`, `a_kj ← a_kj/d`, `a_ik ← −a_ik/d`,
/// `a_ij ← a_ij − a_ik·a_kj/d`. After `n` sweeps the array holds `(P·A)⁻¹`, and
/// `A⁻¹ = (P·A)⁻¹·P` interchanges its columns back. Blocked: the sweeps of a 64-column block
/// are applied to that panel only, which becomes `[−A01·A11⁻¹; A11⁻¹; −A21·A11⁻¹]`; every other
/// column block `C` then gets `C ← C + panel·C_mid` (`C_mid`, the block's rows of `C`, zeroed
/// first). `2n³` flops, nearly all in products.
///
/// On the CPU the panel's sweeps run pivot by pivot and the products in parallel column chunks.
/// On a CUDA GPU the panel is brought to the same form through the LU factorization of its rows
/// `k..n` (the same pivot rule, the same pivots in exact arithmetic, the same singular step for
/// an exactly zero pivot), cuBLAS `trsm` with its triangular factors and the inverse of its
/// `64 × 64` diagonal block; the other columns' update is two cuBLAS `gemm`s per panel.
///
/// Memory: the result and `n` pivots; on the CPU a copy of one `64 × 64` block row per column
/// chunk, on a GPU a `64 × n` device workspace.
///
/// # Errors
/// [`Error::Singular`] naming the 1-based column without a non-zero pivot; [`Error::NotSquare`];
/// [`gpu_blas::Error::NonFinite`] (index `i + j·n`); [`gpu_blas::Error::OutOfMemory`] on a GPU.
///
/// ```
/// use dense_inverse::gauss_jordan_inverse;
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[0.0f64, 1.0], [2.0, 0.0]])?;
/// assert_eq!(gauss_jordan_inverse(&a)?.to_array()?, ndarray::array![[0.0, 0.5], [1.0, 0.0]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn gauss_jordan_inverse<'a, T: Scalar>(a: impl Into<MatRef<'a, T>>) -> Result<DeviceMatrix<T>> {
    const OP: &str = "gauss_jordan_inverse";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::gauss_jordan_inverse(OP, &a),
        Backend::Cpu => {
            let mut h = check::read(&a)?;
            check::finite(OP, &h)?;
            invert_host(OP, n, &mut h)?;
            check::new_matrix(a.device(), n, h)
        }
    }
}

/// `A ← A⁻¹` in place by blocked Gauss-Jordan with partial pivoting (see
/// [`gauss_jordan_inverse`]), for any square view.
///
/// Memory: one `n × n` working copy (host memory on the CPU, device memory on a GPU, plus
/// the GPU workspace of [`gauss_jordan_inverse`]). The view is written only after the inverse
/// has been computed.
///
/// # Errors
/// As [`gauss_jordan_inverse`]; all reported before anything is written (on error `a` is
/// unchanged).
///
/// ```
/// use dense_inverse::gauss_jordan_inverse_in_place;
/// use gpu_blas::{Device, DeviceMatrix};
/// let mut a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[2.0f64, 0.0], [0.0, 4.0]])?;
/// gauss_jordan_inverse_in_place(&mut a)?;
/// assert_eq!(a.to_array()?, ndarray::array![[0.5, 0.0], [0.0, 0.25]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn gauss_jordan_inverse_in_place<'a, T: Scalar>(a: impl Into<MatMut<'a, T>>) -> Result<()> {
    const OP: &str = "gauss_jordan_inverse_in_place";
    let mut a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::gauss_jordan_inverse_in_place(OP, &mut a),
        Backend::Cpu => {
            let mut h = check::read(&a.as_ref())?;
            check::finite(OP, &h)?;
            invert_host(OP, n, &mut h)?;
            check::write(&mut a, &h)
        }
    }
}
