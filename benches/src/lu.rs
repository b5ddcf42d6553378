//! Batched-LU section: our `batched-lu` functions on a CUDA device against cuBLAS
//! `getrfBatched` / `getriBatched` / `getrsBatched` / `matinvBatched` on the same matrices.
//!
//! Per (order, type): one batch of well-conditioned random matrices (entries uniform in
//! `[-1, 1)`, real and imaginary parts, plus `n` on the diagonal) is generated once and kept
//! pristine on the device; a working copy receives the factors. Rows: `getrf` (in place, both
//! with partial pivoting), `getri` (out of place, ours from our factors, cuBLAS's from its own),
//! `getrs` with one right-hand side, and the full inverse (ours `inverse_batched` against cuBLAS
//! `getrf` + `getri`, and against `matinvBatched` for `n ≤ 32`). A variable-size batch is
//! compared with cuBLAS called once per distinct order.

use crate::blas1::dtype;
use crate::cublas::Cublas;
use crate::lu_cublas::CublasLu;
use crate::lu_model::{self as model, LuOp};
use crate::report::LuRow;
use crate::timing::{time_in_place_ms, try_time_ms, Plan};
use batched_lu::{
    getrf_batched, getrf_vbatched, getri_batched, getri_vbatched, getrs_batched, inverse_batched,
    BatchLayout, VarBatch,
};
use cudarc::driver::result as drv;
use cudarc::driver::sys::CUstream;
use cudarc::driver::{CudaContext, CudaStream};
use gpu_blas::blas2::Trans;
use gpu_blas::{interop, Device, DeviceVec, Element, Scalar};
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How the section measures, for the printed report.
pub const METHOD: &str = "\
Ours: the `batched-lu` functions on the CUDA device (each matrix's non-finite and pivot \
checks run inside our kernels and count as our time; the calls return once their work is \
queued, as cuBLAS's do). Baseline: cuBLAS `<t>getrfBatched`, \
`<t>getriBatched`, `<t>getrsBatched` and `<t>matinvBatched` on raw device pointers (device \
arrays of per-matrix addresses built once per case), on the same stream and the same matrices: \
random entries uniform in [-1, 1) (real and imaginary parts) plus n on the diagonal (so no row \
interchanges; with `--lu-general` without the diagonal, so an interchange at almost every \
step), generated once per (n, type). \
In-place operations (`getrf`, `getrs`, and cuBLAS getrf+getri for the full inverse) restore \
their input with a device-to-device copy from the pristine batch before every call, and only \
the operation is reported: a call under 1 ms is timed as copy + call back to back (several per \
event pair, like the out-of-place rows) minus the copy alone timed the same way; a longer call \
is timed one per event pair with the copy enqueued before the start event. Either way the \
restored data may be partly in L2, for both sides alike. Out-of-place operations (`getri`, our \
`inverse_batched`, `matinvBatched`) are timed as several back-to-back calls per event pair. \
All times are medians of the repeats after warm-up. \
`getri` is out of place for both: ours from our factors, cuBLAS from cuBLAS's factors \
(\"ok (cuBLAS factors)\" marks rows where our factorization was unavailable and ours ran on \
cuBLAS's factors). The full inverse compares our `inverse_batched` (input left unchanged) with \
cuBLAS getrf+getri on a restored working copy, the copy not timed. \
Variable-size batch: orders drawn uniformly from 33..=190 (inclusive); cuBLAS has no \
variable-size LU, so the best it can do is one uniform batched call per distinct order \
(matrices grouped by order, calls enqueued back to back and timed together, i.e. the sum). \
TFLOP/s: LU 2n³/3, inverse from the factors 4n³/3, full inverse 2n³, one solve 2n² real flops \
per matrix, ×4 for complex. Memory floor: every matrix read once and written once plus the \
pivots, at the device copy bandwidth measured in this run; %floor = floor ms / ours ms. \
Check: ours and cuBLAS's results (factors, inverses, solutions) on the first and last matrix \
of the batch (for the variable-size batch the smallest and largest), relative Frobenius \
difference against 16·n·eps·cond₁, cond₁ from cuBLAS's inverse; a larger difference is \
printed as a warning. Where the two factorizations chose different pivots (both can be valid \
partial pivoting: complex candidates, for one, can be ranked by |Re| + |Im|, as LAPACK and ours \
do, or by the modulus), their factors are not \
compared entry by entry: the warning gives each side's backward error max|PA − LU| / \
max(|L||U|) instead, flagged where it exceeds 10·n·eps, and the difference column stays \
empty. Where the buffers (pristine batch, factors, \
inverses, and a copy our inverse may take) would not fit min(60 GB, 80% of free device \
memory), the batch is reduced and the batch used is printed.";

/// What the section needs from the harness.
pub struct LuCtx<'a> {
    pub dev: &'a Device,
    pub cublas: &'a Cublas,
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub copy_gbps: f64,
    pub reps: usize,
    /// Bytes the matrix buffers of one case may take.
    pub budget: f64,
}

impl<'a> LuCtx<'a> {
    pub fn new(dev: &'a Device, cublas: &'a Cublas, copy_gbps: f64, reps: usize) -> Self {
        let ctx = interop::cuda_context(dev).expect("CUDA device");
        let stream = interop::cuda_stream(dev).expect("CUDA device");
        // The batched LU routines take no scalar arguments, but for n > 32 cuBLAS calls its
        // own level-3 routines internally with host scalars: host pointer mode for this section.
        // SAFETY: the handle is live and used from this thread only.
        unsafe {
            crate::cublas::ok(
                cudarc::cublas::sys::cublasSetPointerMode_v2(
                    cublas.h,
                    cudarc::cublas::sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST,
                ),
                "pointer mode",
            );
        }
        let free = ctx.mem_get_info().map_or(0.0, |(free, _)| free as f64);
        let budget = if free > 0.0 {
            (60e9f64).min(0.8 * free)
        } else {
            60e9
        };
        LuCtx {
            dev,
            cublas,
            ctx,
            stream,
            copy_gbps,
            reps,
            budget,
        }
    }
}

/// Milliseconds above which a single call counts as slow: fewer repeats and one warm-up call.
const SLOW_MS: f64 = 50.0;

/// Milliseconds under which an in-place call is timed with its restoring copy, back to back,
/// minus the copy timed alone (so that launch latency is amortised as for the out-of-place
/// rows); longer calls are timed one at a time with the copy outside the events.
const FAST_MS: f64 = 1.0;

