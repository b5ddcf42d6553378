//! `gpulinalg`: the command-line front end of the gpu-linalg workspace.
//!
//! * `gpulinalg info SOURCE`: size, sparsity, row lengths, symmetry and the SpMV kernel the
//!   automatic choice picks, for a Matrix Market file or a generated test problem;
//! * `gpulinalg spmv SOURCE`: times `y = A·x` on the GPU (or the CPU) and checks the result
//!   against a host reference;
//! * `gpulinalg inverse SOURCE`: inverts the matrix (stored densely) with a `dense-inverse`
//!   method, reports the time, the method used and the condition estimate, and checks
//!   `A·X = I`;
//! * `gpulinalg batched --n N --batch B`: inverts `B` random `n × n` matrices in one
//!   `batched-lu` call and checks them.
//!
//! Errors (bad arguments, unreadable or malformed files, a missing GPU when one is demanded)
//! are printed to stderr with exit code 2; a product that fails its check exits with 1.

mod batched;
mod inverse;
mod source;
mod stats;
mod timing;

use std::fmt::Display;
use std::io::Write;
use std::process::ExitCode;

use gpu_blas::spmv::{choose, SpmvKernel};
use gpu_blas::{CsrMatrix, Device, DeviceVec, Scalar};
use num_complex::{Complex32, Complex64};
use num_traits::ToPrimitive;

use source::{Dtype, Source};
use stats::line;

/// `gpulinalg --help`.
const MAIN_HELP: &str = "\
gpulinalg: inspect matrices, time SpMV and invert matrices on NVIDIA GPUs (or the CPU)

Usage:
  gpulinalg info <SOURCE> [--dtype f32|f64|c64|c128]
  gpulinalg spmv <SOURCE> [--device auto|cpu|cuda] [--kernel KERNEL] [--reps N]
                          [--dtype f32|f64|c64|c128]
  gpulinalg inverse <SOURCE> [--method METHOD] [--device auto|cpu|cuda]
                             [--dtype f32|f64|c64|c128]
  gpulinalg batched --n N --batch B [--device auto|cpu|cuda] [--dtype f32|f64|c64|c128]
  gpulinalg <COMMAND> --help
  gpulinalg --help | --version

Commands:
  info   size, density, row lengths, symmetry, and the SpMV kernel `auto` would pick
  spmv   time y = A*x on a device and check it against a host reference
  inverse  invert the matrix (stored densely) and check A*X = I
  batched  invert B random n x n matrices in one call (batched LU) and check them

SOURCE is a Matrix Market file (.mtx, gzip-compressed or not) or a generator spec:
  poisson2d:N            5-point Laplacian on an N x N grid (N^2 rows)
  poisson3d:N            7-point Laplacian on an N x N x N grid (N^3 rows)
  spd:N[:PER_ROW]        random sparse SPD, about PER_ROW (8) off-diagonals per row
  general:N[:PER_ROW]    random sparse nonsymmetric, about PER_ROW (8) entries per row
  powerlaw:N[:MAXLEN]    power-law row lengths from 1 to MAXLEN (min(N, 1000))

--dtype defaults to c128 for a `complex` Matrix Market file, f64 otherwise.
Exit codes: 0 success, 1 result check failed, 2 usage or input error (a singular matrix
included).

Examples:
  gpulinalg spmv data/matrices/1138_bus.mtx
  gpulinalg inverse data/matrices/1138_bus.mtx
";

/// `gpulinalg batched --help`.
const BATCHED_HELP: &str = "\
gpulinalg batched: invert many small random matrices in one call

Usage: gpulinalg batched --n N --batch B [--device auto|cpu|cuda] [--dtype f32|f64|c64|c128]

Generates B random n x n matrices (entries in [-1, 1) plus n on the diagonal), inverts them
with one call of batched_lu::inverse_batched (LU with partial pivoting, then the inverse from
the factors) after one warm-up call, and prints the time (host clock), GFLOP/s (2n^3 flops per
matrix, x4 for complex types), the number of singular matrices and the largest scaled residual
|A*X - I|_1 / (n*eps*|A|_1*|X|_1) of the first and last matrix (computed on the host in f64;
above 100 the exit code is 1). --dtype defaults to f64.
";

