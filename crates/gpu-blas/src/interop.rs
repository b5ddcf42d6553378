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

/// Streams of a CUDA device whose kernels run on a partition of its multiprocessors only (a
/// green context's), so that kernels on the device's other streams always find the
/// multiprocessors outside it free: for long bulk work (large products) beside a
/// latency-bound chain. See [`cuda_partition_streams`].
#[derive(Clone, Debug)]
pub struct PartitionStreams {
    /// A stream of the lowest scheduling priority, for the bulk work.
    pub low: Arc<CudaStream>,
    /// Two streams of the greatest scheduling priority: their blocks are placed first when the
    /// partition's multiprocessors free up.
    pub high: [Arc<CudaStream>; 2],
    /// The partition's multiprocessor count.
    pub sms: u32,
}

/// [`PartitionStreams`] of a partition leaving at least `reserve` multiprocessors of a CUDA
/// device outside it. With `clustered`, the multiprocessors left out are split off first as a
/// group able to hold the largest thread block clusters (`reserve` rounded up to the driver's
/// granularity: 8 on compute capability 9.0) and the partition is the rest; otherwise the
/// partition is `total − reserve` multiprocessors rounded down to that granularity. Created on
/// first use for each `(reserve, clustered)` and kept for the life of the process. `Ok(None)`
/// for the CPU, for `reserve` 0 or one leaving fewer than 8 to the partition, or when the
/// driver cannot partition the device (before CUDA 12.4). Buffers of the device are used on
/// the streams as on its main stream; work on them is ordered with the other streams only
/// through events.
///
/// # Errors
/// [`crate::Error::Cuda`] when the driver fails while making the partition's streams.
///
/// ```
/// use gpu_blas::{interop, Device};
/// assert!(interop::cuda_partition_streams(&Device::cpu(), 20, false)?.is_none());
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn cuda_partition_streams(
    device: &Device,
    reserve: u32,
    clustered: bool,
) -> crate::Result<Option<PartitionStreams>> {
    match device.cuda_backend() {
        Some(b) => b.partition(reserve, clustered),
        None => Ok(None),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::cuda_test_device;

    /// A partition's streams: within what was asked, the same streams on a second request,
    /// data round-trips through each, and nothing for no reserve or one leaving too little.
    #[test]
    fn partition_streams() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        let total = sm_count(&dev).unwrap();
        for clustered in [false, true] {
            assert!(cuda_partition_streams(&dev, 0, clustered)
                .unwrap()
                .is_none());
            assert!(cuda_partition_streams(&dev, total - 4, clustered)
                .unwrap()
                .is_none());
            let Some(p) = cuda_partition_streams(&dev, 20, clustered).unwrap() else {
                eprintln!("skipped: the driver made no partition");
                return;
            };
            assert!(p.sms > 0 && p.sms <= total - 20, "{} of {total}", p.sms);
            let again = cuda_partition_streams(&dev, 20, clustered)
                .unwrap()
                .unwrap();
            assert_eq!(
                (again.low.cu_stream(), again.sms),
                (p.low.cu_stream(), p.sms)
            );
            let host: Vec<f64> = (0..4099).map(|i| i as f64 * 0.5 - 7.0).collect();
            for st in [&p.low, &p.high[0], &p.high[1]] {
                let d = st.clone_htod(&host).unwrap();
                assert_eq!(st.clone_dtoh(&d).unwrap(), host);
            }
        }
    }
}
