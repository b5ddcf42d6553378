//! Dense-inverse section: every `dense-inverse` method on one large matrix on the GPU, against
//! the cuSOLVER inverse of the same matrix (general: `getrf` + `getrs` on the identity; SPD:
//! `potrf` + `potri`, lower triangle), with a residual check of both results and, at small
//! orders, our CPU backend timed on the same matrix.

use crate::blas1::dtype;
use crate::cusolver::{Cusolver, CusolverInv};
use crate::inv_model::{self as model, Resid, Structure};
use crate::report::InvRow;
use crate::timing::{time_in_place_ms, try_time_ms, Plan};
use cudarc::driver::result as drv;
use cudarc::driver::sys::{self as dsys, CUstream};
use cudarc::driver::{CudaContext, CudaStream};
use dense_inverse::{Bordering, Method};
use gpu_blas::blas2::Uplo;
use gpu_blas::{interop, Device, DeviceMatrix, DeviceVec, Element, Scalar};
use std::ffi::c_int;
use std::sync::Arc;
use std::time::Instant;

/// How the section measures, for the printed report.
pub const METHOD: &str = "\
Ours: each `dense-inverse` method called on a `DeviceMatrix` on the CUDA device, out of place \
(the input is left unchanged and every call returns a new n × n matrix: that allocation, and \
any synchronisation inside the call, count as our time). \
General matrix: entries with real and imaginary parts uniform in [-1, 1) plus n on the \
diagonal (column diagonally dominant, so partial pivoting interchanges no rows; condition \
number near 1), generated on the host once per (n, type). Ours: `lu_inverse`, \
`gauss_jordan_inverse` and `inverse(Auto)` (which also tests for Hermitian input and \
computes rcond from the inverse); baseline: cuSOLVER `<t>getrf` (workspace from `<t>getrf_bufferSize`, \
allocated once) then `<t>getrs` with the identity as the n right-hand sides, the way CuPy and \
PyTorch compute an inverse. \
SPD matrix: the Hermitian part (A + Aᴴ)/2 of the general matrix (exactly symmetric or \
Hermitian, positive definite, condition number near 1). Ours: `cholesky_inverse(Lower)`, \
`bordering_inverse(Lower, Unblocked)`, `bordering_inverse(Lower, Blocked(b))` for b = 64, \
256 and 512, and `inverse(Auto)`; the unblocked bordering row's note gives the least traffic \
of its steps (each reads and writes the stored triangle of the current inverse once: \
(n−1)n(n+1)/3 elements) and that traffic's rate over the whole call as a share of the copy \
bandwidth, and the rate of the steps of order n/2 and more: the traffic difference over the \
time difference between the call and the same call on the leading n/2 × n/2 block (timed \
alike, not in the table); baseline: cuSOLVER `<t>potrf` + `<t>potri` on the lower triangle (one \
workspace, the larger of the two queries); cuSOLVER's result is the lower triangle, ours the \
full matrix. \
cuSOLVER runs on the device's stream, in place: before every call its input is restored by a \
device-to-device copy from the pristine matrix (and for `getrs` the right-hand side reset to \
the identity by memsets), enqueued before the start event and not timed; a call under 1 ms is \
timed instead as reset + call back to back minus the reset alone. \
Times are medians of CUDA-event timings: two untimed probe calls (one when the first takes \
over 1 s), then warm-up calls and repeats: 3 warm-ups and the harness's repeat count, or one \
warm-up and 3 repeats for calls over 50 ms, or no further warm-up and 3 repeats for calls over \
1 s; calls under 2 ms are timed several per event pair. Ratio = ours on the GPU / cuSOLVER. \
TFLOP/s credits 2n³ real flops to a general inverse and n³ to an SPD inverse whatever the \
method does, ×4 for complex types. \
Check, on the result downloaded from the device, in f64 (Complex<f64>) host arithmetic: for \
n ≤ 2000 `AX-I` = ‖A·X − I‖∞ / (n·ε·‖A‖∞·‖X‖∞); above, `AXv-v` = ‖A·(X·v) − v‖∞ / \
(n·ε·‖A‖∞·‖X‖∞·‖v‖∞) for one random v (a lower bound of the former at O(n²) cost); ε of the \
type; cuSOLVER's `potri` triangle is mirrored to the full matrix first. Values well under 1 \
are expected; above 30 (LAPACK's threshold for this ratio) is printed as a warning, as are \
non-zero cuSOLVER `info` values. \
CPU: the same methods on our CPU backend (`Device::cpu()`, rayon threads) for n ≤ 4000 (unless \
`--inv-cpu` says otherwise): host wall clock, the better of two calls (one when the first \
takes over 2 s), checked the same way. `unsupported`: our GPU path refuses the call \
(`gpu_blas::Error::Unsupported`).";