/// `gpulinalg inverse --help`.
const INVERSE_HELP: &str = "\
gpulinalg inverse: invert a matrix and check the result

Usage: gpulinalg inverse <SOURCE> [--method METHOD] [--device auto|cpu|cuda]
                                  [--dtype f32|f64|c64|c128]

Options:
  --method M   auto (default: Cholesky when the matrix is Hermitian with a positive diagonal
               and factors, else LU), lu, cholesky, gauss-jordan (gj), bordering (one row per
               step), bordering-blocked (64 rows per step); cholesky and bordering read the
               lower triangle
  --device D   auto (default), cpu, or cuda
  --dtype T    element type (default f64; c128 for a `complex` Matrix Market file)

The matrix is stored densely (n up to 16384). Prints the method used, the time of one call
(host clock, the copy to the device included), GFLOP/s (2n^3 flops for a general inverse, n^3
for a Hermitian one, x4 for complex types), the reciprocal condition number in the 1-norm (an
estimate for LU and Cholesky) with a warning when it is below eps, and the scaled residual
|A*X - I|_1 / (n*eps*|A|_1*|X|_1) computed on the host in f64; above 100 the exit code is 1.
A singular matrix (or a failed Cholesky or bordering step) is an error (exit code 2).

SOURCE: a Matrix Market file or a generator spec (see `gpulinalg --help`).
";

/// `gpulinalg info --help`.
const INFO_HELP: &str = "\
gpulinalg info: describe a sparse matrix

Usage: gpulinalg info <SOURCE> [--dtype f32|f64|c64|c128]

Prints the source (and the Matrix Market header of a file), the size, nnz, density, row
lengths (min/mean/max/standard deviation), empty rows, symmetry (structural; A == A^T exactly;
A == A^H for complex types) and the SpMV kernel `--kernel auto` runs on the GPU.

SOURCE: a Matrix Market file or a generator spec (see `gpulinalg --help`).
";

/// `gpulinalg spmv --help`.
const SPMV_HELP: &str = "\
gpulinalg spmv: time the sparse matrix-vector product y = A*x

Usage: gpulinalg spmv <SOURCE> [--device auto|cpu|cuda] [--kernel KERNEL] [--reps N]
                               [--dtype f32|f64|c64|c128]

Options:
  --device D   auto (default: CUDA device 0 when usable, else the CPU), cpu, or cuda
               (fails with exit code 2 when no GPU is usable)
  --kernel K   GPU kernel: auto (default), row, vec2, vec4, vec8, vec16, vec32, adaptive;
               the CPU has a single SpMV loop and ignores it
  --reps N     timed repetitions after 3 warm-up runs (default 20)
  --dtype T    element type (default f64; c128 for a `complex` Matrix Market file)

Each repetition is timed with a host clock between two device synchronizations; the median
is reported with GFLOP/s (2 flops per stored entry, 8 for complex types) and GB/s (the bytes
one product must move: nnz*(sizeof T + 4) + (rows+1)*4 + (rows+cols)*sizeof T). The result
is checked against a host f64 loop: the largest error relative to each row's absolute sum
sum_j |a_ij|*|x_j| must stay within max(1000, longest row)*eps, else the exit code is 1.

SOURCE: a Matrix Market file or a generator spec (see `gpulinalg --help`).
";

/// Default number of timed repetitions for `spmv`.
const DEFAULT_REPS: usize = 20;

/// How a run failed; decides the exit code.
#[derive(Debug)]
enum Failure {
    /// Bad command line: the message, then a pointer to `--help`; exit code 2.
    Usage(String),
    /// Unusable input or environment (unreadable file, no GPU for `--device cuda`); exit code 2.
    Input(String),
    /// The SpMV result failed its check against the host reference; exit code 1.
    Check(String),
}

impl Failure {
    /// The process exit code for this failure.
    fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) | Failure::Input(_) => 2,
            Failure::Check(_) => 1,
        }
    }
}

/// Which device `spmv` runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DeviceChoice {
    /// CUDA device 0 when usable, else the CPU.
    Auto,
    /// The CPU.
    Cpu,
    /// CUDA device 0, or fail.
    Cuda,
}

