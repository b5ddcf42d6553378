//! Matrix 1-norms and reciprocal condition number estimates (LAPACK `gecon`, `pocon` style).

use crate::check::{self, Backend};
use crate::cholesky::read_factor;
use crate::cpu;
use crate::error::Result;
use crate::gpu;
use crate::lu::check_pivots;
use gpu_blas::blas2::{Trans, Uplo};
use gpu_blas::{DeviceVec, MatRef, Scalar};
use num_traits::Zero;

/// `‖A‖₁ = max_j Σ_i |a_ij|`, the largest column sum of moduli, of any matrix view.
///
/// # Errors
/// [`gpu_blas::Error::NonFinite`]; [`gpu_blas::Error::OutOfMemory`] on a GPU.
///
/// ```
/// use dense_inverse::norm1;
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, -4.0], [-2.0, 1.0]])?;
/// assert_eq!(norm1(&a)?, 5.0);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn norm1<'a, T: Scalar>(a: impl Into<MatRef<'a, T>>) -> Result<T::Real> {
    const OP: &str = "norm1";
    let a = a.into();
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::norm1(OP, &a),
        Backend::Cpu => {
            let h = check::read(&a)?;
            check::finite(OP, &h)?;
            Ok(cpu::condition::norm1(a.rows(), &h))
        }
    }
}

/// `‖A‖₁` of a Hermitian matrix of which only the `uplo` triangle is read.
///
/// # Errors
/// [`crate::Error::NotSquare`]; [`gpu_blas::Error::NonFinite`] (referenced triangle);
/// [`gpu_blas::Error::OutOfMemory`] on a GPU.
///
/// ```
/// use dense_inverse::hermitian_norm1;
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// // Only the lower triangle counts: the matrix is [[2, 3], [3, 1]].
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[2.0f64, 99.0], [3.0, 1.0]])?;
/// assert_eq!(hermitian_norm1(Uplo::Lower, &a)?, 5.0);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn hermitian_norm1<'a, T: Scalar>(uplo: Uplo, a: impl Into<MatRef<'a, T>>) -> Result<T::Real> {
    const OP: &str = "hermitian_norm1";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::hermitian_norm1(OP, uplo, &a),
        Backend::Cpu => Ok(cpu::condition::norm1(
            n,
            &check::read_hermitian(OP, uplo, &a)?,
        )),
    }
}

/// Reciprocal 1-norm condition estimate from compact LU factors (0 for a zero pivot).
pub(crate) fn lu_rcond_host<T: Scalar>(n: usize, lu: &[T], piv: &[i32], anorm: T::Real) -> T::Real {
    if (0..n).any(|j| lu[j * n + j] == T::zero()) {
        return T::Real::zero();
    }
    let est = cpu::condition::norm1_estimate::<T>(n, |x, adjoint| {
        let t = if adjoint { Trans::C } else { Trans::N };
        cpu::lu::getrs(t, n, lu, piv, x, 1);
    });
    cpu::condition::rcond_from(n, anorm, est)
}

/// Reciprocal 1-norm condition estimate from a compact lower Cholesky factor.
pub(crate) fn cholesky_rcond_host<T: Scalar>(n: usize, l: &[T], anorm: T::Real) -> T::Real {
    let est = cpu::condition::norm1_estimate::<T>(n, |x, _| cpu::cholesky::potrs(n, l, x, 1));
    cpu::condition::rcond_from(n, anorm, est)
}

/// Estimate of the reciprocal condition number `1/(‖A‖₁·‖A⁻¹‖₁)` from the LU factors and
/// pivots of [`crate::lu_factor`] and `anorm = ‖A‖₁` of the original matrix ([`norm1`]);
/// LAPACK `gecon`.
///
/// `‖A⁻¹‖₁` is estimated by the Hager–Higham method (LAPACK `lacn2`): a handful of solves
/// `A·x = b` and `Aᴴ·x = b` with the factors (each `O(n²)`), never forming `A⁻¹`. The estimate
/// of `‖A⁻¹‖₁` is a lower bound, almost always within a factor 3, so `rcond` is an upper bound
/// within about that factor. Returns 0 for an exactly zero pivot or `anorm = 0`, 1 for `n = 0`.
///
/// # Errors
/// [`crate::Error::NotSquare`]; [`gpu_blas::Error::DimensionMismatch`] (pivot length);
/// [`gpu_blas::Error::OutOfBounds`] (a pivot outside `1..=n`); [`gpu_blas::Error::DeviceMismatch`];
/// [`gpu_blas::Error::OutOfMemory`] on a GPU.
///
/// ```
/// use dense_inverse::{lu_factor, lu_rcond, norm1};
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, 0.0], [0.0, 1e-6]])?;
/// let f = lu_factor(&a)?;
/// let rcond = lu_rcond(&f.factors, &f.pivots, norm1(&a)?)?;
/// assert!((rcond - 1e-6).abs() < 1e-12); // κ₁ = 1e6, found exactly for a diagonal matrix
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn lu_rcond<'a, T: Scalar>(
    factors: impl Into<MatRef<'a, T>>,
    pivots: &DeviceVec<i32>,
    anorm: T::Real,
) -> Result<T::Real> {
    const OP: &str = "lu_rcond";
    let f = factors.into();
    let n = check::square(OP, f.rows(), f.cols())?;
    check::pivots_len(OP, n, pivots.len())?;
    check::same_device(OP, f.device(), &[pivots.device()])?;
    match check::backend(OP, f.device())? {
        Backend::Cuda => gpu::ops::lu_rcond(OP, &f, pivots, anorm),
        Backend::Cpu => {
            let piv = pivots.to_vec()?;
            check_pivots(OP, n, &piv)?;
            let lu = check::read(&f)?;
            check::finite(OP, &lu)?;
            Ok(lu_rcond_host(n, &lu, &piv, anorm))
        }
    }
}

/// Estimate of the reciprocal condition number `1/(‖A‖₁·‖A⁻¹‖₁)` of a Hermitian positive
/// definite matrix from its Cholesky factor ([`crate::cholesky_factor`], `uplo` triangle) and
/// `anorm = ‖A‖₁` ([`hermitian_norm1`]); LAPACK `pocon`. Same estimator as [`lu_rcond`], with
/// solves by the factor.
///
/// # Errors
/// [`crate::Error::NotSquare`]; [`gpu_blas::Error::NonFinite`];
/// [`crate::Error::NotPositiveDefinite`] for a factor with a non-positive diagonal entry;
/// [`gpu_blas::Error::OutOfMemory`] on a GPU.
///
/// ```
/// use dense_inverse::{cholesky_factor, cholesky_rcond, hermitian_norm1};
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[4.0f64, 0.0], [0.0, 1.0]])?;
/// let l = cholesky_factor(Uplo::Lower, &a)?;
/// let rcond = cholesky_rcond(Uplo::Lower, &l, hermitian_norm1(Uplo::Lower, &a)?)?;
/// assert!((rcond - 0.25).abs() < 1e-15);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn cholesky_rcond<'a, T: Scalar>(
    uplo: Uplo,
    factor: impl Into<MatRef<'a, T>>,
    anorm: T::Real,
) -> Result<T::Real> {
    const OP: &str = "cholesky_rcond";
    let f = factor.into();
    let n = check::square(OP, f.rows(), f.cols())?;
    match check::backend(OP, f.device())? {
        Backend::Cuda => gpu::ops::cholesky_rcond(OP, uplo, &f, anorm),
        Backend::Cpu => {
            let l = read_factor(OP, uplo, &f)?;
            Ok(cholesky_rcond_host(n, &l, anorm))
        }
    }
}