/// What the section needs from the harness.
pub struct InvCtx<'a> {
    pub dev: &'a Device,
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub reps: usize,
    /// The cuSOLVER handle, or why there is none (the rows then have no baseline).
    pub solver: Result<Cusolver, String>,
    pub cpu: Device,
    /// Largest order our CPU backend is timed at.
    pub cpu_max_n: usize,
    /// The device copy bandwidth measured in this run (GB/s, bytes read + written).
    pub copy_gbps: f64,
}

impl<'a> InvCtx<'a> {
    pub fn new(dev: &'a Device, reps: usize, cpu_max_n: usize, copy_gbps: f64) -> Self {
        let ctx = interop::cuda_context(dev).expect("CUDA device");
        let stream = interop::cuda_stream(dev).expect("CUDA device");
        let solver = Cusolver::new(stream.cu_stream());
        if let Err(e) = &solver {
            eprintln!("inverse: no cuSOLVER baseline: {e}");
        }
        InvCtx {
            dev,
            ctx,
            stream,
            reps,
            solver,
            cpu: Device::cpu(),
            cpu_max_n,
            copy_gbps,
        }
    }
}

/// Our methods, as timed.
#[derive(Clone, Copy, Debug)]
enum Ours {
    Lu,
    GaussJordan,
    Cholesky,
    BorderingUnblocked,
    BorderingBlocked(usize),
    Auto,
}

const GENERAL_METHODS: [Ours; 3] = [Ours::Lu, Ours::GaussJordan, Ours::Auto];
const SPD_METHODS: [Ours; 6] = [
    Ours::Cholesky,
    Ours::BorderingUnblocked,
    Ours::BorderingBlocked(64),
    Ours::BorderingBlocked(256),
    Ours::BorderingBlocked(512),
    Ours::Auto,
];

impl Ours {
    fn label(self) -> String {
        match self {
            Ours::Lu => "lu_inverse".into(),
            Ours::GaussJordan => "gauss_jordan_inverse".into(),
            Ours::Cholesky => "cholesky_inverse(Lower)".into(),
            Ours::BorderingUnblocked => "bordering_inverse(Lower, Unblocked)".into(),
            Ours::BorderingBlocked(b) => format!("bordering_inverse(Lower, Blocked({b}))"),
            Ours::Auto => "inverse(Auto)".into(),
        }
    }

    /// The inverse of `a` (a new matrix), and for `inverse(Auto)` the method it chose.
    fn call<T: Scalar>(
        self,
        a: &DeviceMatrix<T>,
    ) -> dense_inverse::Result<(DeviceMatrix<T>, Option<Method>)> {
        let plain = |m| (m, None);
        match self {
            Ours::Lu => dense_inverse::lu_inverse(a).map(plain),
            Ours::GaussJordan => dense_inverse::gauss_jordan_inverse(a).map(plain),
            Ours::Cholesky => dense_inverse::cholesky_inverse(Uplo::Lower, a).map(plain),
            Ours::BorderingUnblocked => {
                dense_inverse::bordering_inverse(Uplo::Lower, a, Bordering::Unblocked).map(plain)
            }
            Ours::BorderingBlocked(b) => {
                dense_inverse::bordering_inverse(Uplo::Lower, a, Bordering::Blocked(b)).map(plain)
            }
            Ours::Auto => dense_inverse::inverse(a, Method::Auto)
                .map(|inv| (inv.matrix, Some(inv.method_used))),
        }
    }
}

/// Our status for a failed call: `unsupported` (the GPU path is not there yet) or the error.
fn ours_failure(e: dense_inverse::Error) -> String {
    match e {
        dense_inverse::Error::Blas(gpu_blas::Error::Unsupported { .. }) => "unsupported".into(),
        e => format!("error: {e}"),
    }
}

/// Milliseconds under which an in-place call is timed with its reset, back to back, minus the
/// reset alone (launch latency amortised); longer calls are timed one at a time with the reset
/// outside the events.
const FAST_MS: f64 = 1.0;

/// Milliseconds above which a call is slow: one probe call and [`model::repeats`]'s counts.
const SLOW_MS: f64 = 50.0;

fn sync(stream: &CudaStream) -> Result<(), String> {
    stream.synchronize().map_err(|e| format!("CUDA: {e}"))
}

