//! `gpu-bench`: the GPU comparison harness. Times our kernels and the vendor library's on the
//! same buffers in the same process (CUDA events, warm-up, median of repeats), measures the
//! device copy bandwidth in the same run, prints a table and writes JSON and markdown.
//!
//! Usage: `gpu-bench [--quick] [--only SECTIONS] [--reps N] [--json PATH] [--markdown PATH]`
//!
//! Sections (`--only`, comma-separated): `blas1`, `blas2`, `spmv` (these three run by default),
//! `spmv-caps`, and the batched-LU section `lu` (batch 10000, orders 4…512, four types, plus a
//! variable-size batch; with `--quick`, or as `lu-quick`: orders 8, 32, 64, 190, f64 and c64,
//! batch 2000), which runs only when named. `--lu-n 4,8,var`, `--lu-types f64,c128` and
//! `--lu-batch N` narrow it (to split a long run); `--lu-nrhs 1,4,16` times the solve rows at
//! those right-hand side counts (default 1), and `--lu-solves-only` leaves out the inverses.
//!
//! The dense-inverse section `inverse` (every `dense-inverse` method against cuSOLVER
//! getrf+getrs and potrf+potri, n 1000…16000, f32 and f64, c64 at n = 4000, our CPU backend
//! alongside for n ≤ 4000; with `--quick`, or as `inverse-quick`: n 1000 and 4000, f64) also
//! runs only when named; `--inv-n 1000,4000`, `--inv-types f64,c64` and `--inv-cpu N` (largest
//! order timed on the CPU, 0 for none) narrow it.
//!
//! `gemv-tune` (only when named) times gemv T under each launch
//! `gpu_blas::blas2::set_gemv_t_tuning` can force (each kernel variant; row splits auto, 1,
//! 2), each right before cuBLAS, f64 at n 4096 and 16384 and f32, c64, c128 at 16384
//! (`--gemv-n N`: f64 at order N only). `gemv-n-tune` (only when named) does the same for gemv
//! N under each launch `gpu_blas::blas2::set_gemv_n_tuning` can force (row tiles of 1 to 64
//! lanes, 8 to 264 column splits): the four types at n 4096 and f64 at 16384.
//!
//! `panel-tune` (only when named) times `dense-inverse`'s `lu_factor` on one level (64-column
//! panels, no outer block) with its cooperative LU panel launch forced to 8, 16, 24, 32, 48, 66, 100 and 132 blocks (counts that cannot launch
//! are skipped), against cuSOLVER getrf, for n 4000, 8000, 16000 and f64, f32 (`--inv-n` and
//! `--inv-types` replace these), then on the built-in count `lu_factor` and `lu_inverse` with
//! outer block columns of 128, 256 and 512 (`dense_inverse::set_lu_outer_block`), and prints
//! the best count per order and type.
//!
//! `lu-trace` (only when named) calls `lu_factor`, `lu_inverse` and `gauss_jordan_inverse`
//! three times each on the general test matrix of each `--inv-n` order (f64, or the first of
//! `--inv-types`), printing each call's wall time and the pipeline's marks of one more call,
//! then Gauss-Jordan with outer block widths of 192 to 512, without an SM partition and with
//! 16 or 24 multiprocessors kept out of its products': a short, fixed sequence of calls to
//! record under a timeline profiler.

mod blas1;
mod blas2;
mod cublas;
mod cusolver;
mod cusparse;
mod inv_model;
mod inverse;
mod lu;
mod lu_cublas;
mod lu_model;
mod lu_tune;
mod panel_tune;
mod report;
mod spmv;
mod timing;

use cudarc::driver::result as drv;
use gpu_blas::blas2::Trans;
use gpu_blas::{interop, Device, DeviceVec};
use num_complex::{Complex32, Complex64};
use report::{Report, Row};

struct Args {
    quick: bool,
    reps: usize,
    json: Option<String>,
    only: Vec<String>,
    markdown: Option<String>,
    lu_n: Option<String>,
    lu_types: Option<String>,
    lu_nrhs: Option<String>,
    lu_batch: Option<usize>,
    lu_general: bool,
    lu_solves_only: bool,
    inv_n: Option<String>,
    inv_types: Option<String>,
    inv_cpu: Option<usize>,
    gemv_n: Option<usize>,
}

