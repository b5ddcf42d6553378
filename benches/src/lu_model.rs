//! Pure arithmetic of the batched-LU section: flop counts, memory-floor bytes, the batch that
//! fits the memory budget, the variable-size draw and its grouping by order, and the check
//! tolerance. No GPU here, so all of it is unit-tested.

use gpu_blas::gallery::Rng;
use std::collections::BTreeMap;

/// The operations of the section, as counted by [`flops`] and [`floor_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LuOp {
    /// LU factorization with partial pivoting: `2n³/3` flops; reads and writes the matrix,
    /// writes `n` pivots and one `info`.
    Getrf,
    /// Inverse from the factors: `4n³/3` flops; reads the factors and the pivots, writes the
    /// inverse.
    Getri,
    /// Solve with `nrhs` right-hand sides from the factors: `2n²` flops per right-hand side;
    /// reads the factors and the pivots once, reads and writes the right-hand sides.
    Getrs {
        /// Right-hand sides per matrix.
        nrhs: usize,
    },
    /// Full inverse (factor + invert): `2n³` flops; reads the matrix, writes the inverse and
    /// one `info` (the pivots need not reach memory).
    Inverse,
}

/// Real flops of one matrix of order `n` (×4 for complex types, whose multiply-add costs four
/// real ones).
pub fn flops(op: LuOp, n: usize, complex: bool) -> f64 {
    let n = n as f64;
    let real = match op {
        LuOp::Getrf => 2.0 * n * n * n / 3.0,
        LuOp::Getri => 4.0 * n * n * n / 3.0,
        LuOp::Getrs { nrhs } => 2.0 * n * n * nrhs as f64,
        LuOp::Inverse => 2.0 * n * n * n,
    };
    if complex {
        4.0 * real
    } else {
        real
    }
}

/// Bytes one matrix of order `n` (elements of `elem` bytes) must move at the least: every
/// matrix read once and written once, plus the `i32` pivots and `info` where the operation
/// reads or writes them.
pub fn floor_bytes(op: LuOp, n: usize, elem: usize) -> f64 {
    let (mat, int) = ((n * n * elem) as f64, 4.0);
    let nf = n as f64;
    match op {
        LuOp::Getrf => 2.0 * mat + int * (nf + 1.0),
        LuOp::Getri => 2.0 * mat + int * (nf + 1.0),
        LuOp::Getrs { nrhs } => mat + int * nf + 2.0 * (n * nrhs * elem) as f64,
        LuOp::Inverse => 2.0 * mat + int,
    }
}

/// Whole matrices the section keeps on the device at once: the original batch, the working
/// copy (factors), the inverses, and one more for the copy our `inverse_batched` may make of
/// its input inside the call.
pub const BUFFERS: usize = 4;

/// The largest batch, at most `wanted`, whose [`BUFFERS`] matrix buffers and, per matrix, two
/// copies (pristine and working) of `rhs_cols` right-hand side columns of length `n` fit
/// `budget` bytes (at least 1).
pub fn batch_that_fits(
    wanted: usize,
    n: usize,
    elem: usize,
    rhs_cols: usize,
    budget: f64,
) -> usize {
    let per_matrix = ((BUFFERS * n * n + 2 * n * rhs_cols) * elem) as f64;
    if per_matrix == 0.0 {
        return wanted.max(1);
    }
    ((budget / per_matrix).floor() as usize).clamp(1, wanted.max(1))
}

/// `count` orders drawn uniformly from `lo..=hi` with a seeded generator (reproducible).
pub fn draw_sizes(count: usize, lo: usize, hi: usize, seed: u64) -> Vec<usize> {
    assert!(lo <= hi, "empty size range {lo}..={hi}");
    let mut rng = Rng::new(seed);
    (0..count).map(|_| lo + rng.below(hi - lo + 1)).collect()
}

/// The matrices of a variable-size batch grouped by order (ascending), each group listing the
/// indices of its matrices in batch order: what cuBLAS, which has no variable-size LU, is
/// called with, one uniform batched call per group.
pub fn group_by_size(sizes: &[usize]) -> Vec<(usize, Vec<usize>)> {
    let mut g: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, &n) in sizes.iter().enumerate() {
        g.entry(n).or_default().push(k);
    }
    g.into_iter().collect()
}

/// Tolerance for the relative difference of two backward-stable results (ours against
/// cuBLAS) for one matrix of order `n`: `16·n·eps·cond`, with `cond` a condition estimate.
pub fn tolerance(n: usize, eps: f64, cond: f64) -> f64 {
    16.0 * n.max(1) as f64 * eps * cond.max(1.0)
}

/// TFLOP/s of `flops` done in `ms` milliseconds.
pub fn tflops(flops: f64, ms: f64) -> f64 {
    flops / (ms * 1e9)
}

