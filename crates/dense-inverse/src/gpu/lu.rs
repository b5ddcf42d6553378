//! LU with partial pivoting on the GPU: `getrf` (blocked right-looking), `getrs`, `getri`, and
//! the blocked triangular inverse `trtri` shared with the Cholesky inverse.

use super::cublas::{self as cb, LEFT, LOWER, NON_UNIT, OP_N, RIGHT, UNIT, UPPER};
use super::kernels as k;
pub use super::kernels::PanelSync;
use super::{Dense, NB};
use crate::error::Result;
use gpu_blas::blas2::Trans;
use gpu_blas::{Device, DeviceMatrix, DeviceVec, Scalar};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Timing events of the two-level LU with lookahead, while [`set_lu_trace`] is on.
static TRACE: Mutex<Option<Vec<TraceMark>>> = Mutex::new(None);

/// A mark of [`set_lu_trace`]: label, column, and the event recorded on the device.
type TraceMark = (&'static str, usize, cudarc::driver::CudaEvent);

/// Starts (`true`, dropping any marks not taken) or stops recording when each step of the
/// two-level LU with lookahead ends on the device: on the priority stream `factored` (block
/// column `kk..` factored) and `lookahead` (the next block column updated), on the device's
/// stream `update` (the rest of the trailing matrix updated) and `uinv` (`U⁻¹`'s columns
/// formed), and `start` / `factor-end` / `solve-end` around `lu_inverse`'s steps. Each mark
/// is a timing event; [`take_lu_trace`] turns them into times. For profiling the pipeline
/// (`gpu-bench --only lu-trace`); the marks cost a little time themselves.
///
/// ```
/// dense_inverse::set_lu_trace(true);
/// assert!(dense_inverse::take_lu_trace().unwrap().is_empty());
/// dense_inverse::set_lu_trace(false);
/// ```
#[doc(hidden)]
pub fn set_lu_trace(on: bool) {
    *TRACE.lock().unwrap_or_else(|e| e.into_inner()) = on.then(Vec::new);
}

/// The marks recorded since [`set_lu_trace`] (which stays on): `(label, column, ms)`, with the
/// time in milliseconds after the first mark, in the order recorded. Waits for each event.
///
/// ```
/// assert!(dense_inverse::take_lu_trace().unwrap().is_empty());
/// ```
#[doc(hidden)]
pub fn take_lu_trace() -> Result<Vec<(&'static str, usize, f64)>> {
    let marks = match TRACE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        Some(v) => std::mem::take(v),
        None => Vec::new(),
    };
    let Some((_, _, first)) = marks.first() else {
        return Ok(Vec::new());
    };
    let drv = |e| crate::Error::from(k::driver_error("take_lu_trace", e));
    first.synchronize().map_err(drv)?;
    let mut out = Vec::with_capacity(marks.len());
    for (label, col, ev) in &marks {
        ev.synchronize().map_err(drv)?;
        out.push((*label, *col, f64::from(first.elapsed_ms(ev).map_err(drv)?)));
    }
    Ok(out)
}

/// Records mark `label` for column `col` on `s` when tracing.
pub(crate) fn trace_mark(
    op: &'static str,
    s: &cudarc::driver::CudaStream,
    label: &'static str,
    col: usize,
) -> Result<()> {
    let mut guard = TRACE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(v) = guard.as_mut() {
        let ev = s
            .record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| crate::Error::from(k::driver_error(op, e)))?;
        v.push((label, col, ev));
    }
    Ok(())
}

/// `A = P·L·U` in place on the `n × n` matrix `a` (LAPACK `getrf`); `ipiv` (`n` entries) gets
/// the 1-based interchanges, `info` (one entry, 0 on entry) the first exactly-zero pivot.
/// Queued, not waited for.
///
/// Per `NB`-column panel: the panel's LU in one cooperative launch (`getrf_panel`), or where
/// that does not fit, for each column `getrf_pivot` (pivot search, interchange inside the
/// panel, scaling) and `getrf_update` (rank-1 update of the panel's later columns); then
/// `laswp_rows` on the columns left and right of the panel, `U12 ← L11⁻¹·A12` (cuBLAS `trsm`)
/// and `A22 ← A22 − L21·U12` (cuBLAS `gemm`).
///
/// From order 3072 (or as [`set_lu_outer_block`] forces) these steps run on two levels: the
/// `NB`-column panels factor a block column of the outer width (128 columns, 512 from order
/// 12288; see `lu_outer_block`), with their
/// interchanges, `trsm` and `gemm` confined to it, and the trailing matrix is updated once per
/// block column (interchanges left and right of it, then one `trsm` and one `gemm` of depth
/// `outer`). The panels see the same operations as on one level (an outer width of `NB`); the
/// trailing matrix sums its updates in another order (one `gemm` of depth `outer` instead of
/// several of depth `NB`).
pub(crate) fn getrf<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
) -> Result<()> {
    let outer = lu_outer_block(a.rows);
    if let Some(pri) = lookahead_stream(dev, outer)? {
        return getrf_lookahead(op, dev, a, ipiv, info, outer, &pri, None);
    }
    getrf_outer(op, dev, a, ipiv, info, outer, None)
}

/// The priority stream on which [`getrf_lookahead`] factors the block columns, where the LU
/// with outer width `outer` runs on two levels with the lookahead ([`set_lu_lookahead`]) and
/// the device has such a stream; `None` otherwise ([`getrf_outer`] then runs on one stream).
pub(super) fn lookahead_stream(
    dev: &Device,
    outer: usize,
) -> Result<Option<std::sync::Arc<cudarc::driver::CudaStream>>> {
    if outer > NB && LOOKAHEAD.load(Ordering::Relaxed) {
        Ok(gpu_blas::interop::cuda_priority_stream(dev)?)
    } else {
        Ok(None)
    }
}

/// [`getrf`] that also forms `U⁻¹` in `x` (an `n × n` matrix of zeros) while it factors, where
/// it runs on two levels with the lookahead: after block column `K = [kk, e)` is factored, the
/// device's stream (idle while the priority stream factors the next block column) forms `x`'s
/// columns `kk..e`: `U(0..e, kk..e)` copied, its diagonal block inverted (the part below the
/// diagonal zeroed), then `X₁₂ = −X₁₁·U₁₂·X₂₂` by two `gemm`s (`X₁₁`, the inverse formed so far,
/// is upper triangular with zeros below, so the full products are exact; `U₁₂` is final once
/// `K` is factored, since later interchanges only move rows below `kk`). Returns whether `x`
/// holds `U⁻¹` (upper triangle, zeros below); otherwise (one level, lookahead off, no
/// priority stream, or no room for the `n × outer` workspace) `x` is untouched. With a zero
/// pivot (`info > 0`) the inverse formed is meaningless.
pub(crate) fn getrf_uinv<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    x: Dense<T>,
) -> Result<bool> {
    let n = a.rows;
    assert!(x.rows == n && x.cols == n);
    let outer = lu_outer_block(n);
    if let Some(pri) = lookahead_stream(dev, outer)? {
        let ws = match DeviceMatrix::<T>::zeros(dev, n, outer) {
            Ok(w) => w,
            Err(gpu_blas::Error::OutOfMemory { .. }) => {
                getrf_lookahead(op, dev, a, ipiv, info, outer, &pri, None)?;
                return Ok(false);
            }
            Err(e) => return Err(e.into()),
        };
        let w = Dense::of(op, &ws)?;
        getrf_lookahead(op, dev, a, ipiv, info, outer, &pri, Some((x, w)))?;
        // The workspace is freed (stream-ordered) after the queued work that uses it.
        drop(ws);
        return Ok(true);
    }
    getrf_outer(op, dev, a, ipiv, info, outer, None)?;
    Ok(false)
}

/// Columns `kk..e` of `U⁻¹` into `x`, where `x(0..kk, 0..kk)` already holds the inverse of
/// `U(0..kk, 0..kk)` with zeros below its diagonal and `U(0..e, kk..e)` in `a` is final (see
/// [`getrf_uinv`]); `w` is a workspace of at least `kk × (e − kk)` elements.
fn uinv_block<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (x, w): (Dense<T>, Dense<T>),
    (kk, e): (usize, usize),
) -> Result<()> {
    let b = e - kk;
    k::copy_dense(op, dev, a.at(0, kk, e, b), x.at(0, kk, e, b))?;
    let d = x.at(kk, kk, b, b);
    k::zero_tri(op, dev, d, true)?;
    trtri_zeroed(op, dev, d, true)?;
    if kk > 0 {
        let t = w.shaped(kk, b, kk);
        let x12 = x.at(0, kk, kk, b);
        upper_times(op, dev, x.at(0, 0, kk, kk), x12, t, UPPER_SLAB_MIN)?;
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (kk, b, b),
            -T::one(),
            t,
            d,
            T::zero(),
            x12,
        )?;
    }
    Ok(())
}

/// Rows per slab of [`upper_times`] in `U⁻¹`'s formation: at least this many, and at most
/// [`UPPER_SLABS`] slabs.
const UPPER_SLAB_MIN: usize = 1024;
/// Most slabs of [`upper_times`].
const UPPER_SLABS: usize = 4;

/// `C ← U·B` for `U` (`m × m`) upper triangular with zeros stored below its diagonal, `B`
/// `m × nc`, `C` `m × nc` apart from both: by row slabs of `U` (at least `slab_min` rows, at
/// most [`UPPER_SLABS`] of them), each a `gemm` over only the
/// columns of `U` from the slab's first row on (where its nonzeros are), so about
/// `(1 + 1/s)·m²·nc` flops for `s` slabs instead of a full product's `2·m²·nc`. The skipped
/// products are exact zeros, so the result is the full product's up to the order of the sums.
fn upper_times<T: Scalar>(
    op: &'static str,
    dev: &Device,
    u: Dense<T>,
    b: Dense<T>,
    c: Dense<T>,
    slab_min: usize,
) -> Result<()> {
    let (m, nc) = (u.rows, b.cols);
    let slabs = (m / slab_min.max(1)).clamp(1, UPPER_SLABS);
    let h = m.div_ceil(slabs);
    let mut r0 = 0;
    while r0 < m {
        let r1 = (r0 + h).min(m);
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (r1 - r0, nc, m - r0),
            T::one(),
            u.at(r0, r0, r1 - r0, m - r0),
            b.at(r0, 0, m - r0, nc),
            T::zero(),
            c.at(r0, 0, r1 - r0, nc),
        )?;
        r0 = r1;
    }
    Ok(())
}

/// Whether the two-level [`getrf`] overlaps each block column's factorization with the
/// previous trailing update ([`set_lu_lookahead`]).
static LOOKAHEAD: AtomicBool = AtomicBool::new(true);

/// Sets, for the whole process, whether the two-level LU on a GPU (order 3072 and up, see
/// [`set_lu_outer_block`]) factors each block column on a second, high-priority stream while
/// the device's stream applies the previous block column's update to the rest of the matrix
/// (`true`, the default), or runs every step in order on one stream (`false`). Both apply the
/// same operations; the trailing products are split into two `gemm`s of other shapes, for
/// which cuBLAS may sum in another order, so the factors can differ in rounding. For tuning
/// comparisons (`gpu-bench --only inverse`).
///
/// ```
/// dense_inverse::set_lu_lookahead(false);
/// dense_inverse::set_lu_lookahead(true);
/// ```
#[doc(hidden)]
pub fn set_lu_lookahead(on: bool) {
    LOOKAHEAD.store(on, Ordering::Relaxed);
}

