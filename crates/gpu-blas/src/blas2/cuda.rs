//! Level 2 on the GPU: launches of `kernels/blas2.cu`.

use super::{Diag, Trans, Uplo};
use crate::buffer::Buffer;
use crate::cuda::launch::{kernel_name, launch_err, scalar_arg};
use crate::cuda::{CudaBackend, BLAS2, SPLIT_COUNTERS};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::view::{MatMut, MatRef, VecMut, VecRef};
use cudarc::driver::{LaunchArgs, LaunchConfig, PushKernelArg};
use std::mem::size_of;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const BLOCK: u32 = 256;
/// Threads of the one-warp-per-column gemv T/C kernels.
const COLUMN_BLOCK: u32 = 128;

/// Row splits forced on the packed gemv T/C kernel (0: the built-in rule).
static GEMV_T_SPLITS: AtomicUsize = AtomicUsize::new(0);
/// The packed gemv T/C kernel forced (0: the built-in choice, else 1 + the variant's index).
static GEMV_T_KERNEL: AtomicUsize = AtomicUsize::new(0);

/// The kernels of gemv `T`/`C` on full, 16-byte aligned matrices, for [`set_gemv_t_tuning`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemvTKernel {
    /// One warp per pair of columns, four 16-byte loads per column in flight, 8 warps a block.
    Pair,
    /// One warp per `columns` consecutive columns, `depth` 16-byte loads of each column (and of
    /// `x`) per lane per pass, 4 warps a block. Instantiated: 1×16, 1×32, 2×8, 2×16, 4×8.
    Columns {
        /// Columns per warp.
        columns: usize,
        /// Loads per lane per column per pass.
        depth: usize,
    },
}

/// The `(columns, depth)` shapes of [`GemvTKernel::Columns`] compiled in `kernels/blas2.cu`.
const COLUMN_SHAPES: [(usize, usize); 5] = [(1, 16), (1, 32), (2, 8), (2, 16), (4, 8)];

/// Forces, process-wide, the launch of gemv `T`/`C` on full, 16-byte aligned matrices:
/// `splits` row splits (`None`: the built-in rule, enough blocks to fill the multiprocessors)
/// and `kernel` (`None`: the built-in choice, see `gemv_t_kernel`). The result is the same up to the order of the
/// sums. For tuning sweeps (`gpu-bench --only gemv-tune`).
///
/// ```
/// use gpu_blas::blas2::{set_gemv_t_tuning, GemvTKernel};
/// set_gemv_t_tuning(Some(4), Some(GemvTKernel::Columns { columns: 2, depth: 8 }));
/// set_gemv_t_tuning(None, None);
/// ```
#[doc(hidden)]
pub fn set_gemv_t_tuning(splits: Option<usize>, kernel: Option<GemvTKernel>) {
    GEMV_T_SPLITS.store(splits.unwrap_or(0), Ordering::Relaxed);
    let k = match kernel {
        None => 0,
        Some(GemvTKernel::Pair) => 1,
        Some(GemvTKernel::Columns { columns, depth }) => COLUMN_SHAPES
            .iter()
            .position(|&s| s == (columns, depth))
            .map_or(1, |p| 2 + p),
    };
    GEMV_T_KERNEL.store(k, Ordering::Relaxed);
}

/// The packed gemv T/C kernel to launch: the forced one, else one warp per column with 32
/// loads per lane per pass for real types and 16 for complex ones (the best shapes of
/// `gpu-bench --only gemv-tune` on an H100; see docs/perf-notes.md).
fn gemv_t_kernel<T: Scalar>() -> GemvTKernel {
    match GEMV_T_KERNEL.load(Ordering::Relaxed) {
        0 => GemvTKernel::Columns {
            columns: 1,
            depth: if T::IS_COMPLEX { 16 } else { 32 },
        },
        1 => GemvTKernel::Pair,
        k => {
            let (columns, depth) = COLUMN_SHAPES[k - 2];
            GemvTKernel::Columns { columns, depth }
        }
    }
}

/// The gemv `N` launch forced on full matrices (0: the built-in rule; `1 + 2·k`: row tiles of
/// `k` row lanes; `2 + 2·k`: `k` column splits).
static GEMV_N_LAUNCH: AtomicUsize = AtomicUsize::new(0);

