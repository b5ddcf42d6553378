//! Raw access for interoperating with other CUDA code (vendor libraries, benchmarks).
//!
//! These functions hand out the CUDA context, the stream every operation of a device is queued
//! on, and raw device addresses. Obtaining them is safe; using them is not: whoever passes an
//! address to a kernel or library must respect the buffer's length, keep the buffer alive, and
//! queue the work on [`cuda_stream`] (or synchronise) so it is ordered with this crate's work.
//!
//! ```
//! use gpu_blas::{interop, Device, DeviceVec};
//! let dev = Device::cpu();
//! let v = DeviceVec::<f64>::zeros(&dev, 4)?;
//! assert!(interop::cuda_stream(&dev).is_none());   // the CPU has no stream
//! assert!(interop::vec_ptr(&v).is_none());         // and no device addresses
//! # Ok::<(), gpu_blas::Error>(())
//! ```

use crate::scalar::Element;
use crate::{Device, DeviceMatrix, DeviceScalar, DeviceVec};
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// The stream a CUDA device queues all work on; `None` for the CPU.
pub fn cuda_stream(device: &Device) -> Option<Arc<CudaStream>> {
    device.cuda_backend().map(|b| b.stream().clone())
}

/// A second stream of a CUDA device, with the greatest scheduling priority, for work that must
/// overlap the device's main stream ([`cuda_stream`]) and be placed first when
/// multiprocessors free up: created on first use, the same stream on every later call;
/// `Ok(None)` for the CPU. Work on it is ordered with the main stream only through events.
///
/// # Errors
/// [`crate::Error::Cuda`] when the driver cannot create the stream.
///
/// ```
/// use gpu_blas::{interop, Device};
/// assert!(interop::cuda_priority_stream(&Device::cpu())?.is_none());
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn cuda_priority_stream(device: &Device) -> crate::Result<Option<Arc<CudaStream>>> {
    device
        .cuda_backend()
        .map(|b| b.priority_stream())
        .transpose()
}

/// A third stream of a CUDA device's context, beside its main and priority streams ([`cuda_priority_stream`]), also with the greatest
/// scheduling priority: for a second chain of work that overlaps the main stream's, created
/// on first use and kept for the life of the process; `Ok(None)` for the CPU. Work on it is
/// ordered with the other streams only through events.
///
/// # Errors
/// [`crate::Error::Cuda`] when the driver cannot create the stream.
///
/// ```
/// use gpu_blas::{interop, Device};
/// assert!(interop::cuda_side_stream(&Device::cpu())?.is_none());
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn cuda_side_stream(device: &Device) -> crate::Result<Option<Arc<CudaStream>>> {
    device.cuda_backend().map(|b| b.side_stream()).transpose()
}

/// The CUDA context of a device; `None` for the CPU.
pub fn cuda_context(device: &Device) -> Option<Arc<CudaContext>> {
    device.cuda_backend().map(|b| b.context().clone())
}

/// Number of streaming multiprocessors of a CUDA device; `None` for the CPU.
pub fn sm_count(device: &Device) -> Option<u32> {
    device.cuda_backend().map(|b| b.sm_count)
}

/// Device address of element 0 of a CUDA vector; `None` on the CPU.
pub fn vec_ptr<T: Element>(v: &DeviceVec<T>) -> Option<u64> {
    v.buf.cuda_ptr(0)
}

/// Device address of element `(0, 0)` of a CUDA matrix; `None` on the CPU.
pub fn matrix_ptr<T: Element>(m: &DeviceMatrix<T>) -> Option<u64> {
    m.buf.cuda_ptr(0)
}

/// Device address of a CUDA scalar; `None` on the CPU.
pub fn scalar_ptr<T: Element>(s: &DeviceScalar<T>) -> Option<u64> {
    s.buf.cuda_ptr(0)
}

/// Device addresses of a CUDA CSR matrix's `(row_ptr, col_idx, values)` arrays (`i32`, `i32`,
/// `T`); `None` on the CPU.
pub fn csr_ptrs<T: crate::Scalar>(a: &crate::CsrMatrix<T>) -> Option<(u64, u64, u64)> {
    Some((
        a.row_ptr.cuda_ptr(0)?,
        a.col_idx.cuda_ptr(0)?,
        a.values.cuda_ptr(0)?,
    ))
}
