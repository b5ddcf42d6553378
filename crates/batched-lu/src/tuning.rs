//! Launch configuration of the blocked GPU kernels per scalar type and order: panel width
//! `nb` (columns held in shared memory; 8, 16 or 32), threads per block and register cap, one
//! configuration for the factorization (`getrf_blocked_*`) and one for the solves
//! (`getrs_blocked_*` / `getri_blocked_*`, which read the factors whatever `nb` made them).
//!
//! The table is the fastest configuration found by `gpu-bench --only lu-tune` (a sweep over
//! `nb ∈ {8, 16, 32}`, 64, 96 and 128 threads (32 too from Batched LU Version 23, whose
//! measurements moved c128 33..96, c64 65..160 and f32 97..128 to one-warp blocks) and the three
//! register caps at n = 33, 48, 64, 100, 128, 190 and 256, batch 10000, on an H100; the
//! factorization column at 64..256 and the 96-thread entries from the Batched LU Version 12
//! sweep); see `docs/perf-notes.md` for the sweeps. Orders
//! between the measured ones use the entry of the next larger measured order; orders above
//! 256 use the entry of 256, except where a later sweep at 384 and 512 (f64 and c128) found
//! better: the f64 solve kernels with 128 threads there, the c128 ones with 256 above 384
//! (Batched LU Version 20); and above 384 the factorization runs 256-thread blocks (Batched LU
//! Version 12, measured further: at n = 512 the panel's shared memory leaves room for three
//! blocks per multiprocessor whatever their size, and 256 threads took 5–24 % less time than
//! 128 for every type).

use gpu_blas::Scalar;

/// Register cap of a blocked kernel variant: the most registers per thread the compiler was
/// allowed (`__launch_bounds__(256, m)` with `m` = 3, 4 or 5 resident blocks). A lower cap
/// lets more blocks reside on a multiprocessor at the cost of some spills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegCap {
    /// 80 registers (three 256-thread blocks, six of 128).
    R80,
    /// 64 registers (four 256-thread blocks, eight of 128).
    R64,
    /// 48 registers (five 256-thread blocks, ten of 128).
    R48,
}

impl RegCap {
    /// The suffix of the kernel variant's name (`getrf_blocked_nb16{suffix}_d`).
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            RegCap::R80 => "_r80",
            RegCap::R64 => "_r64",
            RegCap::R48 => "_r48",
        }
    }
}

/// One blocked kernel configuration: panel width, threads per block, register cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// Panel width (columns in shared memory): 8, 16 or 32.
    pub nb: usize,
    /// Threads per block: a multiple of 32 in 32..=256.
    pub threads: u32,
    /// Register cap of the kernel variant.
    pub regs: RegCap,
}

impl Blocked {
    /// Whether the kernels exist for this configuration.
    pub(crate) fn valid(&self) -> bool {
        matches!(self.nb, 8 | 16 | 32)
            && self.threads % 32 == 0
            && (32..=256).contains(&self.threads)
    }
}

/// Which kernels a configuration is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// `getrf_blocked_*`.
    Factor,
    /// `getrs_blocked_*` and `getri_blocked_*`.
    Solve,
}

const fn c(nb: usize, threads: u32, regs: RegCap) -> Blocked {
    Blocked { nb, threads, regs }
}

use RegCap::{R48, R64, R80};

/// `(upper bound of n, factor configuration, solve configuration)` rows, ascending in n; the
/// last row covers every larger n.
type Table = &'static [(usize, Blocked, Blocked)];

