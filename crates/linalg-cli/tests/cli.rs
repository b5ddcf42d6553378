//! End-to-end tests of the `gpulinalg` binary: real runs on the shipped test matrix and on
//! generated problems, and the exit codes and messages of bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The shipped SuiteSparse matrix HB/1138_bus (from `$GPU_LINALG_MATRICES` when set, as in the
/// GPU bundle, else from the repository).
fn bus_1138() -> PathBuf {
    std::env::var_os("GPU_LINALG_MATRICES")
        .map(|d| PathBuf::from(d).join("1138_bus.mtx"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/matrices/1138_bus.mtx")
        })
}

/// Runs the binary with `args`.
fn run(args: &[&str]) -> Output {
    // `GPULINALG_BIN` points at the binary when the tests run from the GPU bundle.
    let bin = std::env::var("GPULINALG_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_gpulinalg").to_string());
    Command::new(bin)
        .args(args)
        .output()
        .expect("the gpulinalg binary runs")
}

/// stdout as text.
fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// stderr as text.
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The value of the `label: value` line of the output, trimmed.
fn field(out: &str, label: &str) -> Option<String> {
    out.lines().find_map(|l| {
        l.strip_prefix(label)
            .and_then(|rest| rest.strip_prefix(':'))
            .map(|v| v.trim().to_string())
    })
}

/// Asserts a zero exit status, showing both streams otherwise.
fn assert_success(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
}

#[test]
fn info_on_1138_bus() {
    let path = bus_1138();
    let o = run(&["info", path.to_str().unwrap()]);
    assert_success(&o);
    let out = stdout(&o);
    assert_eq!(field(&out, "size").as_deref(), Some("1138 x 1138"), "{out}");
    assert_eq!(field(&out, "nnz").as_deref(), Some("4054"), "{out}");
    assert_eq!(field(&out, "symmetric").as_deref(), Some("yes"), "{out}");
    assert_eq!(
        field(&out, "symmetric pattern").as_deref(),
        Some("yes"),
        "{out}"
    );
    assert_eq!(field(&out, "empty rows").as_deref(), Some("0"), "{out}");
    assert_eq!(
        field(&out, "matrix market").as_deref(),
        Some("coordinate real symmetric, 1138 x 1138, 2596 stored entries"),
        "{out}"
    );
    let rows = field(&out, "row length").unwrap();
    assert!(
        rows.starts_with("min 2,") && rows.contains("max 18,"),
        "{rows}"
    );
    assert!(field(&out, "auto SpMV kernel").is_some(), "{out}");
}

#[test]
fn spmv_on_1138_bus_cpu() {
    let path = bus_1138();
    let o = run(&[
        "spmv",
        path.to_str().unwrap(),
        "--device",
        "cpu",
        "--reps",
        "3",
    ]);
    assert_success(&o);
    let out = stdout(&o);
    assert_eq!(field(&out, "nnz").as_deref(), Some("4054"), "{out}");
    assert_eq!(field(&out, "device").as_deref(), Some("cpu"), "{out}");
    assert!(
        field(&out, "time (median)").unwrap().contains("3 reps"),
        "{out}"
    );
    let gflops: f64 = field(&out, "GFLOP/s").unwrap().parse().unwrap();
    let gbs: f64 = field(&out, "GB/s").unwrap().parse().unwrap();
    assert!(gflops > 0.0 && gbs > 0.0, "{out}");
    assert!(
        field(&out, "max rel. difference")
            .unwrap()
            .ends_with(": ok"),
        "{out}"
    );
}

#[test]
fn poisson2d_info_and_spmv() {
    let o = run(&["info", "poisson2d:20"]);
    assert_success(&o);
    let out = stdout(&o);
    assert_eq!(field(&out, "size").as_deref(), Some("400 x 400"), "{out}");
    // 400 diagonal entries and two per grid edge (2·20·19 edges).
    assert_eq!(field(&out, "nnz").as_deref(), Some("1920"), "{out}");
    assert_eq!(field(&out, "symmetric").as_deref(), Some("yes"), "{out}");
    assert_eq!(field(&out, "matrix market"), None, "{out}");

    for dtype in ["f32", "f64", "c64", "c128"] {
        let o = run(&[
            "spmv",
            "poisson2d:20",
            "--device",
            "cpu",
            "--reps",
            "2",
            "--dtype",
            dtype,
        ]);
        assert_success(&o);
        let out = stdout(&o);
        assert_eq!(field(&out, "dtype").as_deref(), Some(dtype), "{out}");
        assert!(
            field(&out, "max rel. difference")
                .unwrap()
                .ends_with(": ok"),
            "{out}"
        );
    }
}

#[test]
fn complex_info_reports_hermitian() {
    let o = run(&["info", "general:50:4", "--dtype", "c128"]);
    assert_success(&o);
    let out = stdout(&o);
    assert_eq!(field(&out, "symmetric").as_deref(), Some("no"), "{out}");
    assert_eq!(field(&out, "hermitian").as_deref(), Some("no"), "{out}");
}