/// [`getrf_outer`] with `outer > NB` and a lookahead of one block column. With block column
/// `K = [kk, e)` and the next `K+1 = [e, e2)`, on the priority stream `pri`: `K`'s panels
/// and in-block updates, then (once the main stream's update by `K − 1` is done) `K`'s
/// interchanges and update on `K+1`'s columns only; on the device's stream, once that is
/// queued: `K`'s interchanges left of `K` and right of `K+1`, and its update of the columns
/// right of `K+1`. So the big update by `K` runs while `pri` factors `K+1`, whose panels use
/// a fraction of the multiprocessors and are placed first as blocks free up. The operations
/// are [`getrf_outer`]'s, with each trailing update split into the next block column's part
/// and the rest. With `uinv = (x, w)`, the device's stream then forms `U⁻¹`'s columns of each
/// block column in `x` ([`getrf_uinv`]). The device's stream waits for `pri` before returning,
/// also after an error.
#[allow(clippy::too_many_arguments)]
fn getrf_lookahead<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    outer: usize,
    pri: &std::sync::Arc<cudarc::driver::CudaStream>,
    uinv: Option<(Dense<T>, Dense<T>)>,
) -> Result<()> {
    use cudarc::driver::{sys::CUevent_flags, CudaStream};
    let main = super::launch_stream(op, dev)?;
    let drv = |e: cudarc::driver::DriverError| crate::Error::from(k::driver_error(op, e));
    let mark = |s: &CudaStream| {
        s.record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(drv)
    };
    let n = a.rows;
    assert!(a.cols == n && ipiv.len() == n);
    let scratch = k::PanelScratch::<T>::new(op, dev, NB)?;
    pri.wait(&mark(&main)?).map_err(drv)?;
    let run = || -> Result<()> {
        let mut big_done: Option<cudarc::driver::CudaEvent> = None;
        let mut kk = 0;
        while kk < n {
            let e = (kk + outer).min(n);
            let e2 = (e + outer).min(n);
            super::on_stream(pri, || -> Result<()> {
                factor_block(op, dev, a, (kk, e), ipiv, info, scratch.as_ref(), &mut None)?;
                trace_mark(op, pri, "factored", kk)?;
                if let Some(ev) = &big_done {
                    pri.wait(ev).map_err(drv)?;
                }
                if e < e2 {
                    k::laswp_rows(op, dev, a.at(0, e, n, e2 - e), (0, 0), ipiv, (kk, e), false)?;
                    trailing_update(op, dev, a, (kk, e - kk), (e, e2))?;
                }
                trace_mark(op, pri, "lookahead", kk)
            })?;
            main.wait(&mark(pri)?).map_err(drv)?;
            if kk > 0 {
                k::laswp_rows(op, dev, a.at(0, 0, n, kk), (0, 0), ipiv, (kk, e), false)?;
            }
            if e2 < n {
                k::laswp_rows(
                    op,
                    dev,
                    a.at(0, e2, n, n - e2),
                    (0, 0),
                    ipiv,
                    (kk, e),
                    false,
                )?;
                trailing_update(op, dev, a, (kk, e - kk), (e2, n))?;
            }
            big_done = Some(mark(&main)?);
            trace_mark(op, &main, "update", kk)?;
            if let Some(xw) = uinv {
                uinv_block(op, dev, a, xw, (kk, e))?;
                trace_mark(op, &main, "uinv", kk)?;
            }
            kk = e;
        }
        Ok(())
    };
    let r = run();
    // Whatever happened, nothing queued on pri may outlive the caller's buffers.
    let joined = mark(pri).and_then(|ev| main.wait(&ev).map_err(drv));
    r.and(joined)
}

/// Host times of the phases of a profiled run: each step waits for the device before and
/// after it, and its time is added to its phase's (phases in first-seen order).
pub(crate) struct Phases {
    dev: Device,
    list: Vec<(&'static str, f64)>,
}

impl Phases {
    pub(crate) fn new(dev: &Device) -> Self {
        Phases {
            dev: dev.clone(),
            list: Vec::new(),
        }
    }

    /// Runs `f` as part of phase `name`.
    pub(crate) fn time<R>(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        self.dev.synchronize()?;
        let t = std::time::Instant::now();
        let r = f()?;
        self.dev.synchronize()?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match self.list.iter_mut().find(|(p, _)| *p == name) {
            Some((_, total)) => *total += ms,
            None => self.list.push((name, ms)),
        }
        Ok(r)
    }

    pub(crate) fn into_list(self) -> Vec<(&'static str, f64)> {
        self.list
    }
}

/// `f()`, timed as phase `name` when profiling.
fn phase<R>(
    prof: &mut Option<&mut Phases>,
    name: &'static str,
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    match prof {
        Some(p) => p.time(name, f),
        None => f(),
    }
}

/// [`getrf`] with block columns of `outer` columns (`NB` or less: one level); with `prof`,
/// every step timed into its phase.
fn getrf_outer<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    outer: usize,
    mut prof: Option<&mut Phases>,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n && ipiv.len() == n);
    let scratch = k::PanelScratch::<T>::new(op, dev, NB)?;
    let outer = outer.max(1);
    let mut kk = 0;
    while kk < n {
        let bb = outer.min(n - kk);
        let e = kk + bb;
        factor_block(op, dev, a, (kk, e), ipiv, info, scratch.as_ref(), &mut prof)?;
        phase(&mut prof, "getrf: interchanges", || {
            k::laswp_rows(op, dev, a, (kk, e), ipiv, (kk, e), false)
        })?;
        phase(&mut prof, "getrf: trailing updates", || {
            trailing_update(op, dev, a, (kk, bb), (e, n))
        })?;
        kk = e;
    }
    Ok(())
}

/// The panels of the block column `kk..e` of `a` (of the widths [`panel_width`] gives), their
/// interchanges and updates confined to it (with `e − kk ≤ NB` usually a single panel, and both
/// of those are empty); with `prof`, each step timed into its phase.
#[allow(clippy::too_many_arguments)]
pub(super) fn factor_block<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, e): (usize, usize),
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    scratch: Option<&k::PanelScratch<T>>,
    prof: &mut Option<&mut Phases>,
) -> Result<()> {
    let n = a.rows;
    let block = a.at(0, kk, n, e - kk);
    let mut jj = kk;
    while jj < e {
        let jb = panel_width::<T>(op, dev, n - jj, (e - jj, e - kk))?;
        let je = jj + jb;
        phase(prof, "getrf: panels", || {
            factor_panel(op, dev, a, (jj, jb), ipiv, info, scratch)
        })?;
        phase(prof, "getrf: interchanges", || {
            k::laswp_rows(op, dev, block, (jj - kk, je - kk), ipiv, (jj, je), false)
        })?;
        phase(prof, "getrf: updates in block columns", || {
            trailing_update(op, dev, a, (jj, jb), (je, e))
        })?;
        jj = je;
    }
    Ok(())
}

/// Whether [`factor_block`] may factor by panels of `NB / 2` columns where an `NB`-column panel
/// would not fit the cluster panel ([`set_panel_split`]).
static PANEL_SPLIT: AtomicBool = AtomicBool::new(true);

/// Sets, for the whole process, whether an LU on a GPU factors a tall panel by 32 columns
/// (each 32-column panel followed by its interchanges, `trsm` and `gemm` inside the block
/// column) where its built-in width (64 on one level, 48 on two) of `m` rows would not fit the
/// shared memory of one thread block cluster with the pushed exchange ([`PanelSync::Push`]) but
/// 32 columns do (`true`, the default; in `f64` on an H100 from about 6700 rows for 64 columns,
/// 9000 for 48), or keeps the built-in width (`false`: such tall panels then run on the
/// cooperative grid or the pulling cluster kernel). The factors differ only in rounding. For
/// tuning comparisons (`gpu-bench --only inverse`).
///
/// ```
/// dense_inverse::set_panel_split(false);
/// dense_inverse::set_panel_split(true);
/// ```
#[doc(hidden)]
pub fn set_panel_split(on: bool) {
    PANEL_SPLIT.store(on, Ordering::Relaxed);
}

/// The panel width forced by [`set_panel_width`] (0: the built-in rule).
static PANEL_WIDTH: AtomicUsize = AtomicUsize::new(0);

/// Sets, for the whole process, the width of every panel of an LU on a GPU: `Some(w)` (`1 ≤ w
/// ≤ 64`) factors each block column by panels of `w` columns, each followed by its
/// interchanges, `trsm` and `gemm` inside the block column; `None` (or `Some(0)`) restores the
/// built-in rule (64 columns, 32 where 64 would not fit a cluster, see [`set_panel_split`]).
/// The factors differ only in rounding. For tuning comparisons (`gpu-bench --only inverse`).
///
/// ```
/// dense_inverse::set_panel_width(Some(32));
/// dense_inverse::set_panel_width(None);
/// ```
#[doc(hidden)]
pub fn set_panel_width(width: Option<usize>) {
    PANEL_WIDTH.store(width.unwrap_or(0).min(NB), Ordering::Relaxed);
}

/// Panel width inside the block columns of a two-level LU: with the pushed cluster panel, 48
/// columns beat 64 (f64 on an H100, `lu_factor` / `lu_inverse` with every panel of 16 / 24 /
/// 32 / 48 / 64 columns: n = 8000 35.74 / 34.85 / 33.72 / 32.99 / 37.77 ms and 53.65 / 52.26
/// / 51.15 / 49.07 / 54.94 ms; n = 4000 14.67 / 14.43 / 14.27 / 13.79 / 13.88 ms): each
/// column's update is shorter, and 48 columns of up to about 9000 rows fit one cluster.
const WIDE_PANEL: usize = 48;

/// The width of the next panel of [`factor_block`], `m` rows with `left` columns left in its
/// block column of `width` columns: the forced one ([`set_panel_width`]), else [`WIDE_PANEL`]
/// in a block column wider than `NB` (two levels) and `NB` on one level (or `left` where
/// fewer), or `NB / 2` where the split is on ([`set_panel_split`]), the built-in cluster rule
/// applies, and that width does not fit the pushed cluster panel but half of `NB` does.
fn panel_width<T: Scalar>(
    op: &'static str,
    dev: &Device,
    m: usize,
    (left, width): (usize, usize),
) -> Result<usize> {
    let forced = PANEL_WIDTH.load(Ordering::Relaxed);
    if forced > 0 {
        return Ok(forced.min(left));
    }
    let pref = if width > NB { WIDE_PANEL } else { NB };
    let jb = pref.min(left);
    if jb == pref
        && PANEL_SPLIT.load(Ordering::Relaxed)
        && PANEL_CLUSTER.load(Ordering::Relaxed)
        && panel_blocks().is_none()
        && gpu_blas::interop::cuda_context(dev).is_some()
        && !k::push_fits::<T>(op, dev, (m, pref))?
        && k::push_fits::<T>(op, dev, (m, NB / 2))?
    {
        return Ok(NB / 2);
    }
    Ok(jb)
}

