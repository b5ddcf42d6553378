//! Contiguous device vectors and single device-resident scalars.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::Result;
use crate::scalar::Element;
use crate::view::{VecMut, VecRef};
use ndarray::{Array1, ArrayBase, Data, Ix1};

/// A contiguous vector of `T` on one device.
///
/// ```
/// use gpu_blas::{Device, DeviceVec};
/// use ndarray::array;
/// let dev = Device::auto();
/// let v = DeviceVec::from_array(&dev, &array![1.0f64, 2.0, 3.0])?;
/// assert_eq!(v.len(), 3);
/// assert_eq!(v.to_array()?, array![1.0, 2.0, 3.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct DeviceVec<T: Element> {
    pub(crate) buf: Buffer<T>,
}

impl<T: Element> DeviceVec<T> {
    /// `len` zeros on `device`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) if the allocation fails.
    pub fn zeros(device: &Device, len: usize) -> Result<Self> {
        Ok(DeviceVec {
            buf: Buffer::zeros(device, len, "DeviceVec::zeros")?,
        })
    }

    /// `len` elements on `device` whose values are unspecified until written (zeros on the
    /// CPU): for an output that a kernel overwrites entirely, without the memset of
    /// [`zeros`](Self::zeros). Reading an element before it is written gives some value of `T`
    /// (every bit pattern is one), never undefined behaviour.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) if the allocation fails.
    ///
    /// ```
    /// use gpu_blas::{Device, DeviceVec};
    /// let mut v = DeviceVec::<i32>::uninit(&Device::auto(), 3)?;
    /// v.copy_from_slice(&[7, 8, 9])?;
    /// assert_eq!(v.to_vec()?, vec![7, 8, 9]);
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn uninit(device: &Device, len: usize) -> Result<Self> {
        Ok(DeviceVec {
            buf: Buffer::uninit(device, len, "DeviceVec::uninit")?,
        })
    }

    /// A copy of `data` on `device`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) or [`Error::Cuda`](crate::Error::Cuda).
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        Ok(DeviceVec {
            buf: Buffer::from_slice(device, data, "DeviceVec::from_slice")?,
        })
    }

    /// Moves `data` to `device` (no copy on the CPU).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) or [`Error::Cuda`](crate::Error::Cuda).
    pub fn from_vec(device: &Device, data: Vec<T>) -> Result<Self> {
        Ok(DeviceVec {
            buf: Buffer::from_vec(device, data, "DeviceVec::from_vec")?,
        })
    }

    /// A copy of a 1-D `ndarray` (any stride) on `device`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) or [`Error::Cuda`](crate::Error::Cuda).
    pub fn from_array<S: Data<Elem = T>>(device: &Device, a: &ArrayBase<S, Ix1>) -> Result<Self> {
        Self::from_vec(device, a.iter().copied().collect())
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether the vector is empty.
    pub fn is_empty(&self) -> bool {
        self.buf.len() == 0
    }

    /// The device holding the data.
    pub fn device(&self) -> &Device {
        self.buf.device()
    }

    /// The elements copied to a host `Vec` (waits for pending work on the device).
    ///
    /// # Errors
    /// [`Error::Cuda`](crate::Error::Cuda) if a pending kernel failed.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.buf.to_vec()
    }

    /// The elements `offset .. offset + len` copied to the host (waits for pending work).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`](crate::Error::OutOfBounds) if the range does not lie in the
    /// vector; [`Error::Cuda`](crate::Error::Cuda) if a pending kernel failed.
    ///
    /// ```
    /// use gpu_blas::{Device, DeviceVec};
    /// let v = DeviceVec::from_slice(&Device::cpu(), &[1, 2, 3, 4])?;
    /// assert_eq!(v.read_range(1, 2)?, vec![2, 3]);
    /// assert!(v.read_range(3, 2).is_err());
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn read_range(&self, offset: usize, len: usize) -> Result<Vec<T>> {
        if offset.checked_add(len).is_none_or(|end| end > self.len()) {
            return Err(crate::Error::bounds(
                "read_range",
                format!("{offset}..{offset}+{len} of a vector of {}", self.len()),
            ));
        }
        let mut out = vec![T::default(); len];
        self.buf.read(offset, &mut out)?;
        Ok(out)
    }

    /// The elements as an `ndarray::Array1` on the host.
    ///
    /// # Errors
    /// [`Error::Cuda`](crate::Error::Cuda) if a pending kernel failed.
    pub fn to_array(&self) -> Result<Array1<T>> {
        Ok(Array1::from(self.to_vec()?))
    }

    /// Overwrites the whole vector with `data`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`](crate::Error::OutOfBounds) if `data.len() != self.len()`.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len() {
            return Err(crate::Error::dims(
                "copy_from_slice",
                format!("source has {} elements, vector {}", data.len(), self.len()),
            ));
        }
        self.buf.write(0, data)
    }

    /// A copy on the same device.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) or [`Error::Cuda`](crate::Error::Cuda).
    pub fn try_clone(&self) -> Result<Self> {
        Ok(DeviceVec {
            buf: self.buf.try_clone()?,
        })
    }

    /// An explicit copy on another device.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) or [`Error::Cuda`](crate::Error::Cuda).
    pub fn to_device(&self, device: &Device) -> Result<Self> {
        Ok(DeviceVec {
            buf: self.buf.to_device(device)?,
        })
    }

    /// The whole vector as a view (increment 1).
    pub fn view(&self) -> VecRef<'_, T> {
        VecRef {
            buf: &self.buf,
            offset: 0,
            len: self.len(),
            inc: 1,
        }
    }

    /// The whole vector as a mutable view (increment 1).
    pub fn view_mut(&mut self) -> VecMut<'_, T> {
        let len = self.len();
        VecMut {
            buf: &mut self.buf,
            offset: 0,
            len,
            inc: 1,
        }
    }

    /// `len` elements `inc` apart; `offset` is the lowest-addressed one (BLAS convention, so a
    /// negative `inc` walks from `offset + (len − 1)·|inc|` down to `offset`).
    ///
    /// # Errors
    /// [`Error::InvalidIncrement`](crate::Error::InvalidIncrement) for `inc == 0`,
    /// [`Error::OutOfBounds`](crate::Error::OutOfBounds) if the view leaves the vector.
    pub fn strided(&self, offset: usize, len: usize, inc: isize) -> Result<VecRef<'_, T>> {
        VecRef::new(&self.buf, offset, len, inc, "strided")
    }

    /// Mutable version of [`strided`](Self::strided).
    ///
    /// # Errors
    /// As [`strided`](Self::strided).
    pub fn strided_mut(&mut self, offset: usize, len: usize, inc: isize) -> Result<VecMut<'_, T>> {
        VecMut::new(&mut self.buf, offset, len, inc, "strided_mut")
    }
}

