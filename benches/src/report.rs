//! Result rows, the printed table, JSON and a markdown report.

use serde::Serialize;
use std::fmt::Write as _;

/// One measured operation.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub op: String,
    pub dtype: String,
    pub n: usize,
    pub ours_ms: f64,
    /// What `base_ms` measured: `cuBLAS`, or another of our kernels.
    pub baseline: String,
    pub base_ms: Option<f64>,
    /// ours / baseline (below 1 means ours is faster).
    pub ratio: Option<f64>,
    pub bytes: f64,
    pub gbps: f64,
    /// Achieved bandwidth as a fraction of the device copy bandwidth measured in this run.
    pub frac_copy: f64,
    pub max_rel_diff: Option<f64>,
}

/// One row of the batched-LU section: ours against one cuBLAS baseline on the same matrices.
#[derive(Clone, Debug, Serialize)]
pub struct LuRow {
    /// `getrf`, `getri`, `getrs nrhs=1`, `inverse`, `getrf vbatch`, `getri vbatch`.
    pub op: String,
    pub dtype: String,
    /// Order of every matrix; for a variable-size batch the largest order.
    pub n: usize,
    /// Smallest order (equal to `n` for a uniform batch).
    pub n_min: usize,
    /// Matrices in the batch actually used (reduced from the requested one where the buffers
    /// would not fit the device).
    pub batch: usize,
    /// `ok`, `ok (cuBLAS factors)` (our solve or inverse fed cuBLAS's factors because our
    /// factorization failed), `unsupported`, or `error: …`.
    pub ours_status: String,
    pub ours_ms: Option<f64>,
    /// What `base_ms` measured.
    pub baseline: String,
    pub base_ms: Option<f64>,
    /// ours / baseline (below 1 means ours is faster).
    pub ratio: Option<f64>,
    /// Real flops of the whole batch (`2n³/3` LU, `4n³/3` inverse from factors, `2n³` full
    /// inverse, `2n²` one solve; ×4 for complex).
    pub flops: f64,
    pub ours_tflops: Option<f64>,
    pub base_tflops: Option<f64>,
    /// Bytes of the memory floor: every matrix read once and written once, plus pivots.
    pub floor_bytes: f64,
    /// `floor_bytes` at the copy bandwidth measured in this run.
    pub floor_ms: f64,
    /// `floor_ms / ours_ms`.
    pub frac_floor: Option<f64>,
    /// Largest relative (Frobenius) difference of ours and cuBLAS's results on the checked
    /// matrices.
    pub max_rel_diff: Option<f64>,
    /// The tolerance `max_rel_diff` is held to (`16·n·eps·cond₁`).
    pub tol: Option<f64>,
    /// A failed check or a baseline failure; empty when none.
    pub warning: String,
}

/// One row of the dense-inverse section: one of our methods on one matrix, against the
/// cuSOLVER inverse of the same matrix.
#[derive(Clone, Debug, Serialize)]
pub struct InvRow {
    /// Our function (`lu_inverse`, `gauss_jordan_inverse`, `inverse(Auto)`, …).
    pub method: String,
    /// `general` or `SPD` (Hermitian positive definite for complex types).
    pub matrix: String,
    pub dtype: String,
    pub n: usize,
    /// `ok`, `unsupported` (our GPU path refuses the call), or `error: …`.
    pub ours_status: String,
    /// Ours on the GPU.
    pub ours_ms: Option<f64>,
    /// What `base_ms` measured: `cuSOLVER getrf+getrs(I)` or `cuSOLVER potrf+potri (lower)`.
    pub baseline: String,
    pub base_ms: Option<f64>,
    /// ours / baseline (below 1 means ours is faster).
    pub ratio: Option<f64>,
    /// Real flops credited (`2n³` general, `n³` SPD; ×4 for complex).
    pub flops: f64,
    pub ours_tflops: Option<f64>,
    pub base_tflops: Option<f64>,
    /// The residual check used: `AX-I` (full) or `AXv-v` (one random vector).
    pub check: String,
    /// Scaled residual of our GPU result (see the section's method text).
    pub ours_resid: Option<f64>,
    /// Scaled residual of cuSOLVER's result.
    pub base_resid: Option<f64>,
    /// Ours on the CPU backend: `ok`, `not run` (order above the CPU limit), or an error.
    pub cpu_status: String,
    /// Host wall time of ours on the CPU backend.
    pub cpu_ms: Option<f64>,
    pub cpu_resid: Option<f64>,
    /// For `inverse(Auto)`: the method it chose.
    pub note: String,
    /// A failed check, a non-zero `info`, or a baseline failure; empty when none.
    pub warning: String,
}