/// The phases of [`crate::lu_inverse`] on a CUDA device, each step timed alone (the device
/// waited for before and after it, which adds a few microseconds per step): the copy, the
/// factorization's panels, interchanges and updates, the second matrix, `U⁻¹` (and, on a
/// copy, by the top-down [`trtri`], then its diagonal blocks alone), `X·L⁻¹` by the recursive solve (and, on a copy, by one
/// cuBLAS `trsm`), the column interchanges; phases in parentheses are such comparisons, not
/// part of `lu_inverse`. Milliseconds per phase, in order. For tuning (`gpu-bench --only
/// inverse`); uses up to four `n × n` matrices besides `a`.
///
/// ```
/// # use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::<f64>::zeros(&Device::cpu(), 2, 2)?;
/// assert!(dense_inverse::lu_inverse_phases(&a).is_err()); // CUDA only
/// # Ok::<(), dense_inverse::Error>(())
/// ```
#[doc(hidden)]
pub fn lu_inverse_phases<T: Scalar>(a: &DeviceMatrix<T>) -> Result<Vec<(&'static str, f64)>> {
    const OP: &str = "lu_inverse_phases";
    let dev = a.device();
    if gpu_blas::interop::cuda_context(dev).is_none() {
        return Err(super::not_cuda(OP));
    }
    let n = crate::check::square(OP, a.rows(), a.cols())?;
    let mut p = Phases::new(dev);
    let w = p.time("copy", || Ok(a.try_clone()?))?;
    let wd = Dense::of(OP, &w)?;
    let ipiv = DeviceVec::<i32>::zeros(dev, n)?;
    let info = DeviceVec::<i32>::zeros(dev, 1)?;
    getrf_outer(OP, dev, wd, &ipiv, &info, lu_outer_block(n), Some(&mut p))?;
    let x = p.time("getri: second matrix", || Ok(w.try_clone()?))?;
    let xd = Dense::of(OP, &x)?;
    p.time("getri: zero below U", || k::zero_tri(OP, dev, xd, true))?;
    let y = x.try_clone()?;
    let yd = Dense::of(OP, &y)?;
    p.time("getri: U⁻¹", || trtri_zeroed(OP, dev, xd, true))?;
    p.time("(U⁻¹ by the top-down trtri, on a copy)", || {
        trtri(OP, dev, yd, true)
    })?;
    p.time("(U⁻¹ diagonal blocks alone)", || {
        k::trtri_diag(OP, dev, yd, true)
    })?;
    drop(y);
    let z = x.try_clone()?;
    let zd = Dense::of(OP, &z)?;
    p.time("getri: X·L⁻¹", || {
        cb::trsm_rec(OP, dev, RIGHT, LOWER, UNIT, (n, n), T::one(), wd, xd)
    })?;
    p.time("(X·L⁻¹ by one cuBLAS trsm)", || {
        cb::trsm(OP, dev, RIGHT, LOWER, OP_N, UNIT, (n, n), T::one(), wd, zd)
    })?;
    drop(z);
    p.time("getri: column interchanges", || {
        k::swap_cols(OP, dev, xd, &ipiv)
    })?;
    Ok(p.into_list())
}

/// The update right of a factored block column `kk..kk + kb` on the columns `c0..c1`:
/// `U12 ← L11⁻¹·A12` (cuBLAS `trsm`, rows `kk..kk + kb`) and `A22 ← A22 − L21·U12` (cuBLAS
/// `gemm`, rows `kk + kb..n`). Nothing when `c0 == c1`.
pub(super) fn trailing_update<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, kb): (usize, usize),
    (c0, c1): (usize, usize),
) -> Result<()> {
    let (n, e) = (a.rows, kk + kb);
    if c0 >= c1 {
        return Ok(());
    }
    let w = c1 - c0;
    cb::trsm(
        op,
        dev,
        LEFT,
        LOWER,
        OP_N,
        UNIT,
        (kb, w),
        T::one(),
        a.at(kk, kk, kb, kb),
        a.at(kk, c0, kb, w),
    )?;
    if e < n {
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (n - e, w, kb),
            -T::one(),
            a.at(e, kk, n - e, kb),
            a.at(kk, c0, kb, w),
            T::one(),
            a.at(e, c0, n - e, w),
        )?;
    }
    Ok(())
}

/// The outer block width of the GPU LU factorization forced by [`set_lu_outer_block`] (0: the
/// built-in rule, [`lu_outer_block`]).
static LU_OUTER: AtomicUsize = AtomicUsize::new(0);

/// Sets, for the whole process, the outer block width of the GPU LU factorization
/// (`lu_factor`, `lu_inverse` and whatever calls them): `Some(w)` factors block columns of `w`
/// columns (rounded up to a multiple of 64) with the 64-column panels inside them and updates
/// the trailing matrix once per block column, so its `gemm` has depth `w`; `Some(64)` (or
/// less) is a single level, a trailing update per 64-column panel; `None` restores the
/// built-in rule (one level below order 3072, 128 from there, 512 from 12288). Other widths sum the trailing updates
/// in another order, so the factors agree to rounding and the pivots agree except where that
/// rounding decides a near tie. For tuning sweeps (`gpu-bench --only panel-tune`).
///
/// ```
/// dense_inverse::set_lu_outer_block(Some(256));
/// dense_inverse::set_lu_outer_block(None);
/// ```
#[doc(hidden)]
pub fn set_lu_outer_block(width: Option<usize>) {
    let w = width.map_or(0, |w| w.div_ceil(NB).saturating_mul(NB).max(NB));
    LU_OUTER.store(w, Ordering::Relaxed);
}

/// The outer block width for order `n`: the forced one, else 128 from `n = 3072`, 512 from
/// `n = 12288`, and `NB` (one level) below 3072. Measured for f64 `lu_factor` with the
/// lookahead and the pushed cluster panel on an H100 (outer 128 / 256 / 512): n = 4000 13.93 /
/// 14.36 / 14.47 ms, n = 8000 35.98 / 36.32 / 37.12 ms. Before the lookahead (one level / 128
/// / 256 / 512): n = 8000 on an H100 57.4 / 50.0 / 47.1 / 46.8 ms; on an H200 n = 2000 7.90 /
/// 8.28 / 8.25 / 8.28 ms, n = 16000 223.3 / 166.7 / 155.3 / 149.1 ms (hence 512 for large
/// orders).
pub(super) fn lu_outer_block(n: usize) -> usize {
    match LU_OUTER.load(Ordering::Relaxed) {
        0 if n >= 12288 => 512,
        0 if n >= 3072 => 128,
        0 => NB,
        w => w,
    }
}

/// The outer block width of the GPU Gauss-Jordan inverse for order `n`: the forced one
/// ([`set_lu_outer_block`]), else 192 for `3072 ≤ n < 6144`, 384 for `6144 ≤ n < 12288`, and
/// [`lu_outer_block`]'s width otherwise (512 from 12288). Its lookahead spends more per block
/// column than the LU's (every column of the matrix is updated at each step), which a wider
/// block column amortizes. Measured (f64, H100, outer 128 / 192 / 256 / 384 / 512): n = 4000
/// 15.8 / 15.7 / 16.3 / 16.0 / 16.3 ms, n = 8000 45.0 / 41.2 / 41.1 / 40.5 / 41.6 ms, n = 16000
/// 304 / 254 / 225 / 209 / 206 ms.
pub(super) fn gj_outer_block(n: usize) -> usize {
    match LU_OUTER.load(Ordering::Relaxed) {
        0 if (3072..6144).contains(&n) => 192,
        0 if (6144..12288).contains(&n) => 384,
        _ => lu_outer_block(n),
    }
}

/// How the GPU Gauss-Jordan inverse (from order 3072, where it runs on three streams) shares
/// the multiprocessors ([`set_gj_partition`]): its big products `C ← C + F·C1` run in a
/// partition (a green context) that leaves at least `reserve` multiprocessors outside, so that
/// the next block column's factorization never waits for them to drain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GjPartition {
    /// Multiprocessors kept out of the partition; 0: no partition.
    pub reserve: usize,
    /// The multiprocessors kept out form a group able to hold the largest thread block
    /// clusters (the partition is the rest); otherwise the partition is a group of all but
    /// `reserve`, rounded down to the driver's granularity.
    pub clustered: bool,
    /// The panels' products (the side stream's work) run in the partition too, ahead of the
    /// big products.
    pub side: bool,
    /// The next block column's update by the current one (the lookahead) runs in the
    /// partition, ahead of the big products, instead of on the priority stream.
    pub lookahead: bool,
}

/// The partition forced by [`set_gj_partition`] (`None`: the built-in rule, [`gj_built_in`]).
static GJ_PARTITION: Mutex<Option<GjPartition>> = Mutex::new(None);

/// The built-in partition of the Gauss-Jordan inverse of order `n` where the LU panels run as
/// thread block clusters (compute capability 9.0 on): below order 12288, 16 multiprocessors
/// kept out as a group able to hold one panel's 16-block cluster, so that the panels never
/// wait for a graphics processing cluster's worth of multiprocessors to drain; none from
/// 12288, where the big products set the pace and need every multiprocessor. Measured (H100,
/// `gpu-bench --only lu-trace`, ms at the built-in outer width; none / all but 20 as one
/// group / 16, 24, 32 kept out as a cluster-capable group):
///
/// | | none | 112 | 16 | 24 | 32 |
/// |---|---:|---:|---:|---:|---:|
/// | f64 n = 4000 | 15.7 | 16.0 | 15.8 | 15.9 | 15.8 |
/// | f64 n = 8000 | 40.4–40.8 | 40.3 | 38.0–38.8 | 38.5–38.8 | 38.9 |
/// | f64 n = 16000 | 205 | 219 | 210–214 | 216–220 | 225 |
/// | f32 n = 4000 | 14.4 | 14.3 | 13.6 | 13.8 | 13.6 |
/// | f32 n = 8000 | 42.1 | 41.4 | 36.5 | 37.1 | 38.5 |
/// | f32 n = 16000 | 211 | 239 | 227 | 240 | 255 |
///
/// With the lookahead or the side stream's products in the partition as well: no better.
fn gj_built_in(n: usize) -> GjPartition {
    GjPartition {
        reserve: if n < 12288 { 16 } else { 0 },
        clustered: true,
        side: false,
        lookahead: false,
    }
}

/// Sets, for the whole process, how the GPU Gauss-Jordan inverse shares the multiprocessors
/// ([`GjPartition`]); `None` restores the built-in rule. Where the driver cannot partition the
/// device, the products run as without a partition. For tuning sweeps (`gpu-bench --only
/// lu-trace`).
///
/// ```
/// use dense_inverse::GjPartition;
/// dense_inverse::set_gj_partition(Some(GjPartition { reserve: 20, ..Default::default() }));
/// dense_inverse::set_gj_partition(None);
/// ```
#[doc(hidden)]
pub fn set_gj_partition(p: Option<GjPartition>) {
    *GJ_PARTITION.lock().unwrap_or_else(|e| e.into_inner()) = p;
}

/// The partition of the Gauss-Jordan inverse of order `n` on `dev`: the forced one, else
/// [`gj_built_in`]'s where the panels run as clusters, none elsewhere.
pub(super) fn gj_partition(op: &'static str, dev: &Device, n: usize) -> Result<GjPartition> {
    let forced = *GJ_PARTITION.lock().unwrap_or_else(|e| e.into_inner());
    Ok(match forced {
        Some(p) => p,
        None if k::cluster_capable(op, dev)? => gj_built_in(n),
        None => GjPartition::default(),
    })
}

/// The block count of the cooperative panel launch forced by [`set_panel_blocks`] (0: the
/// built-in rule, 48 blocks or one per multiprocessor where there are fewer).
static PANEL_BLOCKS: AtomicUsize = AtomicUsize::new(0);

/// Sets, for the whole process, the number of blocks of the cooperative launch that factors an
/// LU panel on a GPU (`lu_factor`, `lu_inverse`, `gauss_jordan_inverse` and whatever calls
/// them). With `Some(b)` a panel of `m` rows runs on `min(b, multiprocessors, ⌈m / 16⌉)`
/// blocks of `⌈m / blocks⌉` rows each; `None` (or `Some(0)`) restores the built-in rule, 48
/// blocks or one per multiprocessor where there are fewer (at least 16 rows each, and more
/// blocks where a block's rows would not fit its shared memory). A forced count whose rows per
/// block do not fit a block's shared memory, or whose blocks cannot all be resident at once,
/// is factored column by column instead. Every count that launches gives the same
/// pivots and factors (each element sees the same operations in the same order). For tuning
/// sweeps (`gpu-bench --only panel-tune`); see also [`panel_launch_blocks`].
///
/// ```
/// dense_inverse::set_panel_blocks(Some(32));
/// dense_inverse::set_panel_blocks(None);
/// ```
#[doc(hidden)]
pub fn set_panel_blocks(blocks: Option<usize>) {
    PANEL_BLOCKS.store(blocks.unwrap_or(0), Ordering::Relaxed);
}

/// Whether the built-in rule may factor a panel in one thread block cluster
/// ([`set_panel_cluster`]).
static PANEL_CLUSTER: AtomicBool = AtomicBool::new(true);

