//! BLAS level 1 on both backends, for `f32`, `f64`, `Complex<f32>` and `Complex<f64>`.
//!
//! Vectors are [`VecRef`]/[`VecMut`] views, so a contiguous [`DeviceVec`](crate::DeviceVec), a
//! strided slice of one, or a row or column of a [`DeviceMatrix`](crate::DeviceMatrix) are all
//! accepted. Increments follow BLAS: `dot`, `dotc`, `dot_compensated`, `axpy`, `copy` and `swap`
//! accept negative increments (the vector is walked backwards); `nrm2`, `asum`, `iamax` and `scal`
//! require positive ones. A zero increment can't be built. Operands must be on one device.
//!
//! Functions returning a value (`dot`, `nrm2`, …) wait for the device and read the result. The
//! `*_into` variants leave the result in a [`DeviceScalar`] without synchronising, and
//! [`axpy_dev`]/[`scal_dev`] read `alpha` from one, so an iterative solver never waits on the host.
//!
//! ```
//! use gpu_blas::{blas1, Device, DeviceVec};
//! let dev = Device::auto();
//! let x = DeviceVec::from_slice(&dev, &[3.0f64, 4.0])?;
//! let mut y = DeviceVec::from_slice(&dev, &[1.0f64, 1.0])?;
//! assert_eq!(blas1::nrm2(&x)?, 5.0);
//! blas1::axpy(2.0, &x, &mut y)?; // y = 2x + y
//! assert_eq!(y.to_vec()?, vec![7.0, 9.0]);
//! assert_eq!(blas1::iamax(&y)?, Some(1));
//! # Ok::<(), gpu_blas::Error>(())
//! ```

mod cpu;
mod cuda;

use crate::device::Kind;
use crate::error::{Error, Result};
use crate::scalar::{Element, Scalar};
use crate::vector::DeviceScalar;
use crate::view::{VecMut, VecRef};

/// Which reduction to run; shared by both backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduction {
    Dot,
    Dotc,
    Dot2,
    Dot2c,
    Nrm2,
    Asum,
    Iamax,
}

fn same_len(op: &'static str, a: usize, b: usize) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(Error::dims(op, format!("x has {a} elements, y has {b}")))
    }
}

fn positive_inc(op: &'static str, inc: isize) -> Result<()> {
    if inc > 0 {
        Ok(())
    } else {
        Err(Error::InvalidIncrement {
            op,
            arg: "incx",
            inc,
            reason: "BLAS defines this operation for positive increments only",
        })
    }
}

/// Where a CUDA reduction writes its result: a caller's device scalar, or `None` for a
/// host-returned value.
type CudaOut<'a, O> = Option<&'a mut DeviceScalar<O>>;

/// Runs a two-vector reduction whose result has type `T`.
fn reduce2<T: Scalar>(
    op: &'static str,
    kind: Reduction,
    x: VecRef<'_, T>,
    y: VecRef<'_, T>,
    out: CudaOut<'_, T>,
) -> Result<T> {
    same_len(op, x.len, y.len)?;
    x.device().ensure_same(y.device(), op)?;
    if let Some(o) = &out {
        x.device().ensure_same(o.device(), op)?;
    }
    let dev = x.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            let v = cpu::reduce2(kind, x, y);
            if let Some(o) = out {
                o.set(v)?;
            }
            Ok(v)
        }
        Kind::Cuda(b) => cuda::reduce::<T, T>(b, op, kind, x, Some(y), out),
    }
}

/// Runs a one-vector reduction with result type `O` (`T::Real` or `i64`).
fn reduce1<T: Scalar, O: Element>(
    op: &'static str,
    kind: Reduction,
    x: VecRef<'_, T>,
    out: CudaOut<'_, O>,
    cpu_fn: impl FnOnce(VecRef<'_, T>) -> O,
) -> Result<O> {
    positive_inc(op, x.inc)?;
    if let Some(o) = &out {
        x.device().ensure_same(o.device(), op)?;
    }
    let dev = x.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            let v = cpu_fn(x);
            if let Some(o) = out {
                o.set(v)?;
            }
            Ok(v)
        }
        Kind::Cuda(b) => cuda::reduce::<T, O>(b, op, kind, x, None, out),
    }
}

/// Unconjugated dot product `Σᵢ xᵢ·yᵢ` (BLAS `sdot`/`ddot`/`cdotu`/`zdotu`).
///
/// # Errors
/// [`Error::DimensionMismatch`] if the lengths differ, [`Error::DeviceMismatch`] if the
/// operands are on different devices, [`Error::Cuda`] on a device failure.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1.0f32, 2.0, 3.0])?;
/// let y = DeviceVec::from_slice(&d, &[4.0f32, 5.0, 6.0])?;
/// assert_eq!(blas1::dot(&x, &y)?, 32.0);
/// // y walked backwards: 1·6 + 2·5 + 3·4
/// assert_eq!(blas1::dot(&x, y.strided(0, 3, -1)?)?, 28.0);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn dot<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
) -> Result<T> {
    reduce2("dot", Reduction::Dot, x.into(), y.into(), None)
}

