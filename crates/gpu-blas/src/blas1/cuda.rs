//! Level 1 on the GPU: argument marshalling and launches of the `kernels/blas1.cu` kernels.

use super::{Alpha, Reduction};
use crate::cuda::launch::{cfg1, i64_len, kernel_name, launch_err, scalar_arg};
use crate::cuda::{CudaBackend, BLAS1};
use crate::error::Result;
use crate::scalar::{Element, Scalar};
use crate::vector::DeviceScalar;
use crate::view::{VecMut, VecRef};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use std::mem::size_of;
use std::sync::Arc;

/// Threads per block of every level-1 kernel (the kernels' `__launch_bounds__`).
const BLOCK: u32 = 256;

/// Blocks for an element-wise kernel: one 16-byte pack per thread (measured fastest on H100,
/// with streaming cache hints; see docs/perf-notes.md). The kernel's grid-stride loop covers
/// lengths beyond the largest grid.
fn ew_grid<T: Element>(n: usize) -> u32 {
    let per_pack = (16 / size_of::<T>()).max(1);
    n.div_ceil(per_pack * BLOCK as usize)
        .clamp(1, i32::MAX as usize) as u32
}

/// Blocks for a grid-stride kernel over `n` elements of `T`: enough to fill the GPU, capped so
/// each thread handles a few 16-byte packs at small sizes.
fn grid_for<T: Element>(b: &CudaBackend, n: usize, per_sm: u32, packs_per_thread: usize) -> u32 {
    let per_pack = (16 / size_of::<T>()).max(1);
    let work = n
        .div_ceil(per_pack * packs_per_thread * BLOCK as usize)
        .max(1);
    (work.min((b.sm_count * per_sm) as usize)) as u32
}

fn cfg(grid: u32) -> LaunchConfig {
    cfg1(grid, BLOCK)
}

fn ptr_of<T: Element>(v: &VecRef<'_, T>) -> u64 {
    v.buf.cuda_ptr(v.offset).unwrap_or(0)
}

/// Runs a reduction. The result goes to `out` if given (no synchronisation), else to the
/// workspace's result slot, which is read back (synchronises).
pub(crate) fn reduce<T: Scalar, O: Element>(
    b: &Arc<CudaBackend>,
    op: &'static str,
    kind: Reduction,
    x: VecRef<'_, T>,
    y: Option<VecRef<'_, T>>,
    out: Option<&mut DeviceScalar<O>>,
) -> Result<O> {
    let base = match kind {
        Reduction::Dot => "dot",
        Reduction::Dotc => "dotc",
        Reduction::Dot2 => "dot2",
        Reduction::Dot2c => "dot2c",
        Reduction::Nrm2 => "nrm2",
        Reduction::Asum => "asum",
        Reduction::Iamax => "iamax",
    };
    let f = b.function(&BLAS1, &kernel_name::<T>(base))?;
    let n = i64_len(op, x.len)?;
    let grid = grid_for::<T>(b, x.len, 4, 4).min(2048);
    let ws = b.reduce_workspace()?;
    let ws = ws
        .as_ref()
        .expect("workspace allocated by reduce_workspace");
    let partials = b.ptr(&ws.partials);
    let counter = b.ptr(&ws.counter);
    // The result slot sits after the counter's first 8 bytes of its 64-byte allocation.
    let slot = counter + 16;
    let out_ptr = match &out {
        Some(o) => o.buf.cuda_ptr(0).unwrap_or(0),
        None => slot,
    };
    let (xp, incx) = (ptr_of(&x), x.inc as i64);
    let stream = b.stream();
    let mut l = stream.launch_builder(&f);
    l.arg(&xp).arg(&incx);
    let (yp, incy);
    if let Some(y) = &y {
        yp = ptr_of(y);
        incy = y.inc as i64;
        l.arg(&yp).arg(&incy);
    }
    l.arg(&n).arg(&out_ptr).arg(&partials).arg(&counter);
    // SAFETY: the kernel's parameters are (x, incx, [y, incy,] n, out, partials, counter) with
    // pointer/i64 types matching the pushed u64/i64 values; x and y cover `n` strided elements
    // (checked when the views were built); `out` has room for one `O`; the workspace holds
    // `grid` partials (grid <= 4 * SMs and the largest accumulator is 32 bytes).
    unsafe { l.launch(cfg(grid)) }.map_err(launch_err(op))?;
    if out.is_some() {
        return Ok(O::default());
    }
    let mut v = [O::default()];
    b.dtoh(&ws.counter, 16, crate::buffer::as_bytes_mut(&mut v))?;
    Ok(v[0])
}

