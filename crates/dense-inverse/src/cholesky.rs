//! Cholesky factorization, solves and inverses of Hermitian positive definite matrices
//! (LAPACK `potrf`, `potrs`, `potri` semantics, one triangle referenced).

use crate::check::{self, Backend};
use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu;
use gpu_blas::blas2::Uplo;
use gpu_blas::{DeviceMatrix, MatMut, MatRef, Scalar};

/// Factor a compact Hermitian host copy (both triangles filled) into its lower triangle.
pub(crate) fn factor_host<T: Scalar>(op: &'static str, n: usize, h: &mut [T]) -> Result<()> {
    cpu::cholesky::potrf(n, h).map_err(|column| Error::NotPositiveDefinite { op, column })
}

/// Cholesky factorization `A = L·Lᴴ` (`uplo = Lower`) or `A = Uᴴ·U` (`Upper`) of a Hermitian
/// positive definite matrix into a new `n × n` matrix (LAPACK `potrf`); the input is not
/// modified.
///
/// Only the `uplo` triangle of `a` is read (the imaginary parts of its diagonal are ignored);
/// the result holds the factor in that triangle and zeros in the other. Blocked right-looking
/// (64-column panels; the trailing update `A22 ← A22 − L21·L21ᴴ` is a matrix product, in
/// parallel column chunks when large). Memory: the result only.
///
/// # Errors
/// [`Error::NotPositiveDefinite`] with the 1-based column `j` whose pivot
/// `A(j, j) − Σ_k |L(j, k)|²` is not positive (LAPACK `info`); [`Error::NotSquare`];
/// [`gpu_blas::Error::NonFinite`] (index `i + j·n`, referenced triangle only);
/// [`gpu_blas::Error::OutOfMemory`] when a GPU's memory runs out.
///
/// ```
/// use dense_inverse::cholesky_factor;
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[4.0f64, 2.0], [2.0, 5.0]])?;
/// assert_eq!(cholesky_factor(Uplo::Lower, &a)?.to_array()?, ndarray::array![[2.0, 0.0], [1.0, 2.0]]);
/// assert_eq!(cholesky_factor(Uplo::Upper, &a)?.to_array()?, ndarray::array![[2.0, 1.0], [0.0, 2.0]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn cholesky_factor<'a, T: Scalar>(
    uplo: Uplo,
    a: impl Into<MatRef<'a, T>>,
) -> Result<DeviceMatrix<T>> {
    const OP: &str = "cholesky_factor";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::cholesky_factor(OP, uplo, &a),
        Backend::Cpu => {
            let mut h = check::read_hermitian(OP, uplo, &a)?;
            factor_host(OP, n, &mut h)?;
            finish_factor(uplo, n, &mut h);
            cpu::cholesky::zero_strict(n, &mut h, uplo == Uplo::Lower);
            check::new_matrix(a.device(), n, h)
        }
    }
}

/// Moves a lower factor to the `uplo` triangle (`U = Lᴴ` for `Upper`).
fn finish_factor<T: Scalar>(uplo: Uplo, n: usize, h: &mut [T]) {
    if uplo == Uplo::Upper {
        cpu::cholesky::transpose_triangle(n, h, false);
    }
}

/// Cholesky factorization in place (LAPACK `potrf`): the `uplo` triangle of `a` is overwritten
/// with `L` (`A = L·Lᴴ`) or `U` (`A = Uᴴ·U`); the other triangle is neither read nor written.
///
/// Memory: one `n × n` host working copy.
///
/// # Errors
/// As [`cholesky_factor`]. Every failure, [`Error::NotPositiveDefinite`] included, is reported
/// before anything is written: on error `a` is unchanged (unlike LAPACK, which leaves a partial
/// factor).
///
/// ```
/// use dense_inverse::cholesky_factor_in_place;
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// // The strict upper triangle (here 7) is not referenced and stays as it is.
/// let mut a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[9.0f64, 7.0], [3.0, 5.0]])?;
/// cholesky_factor_in_place(Uplo::Lower, &mut a)?;
/// assert_eq!(a.to_array()?, ndarray::array![[3.0, 7.0], [1.0, 2.0]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn cholesky_factor_in_place<'a, T: Scalar>(
    uplo: Uplo,
    a: impl Into<MatMut<'a, T>>,
) -> Result<()> {
    const OP: &str = "cholesky_factor_in_place";
    let mut a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::cholesky_factor_in_place(OP, uplo, &mut a),
        Backend::Cpu => {
            let mut h = check::read_hermitian(OP, uplo, &a.as_ref())?;
            factor_host(OP, n, &mut h)?;
            finish_factor(uplo, n, &mut h);
            check::write_triangle(uplo, &mut a, &h)
        }
    }
}