/// Sets, for the whole process, whether an LU panel on a GPU with thread block clusters
/// (compute capability 9.0 or later) may be factored in one cluster of up to 16 blocks, its
/// blocks exchanging each column's pivot candidates through distributed shared memory
/// (`true`, the default, where the panel's rows fit the cluster's shared memory), or always
/// by the cooperative launch (`false`). Either gives the same pivots and factors. A block
/// count forced by [`set_panel_blocks`] always takes the cooperative launch. For tuning
/// comparisons (`gpu-bench --only panel-tune`).
///
/// ```
/// dense_inverse::set_panel_cluster(false);
/// dense_inverse::set_panel_cluster(true);
/// ```
#[doc(hidden)]
pub fn set_panel_cluster(on: bool) {
    PANEL_CLUSTER.store(on, Ordering::Relaxed);
}

/// Sets, for the whole process, the threads per block (256 or 512) of the cluster panel and
/// how its blocks exchange each column's items ([`PanelSync`]; the default is 512 threads and
/// [`PanelSync::Push`]); for tuning sweeps (`gpu-bench --only panel-tune`). Every variant gives
/// the same pivots and factors.
///
/// ```
/// use dense_inverse::PanelSync;
/// dense_inverse::set_panel_cluster_variant(512, PanelSync::Light);
/// dense_inverse::set_panel_cluster_variant(512, PanelSync::Push);
/// ```
#[doc(hidden)]
pub fn set_panel_cluster_variant(threads: u32, sync: PanelSync) {
    k::set_cluster_variant(threads, sync);
}

/// The block count [`set_panel_blocks`] forced, if any.
fn panel_blocks() -> Option<usize> {
    match PANEL_BLOCKS.load(Ordering::Relaxed) {
        0 => None,
        b => Some(b),
    }
}

/// The number of blocks of the cooperative launch that factors the first panel (`n` rows,
/// `min(n, 64)` columns) of an `n × n` LU factorization of `T` on `dev`, with the block count
/// `request` (as [`set_panel_blocks`] takes it; `None`: the built-in rule), or `None` where
/// that panel is factored column by column instead (not a CUDA device, no cooperative launch,
/// too little shared memory for its rows per block, or blocks that cannot all be resident).
/// The later panels are shorter: they never need more blocks, nor more rows per block than
/// the first panel or 16, so where the first launches, all do. Launches nothing; for tuning
/// sweeps.
///
/// ```
/// # use gpu_blas::Device;
/// assert_eq!(dense_inverse::panel_launch_blocks::<f64>(&Device::cpu(), 8000, None)?, None);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
#[doc(hidden)]
pub fn panel_launch_blocks<T: Scalar>(
    dev: &Device,
    n: usize,
    request: Option<usize>,
) -> Result<Option<usize>> {
    if gpu_blas::interop::cuda_context(dev).is_none() {
        return Ok(None);
    }
    k::panel_launch_blocks::<T>("panel_launch_blocks", dev, (n, NB.min(n)), request)
}

/// LU with partial pivoting of the panel `a(kk..n, kk..kk + kb)` (pivots into
/// `ipiv[kk..kk + kb]`, the first zero pivot into `info`): when `scratch` is there, one
/// `getrf_panel_cl` cluster launch where the device has clusters, no block count is forced and
/// the panel's rows fit the cluster ([`set_panel_cluster`]), else one cooperative
/// `getrf_panel` launch (on the blocks [`set_panel_blocks`] asks for, by default 48 or one per
/// multiprocessor where there are fewer) where the panel fits; otherwise `getrf_pivot` and
/// `getrf_update` per column. All give the same pivots and factors.
#[allow(clippy::too_many_arguments)]
pub(crate) fn factor_panel<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, kb): (usize, usize),
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    scratch: Option<&k::PanelScratch<T>>,
) -> Result<()> {
    if let Some(sc) = scratch {
        let request = panel_blocks();
        if request.is_none()
            && PANEL_CLUSTER.load(Ordering::Relaxed)
            && k::getrf_panel_cluster(op, dev, a, kk, kb, ipiv, info)?.is_some()
        {
            return Ok(());
        }
        if k::getrf_panel(op, dev, a, kk, kb, ipiv, info, sc, request)?.is_some() {
            return Ok(());
        }
    }
    for j in kk..kk + kb {
        k::getrf_pivot(op, dev, a, j, kk, kb, ipiv, info)?;
        k::getrf_update(op, dev, a, j, kk + kb)?;
    }
    Ok(())
}

/// Right-hand sides below this count are permuted through a gathered copy (`permute_rows`,
/// parallel over all elements); above, in place by `laswp_rows` (a thread per column).
const PERMUTE_MAX: usize = 64;

/// The composite row permutation of LAPACK interchanges: `(P^T·B)[i] = B[perm[i]]`.
fn composite(piv: &[i32]) -> Vec<i32> {
    let mut perm: Vec<i32> = (0..piv.len() as i32).collect();
    for (j, &p) in piv.iter().enumerate() {
        perm.swap(j, p as usize - 1);
    }
    perm
}

/// Solves `op(A)·X = B` (LAPACK `getrs`) from factors `lu` (`n × n`), pivots (`ipiv` on the
/// device, `piv` the same on the host, validated in `1..=n`) and the compact `n × nrhs`
/// right-hand sides `b`; returns the matrix holding `X` (`b` itself or a permuted copy).
pub(crate) fn getrs<T: Scalar>(
    op: &'static str,
    trans: Trans,
    lu: Dense<T>,
    ipiv: &DeviceVec<i32>,
    piv: &[i32],
    mut b: DeviceMatrix<T>,
) -> Result<DeviceMatrix<T>> {
    let dev = b.device().clone();
    let (n, nrhs) = (lu.rows, b.cols());
    assert!(b.rows() == n && piv.len() == n);
    if n == 0 || nrhs == 0 {
        return Ok(b);
    }
    let small = nrhs < PERMUTE_MAX;
    let perm = if small {
        Some(DeviceVec::from_vec(&dev, composite(piv))?)
    } else {
        None
    };
    let solve = |x: Dense<T>| -> Result<()> {
        let (l, u) = (lu, lu);
        match trans {
            Trans::N => {
                cb::trsm_rec(op, &dev, LEFT, LOWER, UNIT, (n, nrhs), T::one(), l, x)?;
                cb::trsm_rec(op, &dev, LEFT, UPPER, NON_UNIT, (n, nrhs), T::one(), u, x)
            }
            Trans::T | Trans::C => {
                let t = if trans == Trans::T {
                    cb::op_t()
                } else {
                    cb::op_c::<T>()
                };
                cb::trsm_rec_left_t(op, &dev, UPPER, t, NON_UNIT, (n, nrhs), T::one(), u, x)?;
                cb::trsm_rec_left_t(op, &dev, LOWER, t, UNIT, (n, nrhs), T::one(), l, x)
            }
        }
    };
    let bd = Dense::of(op, &b)?;
    match (trans, &perm) {
        (Trans::N, Some(p)) => {
            let x = DeviceMatrix::zeros(&dev, n, nrhs)?;
            let xd = Dense::of(op, &x)?;
            k::permute_rows(op, &dev, bd, xd, p, false)?;
            solve(xd)?;
            Ok(x)
        }
        (Trans::N, None) => {
            k::laswp_rows(op, &dev, bd, (0, 0), ipiv, (0, n), false)?;
            solve(bd)?;
            Ok(b)
        }
        (_, Some(p)) => {
            solve(bd)?;
            let x = DeviceMatrix::zeros(&dev, n, nrhs)?;
            k::permute_rows(op, &dev, bd, Dense::of(op, &x)?, p, true)?;
            Ok(x)
        }
        (_, None) => {
            solve(bd)?;
            k::laswp_rows(op, &dev, bd, (0, 0), ipiv, (0, n), true)?;
            let _ = &mut b;
            Ok(b)
        }
    }
}

/// In-place inverse of the `n × n` triangular matrix `a` (non-unit diagonal; LAPACK `trtri`):
/// first every `NB × NB` diagonal block inverted, all in one launch (`trtri_diag`); then,
/// recursively from the diagonal outwards, with `a` split at `n1` (half of `n`, a multiple of
/// `NB`) into `[A11 A12; 0 A22]` (upper) and both halves already inverted,
/// `A12 ← −A11⁻¹·A12·A22⁻¹` by two in-place triangular products ([`cb::trmm_rec`], mostly
/// `gemm`); lower likewise with `A21 ← −A22⁻¹·A21·A11⁻¹`. The other triangle is not touched.
pub(crate) fn trtri<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    upper: bool,
) -> Result<()> {
    k::trtri_diag(op, dev, a, upper)?;
    trtri_combine(op, dev, a, upper)
}

/// The off-diagonal blocks of [`trtri`], its diagonal blocks of order `NB` already inverted.
fn trtri_combine<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    upper: bool,
) -> Result<()> {
    let n = a.rows;
    if n <= NB {
        return Ok(());
    }
    let n1 = (n / 2).div_ceil(NB) * NB;
    let n2 = n - n1;
    trtri_combine(op, dev, a.at(0, 0, n1, n1), upper)?;
    trtri_combine(op, dev, a.at(n1, n1, n2, n2), upper)?;
    combine_pair(op, dev, a, n1, upper)
}

/// Levels of [`trtri_zeroed`] whose halves are of this order or less run as two
/// strided-batched `gemm`s each (over all their segments at once).
const TRTRI_BATCH_HALF: usize = 512;

/// Block order of the `gemm`s that [`trtri_zeroed`] splits a larger level's segment into.
const TRTRI_CHUNK: usize = 512;

/// [`trtri`] for a triangular `a` whose other triangle is zero (it stays zero): every `NB × NB`
/// diagonal block inverted (`trtri_diag`), then bottom-up by levels, half order `h = NB, 2·NB,
/// 4·NB, …`: every aligned diagonal segment `[i·2h, min((i+1)·2h, n))` whose halves are both
/// inverted, `[X11 A12; 0 X22]` (upper), gets `A12 ← −X11·(A12·X22)` (lower:
/// `A21 ← −(X22·A21)·X11`), all by `gemm` (the zero triangle makes products with a full
/// diagonal block exact). The segments of a level lie `2h·(ld + 1)` elements apart, so for
/// `h ≤ TRTRI_BATCH_HALF` the level is two strided-batched `gemm`s over all its full segments
/// (plus two for a shorter last one). A larger segment goes by `TRTRI_CHUNK` columns of `A12`
/// from the right (lower: rows of `A21` from the bottom), each `T = A12·X22` over the rows of
/// `X22` that are not zero, then `A12 ← −X11·T` by row blocks of `X11` from their diagonal
/// on: the flops of two triangular products plus a few percent. Workspace: `n·h/2 + h²`
/// elements for the batched levels, `n/2 × TRTRI_CHUNK` for the rest. [`trtri`] instead makes
/// two cuBLAS `trmm` calls per segment of every level, hundreds of small calls for `n` in the
/// thousands, and its in-place `trmm` runs well under `gemm`'s rate; it is the fallback if the
/// workspace cannot be had. The same inverse as [`trtri`] to rounding.
pub(crate) fn trtri_zeroed<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    upper: bool,
) -> Result<()> {
    let n = a.rows;
    if n <= NB {
        return k::trtri_diag(op, dev, a, upper);
    }
    let hb = TRTRI_BATCH_HALF.min(n.next_power_of_two() / 2);
    let len = (hb * (n / 2 + hb)).max(n.next_power_of_two() / 2 * TRTRI_CHUNK);
    let ws = match DeviceMatrix::<T>::zeros(dev, len, 1) {
        Ok(w) => w,
        Err(gpu_blas::Error::OutOfMemory { .. }) => return trtri(op, dev, a, upper),
        Err(e) => return Err(e.into()),
    };
    let w = Dense::of(op, &ws)?;
    k::trtri_diag(op, dev, a, upper)?;
    let mut h = NB;
    while h < n {
        let s = 2 * h;
        let full = n / s;
        let (o, r) = (full * s, (n - full * s).saturating_sub(h));
        if h <= TRTRI_BATCH_HALF {
            if full > 0 {
                let t = w.shaped(h, full * h, h);
                combine_level(op, dev, a, t, (h, s * (a.ld + 1), full), upper)?;
            }
            if r > 0 {
                let t = w.shaped(h.max(r), h.max(r), h.max(r));
                combine_level(op, dev, a.at(o, o, h + r, h + r), t, (h, 0, 1), upper)?;
            }
        } else {
            let segs = (0..full)
                .map(|i| (i * s, h))
                .chain((r > 0).then_some((o, r)));
            for (o, r) in segs {
                combine_chunked(op, dev, a.at(o, o, h + r, h + r), w, h, upper)?;
            }
        }
        h = s;
    }
    // The workspace is freed (stream-ordered) after the queued work that uses it.
    drop(ws);
    Ok(())
}