// The factorization at 64..190 re-swept with 96 threads among the choices (Version 12); at
// 97..128 one-warp blocks (Batched LU Version 23: 0.938 of the time of 96 threads at 100,
// 0.922 of 64 at 128; against 96 threads 1.026 at 144, 1.14 at 160, 1.30 at 190). The solves
// at 97..190 on one-warp blocks too (Version 23's `lu-tune` run: the blocked inverse 0.80, 0.84
// and 0.88 of c(8, 64, R64)'s time at 100, 128 and 190).
const REAL_SINGLE: Table = &[
    (33, c(8, 64, R48), c(8, 64, R48)),
    (64, c(16, 96, R48), c(8, 64, R48)),
    (100, c(16, 32, R48), c(8, 32, R64)),
    (128, c(16, 32, R48), c(8, 32, R64)),
    (190, c(16, 96, R48), c(8, 32, R64)),
    (384, c(16, 128, R48), c(8, 64, R64)),
    (usize::MAX, c(16, 256, R48), c(8, 64, R64)),
];
// The factorization at 49..256 re-swept with its update on the tensor cores (docs/perf-notes.md,
// Batched LU Version 11): 16-wide panels from 49 on; re-swept again at 64..256 in Version 12
// (96 threads at 65..128, the 64-register variant at 129..256). Its 16-wide, 64-register
// entries (65..256) run the look-ahead form of the factorization, `getrf_lookahead_nb16_r64_d`
// (gpu.rs, `factor_kernel`; Batched LU Versions 21 and 22), whose thread counts were swept at
// 100, 128, 160, 190, 208, 224, 240 and 256 (64..256 threads): 96 stayed best at 100 and 128,
// 128 at 160..208; 160 threads won from 224 (0.873–0.874 of `getrf_blocked` on 128 threads at
// 224, 240 and 256, against 0.949–0.953 for the look-ahead on 128; the harness's matrices).
const REAL_DOUBLE: Table = &[
    (33, c(8, 64, R64), c(8, 64, R64)),
    (48, c(8, 64, R48), c(8, 64, R64)),
    (64, c(16, 64, R48), c(8, 64, R64)),
    (128, c(16, 96, R64), c(8, 64, R64)),
    (208, c(16, 128, R64), c(8, 64, R64)),
    (256, c(16, 160, R64), c(8, 64, R64)),
    // Swept at 384 and 512 with 64..128 threads: the factorization's best stayed; getri
    // 136.4 → 123.8 ms (n = 384, batch 10000) and 251.5 → 209.1 ms (n = 512, batch 7152) with
    // 128 threads.
    (384, c(16, 128, R80), c(8, 128, R64)),
    (usize::MAX, c(16, 256, R80), c(8, 128, R64)),
];
// Factorization at 64..190 and the inverse at 256 re-swept in Version 12; at 65..160 one-warp
// blocks of 8-wide panels (Batched LU Version 23: 0.832 of the time of c(8, 64, R64) at 100,
// 0.899 of c(16, 64, R80) at 128; of c(16, 96, R80) 0.899 at 144, 0.960 at 160, 1.004 at 176
// and 1.10 at 190); the solves at 65..128 too (Version 23's `lu-tune` run: the blocked inverse
// 0.83 and 0.88 of c(8, 64, R64)'s time at 100 and 128, 1.01 at 190).
const COMPLEX_SINGLE: Table = &[
    (36, c(8, 64, R64), c(8, 64, R64)),
    // The factorization of 37..40 on one-warp blocks (the register kernels serve 33..36 and
    // 41..64; Batched LU Version 30: 0.3482 ms at 40 against 0.3764 for the register kernel
    // compiled for 40, and against 0.5595 for c(8, 64, R64)).
    (40, c(8, 32, R64), c(8, 64, R64)),
    (64, c(8, 64, R64), c(8, 64, R64)),
    (100, c(8, 32, R80), c(8, 32, R80)),
    (128, c(8, 32, R80), c(8, 32, R80)),
    (160, c(8, 32, R80), c(8, 64, R64)),
    (190, c(16, 96, R80), c(8, 64, R64)),
    (256, c(16, 128, R80), c(8, 64, R80)),
    // Above 256 the solve entry follows f64's (the same element size; the sweep at 384 and 512
    // covered f64 and c128 only).
    (384, c(16, 128, R80), c(8, 128, R64)),
    (usize::MAX, c(16, 256, R80), c(8, 128, R64)),
];
// The factorization at 64 and 190 and the inverse at 190 re-swept in Version 12; 256 and 512
// re-swept with 256 threads among the choices in Version 20 (H100): at 512 the inverse took
// 288.5 ms with 256 threads against 315.3 with 128 (batch 3576); at 256, 128 threads stayed the
// fastest for both (256 threads: 62.8 / 161.4 ms against 54.6 / 105.6). The factorization of
// 33..96 on one-warp blocks (Batched LU Version 23: 0.61, 0.71, 0.81, 0.83, 0.89 and 0.96 of
// the time of 64 threads at 33, 48, 64, 72, 80 and 90; 1.00 at 100, 1.18 at 128); the solves
// of 33..64 too (Version 23's `lu-tune` run: the blocked inverse 0.77, 0.84 and 0.90 of
// c(8, 64, R64)'s time at 33, 48 and 64; 1.09 of c(8, 64, R80)'s at 100).
const COMPLEX_DOUBLE: Table = &[
    (64, c(8, 32, R80), c(8, 32, R80)),
    (96, c(8, 32, R80), c(8, 64, R80)),
    (128, c(8, 64, R80), c(8, 64, R80)),
    (190, c(8, 96, R80), c(8, 96, R80)),
    (384, c(8, 128, R80), c(8, 128, R80)),
    (usize::MAX, c(8, 256, R80), c(8, 256, R80)),
];

/// The configuration of the blocked `kernel` of type `T` at order `n`.
pub(crate) fn blocked<T: Scalar>(n: usize, kernel: Kernel) -> Blocked {
    let table = match (T::PREFIX, T::IS_COMPLEX) {
        ('s', _) => REAL_SINGLE,
        ('d', _) => REAL_DOUBLE,
        ('c', _) => COMPLEX_SINGLE,
        _ => COMPLEX_DOUBLE,
    };
    let row = table
        .iter()
        .find(|r| n <= r.0)
        .unwrap_or(&table[table.len() - 1]);
    match kernel {
        Kernel::Factor => row.1,
        Kernel::Solve => row.2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::{Complex32, Complex64};

    #[test]
    fn every_order_has_a_valid_configuration() {
        for n in [0, 1, 33, 64, 65, 190, 512, 100_000] {
            for k in [Kernel::Factor, Kernel::Solve] {
                for b in [
                    blocked::<f32>(n, k),
                    blocked::<f64>(n, k),
                    blocked::<Complex32>(n, k),
                    blocked::<Complex64>(n, k),
                ] {
                    assert!(b.valid(), "n = {n}, {k:?}: {b:?}");
                }
                // The 32-wide kernels do not exist for c128.
                assert_ne!(blocked::<Complex64>(n, k).nb, 32, "n = {n}");
            }
        }
    }

    #[test]
    fn tables_ascend_and_end_open() {
        for t in [REAL_SINGLE, REAL_DOUBLE, COMPLEX_SINGLE, COMPLEX_DOUBLE] {
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
            assert_eq!(t[t.len() - 1].0, usize::MAX);
        }
    }
}