/// What the section runs: orders, types, whether the variable-size batch, and the batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LuPlan {
    pub sizes: Vec<usize>,
    /// Type names as printed: `f32`, `f64`, `c64`, `c128`.
    pub types: Vec<String>,
    /// Whether to run the variable-size batch (orders 33..=190).
    pub var: bool,
    pub batch: usize,
    /// Right-hand side counts of the uniform batches' solve rows (`getrs nrhs=K`), each timed
    /// against cuBLAS on the same factors: `[1]` unless [`LuPlan::with_rhs`] says otherwise.
    pub rhs: Vec<usize>,
}

/// Most right-hand sides a solve row may take (the right-hand sides of a batch of 10000 at
/// n = 512 in c128 then take 21 GB).
pub const MAX_RHS: usize = 256;

/// The full section: batch 10000, the twelve orders, four types, and the variable-size batch.
pub const FULL_SIZES: [usize; 12] = [4, 8, 16, 32, 33, 48, 64, 100, 128, 190, 256, 512];
/// The quick subset: batch 2000, four orders, f64 and c64, and the variable-size batch.
pub const QUICK_SIZES: [usize; 4] = [8, 32, 64, 190];

impl LuPlan {
    /// The full or quick plan, with optional overrides: `n` a comma-separated list of orders
    /// in which `var` selects the variable-size batch, `types` a comma-separated list of type
    /// names, `batch` the batch size.
    pub fn new(
        quick: bool,
        n: Option<&str>,
        types: Option<&str>,
        batch: Option<usize>,
    ) -> Result<LuPlan, String> {
        let mut plan = if quick {
            LuPlan {
                sizes: QUICK_SIZES.to_vec(),
                types: vec!["f64".into(), "c64".into()],
                var: true,
                batch: 2000,
                rhs: vec![1],
            }
        } else {
            LuPlan {
                sizes: FULL_SIZES.to_vec(),
                types: ["f32", "f64", "c64", "c128"].map(String::from).to_vec(),
                var: true,
                batch: 10_000,
                rhs: vec![1],
            }
        };
        if let Some(list) = n {
            plan.var = false;
            plan.sizes.clear();
            for t in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                if t == "var" {
                    plan.var = true;
                } else {
                    let v: usize = t.parse().map_err(|_| format!("bad order {t:?}"))?;
                    if v == 0 {
                        return Err("orders must be positive".into());
                    }
                    plan.sizes.push(v);
                }
            }
        }
        if let Some(list) = types {
            plan.types.clear();
            for t in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                if !["f32", "f64", "c64", "c128"].contains(&t) {
                    return Err(format!("unknown type {t:?} (f32, f64, c64, c128)"));
                }
                plan.types.push(t.into());
            }
        }
        if let Some(b) = batch {
            if b == 0 {
                return Err("batch must be positive".into());
            }
            plan.batch = b;
        }
        Ok(plan)
    }

    /// The plan with its solve rows at the right-hand side counts of `list` (comma-separated,
    /// each in `1..=MAX_RHS`, ascending without repeats in the result), or unchanged for `None`.
    pub fn with_rhs(mut self, list: Option<&str>) -> Result<LuPlan, String> {
        let Some(list) = list else {
            return Ok(self);
        };
        let mut rhs = Vec::new();
        for t in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let k: usize = t
                .parse()
                .map_err(|_| format!("bad right-hand side count {t:?}"))?;
            if !(1..=MAX_RHS).contains(&k) {
                return Err(format!("right-hand side counts are 1..={MAX_RHS}, not {k}"));
            }
            rhs.push(k);
        }
        if rhs.is_empty() {
            return Err("no right-hand side count".into());
        }
        rhs.sort_unstable();
        rhs.dedup();
        self.rhs = rhs;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_and_overrides() {
        let full = LuPlan::new(false, None, None, None).unwrap();
        assert_eq!(
            (full.sizes.len(), full.types.len(), full.var),
            (12, 4, true)
        );
        assert_eq!(full.batch, 10_000);
        let quick = LuPlan::new(true, None, None, None).unwrap();
        assert_eq!(quick.sizes, vec![8, 32, 64, 190]);
        assert_eq!(quick.types, vec!["f64", "c64"]);
        assert_eq!(quick.batch, 2000);
        let some = LuPlan::new(false, Some("512, var"), Some("c128"), Some(100)).unwrap();
        assert_eq!(
            some,
            LuPlan {
                sizes: vec![512],
                types: vec!["c128".into()],
                var: true,
                rhs: vec![1],
                batch: 100
            }
        );
        let no_var = LuPlan::new(true, Some("4,8"), None, None).unwrap();
        assert!(!no_var.var && no_var.sizes == vec![4, 8]);
        assert!(LuPlan::new(false, Some("x"), None, None).is_err());
        assert!(LuPlan::new(false, None, Some("f16"), None).is_err());
        assert!(LuPlan::new(false, None, None, Some(0)).is_err());
        let rhs = LuPlan::new(false, None, None, None)
            .and_then(|p| p.with_rhs(Some("16, 1,4,4")))
            .unwrap();
        assert_eq!(rhs.rhs, vec![1, 4, 16]);
        let same = LuPlan::new(false, None, None, None).unwrap();
        assert_eq!(same.clone().with_rhs(None).unwrap(), same);
        for bad in ["0", "x", "", "257"] {
            assert!(same.clone().with_rhs(Some(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn flop_counts() {
        assert_eq!(flops(LuOp::Getrf, 3, false), 18.0);
        assert_eq!(flops(LuOp::Getri, 3, false), 36.0);
        assert_eq!(flops(LuOp::Inverse, 3, false), 54.0);
        assert_eq!(flops(LuOp::Getrs { nrhs: 1 }, 3, false), 18.0);
        assert_eq!(flops(LuOp::Getrs { nrhs: 4 }, 3, true), 4.0 * 4.0 * 18.0);
        // getrf + getri is the full inverse.
        let n = 48;
        assert_eq!(
            flops(LuOp::Getrf, n, false) + flops(LuOp::Getri, n, false),
            flops(LuOp::Inverse, n, false)
        );
        assert_eq!(
            flops(LuOp::Getrf, 6, true),
            4.0 * flops(LuOp::Getrf, 6, false)
        );
    }

    #[test]
    fn floor_counts_each_matrix_once_each_way() {
        // n = 2, f64: 32 bytes of matrix read + 32 written, 2 pivots and one info.
        assert_eq!(floor_bytes(LuOp::Getrf, 2, 8), 64.0 + 12.0);
        assert_eq!(floor_bytes(LuOp::Getri, 2, 8), 64.0 + 12.0);
        // Factors read (32), pivots read (8), right-hand side read and written (2 × 16).
        assert_eq!(
            floor_bytes(LuOp::Getrs { nrhs: 1 }, 2, 8),
            32.0 + 8.0 + 32.0
        );
        // Three right-hand sides: the factors and pivots once, 3 × 16 bytes each way.
        assert_eq!(
            floor_bytes(LuOp::Getrs { nrhs: 3 }, 2, 8),
            32.0 + 8.0 + 96.0
        );
        assert_eq!(floor_bytes(LuOp::Inverse, 2, 16), 128.0 + 4.0);
    }

    #[test]
    fn batch_shrinks_only_when_it_must() {
        // n = 512 c128: 4 MiB a matrix, 16 MiB for the four buffers.
        assert_eq!(batch_that_fits(10_000, 512, 16, 0, 60e9), 3576);
        // With 512 right-hand side columns, two copies: as much again as two more buffers.
        assert_eq!(batch_that_fits(10_000, 512, 16, 512, 60e9), 2384);
        assert_eq!(batch_that_fits(10_000, 64, 8, 1, 60e9), 10_000);
        assert_eq!(batch_that_fits(10_000, 512, 16, 0, 1.0), 1);
        assert_eq!(batch_that_fits(5, 0, 8, 0, 1.0), 5);
    }

    #[test]
    fn sizes_are_uniform_in_range_and_reproducible() {
        let s = draw_sizes(10_000, 33, 190, 7);
        assert_eq!(s, draw_sizes(10_000, 33, 190, 7));
        assert!(s.iter().all(|&n| (33..=190).contains(&n)));
        // Both ends are drawn, and the mean is near the middle (111.5).
        assert!(s.contains(&33) && s.contains(&190));
        let mean = s.iter().sum::<usize>() as f64 / s.len() as f64;
        assert!((mean - 111.5).abs() < 2.0, "mean {mean}");
        assert_eq!(draw_sizes(3, 4, 4, 1), vec![4, 4, 4]);
    }

    #[test]
    fn groups_cover_the_batch_in_order() {
        let g = group_by_size(&[5, 3, 5, 9, 3]);
        assert_eq!(g, vec![(3, vec![1, 4]), (5, vec![0, 2]), (9, vec![3])]);
        assert!(group_by_size(&[]).is_empty());
    }

    #[test]
    fn tolerance_and_rate() {
        assert_eq!(tolerance(10, 1e-16, 2.0), 16.0 * 10.0 * 1e-16 * 2.0);
        assert_eq!(tolerance(10, 1e-16, 0.1), tolerance(10, 1e-16, 1.0));
        assert_eq!(tflops(2e9, 1.0), 2.0);
    }
}