/// Host wall time of one call of `f` (after `reset`), synchronised; the call doubles as a
/// warm-up and as the probe for an unsupported operation.
fn probe<E>(
    cx: &LuCtx<'_>,
    reset: &mut impl FnMut(),
    f: &mut impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    let mut est = f64::INFINITY;
    // Twice, so that one-time costs (module loading or compilation, first allocations) do
    // not set the plan.
    for _ in 0..2 {
        reset();
        cx.stream.synchronize().expect("stream");
        let t = Instant::now();
        f()?;
        cx.stream.synchronize().expect("stream");
        est = est.min(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(est)
}

/// Times an out-of-place call: several back-to-back calls per event pair.
fn measure<E>(cx: &LuCtx<'_>, mut f: impl FnMut() -> Result<(), E>) -> Result<f64, E> {
    let est = probe(cx, &mut || {}, &mut f)?;
    let slow = est > SLOW_MS;
    let mut plan = Plan::for_estimate(est, if slow { cx.reps.min(5) } else { cx.reps });
    if slow {
        plan.warmup = 1;
    }
    try_time_ms(&cx.ctx, &cx.stream, plan, |_| f())
}

/// Times an in-place call whose input `reset` restores before each call
/// ([`time_in_place_ms`]; over [`SLOW_MS`] one warm-up and at most 5 repeats); afterwards the
/// buffers hold one call's result.
fn measure_reset<E>(
    cx: &LuCtx<'_>,
    mut reset: impl FnMut(),
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    let est = probe(cx, &mut reset, &mut f)?;
    let slow = if est > SLOW_MS {
        (1, cx.reps.min(5))
    } else {
        (3, cx.reps)
    };
    time_in_place_ms(&cx.ctx, &cx.stream, est, FAST_MS, cx.reps, slow, reset, f)
}

/// Our status for a failed call: `unsupported` (the kernels are not there yet) or the error.
fn ours_failure(e: gpu_blas::Error) -> String {
    match e {
        gpu_blas::Error::Unsupported { .. } => "unsupported".into(),
        e => format!("error: {e}"),
    }
}

fn ptr<T: Element>(v: &DeviceVec<T>) -> u64 {
    interop::vec_ptr(v).expect("a CUDA buffer")
}

/// Enqueues a device-to-device copy of `bytes` bytes on `stream` (the device's stream).
fn dtod(stream: CUstream, dst: u64, src: u64, bytes: usize) {
    // SAFETY: callers pass addresses of live device buffers of at least `bytes` bytes each,
    // disjoint, and the copy is ordered on the stream all work of the device uses.
    unsafe { drv::memcpy_dtod_async(dst, src, bytes, stream) }.expect("copy");
}

/// A device array of device addresses `base + offsets[i]·elem` (what cuBLAS batched routines
/// take for their matrix arguments).
fn addresses(
    dev: &Device,
    base: u64,
    offsets: impl Iterator<Item = usize>,
    elem: usize,
) -> Result<DeviceVec<i64>, String> {
    let v: Vec<i64> = offsets.map(|o| (base + (o * elem) as u64) as i64).collect();
    DeviceVec::from_vec(dev, v).map_err(|e| e.to_string())
}

/// Elements `offset..offset + len` of a device vector, on the host (after the queued work).
fn fetch<T: Element>(v: &DeviceVec<T>, offset: usize, len: usize) -> Vec<T> {
    v.strided(offset, len, 1)
        .and_then(|s| s.to_vec())
        .expect("reading back a result")
}

/// Relative Frobenius difference `‖a − b‖ / ‖b‖`.
fn rel_diff<T: Scalar>(a: &[T], b: &[T]) -> f64 {
    let (mut d, mut r) = (0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (x.to_c64(), y.to_c64());
        d += (x - y).norm_sqr();
        r += y.norm_sqr();
    }
    (d / r.max(f64::MIN_POSITIVE)).sqrt()
}

/// 1-norm (largest column sum of moduli) of a column-major `n × n` matrix.
fn norm1<T: Scalar>(a: &[T], n: usize) -> f64 {
    (0..n)
        .map(|j| {
            a[j * n..(j + 1) * n]
                .iter()
                .map(|v| v.to_c64().norm())
                .sum()
        })
        .fold(0.0, f64::max)
}

/// Whether the section's matrices are general (`--lu-general`: uniform random entries only,
/// so partial pivoting interchanges rows at almost every step) instead of diagonally dominant.
static GENERAL: AtomicBool = AtomicBool::new(false);

/// Makes the section's matrices general (`true`) or diagonally dominant (`false`, the default).
pub fn set_general_matrices(general: bool) {
    GENERAL.store(general, Ordering::Relaxed);
}

/// Whether the uniform batches time only the factorization and the solves (`--lu-solves-only`:
/// no inverse rows, and no tolerance from cuBLAS's inverse for the solutions' difference).
static SOLVES_ONLY: AtomicBool = AtomicBool::new(false);

/// Makes the uniform batches time only `getrf` and the solve rows (`true`), or every row
/// (`false`, the default).
pub fn set_solves_only(only: bool) {
    SOLVES_ONLY.store(only, Ordering::Relaxed);
}

/// `count` matrices at `offsets` with orders `sizes`: uniform random entries plus `n` on the
/// diagonal (eigenvalues within about `√n` of `n`, so condition numbers near 1; column
/// diagonally dominant, so partial pivoting interchanges no rows), or without the diagonal
/// after [`set_general_matrices`]`(true)` (condition numbers of order n, an interchange at
/// almost every step).
fn well_conditioned<T: Scalar>(
    sizes: &[usize],
    offsets: &[usize],
    len: usize,
    seed: u64,
) -> Vec<T> {
    matrices(sizes, offsets, len, seed, GENERAL.load(Ordering::Relaxed))
}

/// The matrices of [`well_conditioned`], general (no diagonal shift) or not.
fn matrices<T: Scalar>(
    sizes: &[usize],
    offsets: &[usize],
    len: usize,
    seed: u64,
    general: bool,
) -> Vec<T> {
    let mut v = gpu_blas::testing::random_values::<T>(len, seed);
    if general {
        return v;
    }
    for (&n, &o) in sizes.iter().zip(offsets) {
        for i in 0..n {
            v[o + i + i * n] += T::from_f64(n as f64);
        }
    }
    v
}

fn seed<T: Scalar>(n: usize) -> u64 {
    ((n as u64) << 8) | T::PREFIX as u64
}

/// A measured pair and what is needed to turn it into a row.
struct Pair<'s> {
    op: &'s str,
    baseline: String,
    ours: Result<f64, String>,
    ours_note: &'s str,
    base: Result<f64, String>,
    lu_op: LuOp,
    diff: Option<f64>,
    warning: Vec<String>,
}

/// Shape of the batch a row describes.
struct Shape<'s> {
    dtype: &'static str,
    sizes: &'s [usize],
    elem: usize,
    complex: bool,
    tol: Option<f64>,
}

