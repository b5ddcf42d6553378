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

/// The whole run.
#[derive(Debug, Serialize)]
pub struct Report {
    pub device: String,
    pub copy_gbps: f64,
    pub rows: Vec<Row>,
}

pub fn table(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "device: {}   copy bandwidth (read+write): {:.0} GB/s",
        r.device, r.copy_gbps
    );
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
    let _ = writeln!(
        s,
        "| op | type | n | ours ms | baseline | baseline ms | ratio | GB/s | % of copy |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---|---:|---:|---:|---:|");
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
    s
}