fn parse_args() -> Args {
    let mut a = Args {
        quick: false,
        reps: 15,
        json: None,
        markdown: None,
        only: Vec::new(),
        lu_n: None,
        lu_types: None,
        lu_nrhs: None,
        lu_batch: None,
        lu_general: false,
        lu_solves_only: false,
        inv_n: None,
        inv_types: None,
        inv_cpu: None,
        gemv_n: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        match s.as_str() {
            "--quick" => a.quick = true,
            "--reps" => a.reps = it.next().and_then(|v| v.parse().ok()).unwrap_or(15),
            "--json" => a.json = it.next(),
            "--markdown" => a.markdown = it.next(),
            "--lu-n" => a.lu_n = it.next(),
            "--lu-types" => a.lu_types = it.next(),
            "--lu-nrhs" => a.lu_nrhs = it.next(),
            "--lu-batch" => a.lu_batch = it.next().and_then(|v| v.parse().ok()),
            "--lu-general" => a.lu_general = true,
            "--lu-solves-only" => a.lu_solves_only = true,
            "--inv-n" => a.inv_n = it.next(),
            "--gemv-n" => a.gemv_n = it.next().and_then(|v| v.parse().ok()),
            "--inv-types" => a.inv_types = it.next(),
            "--inv-cpu" => match it.next().map(|v| v.parse()) {
                Some(Ok(v)) => a.inv_cpu = Some(v),
                _ => {
                    eprintln!("--inv-cpu needs an order (0: no CPU timings)");
                    std::process::exit(2);
                }
            },
            "--only" => {
                a.only = it
                    .next()
                    .map(|v| v.split(',').map(String::from).collect())
                    .unwrap_or_default()
            }
            "-h" | "--help" => {
                println!("gpu-bench [--quick] [--only blas1,blas2,gemv-tune,gemv-n-tune,spmv,spmv-caps,lu,lu-quick,lu-tune,inverse,inverse-quick,panel-tune] [--reps N] [--json PATH] [--markdown PATH]");
                println!("  lu: batched LU (getrf/getri/getrs/inverse) against cuBLAS, batch 10000, n 4..512, 4 types + variable sizes 33..=190; only when named");
                println!(
                    "  lu-quick (or lu with --quick): n 8, 32, 64, 190; f64 and c64; batch 2000"
                );
                println!("  --lu-n 4,8,var   only these orders (`var`: the variable-size batch)");
                println!("  --lu-types f64,c128   only these types (f32, f64, c64, c128)");
                println!("  --lu-batch N   requested batch (reduced where memory requires)");
                println!("  --lu-nrhs 1,4,16   the solve rows at these right-hand side counts (default 1)");
                println!("  --lu-solves-only   uniform batches: only the getrf and getrs rows (no inverses)");
                println!("  --lu-general   general random matrices (an interchange at almost every step) instead of n added to the diagonal (none)");
                println!("  inverse: dense-inverse methods against cuSOLVER getrf+getrs / potrf+potri, n 1000..16000, f32 and f64, c64 at 4000; CPU backend for n <= 4000; only when named");
                println!("  inverse-quick (or inverse with --quick): n 1000 and 4000, f64");
                println!("  --inv-n 1000,4000   only these orders");
                println!("  --inv-types f64,c64   only these types (f32, f64, c64, c128), each at every order");
                println!(
                    "  --inv-cpu N   time our CPU backend up to order N (default 4000, 0: never)"
                );
                println!("  gemv-tune: gemv T f64 (n 4096, 16384), f32, c64, c128 (16384) under each forced kernel variant and row split, each against cuBLAS; only when named");
                println!("  gemv-n-tune: gemv N (n 4096: four types; 16384: f64) under each forced row tile width and column split, each against cuBLAS; only when named");
                println!("  --gemv-n N   gemv-tune, gemv-n-tune: only f64 at order N");
                println!("  panel-tune: lu_factor with the LU panel launch on 8..132 blocks, then with outer blocks of 128/256/512 columns (also lu_inverse), against cuSOLVER getrf, n 4000, 8000, 16000 (--inv-n), f64 and f32 (--inv-types); only when named");
                std::process::exit(0);
            }
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    a
}

/// Device-to-device copy bandwidth (bytes read + bytes written per second), 1 GiB each way.
fn copy_bandwidth(dev: &Device, reps: usize) -> f64 {
    let n = 1usize << 28; // 1 GiB of f32
    let a = DeviceVec::<f32>::zeros(dev, n).unwrap();
    let b = DeviceVec::<f32>::zeros(dev, n).unwrap();
    let (pa, pb) = (interop::vec_ptr(&a).unwrap(), interop::vec_ptr(&b).unwrap());
    let ctx = interop::cuda_context(dev).unwrap();
    let stream = interop::cuda_stream(dev).unwrap();
    let plan = timing::Plan {
        warmup: 3,
        reps,
        inner: 3,
    };
    let ms = timing::time_ms(&ctx, &stream, plan, |k| {
        let (s, d) = if k % 2 == 0 { (pa, pb) } else { (pb, pa) };
        // SAFETY: both buffers hold n f32 values and stay alive for the timing.
        unsafe { drv::memcpy_dtod_async(d, s, n * 4, stream.cu_stream()) }.unwrap();
    });
    (2 * n * 4) as f64 / (ms * 1e6)
}

fn main() {
    let args = parse_args();
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("gpu-bench needs a CUDA GPU: {e}");
            std::process::exit(1);
        }
    };
    let copy_gbps = copy_bandwidth(&dev, args.reps);
    eprintln!("{dev}: copy bandwidth {copy_gbps:.0} GB/s");
    let stream = interop::cuda_stream(&dev).unwrap();
    let cublas = cublas::Cublas::new(stream.cu_stream());
    let cx = blas1::Ctx {
        dev: &dev,
        cublas: &cublas,
        copy_gbps,
        reps: args.reps,
    };
    let mut rows: Vec<Row> = Vec::new();
    let sizes: &[u32] = if args.quick { &[20, 24] } else { &[20, 24, 27] };
    let run_blas1 = args.only.is_empty() || args.only.iter().any(|o| o == "blas1");
    for &e in sizes.iter().filter(|_| run_blas1) {
        let n = 1usize << e;
        eprintln!("level 1, n = 2^{e}");
        blas1::run::<f64>(&cx, n, &mut rows);
        blas1::run::<Complex32>(&cx, n, &mut rows);
        blas1::run::<Complex64>(&cx, n, &mut rows);
        // f32 is measured at twice the length for the same bytes at the largest size.
        let nf = if e == 27 { n << 1 } else { n };
        blas1::run::<f32>(&cx, nf, &mut rows);
    }
    if args.only.is_empty() || args.only.iter().any(|o| o == "blas2") {
        for n in [4096usize, 16384] {
            eprintln!("level 2, n = {n}");
            blas2::run::<f64>(&dev, &cublas, n, copy_gbps, args.reps, &mut rows);
            blas2::run::<f32>(&dev, &cublas, n, copy_gbps, args.reps, &mut rows);
            blas2::run::<Complex32>(&dev, &cublas, n, copy_gbps, args.reps, &mut rows);
            blas2::run::<Complex64>(&dev, &cublas, n, copy_gbps, args.reps, &mut rows);
        }
    }
    if args.only.iter().any(|o| o == "gemv-tune") {
        // Launch exploration of the packed gemv T kernel (see docs/perf-notes.md).
        let t = Trans::T;
        if let Some(n) = args.gemv_n {
            blas2::gemv_tune::<f64>(&dev, &cublas, n, copy_gbps, args.reps, t);
        } else {
            for n in [4096usize, 16384] {
                blas2::gemv_tune::<f64>(&dev, &cublas, n, copy_gbps, args.reps, t);
            }
            blas2::gemv_tune::<f32>(&dev, &cublas, 16384, copy_gbps, args.reps, t);
            blas2::gemv_tune::<Complex32>(&dev, &cublas, 16384, copy_gbps, args.reps, t);
            blas2::gemv_tune::<Complex64>(&dev, &cublas, 16384, copy_gbps, args.reps, t);
        }
    }
    if args.only.iter().any(|o| o == "gemv-n-tune") {
        // Launch exploration of gemv N: row tile widths and column splits (docs/perf-notes.md).
        let t = Trans::N;
        if let Some(n) = args.gemv_n {
            blas2::gemv_tune::<f64>(&dev, &cublas, n, copy_gbps, args.reps, t);
        } else {
            blas2::gemv_tune::<f64>(&dev, &cublas, 4096, copy_gbps, args.reps, t);
            blas2::gemv_tune::<f32>(&dev, &cublas, 4096, copy_gbps, args.reps, t);
            blas2::gemv_tune::<Complex32>(&dev, &cublas, 4096, copy_gbps, args.reps, t);
            blas2::gemv_tune::<Complex64>(&dev, &cublas, 4096, copy_gbps, args.reps, t);
            blas2::gemv_tune::<f64>(&dev, &cublas, 16384, copy_gbps, args.reps, t);
        }
    }
    if args.only.iter().any(|o| o == "spmv-caps") {
        // Staging capacity of the adaptive SpMV kernel (exploration, see docs/perf-notes.md).
        use gpu_blas::gallery;
        let mats: Vec<(&str, sprs::CsMat<f64>)> = vec![
            ("poisson3d-160", gallery::poisson3d(160)),
            ("poisson2d-2048", gallery::poisson2d(2048)),
            ("powerlaw-1M", gallery::power_law(1 << 20, 1, 10_000, 42)),
        ];
        for cap in [4096usize, 8192, 16384] {
            gpu_blas::spmv::set_adaptive_cap_bytes(cap);
            for (name, m) in &mats {
                spmv::run::<f64>(
                    &dev,
                    &format!("{name} cap {cap}"),
                    m,
                    copy_gbps,
                    args.reps,
                    &mut rows,
                );
            }
        }
        gpu_blas::spmv::set_adaptive_cap_bytes(0);
    }
    if args.only.is_empty() || args.only.iter().any(|o| o == "spmv") {
        spmv_suite(&dev, copy_gbps, args.reps, &mut rows);
    }
    let mut lu_rows = Vec::new();
    let lu_quick = args.only.iter().any(|o| o == "lu-quick");
    lu::set_general_matrices(args.lu_general);
    lu::set_solves_only(args.lu_solves_only);
    if args.lu_general {
        println!("lu: general matrices (no diagonal shift: row interchanges at almost every step)");
    }
    if lu_quick || args.only.iter().any(|o| o == "lu") {
        match lu_model::LuPlan::new(
            lu_quick || args.quick,
            args.lu_n.as_deref(),
            args.lu_types.as_deref(),
            args.lu_batch,
        )
        .and_then(|p| p.with_rhs(args.lu_nrhs.as_deref()))
        {
            Ok(plan) => lu_section(&dev, &cublas, copy_gbps, args.reps, &plan, &mut lu_rows),
            Err(e) => {
                eprintln!("lu: {e}");
                std::process::exit(2);
            }
        }
    }
    if args.only.iter().any(|o| o == "lu-tune") {
        let cx = lu::LuCtx::new(&dev, &cublas, copy_gbps, args.reps);
        let orders: Vec<usize> = match args.lu_n.as_deref() {
            Some(list) => list
                .split(',')
                .filter_map(|s| s.trim().parse().ok())
                .collect(),
            None => lu_tune::ORDERS.to_vec(),
        };
        let batch = args.lu_batch.unwrap_or(10_000);
        let types = args.lu_types.as_deref().unwrap_or("f32,f64,c64,c128");
        for t in types.split(',') {
            match t.trim() {
                "f32" => lu_tune::sweep::<f32>(&cx, &orders, batch),
                "f64" => lu_tune::sweep::<f64>(&cx, &orders, batch),
                "c64" => lu_tune::sweep::<Complex32>(&cx, &orders, batch),
                "c128" => lu_tune::sweep::<Complex64>(&cx, &orders, batch),
                other => eprintln!("lu-tune: unknown type {other}"),
            }
        }
    }
    let mut inv_rows = Vec::new();
    let inv_quick = args.only.iter().any(|o| o == "inverse-quick");
    if inv_quick || args.only.iter().any(|o| o == "inverse") {
        match inv_model::InvPlan::new(
            inv_quick || args.quick,
            args.inv_n.as_deref(),
            args.inv_types.as_deref(),
            args.inv_cpu,
        ) {
            Ok(plan) => inverse_section(&dev, copy_gbps, args.reps, &plan, &mut inv_rows),
            Err(e) => {
                eprintln!("inverse: {e}");
                std::process::exit(2);
            }
        }
    }
    if args.only.iter().any(|o| o == "lu-trace") {
        match panel_tune::cases(args.inv_n.as_deref(), args.inv_types.as_deref()) {
            Ok(cases) => panel_tune::trace(&dev, &cases),
            Err(e) => {
                eprintln!("lu-trace: {e}");
                std::process::exit(2);
            }
        }
    }
    if args.only.iter().any(|o| o == "panel-tune") {
        match panel_tune::cases(args.inv_n.as_deref(), args.inv_types.as_deref()) {
            Ok(cases) => panel_tune_section(&dev, copy_gbps, args.reps, &cases),
            Err(e) => {
                eprintln!("panel-tune: {e}");
                std::process::exit(2);
            }
        }
    }
    let report = Report {
        device: dev.name(),
        copy_gbps,
        rows,
        lu_method: if lu_rows.is_empty() {
            String::new()
        } else {
            lu::METHOD.into()
        },
        lu: lu_rows,
        inverse_method: if inv_rows.is_empty() {
            String::new()
        } else {
            inverse::METHOD.into()
        },
        inverse: inv_rows,
    };
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_string_pretty(&report).unwrap()).expect("writing JSON");
    }
    if let Some(p) = &args.markdown {
        std::fs::write(p, report::markdown(&report)).expect("writing markdown");
    }
    print!("{}", report::table(&report));
}

