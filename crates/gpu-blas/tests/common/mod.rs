//! Shared test support: random data, f64 references and error bounds.
#![allow(dead_code)]

use gpu_blas::{RealScalar, Scalar};
use num_complex::Complex64 as C64;
use num_traits::{Float, ToPrimitive};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Sizes every operation must handle, beside random ones.
pub const EDGE_SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 1023, 1024, 1025];

/// A proptest runner honouring `PROPTEST_CASES`, with a default suited to the suite's runtime.
pub fn runner() -> TestRunner {
    let mut cfg = Config::default();
    if std::env::var("PROPTEST_CASES").is_err() {
        cfg.cases = 48;
    }
    cfg.failure_persistence = None;
    TestRunner::new(cfg)
}

/// A length: an edge size or a random one up to 5000.
pub fn len_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(EDGE_SIZES.to_vec()), 0usize..5000]
}

/// A BLAS increment allowed to be negative.
pub fn signed_inc() -> impl Strategy<Value = isize> {
    prop::sample::select(vec![1isize, 1, 1, 2, 3, 7, -1, -2, -5])
}

/// A positive increment.
pub fn positive_inc() -> impl Strategy<Value = isize> {
    prop::sample::select(vec![1isize, 1, 2, 3, 16])
}

pub use gpu_blas::testing::random_values;

/// Logical elements of a BLAS-strided vector stored in `raw` starting at `offset`.
pub fn gather<T: Copy>(raw: &[T], offset: usize, n: usize, inc: isize) -> Vec<T> {
    (0..n)
        .map(|i| {
            let k = if inc > 0 {
                i * inc as usize
            } else {
                (n - 1 - i) * inc.unsigned_abs()
            };
            raw[offset + k]
        })
        .collect()
}

/// Buffer length needed for `n` elements with increment `inc` after `offset`.
pub fn span(offset: usize, n: usize, inc: isize) -> usize {
    if n == 0 {
        offset
    } else {
        offset + (n - 1) * inc.unsigned_abs() + 1
    }
}

pub fn c64<T: Scalar>(v: T) -> C64 {
    v.to_c64()
}

pub fn eps<T: Scalar>() -> f64 {
    T::epsilon().to_f64().unwrap()
}

/// Reference `Σ op(x)·y` in complex f64 with the matching bound `Σ |x||y|`.
pub fn ref_dot<T: Scalar>(x: &[T], y: &[T], conj: bool) -> (C64, f64) {
    let mut s = C64::new(0.0, 0.0);
    let mut bound = 0.0;
    for (a, b) in x.iter().zip(y) {
        let a = if conj { c64(*a).conj() } else { c64(*a) };
        s += a * c64(*b);
        bound += a.norm() * c64(*b).norm();
    }
    (s, bound)
}

/// `|got − want| ≤ tol`, with both given as complex f64.
#[track_caller]
pub fn assert_close(what: &str, got: C64, want: C64, tol: f64) {
    let err = (got - want).norm();
    assert!(
        err <= tol && err.is_finite() == want.norm().is_finite(),
        "{what}: got {got}, want {want}, error {err:e} > tolerance {tol:e}"
    );
}

/// Error factor for summing `n` terms in precision `T` (complex multiplies add a few roundings).
pub fn gamma<T: Scalar>(n: usize) -> f64 {
    let c = if T::IS_COMPLEX { 4.0 } else { 2.0 };
    c * (n as f64 + 2.0) * eps::<T>()
}

/// Scaled exact-ish reference norm: max · sqrt(Σ (|x|/max)²) in f64.
pub fn ref_nrm2<T: Scalar>(x: &[T]) -> f64 {
    let m = x
        .iter()
        .map(|v| c64(*v).re.abs().max(c64(*v).im.abs()))
        .fold(0.0, f64::max);
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    let s: f64 = x
        .iter()
        .map(|v| {
            let c = c64(*v) / m;
            c.re * c.re + c.im * c.im
        })
        .sum();
    m * s.sqrt()
}

/// Converts a real of type `R` to f64.
pub fn f<R: RealScalar>(r: R) -> f64 {
    r.to_f64().unwrap()
}

/// Reference `i?amax` on the values the kernels compare (|re|+|im| in the type's precision),
/// with the documented NaN rule.
pub fn ref_iamax<T: Scalar>(x: &[T]) -> Option<usize> {
    if let Some(i) = x.iter().position(|v| v.is_nan()) {
        return Some(i);
    }
    let mut best: Option<(usize, T::Real)> = None;
    for (i, v) in x.iter().enumerate() {
        let a = v.abs1();
        if best.is_none_or(|(_, b)| a > b) {
            best = Some((i, a));
        }
    }
    best.map(|(i, _)| i)
}

pub fn is_finite_real<R: Float>(r: R) -> bool {
    r.is_finite()
}

/// Exactly rounded sum of f64 values (Shewchuk's expansion, as Python's `math.fsum`).
pub fn fsum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for mut x in values {
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    // Round the expansion: sum from the top with a half-way correction.
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        n -= 1;
        let x = hi;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        if y == x - hi {
            hi = x;
        }
    }
    hi
}

/// The exactly rounded (to f64) value of `Σ op(x)·y`: each f64 product is split exactly into
/// `p + e` with an FMA and the pieces are summed exactly.
pub fn exact_dot<T: Scalar>(x: &[T], y: &[T], conj: bool) -> C64 {
    let mut re = Vec::with_capacity(4 * x.len());
    let mut im = Vec::with_capacity(4 * x.len());
    let push = |v: &mut Vec<f64>, a: f64, b: f64| {
        let p = a * b;
        v.push(p);
        v.push(a.mul_add(b, -p));
    };
    for (a, b) in x.iter().zip(y) {
        let a = if conj { c64(*a).conj() } else { c64(*a) };
        let b = c64(*b);
        push(&mut re, a.re, b.re);
        push(&mut re, -a.im, b.im);
        push(&mut im, a.re, b.im);
        push(&mut im, a.im, b.re);
    }
    C64::new(fsum(re), fsum(im))
}