/// One level of [`trtri_zeroed`] by strided-batched `gemm`: `count` segments `stride`
/// elements apart, the first at the top left of `a`, each with an `X11` of order `h` and the
/// rest of the segment's order `r = min(h, a.rows − h)` (one segment when `r < h`); `t` holds
/// `count` blocks `h × r` (upper) or `r × h` side by side.
fn combine_level<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    t: Dense<T>,
    (h, stride, count): (usize, usize, usize),
    upper: bool,
) -> Result<()> {
    let r = h.min(a.rows - h);
    let (x11, x22) = (a.at(0, 0, h, h), a.at(h, h, r, r));
    let (one, zero) = (T::one(), T::zero());
    let (off, tt) = if upper {
        (a.at(0, h, h, r), t.at(0, 0, h, r))
    } else {
        (a.at(h, 0, r, h), t.at(0, 0, r, h))
    };
    let ts = tt.cols * t.ld;
    let (dims1, dims2) = if upper {
        ((h, r, r), (h, r, h))
    } else {
        ((r, h, r), (r, h, h))
    };
    let (p, q) = if upper {
        ((off, stride), (x22, stride))
    } else {
        ((x22, stride), (off, stride))
    };
    cb::gemm_batched(op, dev, dims1, one, p, q, zero, (tt, ts), count)?;
    let (p, q) = if upper {
        ((x11, stride), (tt, ts))
    } else {
        ((tt, ts), (x11, stride))
    };
    cb::gemm_batched(op, dev, dims2, -one, p, q, zero, (off, stride), count)
}

/// One segment of [`trtri_zeroed`] above the batched levels (`X11` of order `h`, `X22` of
/// order `r = a.rows − h`) by chunks of `TRTRI_CHUNK`; `w` is the workspace, at least
/// `h × TRTRI_CHUNK`.
fn combine_chunked<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    w: Dense<T>,
    h: usize,
    upper: bool,
) -> Result<()> {
    let r = a.rows - h;
    let (x11, x22) = (a.at(0, 0, h, h), a.at(h, h, r, r));
    let (one, zero) = (T::one(), T::zero());
    let c = TRTRI_CHUNK;
    let mm =
        |dims, alpha, p, q, beta, out| cb::gemm(op, dev, OP_N, OP_N, dims, alpha, p, q, beta, out);
    // Chunks [c0, c1) of the columns of A12 (upper) or rows of A21 (lower), last one first:
    // a chunk's first product reads A12 or A21 only before c1, which is not yet written.
    let mut c1 = r;
    while c1 > 0 {
        let c0 = (c1 - 1) / c * c;
        let cw = c1 - c0;
        if upper {
            let a12 = a.at(0, h, h, r);
            let t = w.shaped(h, cw, h);
            mm(
                (h, cw, c1),
                one,
                a12.at(0, 0, h, c1),
                x22.at(0, c0, c1, cw),
                zero,
                t,
            )?;
            for i0 in (0..h).step_by(c) {
                let ib = c.min(h - i0);
                let out = a12.at(i0, c0, ib, cw);
                mm(
                    (ib, cw, h - i0),
                    -one,
                    x11.at(i0, i0, ib, h - i0),
                    t.at(i0, 0, h - i0, cw),
                    zero,
                    out,
                )?;
            }
        } else {
            let a21 = a.at(h, 0, r, h);
            let t = w.shaped(cw, h, cw);
            mm(
                (cw, h, c1),
                one,
                x22.at(c0, 0, cw, c1),
                a21.at(0, 0, c1, h),
                zero,
                t,
            )?;
            for j0 in (0..h).step_by(c) {
                let jb = c.min(h - j0);
                let out = a21.at(c0, j0, cw, jb);
                mm(
                    (cw, jb, h - j0),
                    -one,
                    t.at(0, j0, cw, h - j0),
                    x11.at(j0, j0, h - j0, jb),
                    zero,
                    out,
                )?;
            }
        }
        c1 = c0;
    }
    Ok(())
}

/// `A12 ← −X11·A12·X22` (upper; lower: `A21 ← −X22·A21·X11`) on the square `a` split at `n1`,
/// both diagonal blocks already inverted: two in-place [`cb::trmm_rec`] products.
fn combine_pair<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    n1: usize,
    upper: bool,
) -> Result<()> {
    let n2 = a.rows - n1;
    let (x11, x22) = (a.at(0, 0, n1, n1), a.at(n1, n1, n2, n2));
    let one = T::one();
    let leaf = cb::TRSM_LEAF;
    let mul = |side, uplo, shape, alpha, t, x| {
        cb::trmm_rec(op, dev, (side, uplo, NON_UNIT), shape, alpha, t, x, leaf)
    };
    if upper {
        let a12 = a.at(0, n1, n1, n2);
        mul(RIGHT, UPPER, (n1, n2), one, x22, a12)?;
        mul(LEFT, UPPER, (n1, n2), -one, x11, a12)
    } else {
        let a21 = a.at(n1, 0, n2, n1);
        mul(LEFT, LOWER, (n2, n1), one, x22, a21)?;
        mul(RIGHT, LOWER, (n2, n1), -one, x11, a21)
    }
}

/// Column block of the second half of [`getri`] (wide, so its `gemm` has enough output tiles
/// to fill the GPU; the `trsm` with the block's `GETRI_NB × GETRI_NB` triangle is cuBLAS's).
const GETRI_NB: usize = 256;

/// `A⁻¹` in place from the LU factors in `a` (no zero pivot; LAPACK `getri`): `U ← U⁻¹`
/// ([`trtri`]), then `X·L = U⁻¹` by `GETRI_NB`-column blocks from the right (the block's part
/// of `L` saved to an `n × GETRI_NB` workspace and zeroed, cuBLAS `gemm` with the columns to
/// its right, `trsm` with the block's unit lower triangle), then the columns interchanged back
/// (`swap_cols`). Extra memory: the `n × GETRI_NB` workspace.
pub(crate) fn getri<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
) -> Result<()> {
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    trtri(op, dev, a, true)?;
    let w = DeviceMatrix::<T>::zeros(dev, n, GETRI_NB.min(n))?;
    let wd = Dense::of(op, &w)?;
    let mut j = ((n - 1) / GETRI_NB) * GETRI_NB;
    loop {
        let jb = GETRI_NB.min(n - j);
        k::getri_save_l(op, dev, a, (j, jb), wd)?;
        if j + jb < n {
            let m = n - j - jb;
            cb::gemm(
                op,
                dev,
                OP_N,
                OP_N,
                (n, jb, m),
                -T::one(),
                a.at(0, j + jb, n, m),
                wd.at(j + jb, 0, m, jb),
                T::one(),
                a.at(0, j, n, jb),
            )?;
        }
        cb::trsm(
            op,
            dev,
            RIGHT,
            LOWER,
            OP_N,
            UNIT,
            (n, jb),
            T::one(),
            wd.at(j, 0, jb, jb),
            a.at(0, j, n, jb),
        )?;
        if j == 0 {
            break;
        }
        j -= GETRI_NB;
    }
    k::swap_cols(op, dev, a, ipiv)?;
    // The workspace is freed (stream-ordered) after the queued work that uses it.
    drop(w);
    Ok(())
}

/// `A⁻¹` into `x` from the LU factors `f` and `x = U⁻¹` formed by [`getrf_uinv`] (zeros below
/// the diagonal): `X·L = U⁻¹` by the recursive triangular solve, then the column interchanges.
pub(crate) fn getri_from_uinv<T: Scalar>(
    op: &'static str,
    dev: &Device,
    f: Dense<T>,
    x: Dense<T>,
    ipiv: &DeviceVec<i32>,
) -> Result<()> {
    let n = f.rows;
    assert!(f.cols == n && x.rows == n && x.cols == n);
    if n == 0 {
        return Ok(());
    }
    solve_right_unit_lower(op, dev, f, x)?;
    k::swap_cols(op, dev, x, ipiv)
}

/// Rows of `X` from which [`solve_right_unit_lower`] solves the leaves by their inverses.
const WIDE_LEAF_ROWS: usize = 2048;

/// `X ← X·L⁻¹` for the unit lower triangle `L` of `f` (`n × n`) and `x` (`m × n`): the
/// recursion of [`cb::trsm_rec`], whose leaves (triangles of order ≤ 512), where `X` has at
/// least [`WIDE_LEAF_ROWS`] rows, are solved as `X_leaf ← X_leaf·L_leaf⁻¹`: the leaf's triangle
/// copied with zeros above and ones on its diagonal (exactly), inverted by [`trtri_zeroed`],
/// and one `gemm` from a copy of `X_leaf`. cuBLAS `trsm` solves such a leaf (8000 rows, order
/// 512) at about 9 TFLOP/s on an H100, the `gemm` at over 50 with twice the flops.
fn solve_right_unit_lower<T: Scalar>(
    op: &'static str,
    dev: &Device,
    f: Dense<T>,
    x: Dense<T>,
) -> Result<()> {
    let (m, n) = (x.rows, x.cols);
    if m < WIDE_LEAF_ROWS || n <= cb::TRSM_LEAF {
        return cb::trsm_rec(op, dev, RIGHT, LOWER, UNIT, (m, n), T::one(), f, x);
    }
    let l = cb::TRSM_LEAF;
    let inv = DeviceMatrix::<T>::zeros(dev, l, l)?;
    let tmp = DeviceMatrix::<T>::zeros(dev, m, l)?;
    let ones = DeviceVec::from_vec(dev, vec![T::one(); l])?;
    let (w, t) = (Dense::of(op, &inv)?, Dense::of(op, &tmp)?);
    let one_ptr = gpu_blas::interop::vec_ptr(&ones).ok_or_else(|| super::not_cuda(op))?;
    let leaf = |alpha: T, a: Dense<T>, b: Dense<T>| -> Result<()> {
        let k = a.rows;
        let wk = w.at(0, 0, k, k);
        k::copy_dense(op, dev, a, wk)?;
        k::zero_tri(op, dev, wk, false)?;
        cb::copy_strided::<T>(op, dev, k, (one_ptr, 1), (wk.ptr, wk.ld + 1))?;
        trtri_zeroed(op, dev, wk, false)?;
        let tk = t.at(0, 0, b.rows, k);
        k::copy_dense(op, dev, b, tk)?;
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (b.rows, k, k),
            alpha,
            tk,
            wk,
            T::zero(),
            b,
        )
    };
    cb::trsm_rec_with(op, dev, (RIGHT, LOWER), (m, n), T::one(), f, x, &leaf)?;
    // The workspaces are freed (stream-ordered) after the queued work that uses them.
    drop((inv, tmp, ones));
    Ok(())
}

/// `X ← A⁻¹` from the LU factors in `f` (no zero pivot) into the separate `n × n` matrix `x`,
/// which holds a copy of `f` on entry (LAPACK `getri` with room for `L` and the result at
/// once): `X ← U` (strict lower triangle zeroed), `X ← U⁻¹` ([`trtri_zeroed`]), `X ← X·L⁻¹` (one
/// triangular solve with the unit lower factor read from `f`, [`cb::trsm_rec`]), then the
/// columns interchanged back (`swap_cols`), so `X = U⁻¹·L⁻¹·P = A⁻¹`. The same `4n³/3` flops
/// as [`getri`] (up to `n³/3` of multiplications by the zeros below `U⁻¹`), but in a few large
/// products instead of a `GETRI_NB`-column loop; `f` is not written.
pub(crate) fn getri_into<T: Scalar>(
    op: &'static str,
    dev: &Device,
    f: Dense<T>,
    x: Dense<T>,
    ipiv: &DeviceVec<i32>,
) -> Result<()> {
    if x.rows > 0 {
        k::zero_tri(op, dev, x, true)?;
        trtri_zeroed(op, dev, x, true)?;
    }
    getri_from_uinv(op, dev, f, x, ipiv)
}