/// The whole run.
#[derive(Debug, Serialize)]
pub struct Report {
    pub device: String,
    pub copy_gbps: f64,
    pub rows: Vec<Row>,
    /// The batched-LU section (empty unless asked for).
    pub lu: Vec<LuRow>,
    /// How the batched-LU section was measured (empty when it did not run).
    pub lu_method: String,
    /// The dense-inverse section (empty unless asked for).
    pub inverse: Vec<InvRow>,
    /// How the dense-inverse section was measured (empty when it did not run).
    pub inverse_method: String,
}

/// `v` with `prec` decimals, or `-` when there is none.
pub fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.prec$}"))
}

fn lu_size(r: &LuRow) -> String {
    if r.n_min == r.n {
        r.n.to_string()
    } else {
        format!("{}..={}", r.n_min, r.n)
    }
}

fn lu_note(r: &LuRow) -> String {
    let mut parts = Vec::new();
    if r.ours_status != "ok" {
        parts.push(r.ours_status.clone());
    }
    if !r.warning.is_empty() {
        parts.push(format!("WARNING {}", r.warning));
    }
    parts.join("; ")
}

/// The batched-LU rows as a plain-text table.
pub fn lu_table(rows: &[LuRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<13} {:<5} {:>9} {:>6} {:>10} {:>10} {:>7} {:>7} {:>7} {:>9} {:>6} {:>9}  {:<30} note",
        "op",
        "type",
        "n",
        "batch",
        "ours ms",
        "base ms",
        "ratio",
        "ours TF",
        "base TF",
        "floor ms",
        "%floor",
        "rel diff",
        "baseline"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<13} {:<5} {:>9} {:>6} {:>10} {:>10} {:>7} {:>7} {:>7} {:>9.4} {:>6} {:>9}  {:<30} {}",
            r.op,
            r.dtype,
            lu_size(r),
            r.batch,
            opt(r.ours_ms, 4),
            opt(r.base_ms, 4),
            opt(r.ratio, 3),
            opt(r.ours_tflops, 3),
            opt(r.base_tflops, 3),
            r.floor_ms,
            r.frac_floor
                .map_or("-".into(), |f| format!("{:.1}%", 100.0 * f)),
            r.max_rel_diff.map_or("-".into(), |d| format!("{d:.1e}")),
            r.baseline,
            lu_note(r),
        );
    }
    s
}

fn lu_markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n## Batched LU\n\n{}\n", r.lu_method);
    let _ = writeln!(
        s,
        "| op | type | n | batch | ours ms | baseline | baseline ms | ratio | ours TFLOP/s | baseline TFLOP/s | floor ms | % of floor | rel diff (tol) | note |"
    );
    let _ = writeln!(
        s,
        "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for row in &r.lu {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.4} | {} | {} | {} |",
            row.op,
            row.dtype,
            lu_size(row),
            row.batch,
            opt(row.ours_ms, 4),
            row.baseline,
            opt(row.base_ms, 4),
            opt(row.ratio, 3),
            opt(row.ours_tflops, 3),
            opt(row.base_tflops, 3),
            row.floor_ms,
            row.frac_floor
                .map_or("-".into(), |f| format!("{:.1}%", 100.0 * f)),
            match (row.max_rel_diff, row.tol) {
                (Some(d), Some(t)) => format!("{d:.1e} ({t:.1e})"),
                (Some(d), None) => format!("{d:.1e}"),
                _ => "-".into(),
            },
            lu_note(row),
        );
    }
    s
}

fn resid(v: Option<f64>) -> String {
    v.map_or("-".into(), |d| format!("{d:.2e}"))
}

fn inv_note(r: &InvRow) -> String {
    let mut parts = Vec::new();
    if r.ours_status != "ok" {
        parts.push(r.ours_status.clone());
    }
    if !r.note.is_empty() {
        parts.push(r.note.clone());
    }
    if r.cpu_status != "ok" && r.cpu_status != "not run" {
        parts.push(format!("CPU {}", r.cpu_status));
    }
    if !r.warning.is_empty() {
        parts.push(format!("WARNING {}", r.warning));
    }
    parts.join("; ")
}