/// Host wall time of a call of `f` (after `reset`), synchronised: the minimum of two calls,
/// or of one when it takes over 1 s. The calls double as warm-up and as the probe for an
/// unsupported operation.
fn probe(
    stream: &CudaStream,
    reset: &mut impl FnMut(),
    f: &mut impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    let mut est = f64::INFINITY;
    for _ in 0..2 {
        reset();
        sync(stream)?;
        let t = Instant::now();
        f()?;
        sync(stream)?;
        est = est.min(t.elapsed().as_secs_f64() * 1e3);
        if est > 1000.0 {
            break;
        }
    }
    Ok(est)
}

/// Times an out-of-place call.
fn measure(cx: &InvCtx<'_>, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    let est = probe(&cx.stream, &mut || {}, &mut f)?;
    let (warmup, reps) = model::repeats(est, cx.reps);
    let plan = if est > SLOW_MS {
        Plan {
            warmup,
            reps,
            inner: 1,
        }
    } else {
        Plan::for_estimate(est, reps)
    };
    let ms = try_time_ms(&cx.ctx, &cx.stream, plan, |_| f())?;
    sync(&cx.stream)?;
    Ok(ms)
}

/// Times an in-place call whose input `reset` restores before each call
/// ([`time_in_place_ms`] with the section's repeats); afterwards the buffers hold one call's
/// result.
fn measure_reset(
    cx: &InvCtx<'_>,
    mut reset: impl FnMut(),
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    let est = probe(&cx.stream, &mut reset, &mut f)?;
    let slow = model::repeats(est, cx.reps);
    time_in_place_ms(&cx.ctx, &cx.stream, est, FAST_MS, cx.reps, slow, reset, f)
}

pub fn ptr<T: Element>(v: &DeviceVec<T>) -> u64 {
    interop::vec_ptr(v).expect("a CUDA buffer")
}

/// Enqueues a device-to-device copy of `bytes` bytes on `stream` (the device's stream).
fn dtod(stream: CUstream, dst: u64, src: u64, bytes: usize) {
    // SAFETY: callers pass addresses of live, disjoint device buffers of at least `bytes`
    // bytes, and the copy is ordered on the stream all work of the device uses.
    unsafe { drv::memcpy_dtod_async(dst, src, bytes, stream) }.expect("copy");
}

/// Enqueues the reset of the `n × n` buffer at `x` to the identity: zero bytes, then one
/// 32-bit word per diagonal element (see [`model::identity_pattern`]).
fn set_identity<T: Scalar>(stream: CUstream, x: u64, n: usize) {
    let (off, word, pitch) = model::identity_pattern::<T>(n);
    // SAFETY: `x` is a live device buffer of n² elements of T; the 2-D memset writes one
    // 4-byte-aligned word at `x + off + r·pitch` for r < n, the last ending at byte
    // `(n − 1)(n + 1)·size + off + 4 ≤ n²·size`; both are ordered on the device's stream.
    unsafe {
        drv::memset_d8_async(x, 0, n * n * std::mem::size_of::<T>(), stream).expect("memset");
        dsys::cuMemsetD2D32Async(x + off as u64, pitch, word, 1, n, stream)
            .result()
            .expect("2-D memset");
    }
}

/// The `n × n` matrix at device address `p` (leading dimension `ld`) on the host, column-major,
/// after the queued work.
fn download<T: Scalar>(stream: &CudaStream, p: u64, ld: usize, n: usize) -> Result<Vec<T>, String> {
    sync(stream)?;
    let es = std::mem::size_of::<T>();
    let mut h = vec![T::default(); n * n];
    let copy = |dst: &mut [T], src: u64| {
        // SAFETY: the stream is synchronised; `src` addresses `dst.len()` elements of T inside
        // a live device buffer.
        unsafe { drv::memcpy_dtoh_sync(dst, src) }.map_err(|e| format!("CUDA: {e}"))
    };
    if ld == n {
        copy(&mut h, p)?;
    } else {
        for (j, col) in h.chunks_mut(n).enumerate() {
            copy(col, p + (j * ld * es) as u64)?;
        }
    }
    Ok(h)
}

/// Our result on the host (column-major, leading dimension n), from either device (`stream`:
/// the CUDA device's, for a result there).
fn result_on_host<T: Scalar>(
    stream: Option<&CudaStream>,
    m: &DeviceMatrix<T>,
    n: usize,
) -> Result<Vec<T>, String> {
    if m.rows() != n || m.cols() != n {
        return Err(format!("result is {}x{}", m.rows(), m.cols()));
    }
    match (interop::matrix_ptr(m), stream) {
        (Some(p), Some(stream)) => download(stream, p, m.ld(), n),
        (Some(_), None) => Err("a CUDA result without its stream".into()),
        (None, _) => m
            .to_array()
            .map(|a| a.t().iter().copied().collect())
            .map_err(|e| e.to_string()),
    }
}

