//! Pure parts of the dense-inverse section: the plan (orders × types), flop counts, repeat
//! counts, the test matrices, the identity pattern cuSOLVER's right-hand side is reset to, and
//! the residual checks (host arithmetic in `f64` / `Complex<f64>`). No GPU here, so all of it is
//! unit-tested.

use gpu_blas::Scalar;
use num_complex::Complex64;
use rayon::prelude::*;
use std::ops::{Add, AddAssign, Mul, Sub};

/// Orders of the full section.
pub const FULL_SIZES: [usize; 5] = [1000, 2000, 4000, 8000, 16000];
/// Orders of the quick section (`f64` only).
pub const QUICK_SIZES: [usize; 2] = [1000, 4000];
/// The one order at which the full section runs `c64` (unless the types are given).
pub const COMPLEX_N: usize = 4000;
/// Largest order our CPU backend is timed at, unless `--inv-cpu` says otherwise.
pub const CPU_MAX_N: usize = 4000;
/// Largest order checked with the full residual `‖A·X − I‖∞` (larger: `‖A·(X·v) − v‖∞`).
pub const FULL_CHECK_MAX_N: usize = 2000;
/// A scaled residual above this is printed as a warning (LAPACK's test threshold for the same
/// ratio in its inverse tests).
pub const RESID_LIMIT: f64 = 30.0;

/// The two kinds of test matrix, and the inverse each is compared on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    /// Random entries plus `n` on the diagonal: general inverse (`2n³` flops).
    General,
    /// Hermitian part of the general matrix: symmetric / Hermitian positive definite inverse
    /// (`n³` flops).
    Spd,
}

impl Structure {
    pub fn label(self) -> &'static str {
        match self {
            Structure::General => "general",
            Structure::Spd => "SPD",
        }
    }
}

/// Real flops credited to one inverse of order `n`: `2n³` general (LU `2n³/3` + inverse from
/// the factors `4n³/3`), `n³` SPD (Cholesky `n³/3` + `potri` `2n³/3`); ×4 for complex types.
/// Every method of a row is credited the same count, whatever it actually does.
pub fn flops(s: Structure, n: usize, complex: bool) -> f64 {
    let n = n as f64;
    let real = match s {
        Structure::General => 2.0 * n * n * n,
        Structure::Spd => n * n * n,
    };
    if complex {
        4.0 * real
    } else {
        real
    }
}

/// Bytes the unblocked bordering steps must move at the least: each step reads and writes
/// the stored triangle of the current inverse once, `Σ_{m<n} m(m+1)/2` elements each way.
pub fn bordering_step_bytes(n: usize, elem: usize) -> f64 {
    let n = n as f64;
    // Σ_{m=0}^{n-1} m(m+1) = (n−1)n(n+1)/3, read + write.
    (n - 1.0) * n * (n + 1.0) / 3.0 * elem as f64
}

/// The note of an unblocked bordering row: that traffic, its rate over the whole call and the
/// share of the copy bandwidth measured in the run (a lower bound for the steps themselves);
/// with `half_ms`, the time of the same call on the leading `n/2 × n/2` block, also the rate of
/// the steps on triangles of order `n/2` and more: the traffic difference over the time
/// difference (the larger, memory-bound steps; the call's O(n²) work outside the steps stays
/// in, a fraction of a percent at the benchmarked orders).
pub fn bordering_traffic_note(
    n: usize,
    elem: usize,
    ms: f64,
    half_ms: Option<f64>,
    copy_gbps: f64,
) -> String {
    let bytes = bordering_step_bytes(n, elem);
    let gbps = bytes / (ms * 1e6);
    let mut note = format!(
        "triangle traffic {:.0} GB at {gbps:.0} GB/s, {:.0}% of copy",
        bytes / 1e9,
        100.0 * gbps / copy_gbps
    );
    if let Some(h) = half_ms {
        let dt = ms - h;
        note += &if dt > 0.0 {
            let g = (bytes - bordering_step_bytes(n / 2, elem)) / (dt * 1e6);
            format!(
                "; steps t ≥ n/2 at {g:.0} GB/s, {:.0}%",
                100.0 * g / copy_gbps
            )
        } else {
            format!("; n/2 call {h:.1} ms, no faster")
        };
    }
    note
}