#[cfg(test)]
mod tests {
    //! The cooperative panel kernel (`getrf_panel`, on the built-in grid and on forced block
    //! counts) against the per-column kernels (`getrf_pivot` + `getrf_update`) on the same
    //! panels, on CUDA only (skipped without a GPU): the same `info`, and the same pivots and
    //! factors bit for bit (both do the same operations in the same order, so any difference
    //! is a bug in the staging, interchanges or barriers), except for complex random data,
    //! whose products the two kernels' machine code may round differently (a contracted
    //! multiply-add), which can turn a near-tie into another pivot; for every input
    //! `P·A = L·U` on the panel within rounding, `|l| ≤ 1` (`√2` for complex: the pivot is
    //! largest in `|re| + |im|`), and nothing written outside the panel.
    use super::*;
    use gpu_blas::testing::{cuda_test_device, random_values, under_sanitizer};
    use ndarray::Array2;
    use num_complex::Complex64 as C64;

    const OP: &str = "getrf_panel test";

    /// `(n, kk, kb)`: panel `a(kk..n, kk..kk + kb)` of an `n × (kk + kb)` matrix. Some grids
    /// have one block (fewer than 16 rows), some end in blocks without rows (n = 2200 on 132
    /// multiprocessors: 17 rows per block), some need over 48 KiB of shared memory per block.
    const CASES: &[(usize, usize, usize)] = &[
        (1, 0, 1),
        (2, 0, 2),
        (15, 0, 15),
        (40, 0, 40),
        (64, 0, 64),
        (100, 36, 64),
        (300, 64, 17),
        (1000, 0, 64),
        (2200, 0, 64),
        (2200, 128, 64),
        (8000, 0, 64),
        (20000, 64, 64),
    ];

    /// Panels for the forced block counts ([`FORCED`]): every count runs exactly on some of
    /// them (a block of 150 × 40 fits one block's shared memory in every type), the grid of 32
    /// blocks on 513 rows ends in a block with 3 rows and one without, and the tallest need
    /// more than 48 KiB per block or do not fit at all (then the launch must decline).
    const TALL: &[(usize, usize, usize)] = &[
        (150, 0, 40),
        (600, 87, 64),
        (1000, 36, 24),
        (3000, 64, 64),
        (12000, 0, 64),
    ];

    /// Block counts asked of the panel launch (`None`: the built-in rule).
    const FORCED: &[Option<usize>] = &[Some(1), Some(2), Some(7), Some(32), None];

    /// The factored matrix, `ipiv[kk..kk + kb]` and `info`.
    type Factored<T> = (Array2<T>, Vec<i32>, i32);

    /// How a panel is factored.
    #[derive(Clone, Copy)]
    enum How {
        /// One `getrf_panel` launch with this block count (`None`: the built-in rule).
        Panel(Option<usize>),
        /// `getrf_pivot` and `getrf_update` per column.
        Columns,
        /// One cluster panel launch.
        Cluster,
        /// `factor_block` on the panel's columns (split where [`panel_width`] says so).
        Block,
    }

    /// The panel factored as `how` says, and the blocks `getrf_panel` launched (`None`: it
    /// declined and nothing was written; always `None` for the per-column kernels).
    fn factor<T: Scalar>(
        dev: &Device,
        (n, kk, kb): (usize, usize, usize),
        a: &[T],
        how: How,
    ) -> (Factored<T>, Option<usize>) {
        let m = DeviceMatrix::from_col_major(dev, n, kk + kb, n, a.to_vec()).unwrap();
        let d = Dense::of(OP, &m).unwrap();
        let ipiv = DeviceVec::<i32>::zeros(dev, n).unwrap();
        let info = DeviceVec::<i32>::zeros(dev, 1).unwrap();
        let launched = match how {
            How::Panel(request) => {
                let sc = k::PanelScratch::<T>::new(OP, dev, kb)
                    .unwrap()
                    .expect("the device launches cooperative grids");
                k::getrf_panel(OP, dev, d, kk, kb, &ipiv, &info, &sc, request).unwrap()
            }
            How::Columns => {
                factor_panel(OP, dev, d, (kk, kb), &ipiv, &info, None).unwrap();
                None
            }
            How::Cluster => k::getrf_panel_cluster(OP, dev, d, kk, kb, &ipiv, &info).unwrap(),
            How::Block => {
                let sc = k::PanelScratch::<T>::new(OP, dev, NB).unwrap();
                factor_block(
                    OP,
                    dev,
                    d,
                    (kk, kk + kb),
                    &ipiv,
                    &info,
                    sc.as_ref(),
                    &mut None,
                )
                .unwrap();
                None
            }
        };
        let piv = ipiv.to_vec().unwrap()[kk..kk + kb].to_vec();
        let f = (m.to_array().unwrap(), piv, info.to_vec().unwrap()[0]);
        (f, launched)
    }

    /// Small integers (−2..=2, many ties in |re| + |im|), every fifth row from 10 on a copy of
    /// the row 7 above it (ties in every column), and the panel's fourth column zero (a zero
    /// pivot there, `info = kk + 4`) when the panel has one.
    fn ties<T: Scalar>((n, kk, kb): (usize, usize, usize), seed: u64) -> Vec<T> {
        let mut a: Vec<T> = random_values::<f64>(n * (kk + kb), seed)
            .iter()
            .map(|v| T::from_f64((v * 2.49).round()))
            .collect();
        for c in 0..kk + kb {
            for i in (10..n).step_by(5) {
                a[c * n + i] = a[c * n + i - 7];
            }
        }
        if kb > 3 {
            let c = kk + 3;
            a[c * n..(c + 1) * n].fill(T::zero());
        }
        a
    }

    /// `P·A = L·U` on the panel within `64·kb·ε·max|A|`, `|l| ≤ 1` (`√2` for complex) up to
    /// rounding; outside the panel unchanged.
    fn assert_factored<T: Scalar>(
        (n, kk, kb): (usize, usize, usize),
        a: &[T],
        (f, piv, _): &Factored<T>,
    ) {
        let m = n - kk;
        let cols = kk + kb;
        for j in 0..cols {
            for i in 0..n {
                if i < kk || j < kk {
                    assert!(
                        f[(i, j)] == a[j * n + i],
                        "({i}, {j}) outside the panel written"
                    );
                }
            }
        }
        // Rows of the panel, original values, interchanged as recorded.
        let mut pa: Vec<C64> = vec![C64::new(0.0, 0.0); m * kb];
        for c in 0..kb {
            for r in 0..m {
                pa[c * m + r] = a[(kk + c) * n + kk + r].to_c64();
            }
        }
        for (c, &p) in piv.iter().enumerate() {
            let p = p as usize - 1;
            assert!(
                p >= kk + c && p < n,
                "ipiv[{}] = {} out of range",
                kk + c,
                p + 1
            );
            for cc in 0..kb {
                pa.swap(cc * m + c, cc * m + p - kk);
            }
        }
        let amax = a.iter().map(|v| v.to_c64().norm()).fold(0.0, f64::max);
        let eps = T::epsilon().to_c64().re;
        let tol = 64.0 * kb as f64 * eps * amax;
        let lmax = if T::IS_COMPLEX { 2f64.sqrt() } else { 1.0 } * (1.0 + 4.0 * eps);
        for c in 0..kb {
            for r in c + 1..m {
                let l = f[(kk + r, kk + c)].to_c64().norm();
                assert!(
                    l <= lmax,
                    "{} n = {n}: |l({r}, {c})| = {l} > {lmax}",
                    T::PREFIX
                );
            }
        }
        for c in 0..kb {
            for r in 0..m {
                let mut s = C64::new(0.0, 0.0);
                for t in 0..=c.min(r) {
                    let l = if t == r {
                        C64::new(1.0, 0.0)
                    } else {
                        f[(kk + r, kk + t)].to_c64()
                    };
                    s += l * f[(kk + t, kk + c)].to_c64();
                }
                let d = (s - pa[c * m + r]).norm();
                assert!(
                    d <= tol,
                    "{} n = {n}, panel ({kk}, {kb}): |(P·A − L·U)({r}, {c})| = {d:e} > {tol:e}",
                    T::PREFIX
                );
            }
        }
    }

    /// Every case factored by `getrf_panel` with each block count of `requests` and by the
    /// per-column kernels: the launch uses the blocks the host's rule gives (or declines
    /// exactly where `panel_launch_blocks` says it would; the built-in rule must launch), and
    /// what it factors is checked as the module says. Returns `(request, blocks)` of each run.
    fn panel_vs_columns<T: Scalar>(
        dev: &Device,
        cases: &[(usize, usize, usize)],
        requests: &[Option<usize>],
    ) -> Vec<(Option<usize>, usize)> {
        let sms = k::cooperative_sms(OP, dev)
            .unwrap()
            .expect("the device launches cooperative grids");
        let mut ran = Vec::new();
        for &case in cases {
            let (n, kk, kb) = case;
            if under_sanitizer() && n > 1000 {
                continue;
            }
            let m = n - kk;
            let inputs = [
                random_values::<T>(n * (kk + kb), n as u64 + 11),
                ties::<T>(case, n as u64 + 12),
            ];
            for (x, a) in inputs.iter().enumerate() {
                let (want, _) = factor(dev, case, a, How::Columns);
                for &request in requests {
                    let what = format!(
                        "{} n = {n}, panel ({kk}, {kb}), blocks {request:?}, input {x}",
                        T::PREFIX
                    );
                    let expect = k::panel_launch_blocks::<T>(OP, dev, (m, kb), request).unwrap();
                    let (got, launched) = factor(dev, case, a, How::Panel(request));
                    assert_eq!(launched, expect, "{what}: blocks launched");
                    let Some(blocks) = launched else {
                        assert!(request.is_some(), "{what}: the built-in grid declined");
                        assert!(
                            got.0.t().iter().zip(a).all(|(g, w)| g == w),
                            "{what}: written"
                        );
                        continue;
                    };
                    let cap = request.unwrap_or(k::PANEL_MAX_BLOCKS).clamp(1, sms);
                    let rule = cap.min(m.div_ceil(k::PANEL_MIN_ROWS)).max(1);
                    // The default grows past PANEL_MAX_BLOCKS only where a block's rows
                    // would not fit its shared memory (well above 96 KiB on every GPU with
                    // cooperative launches that these tests meet).
                    let rows_bytes = (m.div_ceil(rule) + 1) * kb * std::mem::size_of::<T>();
                    if request.is_some() || rows_bytes <= 96 * 1024 {
                        assert_eq!(blocks, rule, "{what}: grid");
                    } else {
                        assert!((rule..=sms).contains(&blocks), "{what}: grid {blocks}");
                    }
                    ran.push((request, blocks));
                    assert_like_columns(&what, case, a, x, &got, &want);
                }
            }
        }
        ran
    }

    /// A panel factored by one launch (`got`) against the per-column kernels (`want`) on input
    /// number `x` of a case: a valid factorization, the same `info`, and the same pivots and
    /// factors bit for bit where the data round alike (real data; for complex, the
    /// real-valued input 1, the small integers).
    fn assert_like_columns<T: Scalar>(
        what: &str,
        case: (usize, usize, usize),
        a: &[T],
        x: usize,
        got: &Factored<T>,
        want: &Factored<T>,
    ) {
        assert_factored(case, a, got);
        assert_eq!(got.2, want.2, "{what}: info");
        if !T::IS_COMPLEX || x == 1 {
            assert_eq!(got.1, want.1, "{what}: pivots");
            assert!(got.0 == want.0, "{what}: factors differ");
        }
    }

