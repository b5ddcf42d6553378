//! `--only panel-tune`: the sweep over the block count of `dense-inverse`'s cooperative LU
//! panel launch.
//!
//! For each order (4000, 8000, 16000, or `--inv-n`) and type (f64 and f32, or `--inv-types`),
//! times `lu_factor` (a new matrix per call, as in the inverse section's "factorization
//! alone") on one level (outer width 64) with the panel forced to each block count of [`COUNTS`]
//! (`dense_inverse::set_panel_blocks`), against cuSOLVER `getrf` on the same matrix (the
//! inverse section's general test matrix). A count is skipped when the first panel (`n` rows)
//! cannot launch on exactly that many blocks (`dense_inverse::panel_launch_blocks`): its
//! rows per block do not fit a block's shared memory, or there are fewer multiprocessors; the
//! later panels are shorter, so every panel of a timed count runs in one cooperative launch.
//! Then, on the built-in block count, `lu_factor` and `lu_inverse` with block columns of
//! [`OUTERS`] columns around the 64-column panels (`dense_inverse::set_lu_outer_block`: the
//! trailing `gemm` of depth 128, 256 or 512 instead of 64).
//! Prints one line per count as it goes, then a table with the best count per (order, type).
//!
//! Repeats: the inverse section's ([`crate::inverse::measure_new`]: two probe calls, then
//! three warm-ups and at most [`MAX_REPS`] repeats, or for calls over 50 ms one warm-up and
//! three repeats), so n = 16000 costs about six calls per count.

use crate::blas1::dtype;
use crate::cusolver::CusolverInv;
use crate::inv_model::{self as model, InvPlan, Structure};
use crate::inverse::{self, InvCtx};
use crate::report::opt;
use dense_inverse::{panel_launch_blocks, set_lu_outer_block, set_panel_blocks};
use gpu_blas::{DeviceMatrix, DeviceVec};
use std::fmt::Write as _;

/// Block counts swept.
pub const COUNTS: [usize; 8] = [8, 16, 24, 32, 48, 66, 100, 132];
/// Outer block widths swept on the built-in block count (64, one level, is the count sweep).
pub const OUTERS: [usize; 3] = [128, 256, 512];
/// Orders, unless `--inv-n` gives others.
pub const ORDERS: &str = "4000,8000,16000";
/// Types, unless `--inv-types` gives others.
pub const TYPES: &str = "f64,f32";
/// Most timed repeats per count (the section's `--reps` when smaller).
pub const MAX_REPS: usize = 7;
/// Columns of an LU panel (`dense-inverse`'s block size).
const PANEL_COLS: usize = 64;

/// The `(order, type)` cases: every type at every order, from the `--inv-n` and
/// `--inv-types` lists or [`ORDERS`] and [`TYPES`].
pub fn cases(n: Option<&str>, types: Option<&str>) -> Result<Vec<(usize, String)>, String> {
    Ok(InvPlan::new(
        false,
        Some(n.unwrap_or(ORDERS)),
        Some(types.unwrap_or(TYPES)),
        Some(0),
    )?
    .cases)
}

/// One timed block count.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneRow {
    pub n: usize,
    pub dtype: String,
    pub blocks: usize,
    /// Outer block width of the factorization (64: one level, as the block-count sweep runs).
    pub outer: usize,
    /// Whether the built-in rule launches this many blocks on the first panel, on one level.
    pub default: bool,
    pub ms: f64,
    /// cuSOLVER `getrf` on the same matrix.
    pub getrf_ms: Option<f64>,
}

impl TuneRow {
    fn ratio(&self) -> Option<f64> {
        self.getrf_ms.map(|b| self.ms / b)
    }
}

/// Rows of the first panel per block: `⌈n / blocks⌉`.
pub fn rows_per_block(n: usize, blocks: usize) -> usize {
    n.div_ceil(blocks.max(1))
}

/// Dynamic shared memory of a panel block holding `rows` rows of a 64-column panel plus the
/// pivot row, for elements of `elem` bytes.
pub fn panel_smem(rows: usize, elem: usize) -> usize {
    (rows * PANEL_COLS + PANEL_COLS) * elem
}

