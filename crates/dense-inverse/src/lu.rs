//! LU factorization with partial pivoting, solves and inverses (LAPACK `getrf`, `getrs`,
//! `getri` semantics: 1-based `i32` pivots, `info` = first exactly-zero `U(j, j)`).

use crate::check::{self, Backend};
use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu;
use gpu_blas::blas2::Trans;
use gpu_blas::{DeviceMatrix, DeviceVec, MatMut, MatRef, Scalar};

/// The LU factorization `A = P·L·U` of a square matrix, as [`lu_factor`] returns it.
///
/// `factors` holds `L` (unit lower triangular, strictly below the diagonal; the unit diagonal is
/// implied) and `U` (upper triangular, on and above the diagonal) in one `n × n` matrix with
/// leading dimension `n`. `pivots[j]` (1-based) is the row interchanged with row `j + 1` at step
/// `j`; `P` is the product of those interchanges in order. `info` is 0, or the 1-based index of
/// the first exactly-zero `U(j, j)` (the matrix is singular; the factors are still complete).
///
/// ```
/// use dense_inverse::lu_factor;
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, 2.0], [3.0, 4.0]])?;
/// let f = lu_factor(&a)?;
/// assert_eq!(f.pivots.to_vec()?, vec![2, 2]); // row 2 holds the largest first-column entry
/// assert_eq!(f.info, 0);
/// assert_eq!(f.factors.to_array()?, ndarray::array![[3.0, 4.0], [1.0 / 3.0, 2.0 - 4.0 / 3.0]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
#[derive(Debug)]
pub struct LuFactors<T: Scalar> {
    /// `L` below the diagonal, `U` on and above it (`n × n`, leading dimension `n`).
    pub factors: DeviceMatrix<T>,
    /// 1-based LAPACK row interchanges (`n` entries).
    pub pivots: DeviceVec<i32>,
    /// 0, or the 1-based index of the first exactly-zero `U(j, j)`.
    pub info: i32,
}

/// LU factorization with partial pivoting of a square matrix into new buffers:
/// `A = P·L·U` (LAPACK `getrf`). The input is not modified.
///
/// At step `j` the pivot is the entry of largest `|re| + |im|` on or below the diagonal of
/// column `j` (the first on ties). Blocked right-looking (64-column panels; the trailing update
/// `A22 ← A22 − L21·U12` is a matrix product, on several threads when large).
/// A singular matrix is not an error: `info` says where `U` has its first zero pivot.
///
/// Memory: the factors (`n × n`) and the pivots; nothing else of size `n²`.
///
/// # Errors
/// [`Error::NotSquare`]; [`gpu_blas::Error::NonFinite`] (index `i + j·n`) for a NaN or
/// infinite entry; [`gpu_blas::Error::SizeTooLarge`] for `n > i32::MAX`;
/// [`gpu_blas::Error::OutOfMemory`] on a GPU.
///
/// ```
/// use dense_inverse::lu_factor;
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, 2.0], [2.0, 4.0]])?;
/// assert_eq!(lu_factor(&a)?.info, 2); // singular: U(2, 2) = 0
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn lu_factor<'a, T: Scalar>(a: impl Into<MatRef<'a, T>>) -> Result<LuFactors<T>> {
    const OP: &str = "lu_factor";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::lu_factor(OP, &a),
        Backend::Cpu => {
            let mut h = check::read(&a)?;
            check::finite(OP, &h)?;
            let mut piv = vec![0i32; n];
            let info = cpu::lu::getrf(n, &mut h, &mut piv);
            Ok(LuFactors {
                factors: check::new_matrix(a.device(), n, h)?,
                pivots: DeviceVec::from_vec(a.device(), piv)?,
                info,
            })
        }
    }
}