/// The batched-LU section: every order and type of the plan, then the variable-size batch.
fn lu_section(
    dev: &Device,
    cublas: &cublas::Cublas,
    copy_gbps: f64,
    reps: usize,
    plan: &lu_model::LuPlan,
    rows: &mut Vec<report::LuRow>,
) {
    let cx = lu::LuCtx::new(dev, cublas, copy_gbps, reps);
    eprintln!(
        "batched LU: batch {}, orders {:?}{}, types {:?}, buffer budget {:.1} GB",
        plan.batch,
        plan.sizes,
        if plan.var { " + variable 33..=190" } else { "" },
        plan.types,
        cx.budget / 1e9
    );
    let has = |t: &str| plan.types.iter().any(|x| x == t);
    for &n in &plan.sizes {
        let before = rows.len();
        if has("f32") {
            lu::run_uniform::<f32>(&cx, n, plan.batch, &plan.rhs, rows);
        }
        if has("f64") {
            lu::run_uniform::<f64>(&cx, n, plan.batch, &plan.rhs, rows);
        }
        if has("c64") {
            lu::run_uniform::<Complex32>(&cx, n, plan.batch, &plan.rhs, rows);
        }
        if has("c128") {
            lu::run_uniform::<Complex64>(&cx, n, plan.batch, &plan.rhs, rows);
        }
        // The order's rows now, so a run cut short still shows what it measured.
        eprint!("{}", report::lu_table(&rows[before..]));
    }
    if plan.var {
        if has("f32") {
            lu::run_var::<f32>(&cx, plan.batch, 33, 190, rows);
        }
        if has("f64") {
            lu::run_var::<f64>(&cx, plan.batch, 33, 190, rows);
        }
        if has("c64") {
            lu::run_var::<Complex32>(&cx, plan.batch, 33, 190, rows);
        }
        if has("c128") {
            lu::run_var::<Complex64>(&cx, plan.batch, 33, 190, rows);
        }
    }
}

