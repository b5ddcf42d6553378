//! Shared test support: test matrices, Complex64 references through ndarray, residual bounds.
#![allow(dead_code)]

use gpu_blas::{Device, DeviceMatrix, Scalar};
use ndarray::Array2;
use num_complex::Complex64 as C64;
use num_traits::ToPrimitive;

pub use gpu_blas::testing::random_values;

/// A random general `n × n` matrix, column-major (entries in [−1, 1)).
pub fn general<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    random_values(n * n, seed)
}

/// `general(n, seed) + 2·√n·I`: still needs row interchanges (its off-diagonal row sums are
/// about n/2), but its smallest singular value is at least `2·√n − ‖G‖₂ ≈ 0.85·√n`
/// (`‖G‖₂ ≈ 2·√(n/3)` for entries uniform in `[−1, 1)`), so its condition number is a few units
/// and never near `1/ε`, whatever the seed.
pub fn general_shifted<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut a = general::<T>(n, seed);
    let s = T::from_f64(2.0 * (n as f64).sqrt());
    for j in 0..n {
        a[j * n + j] += s;
    }
    a
}

/// `M·Mᴴ/n + I`: exactly Hermitian positive definite, condition number modest.
pub fn spd<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let m = c64(&general::<T>(n, seed));
    let mut a = matmul(n, n, n, &m, &adjoint(n, &m));
    for v in a.iter_mut() {
        *v /= n as f64;
    }
    for j in 0..n {
        a[j * n + j] = C64::new(a[j * n + j].re + 1.0, 0.0);
        for i in j + 1..n {
            a[i * n + j] = a[j * n + i].conj(); // exactly Hermitian
        }
    }
    from_c64(&a)
}

/// Hermitian indefinite with strictly dominant diagonal of alternating sign `±3n`: every
/// leading block is nonsingular (and well conditioned), but Cholesky fails at column 2.
pub fn hermitian_indefinite<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let m = c64(&general::<T>(n, seed));
    let mh = adjoint(n, &m);
    let mut a: Vec<C64> = m.iter().zip(&mh).map(|(x, y)| x + y).collect();
    for j in 0..n {
        let s = if j % 2 == 0 { 1.0 } else { -1.0 };
        a[j * n + j] = C64::new(s * 3.0 * n as f64, 0.0);
    }
    from_c64(&a)
}

/// Condition number about 1e10·n (the last column is the first plus 1e-10 times noise).
pub fn nearly_singular<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut a = general::<T>(n, seed);
    let noise = random_values::<T>(n, seed ^ 0xabc);
    for i in 0..n {
        a[(n - 1) * n + i] = a[i] + noise[i] * T::from_f64(1e-10);
    }
    a
}

/// Random with column `j` exactly zero.
pub fn zero_col<T: Scalar>(n: usize, j: usize, seed: u64) -> Vec<T> {
    let mut a = general::<T>(n, seed);
    a[j * n..(j + 1) * n].fill(T::zero());
    a
}

pub fn c64<T: Scalar>(s: &[T]) -> Vec<C64> {
    s.iter().map(|v| v.to_c64()).collect()
}

pub fn from_c64<T: Scalar>(s: &[C64]) -> Vec<T> {
    s.iter()
        .map(|v| {
            T::from_parts(
                <T::Real as num_traits::FromPrimitive>::from_f64(v.re).unwrap(),
                <T::Real as num_traits::FromPrimitive>::from_f64(v.im).unwrap(),
            )
        })
        .collect()
}

pub fn adjoint(n: usize, a: &[C64]) -> Vec<C64> {
    let mut t = vec![C64::new(0.0, 0.0); n * n];
    for j in 0..n {
        for i in 0..n {
            t[i * n + j] = a[j * n + i].conj();
        }
    }
    t
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
    c.t().iter().copied().collect()
}

