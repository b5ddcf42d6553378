//! Where buffers live and operations run: the CPU or one CUDA GPU.

use crate::cuda::CudaBackend;
use crate::error::{Error, Result};
use std::fmt;
use std::sync::Arc;

/// A compute device: the host CPU or a CUDA GPU.
///
/// Cheap to clone (a reference-counted handle). Two handles to the same GPU compare equal;
/// buffers remember their device and operations refuse operands from two different devices.
///
/// ```
/// use gpu_blas::Device;
/// let cpu = Device::cpu();
/// assert!(cpu.is_cpu());
/// // On a machine without a usable CUDA driver this is an error, never a panic.
/// match Device::cuda(0) {
///     Ok(gpu) => println!("using {gpu}"),
///     Err(e) => println!("no GPU: {e}"),
/// }
/// // `auto` falls back to the CPU.
/// let dev = Device::auto();
/// println!("auto picked {dev}");
/// ```
#[derive(Clone)]
pub struct Device {
    kind: Kind,
}

#[derive(Clone)]
pub(crate) enum Kind {
    Cpu,
    Cuda(Arc<CudaBackend>),
}

impl Device {
    /// The host CPU (multithreaded with rayon where the work is large enough).
    pub fn cpu() -> Self {
        Device { kind: Kind::Cpu }
    }

    /// The CUDA GPU with the given ordinal. Each ordinal maps to one context and one stream for
    /// the whole process, so repeated calls return equal handles.
    ///
    /// # Errors
    /// [`Error::CudaUnavailable`] when the driver library is missing, no device is present, the
    /// ordinal is out of range or the context cannot be created; the message says which.
    pub fn cuda(ordinal: usize) -> Result<Self> {
        CudaBackend::get(ordinal).map(|b| Device {
            kind: Kind::Cuda(b),
        })
    }

    /// CUDA device 0 when a usable driver and GPU exist, otherwise the CPU.
    pub fn auto() -> Self {
        Device::cuda(0).unwrap_or_else(|_| Device::cpu())
    }

    /// Whether this is the CPU.
    pub fn is_cpu(&self) -> bool {
        matches!(self.kind, Kind::Cpu)
    }

    /// Whether this is a CUDA GPU.
    pub fn is_cuda(&self) -> bool {
        matches!(self.kind, Kind::Cuda(_))
    }

    /// A human-readable name such as `cpu` or `cuda:0 (NVIDIA H100 80GB HBM3)`.
    pub fn name(&self) -> String {
        self.to_string()
    }

    /// Waits until all work queued on this device has finished (a no-op on the CPU).
    ///
    /// # Errors
    /// [`Error::Cuda`] if an earlier asynchronous kernel failed.
    pub fn synchronize(&self) -> Result<()> {
        match &self.kind {
            Kind::Cpu => Ok(()),
            Kind::Cuda(b) => b.synchronize(),
        }
    }

    pub(crate) fn kind(&self) -> &Kind {
        &self.kind
    }

    pub(crate) fn cuda_backend(&self) -> Option<&Arc<CudaBackend>> {
        match &self.kind {
            Kind::Cuda(b) => Some(b),
            Kind::Cpu => None,
        }
    }

    /// Fails with [`Error::DeviceMismatch`] unless `self` and `other` are the same device.
    pub(crate) fn ensure_same(&self, other: &Device, op: &'static str) -> Result<()> {
        if self == other {
            Ok(())
        } else {
            Err(Error::DeviceMismatch {
                op,
                left: self.to_string(),
                right: other.to_string(),
            })
        }
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        match (&self.kind, &other.kind) {
            (Kind::Cpu, Kind::Cpu) => true,
            (Kind::Cuda(a), Kind::Cuda(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Device {}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Cpu => write!(f, "cpu"),
            Kind::Cuda(b) => write!(f, "cuda:{} ({})", b.ordinal, b.name),
        }
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({self})")
    }
}