fn row(cx: &LuCtx<'_>, s: &Shape<'_>, p: Pair<'_>) -> LuRow {
    let flops: f64 = s
        .sizes
        .iter()
        .map(|&n| model::flops(p.lu_op, n, s.complex))
        .sum();
    let floor_bytes: f64 = s
        .sizes
        .iter()
        .map(|&n| model::floor_bytes(p.lu_op, n, s.elem))
        .sum();
    let floor_ms = floor_bytes / (cx.copy_gbps * 1e6);
    let ours_ms = p.ours.as_ref().ok().copied();
    let base_ms = p.base.as_ref().ok().copied();
    let mut warning = p.warning;
    if let Err(e) = &p.base {
        warning.push(format!("baseline failed: {e}"));
    }
    if let (Some(d), Some(t)) = (p.diff, s.tol) {
        if d.is_nan() || d > t {
            warning.push(format!("results differ: {d:.1e} > tol {t:.1e}"));
        }
    }
    LuRow {
        op: p.op.into(),
        dtype: s.dtype.into(),
        n: s.sizes.iter().copied().max().unwrap_or(0),
        n_min: s.sizes.iter().copied().min().unwrap_or(0),
        batch: s.sizes.len(),
        ours_status: match &p.ours {
            Ok(_) if p.ours_note.is_empty() => "ok".into(),
            Ok(_) => format!("ok ({})", p.ours_note),
            Err(e) => e.clone(),
        },
        ours_ms,
        baseline: p.baseline,
        base_ms,
        ratio: ours_ms.zip(base_ms).map(|(o, b)| o / b),
        flops,
        ours_tflops: ours_ms.map(|ms| model::tflops(flops, ms)),
        base_tflops: base_ms.map(|ms| model::tflops(flops, ms)),
        floor_bytes,
        floor_ms,
        frac_floor: ours_ms.map(|ms| floor_ms / ms),
        max_rel_diff: p.diff,
        tol: s.tol,
        warning: warning.join("; "),
    }
}

/// Largest relative difference over the checked matrices, when both sides produced them.
fn diff_of<T: Scalar>(ours: &Option<Vec<Vec<T>>>, base: &Option<Vec<Vec<T>>>) -> Option<f64> {
    let (o, b) = (ours.as_ref()?, base.as_ref()?);
    Some(
        o.iter()
            .zip(b)
            .map(|(x, y)| rel_diff(x, y))
            .fold(0.0, |m, d| if d.is_nan() { f64::NAN } else { m.max(d) }),
    )
}

/// A solve row's time (or why there is none) and the solutions of the checked matrices.
type Solved<T> = (Result<f64, String>, Option<Vec<Vec<T>>>);

/// The right-hand sides of one solve row: `nrhs` columns of length n per matrix, packed
/// (matrix k's block of n × nrhs, leading dimension n, at element `k·n·nrhs`), a pristine copy
/// and the working one the solves overwrite, and cuBLAS's array of the blocks' addresses.
struct RhsSet<T: Element> {
    n: usize,
    nrhs: usize,
    /// The checked matrices' right-hand sides, as generated.
    checked: Vec<Vec<T>>,
    orig: DeviceVec<T>,
    work: DeviceVec<T>,
    addrs: DeviceVec<i64>,
}

impl<T: Scalar> RhsSet<T> {
    fn new(
        dev: &Device,
        n: usize,
        batch: usize,
        nrhs: usize,
        checked: &[usize],
        seed: u64,
    ) -> Result<Self, String> {
        let block = n * nrhs;
        let host = gpu_blas::testing::random_values::<T>(batch * block, seed);
        let checked = checked
            .iter()
            .map(|&k| host[k * block..(k + 1) * block].to_vec())
            .collect();
        let e = |e: gpu_blas::Error| e.to_string();
        let orig = DeviceVec::from_vec(dev, host).map_err(e)?;
        let work = orig.try_clone().map_err(e)?;
        let addrs = addresses(
            dev,
            ptr(&work),
            (0..batch).map(|k| k * block),
            std::mem::size_of::<T>(),
        )?;
        Ok(RhsSet {
            n,
            nrhs,
            checked,
            orig,
            work,
            addrs,
        })
    }

    /// A closure that restores the working right-hand sides from the pristine ones (a copy
    /// queued on `stream`; it holds addresses only, so the solves may borrow `work`).
    fn restore(&self, stream: CUstream) -> impl FnMut() + 'static {
        let (dst, src) = (ptr(&self.work), ptr(&self.orig));
        let bytes = self.orig.len() * std::mem::size_of::<T>();
        move || dtod(stream, dst, src, bytes)
    }

    /// The working blocks of the matrices `checked` (after a solve: their solutions).
    fn solutions(&self, checked: &[usize]) -> Vec<Vec<T>> {
        let block = self.n * self.nrhs;
        checked
            .iter()
            .map(|&k| fetch(&self.work, k * block, block))
            .collect()
    }
}

/// The largest [`solve_residual`] over the columns of the column-major `n × (x.len() / n)`
/// solutions `x` and right-hand sides `b`.
fn columns_residual<T: Scalar>(n: usize, a: &[T], x: &[T], b: &[T]) -> f64 {
    x.chunks(n.max(1))
        .zip(b.chunks(n.max(1)))
        .map(|(x, b)| solve_residual(n, a, x, b))
        .fold(0.0, |m, r| if r.is_nan() { f64::NAN } else { m.max(r) })
}

/// `‖A·x − b‖∞ / (‖A‖∞·‖x‖∞ + ‖b‖∞)` for the column-major `n × n` matrix `a`, in
/// `Complex64` (the inverse section's host helpers).
fn solve_residual<T: Scalar>(n: usize, a: &[T], x: &[T], b: &[T]) -> f64 {
    use crate::inv_model::{inf_norm, matvec, max_modulus, Acc};
    use num_complex::Complex64;
    let xe: Vec<Complex64> = x.iter().map(|&v| Complex64::of(v)).collect();
    let be: Vec<Complex64> = b.iter().map(|&v| Complex64::of(v)).collect();
    let mut r = matvec(a, n, &xe);
    for (ri, &bi) in r.iter_mut().zip(&be) {
        *ri -= bi;
    }
    max_modulus(&r) / (inf_norm::<T, Complex64>(a, n) * max_modulus(&xe) + max_modulus(&be))
}