/// The dense-inverse rows as a plain-text table.
pub fn inv_table(rows: &[InvRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<34} {:<7} {:<5} {:>6} {:>10} {:>10} {:>7} {:>7} {:>7} {:>8} {:>9} {:>9} {:>10} {:>9}  note",
        "method",
        "matrix",
        "type",
        "n",
        "ours ms",
        "cuSOLV ms",
        "ratio",
        "ours TF",
        "cuS TF",
        "check",
        "res ours",
        "res cuS",
        "CPU ms",
        "res CPU",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<34} {:<7} {:<5} {:>6} {:>10} {:>10} {:>7} {:>7} {:>7} {:>8} {:>9} {:>9} {:>10} {:>9}  {}",
            r.method,
            r.matrix,
            r.dtype,
            r.n,
            opt(r.ours_ms, 3),
            opt(r.base_ms, 3),
            opt(r.ratio, 3),
            opt(r.ours_tflops, 2),
            opt(r.base_tflops, 2),
            r.check,
            resid(r.ours_resid),
            resid(r.base_resid),
            opt(r.cpu_ms, 1),
            resid(r.cpu_resid),
            inv_note(r),
        );
    }
    s
}

fn inv_markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n## Dense inverse\n\n{}\n", r.inverse_method);
    let _ = writeln!(
        s,
        "| method | matrix | type | n | ours ms | baseline | baseline ms | ratio | ours TFLOP/s | baseline TFLOP/s | check | residual ours | residual baseline | CPU ms | residual CPU | note |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"
    );
    for row in &r.inverse {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.method,
            row.matrix,
            row.dtype,
            row.n,
            opt(row.ours_ms, 3),
            row.baseline,
            opt(row.base_ms, 3),
            opt(row.ratio, 3),
            opt(row.ours_tflops, 2),
            opt(row.base_tflops, 2),
            row.check,
            resid(row.ours_resid),
            resid(row.base_resid),
            opt(row.cpu_ms, 1),
            resid(row.cpu_resid),
            inv_note(row),
        );
    }
    s
}

/// Whether the main (level 1, level 2, SpMV) table is printed: when it has rows, or when no
/// section ran at all.
fn main_table(r: &Report) -> bool {
    !r.rows.is_empty() || (r.lu.is_empty() && r.inverse.is_empty())
}

pub fn table(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "device: {}   copy bandwidth (read+write): {:.0} GB/s",
        r.device, r.copy_gbps
    );
    if !r.lu.is_empty() {
        s.push_str(&lu_table(&r.lu));
        s.push('\n');
    }
    if !r.inverse.is_empty() {
        s.push_str(&inv_table(&r.inverse));
        s.push('\n');
    }
    if !main_table(r) {
        s.pop();
        return s;
    }
    let _ = writeln!(
        s,
        "{:<16} {:<5} {:>10} {:>10} {:>10} {:>8} {:>8} {:>7}  baseline",
        "op", "type", "n", "ours ms", "base ms", "ratio", "GB/s", "%copy"
    );
    for row in &r.rows {
        let _ = writeln!(
            s,
            "{:<16} {:<5} {:>10} {:>10.4} {:>10} {:>8} {:>8.0} {:>6.1}%  {}",
            row.op,
            row.dtype,
            row.n,
            row.ours_ms,
            row.base_ms.map_or("-".into(), |v| format!("{v:.4}")),
            row.ratio.map_or("-".into(), |v| format!("{v:.3}")),
            row.gbps,
            100.0 * row.frac_copy,
            row.baseline,
        );
    }
    s
}

pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# GPU benchmark\n\nDevice: {}. Copy bandwidth measured in this run: {:.0} GB/s (bytes read + written).\n", r.device, r.copy_gbps);
    if main_table(r) {
        let _ = writeln!(
            s,
            "| op | type | n | ours ms | baseline | baseline ms | ratio | GB/s | % of copy |"
        );
        let _ = writeln!(s, "|---|---|---:|---:|---|---:|---:|---:|---:|");
    }
    for row in &r.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.4} | {} | {} | {} | {:.0} | {:.1}% |",
            row.op,
            row.dtype,
            row.n,
            row.ours_ms,
            row.baseline,
            row.base_ms.map_or("-".into(), |v| format!("{v:.4}")),
            row.ratio.map_or("-".into(), |v| format!("{v:.3}")),
            row.gbps,
            100.0 * row.frac_copy
        );
    }
    if !r.lu.is_empty() {
        s.push_str(&lu_markdown(r));
    }
    if !r.inverse.is_empty() {
        s.push_str(&inv_markdown(r));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lu_row(status: &str, ours: Option<f64>) -> LuRow {
        LuRow {
            op: "getrf".into(),
            dtype: "f64".into(),
            n: 190,
            n_min: 33,
            batch: 10_000,
            ours_status: status.into(),
            ours_ms: ours,
            baseline: "cuBLAS getrfBatched".into(),
            base_ms: Some(2.0),
            ratio: ours.map(|o| o / 2.0),
            flops: 1e12,
            ours_tflops: ours.map(|o| 1e12 / (o * 1e9)),
            base_tflops: Some(0.5),
            floor_bytes: 1e9,
            floor_ms: 0.4,
            frac_floor: ours.map(|o| 0.4 / o),
            max_rel_diff: ours.map(|_| 1e-14),
            tol: Some(1e-12),
            warning: String::new(),
        }
    }

    fn inv_row(status: &str, ours: Option<f64>) -> InvRow {
        InvRow {
            method: "lu_inverse".into(),
            matrix: "general".into(),
            dtype: "f64".into(),
            n: 16000,
            ours_status: status.into(),
            ours_ms: ours,
            baseline: "cuSOLVER getrf+getrs(I)".into(),
            base_ms: Some(400.0),
            ratio: ours.map(|o| o / 400.0),
            flops: 8.192e12,
            ours_tflops: ours.map(|o| 8.192e12 / (o * 1e9)),
            base_tflops: Some(20.48),
            check: "AXv-v".into(),
            ours_resid: ours.map(|_| 0.012),
            base_resid: Some(0.034),
            cpu_status: "not run".into(),
            cpu_ms: None,
            cpu_resid: None,
            note: String::new(),
            warning: String::new(),
        }
    }

    #[test]
    fn inverse_rows_print_with_and_without_ours() {
        let mut auto = inv_row("ok", Some(500.0));
        auto.method = "inverse(Auto)".into();
        auto.note = "chose Lu".into();
        auto.cpu_status = "unsupported".into();
        auto.warning = "CPU residual 4.0e1 > 30".into();
        let r = Report {
            device: "test".into(),
            copy_gbps: 3000.0,
            rows: Vec::new(),
            lu: Vec::new(),
            lu_method: String::new(),
            inverse: vec![auto, inv_row("unsupported", None)],
            inverse_method: "how it was timed".into(),
        };
        let t = table(&r);
        assert!(!t.contains("GB/s  baseline") && !t.contains("%copy"), "{t}");
        let first = t.lines().nth(2).unwrap();
        assert!(
            first.contains("1.250") && first.contains("16.38"),
            "{first}"
        );
        assert!(
            first.contains("1.20e-2") && first.contains("3.40e-2"),
            "{first}"
        );
        assert!(
            first.contains("chose Lu; CPU unsupported; WARNING CPU residual"),
            "{first}"
        );
        let last = t.lines().last().unwrap();
        assert!(
            last.contains("unsupported") && last.contains(" - "),
            "{last}"
        );
        let md = markdown(&r);
        assert!(md.contains("## Dense inverse") && md.contains("how it was timed"));
        assert!(!md.contains("% of copy"), "{md}");
        assert_eq!(
            md.lines()
                .filter(|l| l.starts_with("| inverse(Auto)"))
                .count(),
            1
        );
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["inverse"][1]["ours_status"], "unsupported");
        assert!(json["inverse"][1]["ours_ms"].is_null());
        assert_eq!(json["inverse"][0]["check"], "AXv-v");
    }

    #[test]
    fn lu_rows_print_sizes_status_and_warnings() {
        let mut ok = lu_row("ok", Some(1.0));
        ok.warning = "pivots differ".into();
        let r = Report {
            device: "test".into(),
            copy_gbps: 2500.0,
            rows: Vec::new(),
            lu: vec![ok, lu_row("unsupported", None)],
            lu_method: "how".into(),
            inverse: Vec::new(),
            inverse_method: String::new(),
        };
        let t = table(&r);
        assert!(t.contains("33..=190"), "{t}");
        assert!(t.contains("40.0%"), "{t}");
        assert!(t.contains("WARNING pivots differ"), "{t}");
        let unsupported = t.lines().last().unwrap();
        assert!(unsupported.contains("unsupported") && unsupported.contains(" - "));
        let md = markdown(&r);
        assert!(md.contains("## Batched LU") && md.contains("how"));
        assert!(md.contains("1.0e-14 (1.0e-12)"), "{md}");
        assert_eq!(md.lines().filter(|l| l.starts_with("| getrf")).count(), 2);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["lu"][1]["ours_status"], "unsupported");
        assert!(json["lu"][1]["ours_ms"].is_null());
    }
}