pub fn seed<T: Scalar>(n: usize) -> u64 {
    (1u64 << 40) | ((n as u64) << 8) | T::PREFIX as u64
}

/// The scaled residual of `x` as an inverse of `a` (full check for small orders).
fn check<T: Scalar>(a: &[T], x: &[T], n: usize) -> Resid {
    model::residual(a, x, n, n <= model::FULL_CHECK_MAX_N, seed::<T>(n) + 3)
}

/// Device buffers of one case: cuSOLVER's working matrix, its right-hand side / solution, the
/// pivots and two `info` ints (factorization, then solve or inverse).
struct Bufs {
    work: u64,
    x: u64,
    ipiv: u64,
    info: u64,
}

/// A warning when a residual is above the limit (or not a number).
fn resid_warning(who: &str, r: Option<Resid>) -> Option<String> {
    let r = r?;
    (r.value.is_nan() || r.value > model::RESID_LIMIT)
        .then(|| format!("{who} residual {:.1e} > {}", r.value, model::RESID_LIMIT))
}

/// `Err` (what a case needs, what is free) when `need` bytes exceed 95 % of the device's free
/// memory; `Ok` also where the driver cannot say.
pub fn fits_in_memory(cx: &InvCtx<'_>, need: f64) -> Result<(), String> {
    if let Ok((free, _)) = cx.ctx.mem_get_info() {
        if need > 0.95 * free as f64 {
            return Err(format!(
                "needs about {:.1} GB of device memory, {:.1} GB free",
                need / 1e9,
                free as f64 / 1e9
            ));
        }
    }
    Ok(())
}

/// Runs the rows of order `n`, type `T`: the general matrix, then its Hermitian part.
pub fn run<T: CusolverInv>(cx: &InvCtx<'_>, n: usize, out: &mut Vec<InvRow>) {
    if let Err(e) = case::<T>(cx, n, out) {
        eprintln!("inverse {} n = {n}: skipped: {e}", dtype::<T>());
    }
}

fn case<T: CusolverInv>(cx: &InvCtx<'_>, n: usize, out: &mut Vec<InvRow>) -> Result<(), String> {
    let es = std::mem::size_of::<T>();
    let bytes = n * n * es;
    // The pristine matrix, cuSOLVER's two buffers and our result; ours may need more inside.
    fits_in_memory(cx, 4.0 * bytes as f64 + 256e6)?;
    let t = Instant::now();
    let mut host = model::general::<T>(n, seed::<T>(n));
    eprintln!(
        "inverse {} n = {n}: matrix generated in {:.1} s",
        dtype::<T>(),
        t.elapsed().as_secs_f64()
    );
    let e = |e: gpu_blas::Error| e.to_string();
    let work = DeviceVec::<T>::zeros(cx.dev, n * n).map_err(e)?;
    let xbuf = DeviceVec::<T>::zeros(cx.dev, n * n).map_err(e)?;
    let ipiv = DeviceVec::<i32>::zeros(cx.dev, n).map_err(e)?;
    let info = DeviceVec::<i32>::zeros(cx.dev, 2).map_err(e)?;
    let bufs = Bufs {
        work: ptr(&work),
        x: ptr(&xbuf),
        ipiv: ptr(&ipiv),
        info: ptr(&info),
    };
    for s in [Structure::General, Structure::Spd] {
        if s == Structure::Spd {
            model::make_hermitian(&mut host, n);
        }
        let orig = DeviceMatrix::from_col_major(cx.dev, n, n, n, host.clone()).map_err(e)?;
        block::<T>(cx, s, n, &host, &orig, &bufs, &info, out)?;
    }
    Ok(())
}

/// cuSOLVER's workspace for the factorization (`getrf` / `potrf`) of the n × n buffer at
/// `work`, and with `inverse` for `potri` too (the larger of the two queries): the buffer
/// and its length in elements.
fn workspace<T: CusolverInv>(
    cx: &InvCtx<'_>,
    solver: &Cusolver,
    s: Structure,
    n: usize,
    work: u64,
    inverse: bool,
) -> Result<(DeviceVec<T>, c_int), String> {
    let nc = n as c_int;
    let lwork = match s {
        // SAFETY: `work` is a live n × n device buffer with leading dimension n.
        Structure::General => unsafe { T::getrf_buffer_size(solver, nc, work, nc) }?,
        Structure::Spd => {
            // SAFETY: as above.
            let f = unsafe { T::potrf_buffer_size(solver, nc, work, nc) }?;
            if inverse {
                // SAFETY: as above.
                f.max(unsafe { T::potri_buffer_size(solver, nc, work, nc) }?)
            } else {
                f
            }
        }
    };
    let ws = DeviceVec::<T>::zeros(cx.dev, lwork.max(1) as usize).map_err(|e| e.to_string())?;
    Ok((ws, lwork))
}

