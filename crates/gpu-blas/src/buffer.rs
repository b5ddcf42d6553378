//! Raw storage shared by vectors, matrices and scalars: a host `Vec` or device memory.

use crate::device::{Device, Kind};
use crate::error::{Error, Result};
use crate::scalar::Element;
use cudarc::driver::CudaSlice;
use std::mem::size_of;

/// Elements on one device. CUDA memory is held as bytes; `T` is the element type.
pub(crate) struct Buffer<T: Element> {
    device: Device,
    len: usize,
    data: Storage<T>,
}

pub(crate) enum Storage<T> {
    Host(Vec<T>),
    Cuda(CudaSlice<u8>),
}

/// Views plain-old-data elements as bytes.
pub(crate) fn as_bytes<T: Element>(s: &[T]) -> &[u8] {
    // SAFETY: `Element` is sealed to f32, f64, Complex<f32>, Complex<f64>, i32, i64, u32: all
    // plain old data with no padding, so every byte is initialised and any alignment of u8 holds.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// Views plain-old-data elements as mutable bytes.
pub(crate) fn as_bytes_mut<T: Element>(s: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; in addition every bit pattern is a valid value of these types,
    // so writing arbitrary bytes cannot create an invalid `T`.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

fn bytes_of<T>(op: &'static str, len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .filter(|b| *b <= isize::MAX as usize)
        .ok_or_else(|| Error::SizeTooLarge {
            op,
            detail: format!("{len} elements of {} bytes", size_of::<T>()),
        })
}

impl<T: Element> Buffer<T> {
    /// `len` elements set to zero.
    pub(crate) fn zeros(device: &Device, len: usize, op: &'static str) -> Result<Self> {
        let bytes = bytes_of::<T>(op, len)?;
        let data = match device.kind() {
            Kind::Cpu => {
                let mut v = Vec::new();
                v.try_reserve_exact(len)
                    .map_err(|_| Error::OutOfMemory { op, bytes })?;
                v.resize(len, T::default());
                Storage::Host(v)
            }
            Kind::Cuda(b) => Storage::Cuda(b.alloc_zeroed(op, bytes)?),
        };
        Ok(Buffer {
            device: device.clone(),
            len,
            data,
        })
    }

    /// `len` elements whose values are unspecified until written (zero on the CPU).
    pub(crate) fn uninit(device: &Device, len: usize, op: &'static str) -> Result<Self> {
        match device.kind() {
            Kind::Cpu => Self::zeros(device, len, op),
            Kind::Cuda(b) => {
                let bytes = bytes_of::<T>(op, len)?;
                Ok(Buffer {
                    device: device.clone(),
                    len,
                    data: Storage::Cuda(b.alloc_bytes(op, bytes)?),
                })
            }
        }
    }

    /// A copy of `src` on `device`.
    pub(crate) fn from_slice(device: &Device, src: &[T], op: &'static str) -> Result<Self> {
        match device.kind() {
            Kind::Cpu => Ok(Buffer {
                device: device.clone(),
                len: src.len(),
                data: Storage::Host(src.to_vec()),
            }),
            Kind::Cuda(_) => {
                let mut b = Self::uninit(device, src.len(), op)?;
                b.write(0, src)?;
                Ok(b)
            }
        }
    }

    /// Takes ownership of a host vector (no copy on the CPU).
    pub(crate) fn from_vec(device: &Device, v: Vec<T>, op: &'static str) -> Result<Self> {
        match device.kind() {
            Kind::Cpu => Ok(Buffer {
                device: device.clone(),
                len: v.len(),
                data: Storage::Host(v),
            }),
            Kind::Cuda(_) => Self::from_slice(device, &v, op),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    pub(crate) fn storage_mut(&mut self) -> &mut Storage<T> {
        &mut self.data
    }

    /// Host elements, when on the CPU.
    pub(crate) fn host(&self) -> Option<&[T]> {
        match &self.data {
            Storage::Host(v) => Some(v),
            Storage::Cuda(_) => None,
        }
    }

    /// Device address of element `index` (CUDA buffers only).
    pub(crate) fn cuda_ptr(&self, index: usize) -> Option<u64> {
        match (&self.data, self.device.cuda_backend()) {
            (Storage::Cuda(s), Some(b)) => Some(b.ptr(s) + (index * size_of::<T>()) as u64),
            _ => None,
        }
    }

    /// Copies `src` into elements `offset..offset + src.len()`.
    pub(crate) fn write(&mut self, offset: usize, src: &[T]) -> Result<()> {
        let end = offset
            .checked_add(src.len())
            .filter(|e| *e <= self.len)
            .ok_or_else(|| {
                Error::bounds(
                    "write",
                    format!("{} elements at {offset} into {}", src.len(), self.len),
                )
            })?;
        match (&mut self.data, self.device.cuda_backend()) {
            (Storage::Host(v), _) => v[offset..end].copy_from_slice(src),
            (Storage::Cuda(s), Some(b)) => b.htod(as_bytes(src), s, offset * size_of::<T>())?,
            (Storage::Cuda(_), None) => unreachable!("CUDA storage always has a CUDA device"),
        }
        Ok(())
    }

    /// Copies elements `offset..offset + dst.len()` to `dst`, waiting for pending work.
    pub(crate) fn read(&self, offset: usize, dst: &mut [T]) -> Result<()> {
        let end = offset
            .checked_add(dst.len())
            .filter(|e| *e <= self.len)
            .ok_or_else(|| {
                Error::bounds(
                    "read",
                    format!("{} elements at {offset} from {}", dst.len(), self.len),
                )
            })?;
        match (&self.data, self.device.cuda_backend()) {
            (Storage::Host(v), _) => dst.copy_from_slice(&v[offset..end]),
            (Storage::Cuda(s), Some(b)) => b.dtoh(s, offset * size_of::<T>(), as_bytes_mut(dst))?,
            (Storage::Cuda(_), None) => unreachable!("CUDA storage always has a CUDA device"),
        }
        Ok(())
    }

    /// All elements as a host vector.
    pub(crate) fn to_vec(&self) -> Result<Vec<T>> {
        match &self.data {
            Storage::Host(v) => Ok(v.clone()),
            Storage::Cuda(_) => {
                let mut out = vec![T::default(); self.len];
                self.read(0, &mut out)?;
                Ok(out)
            }
        }
    }

    /// A copy on the same device.
    pub(crate) fn try_clone(&self) -> Result<Self> {
        match (&self.data, self.device.cuda_backend()) {
            (Storage::Host(v), _) => Ok(Buffer {
                device: self.device.clone(),
                len: self.len,
                data: Storage::Host(v.clone()),
            }),
            (Storage::Cuda(s), Some(b)) => {
                let mut out = Self::uninit(&self.device, self.len, "clone")?;
                if let Storage::Cuda(d) = &mut out.data {
                    b.dtod(s, 0, d, 0, self.len * size_of::<T>())?;
                }
                Ok(out)
            }
            (Storage::Cuda(_), None) => unreachable!("CUDA storage always has a CUDA device"),
        }
    }

    /// A copy on another device (explicit transfer).
    pub(crate) fn to_device(&self, device: &Device) -> Result<Self> {
        if device == &self.device {
            return self.try_clone();
        }
        let host = self.to_vec()?;
        Self::from_vec(device, host, "to_device")
    }
}