/// The parsed options of `info` and `spmv` (`info` uses only `source` and `dtype`).
#[derive(Clone, Debug)]
struct Options {
    /// Where the matrix comes from.
    source: Source,
    /// `--dtype`, when given.
    dtype: Option<Dtype>,
    /// `--device`.
    device: DeviceChoice,
    /// `--kernel`.
    kernel: SpmvKernel,
    /// `--reps`.
    reps: usize,
    /// `--method` (`inverse`).
    method: inverse::MethodChoice,
}

/// What the command line asks for.
#[derive(Debug)]
enum Command {
    /// Print this text to stdout and exit with 0.
    Print(String),
    /// `gpulinalg info`.
    Info(Options),
    /// `gpulinalg spmv`.
    Spmv(Options),
    /// `gpulinalg inverse`.
    Inverse(Options),
    /// `gpulinalg batched`.
    Batched(BatchedOptions),
}

/// The parsed options of `batched`.
#[derive(Clone, Copy, Debug)]
struct BatchedOptions {
    shape: batched::Shape,
    device: DeviceChoice,
    dtype: Dtype,
}

/// Parses the arguments of `batched` (after the command name).
fn parse_batched(args: &[String]) -> Result<Command, Failure> {
    let usage = |m: String| Failure::Usage(m);
    let (mut n, mut batch) = (None, None);
    let mut opts = BatchedOptions {
        shape: batched::Shape { n: 0, batch: 0 },
        device: DeviceChoice::Auto,
        dtype: Dtype::F64,
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(Command::Print(BATCHED_HELP.into()));
        }
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if !matches!(key, "--n" | "--batch" | "--device" | "--dtype") {
            return Err(usage(format!(
                "batched: unknown option or argument `{arg}`"
            )));
        }
        let value = match inline {
            Some(v) => v,
            None => rest
                .next()
                .cloned()
                .ok_or_else(|| usage(format!("batched: option `{key}` needs a value")))?,
        };
        let count = |v: &str, what: &str, max: usize| match v.parse::<usize>() {
            Ok(x) if (1..=max).contains(&x) => Ok(x),
            _ => Err(usage(format!(
                "batched: bad {what} `{v}`: expected 1..={max}"
            ))),
        };
        match key {
            "--n" => n = Some(count(&value, "--n", 4096)?),
            "--batch" => batch = Some(count(&value, "--batch", 10_000_000)?),
            "--device" => opts.device = parse_device(&value).map_err(usage)?,
            _ => opts.dtype = Dtype::parse(&value).map_err(usage)?,
        }
    }
    let n = n.ok_or_else(|| usage("batched: missing --n".into()))?;
    let batch = batch.ok_or_else(|| usage("batched: missing --batch".into()))?;
    opts.shape = batched::Shape { n, batch };
    Ok(Command::Batched(opts))
}

/// `gpulinalg batched`.
fn run_batched(opts: &BatchedOptions) -> Result<(), Failure> {
    fn go<T: Scalar>(opts: &BatchedOptions) -> Result<(), Failure> {
        let (dev, why_cpu) = pick_device(opts.device)?;
        let s = opts.shape;
        emit(&[
            line(
                "matrices",
                format!("{} of order {} ({})", s.batch, s.n, opts.dtype),
            ),
            match &why_cpu {
                Some(why) => line("device", format!("{dev} (auto: no usable GPU: {why})")),
                None => line("device", &dev),
            },
        ]);
        let out = batched::run::<T>(s, &dev).map_err(lib_error("inverse_batched"))?;
        let ok = out.scaled_residual <= RESIDUAL_LIMIT;
        emit(&[
            line(
                "time",
                format!("{} ms (one call after a warm-up)", millis(out.ms)),
            ),
            line(
                "GFLOP/s",
                format!("{:.2}", batched::flops::<T>(s) / (out.ms * 1e6)),
            ),
            line("singular", out.singular),
            line(
                "scaled residual",
                format!(
                    "{:.3e} (worst of the first and last matrix; limit {RESIDUAL_LIMIT}): {}",
                    out.scaled_residual,
                    if ok { "ok" } else { "FAILED" }
                ),
            ),
        ]);
        if ok {
            Ok(())
        } else {
            Err(Failure::Check(format!(
                "batched inverse check failed: scaled residual {:.3e} exceeds {RESIDUAL_LIMIT}",
                out.scaled_residual
            )))
        }
    }
    match opts.dtype {
        Dtype::F32 => go::<f32>(opts),
        Dtype::F64 => go::<f64>(opts),
        Dtype::C64 => go::<Complex32>(opts),
        Dtype::C128 => go::<Complex64>(opts),
    }
}