/// Backward error of an LU factorization: `max |P·A − L·U| / max (|L|·|U|)` (entries), in
/// `Complex64`, for the column-major `n × n` matrix `a`, its factors `f` (L unit lower, U upper,
/// LAPACK layout) and pivots `piv` (1-based row interchanges in order). Partial pivoting in
/// floating point keeps it below about `n·ε`; wrong factors or pivots give order 1. NaN when
/// a pivot is out of range.
fn lu_residual<T: Scalar>(n: usize, a: &[T], f: &[T], piv: &[i32]) -> f64 {
    use crate::inv_model::Acc;
    use num_complex::Complex64;
    let mut pa: Vec<Complex64> = a.iter().map(|&v| Complex64::of(v)).collect();
    for (j, &p) in piv.iter().enumerate().take(n) {
        let Some(p) = usize::try_from(p).ok().and_then(|p| p.checked_sub(1)) else {
            return f64::NAN;
        };
        if p >= n {
            return f64::NAN;
        }
        for col in 0..n {
            pa.swap(j + col * n, p + col * n);
        }
    }
    let fe: Vec<Complex64> = f.iter().map(|&v| Complex64::of(v)).collect();
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for col in 0..n {
        for row in 0..n {
            let (mut lu, mut mag) = (Complex64::new(0.0, 0.0), 0.0);
            // (L·U)(row, col) = Σ_{k ≤ min(row, col)} L(row, k)·U(k, col), L(row, row) = 1.
            for k in 0..=row.min(col) {
                let l = if k == row {
                    Complex64::new(1.0, 0.0)
                } else {
                    fe[row + k * n]
                };
                let u: Complex64 = fe[k + col * n];
                lu += l * u;
                mag += l.norm() * u.norm();
            }
            num = num.max((pa[row + col * n] - lu).norm());
            den = den.max(mag);
        }
    }
    if den > 0.0 {
        num / den
    } else {
        num
    }
}

/// Largest [`lu_residual`] over the checked matrices (orders `sizes`), when the side produced
/// its factors and pivots.
fn lu_residual_of<T: Scalar>(
    a: &[Vec<T>],
    f: &Option<Vec<Vec<T>>>,
    piv: &Option<Vec<Vec<i32>>>,
    sizes: &[usize],
) -> Option<f64> {
    let (f, piv) = (f.as_ref()?, piv.as_ref()?);
    Some(
        a.iter()
            .zip(f)
            .zip(piv)
            .zip(sizes)
            .map(|(((a, f), p), &n)| lu_residual(n, a, f, p))
            .fold(0.0, |m, r| if r.is_nan() { f64::NAN } else { m.max(r) }),
    )
}

/// One side's factors and pivots of the checked matrices, when it produced them.
type Factors<'a, T> = (&'a Option<Vec<Vec<T>>>, &'a Option<Vec<Vec<i32>>>);

/// The getrf row's comparison with cuBLAS: with the same pivots, the factors' largest relative
/// difference; with different pivots (both valid partial-pivoting choices, for instance by
/// different magnitudes of complex numbers), each side's [`lu_residual`] instead, the
/// difference then left empty and a warning added where either side's exceeds `10·n·ε`.
fn getrf_diff<T: Scalar>(
    a: &[Vec<T>],
    sizes: &[usize],
    (f_ours, p_ours): Factors<'_, T>,
    (f_cb, p_cb): Factors<'_, T>,
    warn: &mut Vec<String>,
) -> Option<f64> {
    let differ = matches!((p_ours, p_cb), (Some(po), Some(pc)) if po != pc);
    if !differ {
        return diff_of(f_ours, f_cb);
    }
    let n = sizes.iter().copied().max().unwrap_or(1);
    let limit = 10.0 * n as f64 * T::epsilon().to_c64().re;
    let fmt = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1e}"));
    let (ro, rc) = (
        lu_residual_of(a, f_ours, p_ours, sizes),
        lu_residual_of(a, f_cb, p_cb, sizes),
    );
    warn.push(format!(
        "pivots differ (|PA−LU|/|L||U|: ours {}, cuBLAS {})",
        fmt(ro),
        fmt(rc)
    ));
    for (who, r) in [("our", ro), ("cuBLAS", rc)] {
        if r.is_some_and(|r| r.is_nan() || r > limit) {
            warn.push(format!("{who} factors fail |PA−LU| ≤ 10nε·|L||U|"));
        }
    }
    None
}

/// Condition estimate `max_k ‖A_k‖₁·‖A_k⁻¹‖₁` over the checked matrices.
fn cond_estimate<T: Scalar>(a: &[Vec<T>], inv: &[Vec<T>], sizes: &[usize]) -> f64 {
    a.iter()
        .zip(inv)
        .zip(sizes)
        .map(|((a, x), &n)| norm1(a, n) * norm1(x, n))
        .fold(0.0, f64::max)
}

/// Runs the uniform-batch rows for order `n`, requested batch `wanted`, type `T`.
pub fn run_uniform<T: CublasLu>(
    cx: &LuCtx<'_>,
    n: usize,
    wanted: usize,
    rhs: &[usize],
    out: &mut Vec<LuRow>,
) {
    if let Err(e) = uniform::<T>(cx, n, wanted, rhs, out) {
        eprintln!("lu {} n = {n}: skipped: {e}", dtype::<T>());
    }
}

