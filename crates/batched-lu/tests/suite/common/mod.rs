//! Shared test support: deterministic matrices, f64/Complex64 host references and bounds.
#![allow(dead_code)]

use gpu_blas::blas2::Trans;
use gpu_blas::Scalar;
use ndarray::Array2;
use num_complex::Complex64 as C64;
use num_traits::{FromPrimitive, ToPrimitive};

/// Every order 1..=70 and a sample up to 512; under the sanitizer a sample that still reaches
/// every kernel (register widths 4–32, one and several panels, a partial last panel).
pub fn sizes() -> Vec<usize> {
    if gpu_blas::testing::under_sanitizer() {
        return vec![1, 2, 3, 5, 8, 13, 16, 31, 32, 33, 47, 64, 65, 100];
    }
    (1..=70).chain([97, 128, 190, 256, 512]).collect()
}

pub use gpu_blas::testing::random_values;

/// A random (well-conditioned in practice) `n × n` matrix, column-major.
pub fn well<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    random_values(n * n, seed)
}

/// Condition number around 1e10: the last column is the first plus 1e-10 times noise.
pub fn ill<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut a = well::<T>(n, seed);
    if n >= 2 {
        let noise = random_values::<T>(n, seed ^ 0xabcdef);
        for i in 0..n {
            a[(n - 1) * n + i] = a[i] + noise[i] * T::from_f64(1e-10);
        }
    }
    a
}

/// Random with column `j` exactly zero: `info` must be `j + 1`.
pub fn zero_col<T: Scalar>(n: usize, j: usize, seed: u64) -> Vec<T> {
    let mut a = well::<T>(n, seed);
    a[j * n..(j + 1) * n].fill(T::zero());
    a
}

/// `A = P·L·U` with `P` the cyclic shift (row `i` of `A` is row `i + 1 mod n` of `L·U`),
/// `|re| + |im|` of `L` below 1/2 and `U` diagonal magnitudes ≥ 1: partial pivoting must swap
/// row `j + 1` with row `n` at every step (`pivots = [n; n]`).
pub fn swap_every_step<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let r = random_values::<T>(2 * n * n, seed);
    let quarter = T::from_f64(0.25);
    let mut l = vec![C64::new(0.0, 0.0); n * n];
    let mut u = vec![C64::new(0.0, 0.0); n * n];
    for j in 0..n {
        l[j * n + j] = C64::new(1.0, 0.0);
        for i in j + 1..n {
            l[j * n + i] = (r[j * n + i] * quarter).to_c64();
        }
        for i in 0..j {
            u[j * n + i] = r[n * n + j * n + i].to_c64();
        }
        let d = r[n * n + j * n + j].to_c64();
        u[j * n + j] = d / d.norm() * (1.0 + d.norm());
    }
    let lu = matmul(n, n, n, &l, &u);
    let mut a = vec![T::zero(); n * n];
    for j in 0..n {
        for i in 0..n {
            let v = lu[j * n + (i + 1) % n];
            a[j * n + i] = T::from_parts(
                <T::Real as FromPrimitive>::from_f64(v.re).unwrap(),
                <T::Real as FromPrimitive>::from_f64(v.im).unwrap(),
            );
        }
    }
    a
}

/// Widens to Complex64.
pub fn c64<T: Scalar>(s: &[T]) -> Vec<C64> {
    s.iter().map(|v| v.to_c64()).collect()
}

/// `(m × k)·(k × p)`, column-major, through ndarray.
pub fn matmul(m: usize, k: usize, p: usize, a: &[C64], b: &[C64]) -> Vec<C64> {
    let a = Array2::from_shape_vec((k, m), a.to_vec())
        .unwrap()
        .reversed_axes();
    let b = Array2::from_shape_vec((p, k), b.to_vec())
        .unwrap()
        .reversed_axes();
    let c = a.dot(&b);
    let mut out = vec![C64::new(0.0, 0.0); m * p];
    for j in 0..p {
        for i in 0..m {
            out[j * m + i] = c[(i, j)];
        }
    }
    out
}

/// `op(A)` of an `n × n` column-major matrix.
pub fn op_of(n: usize, trans: Trans, a: &[C64]) -> Vec<C64> {
    match trans {
        Trans::N => a.to_vec(),
        Trans::T | Trans::C => {
            let mut t = vec![C64::new(0.0, 0.0); n * n];
            for j in 0..n {
                for i in 0..n {
                    let v = a[j * n + i];
                    t[i * n + j] = if trans == Trans::C { v.conj() } else { v };
                }
            }
            t
        }
    }
}