/// TFLOP/s of `flops` done in `ms` milliseconds.
pub fn tflops(flops: f64, ms: f64) -> f64 {
    flops / (ms * 1e9)
}

/// `(warm-up calls, timed repeats)` after the two probe calls, for a call of `est_ms`: over
/// 1 s, no further warm-up and 3 repeats; over 50 ms, one warm-up and 3 repeats; otherwise
/// three warm-ups and `reps` repeats.
pub fn repeats(est_ms: f64, reps: usize) -> (usize, usize) {
    if est_ms > 1000.0 {
        (0, 3)
    } else if est_ms > 50.0 {
        (1, 3)
    } else {
        (3, reps.max(1))
    }
}

/// What the section runs: `(order, type)` cases in order, and the largest order our CPU
/// backend is timed at (0: never).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvPlan {
    pub cases: Vec<(usize, String)>,
    pub cpu_max_n: usize,
}

const TYPES: [&str; 4] = ["f32", "f64", "c64", "c128"];

fn parse_list<T>(
    list: &str,
    mut item: impl FnMut(&str) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(&mut item)
        .collect()
}

impl InvPlan {
    /// The full plan (orders 1000…16000, `f32` and `f64`, plus `c64` at 4000) or the quick one
    /// (1000 and 4000, `f64`). `n` (comma-separated orders) replaces the orders; `types`
    /// (comma-separated `f32`, `f64`, `c64`, `c128`) replaces the types, and then every listed
    /// type runs at every order; `cpu_max` replaces the largest order our CPU backend is timed
    /// at.
    pub fn new(
        quick: bool,
        n: Option<&str>,
        types: Option<&str>,
        cpu_max: Option<usize>,
    ) -> Result<InvPlan, String> {
        let sizes = match n {
            Some(list) => parse_list(list, |t| match t.parse::<usize>() {
                Ok(0) => Err("orders must be positive".into()),
                Ok(v) => Ok(v),
                Err(_) => Err(format!("bad order {t:?}")),
            })?,
            None if quick => QUICK_SIZES.to_vec(),
            None => FULL_SIZES.to_vec(),
        };
        let types: Option<Vec<String>> = match types {
            Some(list) => Some(parse_list(list, |t| {
                if TYPES.contains(&t) {
                    Ok(t.to_string())
                } else {
                    Err(format!("unknown type {t:?} (f32, f64, c64, c128)"))
                }
            })?),
            None if quick => Some(vec!["f64".into()]),
            None => None,
        };
        let mut cases = Vec::new();
        for &n in &sizes {
            match &types {
                Some(ts) => cases.extend(ts.iter().map(|t| (n, t.clone()))),
                None => {
                    cases.push((n, "f32".into()));
                    cases.push((n, "f64".into()));
                    if n == COMPLEX_N {
                        cases.push((n, "c64".into()));
                    }
                }
            }
        }
        Ok(InvPlan {
            cases,
            cpu_max_n: cpu_max.unwrap_or(CPU_MAX_N),
        })
    }
}

/// Column-major `n × n`: entries with real and imaginary parts uniform in `[-1, 1)`, plus `n`
/// on the diagonal. Column diagonally dominant (`|a_jj| ≥ n − 1 ≥ Σ_{i≠j} |a_ij|` for real
/// types), so partial pivoting interchanges no rows, and the eigenvalues lie within about
/// `√n` of `n`: condition numbers near 1.
pub fn general<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut v = gpu_blas::testing::random_values::<T>(n * n, seed);
    for i in 0..n {
        v[i + i * n] += T::from_f64(n as f64);
    }
    v
}

/// Tile edge for the transposed accesses of [`make_hermitian`] and [`lower_to_full`].
const TILE: usize = 64;

/// Calls `f(i, j)` for every `i > j` of an `n × n` matrix, tile by tile (so that both the
/// `(i, j)` and the `(j, i)` accesses stay in cache).
fn for_lower_pairs(n: usize, mut f: impl FnMut(usize, usize)) {
    for jb in (0..n).step_by(TILE) {
        for ib in (jb..n).step_by(TILE) {
            for j in jb..(jb + TILE).min(n) {
                for i in ib.max(j + 1)..(ib + TILE).min(n) {
                    f(i, j);
                }
            }
        }
    }
}