/// LU factorization with partial pivoting in place (LAPACK `getrf`): `a` is overwritten with
/// `L` and `U` as in [`LuFactors::factors`], `pivots` (length `n`) with the 1-based row
/// interchanges; returns `info` (0, or the 1-based index of the first exactly-zero `U(j, j)`).
///
/// `a` may be any square view (leading dimension larger than `n`, a block of a larger matrix);
/// elements outside the view are never touched. Memory: one `n × n` host working copy.
///
/// # Errors
/// As [`lu_factor`], plus [`gpu_blas::Error::DimensionMismatch`] for a pivot vector of the wrong
/// length and [`gpu_blas::Error::DeviceMismatch`]. All checks run before anything is written:
/// on error `a` and `pivots` are unchanged.
///
/// ```
/// use dense_inverse::lu_factor_in_place;
/// use gpu_blas::{Device, DeviceMatrix, DeviceVec};
/// let dev = Device::cpu();
/// // [[4, 1], [2, 3]] stored with leading dimension 3 (the third row is padding).
/// let mut a = DeviceMatrix::from_col_major(&dev, 2, 2, 3, vec![4.0, 2.0, -1.0, 1.0, 3.0, 7.0])?;
/// let mut piv = DeviceVec::zeros(&dev, 2)?;
/// assert_eq!(lu_factor_in_place(&mut a, &mut piv)?, 0);
/// assert_eq!(a.to_array()?, ndarray::array![[4.0, 1.0], [0.5, 2.5]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn lu_factor_in_place<'a, T: Scalar>(
    a: impl Into<MatMut<'a, T>>,
    pivots: &mut DeviceVec<i32>,
) -> Result<i32> {
    const OP: &str = "lu_factor_in_place";
    let mut a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    check::pivots_len(OP, n, pivots.len())?;
    check::same_device(OP, a.device(), &[pivots.device()])?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::lu_factor_in_place(OP, &mut a, pivots),
        Backend::Cpu => {
            let mut h = check::read(&a.as_ref())?;
            check::finite(OP, &h)?;
            let mut piv = vec![0i32; n];
            let info = cpu::lu::getrf(n, &mut h, &mut piv);
            check::write(&mut a, &h)?;
            pivots.copy_from_slice(&piv)?;
            Ok(info)
        }
    }
}

/// Solves `op(A)·X = B` in place (`B ← X`) from the factors and pivots of [`lu_factor`] or
/// [`lu_factor_in_place`] (LAPACK `getrs`), with `op(A)` = `A`, `Aᵀ` or `Aᴴ` ([`Trans`]).
///
/// `Trans::N`: `B ← U⁻¹·L⁻¹·Pᵀ·B`; `Trans::T`/`C`: `B ← P·op(L)⁻¹·op(U)⁻¹·B`. Blocked
/// triangular solves (substitution on 64 × 64 diagonal blocks, matrix products for the rest),
/// right-hand sides in parallel column chunks when there are many. `b` may have any number of
/// columns and any leading dimension. Memory: one `n × nrhs` host copy of `b` and one of the
/// factors.
///
/// # Errors
/// [`Error::NotSquare`] (factors); [`gpu_blas::Error::DimensionMismatch`] (pivot length, `b`
/// rows); [`gpu_blas::Error::DeviceMismatch`]; [`gpu_blas::Error::OutOfBounds`] for a pivot
/// outside `1..=n`; [`gpu_blas::Error::NonFinite`] for a NaN or infinity in `b`;
/// [`Error::Singular`] when some `U(j, j)` is exactly zero (no division by zero is attempted);
/// [`gpu_blas::Error::OutOfMemory`] on a GPU. Checked before anything is written: on error `b`
/// is unchanged.
///
/// ```
/// use dense_inverse::{lu_factor, lu_solve};
/// use gpu_blas::{blas2::Trans, Device, DeviceMatrix};
/// let dev = Device::cpu();
/// let a = DeviceMatrix::from_array(&dev, &ndarray::array![[2.0f64, 1.0], [1.0, 3.0]])?;
/// let f = lu_factor(&a)?;
/// let mut b = DeviceMatrix::from_array(&dev, &ndarray::array![[3.0], [4.0]])?; // A·[1, 1]
/// lu_solve(Trans::N, &f.factors, &f.pivots, &mut b)?;
/// let x = b.to_array()?;
/// assert!((x[[0, 0]] - 1.0).abs() < 1e-15 && (x[[1, 0]] - 1.0).abs() < 1e-15);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn lu_solve<'a, 'b, T: Scalar>(
    trans: Trans,
    factors: impl Into<MatRef<'a, T>>,
    pivots: &DeviceVec<i32>,
    b: impl Into<MatMut<'b, T>>,
) -> Result<()> {
    const OP: &str = "lu_solve";
    let (f, mut b) = (factors.into(), b.into());
    let n = check::square(OP, f.rows(), f.cols())?;
    check::pivots_len(OP, n, pivots.len())?;
    check::rhs_rows(OP, n, b.rows())?;
    check::same_device(OP, f.device(), &[pivots.device(), b.device()])?;
    match check::backend(OP, f.device())? {
        Backend::Cuda => gpu::ops::lu_solve(OP, trans, &f, pivots, &mut b),
        Backend::Cpu => {
            let piv = pivots.to_vec()?;
            check_pivots(OP, n, &piv)?;
            let lu = check::read(&f)?;
            zero_pivot(OP, n, &lu)?;
            let mut h = check::read(&b.as_ref())?;
            check::finite(OP, &h)?;
            cpu::lu::getrs(trans, n, &lu, &piv, &mut h, b.cols());
            check::write(&mut b, &h)
        }
    }
}