/// The fastest row of each `(n, type)` in `rows`, in order of first appearance.
pub fn best(rows: &[TuneRow]) -> Vec<&TuneRow> {
    let mut out: Vec<&TuneRow> = Vec::new();
    for r in rows {
        match out.iter_mut().find(|b| b.n == r.n && b.dtype == r.dtype) {
            Some(b) if r.ms < b.ms => *b = r,
            Some(_) => {}
            None => out.push(r),
        }
    }
    out
}

/// The table (markdown): n, type, blocks (`*`: the built-in rule's count), rows per block of
/// the first panel, ms, cuSOLVER getrf ms, ratio; then the best count per (n, type).
pub fn table(rows: &[TuneRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| n | type | blocks | outer | rows/block | lu_factor ms | getrf ms | ratio |"
    );
    let _ = writeln!(s, "|---:|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {}{} | {} | {} | {:.2} | {} | {} |",
            r.n,
            r.dtype,
            r.blocks,
            if r.default { "*" } else { "" },
            r.outer,
            rows_per_block(r.n, r.blocks),
            r.ms,
            opt(r.getrf_ms, 2),
            opt(r.ratio(), 2)
        );
    }
    let _ = writeln!(s, "(*: the built-in rule's count for the first panel)");
    for b in best(rows) {
        let default = rows
            .iter()
            .find(|r| r.n == b.n && r.dtype == b.dtype && r.default)
            .map_or_else(String::new, |d| {
                format!(
                    "; built-in {} blocks {:.2} ms ({:.2}× the best)",
                    d.blocks,
                    d.ms,
                    d.ms / b.ms
                )
            });
        let _ = writeln!(
            s,
            "panel-tune best: n={} {} blocks={} outer={} ms={:.2} ratio={}{default}",
            b.n,
            b.dtype,
            b.blocks,
            b.outer,
            b.ms,
            opt(b.ratio(), 2)
        );
    }
    s
}

/// Puts the built-in rule back when dropped (also on an early return).
struct BuiltInRule;

impl Drop for BuiltInRule {
    fn drop(&mut self) {
        set_panel_blocks(None);
        set_lu_outer_block(None);
    }
}

/// `--only lu-trace`: `lu_factor`, then `lu_inverse`, three calls each (each result freed
/// before the next call) on the general test matrix of every case's order, in the case's type
/// (f64 or f32; the complex cases are skipped), each call's wall time to the log.
pub fn trace(dev: &gpu_blas::Device, cases: &[(usize, String)]) {
    for (n, ty) in cases {
        let r = match ty.as_str() {
            "f64" => trace_one::<f64>(dev, *n),
            "f32" => trace_one::<f32>(dev, *n),
            _ => Err("complex: not traced".into()),
        };
        if let Err(e) = r {
            eprintln!("lu-trace {ty} n = {n}: {e}");
        }
    }
}

fn trace_one<T: CusolverInv>(dev: &gpu_blas::Device, n: usize) -> Result<(), String> {
    let host = model::general::<T>(n, inverse::seed::<T>(n));
    let orig = DeviceMatrix::from_col_major(dev, n, n, n, host).map_err(|e| e.to_string())?;
    let ty = dtype::<T>();
    trace_calls(&orig, n, ty)
}