fn uniform<T: CublasLu>(
    cx: &LuCtx<'_>,
    n: usize,
    wanted: usize,
    rhs_counts: &[usize],
    out: &mut Vec<LuRow>,
) -> Result<(), String> {
    let dev = cx.dev;
    let es = std::mem::size_of::<T>();
    let rhs_cols = rhs_counts.iter().sum();
    let solves_only = SOLVES_ONLY.load(Ordering::Relaxed);
    let batch = model::batch_that_fits(wanted, n, es, rhs_cols, cx.budget);
    let nn = n * n;
    eprintln!("lu {} n = {n}, batch {batch}", dtype::<T>());
    let layout = BatchLayout::packed(n, batch);
    let sizes = vec![n; batch];
    let offsets: Vec<usize> = (0..batch).map(|k| k * nn).collect();
    let host = well_conditioned::<T>(&sizes, &offsets, batch * nn, seed::<T>(n));
    let checked: Vec<usize> = if batch > 1 {
        vec![0, batch - 1]
    } else {
        vec![0]
    };
    let a_checked: Vec<Vec<T>> = checked
        .iter()
        .map(|&k| host[k * nn..(k + 1) * nn].to_vec())
        .collect();
    let e = |e: gpu_blas::Error| e.to_string();
    let orig = DeviceVec::from_vec(dev, host).map_err(e)?;
    let mut work = orig.try_clone().map_err(e)?;
    let mut inv = DeviceVec::<T>::zeros(dev, batch * nn).map_err(e)?;
    let mut piv = DeviceVec::<i32>::zeros(dev, n * batch).map_err(e)?;
    let mut info = DeviceVec::<i32>::zeros(dev, batch).map_err(e)?;
    let piv_cb = DeviceVec::<i32>::zeros(dev, n * batch).map_err(e)?;
    let info_cb = DeviceVec::<i32>::zeros(dev, batch).map_err(e)?;
    let info_ri_cb = DeviceVec::<i32>::zeros(dev, batch).map_err(e)?;
    let mut rhs_sets = rhs_counts
        .iter()
        .map(|&k| RhsSet::<T>::new(dev, n, batch, k, &checked, seed::<T>(n) + k as u64))
        .collect::<Result<Vec<_>, _>>()?;
    let (orig_p, work_p, inv_p) = (ptr(&orig), ptr(&work), ptr(&inv));
    let a_orig = addresses(dev, orig_p, offsets.iter().copied(), es)?;
    let a_work = addresses(dev, work_p, offsets.iter().copied(), es)?;
    let a_inv = addresses(dev, inv_p, offsets.iter().copied(), es)?;
    let (pa_orig, pa_work, pa_inv) = (ptr(&a_orig), ptr(&a_work), ptr(&a_inv));
    let (piv_cb_p, info_cb_p, info_ri_p) = (ptr(&piv_cb), ptr(&info_cb), ptr(&info_ri_cb));
    let (nc, bc) = (n as c_int, batch as c_int);
    let cublas = cx.cublas;
    // Copy closures (raw stream and addresses), reused by several measurements.
    let stream = cx.stream.cu_stream();
    let restore = move || dtod(stream, work_p, orig_p, batch * nn * es);
    let mats = |v: &DeviceVec<T>| -> Vec<Vec<T>> {
        checked.iter().map(|&k| fetch(v, k * nn, nn)).collect()
    };
    let pivs = |v: &DeviceVec<i32>| -> Vec<Vec<i32>> {
        checked.iter().map(|&k| fetch(v, k * n, n)).collect()
    };
    let cb_getrf = || {
        // SAFETY: the address arrays list `batch` matrices of order n inside live buffers; the
        // pivot and info arrays have n·batch and batch ints; cuBLAS runs on the device stream.
        unsafe { T::getrf_batched(cublas, nc, pa_work, nc, piv_cb_p, info_cb_p, bc) }
    };
    let cb_getri = || {
        // SAFETY: as `cb_getrf`; the outputs (`a_inv`) do not overlap the factors.
        unsafe { T::getri_batched(cublas, nc, pa_work, nc, piv_cb_p, pa_inv, nc, info_ri_p, bc) }
    };

    // Ours: factor, then invert and solve from our factors.
    eprintln!("  ours getrf/getri/getrs");
    let ours_rf = measure_reset(cx, restore, || {
        getrf_batched(layout, &mut work, &mut piv, &mut info)
    })
    .map_err(ours_failure);
    let (mut f_ours, mut p_ours) = (None, None);
    let mut warn_rf = Vec::new();
    if ours_rf.is_ok() {
        f_ours = Some(mats(&work));
        p_ours = Some(pivs(&piv));
        if fetch(&info, 0, batch).iter().any(|&i| i != 0) {
            warn_rf.push("our info reports a singular matrix".to_string());
        }
    }
    let mut ours_ri = Err(String::from("skipped"));
    let mut ours_rs: Vec<Solved<T>> = rhs_sets
        .iter()
        .map(|_| (Err(String::from("skipped")), None))
        .collect();
    let mut inv_ours = None;
    let run_ours_solves = |piv: &DeviceVec<i32>,
                           info: &DeviceVec<i32>,
                           work: &DeviceVec<T>,
                           inv: &mut DeviceVec<T>,
                           sets: &mut [RhsSet<T>]| {
        let ri = if solves_only {
            Err(String::from("skipped"))
        } else {
            measure(cx, || getri_batched(layout, work, piv, info, inv, nn)).map_err(ours_failure)
        };
        let inv_s = ri.is_ok().then(|| mats(inv));
        let rs: Vec<Solved<T>> = sets
            .iter_mut()
            .map(|set| {
                let (k, restore_b) = (set.nrhs, set.restore(stream));
                let t = measure_reset(cx, restore_b, || {
                    getrs_batched(layout, Trans::N, work, piv, &mut set.work, k, n * k)
                })
                .map_err(ours_failure);
                let x = t.is_ok().then(|| set.solutions(&checked));
                (t, x)
            })
            .collect();
        (ri, inv_s, rs)
    };
    if ours_rf.is_ok() {
        (ours_ri, inv_ours, ours_rs) = run_ours_solves(&piv, &info, &work, &mut inv, &mut rhs_sets);
    }

    // cuBLAS: factor, then invert and solve from its factors.
    eprintln!("  cuBLAS getrf/getri/getrs");
    let cb_rf = measure_reset(cx, restore, cb_getrf);
    let (mut f_cb, mut p_cb) = (None, None);
    if cb_rf.is_ok() {
        f_cb = Some(mats(&work));
        p_cb = Some(pivs(&piv_cb));
        if fetch(&info_cb, 0, batch).iter().any(|&i| i != 0) {
            warn_rf.push("cuBLAS info reports a singular matrix".to_string());
        }
    }
    let cb_ri = if solves_only {
        Err("skipped".into())
    } else if cb_rf.is_ok() {
        measure(cx, cb_getri)
    } else {
        Err("needs cuBLAS getrf".into())
    };
    let inv_cb = cb_ri.is_ok().then(|| mats(&inv));
    let cb_rs: Vec<Solved<T>> = rhs_sets
        .iter()
        .map(|set| {
            if cb_rf.is_err() {
                return (Err("needs cuBLAS getrf".into()), None);
            }
            let (k, pa_b) = (set.nrhs as c_int, ptr(&set.addrs));
            let t = measure_reset(cx, set.restore(stream), || {
                // SAFETY: as `cb_getrf`; `set.addrs` lists `batch` blocks of k right-hand
                // sides of length n (leading dimension n) inside `set.work`.
                let i = unsafe {
                    T::getrs_batched(cublas, nc, k, pa_work, nc, piv_cb_p, pa_b, nc, bc)
                }?;
                if i == 0 {
                    Ok(())
                } else {
                    Err(format!("getrsBatched: invalid parameter {}", -i))
                }
            });
            let x = t.is_ok().then(|| set.solutions(&checked));
            (t, x)
        })
        .collect();
    let mut note = "";
    if ours_rf.is_err() && cb_rf.is_ok() {
        // Our factorization is unavailable: time our getri / getrs on cuBLAS's factors.
        (ours_ri, inv_ours, ours_rs) =
            run_ours_solves(&piv_cb, &info_cb, &work, &mut inv, &mut rhs_sets);
        note = "cuBLAS factors";
    }

    // Full inverse: ours in one call, cuBLAS getrf + getri on a restored copy, matinvBatched.
    let skipped = || Err(String::from("skipped"));
    let (mut ours_inv, mut cb_inv, mut full_ours, mut full_cb, mut matinv) =
        (skipped(), skipped(), None, None, None);
    if !solves_only {
        eprintln!("  full inverses");
        ours_inv = measure(cx, || {
            inverse_batched(layout, &orig, &mut inv, nn).map(drop)
        })
        .map_err(ours_failure);
        full_ours = ours_inv.is_ok().then(|| mats(&inv));
        cb_inv = measure_reset(cx, restore, || {
            cb_getrf()?;
            cb_getri()
        });
        full_cb = cb_inv.is_ok().then(|| mats(&inv));
        matinv = (n <= 32).then(|| {
            let r = measure(cx, || {
                // SAFETY: `a_orig` and `a_inv` list `batch` disjoint matrices of order n ≤ 32;
                // info has batch ints.
                unsafe { T::matinv_batched(cublas, nc, pa_orig, nc, pa_inv, nc, info_ri_p, bc) }
            });
            let m = r.is_ok().then(|| mats(&inv));
            (r, m)
        });
    }

    // Tolerance from cuBLAS's inverse (or any inverse we have).
    let any_inv = inv_cb
        .as_ref()
        .or(full_cb.as_ref())
        .or(full_ours.as_ref())
        .or(inv_ours.as_ref());
    let tol = any_inv.map(|x| {
        let cond = cond_estimate(&a_checked, x, &vec![n; checked.len()]);
        model::tolerance(n, T::epsilon().to_c64().re, cond)
    });
    let rf_diff = getrf_diff(
        &a_checked,
        &vec![n; checked.len()],
        (&f_ours, &p_ours),
        (&f_cb, &p_cb),
        &mut warn_rf,
    );
    let shape = Shape {
        dtype: dtype::<T>(),
        sizes: &sizes,
        elem: es,
        complex: T::IS_COMPLEX,
        tol,
    };
    let mut push = |p: Pair<'_>| out.push(row(cx, &shape, p));
    push(Pair {
        op: "getrf",
        baseline: "cuBLAS getrfBatched".into(),
        ours: ours_rf,
        ours_note: "",
        base: cb_rf,
        lu_op: LuOp::Getrf,
        diff: rf_diff,
        warning: warn_rf,
    });
    if !solves_only {
        push(Pair {
            op: "getri",
            baseline: "cuBLAS getriBatched".into(),
            ours: ours_ri,
            ours_note: note,
            base: cb_ri,
            lu_op: LuOp::Getri,
            diff: diff_of(&inv_ours, &inv_cb),
            warning: Vec::new(),
        });
    }
    for ((set, (t_ours, x_ours)), (t_cb, x_cb)) in rhs_sets.iter().zip(ours_rs).zip(cb_rs) {
        // When the solutions differ, say whose residual ‖A·x − b‖ is off.
        let mut warn_rs = Vec::new();
        if let (Some(xo), Some(xc)) = (&x_ours, &x_cb) {
            let res = |x: &[Vec<T>]| -> f64 {
                a_checked
                    .iter()
                    .zip(&set.checked)
                    .zip(x)
                    .map(|((a, b), x)| columns_residual(n, a, x, b))
                    .fold(0.0, |m, r| if r.is_nan() { f64::NAN } else { m.max(r) })
            };
            let (ro, rc) = (res(xo), res(xc));
            let limit = 10.0 * n as f64 * T::epsilon().to_c64().re;
            if !(ro <= limit && rc <= limit) {
                warn_rs.push(format!(
                    "scaled residuals ‖Ax−b‖/(‖A‖‖x‖+‖b‖): ours {ro:.1e}, cuBLAS {rc:.1e}"
                ));
            }
        }
        let op = format!("getrs nrhs={}", set.nrhs);
        push(Pair {
            op: &op,
            baseline: "cuBLAS getrsBatched".into(),
            ours: t_ours,
            ours_note: note,
            base: t_cb,
            lu_op: LuOp::Getrs { nrhs: set.nrhs },
            diff: diff_of(&x_ours, &x_cb),
            warning: warn_rs,
        });
    }
    if solves_only {
        return Ok(());
    }
    push(Pair {
        op: "inverse",
        baseline: "cuBLAS getrf+getri".into(),
        ours: ours_inv.clone(),
        ours_note: "",
        base: cb_inv,
        lu_op: LuOp::Inverse,
        diff: diff_of(&full_ours, &full_cb),
        warning: Vec::new(),
    });
    if let Some((r, m)) = matinv {
        push(Pair {
            op: "inverse",
            baseline: "cuBLAS matinvBatched".into(),
            ours: ours_inv,
            ours_note: "",
            base: r,
            lu_op: LuOp::Inverse,
            diff: diff_of(&full_ours, &m),
            warning: Vec::new(),
        });
    }
    Ok(())
}

