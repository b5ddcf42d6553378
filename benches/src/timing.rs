//! CUDA-event timing: warm-up, then the median over repeats of the mean time per call.

use cudarc::driver::{sys::CUevent_flags, CudaContext, CudaStream};
use std::sync::Arc;

/// How many calls to warm up with, how many timed repeats, and calls per repeat.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub warmup: usize,
    pub reps: usize,
    pub inner: usize,
}

impl Plan {
    /// Enough calls per repeat that a repeat lasts at least ~2 ms for a call of `est_ms`.
    pub fn for_estimate(est_ms: f64, reps: usize) -> Plan {
        let inner = ((2.0 / est_ms.max(1e-4)).ceil() as usize).clamp(1, 200);
        Plan {
            warmup: inner.max(3),
            reps,
            inner,
        }
    }
}

/// Times `f(call_index)` (which must only enqueue work on `stream`) and returns the median over
/// `plan.reps` repeats of the per-call time in milliseconds.
pub fn time_ms(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    plan: Plan,
    mut f: impl FnMut(usize),
) -> f64 {
    match try_time_ms(ctx, stream, plan, |k| {
        f(k);
        Ok::<(), std::convert::Infallible>(())
    }) {
        Ok(ms) => ms,
        Err(e) => match e {},
    }
}

/// [`time_ms`] for a call that may fail: the first error stops the timing and is returned.
pub fn try_time_ms<E>(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    plan: Plan,
    mut f: impl FnMut(usize) -> Result<(), E>,
) -> Result<f64, E> {
    let start = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("event");
    let end = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("event");
    let mut k = 0usize;
    for _ in 0..plan.warmup {
        f(k)?;
        k += 1;
    }
    stream.synchronize().expect("warm-up failed");
    let mut samples = Vec::with_capacity(plan.reps);
    for _ in 0..plan.reps {
        start.record(stream).expect("record");
        for _ in 0..plan.inner {
            f(k)?;
            k += 1;
        }
        end.record(stream).expect("record");
        let ms = start.elapsed_ms(&end).expect("elapsed") as f64;
        samples.push(ms / plan.inner as f64);
    }
    Ok(median(&mut samples))
}

/// Times one call of `f` per repeat with `reset()` enqueued before it, outside the timed
/// events (for in-place operations whose input must be restored before each call): `warmup`
/// untimed reset + call pairs, then the median over `reps` of the time from the event after
/// the reset to the event after the call. The first error of `f` is returned.
pub fn try_time_reset_ms<E>(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    warmup: usize,
    reps: usize,
    mut reset: impl FnMut(),
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    let start = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("event");
    let end = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("event");
    for _ in 0..warmup {
        reset();
        f()?;
    }
    stream.synchronize().expect("warm-up failed");
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        reset();
        start.record(stream).expect("record");
        f()?;
        end.record(stream).expect("record");
        samples.push(start.elapsed_ms(&end).expect("elapsed") as f64);
    }
    Ok(median(&mut samples))
}

/// Times an in-place call whose input `reset` restores before each call, from the probe's
/// estimate `est_ms`: under `fast_ms`, `reset` + call back to back (several per event pair)
/// minus `reset` alone, timed the same way; otherwise, or when that difference is noise, one
/// call per event pair with `reset` before the start event (`slow`: warm-up calls, repeats).
/// Afterwards (untimed) `reset` and one call run again and the stream is synchronised, so the
/// buffers hold the result of one call on the restored input (the reset-only timing leaves
/// them reset).
#[allow(clippy::too_many_arguments)]
pub fn time_in_place_ms<E>(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    est_ms: f64,
    fast_ms: f64,
    reps: usize,
    slow: (usize, usize),
    mut reset: impl FnMut(),
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    let mut ms = None;
    if est_ms < fast_ms {
        let plan = Plan::for_estimate(est_ms, reps);
        let both = try_time_ms(ctx, stream, plan, |_| {
            reset();
            f()
        })?;
        let copy = time_ms(ctx, stream, plan, |_| reset());
        if both > copy {
            ms = Some(both - copy);
        }
    }
    let ms = match ms {
        Some(ms) => ms,
        None => try_time_reset_ms(ctx, stream, slow.0, slow.1, &mut reset, &mut f)?,
    };
    reset();
    f()?;
    stream.synchronize().expect("stream");
    Ok(ms)
}

/// Median of a non-empty sample.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}
