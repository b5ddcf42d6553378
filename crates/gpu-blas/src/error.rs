//! The typed error every fallible operation returns.

use std::fmt;

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in a `gpu-blas` call.
///
/// Each variant names the operation (`op`) and what was wrong, so the message alone tells the
/// caller which argument to fix.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec, Error};
/// let dev = Device::cpu();
/// let x = DeviceVec::from_slice(&dev, &[1.0f64, 2.0])?;
/// let y = DeviceVec::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let err = blas1::dot(&x, &y).unwrap_err();
/// assert!(matches!(err, Error::DimensionMismatch { .. }));
/// # Ok::<(), gpu_blas::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Operand shapes or lengths do not agree.
    #[error("{op}: dimension mismatch: {detail}")]
    DimensionMismatch {
        /// The operation that rejected its input.
        op: &'static str,
        /// Which dimensions disagreed, with their values.
        detail: String,
    },
    /// A vector increment (stride) is not allowed for this operation (zero everywhere,
    /// negative where BLAS does not define it).
    #[error("{op}: invalid increment {arg} = {inc}: {reason}")]
    InvalidIncrement {
        /// The operation that rejected its input.
        op: &'static str,
        /// The argument name (`incx`, `incy`).
        arg: &'static str,
        /// The rejected value.
        inc: isize,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// A view (offset, length, increment or leading dimension) reaches outside its buffer.
    #[error("{op}: view out of bounds: {detail}")]
    OutOfBounds {
        /// The operation that rejected its input.
        op: &'static str,
        /// The offending extent and the buffer length.
        detail: String,
    },
    /// A size does not fit the index type the kernels use.
    #[error("{op}: size too large: {detail}")]
    SizeTooLarge {
        /// The operation that rejected its input.
        op: &'static str,
        /// The size and the limit.
        detail: String,
    },
    /// Operands live on different devices; no implicit copy is ever made.
    #[error("{op}: device mismatch: {left} vs {right}")]
    DeviceMismatch {
        /// The operation that rejected its input.
        op: &'static str,
        /// The first operand's device.
        left: String,
        /// The other operand's device.
        right: String,
    },
    /// An input holds a NaN or an infinity where the operation requires finite values.
    #[error("{op}: non-finite value at index {index}")]
    NonFinite {
        /// The operation that rejected its input.
        op: &'static str,
        /// Index of the first non-finite entry.
        index: usize,
    },
    /// A file or stream could not be read or written.
    #[error("I/O error on {path}: {message}")]
    Io {
        /// The file (or `<stream>`).
        path: String,
        /// The operating system's description.
        message: String,
    },
    /// Malformed input text (for example a Matrix Market file), with the 1-based line number.
    #[error("parse error at line {line}: {message}")]
    Parse {
        /// 1-based line number where the problem was found (0 when it concerns the whole input).
        line: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// A sparse matrix's arrays are inconsistent (unsorted or out-of-range column indices,
    /// non-monotone row pointers, wrong lengths).
    #[error("invalid sparse matrix: {detail}")]
    InvalidSparse {
        /// The first problem found, naming the row.
        detail: String,
    },
    /// CUDA was asked for but cannot be used here (no driver library, no device, bad ordinal).
    #[error("CUDA unavailable: {0}")]
    CudaUnavailable(String),
    /// The device ran out of memory.
    #[error("{op}: out of device memory allocating {bytes} bytes")]
    OutOfMemory {
        /// The operation whose allocation failed.
        op: &'static str,
        /// The size of the failed request.
        bytes: usize,
    },
    /// The operation exists but is not available for these arguments or on this device in this
    /// version (for example a CPU-only operation called with buffers on a GPU).
    #[error("{op}: not supported: {detail}")]
    Unsupported {
        /// The operation that refused.
        op: &'static str,
        /// What is not supported.
        detail: String,
    },
    /// Any other failure reported by the CUDA driver or a CUDA library.
    #[error("{op}: CUDA error: {message}")]
    Cuda {
        /// The operation that failed.
        op: &'static str,
        /// The driver's description.
        message: String,
    },
}

impl Error {
    pub(crate) fn dims(op: &'static str, detail: impl fmt::Display) -> Self {
        Error::DimensionMismatch {
            op,
            detail: detail.to_string(),
        }
    }

    pub(crate) fn bounds(op: &'static str, detail: impl fmt::Display) -> Self {
        Error::OutOfBounds {
            op,
            detail: detail.to_string(),
        }
    }

    pub(crate) fn cuda(op: &'static str, e: impl fmt::Debug) -> Self {
        Error::Cuda {
            op,
            message: format!("{e:?}"),
        }
    }
}