/// Infinity norm of an `m × p` column-major matrix.
pub fn norm_inf(m: usize, p: usize, a: &[C64]) -> f64 {
    (0..m)
        .map(|i| (0..p).map(|j| a[j * m + i].norm()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// `c·ε` with `c` = 8 (real) or 16 (complex): the constant of the residual bounds. Backward
/// stable inversion gives `‖A·X − I‖ ≤ γ·n·ε·‖A‖·‖X‖` with a small `γ` when the pivot growth is
/// small (random test matrices have growth below 2); complex arithmetic carries an extra factor
/// of about 2 per operation, hence 16.
pub fn c_eps<T: Scalar>() -> f64 {
    let c = if T::IS_COMPLEX { 16.0 } else { 8.0 };
    c * T::epsilon().to_f64().unwrap()
}

/// `‖A·X − I‖∞ / (n·ε·‖A‖∞·‖X‖∞)` measured against `c`: asserts the bound.
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

/// Asserts `‖A·X − B‖∞ ≤ c·n·ε·(‖A‖∞·‖X‖∞ + ‖B‖∞)` for `n × nrhs` blocks (`a` already `op(A)`).
pub fn assert_solve<T: Scalar>(n: usize, a: &[C64], x: &[T], b: &[T], nrhs: usize, what: &str) {
    let (x, b) = (c64(x), c64(b));
    let ax = matmul(n, n, nrhs, a, &x);
    let d: Vec<C64> = ax.iter().zip(&b).map(|(p, q)| p - q).collect();
    let res = norm_inf(n, nrhs, &d);
    let tol = c_eps::<T>()
        * n as f64
        * (norm_inf(n, n, a) * norm_inf(n, nrhs, &x) + norm_inf(n, nrhs, &b));
    assert!(
        res <= tol,
        "{what} {}: n = {n}: ‖AX − B‖ = {res:e} > {tol:e}",
        T::PREFIX
    );
}

/// `a` (compact `n × n`) on `dev` as an `n × n` block at (1, 2) of an `(n + 3) × (n + 2)`
/// matrix filled with NaN elsewhere: a view with leading dimension `n + 3`.
pub fn padded<T: Scalar>(dev: &Device, n: usize, a: &[T]) -> DeviceMatrix<T> {
    let (rows, cols) = (n + 3, n + 2);
    let mut data = vec![T::from_f64(f64::NAN); rows * cols];
    for j in 0..n {
        for i in 0..n {
            data[(j + 2) * rows + i + 1] = a[j * n + i];
        }
    }
    DeviceMatrix::from_col_major(dev, rows, cols, rows, data).unwrap()
}

/// The block of [`padded`] back as a compact vector, and whether everything outside it is
/// still NaN.
pub fn unpad<T: Scalar>(m: &DeviceMatrix<T>, n: usize) -> (Vec<T>, bool) {
    let all = m.to_array().unwrap();
    let mut out = vec![T::zero(); n * n];
    let mut outside_nan = true;
    for ((i, j), v) in all.indexed_iter() {
        if (1..n + 1).contains(&i) && (2..n + 2).contains(&j) {
            out[(j - 2) * n + i - 1] = *v;
        } else {
            outside_nan &= v.is_nan();
        }
    }
    (out, outside_nan)
}

pub fn upload<T: Scalar>(dev: &Device, n: usize, a: &[T]) -> DeviceMatrix<T> {
    DeviceMatrix::from_col_major(dev, n, n, n.max(1), a.to_vec()).unwrap()
}

pub fn download<T: Scalar>(m: &DeviceMatrix<T>) -> Vec<T> {
    m.to_array().unwrap().t().iter().copied().collect()
}

/// Runs a generic test body for the four scalar types.
#[macro_export]
macro_rules! for_all_types {
    ($f:ident, $dev:expr) => {
        $f::<f32>($dev);
        $f::<f64>($dev);
        $f::<num_complex::Complex32>($dev);
        $f::<num_complex::Complex64>($dev);
    };
}