/// cuSOLVER's inverse of the matrix at `orig_p`: time, residual and warnings.
fn baseline<T: CusolverInv>(
    cx: &InvCtx<'_>,
    solver: &Cusolver,
    s: Structure,
    n: usize,
    host: &[T],
    orig_p: u64,
    b: &Bufs,
    info: &DeviceVec<i32>,
) -> Result<(f64, Resid, Vec<String>), String> {
    let nc = n as c_int;
    let bytes = n * n * std::mem::size_of::<T>();
    let stream = cx.stream.cu_stream();
    let (info0, info1) = (b.info, b.info + 4);
    let (ws, lwork) = workspace::<T>(cx, solver, s, n, b.work, true)?;
    let ws_p = ptr(&ws);
    let restore = move || dtod(stream, b.work, orig_p, bytes);
    let (ms, x) = match s {
        Structure::General => {
            let ms = measure_reset(
                cx,
                || {
                    restore();
                    set_identity::<T>(stream, b.x, n);
                },
                || {
                    // SAFETY: `work` and `x` are disjoint n × n buffers (leading dimension n),
                    // `ws` holds the queried workspace, `ipiv` n ints and `info` two; all on
                    // the device's stream, which the handle is bound to.
                    unsafe {
                        T::getrf(solver, nc, b.work, nc, ws_p, b.ipiv, info0)?;
                        T::getrs(solver, nc, nc, b.work, nc, b.ipiv, b.x, nc, info1)
                    }
                },
            )?;
            (ms, download::<T>(&cx.stream, b.x, n, n)?)
        }
        Structure::Spd => {
            let ms = measure_reset(cx, restore, || {
                // SAFETY: `work` is an n × n buffer (leading dimension n), `ws` holds `lwork`
                // elements (the larger query), `info` two ints; on the device's stream.
                unsafe {
                    T::potrf(solver, nc, b.work, nc, ws_p, lwork, info0)?;
                    T::potri(solver, nc, b.work, nc, ws_p, lwork, info1)
                }
            })?;
            let mut x = download::<T>(&cx.stream, b.work, n, n)?;
            model::lower_to_full(&mut x, n);
            (ms, x)
        }
    };
    let mut warn = Vec::new();
    let infos = info.to_vec().map_err(|e| e.to_string())?;
    let names = match s {
        Structure::General => ["getrf", "getrs"],
        Structure::Spd => ["potrf", "potri"],
    };
    for (name, &i) in names.iter().zip(&infos) {
        if i != 0 {
            warn.push(format!("cuSOLVER {name} info = {i}"));
        }
    }
    Ok((ms, check(host, &x, n), warn))
}

/// Ours timed on the CPU backend (host wall clock), and the result of the last call.
fn time_cpu<T: Scalar>(
    m: Ours,
    a: &DeviceMatrix<T>,
) -> (Result<f64, String>, Option<DeviceMatrix<T>>) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..2 {
        drop(last.take());
        let t = Instant::now();
        match m.call(a) {
            Ok((x, _)) => {
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
                last = Some(x);
            }
            Err(e) => return (Err(ours_failure(e)), None),
        }
        if best > 2000.0 {
            break;
        }
    }
    (Ok(best), last)
}

