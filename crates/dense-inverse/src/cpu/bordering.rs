//! The bordering (block-iterative) inverse of a Hermitian matrix, in place on a compact host
//! copy holding both triangles.

use super::blocks::{gemm, view, view_mut};
use gpu_blas::Scalar;
use ndarray::{s, Array2};
use num_traits::{Float, ToPrimitive};
use rayon::prelude::*;

/// Why the bordering method stopped: the 1-based step (order of the leading block) and `|β|`.
pub(crate) struct Breakdown {
    pub(crate) step: usize,
    pub(crate) beta: f64,
}

/// Work (multiply-adds) of one step above which it is spread over rayon threads.
const PAR_STEP: usize = 1 << 16;

/// One border row per step (the method as published): with `W⁻¹` the inverse of the leading
/// `t × t` block held in `a[..t, ..t]`, `r = a[..t, t]`, `ρ = a_tt`:
/// `q = −W⁻¹·r`, `β = ρ + rᴴ·q`, and
/// `W_{t+1}⁻¹ = [[W⁻¹ + q·qᴴ/β, q/β], [qᴴ/β, 1/β]]`.
/// `|β| ≤ threshold` stops with the step `t + 1 + offset`. `a` must be exactly Hermitian.
/// Returns the smallest pivot `β` (all are positive exactly when `A` is positive definite).
pub(crate) fn unblocked<T: Scalar>(
    n: usize,
    a: &mut [T],
    threshold: T::Real,
    offset: usize,
) -> Result<T::Real, Breakdown> {
    let mut min_beta = T::Real::infinity();
    let mut r = vec![T::zero(); n];
    let mut q = vec![T::zero(); n];
    for t in 0..n {
        r[..t].copy_from_slice(&a[t * n..t * n + t]);
        // q_i = −Σ_k W⁻¹(i, k)·r_k = −(column i of W⁻¹)ᴴ·r, W⁻¹ Hermitian.
        let qi = |i: usize| -> T {
            let c = &a[i * n..i * n + t];
            -c.iter()
                .zip(&r[..t])
                .map(|(&w, &x)| w.conj() * x)
                .sum::<T>()
        };
        if t * t < PAR_STEP {
            q[..t].iter_mut().enumerate().for_each(|(i, v)| *v = qi(i));
        } else {
            q[..t]
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, v)| *v = qi(i));
        }
        let rq: T = r[..t]
            .iter()
            .zip(&q[..t])
            .map(|(&x, &y)| x.conj() * y)
            .sum();
        let beta = a[t * n + t].re() + rq.re();
        if Float::abs(beta) <= threshold || !Float::is_finite(beta) {
            return Err(Breakdown {
                step: t + 1 + offset,
                beta: Float::abs(beta).to_f64().unwrap_or(f64::NAN),
            });
        }
        min_beta = min_beta.min(beta);
        let binv = T::from_real(beta.recip());
        // W⁻¹ += q·qᴴ/β, column by column.
        let upd = |(k, col): (usize, &mut [T])| {
            let f = q[k].conj() * binv;
            for (x, &qi) in col[..t].iter_mut().zip(&q[..t]) {
                *x += qi * f;
            }
        };
        if t * t < PAR_STEP {
            a.chunks_mut(n).take(t).enumerate().for_each(upd);
        } else {
            a.par_chunks_mut(n).take(t).enumerate().for_each(upd);
        }
        for k in 0..t {
            let v = q[k] * binv;
            a[t * n + k] = v;
            a[k * n + t] = v.conj();
        }
        a[t * n + t] = binv;
    }
    Ok(min_beta)
}

