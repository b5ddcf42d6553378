//! BLAS level 2 on both backends, for `f32`, `f64`, `Complex<f32>` and `Complex<f64>`.
//!
//! Matrices are column-major [`MatRef`]/[`MatMut`] views (any leading dimension, any block of a
//! larger matrix); vectors are strided [`VecRef`]/[`VecMut`] views with BLAS increment rules
//! (negative increments walk backwards). Symmetric, Hermitian and triangular routines read and
//! write only the triangle named by [`Uplo`].
//!
//! ```
//! use gpu_blas::{blas2::{self, Trans}, Device, DeviceMatrix, DeviceVec};
//! use ndarray::array;
//! let dev = Device::auto();
//! let a = DeviceMatrix::from_array(&dev, &array![[1.0f64, 2.0], [3.0, 4.0]])?;
//! let x = DeviceVec::from_slice(&dev, &[1.0, 1.0])?;
//! let mut y = DeviceVec::zeros(&dev, 2)?;
//! blas2::gemv(Trans::N, 1.0, &a, &x, 0.0, &mut y)?;
//! assert_eq!(y.to_vec()?, vec![3.0, 7.0]);
//! blas2::gemv(Trans::T, 1.0, &a, &x, 0.0, &mut y)?;
//! assert_eq!(y.to_vec()?, vec![4.0, 6.0]);
//! # Ok::<(), gpu_blas::Error>(())
//! ```

mod cpu;
mod cuda;

pub use cuda::{set_gemv_n_tuning, set_gemv_t_tuning, GemvNLaunch, GemvTKernel};

use crate::device::Kind;
use crate::error::{Error, Result};
use crate::matrix::DeviceMatrix;
use crate::scalar::{Element, Scalar};
use crate::view::{MatMut, MatRef, VecMut, VecRef};

/// `op(A)`: `A`, its transpose `Aᵀ`, or its conjugate transpose `Aᴴ`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trans {
    /// `op(A) = A`.
    N,
    /// `op(A) = Aᵀ`.
    T,
    /// `op(A) = Aᴴ` (same as `T` for real types).
    C,
}

/// Which triangle of a symmetric, Hermitian or triangular matrix is stored and referenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Uplo {
    /// The upper triangle (`i <= j`).
    Upper,
    /// The lower triangle (`i >= j`).
    Lower,
}

/// Whether a triangular matrix has an implicit unit diagonal (not read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Diag {
    /// The diagonal is read from the matrix.
    NonUnit,
    /// The diagonal is taken to be all ones and not read.
    Unit,
}

impl<'a, T: Element> From<&'a DeviceMatrix<T>> for MatRef<'a, T> {
    fn from(m: &'a DeviceMatrix<T>) -> Self {
        m.view()
    }
}

impl<'a, T: Element> From<&'a mut DeviceMatrix<T>> for MatMut<'a, T> {
    fn from(m: &'a mut DeviceMatrix<T>) -> Self {
        m.view_mut()
    }
}

impl<'a, T: Element> From<&'a MatMut<'a, T>> for MatRef<'a, T> {
    fn from(m: &'a MatMut<'a, T>) -> Self {
        m.as_ref()
    }
}

fn same_device(op: &'static str, a: &crate::Device, others: &[&crate::Device]) -> Result<()> {
    others.iter().try_for_each(|d| a.ensure_same(d, op))
}

fn square(op: &'static str, rows: usize, cols: usize) -> Result<()> {
    if rows == cols {
        Ok(())
    } else {
        Err(Error::dims(
            op,
            format!("the matrix must be square, it is {rows}x{cols}"),
        ))
    }
}

fn len_is(op: &'static str, what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::dims(
            op,
            format!("{what} has {got} elements, expected {want}"),
        ))
    }
}