/// Solves `A·X = B` in place (`B ← X`) from the Cholesky factor of [`cholesky_factor`] (LAPACK
/// `potrs`): `L·Y = B`, `Lᴴ·X = Y` (or `Uᴴ·Y = B`, `U·X = Y`). Only the `uplo` triangle of
/// `factor` is read.
///
/// Memory: host copies of the factor (`n × n`) and of `b`.
///
/// # Errors
/// [`Error::NotSquare`]; [`gpu_blas::Error::DimensionMismatch`] (`b` rows);
/// [`gpu_blas::Error::DeviceMismatch`]; [`gpu_blas::Error::NonFinite`] in `b` or the factor's
/// triangle; [`Error::NotPositiveDefinite`] naming the first diagonal entry of the factor that
/// is not positive (such a factor cannot come from [`cholesky_factor`]);
/// [`gpu_blas::Error::OutOfMemory`] on a GPU. On error `b` is unchanged.
///
/// ```
/// use dense_inverse::{cholesky_factor, cholesky_solve};
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let dev = Device::cpu();
/// let a = DeviceMatrix::from_array(&dev, &ndarray::array![[4.0f64, 2.0], [2.0, 5.0]])?;
/// let l = cholesky_factor(Uplo::Lower, &a)?;
/// let mut b = DeviceMatrix::from_array(&dev, &ndarray::array![[6.0], [7.0]])?; // A·[1, 1]
/// cholesky_solve(Uplo::Lower, &l, &mut b)?;
/// assert_eq!(b.to_array()?, ndarray::array![[1.0], [1.0]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn cholesky_solve<'a, 'b, T: Scalar>(
    uplo: Uplo,
    factor: impl Into<MatRef<'a, T>>,
    b: impl Into<MatMut<'b, T>>,
) -> Result<()> {
    const OP: &str = "cholesky_solve";
    let (f, mut b) = (factor.into(), b.into());
    let n = check::square(OP, f.rows(), f.cols())?;
    check::rhs_rows(OP, n, b.rows())?;
    check::same_device(OP, f.device(), &[b.device()])?;
    match check::backend(OP, f.device())? {
        Backend::Cuda => gpu::ops::cholesky_solve(OP, uplo, &f, &mut b),
        Backend::Cpu => {
            let l = read_factor(OP, uplo, &f)?;
            let mut h = check::read(&b.as_ref())?;
            check::finite(OP, &h)?;
            cpu::cholesky::potrs(n, &l, &mut h, b.cols());
            check::write(&mut b, &h)
        }
    }
}

/// A compact lower factor `L` from the `uplo` triangle of a factor view (`L = Uᴴ` for upper),
/// its diagonal checked positive.
pub(crate) fn read_factor<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    f: &MatRef<'_, T>,
) -> Result<Vec<T>> {
    let n = f.rows();
    let mut l = check::read_hermitian(op, uplo, f)?;
    if let Some(j) = (0..n).find(|&j| {
        let d = l[j * n + j].re();
        d <= num_traits::Zero::zero() || num_traits::Float::is_nan(d)
    }) {
        return Err(Error::NotPositiveDefinite { op, column: j + 1 });
    }
    // read_hermitian mirrored the triangle; the lower triangle now holds L either way.
    cpu::cholesky::zero_strict(n, &mut l, true);
    Ok(l)
}

/// `A⁻¹` of a Hermitian positive definite matrix into a new `n × n` matrix, both triangles
/// filled (exactly Hermitian), by Cholesky (LAPACK `potrf` + `potri`); only the `uplo` triangle
/// of `a` is read.
///
/// `potri`: `L ← L⁻¹` in place, then `A⁻¹ = L⁻ᴴ·L⁻¹` in place on the lower triangle, mirrored.
/// About `n³` flops in all (half of LU). Memory: the result only.
///
/// # Errors
/// [`Error::NotPositiveDefinite`] (1-based column); [`Error::NotSquare`];
/// [`gpu_blas::Error::NonFinite`]; [`gpu_blas::Error::OutOfMemory`] on a GPU.
///
/// ```
/// use dense_inverse::cholesky_inverse;
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[4.0f64, 2.0], [2.0, 2.0]])?;
/// let x = cholesky_inverse(Uplo::Upper, &a)?.to_array()?;
/// let want = ndarray::array![[0.5, -0.5], [-0.5, 1.0]];
/// assert!((x - want).iter().all(|d| d.abs() < 1e-15));
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn cholesky_inverse<'a, T: Scalar>(
    uplo: Uplo,
    a: impl Into<MatRef<'a, T>>,
) -> Result<DeviceMatrix<T>> {
    const OP: &str = "cholesky_inverse";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::cholesky_inverse(OP, uplo, &a),
        Backend::Cpu => {
            let mut h = check::read_hermitian(OP, uplo, &a)?;
            factor_host(OP, n, &mut h)?;
            cpu::cholesky::potri(n, &mut h);
            check::new_matrix(a.device(), n, h)
        }
    }
}

/// `A ← A⁻¹` in place for a Hermitian positive definite matrix (only the `uplo` triangle is
/// read; unlike LAPACK `potri`, both triangles of the view are written, so the result is the
/// full inverse). Any square view is accepted.
///
/// Memory: one `n × n` host working copy.
///
/// # Errors
/// As [`cholesky_inverse`]; all reported before anything is written (on error `a` is
/// unchanged).
///
/// ```
/// use dense_inverse::cholesky_inverse_in_place;
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let mut a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[4.0f64, 0.0], [0.0, 16.0]])?;
/// cholesky_inverse_in_place(Uplo::Lower, &mut a)?;
/// assert_eq!(a.to_array()?, ndarray::array![[0.25, 0.0], [0.0, 0.0625]]);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn cholesky_inverse_in_place<'a, T: Scalar>(
    uplo: Uplo,
    a: impl Into<MatMut<'a, T>>,
) -> Result<()> {
    const OP: &str = "cholesky_inverse_in_place";
    let mut a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::cholesky_inverse_in_place(OP, uplo, &mut a),
        Backend::Cpu => {
            let mut h = check::read_hermitian(OP, uplo, &a.as_ref())?;
            factor_host(OP, n, &mut h)?;
            cpu::cholesky::potri(n, &mut h);
            check::write(&mut a, &h)
        }
    }
}
