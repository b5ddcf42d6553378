//! Level-2 benchmark: gemv (N, T), ger, syr and symv, ours against cuBLAS on the same buffers.

use crate::blas1::dtype;
use crate::cublas::{ok, Cublas};
use crate::report::Row;
use crate::timing::{time_ms, Plan};
use cudarc::cublas::sys as cb;
use gpu_blas::blas2::{self, Trans, Uplo};
use gpu_blas::{interop, Device, DeviceMatrix, DeviceScalar, DeviceVec, Scalar};
use num_complex::{Complex32, Complex64};
use std::ffi::c_int;

/// The cuBLAS level-2 entry points used here, per type (raw device pointers, device scalars).
pub trait CublasL2: Scalar {
    /// # Safety
    /// Valid device pointers of the stated sizes; alpha/beta are device scalars.
    unsafe fn gemv(
        c: &Cublas,
        t: bool,
        m: c_int,
        n: c_int,
        alpha: u64,
        a: u64,
        lda: c_int,
        x: u64,
        beta: u64,
        y: u64,
    );
    /// # Safety
    /// As `gemv`.
    unsafe fn ger(c: &Cublas, m: c_int, n: c_int, alpha: u64, x: u64, y: u64, a: u64, lda: c_int);
    /// # Safety
    /// As `gemv`; `alpha` is real for the complex (Hermitian) variants.
    unsafe fn syr(c: &Cublas, n: c_int, alpha: u64, x: u64, a: u64, lda: c_int);
    /// # Safety
    /// As `gemv`.
    unsafe fn symv(c: &Cublas, n: c_int, alpha: u64, a: u64, lda: c_int, x: u64, beta: u64, y: u64);
}

fn op(t: bool) -> cb::cublasOperation_t {
    if t {
        cb::cublasOperation_t::CUBLAS_OP_T
    } else {
        cb::cublasOperation_t::CUBLAS_OP_N
    }
}
const LOWER: cb::cublasFillMode_t = cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;

macro_rules! impl_l2 {
    ($t:ty, $e:ty, $r:ty, $gemv:ident, $ger:ident, $syr:ident, $symv:ident) => {
        impl CublasL2 for $t {
            unsafe fn gemv(
                c: &Cublas,
                t: bool,
                m: c_int,
                n: c_int,
                alpha: u64,
                a: u64,
                lda: c_int,
                x: u64,
                beta: u64,
                y: u64,
            ) {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cb::$gemv(
                        c.h,
                        op(t),
                        m,
                        n,
                        alpha as *const $e,
                        a as *const $e,
                        lda,
                        x as *const $e,
                        1,
                        beta as *const $e,
                        y as *mut $e,
                        1,
                    )
                };
                ok(s, "gemv");
            }
            unsafe fn ger(
                c: &Cublas,
                m: c_int,
                n: c_int,
                alpha: u64,
                x: u64,
                y: u64,
                a: u64,
                lda: c_int,
            ) {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cb::$ger(
                        c.h,
                        m,
                        n,
                        alpha as *const $e,
                        x as *const $e,
                        1,
                        y as *const $e,
                        1,
                        a as *mut $e,
                        lda,
                    )
                };
                ok(s, "ger");
            }
            unsafe fn syr(c: &Cublas, n: c_int, alpha: u64, x: u64, a: u64, lda: c_int) {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cb::$syr(
                        c.h,
                        LOWER,
                        n,
                        alpha as *const $r,
                        x as *const $e,
                        1,
                        a as *mut $e,
                        lda,
                    )
                };
                ok(s, "syr");
            }
            unsafe fn symv(
                c: &Cublas,
                n: c_int,
                alpha: u64,
                a: u64,
                lda: c_int,
                x: u64,
                beta: u64,
                y: u64,
            ) {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cb::$symv(
                        c.h,
                        LOWER,
                        n,
                        alpha as *const $e,
                        a as *const $e,
                        lda,
                        x as *const $e,
                        1,
                        beta as *const $e,
                        y as *mut $e,
                        1,
                    )
                };
                ok(s, "symv");
            }
        }
    };
}
impl_l2!(
    f32,
    f32,
    f32,
    cublasSgemv_v2,
    cublasSger_v2,
    cublasSsyr_v2,
    cublasSsymv_v2
);
impl_l2!(
    f64,
    f64,
    f64,
    cublasDgemv_v2,
    cublasDger_v2,
    cublasDsyr_v2,
    cublasDsymv_v2
);
impl_l2!(
    Complex32,
    cb::cuComplex,
    f32,
    cublasCgemv_v2,
    cublasCgeru_v2,
    cublasCher_v2,
    cublasChemv_v2
);
impl_l2!(
    Complex64,
    cb::cuDoubleComplex,
    f64,
    cublasZgemv_v2,
    cublasZgeru_v2,
    cublasZher_v2,
    cublasZhemv_v2
);