/// The launches of gemv `N` on a full matrix, for [`set_gemv_n_tuning`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemvNLaunch {
    /// Narrow row tiles over all columns: `row_lanes` (a power of two up to 256) lanes down the
    /// rows of a 256-thread block, the other `256 / row_lanes` across the columns, summed in
    /// shared memory.
    Tile {
        /// Lanes of a block along the rows.
        row_lanes: usize,
    },
    /// Row tiles of 256 lanes with the columns split over `splits` blocks; the last block of a
    /// tile to finish adds the partial sums in a fixed order. More splits than fit are clamped
    /// to one per 8 columns and to 65535.
    Split {
        /// Column splits.
        splits: usize,
    },
}

/// Forces, process-wide, the launch of gemv `N` on full (not triangle-restricted) matrices;
/// `None` restores the built-in rule. The result is the same up to the order of the sums. For
/// tuning sweeps (`gpu-bench --only gemv-n-tune`).
///
/// ```
/// use gpu_blas::blas2::{set_gemv_n_tuning, GemvNLaunch};
/// set_gemv_n_tuning(Some(GemvNLaunch::Tile { row_lanes: 8 }));
/// set_gemv_n_tuning(None);
/// ```
#[doc(hidden)]
pub fn set_gemv_n_tuning(launch: Option<GemvNLaunch>) {
    let code = match launch {
        None => 0,
        Some(GemvNLaunch::Tile { row_lanes }) => {
            1 + 2 * row_lanes.clamp(1, BLOCK as usize).next_power_of_two()
        }
        Some(GemvNLaunch::Split { splits }) => 2 + 2 * splits.max(1),
    };
    GEMV_N_LAUNCH.store(code, Ordering::Relaxed);
}

/// The forced gemv `N` launch, if any.
fn gemv_n_forced() -> Option<GemvNLaunch> {
    match GEMV_N_LAUNCH.load(Ordering::Relaxed) {
        0 => None,
        c if c % 2 == 1 => Some(GemvNLaunch::Tile { row_lanes: c / 2 }),
        c => Some(GemvNLaunch::Split { splits: c / 2 - 1 }),
    }
}

/// Diagonal block size of the blocked triangular solve (`TRSV_NB`).
const TRSV_NB: usize = 32;

/// A matrix as the kernels see it.
#[derive(Clone, Copy)]
struct DMat {
    ptr: u64,
    rows: usize,
    cols: usize,
    ld: usize,
}

/// A strided vector as the kernels see it: lowest-addressed element, signed increment.
#[derive(Clone, Copy)]
struct DVec {
    ptr: u64,
    len: usize,
    inc: i64,
}

fn dmat<T: Scalar>(a: &MatRef<'_, T>) -> DMat {
    DMat {
        ptr: a.buf.cuda_ptr(a.offset).unwrap_or(0),
        rows: a.rows,
        cols: a.cols,
        ld: a.ld,
    }
}

fn dvec<T: Scalar>(v: &VecRef<'_, T>) -> DVec {
    DVec {
        ptr: v.buf.cuda_ptr(v.offset).unwrap_or(0),
        len: v.len,
        inc: v.inc as i64,
    }
}

impl DMat {
    fn block<T>(&self, r0: usize, c0: usize, rows: usize, cols: usize) -> DMat {
        DMat {
            ptr: self.ptr + ((r0 + c0 * self.ld) * size_of::<T>()) as u64,
            rows,
            cols,
            ld: self.ld,
        }
    }
}

impl DVec {
    /// Logical elements `start..start + len`.
    fn sub<T>(&self, start: usize, len: usize) -> DVec {
        let lowest = if len == 0 {
            0
        } else if self.inc > 0 {
            start * self.inc as usize
        } else {
            (self.len - start - len) * self.inc.unsigned_abs() as usize
        };
        DVec {
            ptr: self.ptr + (lowest * size_of::<T>()) as u64,
            len,
            inc: self.inc,
        }
    }
}

/// The arguments every gemv kernel starts with: `(m, n, alpha, A, lda, x, incx, beta, y, incy)`
/// (`x`'s increment is left out for the packed transposed kernel, whose x is contiguous).
struct GemvArgs {
    m: i64,
    n: i64,
    alpha: [i64; 2],
    a: u64,
    lda: i64,
    x: u64,
    incx: i64,
    beta: [i64; 2],
    y: u64,
    incy: i64,
}