fn alpha_args<T: Scalar>(alpha: Alpha<'_, T>) -> ([i64; 2], u64) {
    match alpha {
        Alpha::Host(a) => (scalar_arg(a), 0),
        Alpha::Device(d) => (scalar_arg(T::zero()), d.buf.cuda_ptr(0).unwrap_or(0)),
    }
}

pub(crate) fn axpy<T: Scalar>(
    b: &Arc<CudaBackend>,
    alpha: Alpha<'_, T>,
    x: VecRef<'_, T>,
    y: VecMut<'_, T>,
) -> Result<()> {
    if x.len == 0 {
        return Ok(());
    }
    let f = b.function(&BLAS1, &kernel_name::<T>("axpy"))?;
    let n = i64_len("axpy", x.len)?;
    let (a, ap) = alpha_args(alpha);
    let (xp, incx) = (ptr_of(&x), x.inc as i64);
    let (yp, incy) = (ptr_of(&y.as_ref()), y.inc as i64);
    let mut l = b.stream().launch_builder(&f);
    l.arg(&n)
        .arg(&a)
        .arg(&ap)
        .arg(&xp)
        .arg(&incx)
        .arg(&yp)
        .arg(&incy);
    // SAFETY: parameters (n, alpha, alpha_ptr, x, incx, y, incy) match; alpha is passed by value
    // in a 16-byte carrier of which the kernel reads sizeof(T); views cover n elements.
    unsafe { l.launch(cfg(ew_grid::<T>(x.len))) }.map_err(launch_err("axpy"))?;
    Ok(())
}

pub(crate) fn scal<T: Scalar>(
    b: &Arc<CudaBackend>,
    alpha: Alpha<'_, T>,
    x: VecMut<'_, T>,
) -> Result<()> {
    if x.len == 0 {
        return Ok(());
    }
    let f = b.function(&BLAS1, &kernel_name::<T>("scal"))?;
    let n = i64_len("scal", x.len)?;
    let (a, ap) = alpha_args(alpha);
    let (xp, incx) = (ptr_of(&x.as_ref()), x.inc as i64);
    let mut l = b.stream().launch_builder(&f);
    l.arg(&n).arg(&a).arg(&ap).arg(&xp).arg(&incx);
    // SAFETY: parameters (n, alpha, alpha_ptr, x, incx) match; the view covers n elements.
    unsafe { l.launch(cfg(ew_grid::<T>(x.len))) }.map_err(launch_err("scal"))?;
    Ok(())
}

fn two_vector<T: Scalar>(
    b: &Arc<CudaBackend>,
    op: &'static str,
    x: (u64, i64),
    y: (u64, i64),
    len: usize,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let f = b.function(&BLAS1, &kernel_name::<T>(op))?;
    let n = i64_len(op, len)?;
    let mut l = b.stream().launch_builder(&f);
    l.arg(&n).arg(&x.0).arg(&x.1).arg(&y.0).arg(&y.1);
    // SAFETY: parameters (n, x, incx, y, incy) match copy_/swap_; views cover n elements.
    unsafe { l.launch(cfg(ew_grid::<T>(len))) }.map_err(launch_err(op))?;
    Ok(())
}

pub(crate) fn copy<T: Scalar>(
    b: &Arc<CudaBackend>,
    x: VecRef<'_, T>,
    y: VecMut<'_, T>,
) -> Result<()> {
    let yr = y.as_ref();
    two_vector::<T>(
        b,
        "copy",
        (ptr_of(&x), x.inc as i64),
        (ptr_of(&yr), yr.inc as i64),
        x.len,
    )
}

pub(crate) fn swap<T: Scalar>(
    b: &Arc<CudaBackend>,
    x: VecMut<'_, T>,
    y: VecMut<'_, T>,
) -> Result<()> {
    let (xr, yr) = (x.as_ref(), y.as_ref());
    two_vector::<T>(
        b,
        "swap",
        (ptr_of(&xr), xr.inc as i64),
        (ptr_of(&yr), yr.inc as i64),
        xr.len,
    )
}
