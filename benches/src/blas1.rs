//! Level-1 benchmark: each operation, ours against cuBLAS on the same buffers.

use crate::cublas::{Cublas, CublasL1};
use crate::report::Row;
use crate::timing::{time_ms, Plan};
use gpu_blas::{blas1, interop, Device, DeviceScalar, DeviceVec, Scalar};
use std::ffi::c_int;

/// Bytes that one pass touches, to keep data out of the 50 MB L2 the buffers rotate over at least
/// this many bytes.
const ROTATE_BYTES: usize = 256 << 20;

pub struct Ctx<'a> {
    pub dev: &'a Device,
    pub cublas: &'a Cublas,
    pub copy_gbps: f64,
    pub reps: usize,
}

pub fn dtype<T: Scalar>() -> &'static str {
    match T::PREFIX {
        's' => "f32",
        'd' => "f64",
        'c' => "c64",
        _ => "c128",
    }
}

fn random<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            let mut next = || {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            };
            let (a, b) = (next(), next());
            T::from_parts(
                <T::Real as Scalar>::from_f64(a),
                <T::Real as Scalar>::from_f64(b),
            )
        })
        .collect()
}

fn rel_diff<T: Scalar>(a: T, b: T) -> f64 {
    let (a, b) = (a.to_c64(), b.to_c64());
    (a - b).norm() / b.norm().max(f64::MIN_POSITIVE)
}