/// The rows of one matrix (general or SPD): cuSOLVER once, then each of our methods on the GPU
/// and on the CPU.
#[allow(clippy::too_many_arguments)]
fn block<T: CusolverInv>(
    cx: &InvCtx<'_>,
    s: Structure,
    n: usize,
    host: &[T],
    orig: &DeviceMatrix<T>,
    b: &Bufs,
    info: &DeviceVec<i32>,
    out: &mut Vec<InvRow>,
) -> Result<(), String> {
    let orig_p = interop::matrix_ptr(orig).ok_or("not a CUDA matrix")?;
    let ty = dtype::<T>();
    let (baseline_name, methods): (&str, &[Ours]) = match s {
        Structure::General => ("cuSOLVER getrf+getrs(I)", &GENERAL_METHODS),
        Structure::Spd => ("cuSOLVER potrf+potri (lower)", &SPD_METHODS),
    };
    eprintln!("inverse {ty} n = {n} {}: cuSOLVER", s.label());
    let base = match &cx.solver {
        Ok(solver) => baseline::<T>(cx, solver, s, n, host, orig_p, b, info),
        Err(e) => Err(e.clone()),
    };
    if let Err(e) = &base {
        eprintln!("  cuSOLVER failed: {e}");
    }
    let flops = model::flops(s, n, T::IS_COMPLEX);
    let cpu_a = if n <= cx.cpu_max_n {
        Some(
            DeviceMatrix::from_col_major(&cx.cpu, n, n, n, host.to_vec())
                .map_err(|e| e.to_string())?,
        )
    } else {
        None
    };
    for &m in methods {
        eprintln!("  ours {}", m.label());
        let (ours, last) = measure_kept(cx, || m.call(orig));
        let mut warning = Vec::new();
        let mut note = String::new();
        let mut ours_resid = None;
        if let (Ok(ms), Ours::BorderingUnblocked) = (&ours, m) {
            let half = bordering_half_ms(cx, orig, n);
            if let Err(e) = &half {
                warning.push(format!("n/2 call: {e}"));
            }
            note = model::bordering_traffic_note(
                n,
                std::mem::size_of::<T>(),
                *ms,
                half.ok(),
                cx.copy_gbps,
            );
        }
        if let (Ok(_), Some((x, used))) = (&ours, &last) {
            if let Some(used) = used {
                note = format!("chose {used:?}");
            }
            match result_on_host(Some(&cx.stream), x, n) {
                Ok(h) => ours_resid = Some(check(host, &h, n)),
                Err(e) => warning.push(format!("reading our result: {e}")),
            }
        }
        drop(last);
        let (cpu, cpu_resid) = match &cpu_a {
            Some(a) => {
                eprintln!("  ours {} on the CPU", m.label());
                let (t, x) = time_cpu(m, a);
                let r = x.and_then(|x| match result_on_host(None, &x, n) {
                    Ok(h) => Some(check(host, &h, n)),
                    Err(e) => {
                        warning.push(format!("reading our CPU result: {e}"));
                        None
                    }
                });
                (Some(t), r)
            }
            None => (None, None),
        };
        let (base_ms, base_resid) = match &base {
            Ok((ms, r, w)) => {
                warning.extend(w.iter().cloned());
                (Some(*ms), Some(*r))
            }
            Err(e) => {
                warning.push(format!("baseline failed: {e}"));
                (None, None)
            }
        };
        warning.extend(resid_warning("ours", ours_resid));
        warning.extend(resid_warning("cuSOLVER", base_resid));
        warning.extend(resid_warning("CPU", cpu_resid));
        let ours_ms = ours.as_ref().ok().copied();
        let full = n <= model::FULL_CHECK_MAX_N;
        out.push(InvRow {
            method: m.label(),
            matrix: s.label().into(),
            dtype: ty.into(),
            n,
            ours_status: match &ours {
                Ok(_) => "ok".into(),
                Err(e) => e.clone(),
            },
            ours_ms,
            baseline: baseline_name.into(),
            base_ms,
            ratio: ours_ms.zip(base_ms).map(|(o, b)| o / b),
            flops,
            ours_tflops: ours_ms.map(|ms| model::tflops(flops, ms)),
            base_tflops: base_ms.map(|ms| model::tflops(flops, ms)),
            check: model::check_label(full).into(),
            ours_resid: ours_resid.map(|r| r.value),
            base_resid: base_resid.map(|r| r.value),
            cpu_status: match &cpu {
                None => "not run".into(),
                Some(Ok(_)) => "ok".into(),
                Some(Err(e)) => e.clone(),
            },
            cpu_ms: cpu.and_then(|c| c.ok()),
            cpu_resid: cpu_resid.map(|r| r.value),
            note,
            warning: warning.join("; "),
        });
    }
    if let Ok(solver) = &cx.solver {
        match factor_split::<T>(cx, solver, s, n, orig, b) {
            Ok((label, ours, base)) => eprintln!(
                "  factorization alone: ours {label} {ours:.3} ms, cuSOLVER {} {base:.3} ms ({:.2}×)",
                match s {
                    Structure::General => "getrf",
                    Structure::Spd => "potrf",
                },
                ours / base
            ),
            Err(e) => eprintln!("  factorization alone: {e}"),
        }
    }
    if s == Structure::General {
        // lu_inverse step by step (each step synchronized; the first run warms up).
        let phases = dense_inverse::lu_inverse_phases(orig)
            .and_then(|_| dense_inverse::lu_inverse_phases(orig));
        match phases {
            Ok(list) => {
                for (p, ms) in list {
                    eprintln!("  lu_inverse phase {p:<36} {ms:9.3} ms");
                }
            }
            Err(e) => eprintln!("  lu_inverse phases: {e}"),
        }
        // The same factorization with every panel on the cooperative grid (no cluster).
        dense_inverse::set_panel_cluster(false);
        let grid_only = measure_new(cx, || dense_inverse::lu_factor(orig));
        dense_inverse::set_panel_cluster(true);
        match grid_only {
            Ok(ms) => eprintln!("  lu_factor with cooperative panels only: {ms:.3} ms"),
            Err(e) => eprintln!("  lu_factor with cooperative panels only: {e}"),
        }
        // The same factorization with every step in order on one stream (no lookahead).
        dense_inverse::set_lu_lookahead(false);
        let in_order = measure_new(cx, || dense_inverse::lu_factor(orig));
        let inv_in_order = measure_new(cx, || dense_inverse::lu_inverse(orig));
        dense_inverse::set_lu_lookahead(true);
        match (in_order, inv_in_order) {
            (Ok(f), Ok(i)) => {
                eprintln!("  without lookahead: lu_factor {f:.3} ms, lu_inverse {i:.3} ms")
            }
            (f, i) => eprintln!("  without lookahead: {f:?} {i:?}"),
        }
        // The cluster panels pulling their items after a cluster barrier (the light one)
        // instead of pushing them, tall panels not split into 32-column halves, and every
        // panel forced to one width.
        type Toggle = (String, Box<dyn Fn(bool)>);
        let mut variants: Vec<Toggle> = vec![
            (
                "with the pulling cluster panel (light barrier)".into(),
                Box::new(|on| {
                    let sync = if on {
                        dense_inverse::PanelSync::Light
                    } else {
                        dense_inverse::PanelSync::Push
                    };
                    dense_inverse::set_panel_cluster_variant(512, sync)
                }),
            ),
            (
                "without splitting tall panels".into(),
                Box::new(|on| dense_inverse::set_panel_split(!on)),
            ),
        ];
        for w in [16, 24, 32, 48, 64] {
            variants.push((
                format!("with {w}-column panels everywhere"),
                Box::new(move |on| dense_inverse::set_panel_width(on.then_some(w))),
            ));
        }
        for (label, set) in variants {
            set(true);
            let f = measure_new(cx, || dense_inverse::lu_factor(orig));
            let i = measure_new(cx, || dense_inverse::lu_inverse(orig));
            set(false);
            match (f, i) {
                (Ok(f), Ok(i)) => eprintln!("  {label}: lu_factor {f:.3} ms, lu_inverse {i:.3} ms"),
                (f, i) => eprintln!("  {label}: {f:?} {i:?}"),
            }
        }
    }
    Ok(())
}