#[test]
fn malformed_file_exits_2_with_line_number() {
    let path = std::env::temp_dir().join(format!("gpulinalg_bad_{}.mtx", std::process::id()));
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate real general\n% comment\n3 3 2\n1 1 1.0\n2 x 3.0\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    for args in [&["info", p][..], &["spmv", p, "--device", "cpu"]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("parse error at line 5"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    std::fs::remove_file(&path).ok();
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["info"],
        &["info", "poisson2d:0"],
        &["info", "poisson2d:4", "--reps", "3"],
        &["spmv", "poisson2d:4", "--kernel", "vec3"],
        &["spmv", "poisson2d:4", "--reps", "zero"],
        &["spmv", "poisson2d:4", "--dtype"],
        &["info", "/nonexistent/gpulinalg/missing.mtx"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn help_exits_0() {
    for args in [
        &["--help"][..],
        &["info", "--help"],
        &["spmv", "-h"],
        &["help", "spmv"],
    ] {
        let o = run(args);
        assert_success(&o);
        assert!(stdout(&o).contains("Usage"), "{args:?}");
    }
    assert!(stdout(&run(&["spmv", "--help"])).contains("--kernel"));
}

#[test]
fn cuda_without_gpu_exits_2() {
    if gpu_blas::Device::cuda(0).is_ok() {
        // A GPU is present: the product must run there and pass its check.
        let o = run(&["spmv", "poisson2d:20", "--device", "cuda", "--reps", "3"]);
        assert_success(&o);
        let out = stdout(&o);
        assert!(
            field(&out, "device").unwrap().starts_with("cuda:0"),
            "{out}"
        );
        return;
    }
    let o = run(&["spmv", "poisson2d:20", "--device", "cuda"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("--device cuda") && err.contains("CUDA unavailable"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    // `auto` falls back to the CPU.
    let o = run(&["spmv", "poisson2d:20", "--reps", "2"]);
    assert_success(&o);
    assert!(field(&stdout(&o), "device").unwrap().starts_with("cpu"));
}

/// The scaled residual the `inverse` command printed, parsed.
fn scaled_residual(out: &str) -> f64 {
    let v = field(out, "scaled residual").expect("a scaled residual line");
    v.split_whitespace()
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("unparsable residual line `{v}`"))
}

#[test]
fn inverse_on_1138_bus_picks_cholesky() {
    let p = bus_1138();
    let o = run(&["inverse", p.to_str().unwrap(), "--device", "cpu"]);
    assert_success(&o);
    let out = stdout(&o);
    assert_eq!(field(&out, "method").as_deref(), Some("Cholesky(Lower)"));
    let r = scaled_residual(&out);
    assert!(r.is_finite() && r <= 100.0, "{out}");
    let rcond: f64 = field(&out, "rcond (1-norm)")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(rcond > 0.0 && rcond < 1.0, "{out}");
}

#[test]
fn inverse_every_method_on_generated_problems() {
    for (src, method, dtype) in [
        ("general:120", "lu", "f64"),
        ("general:90", "gj", "c128"),
        ("poisson2d:9", "cholesky", "f32"),
        ("poisson2d:9", "bordering", "f64"),
        ("spd:150", "bordering-blocked", "c64"),
        ("spd:150", "auto", "f64"),
    ] {
        let o = run(&["inverse", src, "--method", method, "--dtype", dtype]);
        assert_success(&o);
        let out = stdout(&o);
        let r = scaled_residual(&out);
        assert!(r <= 100.0, "{src} {method} {dtype}: residual {r}\n{out}");
    }
}

#[test]
fn inverse_errors_exit_2() {
    // Empty rows make the power-law matrix singular: the LU names the zero pivot.
    let o = run(&["inverse", "powerlaw:50", "--device", "cpu"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("singular"), "{}", stderr(&o));
    let o = run(&["inverse", "general:10", "--method", "qr"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown method"), "{}", stderr(&o));
    let o = run(&["inverse", "general:10", "--kernel", "row"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown option"), "{}", stderr(&o));
}

#[test]
fn inverse_check_catches_the_wrong_method() {
    // Cholesky reads the lower triangle only: on a nonsymmetric (diagonally dominant) matrix it
    // inverts the Hermitian matrix that triangle defines, and the residual check against the
    // real A fails with exit code 1.
    let o = run(&["inverse", "general:40", "--method", "cholesky"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(scaled_residual(&stdout(&o)) > 100.0);
    assert!(
        stderr(&o).contains("inverse check failed"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn batched_inverse_runs_and_checks() {
    for (n, batch, dtype) in [
        ("5", "300", "f64"),
        ("40", "50", "c64"),
        ("33", "20", "f32"),
    ] {
        let o = run(&["batched", "--n", n, "--batch", batch, "--dtype", dtype]);
        assert_success(&o);
        let out = stdout(&o);
        assert_eq!(field(&out, "singular").as_deref(), Some("0"), "{out}");
        assert!(scaled_residual(&out) <= 100.0, "{out}");
    }
}

#[test]
fn batched_bad_arguments_exit_2() {
    for args in [
        &["batched", "--n", "0", "--batch", "3"][..],
        &["batched", "--batch", "3"][..],
        &["batched", "--n", "4"][..],
        &["batched", "--n", "4", "--batch", "3", "--method", "lu"][..],
        &["batched", "--n", "4", "--batch", "3", "extra"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(!stderr(&o).is_empty());
    }
}
