//! The scalar types every operation is generic over: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.

use num_complex::Complex;
use num_traits::{Float, FromPrimitive, NumAssign, ToPrimitive};
use std::fmt::{Debug, Display};
use std::iter::Sum;
use std::ops::Neg;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for num_complex::Complex<f32> {}
    impl Sealed for num_complex::Complex<f64> {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u32 {}
}

/// A plain-old-data element a device buffer can hold: the four [`Scalar`]s and the integer
/// types used for indices (`i32`, `i64`, `u32`).
///
/// Sealed: the kernels are compiled for exactly these types.
///
/// ```
/// use gpu_blas::{Device, DeviceVec};
/// let idx = DeviceVec::<i32>::from_slice(&Device::cpu(), &[0, 2, 5])?;
/// assert_eq!(idx.to_vec()?, vec![0, 2, 5]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub trait Element:
    sealed::Sealed + Copy + Default + Debug + PartialEq + Send + Sync + 'static
{
}
impl Element for f32 {}
impl Element for f64 {}
impl Element for Complex<f32> {}
impl Element for Complex<f64> {}
impl Element for i32 {}
impl Element for i64 {}
impl Element for u32 {}

/// A real or complex floating-point scalar.
///
/// For `x = a + bi`: `conj(x) = a - bi`, `abs(x) = sqrt(a² + b²)` (computed without overflow),
/// `abs1(x) = |a| + |b|` (the BLAS `icamax`/`scasum` measure). `PREFIX` is the BLAS letter
/// (`s`, `d`, `c`, `z`) that names the kernel instantiation for this type.
///
/// ```
/// use gpu_blas::Scalar;
/// use num_complex::Complex64;
/// let z = Complex64::new(3.0, -4.0);
/// assert_eq!(z.abs(), 5.0);
/// assert_eq!(z.abs1(), 7.0);
/// assert_eq!(z.conj(), Complex64::new(3.0, 4.0));
/// assert_eq!(<Complex64 as Scalar>::PREFIX, 'z');
/// ```
pub trait Scalar: Element + NumAssign + Neg<Output = Self> + Sum + Display + Debug {
    /// The real type underneath (`f32` for `f32` and `Complex<f32>`).
    type Real: RealScalar;
    /// BLAS prefix letter: `s`, `d`, `c` or `z`.
    const PREFIX: char;
    /// Whether the type is complex.
    const IS_COMPLEX: bool;

    /// `re + i·im`; the imaginary part is dropped for real types.
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// Embeds a real number.
    fn from_real(re: Self::Real) -> Self {
        Self::from_parts(re, <Self::Real as num_traits::Zero>::zero())
    }
    /// Converts from `f64` (rounding for `f32`).
    fn from_f64(v: f64) -> Self {
        Self::from_real(<Self::Real as FromPrimitive>::from_f64(v).unwrap_or_else(Self::Real::nan))
    }
    /// Real part.
    fn re(self) -> Self::Real;
    /// Imaginary part (zero for real types).
    fn im(self) -> Self::Real;
    /// Complex conjugate (identity for real types).
    fn conj(self) -> Self;
    /// Modulus `|x|`, without intermediate overflow.
    fn abs(self) -> Self::Real;
    /// `|re| + |im|`.
    fn abs1(self) -> Self::Real {
        Float::abs(self.re()) + Float::abs(self.im())
    }
    /// Whether both parts are finite.
    fn is_finite(self) -> bool {
        Float::is_finite(self.re()) && Float::is_finite(self.im())
    }
    /// Whether either part is NaN.
    fn is_nan(self) -> bool {
        Float::is_nan(self.re()) || Float::is_nan(self.im())
    }
    /// The value as a `Complex<f64>` (exact: every supported type widens without rounding).
    fn to_c64(self) -> Complex<f64> {
        Complex::new(
            self.re().to_f64().unwrap_or(f64::NAN),
            self.im().to_f64().unwrap_or(f64::NAN),
        )
    }
    /// Machine epsilon of the real type (`2^-23` or `2^-52`).
    fn epsilon() -> Self::Real {
        <Self::Real as Float>::epsilon()
    }
}

/// A real floating-point [`Scalar`] (`f32` or `f64`).
///
/// ```
/// use gpu_blas::RealScalar;
/// fn half<R: RealScalar>(x: R) -> R { x / (R::one() + R::one()) }
/// assert_eq!(half(3.0f32), 1.5);
/// ```
pub trait RealScalar:
    Scalar<Real = Self> + Float + PartialOrd + FromPrimitive + ToPrimitive
{
}

impl RealScalar for f32 {}
impl RealScalar for f64 {}

macro_rules! impl_real {
    ($t:ty, $p:literal) => {
        impl Scalar for $t {
            type Real = $t;
            const PREFIX: char = $p;
            const IS_COMPLEX: bool = false;
            #[inline]
            fn from_parts(re: $t, _im: $t) -> Self {
                re
            }
            #[inline]
            fn re(self) -> $t {
                self
            }
            #[inline]
            fn im(self) -> $t {
                0.0
            }
            #[inline]
            fn conj(self) -> Self {
                self
            }
            #[inline]
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
        }
    };
}
impl_real!(f32, 's');
impl_real!(f64, 'd');

macro_rules! impl_complex {
    ($t:ty, $p:literal) => {
        impl Scalar for Complex<$t> {
            type Real = $t;
            const PREFIX: char = $p;
            const IS_COMPLEX: bool = true;
            #[inline]
            fn from_parts(re: $t, im: $t) -> Self {
                Complex::new(re, im)
            }
            #[inline]
            fn re(self) -> $t {
                self.re
            }
            #[inline]
            fn im(self) -> $t {
                self.im
            }
            #[inline]
            fn conj(self) -> Self {
                Complex::new(self.re, -self.im)
            }
            #[inline]
            fn abs(self) -> $t {
                self.re.hypot(self.im)
            }
        }
    };
}
impl_complex!(f32, 'c');
impl_complex!(f64, 'z');