    /// `‖P·A − L·U‖∞ ≤ c·n·ε·‖A‖∞` for the whole factorization, `|l| ≤ 1` (`√2` complex).
    fn assert_lu<T: Scalar>(what: &str, n: usize, a: &[T], f: &[T], piv: &[i32]) {
        let mut pa: Vec<C64> = a.iter().map(|v| v.to_c64()).collect();
        for (j, &p) in piv.iter().enumerate() {
            let p = p as usize - 1;
            assert!(p >= j && p < n, "{what}: ipiv[{j}] = {}", p + 1);
            for c in 0..n {
                pa.swap(c * n + j, c * n + p);
            }
        }
        let eps = T::epsilon().to_c64().re;
        let lmax = if T::IS_COMPLEX { 2f64.sqrt() } else { 1.0 } * (1.0 + 4.0 * eps);
        let mut worst = 0.0f64;
        for i in 0..n {
            let mut row = 0.0;
            for j in 0..n {
                let mut s = C64::new(0.0, 0.0);
                for k in 0..=i.min(j) {
                    let l = if k == i {
                        C64::new(1.0, 0.0)
                    } else {
                        f[k * n + i].to_c64()
                    };
                    if k < i {
                        assert!(l.norm() <= lmax, "{what}: |l({i}, {k})| = {}", l.norm());
                    }
                    s += l * f[j * n + k].to_c64();
                }
                row += (pa[j * n + i] - s).norm();
            }
            worst = worst.max(row);
        }
        let anorm = (0..n)
            .map(|i| (0..n).map(|j| a[j * n + i].to_c64().norm()).sum::<f64>())
            .fold(0.0, f64::max);
        let tol = 16.0 * n as f64 * eps * anorm;
        assert!(worst <= tol, "{what}: ‖PA − LU‖ = {worst:e} > {tol:e}");
    }

    /// The two-level factorization (block columns of 128, 192, 256 and 512 around the 64-column
    /// panels), in order and with the lookahead on the priority stream, against one level: a
    /// valid LU of the same matrix, the same `info` (0, or 251 where column 250 of a 400 × 400
    /// matrix is zero).
    fn two_level<T: Scalar>(dev: &Device) {
        let pri = gpu_blas::interop::cuda_priority_stream(dev)
            .unwrap()
            .unwrap();
        for (n, zero_col) in [
            (1usize, None),
            (63, None),
            (130, None),
            (300, None),
            (517, None),
            (400, Some(250)),
        ] {
            let mut a = random_values::<T>(n * n, 40 + n as u64);
            if let Some(c) = zero_col {
                a[c * n..(c + 1) * n].fill(T::zero());
            }
            let mut one_level = None;
            let runs = std::iter::once((NB, false)).chain(
                [128, 192, 256, 512]
                    .into_iter()
                    .flat_map(|o| [(o, false), (o, true)]),
            );
            for (outer, look) in runs {
                let m = DeviceMatrix::from_col_major(dev, n, n, n, a.clone()).unwrap();
                let d = Dense::of(OP, &m).unwrap();
                let ipiv = DeviceVec::<i32>::zeros(dev, n).unwrap();
                let info = DeviceVec::<i32>::zeros(dev, 1).unwrap();
                if look {
                    getrf_lookahead(OP, dev, d, &ipiv, &info, outer, &pri, None).unwrap();
                } else {
                    getrf_outer(OP, dev, d, &ipiv, &info, outer, None).unwrap();
                }
                let what = format!("{} n = {n} outer = {outer} lookahead = {look}", T::PREFIX);
                let fa = m.to_array().unwrap();
                let f: Vec<T> = (0..n * n).map(|k| fa[(k % n, k / n)]).collect();
                let piv = ipiv.to_vec().unwrap();
                let info = info.to_vec().unwrap()[0];
                assert_lu(&what, n, &a, &f, &piv);
                assert_eq!(info, zero_col.map_or(0, |c| c as i32 + 1), "{what}: info");
                match &one_level {
                    None => one_level = Some(info),
                    Some(i) => assert_eq!(info, *i, "{what}: info"),
                }
            }
        }
    }

    /// `getrf_lookahead` forming `U⁻¹` on the side (outer blocks of 128 and 192, orders that
    /// end in a partial block): the factors as without it, `X·U = I` within rounding with
    /// exact zeros below the diagonal, and `getri_from_uinv` then gives `X·A = I`.
    fn lookahead_u_inverse<T: Scalar>(dev: &Device) {
        let pri = gpu_blas::interop::cuda_priority_stream(dev)
            .unwrap()
            .unwrap();
        for (n, outer) in [(300usize, 128usize), (517, 192), (640, 128)] {
            let what = format!("{} n = {n} outer = {outer}", T::PREFIX);
            let a = random_values::<T>(n * n, 70 + n as u64);
            let m = DeviceMatrix::from_col_major(dev, n, n, n, a.clone()).unwrap();
            let x = DeviceMatrix::<T>::zeros(dev, n, n).unwrap();
            let ws = DeviceMatrix::<T>::zeros(dev, n, outer).unwrap();
            let (d, xd, w) = (
                Dense::of(OP, &m).unwrap(),
                Dense::of(OP, &x).unwrap(),
                Dense::of(OP, &ws).unwrap(),
            );
            let ipiv = DeviceVec::<i32>::zeros(dev, n).unwrap();
            let info = DeviceVec::<i32>::zeros(dev, 1).unwrap();
            getrf_lookahead(OP, dev, d, &ipiv, &info, outer, &pri, Some((xd, w))).unwrap();
            assert_eq!(info.to_vec().unwrap()[0], 0, "{what}: info");
            let fa = m.to_array().unwrap();
            let f: Vec<T> = (0..n * n).map(|k| fa[(k % n, k / n)]).collect();
            assert_lu(&what, n, &a, &f, &ipiv.to_vec().unwrap());
            let xa = x.to_array().unwrap();
            let unorm = (0..n)
                .flat_map(|j| (0..=j).map(move |i| (i, j)))
                .fold(0f64, |s, ij| s.max(fa[ij].to_c64().norm()));
            let xnorm = xa.iter().fold(0f64, |s, v| s.max(v.to_c64().norm()));
            let eps = T::epsilon().to_c64().re;
            // Entrywise |X·U − I| ≤ c·n·eps·(|X|·|U|), each entry of |X|·|U| at most n·max·max.
            let tol = 8.0 * (n * n) as f64 * eps * unorm * xnorm;
            for j in 0..n {
                for i in 0..n {
                    let mut s = C64::new(0.0, 0.0);
                    for t in i..=j {
                        s += xa[(i, t)].to_c64() * fa[(t, j)].to_c64();
                    }
                    let want = if i == j { 1.0 } else { 0.0 };
                    if i > j {
                        assert!(
                            xa[(i, j)] == T::zero(),
                            "{what}: X({i}, {j}) below the diagonal"
                        );
                    } else {
                        let d = (s - C64::new(want, 0.0)).norm();
                        assert!(d <= tol, "{what}: |(X·U − I)({i}, {j})| = {d:e} > {tol:e}");
                    }
                }
            }
            getri_from_uinv(OP, dev, d, xd, &ipiv).unwrap();
            let inv = x.to_array().unwrap();
            let mut worst = 0f64;
            for j in 0..n {
                for i in 0..n {
                    let mut s = C64::new(0.0, 0.0);
                    for t in 0..n {
                        s += inv[(i, t)].to_c64() * a[j * n + t].to_c64();
                    }
                    let want = if i == j { 1.0 } else { 0.0 };
                    worst = worst.max((s - C64::new(want, 0.0)).norm());
                }
            }
            let anorm = a.iter().fold(0f64, |s, v| s.max(v.to_c64().norm()));
            let inorm = inv.iter().fold(0f64, |s, v| s.max(v.to_c64().norm()));
            let tol = 64.0 * n as f64 * eps * anorm * inorm * n as f64;
            assert!(worst <= tol, "{what}: max |X·A − I| = {worst:e} > {tol:e}");
        }
    }