impl GemvArgs {
    fn new<T: Scalar>(alpha: T, a: &DMat, x: &DVec, beta: T, y: &DVec) -> Self {
        GemvArgs {
            m: a.rows as i64,
            n: a.cols as i64,
            alpha: scalar_arg(alpha),
            a: a.ptr,
            lda: a.ld as i64,
            x: x.ptr,
            incx: x.inc,
            beta: scalar_arg(beta),
            y: y.ptr,
            incy: y.inc,
        }
    }

    fn push<'a>(&'a self, l: &mut LaunchArgs<'a>, with_incx: bool) {
        l.arg(&self.m)
            .arg(&self.n)
            .arg(&self.alpha)
            .arg(&self.a)
            .arg(&self.lda)
            .arg(&self.x);
        if with_incx {
            l.arg(&self.incx);
        }
        l.arg(&self.beta).arg(&self.y).arg(&self.incy);
    }
}

/// Whether 16-byte packs can be used down the columns of `a` (and along `x` when given).
fn packable<T>(a: &DMat, x: Option<&DVec>) -> bool {
    let v = (16 / size_of::<T>()).max(1);
    a.ptr % 16 == 0 && a.ld % v == 0 && x.is_none_or(|x| x.inc == 1 && x.ptr % 16 == 0)
}

