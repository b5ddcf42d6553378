//! Determinants from the LU factorization, as a phase and a log-magnitude.

use crate::check::{self, Backend};
use crate::cpu;
use crate::error::Result;
use crate::gpu;
use crate::lu::{check_pivots, LuFactors};
use gpu_blas::{MatRef, Scalar};
use num_traits::{Float, Zero};

/// `det(A) = sign·exp(log_abs)`, kept apart so that it neither overflows nor underflows.
///
/// `sign` has modulus 1 (±1 for real types, `e^{iφ}` for complex ones) and `log_abs = ln|det A|`;
/// for a singular matrix (an exactly zero `U(j, j)`) `sign = 0` and `log_abs = −∞`.
///
/// ```
/// use dense_inverse::Determinant;
/// let d = Determinant { sign: -1.0f64, log_abs: 2.0f64.ln() };
/// assert!((d.value() + 2.0).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Determinant<T: Scalar> {
    /// The phase `det(A)/|det(A)|` (0 when `det(A) = 0`).
    pub sign: T,
    /// `ln|det(A)|` (`−∞` when `det(A) = 0`).
    pub log_abs: T::Real,
}

impl<T: Scalar> Determinant<T> {
    /// `sign·exp(log_abs)`; overflows to infinity (or underflows to 0) when `|det A|` is outside
    /// the range of `T`.
    ///
    /// ```
    /// use dense_inverse::Determinant;
    /// let d = Determinant { sign: 1.0f32, log_abs: 1000.0 };
    /// assert!(d.value().is_infinite()); // e^1000 overflows f32; log_abs does not
    /// ```
    pub fn value(&self) -> T {
        self.sign * T::from_real(Float::exp(self.log_abs))
    }

    /// Whether the determinant is exactly zero (an exactly zero pivot).
    ///
    /// ```
    /// use dense_inverse::Determinant;
    /// assert!(Determinant { sign: 0.0f64, log_abs: f64::NEG_INFINITY }.is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.sign == T::zero()
    }
}

/// The determinant of compact LU factors: `det(A) = det(P)·Π U(j, j)`, `det(P) = (−1)^swaps`.
pub(crate) fn from_factors<T: Scalar>(n: usize, lu: &[T], piv: &[i32]) -> Determinant<T> {
    let diag: Vec<T> = (0..n).map(|j| lu[j * n + j]).collect();
    from_diagonal(&diag, piv)
}

/// The determinant from the diagonal of `U` and the pivots.
pub(crate) fn from_diagonal<T: Scalar>(diag: &[T], piv: &[i32]) -> Determinant<T> {
    let mut sign = T::one();
    let mut log_abs = T::Real::zero();
    for (j, &u) in diag.iter().enumerate() {
        let m = u.abs();
        if m == T::Real::zero() {
            return Determinant {
                sign: T::zero(),
                log_abs: T::Real::neg_infinity(),
            };
        }
        sign *= u * T::from_real(m.recip());
        if piv[j] as usize != j + 1 {
            sign = -sign;
        }
        log_abs += Float::ln(m);
    }
    // Renormalize the accumulated phase (rounding drifts its modulus).
    let m = sign.abs();
    if m > T::Real::zero() {
        sign *= T::from_real(m.recip());
    }
    Determinant { sign, log_abs }
}

/// `det(A)` of a square matrix by LU with partial pivoting, as [`Determinant`] (phase and
/// `ln|det A|`); the input is not modified. Memory: one `n × n` host working copy.
///
/// # Errors
/// [`crate::Error::NotSquare`]; [`gpu_blas::Error::NonFinite`]; [`gpu_blas::Error::OutOfMemory`]
/// on a GPU. A singular matrix is not an error: its determinant is zero.
///
/// ```
/// use dense_inverse::determinant;
/// use gpu_blas::{Device, DeviceMatrix};
/// let dev = Device::cpu();
/// let a = DeviceMatrix::from_array(&dev, &ndarray::array![[1.0f64, 2.0], [3.0, 4.0]])?;
/// let d = determinant(&a)?;
/// assert_eq!(d.sign, -1.0);
/// assert!((d.value() + 2.0).abs() < 1e-14);
/// // 1e200 · 1e200 overflows f64, its logarithm does not.
/// let big = DeviceMatrix::from_array(&dev, &ndarray::array![[1e200f64, 0.0], [0.0, 1e200]])?;
/// assert!((determinant(&big)?.log_abs - 400.0 * 10f64.ln()).abs() < 1e-10);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn determinant<'a, T: Scalar>(a: impl Into<MatRef<'a, T>>) -> Result<Determinant<T>> {
    const OP: &str = "determinant";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::determinant(OP, &a),
        Backend::Cpu => {
            let mut h = check::read(&a)?;
            check::finite(OP, &h)?;
            let mut piv = vec![0i32; n];
            cpu::lu::getrf(n, &mut h, &mut piv);
            Ok(from_factors(n, &h, &piv))
        }
    }
}

impl<T: Scalar> LuFactors<T> {
    /// The determinant from these factors: `det(A) = (−1)^swaps·Π U(j, j)`.
    ///
    /// # Errors
    /// [`gpu_blas::Error::OutOfBounds`] for an invalid pivot; [`gpu_blas::Error::Cuda`]
    /// for a failed read on a GPU.
    ///
    /// ```
    /// use dense_inverse::lu_factor;
    /// use gpu_blas::{Device, DeviceMatrix};
    /// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[0.0f64, 2.0], [3.0, 0.0]])?;
    /// assert_eq!(lu_factor(&a)?.determinant()?.value(), -6.0);
    /// # Ok::<(), dense_inverse::Error>(())
    /// ```
    pub fn determinant(&self) -> Result<Determinant<T>> {
        const OP: &str = "LuFactors::determinant";
        let n = self.factors.rows();
        match check::backend(OP, self.factors.device())? {
            Backend::Cuda => gpu::ops::factors_determinant(OP, self),
            Backend::Cpu => {
                let piv = self.pivots.to_vec()?;
                check_pivots(OP, n, &piv)?;
                let lu = check::read(&self.factors.view())?;
                Ok(from_factors(n, &lu, &piv))
            }
        }
    }
}