/// Parses `--kernel`'s value.
fn parse_kernel(s: &str) -> Result<SpmvKernel, String> {
    Ok(match s {
        "auto" => SpmvKernel::Auto,
        "row" => SpmvKernel::ThreadPerRow,
        "adaptive" => SpmvKernel::Adaptive,
        "vec2" | "vec4" | "vec8" | "vec16" | "vec32" => SpmvKernel::VectorPerRow {
            lanes: s[3..].parse().unwrap_or(32),
        },
        _ => {
            return Err(format!(
                "unknown kernel `{s}`: expected auto, row, vec2, vec4, vec8, vec16, vec32 or \
                 adaptive"
            ))
        }
    })
}

/// Parses `--device`'s value.
fn parse_device(s: &str) -> Result<DeviceChoice, String> {
    match s {
        "auto" => Ok(DeviceChoice::Auto),
        "cpu" => Ok(DeviceChoice::Cpu),
        "cuda" | "gpu" => Ok(DeviceChoice::Cuda),
        _ => Err(format!("unknown device `{s}`: expected auto, cpu or cuda")),
    }
}

/// Parses `--reps`'s value: a positive integer.
fn parse_reps(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("bad --reps `{s}`: expected a positive integer")),
    }
}

/// Parses the arguments after the program name.
fn parse_args(args: &[String]) -> Result<Command, Failure> {
    let usage = |m: String| Failure::Usage(m);
    let Some(cmd) = args.first() else {
        return Err(usage("no command given".into()));
    };
    let (name, help) = match cmd.as_str() {
        "-h" | "--help" => return Ok(Command::Print(MAIN_HELP.into())),
        "-V" | "--version" => {
            return Ok(Command::Print(format!(
                "gpulinalg {}\n",
                env!("CARGO_PKG_VERSION")
            )))
        }
        "help" => {
            return match args.get(1).map(String::as_str) {
                None => Ok(Command::Print(MAIN_HELP.into())),
                Some("info") => Ok(Command::Print(INFO_HELP.into())),
                Some("spmv") => Ok(Command::Print(SPMV_HELP.into())),
                Some("inverse") => Ok(Command::Print(INVERSE_HELP.into())),
                Some("batched") => Ok(Command::Print(BATCHED_HELP.into())),
                Some(other) => Err(usage(format!("no help for unknown command `{other}`"))),
            }
        }
        "info" => ("info", INFO_HELP),
        "spmv" => ("spmv", SPMV_HELP),
        "inverse" => ("inverse", INVERSE_HELP),
        "batched" => return parse_batched(&args[1..]),
        other => return Err(usage(format!("unknown command `{other}`"))),
    };
    let mut source = None;
    let mut opts = Options {
        source: Source::File(Default::default()),
        dtype: None,
        device: DeviceChoice::Auto,
        kernel: SpmvKernel::Auto,
        reps: DEFAULT_REPS,
        method: inverse::MethodChoice::Auto,
    };
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(Command::Print(help.into()));
        }
        if !arg.starts_with('-') {
            if source.is_some() {
                return Err(usage(format!("{name}: unexpected extra argument `{arg}`")));
            }
            source = Some(Source::parse(arg).map_err(usage)?);
            continue;
        }
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        let known = match name {
            "info" => key == "--dtype",
            "spmv" => matches!(key, "--dtype" | "--device" | "--kernel" | "--reps"),
            _ => matches!(key, "--dtype" | "--device" | "--method"),
        };
        if !known {
            return Err(usage(format!("{name}: unknown option `{key}`")));
        }
        let value = match inline {
            Some(v) => v,
            None => rest
                .next()
                .cloned()
                .ok_or_else(|| usage(format!("{name}: option `{key}` needs a value")))?,
        };
        match key {
            "--dtype" => opts.dtype = Some(Dtype::parse(&value).map_err(usage)?),
            "--device" => opts.device = parse_device(&value).map_err(usage)?,
            "--kernel" => opts.kernel = parse_kernel(&value).map_err(usage)?,
            "--method" => opts.method = inverse::MethodChoice::parse(&value).map_err(usage)?,
            _ => opts.reps = parse_reps(&value).map_err(usage)?,
        }
    }
    opts.source = source.ok_or_else(|| usage(format!("{name}: missing <SOURCE>")))?;
    Ok(match name {
        "info" => Command::Info(opts),
        "spmv" => Command::Spmv(opts),
        _ => Command::Inverse(opts),
    })
}