/// The operands the level-2 sections time on: copies of one `n × n` matrix, enough to pass
/// 256 MiB (at most 8), which the calls rotate through so that each reads DRAM; `x`, `y`; the
/// device scalars 1 and 0; and the raw device addresses cuBLAS takes.
struct Operands<T: Scalar> {
    mats: Vec<DeviceMatrix<T>>,
    x: DeviceVec<T>,
    y: DeviceVec<T>,
    /// The scalars behind `p1` and `p0`, kept alive while those are used.
    _scalars: [DeviceScalar<T>; 2],
    ap: Vec<u64>,
    xp: u64,
    yp: u64,
    p1: u64,
    p0: u64,
}

impl<T: Scalar> Operands<T> {
    fn new(dev: &Device, n: usize) -> Self {
        let mat_bytes = n * n * std::mem::size_of::<T>();
        let sets = (256usize << 20).div_ceil(mat_bytes.max(1)).clamp(1, 8);
        let host: Vec<T> = (0..n * n)
            .map(|k| T::from_f64(((k * 2654435761) % 1000) as f64 / 1000.0 - 0.5))
            .collect();
        let mats: Vec<DeviceMatrix<T>> = (0..sets)
            .map(|_| DeviceMatrix::from_col_major(dev, n, n, n, host.clone()).unwrap())
            .collect();
        drop(host);
        let xh: Vec<T> = (0..n)
            .map(|i| T::from_f64(1.0 + (i % 5) as f64 * 0.1))
            .collect();
        let x = DeviceVec::from_slice(dev, &xh).unwrap();
        let y = DeviceVec::<T>::zeros(dev, n).unwrap();
        let scalars = [
            DeviceScalar::new(dev, T::one()).unwrap(),
            DeviceScalar::new(dev, T::zero()).unwrap(),
        ];
        let ap = mats
            .iter()
            .map(|m| interop::matrix_ptr(m).unwrap())
            .collect();
        Self {
            xp: interop::vec_ptr(&x).unwrap(),
            yp: interop::vec_ptr(&y).unwrap(),
            p1: interop::scalar_ptr(&scalars[0]).unwrap(),
            p0: interop::scalar_ptr(&scalars[1]).unwrap(),
            mats,
            x,
            y,
            _scalars: scalars,
            ap,
        }
    }
}