/// General matrix–vector product `y ← α·op(A)·x + β·y` (BLAS `gemv`).
/// With `β = 0`, `y` is not read.
///
/// # Errors
/// [`Error::DimensionMismatch`] unless `x` has `cols(op(A))` and `y` `rows(op(A))` elements;
/// [`Error::DeviceMismatch`]; [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas2::{gemv, Trans}, Device, DeviceMatrix, DeviceVec};
/// use num_complex::Complex64 as C;
/// let d = Device::cpu();
/// let a = DeviceMatrix::from_array(&d, &ndarray::array![[C::new(0.0, 1.0)]])?;
/// let x = DeviceVec::from_slice(&d, &[C::new(1.0, 0.0)])?;
/// let mut y = DeviceVec::zeros(&d, 1)?;
/// gemv(Trans::C, C::new(1.0, 0.0), &a, &x, C::new(0.0, 0.0), &mut y)?;
/// assert_eq!(y.to_vec()?, vec![C::new(0.0, -1.0)]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn gemv<'a, 'x, 'y, T: Scalar>(
    trans: Trans,
    alpha: T,
    a: impl Into<MatRef<'a, T>>,
    x: impl Into<VecRef<'x, T>>,
    beta: T,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    const OP: &str = "gemv";
    let (a, x, y) = (a.into(), x.into(), y.into());
    let (m, n) = if trans == Trans::N {
        (a.rows, a.cols)
    } else {
        (a.cols, a.rows)
    };
    len_is(OP, "x", x.len, n)?;
    len_is(OP, "y", y.len, m)?;
    same_device(OP, a.device(), &[x.device(), y.device()])?;
    let dev = a.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::gemv(trans, alpha, a, x, beta, y);
            Ok(())
        }
        Kind::Cuda(b) => cuda::gemv(b, trans, alpha, a, x, beta, y),
    }
}

fn ger_impl<T: Scalar>(
    op: &'static str,
    conj: bool,
    alpha: T,
    x: VecRef<'_, T>,
    y: VecRef<'_, T>,
    a: MatMut<'_, T>,
) -> Result<()> {
    len_is(op, "x", x.len, a.rows)?;
    len_is(op, "y", y.len, a.cols)?;
    same_device(op, a.device(), &[x.device(), y.device()])?;
    let dev = a.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::ger(conj, alpha, x, y, a);
            Ok(())
        }
        Kind::Cuda(b) => cuda::ger(b, conj, alpha, x, y, a),
    }
}

/// Rank-1 update `A ← α·x·yᵀ + A` (BLAS `sger`/`dger`, `cgeru`/`zgeru`).
///
/// # Errors
/// [`Error::DimensionMismatch`] unless `x` has `rows(A)` and `y` `cols(A)` elements;
/// [`Error::DeviceMismatch`]; [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas2::ger, Device, DeviceMatrix, DeviceVec};
/// let d = Device::cpu();
/// let mut a = DeviceMatrix::<f64>::zeros(&d, 2, 2)?;
/// ger(2.0, &DeviceVec::from_slice(&d, &[1.0, 2.0])?, &DeviceVec::from_slice(&d, &[3.0, 4.0])?, &mut a)?;
/// assert_eq!(a.to_array()?, ndarray::array![[6.0, 8.0], [12.0, 16.0]]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn ger<'x, 'y, 'a, T: Scalar>(
    alpha: T,
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
    a: impl Into<MatMut<'a, T>>,
) -> Result<()> {
    ger_impl("ger", false, alpha, x.into(), y.into(), a.into())
}

/// Rank-1 update `A ← α·x·yᵀ + A`, unconjugated (BLAS `geru`; the same as [`ger`]).
///
/// # Errors
/// As [`ger`].
///
/// ```
/// use gpu_blas::{blas2::geru, Device, DeviceMatrix, DeviceVec};
/// use num_complex::Complex32 as C;
/// let d = Device::cpu();
/// let mut a = DeviceMatrix::<C>::zeros(&d, 1, 1)?;
/// let i = DeviceVec::from_slice(&d, &[C::new(0.0, 1.0)])?;
/// geru(C::new(1.0, 0.0), &i, &i, &mut a)?;
/// assert_eq!(a.to_array()?[[0, 0]], C::new(-1.0, 0.0));
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn geru<'x, 'y, 'a, T: Scalar>(
    alpha: T,
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
    a: impl Into<MatMut<'a, T>>,
) -> Result<()> {
    ger_impl("geru", false, alpha, x.into(), y.into(), a.into())
}

/// Rank-1 update `A ← α·x·yᴴ + A`, conjugating `y` (BLAS `gerc`; the same as [`ger`] for real types).
///
/// # Errors
/// As [`ger`].
///
/// ```
/// use gpu_blas::{blas2::gerc, Device, DeviceMatrix, DeviceVec};
/// use num_complex::Complex32 as C;
/// let d = Device::cpu();
/// let mut a = DeviceMatrix::<C>::zeros(&d, 1, 1)?;
/// let i = DeviceVec::from_slice(&d, &[C::new(0.0, 1.0)])?;
/// gerc(C::new(1.0, 0.0), &i, &i, &mut a)?;
/// assert_eq!(a.to_array()?[[0, 0]], C::new(1.0, 0.0));
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn gerc<'x, 'y, 'a, T: Scalar>(
    alpha: T,
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
    a: impl Into<MatMut<'a, T>>,
) -> Result<()> {
    ger_impl("gerc", true, alpha, x.into(), y.into(), a.into())
}