/// Runs the variable-size rows: `count` orders drawn uniformly from `lo..=hi`.
pub fn run_var<T: CublasLu>(
    cx: &LuCtx<'_>,
    count: usize,
    lo: usize,
    hi: usize,
    out: &mut Vec<LuRow>,
) {
    if let Err(e) = var::<T>(cx, count, lo, hi, out) {
        eprintln!("lu {} vbatch: skipped: {e}", dtype::<T>());
    }
}

fn var<T: CublasLu>(
    cx: &LuCtx<'_>,
    count: usize,
    lo: usize,
    hi: usize,
    out: &mut Vec<LuRow>,
) -> Result<(), String> {
    let dev = cx.dev;
    let es = std::mem::size_of::<T>();
    let mut sizes = model::draw_sizes(count, lo, hi, (1u64 << 32) | T::PREFIX as u64);
    // Keep the longest prefix whose buffers fit the budget.
    let mut bytes = 0.0;
    let keep = sizes
        .iter()
        .take_while(|&&n| {
            bytes += (model::BUFFERS * n * n * es) as f64;
            bytes <= cx.budget
        })
        .count()
        .max(1);
    sizes.truncate(keep);
    let batch = sizes.len();
    eprintln!("lu {} vbatch of {batch}, n in {lo}..={hi}", dtype::<T>());
    let vb = VarBatch::packed(&sizes);
    let len = vb.required_len();
    let host = well_conditioned::<T>(&sizes, &vb.offsets, len, seed::<T>(hi) + 7);
    let groups = model::group_by_size(&sizes);
    // Checked: the first matrix of the smallest order and of the largest.
    let checked: Vec<usize> = {
        let mut c = vec![groups[0].1[0], groups[groups.len() - 1].1[0]];
        c.dedup();
        c
    };
    let a_checked: Vec<Vec<T>> = checked
        .iter()
        .map(|&k| host[vb.offsets[k]..vb.offsets[k] + sizes[k] * sizes[k]].to_vec())
        .collect();
    let checked_n: Vec<usize> = checked.iter().map(|&k| sizes[k]).collect();
    let e = |e: gpu_blas::Error| e.to_string();
    let orig = DeviceVec::from_vec(dev, host).map_err(e)?;
    let mut work = orig.try_clone().map_err(e)?;
    let mut inv = DeviceVec::<T>::zeros(dev, len).map_err(e)?;
    let npiv = vb.pivot_len();
    let mut piv = DeviceVec::<i32>::zeros(dev, npiv).map_err(e)?;
    let mut info = DeviceVec::<i32>::zeros(dev, batch).map_err(e)?;
    let piv_cb = DeviceVec::<i32>::zeros(dev, npiv).map_err(e)?;
    let info_cb = DeviceVec::<i32>::zeros(dev, batch).map_err(e)?;
    let info_ri_cb = DeviceVec::<i32>::zeros(dev, batch).map_err(e)?;
    let (orig_p, work_p, inv_p) = (ptr(&orig), ptr(&work), ptr(&inv));
    // cuBLAS: matrices in group order; group g's addresses, pivots and infos are contiguous.
    let order: Vec<usize> = groups
        .iter()
        .flat_map(|(_, ks)| ks.iter().copied())
        .collect();
    let a_work = addresses(dev, work_p, order.iter().map(|&k| vb.offsets[k]), es)?;
    let a_inv = addresses(dev, inv_p, order.iter().map(|&k| vb.offsets[k]), es)?;
    let (pa_work, pa_inv) = (ptr(&a_work), ptr(&a_inv));
    let (piv_cb_p, info_cb_p, info_ri_p) = (ptr(&piv_cb), ptr(&info_cb), ptr(&info_ri_cb));
    // (order, count, first matrix in group order, first pivot) of each group.
    let mut calls = Vec::with_capacity(groups.len());
    let (mut at, mut pat) = (0usize, 0usize);
    for (n, ks) in &groups {
        calls.push((*n, ks.len(), at, pat));
        at += ks.len();
        pat += n * ks.len();
    }
    // Where each matrix's pivots lie: ours in batch order, cuBLAS's in group order.
    let mut piv_ours_at = vec![0usize; batch];
    let mut s = 0;
    for (k, &n) in sizes.iter().enumerate() {
        piv_ours_at[k] = s;
        s += n;
    }
    let mut piv_cb_at = vec![0usize; batch];
    let mut info_cb_at = vec![0usize; batch];
    for ((n, ks), &(_, _, first, pfirst)) in groups.iter().zip(&calls) {
        for (i, &k) in ks.iter().enumerate() {
            piv_cb_at[k] = pfirst + i * n;
            info_cb_at[k] = first + i;
        }
    }
    let cublas = cx.cublas;
    let stream = cx.stream.cu_stream();
    let restore = move || dtod(stream, work_p, orig_p, len * es);
    let mats = |v: &DeviceVec<T>| -> Vec<Vec<T>> {
        checked
            .iter()
            .map(|&k| fetch(v, vb.offsets[k], sizes[k] * sizes[k]))
            .collect()
    };
    let cb_getrf = || {
        for &(n, cnt, first, pfirst) in &calls {
            // SAFETY: the address array holds, from `first`, `cnt` matrices of order n inside
            // `work`; the pivot and info arrays have room from `pfirst` / `first` on.
            unsafe {
                T::getrf_batched(
                    cublas,
                    n as c_int,
                    pa_work + (first * 8) as u64,
                    n as c_int,
                    piv_cb_p + (pfirst * 4) as u64,
                    info_cb_p + (first * 4) as u64,
                    cnt as c_int,
                )
            }?;
        }
        Ok::<(), String>(())
    };
    let cb_getri = || {
        for &(n, cnt, first, pfirst) in &calls {
            // SAFETY: as in `cb_getrf`; the outputs lie in `inv`, disjoint from the factors.
            unsafe {
                T::getri_batched(
                    cublas,
                    n as c_int,
                    pa_work + (first * 8) as u64,
                    n as c_int,
                    piv_cb_p + (pfirst * 4) as u64,
                    pa_inv + (first * 8) as u64,
                    n as c_int,
                    info_ri_p + (first * 4) as u64,
                    cnt as c_int,
                )
            }?;
        }
        Ok::<(), String>(())
    };

    let ours_rf = measure_reset(cx, restore, || {
        getrf_vbatched(&vb, &mut work, &mut piv, &mut info)
    })
    .map_err(ours_failure);
    let (mut f_ours, mut p_ours) = (None, None);
    let mut warn_rf = Vec::new();
    let mut ours_ri = Err(String::from("skipped"));
    let mut inv_ours = None;
    if ours_rf.is_ok() {
        f_ours = Some(mats(&work));
        p_ours = Some(
            checked
                .iter()
                .map(|&k| fetch(&piv, piv_ours_at[k], sizes[k]))
                .collect::<Vec<_>>(),
        );
        if fetch(&info, 0, batch).iter().any(|&i| i != 0) {
            warn_rf.push("our info reports a singular matrix".to_string());
        }
        ours_ri =
            measure(cx, || getri_vbatched(&vb, &work, &piv, &info, &mut inv)).map_err(ours_failure);
        inv_ours = ours_ri.is_ok().then(|| mats(&inv));
    }
    let cb_rf = measure_reset(cx, restore, cb_getrf);
    let (mut f_cb, mut p_cb) = (None, None);
    if cb_rf.is_ok() {
        f_cb = Some(mats(&work));
        p_cb = Some(
            checked
                .iter()
                .map(|&k| fetch(&piv_cb, piv_cb_at[k], sizes[k]))
                .collect::<Vec<_>>(),
        );
        if fetch(&info_cb, 0, batch).iter().any(|&i| i != 0) {
            warn_rf.push("cuBLAS info reports a singular matrix".to_string());
        }
    }
    let cb_ri = if cb_rf.is_ok() {
        measure(cx, cb_getri)
    } else {
        Err("needs cuBLAS getrf".into())
    };
    let inv_cb = cb_ri.is_ok().then(|| mats(&inv));
    let mut note = "";
    if ours_rf.is_err() && cb_rf.is_ok() {
        // Our factorization is unavailable: feed cuBLAS's factors, pivots reordered to ours.
        let pc = fetch(&piv_cb, 0, npiv);
        let ic = fetch(&info_cb, 0, batch);
        let mut po = vec![0i32; npiv];
        let mut io = vec![0i32; batch];
        for k in 0..batch {
            let n = sizes[k];
            po[piv_ours_at[k]..piv_ours_at[k] + n]
                .copy_from_slice(&pc[piv_cb_at[k]..piv_cb_at[k] + n]);
            io[k] = ic[info_cb_at[k]];
        }
        piv.copy_from_slice(&po).map_err(e)?;
        info.copy_from_slice(&io).map_err(e)?;
        ours_ri =
            measure(cx, || getri_vbatched(&vb, &work, &piv, &info, &mut inv)).map_err(ours_failure);
        inv_ours = ours_ri.is_ok().then(|| mats(&inv));
        note = "cuBLAS factors";
    }
    let tol = inv_cb.as_ref().or(inv_ours.as_ref()).map(|x| {
        let cond = cond_estimate(&a_checked, x, &checked_n);
        let n_max = checked_n.iter().copied().max().unwrap_or(hi);
        model::tolerance(n_max, T::epsilon().to_c64().re, cond)
    });
    let rf_diff = getrf_diff(
        &a_checked,
        &checked_n,
        (&f_ours, &p_ours),
        (&f_cb, &p_cb),
        &mut warn_rf,
    );
    let groups_label = format!("({} calls, one per order)", groups.len());
    let shape = Shape {
        dtype: dtype::<T>(),
        sizes: &sizes,
        elem: es,
        complex: T::IS_COMPLEX,
        tol,
    };
    out.push(row(
        cx,
        &shape,
        Pair {
            op: "getrf vbatch",
            baseline: format!("cuBLAS getrfBatched {groups_label}"),
            ours: ours_rf,
            ours_note: "",
            base: cb_rf,
            lu_op: LuOp::Getrf,
            diff: rf_diff,
            warning: warn_rf,
        },
    ));
    out.push(row(
        cx,
        &shape,
        Pair {
            op: "getri vbatch",
            baseline: format!("cuBLAS getriBatched {groups_label}"),
            ours: ours_ri,
            ours_note: note,
            base: cb_ri,
            lu_op: LuOp::Getri,
            diff: diff_of(&inv_ours, &inv_cb),
            warning: Vec::new(),
        },
    ));
    Ok(())
}

