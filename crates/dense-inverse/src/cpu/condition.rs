//! Norms and the Hager–Higham 1-norm estimator (LAPACK `lacn2`) used for `gecon`/`pocon`
//! style reciprocal condition numbers.

use gpu_blas::Scalar;
use num_traits::{Float, FromPrimitive, One, Zero};

/// `‖A‖₁ = max_j Σ_i |a_ij|` of a compact `n`-row matrix.
pub(crate) fn norm1<T: Scalar>(n: usize, h: &[T]) -> T::Real {
    if n == 0 {
        return T::Real::zero();
    }
    h.chunks(n)
        .map(|c| {
            c.iter()
                .map(|v| v.abs())
                .fold(T::Real::zero(), |s, v| s + v)
        })
        .fold(T::Real::zero(), |m, s| {
            if s > m || Float::is_nan(s) {
                s
            } else {
                m
            }
        })
}

fn sum_abs<T: Scalar>(x: &[T]) -> T::Real {
    x.iter()
        .map(|v| v.abs())
        .fold(T::Real::zero(), |s, v| s + v)
}

/// `x/|x|`, or 1 where `x = 0`.
fn sign<T: Scalar>(x: T) -> T {
    let a = x.abs();
    if a > T::Real::zero() {
        x * T::from_real(a.recip())
    } else {
        T::one()
    }
}

/// The index of the largest `|x_i|` (first on ties).
fn argmax<T: Scalar>(x: &[T]) -> usize {
    let mut best = 0;
    for (i, v) in x.iter().enumerate() {
        if v.abs() > x[best].abs() {
            best = i;
        }
    }
    best
}

/// An estimate `γ ≤ ‖B‖₁` of an `n × n` matrix `B` known only through products: `apply(x,
/// false)` overwrites `x` with `B·x`, `apply(x, true)` with `Bᴴ·x`. Hager's method with
/// Higham's refinements (LAPACK `lacn2`): at most 5 iterations of `x ← e_j`, `j = argmax|Bᴴ·
/// sign(B·x)|`, then the alternating test vector `x_i = ±(1 + i/(n − 1))`, whose `2‖Bx‖₁/(3n)`
/// guards against the rare cases where the iteration is fooled. Usually within a factor of 3 of
/// `‖B‖₁`, at the cost of a few products.
pub(crate) fn norm1_estimate<T: Scalar>(
    n: usize,
    mut apply: impl FnMut(&mut [T], bool),
) -> T::Real {
    if n == 0 {
        return T::Real::zero();
    }
    let nr = T::Real::from_usize(n).unwrap_or_else(T::Real::max_value);
    let mut x = vec![T::from_real(nr.recip()); n];
    apply(&mut x, false);
    if n == 1 {
        return x[0].abs();
    }
    let mut est = sum_abs(&x);
    let mut signs: Vec<T> = x.iter().map(|&v| sign(v)).collect();
    let mut z = signs.clone();
    apply(&mut z, true);
    let mut j = argmax(&z);
    let mut iter = 2;
    loop {
        x.fill(T::zero());
        x[j] = T::one();
        apply(&mut x, false);
        let old = est;
        est = sum_abs(&x);
        let new_signs: Vec<T> = x.iter().map(|&v| sign(v)).collect();
        let repeated = !T::IS_COMPLEX && new_signs == signs;
        if repeated || est <= old {
            est = est.max(old);
            break;
        }
        signs = new_signs;
        z.copy_from_slice(&signs);
        apply(&mut z, true);
        let jlast = j;
        j = argmax(&z);
        if z[jlast].abs() == z[j].abs() || iter >= 5 {
            break;
        }
        iter += 1;
    }
    // The alternating-sign test vector.
    let denom = T::Real::from_usize(n - 1).unwrap_or_else(T::Real::one);
    let mut alt = T::Real::one();
    for (i, v) in x.iter_mut().enumerate() {
        let m = T::Real::one() + T::Real::from_usize(i).unwrap_or_else(T::Real::zero) / denom;
        *v = T::from_real(alt * m);
        alt = -alt;
    }
    apply(&mut x, false);
    let three = <T::Real as FromPrimitive>::from_f64(3.0).unwrap_or_else(T::Real::one);
    let two = T::Real::one() + T::Real::one();
    let temp = two * sum_abs(&x) / (three * nr);
    if temp > est {
        temp
    } else {
        est
    }
}

/// `1/(‖A‖₁·est)` with the LAPACK conventions: 0 for `‖A‖₁ = 0` or an infinite or NaN
/// estimate, 1 for `n = 0`.
pub(crate) fn rcond_from<R: Float>(n: usize, anorm: R, ainv_norm: R) -> R {
    if n == 0 {
        return R::one();
    }
    if anorm <= R::zero() || anorm.is_nan() || !ainv_norm.is_finite() {
        return R::zero();
    }
    if ainv_norm == R::zero() {
        return R::zero();
    }
    let r = R::one() / (anorm * ainv_norm);
    if r.is_finite() {
        r
    } else {
        R::zero()
    }
}
