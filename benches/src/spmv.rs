//! SpMV benchmark: each of our kernels and the automatic choice against cuSPARSE (the faster of
//! its CSR algorithms 1 and 2) on the same arrays.

use crate::cusparse::SpmvProblem;
use crate::report::Row;
use crate::timing::{time_ms, Plan};
use cudarc::cusparse::sys::cusparseSpMVAlg_t as Alg;
use gpu_blas::spmv::{choose, spmv_with, SpmvKernel};
use gpu_blas::{interop, CsrMatrix, Device, DeviceVec, Scalar};

pub fn kernel_label(k: SpmvKernel) -> String {
    match k {
        SpmvKernel::Auto => "auto".into(),
        SpmvKernel::ThreadPerRow => "row".into(),
        SpmvKernel::VectorPerRow { lanes } => format!("vec{lanes}"),
        SpmvKernel::Adaptive => "adaptive".into(),
    }
}

/// Benchmarks `y = A·x` (β = 0) for one matrix; appends one row per kernel, the first being the
/// automatic choice.
pub fn run<T: Scalar>(
    dev: &Device,
    name: &str,
    host: &sprs::CsMat<T>,
    copy_gbps: f64,
    reps: usize,
    rows_out: &mut Vec<Row>,
) {
    let ctx = interop::cuda_context(dev).unwrap();
    let stream = interop::cuda_stream(dev).unwrap();
    let a = CsrMatrix::from_sprs(dev, host).unwrap();
    let (m, n, nnz) = (a.rows(), a.cols(), a.nnz());
    let xh: Vec<T> = (0..n)
        .map(|i| T::from_f64(1.0 + (i % 7) as f64 * 0.125))
        .collect();
    let x = DeviceVec::from_slice(dev, &xh).unwrap();
    let mut y = DeviceVec::<T>::zeros(dev, m).unwrap();
    let es = std::mem::size_of::<T>();
    let bytes = (nnz * (es + 4) + (m + 1) * 4 + n * es + m * es) as f64;
    let plan = Plan::for_estimate(bytes / (copy_gbps * 1e6), reps);
    let (one, zero) = (T::one(), T::zero());

    // Vendor: best of CSR_ALG1 and CSR_ALG2.
    // SAFETY: the arrays are live for the problem's lifetime.
    let vendor = unsafe {
        SpmvProblem::new::<T>(
            stream.cu_stream(),
            m,
            n,
            nnz,
            interop::csr_ptrs(&a).unwrap(),
            interop::vec_ptr(&x).unwrap(),
            interop::vec_ptr(&y).unwrap(),
        )
    };
    let mut best_vendor = f64::INFINITY;
    for alg in [Alg::CUSPARSE_SPMV_CSR_ALG1, Alg::CUSPARSE_SPMV_CSR_ALG2] {
        let size = vendor.buffer_size(alg, &one, &zero).max(8);
        let buf = DeviceVec::<i64>::zeros(dev, size.div_ceil(8)).unwrap();
        let bp = interop::vec_ptr(&buf).unwrap();
        let t = time_ms(&ctx, &stream, plan, |_| {
            // SAFETY: `buf` holds the workspace size cuSPARSE asked for.
            unsafe { vendor.run(alg, &one, &zero, bp) }
        });
        best_vendor = best_vendor.min(t);
    }
    let reference = {
        stream.synchronize().unwrap();
        y.to_vec().unwrap()
    };

    let auto = choose(&a.row_stats());
    let mut kernels = vec![
        SpmvKernel::Auto,
        SpmvKernel::ThreadPerRow,
        SpmvKernel::Adaptive,
    ];
    kernels.extend([2, 4, 8, 16, 32].map(|lanes| SpmvKernel::VectorPerRow { lanes }));
    for k in kernels {
        let t = time_ms(&ctx, &stream, plan, |_| {
            spmv_with(k, one, &a, &x, zero, &mut y).unwrap()
        });
        let got = y.to_vec().unwrap();
        let diff = got
            .iter()
            .zip(&reference)
            .map(|(g, r)| (g.to_c64() - r.to_c64()).norm() / r.to_c64().norm().max(1e-300))
            .fold(0.0, f64::max);
        let label = if k == SpmvKernel::Auto {
            format!("spmv auto={}", kernel_label(auto))
        } else {
            format!("spmv {}", kernel_label(k))
        };
        let gbps = bytes / (t * 1e6);
        rows_out.push(Row {
            op: format!("{label} [{name}]"),
            dtype: crate::blas1::dtype::<T>().into(),
            n: nnz,
            ours_ms: t,
            baseline: "cuSPARSE".into(),
            base_ms: Some(best_vendor),
            ratio: Some(t / best_vendor),
            bytes,
            gbps,
            frac_copy: gbps / copy_gbps,
            max_rel_diff: Some(diff),
        });
    }
}