/// `batch` well-conditioned matrices of order `n`, packed (for the tuning sweep).
pub fn well_conditioned_packed<T: Scalar>(n: usize, batch: usize) -> Vec<T> {
    let sizes = vec![n; batch];
    let offsets: Vec<usize> = (0..batch).map(|k| k * n * n).collect();
    well_conditioned::<T>(&sizes, &offsets, batch * n * n, seed::<T>(n))
}

/// Times an in-place call on `work`, restored from `orig` before every call.
pub fn time_in_place<T: Element>(
    cx: &LuCtx<'_>,
    orig: &DeviceVec<T>,
    work: &mut DeviceVec<T>,
    mut f: impl FnMut(&mut DeviceVec<T>) -> gpu_blas::Result<()>,
) -> Result<f64, String> {
    let stream = cx.stream.cu_stream();
    let (wp, op) = (ptr(work), ptr(orig));
    let bytes = orig.len() * std::mem::size_of::<T>();
    let restore = move || dtod(stream, wp, op, bytes);
    measure_reset(cx, restore, || f(work)).map_err(ours_failure)
}

/// Times an out-of-place call.
pub fn time_out_of_place(
    cx: &LuCtx<'_>,
    f: impl FnMut() -> gpu_blas::Result<()>,
) -> Result<f64, String> {
    measure(cx, f).map_err(ours_failure)
}