fn symv_impl<T: Scalar>(
    op: &'static str,
    herm: bool,
    uplo: Uplo,
    alpha: T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: T,
    y: VecMut<'_, T>,
) -> Result<()> {
    square(op, a.rows, a.cols)?;
    len_is(op, "x", x.len, a.rows)?;
    len_is(op, "y", y.len, a.rows)?;
    same_device(op, a.device(), &[x.device(), y.device()])?;
    let dev = a.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::symv(herm, uplo, alpha, a, x, beta, y);
            Ok(())
        }
        Kind::Cuda(b) => cuda::symv(b, herm, uplo, alpha, a, x, beta, y),
    }
}

/// Symmetric matrix–vector product `y ← α·A·x + β·y` with `A = Aᵀ`, reading only the `uplo`
/// triangle (BLAS `symv`). With `β = 0`, `y` is not read.
///
/// On the GPU, with 16-byte aligned columns and a contiguous aligned `x`, each element of the
/// triangle is read once (a tile serves both `A_IJ·x_J` and `A_IJᵀ·x_I`; the partial sums go to
/// a workspace the device keeps between calls, about `n²/85` elements for `f64`, and are added
/// in a fixed order, so results do not vary between runs); otherwise, or when that workspace
/// cannot be allocated, the triangle is read twice with no workspace.
///
/// # Errors
/// [`Error::DimensionMismatch`] for a non-square `A` or wrong vector lengths;
/// [`Error::DeviceMismatch`]; [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas2::{symv, Uplo}, Device, DeviceMatrix, DeviceVec};
/// let d = Device::cpu();
/// // Only the lower triangle is read: the 99 is ignored.
/// let a = DeviceMatrix::from_array(&d, &ndarray::array![[2.0f64, 99.0], [1.0, 3.0]])?;
/// let x = DeviceVec::from_slice(&d, &[1.0, 1.0])?;
/// let mut y = DeviceVec::zeros(&d, 2)?;
/// symv(Uplo::Lower, 1.0, &a, &x, 0.0, &mut y)?;
/// assert_eq!(y.to_vec()?, vec![3.0, 4.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn symv<'a, 'x, 'y, T: Scalar>(
    uplo: Uplo,
    alpha: T,
    a: impl Into<MatRef<'a, T>>,
    x: impl Into<VecRef<'x, T>>,
    beta: T,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    symv_impl(
        "symv",
        false,
        uplo,
        alpha,
        a.into(),
        x.into(),
        beta,
        y.into(),
    )
}

/// Hermitian matrix–vector product `y ← α·A·x + β·y` with `A = Aᴴ`, reading only the `uplo`
/// triangle and only the real part of the diagonal (BLAS `hemv`; [`symv`] for real types).
///
/// # Errors
/// As [`symv`].
///
/// ```
/// use gpu_blas::{blas2::{hemv, Uplo}, Device, DeviceMatrix, DeviceVec};
/// use num_complex::Complex64 as C;
/// let d = Device::cpu();
/// // A = [[1, -i], [i, 1]] from its upper triangle.
/// let a = DeviceMatrix::from_array(&d, &ndarray::array![[C::new(1.0, 0.0), C::new(0.0, -1.0)], [C::new(7.0, 7.0), C::new(1.0, 0.0)]])?;
/// let x = DeviceVec::from_slice(&d, &[C::new(1.0, 0.0), C::new(0.0, 0.0)])?;
/// let mut y = DeviceVec::zeros(&d, 2)?;
/// hemv(Uplo::Upper, C::new(1.0, 0.0), &a, &x, C::new(0.0, 0.0), &mut y)?;
/// assert_eq!(y.to_vec()?, vec![C::new(1.0, 0.0), C::new(0.0, 1.0)]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn hemv<'a, 'x, 'y, T: Scalar>(
    uplo: Uplo,
    alpha: T,
    a: impl Into<MatRef<'a, T>>,
    x: impl Into<VecRef<'x, T>>,
    beta: T,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    symv_impl(
        "hemv",
        true,
        uplo,
        alpha,
        a.into(),
        x.into(),
        beta,
        y.into(),
    )
}