/// Conjugated dot product `Σᵢ conj(xᵢ)·yᵢ` (BLAS `cdotc`/`zdotc`; equal to [`dot`] for real types).
///
/// # Errors
/// As [`dot`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// use num_complex::Complex64 as C;
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[C::new(0.0, 1.0)])?;
/// assert_eq!(blas1::dotc(&x, &x)?, C::new(1.0, 0.0));
/// assert_eq!(blas1::dot(&x, &x)?, C::new(-1.0, 0.0));
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn dotc<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
) -> Result<T> {
    reduce2("dotc", Reduction::Dotc, x.into(), y.into(), None)
}

/// Compensated dot product `Σᵢ xᵢ·yᵢ` (Ogita–Rump–Oishi Dot2: error-free products and sums,
/// so the result is as accurate as if computed in twice the working precision and then rounded).
///
/// Summing 10⁶ copies of `0.001f32` gives `1000.0` to within a few ulps, where a sequential
/// `f32` loop gives about 991.
///
/// # Errors
/// As [`dot`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_vec(&d, vec![0.001f32; 1_000_000])?;
/// let ones = DeviceVec::from_vec(&d, vec![1.0f32; 1_000_000])?;
/// let s = blas1::dot_compensated(&x, &ones)?;
/// assert!((s - 1000.0).abs() <= 4.0 * f32::EPSILON * 1000.0);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn dot_compensated<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
) -> Result<T> {
    reduce2("dot_compensated", Reduction::Dot2, x.into(), y.into(), None)
}

/// Compensated conjugated dot product `Σᵢ conj(xᵢ)·yᵢ` (see [`dot_compensated`]).
///
/// # Errors
/// As [`dot`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1e16f64, 1.0, -1e16])?;
/// let ones = DeviceVec::from_slice(&d, &[1.0f64; 3])?;
/// assert_eq!(blas1::dotc_compensated(&x, &ones)?, 1.0); // plain summation gives 0
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn dotc_compensated<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
) -> Result<T> {
    reduce2(
        "dotc_compensated",
        Reduction::Dot2c,
        x.into(),
        y.into(),
        None,
    )
}

/// Euclidean norm `sqrt(Σᵢ |xᵢ|²)`, free of overflow and underflow for any representable input
/// (Blue's scaled sums in double precision; single precision accumulates in `f64`).
///
/// # Errors
/// [`Error::InvalidIncrement`] for a negative increment; [`Error::Cuda`] on a device failure.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[3e300f64, 4e300])?;
/// assert!((blas1::nrm2(&x)? / 5e300 - 1.0).abs() < 1e-15); // no overflow
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn nrm2<'x, T: Scalar>(x: impl Into<VecRef<'x, T>>) -> Result<T::Real> {
    reduce1("nrm2", Reduction::Nrm2, x.into(), None, cpu::nrm2)
}

/// Sum of magnitudes `Σᵢ (|Re xᵢ| + |Im xᵢ|)` (BLAS `asum`).
///
/// # Errors
/// [`Error::InvalidIncrement`] for a negative increment; [`Error::Cuda`] on a device failure.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// use num_complex::Complex32 as C;
/// let x = DeviceVec::from_slice(&Device::cpu(), &[C::new(1.0, -2.0), C::new(-3.0, 0.5)])?;
/// assert_eq!(blas1::asum(&x)?, 6.5);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn asum<'x, T: Scalar>(x: impl Into<VecRef<'x, T>>) -> Result<T::Real> {
    reduce1("asum", Reduction::Asum, x.into(), None, cpu::asum)
}

/// Zero-based index of the first element of largest `|Re xᵢ| + |Im xᵢ|` (BLAS `i?amax`), or
/// `None` for an empty vector. A NaN outranks every number: the first NaN's index is returned.
///
/// # Errors
/// [`Error::InvalidIncrement`] for a negative increment; [`Error::Cuda`] on a device failure.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1.0f64, -7.0, 7.0, 2.0])?;
/// assert_eq!(blas1::iamax(&x)?, Some(1)); // first of the ties
/// assert_eq!(blas1::iamax(&DeviceVec::<f64>::zeros(&d, 0)?)?, None);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn iamax<'x, T: Scalar>(x: impl Into<VecRef<'x, T>>) -> Result<Option<usize>> {
    let i = reduce1("iamax", Reduction::Iamax, x.into(), None, cpu::iamax)?;
    Ok(usize::try_from(i).ok())
}