/// Runs gemv N/T, ger, syr (her) and symv (hemv) at `n × n`.
pub fn run<T: CublasL2>(
    dev: &Device,
    cublas: &Cublas,
    n: usize,
    copy_gbps: f64,
    reps: usize,
    rows: &mut Vec<Row>,
) {
    let ctx = interop::cuda_context(dev).unwrap();
    let stream = interop::cuda_stream(dev).unwrap();
    let es = std::mem::size_of::<T>();
    let mat_bytes = n * n * es;
    let Operands {
        mut mats,
        x,
        mut y,
        _scalars,
        ap,
        xp,
        yp,
        p1,
        p0,
    } = Operands::new(dev, n);
    let sets = mats.len();
    let (one, zero, small) = (T::one(), T::zero(), T::from_f64(1e-6));
    let d_small = DeviceScalar::new(dev, small).unwrap();
    let d_small_r = DeviceScalar::new(dev, <T::Real as Scalar>::from_f64(1e-6)).unwrap();
    let (ps, psr) = (
        interop::scalar_ptr(&d_small).unwrap(),
        interop::scalar_ptr(&d_small_r).unwrap(),
    );
    let nn = n as c_int;
    let plan = Plan::for_estimate(2.0 * mat_bytes as f64 / (copy_gbps * 1e6), reps);
    let vec_bytes = (2 * n * es) as f64;
    let tri_bytes = (n * (n + 1) / 2 * es) as f64;
    let mut push = |op: &str, ours: f64, vend: f64, bytes: f64| {
        let gbps = bytes / (ours * 1e6);
        rows.push(Row {
            op: op.into(),
            dtype: dtype::<T>().into(),
            n,
            ours_ms: ours,
            baseline: "cuBLAS".into(),
            base_ms: Some(vend),
            ratio: Some(ours / vend),
            bytes,
            gbps,
            frac_copy: gbps / copy_gbps,
            max_rel_diff: None,
        });
    };
    for (label, t, trans) in [("gemv N", false, Trans::N), ("gemv T", true, Trans::T)] {
        let ours = time_ms(&ctx, &stream, plan, |k| {
            blas2::gemv(trans, one, &mats[k % sets], &x, zero, &mut y).unwrap()
        });
        // SAFETY: live device buffers of the stated sizes, bound to cuBLAS's stream.
        let vend = time_ms(&ctx, &stream, plan, |k| unsafe {
            T::gemv(cublas, t, nn, nn, p1, ap[k % sets], nn, xp, p0, yp)
        });
        push(label, ours, vend, mat_bytes as f64 + vec_bytes);
    }
    let ours = time_ms(&ctx, &stream, plan, |k| {
        blas2::ger(small, &x, &x, &mut mats[k % sets]).unwrap()
    });
    // SAFETY: as above.
    let vend = time_ms(&ctx, &stream, plan, |k| unsafe {
        T::ger(cublas, nn, nn, ps, xp, xp, ap[k % sets], nn)
    });
    push("ger", ours, vend, 2.0 * mat_bytes as f64 + vec_bytes);
    let ours = time_ms(&ctx, &stream, plan, |k| {
        if T::IS_COMPLEX {
            blas2::her(
                Uplo::Lower,
                <T::Real as Scalar>::from_f64(1e-6),
                &x,
                &mut mats[k % sets],
            )
            .unwrap()
        } else {
            blas2::syr(Uplo::Lower, small, &x, &mut mats[k % sets]).unwrap()
        }
    });
    // SAFETY: as above; the real alpha is a device scalar of the real type.
    let vend = time_ms(&ctx, &stream, plan, |k| unsafe {
        T::syr(
            cublas,
            nn,
            if T::IS_COMPLEX { psr } else { ps },
            xp,
            ap[k % sets],
            nn,
        )
    });
    push(
        if T::IS_COMPLEX { "her" } else { "syr" },
        ours,
        vend,
        2.0 * tri_bytes + vec_bytes,
    );
    let ours = time_ms(&ctx, &stream, plan, |k| {
        if T::IS_COMPLEX {
            blas2::hemv(Uplo::Lower, one, &mats[k % sets], &x, zero, &mut y).unwrap()
        } else {
            blas2::symv(Uplo::Lower, one, &mats[k % sets], &x, zero, &mut y).unwrap()
        }
    });
    // SAFETY: as above.
    let vend = time_ms(&ctx, &stream, plan, |k| unsafe {
        T::symv(cublas, nn, p1, ap[k % sets], nn, xp, p0, yp)
    });
    push(
        if T::IS_COMPLEX { "hemv" } else { "symv" },
        ours,
        vend,
        tri_bytes + vec_bytes,
    );
}