/// Runs every level-1 operation for type `T` at length `n` and appends rows.
pub fn run<T: Scalar + CublasL1>(cx: &Ctx<'_>, n: usize, rows: &mut Vec<Row>) {
    let dev = cx.dev;
    let ctx = interop::cuda_context(dev).expect("CUDA device");
    let stream = interop::cuda_stream(dev).expect("CUDA device");
    let es = std::mem::size_of::<T>();
    let sets = ROTATE_BYTES.div_ceil(2 * n * es).clamp(1, 64);
    // Fill one host vector and upload it to every set (different sets, same values).
    let hx = random::<T>(n, 1);
    let hy = random::<T>(n, 2);
    let xs: Vec<DeviceVec<T>> = (0..sets)
        .map(|_| DeviceVec::from_slice(dev, &hx).unwrap())
        .collect();
    let mut ys: Vec<DeviceVec<T>> = (0..sets)
        .map(|_| DeviceVec::from_slice(dev, &hy).unwrap())
        .collect();
    drop((hx, hy));
    let mut out_t = DeviceScalar::new(dev, T::zero()).unwrap();
    let mut out_r = DeviceScalar::new(dev, T::Real::default()).unwrap();
    let mut out_i = DeviceScalar::new(dev, 0i64).unwrap();
    let vout_t = DeviceScalar::new(dev, T::zero()).unwrap();
    let vout_r = DeviceScalar::new(dev, T::Real::default()).unwrap();
    let vout_i = DeviceScalar::new(dev, 0i32).unwrap();
    let alpha_axpy = DeviceScalar::new(dev, T::from_f64(1e-3)).unwrap();
    let alpha_scal = DeviceScalar::new(dev, T::from_f64(-1.0)).unwrap();
    let p = |v: &DeviceVec<T>| interop::vec_ptr(v).unwrap();
    let xp: Vec<u64> = xs.iter().map(p).collect();
    let yp: Vec<u64> = ys.iter().map(p).collect();
    let (pt, pr, pi) = (
        interop::scalar_ptr(&vout_t).unwrap(),
        interop::scalar_ptr(&vout_r).unwrap(),
        interop::scalar_ptr(&vout_i).unwrap(),
    );
    let (pa, ps) = (
        interop::scalar_ptr(&alpha_axpy).unwrap(),
        interop::scalar_ptr(&alpha_scal).unwrap(),
    );
    let cb = cx.cublas;
    let nn = n as c_int;
    let est_ms = (3 * n * es) as f64 / (cx.copy_gbps * 1e6);
    let plan = Plan::for_estimate(est_ms, cx.reps);
    let mut push =
        |op: &str, ours: f64, baseline: &str, base: Option<f64>, bytes: f64, diff: Option<f64>| {
            let gbps = bytes / (ours * 1e6);
            rows.push(Row {
                op: op.into(),
                dtype: dtype::<T>().into(),
                n,
                ours_ms: ours,
                baseline: baseline.into(),
                base_ms: base,
                ratio: base.map(|b| ours / b),
                bytes,
                gbps,
                frac_copy: gbps / cx.copy_gbps,
                max_rel_diff: diff,
            });
        };
    let b1 = (n * es) as f64;
    let t = |f: &mut dyn FnMut(usize)| time_ms(&ctx, &stream, plan, f);

    // dot (unconjugated)
    let ours = t(&mut |k| blas1::dot_into(&xs[k % sets], &ys[k % sets], &mut out_t).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::dot(cb, nn, xp[k % sets], yp[k % sets], pt) }
    });
    let diff = rel_diff(out_t.get().unwrap(), vout_t.get().unwrap());
    push("dot", ours, "cuBLAS", Some(vend), 2.0 * b1, Some(diff));
    let plain_dot = ours;
    if T::IS_COMPLEX {
        let ours = t(&mut |k| blas1::dotc_into(&xs[k % sets], &ys[k % sets], &mut out_t).unwrap());
        let vend = t(&mut |k| {
            // SAFETY: the pointers are live device buffers of n elements (results: one element)
            // on the stream cuBLAS is bound to.
            unsafe { T::dotc(cb, nn, xp[k % sets], yp[k % sets], pt) }
        });
        let diff = rel_diff(out_t.get().unwrap(), vout_t.get().unwrap());
        push("dotc", ours, "cuBLAS", Some(vend), 2.0 * b1, Some(diff));
    }
    let ours =
        t(&mut |k| blas1::dot_compensated_into(&xs[k % sets], &ys[k % sets], &mut out_t).unwrap());
    push(
        "dot_compensated",
        ours,
        "ours dot",
        Some(plain_dot),
        2.0 * b1,
        None,
    );

    let ours = t(&mut |k| blas1::nrm2_into(&xs[k % sets], &mut out_r).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::nrm2(cb, nn, xp[k % sets], pr) }
    });
    let diff = rel_diff(out_r.get().unwrap(), vout_r.get().unwrap());
    push("nrm2", ours, "cuBLAS", Some(vend), b1, Some(diff));

    let ours = t(&mut |k| blas1::asum_into(&xs[k % sets], &mut out_r).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::asum(cb, nn, xp[k % sets], pr) }
    });
    let diff = rel_diff(out_r.get().unwrap(), vout_r.get().unwrap());
    push("asum", ours, "cuBLAS", Some(vend), b1, Some(diff));

    let ours = t(&mut |k| blas1::iamax_into(&xs[k % sets], &mut out_i).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::iamax(cb, nn, xp[k % sets], pi) }
    });
    // cuBLAS is 1-based.
    let same = out_i.get().unwrap() + 1 == vout_i.get().unwrap() as i64;
    push(
        "iamax",
        ours,
        "cuBLAS",
        Some(vend),
        b1,
        Some(if same { 0.0 } else { 1.0 }),
    );

    let ours = t(&mut |k| blas1::axpy_dev(&alpha_axpy, &xs[k % sets], &mut ys[k % sets]).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::axpy(cb, nn, pa, xp[k % sets], yp[k % sets]) }
    });
    push("axpy", ours, "cuBLAS", Some(vend), 3.0 * b1, None);

    let ours = t(&mut |k| blas1::scal_dev(&alpha_scal, &mut ys[k % sets]).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::scal(cb, nn, ps, yp[k % sets]) }
    });
    push("scal", ours, "cuBLAS", Some(vend), 2.0 * b1, None);

    let ours = t(&mut |k| blas1::copy(&xs[k % sets], &mut ys[k % sets]).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::copy(cb, nn, xp[k % sets], yp[k % sets]) }
    });
    push("copy", ours, "cuBLAS", Some(vend), 2.0 * b1, None);

    let mut xs = xs;
    let ours = t(&mut |k| blas1::swap(&mut xs[k % sets], &mut ys[k % sets]).unwrap());
    let vend = t(&mut |k| {
        // SAFETY: the pointers are live device buffers of n elements (results: one element)
        // on the stream cuBLAS is bound to.
        unsafe { T::swap(cb, nn, xp[k % sets], yp[k % sets]) }
    });
    push("swap", ours, "cuBLAS", Some(vend), 4.0 * b1, None);
}