#[cfg(test)]
mod tests {
    use super::{lu_residual, matrices, solve_residual};

    /// Two matrices (orders 2 and 3 at offsets 0 and 4, one gap element between them): the
    /// harness's matrices are the general ones plus n on each diagonal, nothing else.
    #[test]
    fn general_matrices_lack_only_the_diagonal_shift() {
        let (sizes, offsets) = ([2usize, 3], [0usize, 5]);
        let dd = matrices::<f64>(&sizes, &offsets, 14, 9, false);
        let general = matrices::<f64>(&sizes, &offsets, 14, 9, true);
        let diagonal = |i: usize| match i {
            0 | 3 => Some(2.0),
            5 | 9 | 13 => Some(3.0),
            _ => None,
        };
        for i in 0..14 {
            assert_eq!(
                dd[i],
                general[i] + diagonal(i).unwrap_or(0.0),
                "element {i}"
            );
        }
    }

    /// `A = [[2, 1], [1, 3]]`, `b = A·[1, 1] = [3, 4]`: the exact solution has residual 0, a
    /// wrong one `‖A·x − b‖∞ / (‖A‖∞·‖x‖∞ + ‖b‖∞)` = 4 / (4·0 + 4) = 1 for `x = [0, 0]`.
    #[test]
    fn solve_residual_of_exact_and_wrong_solutions() {
        let a = [2.0f64, 1.0, 1.0, 3.0];
        let b = [3.0, 4.0];
        assert_eq!(solve_residual(2, &a, &[1.0, 1.0], &b), 0.0);
        assert_eq!(solve_residual(2, &a, &[0.0, 0.0], &b), 4.0 / 4.0);
    }

    /// `A = [[1, 2], [3, 4]]` (column-major `[1, 3, 2, 4]`): partial pivoting takes row 2
    /// first, `L = [[1, 0], [1/3, 1]]`, `U = [[3, 4], [0, 2/3]]`, exact in binary to within
    /// rounding; the same factors with the pivot left out, or a wrong U entry, are order-1
    /// wrong, and an out-of-range pivot gives NaN.
    #[test]
    fn lu_residual_of_right_and_wrong_factors() {
        let a = [1.0f64, 3.0, 2.0, 4.0];
        let f = [3.0, 1.0 / 3.0, 4.0, 2.0 - 4.0 / 3.0];
        assert!(lu_residual(2, &a, &f, &[2, 2]) < 4.0 * f64::EPSILON);
        assert!(lu_residual(2, &a, &f, &[1, 2]) > 0.1);
        let wrong_u = [3.0, 1.0 / 3.0, 5.0, 2.0 - 4.0 / 3.0];
        assert!(lu_residual(2, &a, &wrong_u, &[2, 2]) > 0.1);
        assert!(lu_residual(2, &a, &f, &[3, 2]).is_nan());
        assert!(lu_residual(2, &a, &f, &[0, 2]).is_nan());
    }
}
