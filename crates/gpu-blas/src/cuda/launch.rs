//! Helpers shared by every kernel launch: names, scalar arguments, configurations.

use crate::error::{Error, Result};
use crate::scalar::{Element, Scalar};
use cudarc::driver::LaunchConfig;

/// `<base>_<prefix>`, the `extern "C"` name of a kernel instantiated for `T`.
pub(crate) fn kernel_name<T: Scalar>(base: &str) -> String {
    format!("{base}_{}", T::PREFIX)
}

/// A scalar kernel argument: the value's bytes, zero-padded. The driver copies as many bytes as
/// the kernel's parameter has (4, 8 or 16), so one 16-byte carrier fits every `Scalar`.
pub(crate) fn scalar_arg<T: Element>(v: T) -> [i64; 2] {
    let mut out = [0i64; 2];
    let src = crate::buffer::as_bytes(std::slice::from_ref(&v));
    crate::buffer::as_bytes_mut(&mut out)[..src.len()].copy_from_slice(src);
    out
}

/// A 1-D launch of `grid` blocks of `block` threads.
pub(crate) fn cfg1(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// A length as the kernels' 64-bit signed index type.
pub(crate) fn i64_len(op: &'static str, n: usize) -> Result<i64> {
    i64::try_from(n).map_err(|_| Error::SizeTooLarge {
        op,
        detail: format!("{n} elements"),
    })
}

/// Maps a launch failure to the crate's error.
pub(crate) fn launch_err(op: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |e| Error::cuda(op, e)
}