/// Writes lines to stdout, ignoring write errors (a closed pipe is not worth a panic).
fn emit<S: AsRef<str>>(lines: &[S]) {
    let mut out = std::io::stdout().lock();
    for l in lines {
        let _ = writeln!(out, "{}", l.as_ref());
    }
    let _ = out.flush();
}

/// An input error from the library, naming the source unless the message already does.
fn load_error(source: &Source, e: gpu_blas::Error) -> Failure {
    match e {
        gpu_blas::Error::Io { .. } => Failure::Input(e.to_string()),
        _ => Failure::Input(format!("{source}: {e}")),
    }
}

/// Any other library error, with what was being done.
fn lib_error(context: &str) -> impl Fn(gpu_blas::Error) -> Failure + '_ {
    move |e| Failure::Input(format!("{context}: {e}"))
}

/// The statistics lines shared by `info` and `spmv`, with the device-independent row stats.
fn describe<T: Scalar>(
    opts: &Options,
    dtype: Dtype,
    loaded: &source::Loaded<T>,
) -> Result<(Vec<String>, gpu_blas::RowStats), Failure> {
    let a = &loaded.matrix;
    let (rows, cols) = a.shape();
    let stats = CsrMatrix::from_sprs(&Device::cpu(), a)
        .map_err(lib_error("building the CSR matrix"))?
        .row_stats();
    let mut lines = vec![line("source", &opts.source)];
    if let Some(h) = &loaded.header {
        lines.push(line(
            "matrix market",
            format!(
                "{} {} {}, {} x {}, {} stored entries",
                h.format, h.field, h.symmetry, h.rows, h.cols, h.entries
            ),
        ));
    }
    lines.push(line("dtype", dtype));
    lines.extend(stats::summary_lines(rows, cols, a.nnz(), &stats));
    Ok((lines, stats))
}

/// `gpulinalg info`.
fn run_info<T: Scalar>(opts: &Options, dtype: Dtype) -> Result<(), Failure> {
    let loaded = opts
        .source
        .load::<T>()
        .map_err(|e| load_error(&opts.source, e))?;
    let (mut lines, row_stats) = describe(opts, dtype, &loaded)?;
    lines.extend(stats::symmetry_lines::<T>(&stats::symmetry(&loaded.matrix)));
    lines.push(line("auto SpMV kernel", stats::auto_kernel(&row_stats)));
    emit(&lines);
    Ok(())
}

/// Picks the device for `spmv`; with `auto` and no usable GPU, also why.
fn pick_device(choice: DeviceChoice) -> Result<(Device, Option<String>), Failure> {
    match choice {
        DeviceChoice::Cpu => Ok((Device::cpu(), None)),
        DeviceChoice::Cuda => Device::cuda(0)
            .map(|d| (d, None))
            .map_err(|e| Failure::Input(format!("--device cuda: {e}"))),
        DeviceChoice::Auto => Ok(match Device::cuda(0) {
            Ok(d) => (d, None),
            Err(e) => (Device::cpu(), Some(e.to_string())),
        }),
    }
}

/// Milliseconds with four significant digits (at most six decimals).
fn millis(ms: f64) -> String {
    let decimals = if ms > 0.0 && ms.is_finite() {
        (3 - ms.log10().floor() as i32).clamp(0, 6) as usize
    } else {
        3
    };
    format!("{ms:.decimals$}")
}