/// Infinity norm (largest row sum of moduli) of an `m × p` column-major matrix.
pub fn norm_inf(m: usize, p: usize, a: &[C64]) -> f64 {
    (0..m)
        .map(|i| (0..p).map(|j| a[j * m + i].norm()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// `c·eps` for the type: the constant `c` is 8 for real types, 16 for complex.
pub fn c_eps<T: Scalar>() -> f64 {
    let c = if T::IS_COMPLEX { 16.0 } else { 8.0 };
    c * T::epsilon().to_f64().unwrap()
}

/// `‖P·A − L·U‖∞` and `‖A‖∞` from the original matrix, its factors and the 1-based pivots.
pub fn lu_residual<T: Scalar>(n: usize, a: &[T], f: &[T], piv: &[i32]) -> (f64, f64) {
    let mut pa = c64(a);
    for (j, &p) in piv.iter().enumerate() {
        let p = p as usize - 1;
        for c in 0..n {
            pa.swap(c * n + j, c * n + p);
        }
    }
    let f = c64(f);
    let mut l = vec![C64::new(0.0, 0.0); n * n];
    let mut u = vec![C64::new(0.0, 0.0); n * n];
    for j in 0..n {
        for i in 0..n {
            match i.cmp(&j) {
                std::cmp::Ordering::Greater => l[j * n + i] = f[j * n + i],
                std::cmp::Ordering::Equal => {
                    l[j * n + i] = C64::new(1.0, 0.0);
                    u[j * n + i] = f[j * n + i];
                }
                std::cmp::Ordering::Less => u[j * n + i] = f[j * n + i],
            }
        }
    }
    let lu = matmul(n, n, n, &l, &u);
    let d: Vec<C64> = pa.iter().zip(&lu).map(|(x, y)| x - y).collect();
    (norm_inf(n, n, &d), norm_inf(n, n, &c64(a)))
}

/// Asserts the reconstruction bound `‖P·A − L·U‖∞ ≤ c·n·eps·‖A‖∞`.
pub fn assert_lu<T: Scalar>(n: usize, a: &[T], f: &[T], piv: &[i32], what: &str) {
    let (r, na) = lu_residual(n, a, f, piv);
    let tol = c_eps::<T>() * n as f64 * na;
    assert!(
        r <= tol,
        "{what} {}: n = {n}: ‖PA − LU‖ = {r:e} > {tol:e}",
        T::PREFIX
    );
}

/// Asserts `‖A·X − I‖∞ ≤ c·n·eps·‖A‖∞·‖X‖∞`.
pub fn assert_inverse<T: Scalar>(n: usize, a: &[T], x: &[T], what: &str) {
    let (a, x) = (c64(a), c64(x));
    let mut r = matmul(n, n, n, &a, &x);
    for i in 0..n {
        r[i * n + i] -= 1.0;
    }
    let res = norm_inf(n, n, &r);
    let tol = c_eps::<T>() * n as f64 * norm_inf(n, n, &a) * norm_inf(n, n, &x);
    assert!(
        res <= tol,
        "{what} {}: n = {n}: ‖AX − I‖ = {res:e} > {tol:e}",
        T::PREFIX
    );
}

/// Asserts `‖op(A)·X − B‖∞ ≤ c·n·eps·(‖A‖∞·‖X‖∞ + ‖B‖∞)` for `n × nrhs` blocks.
pub fn assert_solve<T: Scalar>(n: usize, trans: Trans, a: &[T], x: &[T], b: &[T], nrhs: usize) {
    let opa = op_of(n, trans, &c64(a));
    let (x, b) = (c64(x), c64(b));
    let ax = matmul(n, n, nrhs, &opa, &x);
    let d: Vec<C64> = ax.iter().zip(&b).map(|(p, q)| p - q).collect();
    let res = norm_inf(n, nrhs, &d);
    let tol = c_eps::<T>()
        * n as f64
        * (norm_inf(n, n, &opa) * norm_inf(n, nrhs, &x) + norm_inf(n, nrhs, &b));
    assert!(
        res <= tol,
        "solve {trans:?} {}: n = {n}: ‖op(A)X − B‖ = {res:e} > {tol:e}",
        T::PREFIX
    );
}