/// Replaces a column-major `n × n` matrix by its Hermitian part `(A + Aᴴ)/2` (exactly
/// Hermitian: `a_ji = conj(a_ij)` bit for bit, real diagonal). Applied to [`general`], the
/// result is positive definite (eigenvalues within about `1.2·√n` of `n`).
pub fn make_hermitian<T: Scalar>(a: &mut [T], n: usize) {
    let half = T::from_f64(0.5);
    for_lower_pairs(n, |i, j| {
        let s = (a[i + j * n] + a[j + i * n].conj()) * half;
        a[i + j * n] = s;
        a[j + i * n] = s.conj();
    });
    for i in 0..n {
        a[i + i * n] = T::from_real(a[i + i * n].re());
    }
}

/// Fills the strict upper triangle of a column-major `n × n` matrix from its lower one
/// (`a_ij = conj(a_ji)`): the full inverse from `potri`'s lower triangle.
pub fn lower_to_full<T: Scalar>(a: &mut [T], n: usize) {
    for_lower_pairs(n, |i, j| a[j + i * n] = a[i + j * n].conj());
}

/// How the diagonal of an identity is written with 32-bit memsets after zeroing the buffer:
/// `(byte offset within an element, 32-bit word, pitch in bytes)`; element `(r, r)` gets the
/// word at byte `r·pitch + offset`. One is `0x3F800000` in `f32`; in `f64` it is
/// `0x3FF00000_00000000`, whose low word (first in memory, little-endian) is zero, so only the
/// high word at offset 4 is written. Complex types: the real part comes first.
pub fn identity_pattern<T: Scalar>(n: usize) -> (usize, u32, usize) {
    let es = std::mem::size_of::<T>();
    let pitch = (n + 1) * es;
    if std::mem::size_of::<T::Real>() == 4 {
        (0, 1.0f32.to_bits(), pitch)
    } else {
        (4, (1.0f64.to_bits() >> 32) as u32, pitch)
    }
}

/// Host arithmetic of the residual checks: `f64` for real types, `Complex<f64>` for complex.
pub trait Acc:
    Copy + Send + Sync + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + AddAssign
{
    const ZERO: Self;
    const ONE: Self;
    /// `v` widened (exactly).
    fn of<T: Scalar>(v: T) -> Self;
    fn modulus(self) -> f64;
}

impl Acc for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn of<T: Scalar>(v: T) -> f64 {
        v.to_c64().re
    }
    fn modulus(self) -> f64 {
        self.abs()
    }
}

impl Acc for Complex64 {
    const ZERO: Complex64 = Complex64::new(0.0, 0.0);
    const ONE: Complex64 = Complex64::new(1.0, 0.0);
    fn of<T: Scalar>(v: T) -> Complex64 {
        v.to_c64()
    }
    fn modulus(self) -> f64 {
        self.norm()
    }
}

/// Rows per parallel task of the row-wise host loops.
const ROWS: usize = 256;
/// Columns per parallel task of the full residual.
const COLS: usize = 16;

/// `‖A‖∞` (largest row sum of moduli) of a column-major `n × n` matrix, in `f64`.
pub fn inf_norm<T: Scalar, E: Acc>(a: &[T], n: usize) -> f64 {
    let mut s = vec![0.0f64; n];
    s.par_chunks_mut(ROWS).enumerate().for_each(|(b, blk)| {
        let i0 = b * ROWS;
        for j in 0..n {
            let col = &a[j * n + i0..j * n + i0 + blk.len()];
            for (acc, &v) in blk.iter_mut().zip(col) {
                *acc += E::of(v).modulus();
            }
        }
    });
    s.into_iter().fold(0.0, f64::max)
}