fn cfg(grid: (u32, u32), block: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid.0, grid.1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Scratch for the split partial sums (`splits × len` elements), when more than one split.
fn partials<T: Scalar>(
    b: &Arc<CudaBackend>,
    splits: usize,
    len: usize,
) -> Result<Option<Buffer<T>>> {
    if splits <= 1 {
        return Ok(None);
    }
    let dev = crate::Device::cuda(b.ordinal)?;
    Buffer::<T>::uninit(&dev, splits * len, "gemv partial sums").map(Some)
}

/// `y ← α·A·x + β·y` restricted to triangle `mode` (0 full), `herm`: real diagonal.
fn gemv_n<T: Scalar>(
    b: &Arc<CudaBackend>,
    alpha: T,
    a: DMat,
    x: DVec,
    beta: T,
    y: DVec,
    mode: i32,
    herm: bool,
) -> Result<()> {
    let (m, n) = (a.rows, a.cols);
    if m == 0 {
        return Ok(());
    }
    let vec = packable::<T>(&a, None);
    let v = if vec { (16 / size_of::<T>()).max(1) } else { 1 };
    let row_tiles = m.div_ceil(BLOCK as usize * v);
    // Enough blocks to fill the GPU: split the columns, unless that takes so many splits that
    // summing them costs more than narrow row tiles do (measured on H100: docs/perf-notes.md).
    let target = (b.sm_count as usize) * 4;
    let forced = if mode == 0 { gemv_n_forced() } else { None };
    // Triangle-restricted products (symv/hemv) always use the tiles, whose packed path masks the
    // diagonal columns.
    let wanted = match forced {
        Some(GemvNLaunch::Tile { row_lanes }) => {
            return gemv_n_tile(b, alpha, a, x, beta, y, mode, herm, vec, v, Some(row_lanes));
        }
        Some(GemvNLaunch::Split { splits }) => splits,
        None if mode != 0 || target.div_ceil(row_tiles) > 40 => {
            return gemv_n_tile(b, alpha, a, x, beta, y, mode, herm, vec, v, None);
        }
        None => target.div_ceil(row_tiles),
    };
    // One counter per row tile is available for the split reduction.
    let splits = if n == 0 || row_tiles > SPLIT_COUNTERS {
        1
    } else {
        wanted.clamp(1, n.div_ceil(8)).min(65535)
    };
    let cps = n.div_ceil(splits).max(1);
    let splits = if n == 0 { 1 } else { n.div_ceil(cps) };
    let parts = partials::<T>(b, splits, m)?;
    let pp = parts.as_ref().and_then(|p| p.cuda_ptr(0)).unwrap_or(0);
    let counters = if splits > 1 { b.split_counters()? } else { 0 };
    let name = if vec { "gemvn_vec" } else { "gemvn" };
    let f = b.function(&BLAS2, &kernel_name::<T>(name))?;
    let cpsi = cps as i64;
    let herm_i = i32::from(herm);
    let args = GemvArgs::new(alpha, &a, &x, beta, &y);
    let mut l = b.stream().launch_builder(&f);
    args.push(&mut l, true);
    l.arg(&pp).arg(&counters).arg(&mode).arg(&herm_i).arg(&cpsi);
    // SAFETY: arguments match gemvn[_vec]_<p>; A covers m x n with leading dimension ld (views are
    // bounds-checked), x has n and y m elements; the vector kernel is chosen only when A's columns
    // are 16-byte aligned; with splits > 1, partials has splits*m elements and there is one zeroed
    // counter per row tile (row_tiles <= SPLIT_COUNTERS).
    unsafe { l.launch(cfg((row_tiles as u32, splits as u32), BLOCK)) }
        .map_err(launch_err("gemv"))?;
    // `parts` is stream-ordered memory: freeing it here is ordered after the kernel above.
    drop(parts);
    Ok(())
}

/// gemv N with narrow row tiles covering all columns (reduction inside the block).
fn gemv_n_tile<T: Scalar>(
    b: &Arc<CudaBackend>,
    alpha: T,
    a: DMat,
    x: DVec,
    beta: T,
    y: DVec,
    mode: i32,
    herm: bool,
    vec: bool,
    v: usize,
    row_lanes: Option<usize>,
) -> Result<()> {
    let m = a.rows;
    // Row lanes per block (unless forced): enough blocks (4 per SM) to fill the GPU, at most 256.
    let target = (b.sm_count as usize) * 4;
    let want = row_lanes.unwrap_or_else(|| (m.div_ceil(v * target)).max(1));
    let rt = (1usize << (usize::BITS - 1 - want.leading_zeros())).clamp(1, BLOCK as usize);
    let blocks = m.div_ceil(rt * v);
    let f = b.function(
        &BLAS2,
        &kernel_name::<T>(match (vec, mode != 0) {
            (false, _) => "gemvn_tile",
            (true, false) => "gemvn_tile_vec",
            (true, true) => "gemvn_tile_tri",
        }),
    )?;
    let (herm_i, rt_i) = (i32::from(herm), rt as i32);
    let args = GemvArgs::new(alpha, &a, &x, beta, &y);
    let mut l = b.stream().launch_builder(&f);
    args.push(&mut l, true);
    l.arg(&mode).arg(&herm_i).arg(&rt_i);
    // SAFETY: arguments match gemvn_tile[_vec|_tri]_<p>; A covers m x n (ld), x has n and y m
    // elements; rt is a power of two dividing the block size; the vector kernel is chosen only
    // for 16-byte aligned columns.
    unsafe { l.launch(cfg((blocks as u32, 1), BLOCK)) }.map_err(launch_err("gemv"))?;
    Ok(())
}

/// `y ← α·op(A)·x + β·y` for op = T/C, restricted to triangle `mode`.
fn gemv_t<T: Scalar>(
    b: &Arc<CudaBackend>,
    conj: bool,
    alpha: T,
    a: DMat,
    x: DVec,
    beta: T,
    y: DVec,
    mode: i32,
    herm: bool,
) -> Result<()> {
    let (m, n) = (a.rows, a.cols);
    if n == 0 {
        return Ok(());
    }
    let vec = packable::<T>(&a, Some(&x));
    let v = if vec { (16 / size_of::<T>()).max(1) } else { 1 };
    let full = mode == 0 && !herm;
    let kernel = if vec && full {
        gemv_t_kernel::<T>()
    } else {
        GemvTKernel::Pair
    };
    // Columns per block: a warp per column (8 warps, the element path), per pair of columns
    // (8 warps, the pair kernel) or per `columns` columns (4 warps, the column kernels).
    let (threads, cols_per_block) = match (vec, kernel) {
        (true, GemvTKernel::Columns { columns, .. }) => {
            (COLUMN_BLOCK, (COLUMN_BLOCK / 32) as usize * columns)
        }
        (true, GemvTKernel::Pair) => (BLOCK, (BLOCK / 32) as usize * 2),
        (false, _) => (BLOCK, (BLOCK / 32) as usize),
    };
    let col_blocks = n.div_ceil(cols_per_block);
    // Split tall columns so the GPU fills (8 blocks of 8 warps per multiprocessor, or 4 of 4
    // for the column kernels, whose warps each keep more loads in flight: one split measured
    // faster than two at 4096 × 4096); each split at least 32 packs of rows.
    let target = (b.sm_count as usize) * if threads == COLUMN_BLOCK { 4 } else { 8 };
    let max_splits = m.div_ceil(32 * 32 * v).max(1);
    let forced = GEMV_T_SPLITS.load(Ordering::Relaxed);
    let splits = if col_blocks > SPLIT_COUNTERS {
        1
    } else if vec && full && forced > 0 {
        forced.min(max_splits).min(65535)
    } else {
        target.div_ceil(col_blocks).clamp(1, max_splits).min(65535)
    };
    let rps = m.div_ceil(splits).div_ceil(v) * v;
    let splits = if m == 0 { 1 } else { m.div_ceil(rps.max(1)) };
    let parts = partials::<T>(b, splits, n)?;
    let pp = parts.as_ref().and_then(|p| p.cuda_ptr(0)).unwrap_or(0);
    let counters = if splits > 1 { b.split_counters()? } else { 0 };
    let rpsi = rps.max(1) as i64;
    let (conj_i, herm_i) = (i32::from(conj && T::IS_COMPLEX), i32::from(herm));
    let args = GemvArgs::new(alpha, &a, &x, beta, &y);
    if let (true, GemvTKernel::Columns { columns, depth }) = (vec, kernel) {
        let name = format!("gemvt_col{columns}x{depth}");
        let f = b.function(&BLAS2, &kernel_name::<T>(&name))?;
        let mut l = b.stream().launch_builder(&f);
        args.push(&mut l, false);
        l.arg(&pp).arg(&counters).arg(&conj_i).arg(&rpsi);
        // SAFETY: arguments match gemvt_col<C>x<U>_<p> (an instantiated shape: the tuning hook
        // stores no other); A covers m x n with 16-byte aligned columns, x is contiguous,
        // aligned and has m elements, y has n; with splits > 1, partials has splits*n elements
        // and there is one zeroed counter per block of 4·C columns; 128 threads as the
        // kernels' launch bounds.
        unsafe { l.launch(cfg((col_blocks as u32, splits as u32), threads)) }
            .map_err(launch_err("gemv"))?;
        drop(parts);
        return Ok(());
    }
    if vec {
        let name = if !full {
            "gemvt_pair_tri"
        } else {
            "gemvt_pair"
        };
        let f = b.function(&BLAS2, &kernel_name::<T>(name))?;
        let mut l = b.stream().launch_builder(&f);
        args.push(&mut l, false);
        l.arg(&pp)
            .arg(&counters)
            .arg(&conj_i)
            .arg(&mode)
            .arg(&herm_i)
            .arg(&rpsi);
        // SAFETY: arguments match gemvt_pair[_tri]_<p> (mode/herm restrict the rows read to
        // the triangle); A covers m x n with 16-byte aligned columns, x
        // is contiguous, aligned and has m elements, y has n; with splits > 1, partials has
        // splits*n elements and there is one zeroed counter per block of 16 columns.
        unsafe { l.launch(cfg((col_blocks as u32, splits as u32), BLOCK)) }
            .map_err(launch_err("gemv"))?;
        drop(parts);
        return Ok(());
    }
    let f = b.function(&BLAS2, &kernel_name::<T>("gemvt"))?;
    let mut l = b.stream().launch_builder(&f);
    args.push(&mut l, true);
    l.arg(&pp)
        .arg(&counters)
        .arg(&conj_i)
        .arg(&mode)
        .arg(&herm_i)
        .arg(&rpsi);
    // SAFETY: arguments match gemvt_<p>; A covers m x n (ld), x has m and y n elements; with splits > 1,
    // partials has splits*n elements and there is one zeroed counter per column block.
    unsafe { l.launch(cfg((col_blocks as u32, splits as u32), BLOCK)) }
        .map_err(launch_err("gemv"))?;
    drop(parts);
    Ok(())
}

pub(crate) fn gemv<T: Scalar>(
    b: &Arc<CudaBackend>,
    trans: Trans,
    alpha: T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: T,
    y: VecMut<'_, T>,
) -> Result<()> {
    let (a, x, y) = (dmat(&a), dvec(&x), dvec(&y.as_ref()));
    match trans {
        Trans::N => gemv_n(b, alpha, a, x, beta, y, 0, false),
        Trans::T => gemv_t(b, false, alpha, a, x, beta, y, 0, false),
        Trans::C => gemv_t(b, true, alpha, a, x, beta, y, 0, false),
    }
}

pub(crate) fn symv<T: Scalar>(
    b: &Arc<CudaBackend>,
    herm: bool,
    uplo: Uplo,
    alpha: T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: T,
    y: VecMut<'_, T>,
) -> Result<()> {
    let (a, x, y) = (dmat(&a), dvec(&x), dvec(&y.as_ref()));
    if a.rows == 0 {
        return Ok(());
    }
    if packable::<T>(&a, Some(&x)) {
        // Without room for the one-pass kernel's partial sums, the two passes below need none.
        match symv_one_pass(b, herm, uplo, alpha, a, x, beta, y) {
            Err(crate::Error::OutOfMemory { .. }) => {}
            r => return r,
        }
    }
    // A = tri + strict_triᵀ (conjugated for Hermitian): two passes over the stored triangle.
    let (with_diag, strict) = match uplo {
        Uplo::Lower => (1, 3),
        Uplo::Upper => (2, 4),
    };
    gemv_n(b, alpha, a, x, beta, y, with_diag, herm)?;
    gemv_t(b, herm, alpha, a, x, T::one(), y, strict, false)
}

/// Warps (tiles) per block of `symv_tiles`.
const SYMV_WARPS: usize = 8;
/// Packs per lane per column of a `symv_tiles` tile (its rows: 32 lanes × this × one pack).
const SYMV_R: usize = 2;
/// Columns of a `symv_tiles` tile.
const SYMV_NB: usize = 32;

/// symv/hemv reading each element of the stored triangle once: `symv_tiles` cuts the triangle
/// into tiles of `32·V·SYMV_R` rows by 32 columns and uses each tile for both the rows and the
/// columns it touches, writing partial sums of each (tile, direction) to scratch;
/// `symv_finish` adds each row's partials in a fixed order and applies α and β. Needs 16-byte
/// aligned columns and a contiguous aligned `x` (the caller checks); `y` may have any increment.
#[allow(clippy::too_many_arguments)]
fn symv_one_pass<T: Scalar>(
    b: &Arc<CudaBackend>,
    herm: bool,
    uplo: Uplo,
    alpha: T,
    a: DMat,
    x: DVec,
    beta: T,
    y: DVec,
) -> Result<()> {
    let n = a.rows;
    let mb = 32 * (16 / size_of::<T>()).max(1) * SYMV_R;
    let (tr, tc) = (n.div_ceil(mb), n.div_ceil(SYMV_NB));
    let chunks = tc.div_ceil(SYMV_WARPS);
    if tr > u32::MAX as usize || chunks > 65535 {
        return Err(crate::Error::SizeTooLarge {
            op: "symv",
            detail: format!("order {n}"),
        });
    }
    // Column sums of every (row tile, column tile) pair (those outside the triangle unused), row
    // sums of every (row tile, chunk of 8 column tiles).
    let (col_len, row_len) = (tr * tc * SYMV_NB, tr * chunks * mb);
    let (scratch, wc) = b.scratch("symv partial sums", (col_len + row_len) * size_of::<T>())?;
    let wr = wc + (col_len * size_of::<T>()) as u64;
    let (ni, ldi) = (n as i64, a.ld as i64);
    let upper = i32::from(uplo == Uplo::Upper);
    let (conj_i, herm_i) = (i32::from(herm && T::IS_COMPLEX), i32::from(herm));
    let f = b.function(&BLAS2, &kernel_name::<T>("symv_tiles"))?;
    let mut l = b.stream().launch_builder(&f);
    l.arg(&ni)
        .arg(&a.ptr)
        .arg(&ldi)
        .arg(&x.ptr)
        .arg(&upper)
        .arg(&conj_i)
        .arg(&herm_i)
        .arg(&wc)
        .arg(&wr);
    // SAFETY: arguments match symv_tiles_<p>; A is n x n (ld) with 16-byte aligned columns and
    // ld a multiple of the pack, x is contiguous and aligned with n elements; the scratch (held
    // until both launches are queued) has wcol's tr·tc·32 and then wrow's tr·chunks·mb
    // elements, wrow 16-byte aligned (col_len is a multiple of 32); grid (tr, chunks) with
    // chunks <= 65535, SYMV_WARPS warps per block as the launch bounds; SYMV_R and SYMV_NB
    // are the kernel's.
    unsafe { l.launch(cfg((tr as u32, chunks as u32), (SYMV_WARPS * 32) as u32)) }
        .map_err(launch_err("symv"))?;
    let f = b.function(&BLAS2, &kernel_name::<T>("symv_finish"))?;
    let (al, be) = (scalar_arg(alpha), scalar_arg(beta));
    let chunks_i = chunks as i64;
    let mut l = b.stream().launch_builder(&f);
    l.arg(&ni)
        .arg(&al)
        .arg(&be)
        .arg(&y.ptr)
        .arg(&y.inc)
        .arg(&upper)
        .arg(&wc)
        .arg(&wr)
        .arg(&chunks_i);
    // SAFETY: arguments match symv_finish_<p>; y has n elements at increment inc; the partials
    // were all written by symv_tiles on the same stream (every stored tile and every chunk of
    // every row tile); one block of BLOCK threads per row tile (mb <= BLOCK).
    unsafe { l.launch(cfg((tr as u32, 1), BLOCK)) }.map_err(launch_err("symv"))?;
    drop(scratch);
    Ok(())
}

fn rank1<T: Scalar>(
    b: &Arc<CudaBackend>,
    conj_y: bool,
    alpha: T,
    x: DVec,
    y: DVec,
    a: DMat,
    mode: i32,
    herm: bool,
) -> Result<()> {
    let (m, n) = (a.rows, a.cols);
    if m == 0 || n == 0 {
        return Ok(());
    }
    let vec = packable::<T>(&a, Some(&x));
    let v = if vec { (16 / size_of::<T>()).max(1) } else { 1 };
    let tiles = m.div_ceil(BLOCK as usize * v);
    let f = b.function(
        &BLAS2,
        &kernel_name::<T>(if vec { "rank1_vec" } else { "rank1" }),
    )?;
    let (mi, ni, ldi) = (m as i64, n as i64, a.ld as i64);
    let al = scalar_arg(alpha);
    let (cy, hm) = (
        i32::from(conj_y && T::IS_COMPLEX),
        i32::from(herm && T::IS_COMPLEX),
    );
    let mut l = b.stream().launch_builder(&f);
    l.arg(&mi)
        .arg(&ni)
        .arg(&al)
        .arg(&x.ptr)
        .arg(&x.inc)
        .arg(&y.ptr)
        .arg(&y.inc)
        .arg(&a.ptr)
        .arg(&ldi);
    l.arg(&cy).arg(&mode).arg(&hm);
    if tiles > 65535 {
        return Err(crate::Error::SizeTooLarge {
            op: "ger",
            detail: format!("{m} rows"),
        });
    }
    // SAFETY: arguments match rank1[_vec]_<p>; A covers m x n (ld); x has m, y n elements; the
    // vector kernel requires aligned columns and contiguous aligned x; grid.y (row tiles) is
    // within the 65535 limit (checked above).
    unsafe { l.launch(cfg((n as u32, tiles as u32), BLOCK)) }.map_err(launch_err("ger"))?;
    Ok(())
}

pub(crate) fn ger<T: Scalar>(
    b: &Arc<CudaBackend>,
    conj: bool,
    alpha: T,
    x: VecRef<'_, T>,
    y: VecRef<'_, T>,
    a: MatMut<'_, T>,
) -> Result<()> {
    rank1(
        b,
        conj,
        alpha,
        dvec(&x),
        dvec(&y),
        dmat(&a.as_ref()),
        0,
        false,
    )
}

pub(crate) fn syr<T: Scalar>(
    b: &Arc<CudaBackend>,
    herm: bool,
    uplo: Uplo,
    alpha: T,
    x: VecRef<'_, T>,
    a: MatMut<'_, T>,
) -> Result<()> {
    let (x, a) = (dvec(&x), dmat(&a.as_ref()));
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    let mode: i32 = if uplo == Uplo::Lower { 1 } else { 2 };
    let vec = packable::<T>(&a, Some(&x));
    syr_pair(b, herm, mode, alpha, x, a, vec)
}

/// syr/her over the triangle with paired columns (no empty blocks).
fn syr_pair<T: Scalar>(
    b: &Arc<CudaBackend>,
    herm: bool,
    mode: i32,
    alpha: T,
    x: DVec,
    a: DMat,
    vec: bool,
) -> Result<()> {
    let n = a.rows;
    let v = if vec { (16 / size_of::<T>()).max(1) } else { 1 };
    let tr = BLOCK as usize * v;
    let tiles = n.div_ceil(tr);
    let gy = if mode == 1 {
        2 * tiles - (n - 1) / tr + 1
    } else {
        (n - 1) / tr + 2
    };
    if gy > 65535 {
        return Err(crate::Error::SizeTooLarge {
            op: "syr",
            detail: format!("{n} rows"),
        });
    }
    let f = b.function(
        &BLAS2,
        &kernel_name::<T>(if vec { "rank1_pair_vec" } else { "rank1_pair" }),
    )?;
    let (ni, ldi) = (n as i64, a.ld as i64);
    let al = scalar_arg(alpha);
    let hm = i32::from(herm && T::IS_COMPLEX);
    let mut l = b.stream().launch_builder(&f);
    l.arg(&ni)
        .arg(&al)
        .arg(&x.ptr)
        .arg(&x.inc)
        .arg(&a.ptr)
        .arg(&ldi)
        .arg(&mode)
        .arg(&hm);
    // SAFETY: arguments match rank1_pair[_vec]_<p>; A covers n x n (ld) and x n elements; the
    // vector kernel requires aligned columns and a contiguous aligned x; blocks beyond a column
    // pair's tiles return at once.
    unsafe { l.launch(cfg((n.div_ceil(2) as u32, gy as u32), BLOCK)) }
        .map_err(launch_err("syr"))?;
    Ok(())
}

fn trsv_diag<T: Scalar>(
    b: &Arc<CudaBackend>,
    blk: DMat,
    x: DVec,
    first: usize,
    bs: usize,
    lower_eff: bool,
    trans: Trans,
    diag: Diag,
) -> Result<()> {
    let f = b.function(&BLAS2, &kernel_name::<T>("trsv_diag"))?;
    let (bi, ldi, ni, fi) = (bs as i32, blk.ld as i64, x.len as i64, first as i64);
    let lo = i32::from(lower_eff);
    let tr: i32 = match trans {
        Trans::N => 0,
        Trans::T => 1,
        Trans::C => 2,
    };
    let unit = i32::from(diag == Diag::Unit);
    let mut l = b.stream().launch_builder(&f);
    l.arg(&bi)
        .arg(&blk.ptr)
        .arg(&ldi)
        .arg(&x.ptr)
        .arg(&ni)
        .arg(&x.inc)
        .arg(&fi)
        .arg(&lo)
        .arg(&tr)
        .arg(&unit);
    // SAFETY: arguments match trsv_diag_<p>; the block is bs x bs (bs <= TRSV_NB) inside A; the
    // kernel touches logical elements first..first+bs of x, which has x.len elements.
    unsafe { l.launch(cfg((1, 1), TRSV_NB as u32)) }.map_err(launch_err("trsv"))?;
    Ok(())
}

pub(crate) fn trsv<T: Scalar>(
    b: &Arc<CudaBackend>,
    uplo: Uplo,
    trans: Trans,
    diag: Diag,
    a: MatRef<'_, T>,
    x: VecMut<'_, T>,
) -> Result<()> {
    let (a, x) = (dmat(&a), dvec(&x.as_ref()));
    let n = a.rows;
    let lower_eff = (uplo == Uplo::Lower) == (trans == Trans::N);
    let minus = -T::one();
    let nblocks = n.div_ceil(TRSV_NB);
    for s in 0..nblocks {
        // Forward for an effectively lower system, backward otherwise.
        let blk = if lower_eff { s } else { nblocks - 1 - s };
        let k = blk * TRSV_NB;
        let bs = TRSV_NB.min(n - k);
        trsv_diag::<T>(
            b,
            a.block::<T>(k, k, bs, bs),
            x,
            k,
            bs,
            lower_eff,
            trans,
            diag,
        )?;
        let solved = x.sub::<T>(k, bs);
        // Remaining unknowns: after the block (forward) or before it (backward).
        let (r0, rn) = if lower_eff {
            (k + bs, n - k - bs)
        } else {
            (0, k)
        };
        if rn == 0 {
            continue;
        }
        let rest = x.sub::<T>(r0, rn);
        match (trans, uplo) {
            // op(A)[rest, block] = A[rest, block]
            (Trans::N, _) => gemv_n(
                b,
                minus,
                a.block::<T>(r0, k, rn, bs),
                solved,
                T::one(),
                rest,
                0,
                false,
            )?,
            // op(A)[rest, block] = A[block, rest]ᵀ (conjugated for C)
            (_, _) => gemv_t(
                b,
                trans == Trans::C,
                minus,
                a.block::<T>(k, r0, bs, rn),
                solved,
                T::one(),
                rest,
                0,
                false,
            )?,
        }
    }
    Ok(())
}