/// [`dot`] with the result left in device memory (no synchronisation on the GPU).
///
/// # Errors
/// As [`dot`], plus [`Error::DeviceMismatch`] if `out` is on another device.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1.0f64, 2.0])?;
/// let mut r = DeviceScalar::new(&d, 0.0)?;
/// blas1::dot_into(&x, &x, &mut r)?;
/// assert_eq!(r.get()?, 5.0);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn dot_into<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
    out: &mut DeviceScalar<T>,
) -> Result<()> {
    reduce2("dot_into", Reduction::Dot, x.into(), y.into(), Some(out)).map(drop)
}

/// [`dotc`] with the result left in device memory.
///
/// # Errors
/// As [`dot_into`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[2.0f32])?;
/// let mut r = DeviceScalar::new(&d, 0.0)?;
/// blas1::dotc_into(&x, &x, &mut r)?;
/// assert_eq!(r.get()?, 4.0);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn dotc_into<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
    out: &mut DeviceScalar<T>,
) -> Result<()> {
    reduce2("dotc_into", Reduction::Dotc, x.into(), y.into(), Some(out)).map(drop)
}

/// [`dot_compensated`] with the result left in device memory.
///
/// # Errors
/// As [`dot_into`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1e16f64, 1.0, -1e16])?;
/// let ones = DeviceVec::from_slice(&d, &[1.0f64; 3])?;
/// let mut r = DeviceScalar::new(&d, 0.0)?;
/// blas1::dot_compensated_into(&x, &ones, &mut r)?;
/// assert_eq!(r.get()?, 1.0);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn dot_compensated_into<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecRef<'y, T>>,
    out: &mut DeviceScalar<T>,
) -> Result<()> {
    reduce2(
        "dot_compensated_into",
        Reduction::Dot2,
        x.into(),
        y.into(),
        Some(out),
    )
    .map(drop)
}

/// [`nrm2`] with the result left in device memory.
///
/// # Errors
/// As [`nrm2`], plus [`Error::DeviceMismatch`] if `out` is on another device.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[6.0f64, 8.0])?;
/// let mut r = DeviceScalar::new(&d, 0.0)?;
/// blas1::nrm2_into(&x, &mut r)?;
/// assert_eq!(r.get()?, 10.0);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn nrm2_into<'x, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    out: &mut DeviceScalar<T::Real>,
) -> Result<()> {
    reduce1("nrm2_into", Reduction::Nrm2, x.into(), Some(out), cpu::nrm2).map(drop)
}

/// [`asum`] with the result left in device memory.
///
/// # Errors
/// As [`nrm2_into`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[-1.0f32, 2.0])?;
/// let mut r = DeviceScalar::new(&d, 0.0)?;
/// blas1::asum_into(&x, &mut r)?;
/// assert_eq!(r.get()?, 3.0);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn asum_into<'x, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    out: &mut DeviceScalar<T::Real>,
) -> Result<()> {
    reduce1("asum_into", Reduction::Asum, x.into(), Some(out), cpu::asum).map(drop)
}

/// [`iamax`] with the zero-based index left in device memory (`-1` for an empty vector).
///
/// # Errors
/// As [`nrm2_into`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1.0f64, -3.0, 2.0])?;
/// let mut r = DeviceScalar::new(&d, 0i64)?;
/// blas1::iamax_into(&x, &mut r)?;
/// assert_eq!(r.get()?, 1);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn iamax_into<'x, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    out: &mut DeviceScalar<i64>,
) -> Result<()> {
    reduce1(
        "iamax_into",
        Reduction::Iamax,
        x.into(),
        Some(out),
        cpu::iamax,
    )
    .map(drop)
}

/// Where an element-wise kernel takes its `alpha` from.
#[derive(Clone, Copy)]
pub(crate) enum Alpha<'a, T: Element> {
    Host(T),
    Device(&'a DeviceScalar<T>),
}

fn axpy_impl<T: Scalar>(
    op: &'static str,
    alpha: Alpha<'_, T>,
    x: VecRef<'_, T>,
    y: VecMut<'_, T>,
) -> Result<()> {
    same_len(op, x.len, y.len)?;
    x.device().ensure_same(y.device(), op)?;
    if let Alpha::Device(a) = alpha {
        x.device().ensure_same(a.device(), op)?;
    }
    let dev = x.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            let a = match alpha {
                Alpha::Host(a) => a,
                Alpha::Device(d) => d.get()?,
            };
            cpu::axpy(a, x, y);
            Ok(())
        }
        Kind::Cuda(b) => cuda::axpy(b, alpha, x, y),
    }
}

/// `y ← α·x + y`.
///
/// # Errors
/// [`Error::DimensionMismatch`], [`Error::DeviceMismatch`], [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1.0f64, 2.0])?;
/// let mut y = DeviceVec::from_slice(&d, &[10.0f64, 20.0])?;
/// blas1::axpy(-1.0, &x, &mut y)?;
/// assert_eq!(y.to_vec()?, vec![9.0, 18.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn axpy<'x, 'y, T: Scalar>(
    alpha: T,
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    axpy_impl("axpy", Alpha::Host(alpha), x.into(), y.into())
}