/// The `gemv-tune` and `gemv-n-tune` sections: gemv T (or N) at `n × n` under each launch
/// `set_gemv_t_tuning` (kernel variant, row splits) or `set_gemv_n_tuning` (row tile width,
/// column splits) can force, each timed right before cuBLAS on the same matrices so that every
/// ratio compares calls made moments apart. Prints one line per launch.
pub fn gemv_tune<T: CublasL2>(
    dev: &Device,
    cublas: &Cublas,
    n: usize,
    copy_gbps: f64,
    reps: usize,
    trans: Trans,
) {
    let ctx = interop::cuda_context(dev).unwrap();
    let stream = interop::cuda_stream(dev).unwrap();
    let es = std::mem::size_of::<T>();
    let mat_bytes = n * n * es;
    let Operands {
        mats,
        x,
        mut y,
        _scalars,
        ap,
        xp,
        yp,
        p1,
        p0,
    } = Operands::new(dev, n);
    let sets = mats.len();
    let (one, zero) = (T::one(), T::zero());
    let nn = n as c_int;
    let plan = Plan::for_estimate(2.0 * mat_bytes as f64 / (copy_gbps * 1e6), reps);
    let bytes = (mat_bytes + 2 * n * es) as f64;
    use gpu_blas::blas2::{GemvNLaunch as N, GemvTKernel as K};
    // (label, force the launch).
    let mut launches: Vec<(String, Box<dyn Fn()>)> = Vec::new();
    if trans == Trans::N {
        for row_lanes in [1, 2, 4, 8, 16, 32, 64] {
            let l = N::Tile { row_lanes };
            launches.push((
                format!("{l:?}"),
                Box::new(move || blas2::set_gemv_n_tuning(Some(l))),
            ));
        }
        for splits in [8, 16, 33, 66, 132, 264] {
            let l = N::Split { splits };
            launches.push((
                format!("{l:?}"),
                Box::new(move || blas2::set_gemv_n_tuning(Some(l))),
            ));
        }
    } else {
        let col = |columns, depth| K::Columns { columns, depth };
        for kernel in [
            K::Pair,
            col(1, 16),
            col(1, 32),
            col(2, 8),
            col(2, 16),
            col(4, 8),
        ] {
            for splits in [None, Some(1), Some(2)] {
                let label = format!(
                    "{kernel:?} splits={}",
                    splits.map_or("auto".to_string(), |s| s.to_string())
                );
                launches.push((
                    label,
                    Box::new(move || blas2::set_gemv_t_tuning(splits, Some(kernel))),
                ));
            }
        }
    }
    let section = if trans == Trans::N {
        "gemv-n-tune"
    } else {
        "gemv-tune"
    };
    let cublas_t = trans != Trans::N;
    for (label, force) in launches {
        force();
        let ours = time_ms(&ctx, &stream, plan, |k| {
            blas2::gemv(trans, one, &mats[k % sets], &x, zero, &mut y).unwrap()
        });
        blas2::set_gemv_t_tuning(None, None);
        blas2::set_gemv_n_tuning(None);
        // SAFETY: live device buffers of the stated sizes, bound to cuBLAS's stream.
        let vend = time_ms(&ctx, &stream, plan, |k| unsafe {
            T::gemv(cublas, cublas_t, nn, nn, p1, ap[k % sets], nn, xp, p0, yp)
        });
        println!(
            "{section} {} n={n} {label}: ours {ours:.4} ms ({:.0} GB/s), cuBLAS {vend:.4} ms ({:.0} GB/s), ratio {:.3}",
            dtype::<T>(),
            bytes / (ours * 1e6),
            bytes / (vend * 1e6),
            ours / vend
        );
    }
}