/// `gpulinalg spmv`.
fn run_spmv<T: Scalar>(opts: &Options, dtype: Dtype) -> Result<(), Failure> {
    let (dev, why_cpu) = pick_device(opts.device)?;
    let loaded = opts
        .source
        .load::<T>()
        .map_err(|e| load_error(&opts.source, e))?;
    let (mut lines, row_stats) = describe(opts, dtype, &loaded)?;
    let host = &loaded.matrix;
    let (rows, cols, nnz) = (host.rows(), host.cols(), host.nnz());
    lines.push(match &why_cpu {
        Some(why) => line("device", format!("{dev} (auto: no usable GPU: {why})")),
        None => line("device", &dev),
    });
    lines.push(line(
        "kernel",
        if dev.is_cpu() {
            "cpu loop (--kernel applies to CUDA only)".to_string()
        } else if opts.kernel == SpmvKernel::Auto {
            format!("auto -> {}", stats::kernel_description(choose(&row_stats)))
        } else {
            stats::kernel_description(opts.kernel)
        },
    ));
    emit(&lines);

    let a = CsrMatrix::from_sprs(&dev, host).map_err(lib_error("copying A to the device"))?;
    let xh = timing::input_vector::<T>(cols);
    let x = DeviceVec::from_slice(&dev, &xh).map_err(lib_error("copying x to the device"))?;
    let mut y = DeviceVec::<T>::zeros(&dev, rows).map_err(lib_error("allocating y"))?;
    let t = timing::time_spmv(opts.kernel, &a, &x, &mut y, opts.reps).map_err(lib_error("spmv"))?;
    let yh = y.to_vec().map_err(lib_error("copying y to the host"))?;
    let check = timing::check(host, &xh, &yh);

    let ms = t.median_ms;
    let rate = |amount: f64| amount / (ms * 1e6);
    emit(&[
        line(
            "time (median)",
            format!(
                "{} ms (min {} ms; {} reps after {} warm-up runs)",
                millis(ms),
                millis(t.min_ms),
                opts.reps,
                timing::WARMUP
            ),
        ),
        line("GFLOP/s", format!("{:.2}", rate(timing::flops::<T>(nnz)))),
        line(
            "GB/s",
            format!("{:.2}", rate(timing::bytes::<T>(rows, cols, nnz))),
        ),
        line(
            "max rel. difference",
            format!(
                "{:.3e} vs host f64 reference (tolerance {:.3e}): {}",
                check.max_rel,
                check.tolerance,
                if check.passed() { "ok" } else { "FAILED" }
            ),
        ),
    ]);
    if check.passed() {
        Ok(())
    } else {
        Err(Failure::Check(format!(
            "SpMV result check failed: max relative difference {:.3e} exceeds the tolerance {:.3e}",
            check.max_rel, check.tolerance
        )))
    }
}

/// Which command [`dispatch`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    Info,
    Spmv,
    Inverse,
}

/// `gpulinalg inverse`.
fn run_inverse<T: Scalar>(opts: &Options, dtype: Dtype) -> Result<(), Failure> {
    let (dev, why_cpu) = pick_device(opts.device)?;
    let loaded = opts
        .source
        .load::<T>()
        .map_err(|e| load_error(&opts.source, e))?;
    let (mut lines, _) = describe(opts, dtype, &loaded)?;
    let a = &loaded.matrix;
    let (rows, cols) = a.shape();
    if rows != cols {
        return Err(Failure::Input(format!(
            "{}: the matrix is {rows} x {cols}, not square",
            opts.source
        )));
    }
    if rows > inverse::MAX_ORDER {
        return Err(Failure::Input(format!(
            "{}: n = {rows} is above the {} this command stores densely",
            opts.source,
            inverse::MAX_ORDER
        )));
    }
    lines.push(match &why_cpu {
        Some(why) => line("device", format!("{dev} (auto: no usable GPU: {why})")),
        None => line("device", &dev),
    });
    emit(&lines);
    let out = inverse::run(a, &dev, opts.method.method())
        .map_err(|e| Failure::Input(format!("{}: {e}", opts.source)))?;
    let inv = &out.inverse;
    let mut lines = vec![
        line("method", format!("{:?}", inv.method_used)),
        line("time", format!("{} ms (one call)", millis(out.ms))),
        line(
            "GFLOP/s",
            format!(
                "{:.2}",
                inverse::flops::<T>(rows, inv.method_used) / (out.ms * 1e6)
            ),
        ),
        line(
            "rcond (1-norm)",
            format!(
                "{:.3e} ({})",
                inv.rcond.to_f64().unwrap_or(f64::NAN),
                if inv.rcond_exact { "exact" } else { "estimate" }
            ),
        ),
    ];
    if let Some(w) = inv.warning() {
        lines.push(line("warning", w));
    }
    let ok = out.scaled_residual <= RESIDUAL_LIMIT;
    lines.push(line(
        "scaled residual",
        format!(
            "{:.3e} = |A*X - I|_1 / (n*eps*|A|_1*|X|_1) (limit {RESIDUAL_LIMIT}): {}",
            out.scaled_residual,
            if ok { "ok" } else { "FAILED" }
        ),
    ));
    emit(&lines);
    if ok {
        Ok(())
    } else {
        Err(Failure::Check(format!(
            "inverse check failed: scaled residual {:.3e} exceeds {RESIDUAL_LIMIT}",
            out.scaled_residual
        )))
    }
}

