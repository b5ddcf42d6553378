//! Launch configuration of the blocked GPU kernels per scalar type and order: panel width
//! `nb` (columns held in shared memory; 8, 16 or 32) and threads per block.
//!
//! The table is the fastest configuration found by `gpu-bench --only lu-tune` (a sweep over
//! `nb ∈ {8, 16, 32}` and 64–256 threads at n = 33, 48, 64, 100, 128, 190 and 256, batch
//! 10000, on an H100); see `docs/perf-notes.md` for the sweep itself. Orders between the
//! measured ones use the entry of the next larger measured order; orders above 256 (not swept)
//! use the entry of 256.

use gpu_blas::Scalar;

/// `(upper bound of n, nb, threads)` rows, ascending in n; the last row covers every larger n.
type Table = &'static [(usize, usize, u32)];

const REAL_SINGLE: Table = &[
    (33, 8, 64),
    (48, 16, 64),
    (128, 8, 64),
    (190, 16, 64),
    (usize::MAX, 16, 128),
];
const REAL_DOUBLE: Table = &[(100, 8, 64), (usize::MAX, 16, 128)];
const COMPLEX_SINGLE: Table = &[(100, 8, 64), (128, 16, 64), (usize::MAX, 16, 128)];
const COMPLEX_DOUBLE: Table = &[(100, 8, 64), (190, 16, 128), (usize::MAX, 16, 256)];

/// `(nb, threads)` for the blocked kernels of type `T` at order `n`.
pub(crate) fn blocked<T: Scalar>(n: usize) -> (usize, u32) {
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
    (row.1, row.2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;

    #[test]
    fn every_order_has_a_valid_configuration() {
        for n in [0, 1, 33, 64, 65, 190, 512, 100_000] {
            for (nb, t) in [
                blocked::<f32>(n),
                blocked::<f64>(n),
                blocked::<Complex64>(n),
            ] {
                assert!(matches!(nb, 8 | 16 | 32), "n = {n}: nb = {nb}");
                assert!(
                    t % 32 == 0 && (32..=256).contains(&t),
                    "n = {n}: {t} threads"
                );
            }
        }
    }
}