/// `A·x` for a column-major `n × n` matrix, in `E`.
pub fn matvec<T: Scalar, E: Acc>(a: &[T], n: usize, x: &[E]) -> Vec<E> {
    let mut y = vec![E::ZERO; n];
    y.par_chunks_mut(ROWS).enumerate().for_each(|(b, blk)| {
        let i0 = b * ROWS;
        for (j, &xj) in x.iter().enumerate().take(n) {
            let col = &a[j * n + i0..j * n + i0 + blk.len()];
            for (yi, &aij) in blk.iter_mut().zip(col) {
                *yi += E::of(aij) * xj;
            }
        }
    });
    y
}

/// `‖v‖∞`.
pub fn max_modulus<E: Acc>(v: &[E]) -> f64 {
    v.iter().map(|x| x.modulus()).fold(0.0, f64::max)
}

/// `‖A·X − I‖∞`, computed in `E` (`O(n³)`, parallel over blocks of columns).
pub fn residual_matrix_norm<T: Scalar, E: Acc>(a: &[T], x: &[T], n: usize) -> f64 {
    let a_e: Vec<E> = a.iter().map(|&v| E::of(v)).collect();
    let starts: Vec<usize> = (0..n).step_by(COLS).collect();
    let rows = starts
        .par_iter()
        .map(|&j0| {
            let w = COLS.min(n - j0);
            // r = A·X(:, j0..j0+w) − I(:, j0..j0+w), column-major n × w.
            let mut r = vec![E::ZERO; n * w];
            for jj in 0..w {
                r[j0 + jj + jj * n] = E::ZERO - E::ONE;
            }
            for k in 0..n {
                let acol = &a_e[k * n..(k + 1) * n];
                for jj in 0..w {
                    let xkj = E::of(x[k + (j0 + jj) * n]);
                    for (ri, &aik) in r[jj * n..(jj + 1) * n].iter_mut().zip(acol) {
                        *ri += aik * xkj;
                    }
                }
            }
            let mut s = vec![0.0f64; n];
            for jj in 0..w {
                for (si, ri) in s.iter_mut().zip(&r[jj * n..(jj + 1) * n]) {
                    *si += ri.modulus();
                }
            }
            s
        })
        .reduce(
            || vec![0.0f64; n],
            |mut p, q| {
                for (x, y) in p.iter_mut().zip(q) {
                    *x += y;
                }
                p
            },
        );
    rows.into_iter().fold(0.0, f64::max)
}

/// A residual check of a computed inverse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resid {
    /// The scaled residual (see [`residual`]).
    pub value: f64,
    /// Whether it is the full `‖A·X − I‖∞` check or the one-vector check.
    pub full: bool,
}

/// Label of the check a row used.
pub fn check_label(full: bool) -> &'static str {
    if full {
        "AX-I"
    } else {
        "AXv-v"
    }
}

fn scaled(num: f64, den: f64) -> f64 {
    if num == 0.0 {
        0.0
    } else {
        num / den.max(f64::MIN_POSITIVE)
    }
}

/// Scaled residual of `X ≈ A⁻¹` (column-major `n × n`), in `f64` arithmetic on the host:
/// `‖A·X − I‖∞ / (n·ε·‖A‖∞·‖X‖∞)` when `full`, else, for a random `v` (entries in
/// `[-1, 1)`), `‖A·(X·v) − v‖∞ / (n·ε·‖A‖∞·‖X‖∞·‖v‖∞)`, a lower bound of the former at `O(n²)`
/// cost. `ε` is the machine epsilon of `T`. Backward-stable inverses of well-conditioned
/// matrices give values well under 1.
pub fn residual<T: Scalar>(a: &[T], x: &[T], n: usize, full: bool, seed: u64) -> Resid {
    let value = if T::IS_COMPLEX {
        residual_in::<T, Complex64>(a, x, n, full, seed)
    } else {
        residual_in::<T, f64>(a, x, n, full, seed)
    };
    Resid { value, full }
}