fn syr_impl<T: Scalar>(
    op: &'static str,
    herm: bool,
    uplo: Uplo,
    alpha: T,
    x: VecRef<'_, T>,
    a: MatMut<'_, T>,
) -> Result<()> {
    square(op, a.rows, a.cols)?;
    len_is(op, "x", x.len, a.rows)?;
    same_device(op, a.device(), &[x.device()])?;
    let dev = a.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::syr(herm, uplo, alpha, x, a);
            Ok(())
        }
        Kind::Cuda(b) => cuda::syr(b, herm, uplo, alpha, x, a),
    }
}

/// Symmetric rank-1 update `A ← α·x·xᵀ + A` of the `uplo` triangle only (BLAS `syr`).
///
/// # Errors
/// [`Error::DimensionMismatch`] for a non-square `A` or a wrong length; [`Error::DeviceMismatch`];
/// [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas2::{syr, Uplo}, Device, DeviceMatrix, DeviceVec};
/// let d = Device::cpu();
/// let mut a = DeviceMatrix::<f32>::zeros(&d, 2, 2)?;
/// syr(Uplo::Upper, 1.0, &DeviceVec::from_slice(&d, &[1.0, 2.0])?, &mut a)?;
/// assert_eq!(a.to_array()?, ndarray::array![[1.0, 2.0], [0.0, 4.0]]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn syr<'x, 'a, T: Scalar>(
    uplo: Uplo,
    alpha: T,
    x: impl Into<VecRef<'x, T>>,
    a: impl Into<MatMut<'a, T>>,
) -> Result<()> {
    syr_impl("syr", false, uplo, alpha, x.into(), a.into())
}

/// Hermitian rank-1 update `A ← α·x·xᴴ + A` with real `α`, of the `uplo` triangle only; the
/// diagonal's imaginary parts are set to zero, as in BLAS `her` ([`syr`] for real types).
///
/// # Errors
/// As [`syr`].
///
/// ```
/// use gpu_blas::{blas2::{her, Uplo}, Device, DeviceMatrix, DeviceVec};
/// use num_complex::Complex64 as C;
/// let d = Device::cpu();
/// let mut a = DeviceMatrix::<C>::zeros(&d, 2, 2)?;
/// her(Uplo::Lower, 1.0, &DeviceVec::from_slice(&d, &[C::new(0.0, 1.0), C::new(1.0, 0.0)])?, &mut a)?;
/// assert_eq!(a.to_array()?[[1, 0]], C::new(0.0, -1.0)); // x₁·conj(x₀)
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn her<'x, 'a, T: Scalar>(
    uplo: Uplo,
    alpha: T::Real,
    x: impl Into<VecRef<'x, T>>,
    a: impl Into<MatMut<'a, T>>,
) -> Result<()> {
    syr_impl("her", true, uplo, T::from_real(alpha), x.into(), a.into())
}

/// Triangular solve `x ← op(A)⁻¹·x` with `A` upper or lower triangular, unit or non-unit
/// diagonal (BLAS `trsv`). As in BLAS there is no singularity test: a zero on the diagonal gives
/// infinities or NaNs.
///
/// # Errors
/// [`Error::DimensionMismatch`] for a non-square `A` or a wrong length; [`Error::DeviceMismatch`];
/// [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas2::{trsv, Diag, Trans, Uplo}, Device, DeviceMatrix, DeviceVec};
/// let d = Device::cpu();
/// let a = DeviceMatrix::from_array(&d, &ndarray::array![[2.0f64, 0.0], [1.0, 4.0]])?;
/// let mut x = DeviceVec::from_slice(&d, &[2.0, 9.0])?;
/// trsv(Uplo::Lower, Trans::N, Diag::NonUnit, &a, &mut x)?;
/// assert_eq!(x.to_vec()?, vec![1.0, 2.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn trsv<'a, 'x, T: Scalar>(
    uplo: Uplo,
    trans: Trans,
    diag: Diag,
    a: impl Into<MatRef<'a, T>>,
    x: impl Into<VecMut<'x, T>>,
) -> Result<()> {
    const OP: &str = "trsv";
    let (a, x) = (a.into(), x.into());
    square(OP, a.rows, a.cols)?;
    len_is(OP, "x", x.len, a.rows)?;
    same_device(OP, a.device(), &[x.device()])?;
    let dev = a.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::trsv(uplo, trans, diag, a, x);
            Ok(())
        }
        Kind::Cuda(b) => cuda::trsv(b, uplo, trans, diag, a, x),
    }
}