/// The dense-inverse section: every (order, type) case of the plan.
fn inverse_section(
    dev: &Device,
    copy_gbps: f64,
    reps: usize,
    plan: &inv_model::InvPlan,
    rows: &mut Vec<report::InvRow>,
) {
    let cx = inverse::InvCtx::new(dev, reps, plan.cpu_max_n, copy_gbps);
    eprintln!(
        "dense inverse: cases {:?}, CPU backend up to n = {}",
        plan.cases, plan.cpu_max_n
    );
    let t = std::time::Instant::now();
    for (n, ty) in &plan.cases {
        let before = rows.len();
        match ty.as_str() {
            "f32" => inverse::run::<f32>(&cx, *n, rows),
            "f64" => inverse::run::<f64>(&cx, *n, rows),
            "c64" => inverse::run::<Complex32>(&cx, *n, rows),
            _ => inverse::run::<Complex64>(&cx, *n, rows),
        }
        eprintln!(
            "dense inverse: {ty} n = {n} done, {:.0} s so far",
            t.elapsed().as_secs_f64()
        );
        // The case's rows now, so a run cut short still shows what it measured.
        eprint!("{}", report::inv_table(&rows[before..]));
    }
}

/// The panel-tune section: every (order, type) case, then its table on stdout.
fn panel_tune_section(dev: &Device, copy_gbps: f64, reps: usize, cases: &[(usize, String)]) {
    let cx = inverse::InvCtx::new(dev, reps.min(panel_tune::MAX_REPS), 0, copy_gbps);
    eprintln!(
        "panel-tune: cases {cases:?}, block counts {:?}",
        panel_tune::COUNTS
    );
    let t = std::time::Instant::now();
    let mut rows = Vec::new();
    for (n, ty) in cases {
        match ty.as_str() {
            "f32" => panel_tune::run::<f32>(&cx, *n, &mut rows),
            "f64" => panel_tune::run::<f64>(&cx, *n, &mut rows),
            "c64" => panel_tune::run::<Complex32>(&cx, *n, &mut rows),
            _ => panel_tune::run::<Complex64>(&cx, *n, &mut rows),
        }
        eprintln!(
            "panel-tune: {ty} n = {n} done, {:.0} s so far",
            t.elapsed().as_secs_f64()
        );
    }
    println!("panel-tune: lu_factor by the block count of the LU panel launch and the outer block width, against cuSOLVER getrf ({})", dev.name());
    print!("{}", panel_tune::table(&rows));
}