fn residual_in<T: Scalar, E: Acc>(a: &[T], x: &[T], n: usize, full: bool, seed: u64) -> f64 {
    let eps = T::epsilon().to_c64().re;
    let den = n as f64 * eps * inf_norm::<T, E>(a, n) * inf_norm::<T, E>(x, n);
    if full {
        return scaled(residual_matrix_norm::<T, E>(a, x, n), den);
    }
    let v: Vec<E> = gpu_blas::testing::random_values::<T>(n, seed)
        .into_iter()
        .map(E::of)
        .collect();
    let w = matvec(x, n, &v);
    let mut r = matvec(a, n, &w);
    for (ri, &vi) in r.iter_mut().zip(&v) {
        *ri = *ri - vi;
    }
    scaled(max_modulus(&r), den * max_modulus(&v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_blas::blas2::Uplo;
    use gpu_blas::{Device, DeviceMatrix};
    use num_complex::Complex32;

    #[test]
    fn bordering_traffic_counts_each_step_once() {
        // n = 3: steps on triangles of order 0, 1, 2 move 0 + 1·2 + 2·3 = 8 elements.
        assert_eq!(bordering_step_bytes(3, 4), 8.0 * 4.0);
        // 8000 f32: 6.83e11 bytes; in 0.3 s on a 3000 GB/s device, 76 % of copy.
        let b = bordering_step_bytes(8000, 4);
        assert!((b / 6.826e11 - 1.0).abs() < 1e-3, "{b}");
        let note = bordering_traffic_note(8000, 4, 300.0, None, 3000.0);
        assert!(note.ends_with("683 GB at 2276 GB/s, 76% of copy"), "{note}");
        // Steps of order 4000..8000: 6.826e11 − 8.533e10 = 5.973e11 bytes in 300 − 50 ms.
        let note = bordering_traffic_note(8000, 4, 300.0, Some(50.0), 3000.0);
        assert!(
            note.ends_with("76% of copy; steps t ≥ n/2 at 2389 GB/s, 80%"),
            "{note}"
        );
        let note = bordering_traffic_note(8000, 4, 30.0, Some(40.0), 3000.0);
        assert!(note.ends_with("; n/2 call 40.0 ms, no faster"), "{note}");
    }

    #[test]
    fn plans_and_overrides() {
        let full = InvPlan::new(false, None, None, None).unwrap();
        assert_eq!(full.cases.len(), 11);
        assert_eq!(full.cases[0], (1000, "f32".into()));
        assert!(full.cases.contains(&(4000, "c64".into())));
        assert!(!full.cases.contains(&(8000, "c64".into())));
        assert_eq!(full.cases.last().unwrap(), &(16000, "f64".into()));
        assert_eq!(full.cpu_max_n, 4000);
        let quick = InvPlan::new(true, None, None, None).unwrap();
        assert_eq!(
            quick.cases,
            vec![(1000, "f64".into()), (4000, "f64".into())]
        );
        // Orders alone keep the default types (c64 only at 4000).
        let some = InvPlan::new(false, Some("4000, 16000"), None, Some(0)).unwrap();
        assert_eq!(some.cases.len(), 5);
        assert_eq!(some.cpu_max_n, 0);
        // Types given: every type at every order.
        let typed = InvPlan::new(false, Some("1000"), Some("c64,c128"), None).unwrap();
        assert_eq!(
            typed.cases,
            vec![(1000, "c64".into()), (1000, "c128".into())]
        );
        assert_eq!(
            InvPlan::new(false, None, Some("f64"), None)
                .unwrap()
                .cases
                .len(),
            5
        );
        assert!(InvPlan::new(false, Some("x"), None, None).is_err());
        assert!(InvPlan::new(false, Some("0"), None, None).is_err());
        assert!(InvPlan::new(false, None, Some("f16"), None).is_err());
    }

    #[test]
    fn flop_counts_and_repeats() {
        assert_eq!(flops(Structure::General, 10, false), 2000.0);
        assert_eq!(flops(Structure::Spd, 10, false), 1000.0);
        assert_eq!(flops(Structure::General, 10, true), 8000.0);
        assert_eq!(flops(Structure::Spd, 10, true), 4000.0);
        // 2·16000³ flops in 1 s: 8.192 TFLOP/s.
        let f = flops(Structure::General, 16000, false);
        assert!((tflops(f, 1000.0) - 8.192).abs() < 1e-12);
        assert_eq!(repeats(2000.0, 15), (0, 3));
        assert_eq!(repeats(60.0, 15), (1, 3));
        assert_eq!(repeats(5.0, 15), (3, 15));
        assert_eq!(repeats(5.0, 0), (3, 1));
    }

    #[test]
    fn general_matrices_are_diagonally_dominant() {
        let n = 40;
        let a = general::<f64>(n, 3);
        assert_eq!(a, general::<f64>(n, 3));
        for j in 0..n {
            let off: f64 = (0..n).filter(|&i| i != j).map(|i| a[i + j * n].abs()).sum();
            assert!(a[j + j * n] >= n as f64 - 1.0 && off <= n as f64 - 1.0);
        }
        let c = general::<Complex32>(n, 3);
        assert!(c.iter().any(|v| v.im != 0.0));
        assert!((c[0].re - n as f32).abs() <= 1.0);
    }

    fn hermitian_case<T: Scalar>(n: usize) {
        let mut a = general::<T>(n, 11);
        make_hermitian(&mut a, n);
        for j in 0..n {
            assert_eq!(a[j + j * n].im(), <T::Real as Scalar>::from_f64(0.0));
            for i in 0..n {
                assert_eq!(a[i + j * n], a[j + i * n].conj(), "({i}, {j})");
            }
        }
        // Positive definite: our CPU Cholesky succeeds.
        let m = DeviceMatrix::from_col_major(&Device::cpu(), n, n, n, a).unwrap();
        dense_inverse::cholesky_factor(Uplo::Lower, &m).expect("positive definite");
    }

    #[test]
    fn hermitian_part_is_exact_and_positive_definite() {
        // 150 spans several tiles, with a partial last one.
        hermitian_case::<f64>(150);
        hermitian_case::<f32>(70);
        hermitian_case::<Complex64>(150);
        hermitian_case::<Complex32>(65);
    }

    #[test]
    fn lower_triangle_mirrors_with_conjugates() {
        let n = 130;
        let mut a = general::<Complex64>(n, 5);
        make_hermitian(&mut a, n);
        let mut l = a.clone();
        for j in 0..n {
            for i in 0..j {
                l[i + j * n] = Complex64::new(9.0, 9.0);
            }
        }
        lower_to_full(&mut l, n);
        assert_eq!(l, a);
    }

    /// Emulates the device reset: zero bytes, then one 32-bit word per diagonal element.
    fn identity_by_words<T: Scalar>(n: usize) -> Vec<T> {
        let es = std::mem::size_of::<T>();
        let (off, word, pitch) = identity_pattern::<T>(n);
        let mut bytes = vec![0u8; n * n * es];
        for r in 0..n {
            let at = r * pitch + off;
            bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
        let mut out = vec![T::default(); n * n];
        // SAFETY: every `Scalar` is plain data (f32, f64, or a `repr(C)` pair of them), any
        // bit pattern is a value, and `out` has exactly `bytes.len()` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr() as *mut u8, bytes.len())
        };
        out
    }

    fn identity_case<T: Scalar>(n: usize) {
        let got = identity_by_words::<T>(n);
        for j in 0..n {
            for i in 0..n {
                let want = T::from_f64(if i == j { 1.0 } else { 0.0 });
                assert_eq!(got[i + j * n], want, "({i}, {j})");
            }
        }
        // The last word written ends inside the buffer.
        let (off, _, pitch) = identity_pattern::<T>(n);
        assert!((n - 1) * pitch + off + 4 <= n * n * std::mem::size_of::<T>());
    }

    #[test]
    fn identity_pattern_writes_the_identity() {
        identity_case::<f32>(7);
        identity_case::<f64>(7);
        identity_case::<Complex32>(5);
        identity_case::<Complex64>(5);
        identity_case::<f64>(1);
    }

    #[test]
    fn norms_and_products() {
        // [[1, -2], [3, 4]] column-major.
        let a = [1.0f64, 3.0, -2.0, 4.0];
        assert_eq!(inf_norm::<f64, f64>(&a, 2), 7.0);
        assert_eq!(matvec(&a, 2, &[1.0, 1.0]), vec![-1.0, 7.0]);
        let c = [Complex64::new(3.0, 4.0)];
        assert_eq!(inf_norm::<Complex64, Complex64>(&c, 1), 5.0);
        // Row blocks: 600 rows span three tasks.
        let n = 600;
        let g = general::<f64>(n, 2);
        let want = (0..n)
            .map(|i| (0..n).map(|j| g[i + j * n].abs()).sum::<f64>())
            .fold(0.0, f64::max);
        assert!((inf_norm::<f64, f64>(&g, n) - want).abs() <= 1e-9 * want);
    }

    #[test]
    fn residual_of_exact_and_perturbed_inverses() {
        // [[4, 7], [2, 6]]⁻¹ = [[0.6, -0.7], [-0.2, 0.4]].
        let a = [4.0f64, 2.0, 7.0, 6.0];
        let x = [0.6f64, -0.2, -0.7, 0.4];
        for full in [true, false] {
            let r = residual(&a, &x, 2, full, 1);
            assert!(r.value < 1.0 && r.full == full, "{r:?}");
        }
        // A = I, X = I + d·e0e0ᵀ: ‖AX − I‖∞ = d, ‖X‖∞ = 1 + d.
        let (n, d) = (3usize, 1e-10);
        let mut id = vec![0.0f64; n * n];
        for i in 0..n {
            id[i + i * n] = 1.0;
        }
        let mut x = id.clone();
        x[0] += d;
        // The perturbation as stored (1 + d rounds), exact by Sterbenz.
        let d = x[0] - 1.0;
        let want = d / (n as f64 * f64::EPSILON * (1.0 + d));
        let r = residual(&id, &x, n, true, 1);
        assert!((r.value - want).abs() <= 1e-9 * want, "{r:?} vs {want}");
        // The vector check is a lower bound of the full one.
        let v = residual(&id, &x, n, false, 1);
        // (Equal when v0 is the largest entry of v, up to the rounding of x0·v0.)
        assert!(v.value <= r.value * (1.0 + 1e-5) && v.value > 0.0, "{v:?}");
        // Exact inverse: zero. Complex: A = i·I, X = −i·I.
        assert_eq!(residual(&id, &id, n, true, 1).value, 0.0);
        let ai: Vec<Complex64> = id.iter().map(|&v| Complex64::new(0.0, v)).collect();
        let xi: Vec<Complex64> = id.iter().map(|&v| Complex64::new(0.0, -v)).collect();
        assert_eq!(residual(&ai, &xi, n, true, 1).value, 0.0);
        assert_eq!(residual(&ai, &xi, n, false, 1).value, 0.0);
        // f32 scales by the f32 epsilon.
        let id32: Vec<f32> = id.iter().map(|&v| v as f32).collect();
        let mut x32 = id32.clone();
        x32[0] += 1e-5;
        let d32 = f64::from(x32[0]) - 1.0;
        let want32 = d32 / (n as f64 * f64::from(f32::EPSILON) * (1.0 + d32));
        let r32 = residual(&id32, &x32, n, true, 1);
        assert!(
            (r32.value - want32).abs() <= 1e-9 * want32,
            "{r32:?} vs {want32}"
        );
    }

    fn cpu_inverse_case<T: Scalar>(n: usize) {
        let a = general::<T>(n, 9);
        let m = DeviceMatrix::from_col_major(&Device::cpu(), n, n, n, a.clone()).unwrap();
        let inv = dense_inverse::lu_inverse(&m).unwrap();
        let x: Vec<T> = inv.to_array().unwrap().t().iter().copied().collect();
        for full in [true, false] {
            let r = residual(&a, &x, n, full, 4);
            assert!(r.value < 1.0, "{} n = {n} full = {full}: {r:?}", T::PREFIX);
        }
        // A wrong inverse (transposed) fails the check.
        let mut xt = x.clone();
        for j in 0..n {
            for i in 0..n {
                xt[i + j * n] = x[j + i * n];
            }
        }
        for full in [true, false] {
            assert!(residual(&a, &xt, n, full, 4).value > RESID_LIMIT);
        }
    }

    #[test]
    fn residual_accepts_our_cpu_inverse_and_rejects_a_wrong_one() {
        // 37 columns: a partial column block of the full check.
        cpu_inverse_case::<f64>(37);
        cpu_inverse_case::<f32>(37);
        cpu_inverse_case::<Complex64>(20);
        cpu_inverse_case::<Complex32>(300);
    }
}