/// Largest scaled residual `inverse` accepts (a backward-stable inverse stays within a small
/// multiple of one; LAPACK's test suites use 30).
const RESIDUAL_LIMIT: f64 = 100.0;

/// Runs `info`, `spmv` or `inverse` in the requested element type.
fn dispatch(opts: &Options, run: Run) -> Result<(), Failure> {
    let dtype = match opts.dtype {
        Some(d) => d,
        None => opts
            .source
            .default_dtype()
            .map_err(|e| load_error(&opts.source, e))?,
    };
    /// Runs the command for one element type.
    fn go<T: Scalar>(opts: &Options, dtype: Dtype, run: Run) -> Result<(), Failure> {
        match run {
            Run::Info => run_info::<T>(opts, dtype),
            Run::Spmv => run_spmv::<T>(opts, dtype),
            Run::Inverse => run_inverse::<T>(opts, dtype),
        }
    }
    match dtype {
        Dtype::F32 => go::<f32>(opts, dtype, run),
        Dtype::F64 => go::<f64>(opts, dtype, run),
        Dtype::C64 => go::<Complex32>(opts, dtype, run),
        Dtype::C128 => go::<Complex64>(opts, dtype, run),
    }
}

/// Prints `error: message` to stderr.
fn report(message: impl Display) {
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
}

/// Parses the command line, runs the command, and maps failures to exit codes.
fn main() -> ExitCode {
    let mut args = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => args.push(s),
            Err(bad) => {
                report(format!("argument {bad:?} is not valid UTF-8"));
                return ExitCode::from(2);
            }
        }
    }
    let result = parse_args(&args).and_then(|cmd| match cmd {
        Command::Print(text) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            Ok(())
        }
        Command::Info(opts) => dispatch(&opts, Run::Info),
        Command::Spmv(opts) => dispatch(&opts, Run::Spmv),
        Command::Inverse(opts) => dispatch(&opts, Run::Inverse),
        Command::Batched(opts) => run_batched(&opts),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            match &f {
                Failure::Usage(m) => {
                    report(m);
                    let _ = writeln!(
                        std::io::stderr().lock(),
                        "\nRun `gpulinalg --help` for usage."
                    );
                }
                Failure::Input(m) | Failure::Check(m) => report(m),
            }
            ExitCode::from(f.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_spmv_options() {
        let Ok(Command::Spmv(o)) = parse_args(&args(
            "spmv poisson2d:10 --device=cpu --kernel vec8 --reps 3 --dtype f32",
        )) else {
            panic!("expected spmv");
        };
        assert_eq!(o.device, DeviceChoice::Cpu);
        assert_eq!(o.kernel, SpmvKernel::VectorPerRow { lanes: 8 });
        assert_eq!((o.reps, o.dtype), (3, Some(Dtype::F32)));
    }

    #[test]
    fn rejects_bad_arguments() {
        for bad in [
            "",
            "frobnicate x",
            "info",
            "info a.mtx b.mtx",
            "info a.mtx --reps 3",
            "spmv a.mtx --reps 0",
            "spmv a.mtx --reps",
            "spmv a.mtx --kernel vec3",
            "spmv a.mtx --device tpu",
            "spmv a.mtx --dtype f16",
            "spmv poisson2d:-1",
        ] {
            assert!(
                matches!(parse_args(&args(bad)), Err(Failure::Usage(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            parse_args(&args("spmv --help")),
            Ok(Command::Print(t)) if t == SPMV_HELP
        ));
    }
}