    /// `upper_times` by 1 to 4 slabs (orders that do not divide evenly) against the product on
    /// the host: `|C − U·B| ≤ c·m·eps·max|U|·max|B|` entrywise, every row of `C` written.
    #[test]
    fn upper_times_matches_the_full_product() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        upper_product::<f64>(&dev);
        upper_product::<num_complex::Complex32>(&dev);
    }

    fn upper_product<T: Scalar>(dev: &Device) {
        for (m, nc, slab_min) in [
            (1usize, 3usize, 1usize),
            (7, 5, 2),
            (517, 40, 100),
            (300, 64, 1000),
        ] {
            let mut u = random_values::<T>(m * m, 11 + m as u64);
            for j in 0..m {
                for i in j + 1..m {
                    u[i + j * m] = T::zero();
                }
            }
            let b = random_values::<T>(m * nc, 12 + m as u64);
            let ud = DeviceMatrix::from_col_major(dev, m, m, m, u.clone()).unwrap();
            let bd = DeviceMatrix::from_col_major(dev, m, nc, m, b.clone()).unwrap();
            let nan = vec![T::from_f64(f64::NAN); m * nc];
            let cd = DeviceMatrix::from_col_major(dev, m, nc, m, nan).unwrap();
            let d = |x: &DeviceMatrix<T>| Dense::of(OP, x).unwrap();
            upper_times(OP, dev, d(&ud), d(&bd), d(&cd), slab_min).unwrap();
            let c = cd.to_array().unwrap();
            let eps = T::epsilon().to_c64().re;
            let max = |v: &[T]| v.iter().fold(0f64, |s, x| s.max(x.to_c64().norm()));
            let tol = 4.0 * m as f64 * eps * max(&u) * max(&b);
            for j in 0..nc {
                for i in 0..m {
                    let mut want = C64::new(0.0, 0.0);
                    for t in i..m {
                        want += u[i + t * m].to_c64() * b[t + j * m].to_c64();
                    }
                    let got = c[(i, j)].to_c64();
                    assert!(
                        (got - want).norm() <= tol,
                        "{} m = {m} slab {slab_min}: C({i}, {j}) = {got} against {want}",
                        T::PREFIX
                    );
                }
            }
        }
    }

    #[test]
    fn lookahead_forms_u_inverse_and_the_inverse() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        lookahead_u_inverse::<f64>(&dev);
        lookahead_u_inverse::<num_complex::Complex64>(&dev);
    }

    /// `solve_right_unit_lower` on 2100 rows (so its leaves go by their inverses) and a triangle
    /// of order 1100 (leaves of 320 and 256 after two splits), with NaN on and above the
    /// diagonal (never to be read): the same as the cuBLAS-leaf recursion within
    /// `c·n·eps·max|X|`, and `X·L = B` on three rows within `c·n·eps·max|X|` (the strict lower
    /// part scaled by `1/n`, so `L` is well conditioned).
    #[test]
    fn wide_right_solve_by_inverted_leaves() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        wide_solve::<f64>(&dev);
        wide_solve::<num_complex::Complex32>(&dev);
    }

    fn wide_solve<T: Scalar>(dev: &Device) {
        let (m, n) = (2100usize, 1100usize);
        let mut l = random_values::<T>(n * n, 91);
        let scale = T::from_f64(1.0 / n as f64);
        for j in 0..n {
            for i in 0..n {
                let v = &mut l[i + j * n];
                *v = if i > j {
                    *v * scale
                } else {
                    T::from_f64(f64::NAN)
                };
            }
        }
        let b = random_values::<T>(m * n, 92);
        let lm = DeviceMatrix::from_col_major(dev, n, n, n, l.clone()).unwrap();
        let xa = DeviceMatrix::from_col_major(dev, m, n, m, b.clone()).unwrap();
        let xb = DeviceMatrix::from_col_major(dev, m, n, m, b.clone()).unwrap();
        let d = |x: &DeviceMatrix<T>| Dense::of(OP, x).unwrap();
        solve_right_unit_lower(OP, dev, d(&lm), d(&xa)).unwrap();
        cb::trsm_rec(
            OP,
            dev,
            RIGHT,
            LOWER,
            UNIT,
            (m, n),
            T::one(),
            d(&lm),
            d(&xb),
        )
        .unwrap();
        let (ga, gb) = (xa.to_array().unwrap(), xb.to_array().unwrap());
        let xmax = gb.iter().fold(0f64, |s, v| s.max(v.to_c64().norm()));
        let eps = T::epsilon().to_c64().re;
        let tol = 16.0 * n as f64 * eps * xmax;
        let what = T::PREFIX;
        for (p, q) in ga.iter().zip(gb.iter()) {
            let diff = (p.to_c64() - q.to_c64()).norm();
            assert!(diff <= tol, "{what}: |X − X_trsm| = {diff:e} > {tol:e}");
        }
        for &i in &[0usize, 1000, m - 1] {
            for j in 0..n {
                let mut s = ga[(i, j)].to_c64();
                for t in j + 1..n {
                    s += ga[(i, t)].to_c64() * l[t + j * n].to_c64();
                }
                let r = (s - b[i + j * m].to_c64()).norm();
                assert!(r <= tol, "{what}: (X·L − B)({i}, {j}) = {r:e} > {tol:e}");
            }
        }
    }

    #[test]
    fn getrf_two_level_factors() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        two_level::<f32>(&dev);
        two_level::<f64>(&dev);
        if under_sanitizer() {
            return;
        }
        two_level::<num_complex::Complex32>(&dev);
        two_level::<num_complex::Complex64>(&dev);
    }

    #[test]
    fn getrf_panel_matches_per_column_kernels() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        panel_vs_columns::<f32>(&dev, CASES, &[None]);
        panel_vs_columns::<f64>(&dev, CASES, &[None]);
        panel_vs_columns::<num_complex::Complex32>(&dev, CASES, &[None]);
        panel_vs_columns::<num_complex::Complex64>(&dev, CASES, &[None]);
    }

    /// The panel on 1, 2, 7 and 32 blocks and on the built-in grid: every count launches
    /// exactly on some panel of [`TALL`] in every type, with the per-column kernels' results.
    fn forced_counts<T: Scalar>(dev: &Device) {
        // Under the sanitizer only the panels up to 1000 rows run; they cover every count.
        let ran = panel_vs_columns::<T>(dev, TALL, FORCED);
        for &b in FORCED.iter().flatten() {
            assert!(
                ran.contains(&(Some(b), b)),
                "{}: no panel ran on exactly {b} blocks",
                T::PREFIX
            );
        }
    }

    /// The cluster panel on every panel of [`CASES`] and [`TALL`]: where it launches (on as
    /// many blocks as `cluster_launch_blocks` says), the per-column kernels' results bit for
    /// bit (real data); where it declines, nothing written. On a device with clusters, every
    /// panel of up to 1000 rows launches.
    fn cluster_vs_columns<T: Scalar>(dev: &Device) {
        let capable = k::cluster_capable(OP, dev).unwrap();
        for &case in CASES.iter().chain(TALL) {
            let (n, kk, kb) = case;
            if under_sanitizer() && n > 1000 {
                continue;
            }
            let m = n - kk;
            let inputs = [
                random_values::<T>(n * (kk + kb), n as u64 + 21),
                ties::<T>(case, n as u64 + 22),
            ];
            for (x, a) in inputs.iter().enumerate() {
                let what = format!(
                    "{} n = {n}, panel ({kk}, {kb}), cluster, input {x}",
                    T::PREFIX
                );
                let expect = k::cluster_launch_blocks::<T>(OP, dev, (m, kb)).unwrap();
                let (got, launched) = factor(dev, case, a, How::Cluster);
                assert_eq!(launched, expect, "{what}: blocks launched");
                if capable && m <= 1000 {
                    let want = k::CLUSTER_MAX_BLOCKS.min(m.div_ceil(k::PANEL_MIN_ROWS));
                    assert_eq!(launched, Some(want), "{what}: cluster declined");
                }
                if launched.is_none() {
                    assert!(
                        got.0.t().iter().zip(a).all(|(g, w)| g == w),
                        "{what}: written"
                    );
                    continue;
                }
                let (want, _) = factor(dev, case, a, How::Columns);
                assert_like_columns(&what, case, a, x, &got, &want);
            }
        }
    }

    /// Held by the tests that change or depend on the process-wide cluster panel variant.
    static VARIANT: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn getrf_panel_in_one_cluster_matches_per_column_kernels() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        let _variant = VARIANT.lock().unwrap_or_else(|e| e.into_inner());
        cluster_vs_columns::<f64>(&dev);
        if under_sanitizer() {
            // f64 and one other variant: each more would take minutes under racecheck.
            k::set_cluster_variant(256, PanelSync::Light);
            cluster_vs_columns::<f64>(&dev);
            k::set_cluster_variant(512, PanelSync::Push);
            return;
        }
        cluster_vs_columns::<f32>(&dev);
        cluster_vs_columns::<num_complex::Complex32>(&dev);
        cluster_vs_columns::<num_complex::Complex64>(&dev);
        // The other variants (threads, barrier) give the same results; the default is restored.
        for (threads, sync) in [
            (256, PanelSync::Release),
            (512, PanelSync::Release),
            (256, PanelSync::Light),
            (512, PanelSync::Light),
            (256, PanelSync::Push),
        ] {
            k::set_cluster_variant(threads, sync);
            cluster_vs_columns::<f64>(&dev);
            cluster_vs_columns::<num_complex::Complex32>(&dev);
        }
        k::set_cluster_variant(512, PanelSync::Push);
    }

    /// Tall 64-column panels through `factor_block`: where 64 columns of their rows do not fit
    /// the pushed cluster panel but 32 do (f64 from about 6700 rows on an H100), two 32-column
    /// panels with the interchanges, `trsm` and `gemm` between them; either way `P·A = L·U`
    /// within rounding, `|l| ≤ 1`, nothing outside the panel written, and with the split off
    /// the same checks.
    #[test]
    fn tall_panels_split_where_64_columns_do_not_fit_a_cluster() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        let _variant = VARIANT.lock().unwrap_or_else(|e| e.into_inner());
        let capable = k::cluster_capable(OP, &dev).unwrap();
        for &(n, kk) in &[(8000usize, 0usize), (7000, 100), (3000, 64)] {
            let case = (n, kk, NB);
            let m = n - kk;
            let width = panel_width::<f64>(OP, &dev, m, (NB, NB)).unwrap();
            let split = capable
                && !k::push_fits::<f64>(OP, &dev, (m, NB)).unwrap()
                && k::push_fits::<f64>(OP, &dev, (m, NB / 2)).unwrap();
            assert_eq!(
                width,
                if split { NB / 2 } else { NB },
                "n = {n}: panel width"
            );
            if capable && m <= 4000 {
                assert_eq!(width, NB, "n = {n}: 64 columns of {m} rows fit");
            }
            if capable && m >= 6900 {
                assert_eq!(width, NB / 2, "n = {n}: 64 columns of {m} rows do not fit");
            }
            let a = random_values::<f64>(n * (kk + NB), n as u64 + 5);
            for on in [true, false] {
                set_panel_split(on);
                let (f, _) = factor(&dev, case, &a, How::Block);
                set_panel_split(true);
                assert_eq!(f.2, 0, "n = {n}, split {on}: info");
                assert_factored(case, &a, &f);
            }
        }
    }

    #[test]
    fn getrf_panel_on_forced_block_counts_matches_per_column_kernels() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        forced_counts::<f64>(&dev);
        if gpu_blas::testing::under_sanitizer() {
            // The block counts once; each type again would take minutes under racecheck.
            return;
        }
        forced_counts::<f32>(&dev);
        forced_counts::<num_complex::Complex32>(&dev);
        forced_counts::<num_complex::Complex64>(&dev);
    }
}

#[cfg(test)]
mod trtri_tests {
    //! [`trtri_zeroed`] (bottom-up, batched levels) and [`trtri`] (top-down) on CUDA (skipped
    //! without a GPU), both triangles, orders that end in a shorter segment at every level and
    //! reach the levels above `TRTRI_BATCH_HALF` (1100, 2100): the residual `T·X − I` against a
    //! plain f64 loop on the host, bounded by `16·n·eps·‖T‖·‖X‖` (infinity norms); the zero
    //! triangle still zero after `trtri_zeroed`, and NaN in it left alone by `trtri`.
    use super::*;
    use gpu_blas::testing::{cuda_test_device, random_values};
    use num_complex::Complex64 as C64;

    const OP: &str = "trtri test";

    fn check<T: Scalar>(dev: &Device, n: usize, upper: bool, zeroed: bool) {
        let seed = n as u64 + 3 * upper as u64;
        let other = if zeroed {
            T::zero()
        } else {
            T::from_f64(f64::NAN)
        };
        let d = random_values::<f64>(n, seed + 1);
        let mut a: Vec<T> = random_values::<T>(n * n, seed);
        for j in 0..n {
            for i in 0..n {
                let e = &mut a[i + j * n];
                *e = if i == j {
                    T::from_f64(1.5 + 0.5 * d[i])
                } else if (i < j) == upper {
                    *e * T::from_f64(1.0 / n as f64)
                } else {
                    other
                };
            }
        }
        let ad = DeviceMatrix::from_col_major(dev, n, n, n, a.clone()).unwrap();
        let da = Dense::of(OP, &ad).unwrap();
        if zeroed {
            trtri_zeroed(OP, dev, da, upper).unwrap();
        } else {
            trtri(OP, dev, da, upper).unwrap();
        }
        // Row-major: x[i * n + j] = X(i, j).
        let x: Vec<C64> = ad.to_array().unwrap().iter().map(|v| v.to_c64()).collect();
        let inside = |i: usize, j: usize| i == j || (i < j) == upper;
        let what = format!("{} n={n} upper={upper} zeroed={zeroed}", T::PREFIX);
        for i in 0..n {
            for j in 0..n {
                if !inside(i, j) {
                    let v = x[i * n + j];
                    let kept = if zeroed {
                        v == C64::new(0.0, 0.0)
                    } else {
                        v.re.is_nan()
                    };
                    assert!(kept, "{what}: ({i}, {j}) outside the triangle became {v}");
                }
            }
        }
        let t = |i: usize, j: usize| a[i + j * n].to_c64();
        let norm = |f: &dyn Fn(usize, usize) -> f64| {
            (0..n)
                .map(|i| {
                    (0..n)
                        .filter(|&j| inside(i, j))
                        .map(|j| f(i, j))
                        .sum::<f64>()
                })
                .fold(0.0, f64::max)
        };
        let tn = norm(&|i, j| t(i, j).norm());
        let xn = norm(&|i, j| x[i * n + j].norm());
        assert!(xn.is_finite(), "{what}: non-finite inverse");
        let eps = T::epsilon().to_c64().re;
        let tol = 16.0 * n as f64 * eps * tn * xn;
        let mut worst = 0.0f64;
        for i in 0..n {
            for j in 0..n {
                // (T·X)(i, j) over the p where both factors are inside their triangle.
                let ps = if upper { i..j + 1 } else { j..i + 1 };
                let s: C64 = ps.map(|p| t(i, p) * x[p * n + j]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                worst = worst.max((s - want).norm());
            }
        }
        assert!(worst <= tol, "{what}: residual {worst:e} > {tol:e}");
    }

    fn all<T: Scalar>(dev: &Device, orders: &[usize]) {
        for &n in orders {
            for upper in [true, false] {
                for zeroed in [true, false] {
                    check::<T>(dev, n, upper, zeroed);
                }
            }
        }
    }

    #[test]
    fn trtri_zeroed_and_trtri_invert_both_triangles() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        all::<f64>(&dev, &[1, 64, 65, 200, 700, 1100, 2100]);
        all::<f32>(&dev, &[100, 700]);
        all::<num_complex::Complex32>(&dev, &[300]);
        all::<num_complex::Complex64>(&dev, &[129, 1100]);
    }
}
