//! Project automation, run as `cargo xtask <command>` (see `.cargo/config.toml`).
//!
//! * `ptx [--check | --lineinfo]`: build `kernels/*.cu` into committed PTX and fatbin files
//!   with a pinned nvcc that this tool installs from PyPI by itself.
//! * `gpu-bundle`: package stripped release test and benchmark binaries, the
//!   shared matrices and a `run` script for a GPU machine without Rust.
//! * `bench [args...]`: run the benchmark binary locally.

mod bundle;
mod cargo;
mod fsutil;
mod kernels;
mod nvcc;
mod paths;
mod ptx;
mod ptx_normalize;
mod ptxas_report;

use std::process::ExitCode;

use anyhow::{bail, Result};

/// Usage text for `cargo xtask --help`.
const USAGE: &str = "\
Usage: cargo xtask <command> [args]

Commands:
  ptx [--check | --lineinfo]
                     Compile kernels/*.cu with the pinned nvcc 13.0.88 (installed
                     from PyPI into the cache on first use) into kernels/NAME.ptx
                     (compute_90 PTX) and kernels/NAME.fatbin (sm_80 + sm_90 SASS,
                     compute_90 PTX), then print the ptxas resource usage for sm_90.
                     --check compiles into a temp dir instead and fails if a
                     committed .ptx/.fatbin is stale, missing or has no .cu.
                     --lineinfo adds source line tables (for compute-sanitizer
                     or profiling; local debugging only, do not commit).
  gpu-bundle         Build stripped release test and bench binaries into
                     target/gpu-bundle/ with the shared matrices and a `run`
                     script (run test | sanitize | bench) for a GPU machine.
  bench [args...]    cargo run --release -p gpu-linalg-benches --bin gpu-bench -- args
  help               Show this text.

Environment:
  GPU_LINALG_CACHE        tool cache (default $XDG_CACHE_HOME/gpu-linalg,
                          else $HOME/.cache/gpu-linalg)
  GPU_LINALG_KERNELS_DIR  kernels directory (default <workspace>/kernels)
  GPU_LINALG_MATRICES     matrices to bundle (default <workspace>/../shared/matrices)
";

/// Parses the command line and runs the selected command.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command named by `args[0]` and returns the process exit code.
fn dispatch(args: &[String]) -> Result<ExitCode> {
    let Some((command, rest)) = args.split_first() else {
        print!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    };
    match command.as_str() {
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        "ptx" => {
            let mode = match rest {
                [] => ptx::Mode::Generate,
                [flag] if flag == "--check" => ptx::Mode::Check,
                [flag] if flag == "--lineinfo" => ptx::Mode::GenerateWithLineinfo,
                _ => bail!("usage: cargo xtask ptx [--check | --lineinfo]"),
            };
            ptx::run(mode)
        }
        "gpu-bundle" => {
            if !rest.is_empty() {
                bail!("usage: cargo xtask gpu-bundle (takes no arguments)");
            }
            bundle::run()?;
            Ok(ExitCode::SUCCESS)
        }
        "bench" => bench(rest),
        other => {
            eprint!("{USAGE}");
            bail!("unknown command `{other}`")
        }
    }
}

/// `cargo xtask bench`: runs the benchmark binary in release mode with `args`.
fn bench(args: &[String]) -> Result<ExitCode> {
    let status = cargo::command()
        .current_dir(paths::workspace_root())
        .args(["run", "--release", "-p", cargo::BENCH_PACKAGE])
        .args(["--bin", cargo::BENCH_BIN, "--"])
        .args(args)
        .status()?;
    Ok(exit_code(status))
}

/// Converts a child's exit status into ours (signals become failure).
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    }
}