/// Every pivot lies in `1..=n`.
pub(crate) fn check_pivots(op: &'static str, n: usize, piv: &[i32]) -> Result<()> {
    match piv.iter().position(|&p| p < 1 || p as usize > n) {
        None => Ok(()),
        Some(i) => Err(gpu_blas::Error::OutOfBounds {
            op,
            detail: format!("pivots[{i}] = {} is not a row index in 1..={n}", piv[i]),
        }
        .into()),
    }
}

/// [`Error::Singular`] at the first exactly-zero diagonal entry of compact factors.
pub(crate) fn zero_pivot<T: Scalar>(op: &'static str, n: usize, lu: &[T]) -> Result<()> {
    match (0..n).find(|&j| lu[j * n + j] == T::zero()) {
        None => Ok(()),
        Some(j) => Err(Error::Singular { op, step: j + 1 }),
    }
}

/// `A⁻¹` into a new `n × n` matrix (leading dimension `n`) by LU with partial pivoting
/// (LAPACK `getrf` then `getri`); the input is not modified.
///
/// `getri`: `U⁻¹`, then `X·L = U⁻¹` solved for `X`, then `A⁻¹ = X·P` (columns interchanged
/// back). About `2n³` flops in all. On a GPU, where memory allows, the factors and the result
/// are separate matrices: `U⁻¹` is formed in the result and `X·L = U⁻¹` is one recursive
/// triangular solve (mostly matrix products) reading `L` from the factors. Otherwise (and on the
/// CPU) everything happens in the result, `X·L = U⁻¹` by column blocks from the right (each
/// block one matrix product).
///
/// Memory: the result, plus on a GPU one `n × n` matrix for the factors where it fits (freed
/// before returning; else an `n × 256` block), on the CPU an `n × 64` block.
///
/// # Errors
/// [`Error::Singular`] with the 1-based step (LAPACK `info`) when some `U(j, j)` is exactly
/// zero; [`Error::NotSquare`]; [`gpu_blas::Error::NonFinite`]; [`gpu_blas::Error::OutOfMemory`]
/// on a GPU. Nearly singular matrices are inverted without complaint: use [`crate::inverse`]
/// for a result that carries its condition estimate.
///
/// ```
/// use dense_inverse::lu_inverse;
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[4.0f64, 7.0], [2.0, 6.0]])?;
/// let x = lu_inverse(&a)?.to_array()?;
/// let want = ndarray::array![[0.6, -0.7], [-0.2, 0.4]];
/// assert!((x - want).iter().all(|d| d.abs() < 1e-15));
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn lu_inverse<'a, T: Scalar>(a: impl Into<MatRef<'a, T>>) -> Result<DeviceMatrix<T>> {
    const OP: &str = "lu_inverse";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::lu_inverse(OP, &a),
        Backend::Cpu => {
            let mut h = check::read(&a)?;
            check::finite(OP, &h)?;
            invert_host(OP, n, &mut h)?;
            check::new_matrix(a.device(), n, h)
        }
    }
}

/// `A ← A⁻¹` in place by LU with partial pivoting (LAPACK `getrf` + `getri`), for any square
/// view (leading dimension larger than `n`, a block of a larger matrix).
///
/// Memory: one `n × n` host working copy and an `n × 64` block. The view is written only after
/// the inverse has been computed.
///
/// # Errors
/// As [`lu_inverse`]. All failures, [`Error::Singular`] included, are reported before anything
/// is written: on error `a` is unchanged.
///
/// ```
/// use dense_inverse::lu_inverse_in_place;
/// use gpu_blas::{Device, DeviceMatrix};
/// let mut a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[0.0f32, 2.0], [4.0, 0.0]])?;
/// lu_inverse_in_place(&mut a)?;
/// assert_eq!(a.to_array()?, ndarray::array![[0.0, 0.25], [0.5, 0.0]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn lu_inverse_in_place<'a, T: Scalar>(a: impl Into<MatMut<'a, T>>) -> Result<()> {
    const OP: &str = "lu_inverse_in_place";
    let mut a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::lu_inverse_in_place(OP, &mut a),
        Backend::Cpu => {
            let mut h = check::read(&a.as_ref())?;
            check::finite(OP, &h)?;
            invert_host(OP, n, &mut h)?;
            check::write(&mut a, &h)
        }
    }
}

/// Factor and invert a compact host copy; [`Error::Singular`] on `info > 0`.
pub(crate) fn invert_host<T: Scalar>(op: &'static str, n: usize, h: &mut [T]) -> Result<Vec<i32>> {
    let mut piv = vec![0i32; n];
    let info = cpu::lu::getrf(n, h, &mut piv);
    if info > 0 {
        return Err(Error::Singular {
            op,
            step: info as usize,
        });
    }
    cpu::lu::getri(n, h, &piv);
    Ok(piv)
}