impl<T: Element> std::fmt::Debug for DeviceVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceVec<{}>(len {}, {})",
            std::any::type_name::<T>(),
            self.len(),
            self.device()
        )
    }
}

impl<'a, T: Element> From<&'a DeviceVec<T>> for VecRef<'a, T> {
    fn from(v: &'a DeviceVec<T>) -> Self {
        v.view()
    }
}

impl<'a, T: Element> From<&'a mut DeviceVec<T>> for VecRef<'a, T> {
    fn from(v: &'a mut DeviceVec<T>) -> Self {
        v.view()
    }
}

impl<'a, T: Element> From<&'a mut DeviceVec<T>> for VecMut<'a, T> {
    fn from(v: &'a mut DeviceVec<T>) -> Self {
        v.view_mut()
    }
}

impl<'a, T: Element> From<&'a VecMut<'a, T>> for VecRef<'a, T> {
    fn from(v: &'a VecMut<'a, T>) -> Self {
        v.as_ref()
    }
}

/// One value of `T` kept in device memory, so a result can feed the next kernel without a host
/// round trip (iterative solvers keep their scalars this way).
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec};
/// let dev = Device::auto();
/// let x = DeviceVec::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let mut d = DeviceScalar::new(&dev, 0.0)?;
/// blas1::dot_into(&x, &x, &mut d)?; // no synchronisation here
/// assert_eq!(d.get()?, 14.0);       // this waits and reads
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct DeviceScalar<T: Element> {
    pub(crate) buf: Buffer<T>,
}

impl<T: Element> DeviceScalar<T> {
    /// A device value initialised to `value`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) or [`Error::Cuda`](crate::Error::Cuda).
    pub fn new(device: &Device, value: T) -> Result<Self> {
        Ok(DeviceScalar {
            buf: Buffer::from_slice(device, &[value], "DeviceScalar::new")?,
        })
    }

    /// Reads the value (waits for pending work on the device).
    ///
    /// # Errors
    /// [`Error::Cuda`](crate::Error::Cuda) if a pending kernel failed.
    pub fn get(&self) -> Result<T> {
        let mut v = [T::default()];
        self.buf.read(0, &mut v)?;
        Ok(v[0])
    }

    /// Overwrites the value.
    ///
    /// # Errors
    /// [`Error::Cuda`](crate::Error::Cuda) if the copy fails.
    pub fn set(&mut self, value: T) -> Result<()> {
        self.buf.write(0, &[value])
    }

    /// The device holding the value.
    pub fn device(&self) -> &Device {
        self.buf.device()
    }
}