/// The unblocked bordering inverse of the leading `n/2 × n/2` block of `orig` (a view; the
/// call works on its own compact copy), timed as the full call is: the unblocked row's note
/// takes the steps of order `n/2` and more from the difference.
fn bordering_half_ms<T: Scalar>(
    cx: &InvCtx<'_>,
    orig: &DeviceMatrix<T>,
    n: usize,
) -> Result<f64, String> {
    let h = n / 2;
    let lead = orig.block(0, 0, h, h).map_err(|e| e.to_string())?;
    measure_new(cx, || {
        dense_inverse::bordering_inverse(Uplo::Lower, lead, Bordering::Unblocked)
    })
}

/// [`measure`] for a call returning a new value: each result is freed before the next call,
/// as a caller would; the last one is returned with the time.
fn measure_kept<R>(
    cx: &InvCtx<'_>,
    mut f: impl FnMut() -> dense_inverse::Result<R>,
) -> (Result<f64, String>, Option<R>) {
    let mut last = None;
    let ms = measure(cx, || {
        drop(last.take());
        last = Some(f().map_err(ours_failure)?);
        Ok(())
    });
    (ms, last)
}

/// [`measure_kept`] without the result.
pub fn measure_new<R>(
    cx: &InvCtx<'_>,
    f: impl FnMut() -> dense_inverse::Result<R>,
) -> Result<f64, String> {
    measure_kept(cx, f).0
}

/// The factorization step alone, ours (`lu_factor` / `cholesky_factor(Lower)`, a new matrix
/// per call) against cuSOLVER's (`getrf` / `potrf`, in place on a restored copy): where an
/// inverse's time goes, for the log (not a table row).
fn factor_split<T: CusolverInv>(
    cx: &InvCtx<'_>,
    solver: &Cusolver,
    s: Structure,
    n: usize,
    orig: &DeviceMatrix<T>,
    b: &Bufs,
) -> Result<(&'static str, f64, f64), String> {
    let base = cusolver_factor_ms::<T>(cx, solver, s, n, orig, (b.work, b.ipiv, b.info))?;
    // Each call's result is freed before the next call, as a caller would.
    let (label, ours) = match s {
        Structure::General => (
            "lu_factor",
            measure_new(cx, || dense_inverse::lu_factor(orig))?,
        ),
        Structure::Spd => (
            "cholesky_factor(Lower)",
            measure_new(cx, || dense_inverse::cholesky_factor(Uplo::Lower, orig))?,
        ),
    };
    Ok((label, ours, base))
}