/// `b` border rows per step: with `W⁻¹` (order `t`) in `a[..t, ..t]`, `R = a[..t, t..t+b]`,
/// `D = a[t..t+b, t..t+b]`: `Q = −W⁻¹·R` (matrix product), the `b × b` Schur complement
/// `S = D + Rᴴ·Q` (inverted by [`unblocked`], which checks its pivots `β` — the same pivots as
/// the unblocked method's, in exact arithmetic), and
/// `W_{t+b}⁻¹ = [[W⁻¹ + Q·S⁻¹·Qᴴ, Q·S⁻¹], [S⁻¹·Qᴴ, S⁻¹]]`, the rank-`b` update one matrix
/// product. The result is made exactly Hermitian at the end (average with its conjugate
/// transpose). Workspace: four `n × b` blocks.
pub(crate) fn blocked<T: Scalar>(
    n: usize,
    a: &mut [T],
    b: usize,
    threshold: T::Real,
) -> Result<(), Breakdown> {
    let b = b.max(1);
    let mut t = 0;
    while t < n {
        let tb = b.min(n - t);
        let e = t + tb;
        let m = view(n, n, a);
        let w = m.slice(s![..t, ..t]);
        let r = m.slice(s![..t, t..e]);
        let mut qm = Array2::<T>::zeros((t, tb));
        gemm(-T::one(), &w, &r, T::zero(), qm.view_mut());
        let rh = r.t().mapv(|v| v.conj());
        let mut sm = m.slice(s![t..e, t..e]).to_owned();
        gemm(T::one(), &rh.view(), &qm.view(), T::one(), sm.view_mut());
        let mut sv: Vec<T> = sm.t().iter().copied().collect(); // column-major
        crate::check::hermitian_from(gpu_blas::blas2::Uplo::Lower, tb, &mut sv);
        unblocked(tb, &mut sv, threshold, t)?;
        let sinv = view(tb, tb, &sv);
        let mut qs = Array2::<T>::zeros((t, tb));
        gemm(T::one(), &qm.view(), &sinv, T::zero(), qs.view_mut());
        let qh = qm.t().mapv(|v| v.conj());
        let mut mm = view_mut(n, n, a);
        gemm(
            T::one(),
            &qs.view(),
            &qh.view(),
            T::one(),
            mm.slice_mut(s![..t, ..t]),
        );
        mm.slice_mut(s![..t, t..e]).assign(&qs);
        mm.slice_mut(s![t..e, ..t])
            .assign(&qs.t().mapv(|v| v.conj()));
        mm.slice_mut(s![t..e, t..e]).assign(&sinv);
        t = e;
    }
    // Exactly Hermitian: X ← (X + Xᴴ)/2.
    let half = T::from_f64(0.5);
    for j in 0..n {
        a[j * n + j] = T::from_real(a[j * n + j].re());
        for i in j + 1..n {
            let v = (a[j * n + i] + a[i * n + j].conj()) * half;
            a[j * n + i] = v;
            a[i * n + j] = v.conj();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest pivot: positive exactly for a positive definite matrix. `diag(2, 3)` has
    /// pivots 2 and 3; `[[1, 2], [2, 1]]` has 1 and 1 − 4 = −3.
    #[test]
    fn smallest_pivot_tells_definiteness() {
        let mut spd = vec![2.0f64, 0.0, 0.0, 3.0];
        let b = unblocked(2, &mut spd, 1e-12, 0).unwrap_or_else(|_| panic!("breakdown"));
        assert_eq!(b, 2.0);
        assert_eq!(spd, vec![0.5, 0.0, 0.0, 1.0 / 3.0]);
        let mut indefinite = vec![1.0f64, 2.0, 2.0, 1.0];
        let b = unblocked(2, &mut indefinite, 1e-12, 0).unwrap_or_else(|_| panic!("breakdown"));
        assert!((b + 3.0).abs() < 1e-15, "{b}");
        // The inverse of [[1, 2], [2, 1]] is [[−1, 2], [2, −1]] / 3.
        for (x, want) in indefinite.iter().zip([-1.0, 2.0, 2.0, -1.0]) {
            assert!((x - want / 3.0).abs() < 1e-15, "{indefinite:?}");
        }
    }
}