/// The SpMV matrices: 3-D Poisson 160^3, 2-D Poisson 2048^2, a power-law matrix with row lengths
/// from 1 to 10^4, and every Matrix Market file in `$GPU_LINALG_MATRICES`.
fn spmv_suite(dev: &Device, copy_gbps: f64, reps: usize, rows: &mut Vec<Row>) {
    use gpu_blas::gallery;
    eprintln!("spmv: poisson3d 160");
    spmv::run::<f64>(
        dev,
        "poisson3d-160",
        &gallery::poisson3d(160),
        copy_gbps,
        reps,
        rows,
    );
    eprintln!("spmv: poisson2d 2048");
    spmv::run::<f64>(
        dev,
        "poisson2d-2048",
        &gallery::poisson2d(2048),
        copy_gbps,
        reps,
        rows,
    );
    eprintln!("spmv: power law");
    spmv::run::<f64>(
        dev,
        "powerlaw-1M",
        &gallery::power_law(1 << 20, 1, 10_000, 42),
        copy_gbps,
        reps,
        rows,
    );
    for (name, m) in shipped_matrices() {
        eprintln!("spmv: {name}");
        spmv::run::<f64>(dev, &name, &m, copy_gbps, reps, rows);
    }
}

/// Matrix Market files from `$GPU_LINALG_MATRICES` (the GPU bundle sets it).
fn shipped_matrices() -> Vec<(String, sprs::CsMat<f64>)> {
    let Ok(dir) = std::env::var("GPU_LINALG_MATRICES") else {
        return Vec::new();
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "mtx"))
        .filter_map(|p| match gpu_blas::matrix_market::read::<f64>(&p) {
            Ok((_, gpu_blas::matrix_market::MmMatrix::Sparse(m))) => {
                Some((p.file_stem().unwrap().to_string_lossy().into_owned(), m))
            }
            Ok(_) => None,
            Err(e) => {
                eprintln!("skipping {}: {e}", p.display());
                None
            }
        })
        .collect()
}