fn trace_calls<T: CusolverInv>(orig: &DeviceMatrix<T>, n: usize, ty: &str) -> Result<(), String> {
    let e = |e: dense_inverse::Error| e.to_string();
    let dev = orig.device();
    let call = |what: &str| -> Result<(), dense_inverse::Error> {
        match what {
            "lu_factor" => dense_inverse::lu_factor(orig).map(drop),
            "lu_inverse" => dense_inverse::lu_inverse(orig).map(drop),
            _ => dense_inverse::gauss_jordan_inverse(orig).map(drop),
        }
    };
    for label in ["lu_factor", "lu_inverse", "gauss_jordan"] {
        for rep in 0..3 {
            let t = std::time::Instant::now();
            call(label).map_err(e)?;
            dev.synchronize().map_err(|e| e.to_string())?;
            eprintln!(
                "lu-trace {ty} n = {n} {label} #{rep}: {:.3} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        // One more call with the pipeline's marks.
        dense_inverse::set_lu_trace(true);
        let r = call(label);
        let marks = dense_inverse::take_lu_trace();
        dense_inverse::set_lu_trace(false);
        r.map_err(e)?;
        print_marks(
            &format!("lu-trace {ty} n = {n} {label}"),
            &marks.map_err(e)?,
        );
    }
    // Gauss-Jordan's outer block width (its block columns are the LU's) and how it shares
    // the multiprocessors: (reserve, clustered).
    use dense_inverse::GjPartition;
    for (reserve, clustered) in [(0, false), (16, true), (24, true)] {
        let p = GjPartition {
            reserve,
            clustered,
            ..GjPartition::default()
        };
        let sms = gpu_blas::interop::cuda_partition_streams(dev, reserve as u32, clustered)
            .ok()
            .flatten()
            .map_or(0, |p| p.sms);
        for outer in [192, 256, 384, 512] {
            dense_inverse::set_gj_partition(Some(p));
            set_lu_outer_block(Some(outer));
            let mut times = Vec::new();
            let mut r = Ok(());
            for _ in 0..3 {
                let t = std::time::Instant::now();
                r = call("gauss_jordan").and_then(|()| dev.synchronize().map_err(Into::into));
                if r.is_err() {
                    break;
                }
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            set_lu_outer_block(None);
            dense_inverse::set_gj_partition(None);
            r.map_err(e)?;
            eprintln!(
                "lu-trace {ty} n = {n} gauss_jordan outer {outer} partition {sms} {p:?}: {times:.3?} ms"
            );
        }
    }
    Ok(())
}

/// Per block column of the traced call: when the priority stream finished factoring it, how
/// long its factorization took since the previous block column's lookahead update ended, how
/// long the lookahead update (with the wait for the previous trailing update) took, and when
/// the device's stream finished the trailing update and `U⁻¹`; then the totals.
fn print_marks(head: &str, marks: &[(&'static str, usize, f64)]) {
    let at = |label: &str, kk: usize| {
        marks
            .iter()
            .find(|m| m.0 == label && m.1 == kk)
            .map(|m| m.2)
    };
    let mut cols: Vec<usize> = marks
        .iter()
        .filter(|m| m.0 == "factored")
        .map(|m| m.1)
        .collect();
    cols.dedup();
    let (mut fsum, mut lsum, mut prev_l) = (0.0, 0.0, at("start", 0).unwrap_or(0.0));
    for (i, &kk) in cols.iter().enumerate() {
        let (Some(f), Some(l)) = (at("factored", kk), at("lookahead", kk)) else {
            continue;
        };
        fsum += f - prev_l;
        lsum += l - f;
        if i % 8 == 0 || i + 1 == cols.len() {
            let all: Vec<String> = marks
                .iter()
                .filter(|m| m.1 == kk)
                .map(|m| format!("{} {:.3}", m.0, m.2))
                .collect();
            eprintln!("{head} kk={kk:5} marks: {}", all.join(", "));
            eprintln!(
                "{head} kk={kk:5} factored {f:8.3} (+{:.3}) lookahead {l:8.3} (+{:.3}) update {} uinv {}",
                f - prev_l,
                l - f,
                opt(at("update", kk), 3),
                opt(at("uinv", kk), 3)
            );
        }
        prev_l = l;
    }
    eprintln!(
        "{head}: {} block columns, factoring {fsum:.3} ms, lookahead updates and waits {lsum:.3} ms, last update {} uinv {}, factor-end {} solve-end {}",
        cols.len(),
        opt(cols.last().and_then(|&kk| at("update", kk)), 3),
        opt(cols.last().and_then(|&kk| at("uinv", kk)), 3),
        opt(marks.iter().find(|m| m.0 == "factor-end").map(|m| m.2), 3),
        opt(marks.iter().find(|m| m.0 == "solve-end").map(|m| m.2), 3),
    );
}

/// Runs order `n`, type `T`; rows into `out`, failures to the log.
pub fn run<T: CusolverInv>(cx: &InvCtx<'_>, n: usize, out: &mut Vec<TuneRow>) {
    if let Err(e) = case::<T>(cx, n, out) {
        eprintln!("panel-tune {} n = {n}: skipped: {e}", dtype::<T>());
    }
}

fn case<T: CusolverInv>(cx: &InvCtx<'_>, n: usize, out: &mut Vec<TuneRow>) -> Result<(), String> {
    let ty = dtype::<T>();
    let es = std::mem::size_of::<T>();
    let bytes = n * n * es;
    // The matrix, cuSOLVER's working copy (freed before ours run) and our result.
    inverse::fits_in_memory(cx, 3.0 * bytes as f64 + 256e6)?;
    let e = |e: gpu_blas::Error| e.to_string();
    let orig = {
        let host = model::general::<T>(n, inverse::seed::<T>(n));
        DeviceMatrix::from_col_major(cx.dev, n, n, n, host).map_err(e)?
    };
    let getrf_ms = match &cx.solver {
        Ok(solver) => {
            let work = DeviceVec::<T>::zeros(cx.dev, n * n).map_err(e)?;
            let ipiv = DeviceVec::<i32>::zeros(cx.dev, n).map_err(e)?;
            let info = DeviceVec::<i32>::zeros(cx.dev, 1).map_err(e)?;
            let bufs = (
                inverse::ptr(&work),
                inverse::ptr(&ipiv),
                inverse::ptr(&info),
            );
            match inverse::cusolver_factor_ms::<T>(cx, solver, Structure::General, n, &orig, bufs) {
                Ok(ms) => {
                    let bad = info.to_vec().map_err(e)?[0];
                    if bad != 0 {
                        eprintln!("panel-tune {ty} n = {n}: cuSOLVER getrf info = {bad}");
                    }
                    Some(ms)
                }
                Err(err) => {
                    eprintln!("panel-tune {ty} n = {n}: cuSOLVER getrf failed: {err}");
                    None
                }
            }
        }
        Err(err) => {
            eprintln!("panel-tune {ty} n = {n}: no cuSOLVER baseline: {err}");
            None
        }
    };
    let default = panel_launch_blocks::<T>(cx.dev, n, None).map_err(|e| e.to_string())?;
    eprintln!(
        "panel-tune {ty} n = {n}: cuSOLVER getrf {} ms; built-in rule: {}",
        opt(getrf_ms, 3),
        default.map_or_else(|| "no cooperative panel".into(), |b| format!("{b} blocks"))
    );
    let _restore = BuiltInRule;
    let mut counts: Vec<usize> = COUNTS.to_vec();
    if let Some(d) = default.filter(|d| !COUNTS.contains(d)) {
        counts.push(d);
    }
    for b in counts {
        let rows = rows_per_block(n, b);
        match panel_launch_blocks::<T>(cx.dev, n, Some(b)) {
            Ok(Some(got)) if got == b => {}
            Ok(Some(got)) => {
                eprintln!(
                    "panel-tune {ty} n={n} blocks={b}: skipped (the launch would use {got} blocks)"
                );
                continue;
            }
            Ok(None) => {
                eprintln!(
                    "panel-tune {ty} n={n} blocks={b}: skipped ({rows} rows per block: {} KiB of shared memory, or more blocks than can be resident)",
                    panel_smem(rows, es).div_ceil(1024)
                );
                continue;
            }
            Err(err) => {
                eprintln!("panel-tune {ty} n={n} blocks={b}: {err}");
                continue;
            }
        }
        set_panel_blocks(Some(b));
        set_lu_outer_block(Some(64));
        let ms = inverse::measure_new(cx, || dense_inverse::lu_factor(&orig));
        set_lu_outer_block(None);
        set_panel_blocks(None);
        match ms {
            Ok(ms) => {
                let row = TuneRow {
                    n,
                    dtype: ty.into(),
                    blocks: b,
                    outer: 64,
                    default: default == Some(b),
                    ms,
                    getrf_ms,
                };
                eprintln!(
                    "panel-tune {ty} n={n} blocks={b} rows/block={rows} lu_factor_ms={ms:.3} ratio={}",
                    opt(row.ratio(), 3)
                );
                out.push(row);
            }
            Err(err) => eprintln!("panel-tune {ty} n={n} blocks={b}: {err}"),
        }
    }
    // One level with the built-in rule, panels in one thread block cluster where they fit
    // (log only: the table's rows are cooperative launches).
    use dense_inverse::PanelSync;
    for (threads, sync) in [
        (512, PanelSync::Release),
        (256, PanelSync::Release),
        (512, PanelSync::Light),
        (256, PanelSync::Light),
        (512, PanelSync::Push),
        (256, PanelSync::Push),
    ] {
        dense_inverse::set_panel_cluster_variant(threads, sync);
        set_lu_outer_block(Some(64));
        let ms = inverse::measure_new(cx, || dense_inverse::lu_factor(&orig));
        set_lu_outer_block(None);
        match ms {
            Ok(ms) => eprintln!(
                "panel-tune {ty} n={n} cluster panels threads={threads} sync={sync:?} lu_factor_ms={ms:.3}"
            ),
            Err(err) => eprintln!("panel-tune {ty} n={n} cluster panels: {err}"),
        }
    }
    dense_inverse::set_panel_cluster_variant(512, PanelSync::Push);
    let Some(blocks) = default else {
        return Ok(());
    };
    for outer in OUTERS {
        set_lu_outer_block(Some(outer));
        let ms = inverse::measure_new(cx, || dense_inverse::lu_factor(&orig));
        let inv = inverse::measure_new(cx, || dense_inverse::lu_inverse(&orig));
        set_lu_outer_block(None);
        let inv = inv.map_or_else(|e| e.to_string(), |ms| format!("{ms:.3}"));
        match ms {
            Ok(ms) => {
                let row = TuneRow {
                    n,
                    dtype: ty.into(),
                    blocks,
                    outer,
                    default: false,
                    ms,
                    getrf_ms,
                };
                eprintln!(
                    "panel-tune {ty} n={n} blocks={blocks} outer={outer} lu_factor_ms={ms:.3} ratio={} lu_inverse_ms={inv}",
                    opt(row.ratio(), 3)
                );
                out.push(row);
            }
            Err(err) => eprintln!("panel-tune {ty} n={n} outer={outer}: {err}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize, dtype: &str, blocks: usize, ms: f64) -> TuneRow {
        TuneRow {
            n,
            dtype: dtype.into(),
            blocks,
            outer: 64,
            default: blocks == 132,
            ms,
            getrf_ms: Some(35.0),
        }
    }

    #[test]
    fn cases_default_and_given() {
        let all = cases(None, None).unwrap();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], (4000, "f64".to_string()));
        assert_eq!(all[1], (4000, "f32".to_string()));
        assert_eq!(all[5], (16000, "f32".to_string()));
        let some = cases(Some("8000"), Some("c64")).unwrap();
        assert_eq!(some, vec![(8000, "c64".to_string())]);
        assert!(cases(Some("x"), None).is_err());
        assert!(cases(None, Some("f16")).is_err());
    }

    #[test]
    fn rows_and_shared_memory_of_a_count() {
        assert_eq!(rows_per_block(8000, 32), 250);
        assert_eq!(rows_per_block(8000, 132), 61);
        assert_eq!(rows_per_block(7, 0), 7);
        // 32 blocks at n = 8000 f64: 250 rows of 64 columns plus the pivot row, ~125 KiB.
        assert_eq!(panel_smem(250, 8), 128_512);
        assert_eq!(panel_smem(250, 8).div_ceil(1024), 126);
    }

    #[test]
    fn best_count_per_order_and_type() {
        let rows = vec![
            row(4000, "f64", 16, 30.0),
            row(4000, "f64", 32, 25.0),
            row(4000, "f64", 132, 37.0),
            row(4000, "f32", 32, 28.0),
            row(4000, "f32", 132, 27.0),
            row(8000, "f64", 32, 50.0),
        ];
        let b = best(&rows);
        assert_eq!(b.len(), 3);
        assert_eq!(
            (b[0].n, b[0].dtype.as_str(), b[0].blocks),
            (4000, "f64", 32)
        );
        assert_eq!(
            (b[1].n, b[1].dtype.as_str(), b[1].blocks),
            (4000, "f32", 132)
        );
        assert_eq!((b[2].n, b[2].blocks), (8000, 32));
        let t = table(&rows);
        assert!(
            t.contains("| 4000 | f64 | 32 | 64 | 125 | 25.00 | 35.00 | 0.71 |"),
            "{t}"
        );
        assert!(t.contains("| 4000 | f64 | 132* | 64 | 31 | 37.00 |"), "{t}");
        assert!(t.contains("panel-tune best: n=4000 f64 blocks=32 outer=64 ms=25.00 ratio=0.71; built-in 132 blocks 37.00 ms (1.48× the best)"), "{t}");
        assert!(
            t.contains("panel-tune best: n=8000 f64 blocks=32 outer=64 ms=50.00 ratio=1.43\n"),
            "{t}"
        );
        assert!(best(&[]).is_empty());
    }
}