/// cuSOLVER's factorization alone (`getrf` / `potrf`) of the `n × n` matrix `orig`, in place
/// on the `n × n` device buffer at `work` (leading dimension `n`), restored from `orig` by a
/// device-to-device copy before each call (not timed), pivots into `ipiv` (`n` ints), `info`
/// (one int): the time in ms (see [`METHOD`]; the workspace is allocated once, untimed).
pub fn cusolver_factor_ms<T: CusolverInv>(
    cx: &InvCtx<'_>,
    solver: &Cusolver,
    s: Structure,
    n: usize,
    orig: &DeviceMatrix<T>,
    (work, ipiv, info): (u64, u64, u64),
) -> Result<f64, String> {
    let orig_p = interop::matrix_ptr(orig).ok_or("not a CUDA matrix")?;
    if orig.rows() != n || orig.cols() != n || orig.ld() != n {
        return Err(format!("cuSOLVER timing needs a compact {n} × {n} matrix"));
    }
    let nc = n as c_int;
    let bytes = n * n * std::mem::size_of::<T>();
    let stream = cx.stream.cu_stream();
    let (ws, lwork) = workspace::<T>(cx, solver, s, n, work, false)?;
    let ws_p = ptr(&ws);
    let restore = move || dtod(stream, work, orig_p, bytes);
    let ms = measure_reset(cx, restore, || match s {
        // SAFETY: `work` is an n × n buffer (leading dimension n), `ws` holds the queried
        // workspace, `ipiv` n ints and `info` one; on the device's stream.
        Structure::General => unsafe { T::getrf(solver, nc, work, nc, ws_p, ipiv, info) },
        // SAFETY: as above.
        Structure::Spd => unsafe { T::potrf(solver, nc, work, nc, ws_p, lwork, info) },
    })?;
    drop(ws);
    Ok(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;

    /// Every method on the CPU backend, on the section's matrices: results pass the check the
    /// section applies, and `inverse(Auto)` takes the path its row is meant for.
    fn methods_on_cpu<T: Scalar>(n: usize) {
        let mut host = model::general::<T>(n, seed::<T>(n));
        for s in [Structure::General, Structure::Spd] {
            if s == Structure::Spd {
                model::make_hermitian(&mut host, n);
            }
            let a = DeviceMatrix::from_col_major(&Device::cpu(), n, n, n, host.clone()).unwrap();
            let methods: &[Ours] = match s {
                Structure::General => &GENERAL_METHODS,
                Structure::Spd => &SPD_METHODS,
            };
            for &m in methods {
                let (x, used) = m.call(&a).unwrap();
                let h = result_on_host(None, &x, n).unwrap();
                let r = check(&host, &h, n);
                assert!(r.full && r.value < 1.0, "{} {s:?}: {r:?}", m.label());
                if let Some(used) = used {
                    let want = match s {
                        Structure::General => Method::GaussJordan,
                        Structure::Spd => Method::Cholesky(Uplo::Lower),
                    };
                    assert!(
                        std::mem::discriminant(&used) == std::mem::discriminant(&want),
                        "{used:?}"
                    );
                }
                let (t, last) = time_cpu(m, &a);
                assert!(t.unwrap() >= 0.0 && last.is_some());
            }
        }
    }

    #[test]
    fn every_method_passes_the_check_on_the_cpu() {
        methods_on_cpu::<f64>(70);
        methods_on_cpu::<f32>(40);
        methods_on_cpu::<Complex64>(33);
    }

    #[test]
    fn unsupported_is_reported_as_such() {
        let e = dense_inverse::Error::Blas(gpu_blas::Error::Unsupported {
            op: "lu_inverse",
            detail: "no GPU path".into(),
        });
        assert_eq!(ours_failure(e), "unsupported");
        let e = dense_inverse::Error::Singular {
            op: "lu_inverse",
            step: 3,
        };
        assert!(ours_failure(e).starts_with("error: lu_inverse"));
        assert!(resid_warning("ours", None).is_none());
        let ok = Resid {
            value: 0.5,
            full: true,
        };
        assert!(resid_warning("ours", Some(ok)).is_none());
        let bad = Resid {
            value: f64::NAN,
            full: false,
        };
        assert!(resid_warning("CPU", Some(bad))
            .unwrap()
            .starts_with("CPU residual"));
    }
}