/// `y ← α·x + y` with `α` read from device memory (no host round trip on the GPU).
///
/// # Errors
/// As [`axpy`], plus [`Error::DeviceMismatch`] if `alpha` is on another device.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1.0f64, 2.0])?;
/// let mut y = DeviceVec::from_slice(&d, &[0.0f64, 0.0])?;
/// let a = DeviceScalar::new(&d, 3.0)?;
/// blas1::axpy_dev(&a, &x, &mut y)?;
/// assert_eq!(y.to_vec()?, vec![3.0, 6.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn axpy_dev<'x, 'y, T: Scalar>(
    alpha: &DeviceScalar<T>,
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    axpy_impl("axpy_dev", Alpha::Device(alpha), x.into(), y.into())
}

fn scal_impl<T: Scalar>(op: &'static str, alpha: Alpha<'_, T>, x: VecMut<'_, T>) -> Result<()> {
    positive_inc(op, x.inc)?;
    if let Alpha::Device(a) = alpha {
        x.device().ensure_same(a.device(), op)?;
    }
    let dev = x.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            let a = match alpha {
                Alpha::Host(a) => a,
                Alpha::Device(d) => d.get()?,
            };
            cpu::scal(a, x);
            Ok(())
        }
        Kind::Cuda(b) => cuda::scal(b, alpha, x),
    }
}

/// `x ← α·x` (every element multiplied, so `0·NaN` stays NaN as in reference BLAS).
///
/// # Errors
/// [`Error::InvalidIncrement`] for a negative increment, [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let mut x = DeviceVec::from_slice(&Device::cpu(), &[1.0f32, -2.0])?;
/// blas1::scal(0.5, &mut x)?;
/// assert_eq!(x.to_vec()?, vec![0.5, -1.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn scal<'x, T: Scalar>(alpha: T, x: impl Into<VecMut<'x, T>>) -> Result<()> {
    scal_impl("scal", Alpha::Host(alpha), x.into())
}

/// `x ← α·x` with `α` read from device memory.
///
/// # Errors
/// As [`scal`], plus [`Error::DeviceMismatch`] if `alpha` is on another device.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let d = Device::cpu();
/// let mut x = DeviceVec::from_slice(&d, &[1.0f64, 2.0])?;
/// blas1::scal_dev(&DeviceScalar::new(&d, -1.0)?, &mut x)?;
/// assert_eq!(x.to_vec()?, vec![-1.0, -2.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn scal_dev<'x, T: Scalar>(alpha: &DeviceScalar<T>, x: impl Into<VecMut<'x, T>>) -> Result<()> {
    scal_impl("scal_dev", Alpha::Device(alpha), x.into())
}

/// `y ← x`.
///
/// # Errors
/// [`Error::DimensionMismatch`], [`Error::DeviceMismatch`], [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let x = DeviceVec::from_slice(&d, &[1.0f64, 2.0, 3.0])?;
/// let mut y = DeviceVec::zeros(&d, 3)?;
/// blas1::copy(x.strided(0, 3, -1)?, &mut y)?; // reversed copy
/// assert_eq!(y.to_vec()?, vec![3.0, 2.0, 1.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn copy<'x, 'y, T: Scalar>(
    x: impl Into<VecRef<'x, T>>,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    let (x, y) = (x.into(), y.into());
    same_len("copy", x.len, y.len)?;
    x.device().ensure_same(y.device(), "copy")?;
    let dev = x.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::copy(x, y);
            Ok(())
        }
        Kind::Cuda(b) => cuda::copy(b, x, y),
    }
}

/// Exchanges `x` and `y` element by element.
///
/// # Errors
/// [`Error::DimensionMismatch`], [`Error::DeviceMismatch`], [`Error::Cuda`].
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let d = Device::cpu();
/// let mut x = DeviceVec::from_slice(&d, &[1.0f64, 2.0])?;
/// let mut y = DeviceVec::from_slice(&d, &[3.0f64, 4.0])?;
/// blas1::swap(&mut x, &mut y)?;
/// assert_eq!((x.to_vec()?, y.to_vec()?), (vec![3.0, 4.0], vec![1.0, 2.0]));
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn swap<'x, 'y, T: Scalar>(
    x: impl Into<VecMut<'x, T>>,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    let (x, y) = (x.into(), y.into());
    same_len("swap", x.len, y.len)?;
    x.device().ensure_same(y.device(), "swap")?;
    let dev = x.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::swap(x, y);
            Ok(())
        }
        Kind::Cuda(b) => cuda::swap(b, x, y),
    }
}
