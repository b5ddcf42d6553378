//! Blocked Gauss-Jordan inversion with partial (row) pivoting, in place on the host.

use super::blocks::{gemm, view_mut, NB};
use gpu_blas::Scalar;
use ndarray::{s, Axis};
use rayon::prelude::*;

/// `A ← A⁻¹` in place for the compact `n × n` matrix `a`; `Err(k)` (1-based) when column `k` has
/// no non-zero pivot (the matrix is singular). On error `a` holds intermediate values.
///
/// Each pivot `k` is a "sweep": with `d = a_kk` (after interchanging row `k` with the row of the
/// largest `|re| + |im|` at or below it), `a_kk ← 1/d`, `a_kj ← a_kj/d`, `a_ik ← −a_ik/d`,
/// `a_ij ← a_ij − a_ik·a_kj/d`; after all `n` sweeps `a` holds `(P·A)⁻¹ = A⁻¹·Pᵀ`, and the
/// columns are interchanged back in reverse order. Blocked: the sweeps of an `NB`-column block
/// are applied to that panel only (turning it into `[−A01·A11⁻¹; A11⁻¹; −A21·A11⁻¹]`), then to
/// every other column block `C` at once by one matrix product `C ← C + panel·C_mid` with
/// `C_mid` (the block's rows of `C`, copied, then zeroed): `2n³` flops, almost all in products.
pub(crate) fn invert<T: Scalar>(n: usize, a: &mut [T]) -> Result<(), usize> {
    let mut piv = vec![0usize; n];
    let mut k = 0;
    while k < n {
        let kb = NB.min(n - k);
        sweep_panel(n, a, k, kb, &mut piv)?;
        update_outside(n, a, k, kb);
        k += kb;
    }
    for j in (0..n).rev() {
        let p = piv[j];
        if p != j {
            for i in 0..n {
                a.swap(j * n + i, p * n + i);
            }
        }
    }
    Ok(())
}

/// The sweeps of pivots `k..k + kb`, on the panel columns only; row interchanges span all
/// columns.
fn sweep_panel<T: Scalar>(
    n: usize,
    a: &mut [T],
    k: usize,
    kb: usize,
    piv: &mut [usize],
) -> Result<(), usize> {
    for j in k..k + kb {
        let col = &a[j * n..j * n + n];
        let mut p = j;
        let mut best = col[j].abs1();
        for (i, v) in col.iter().enumerate().skip(j + 1) {
            let m = v.abs1();
            if m > best {
                best = m;
                p = i;
            }
        }
        if a[j * n + p] == T::zero() {
            return Err(j + 1);
        }
        piv[j] = p;
        if p != j {
            for c in 0..n {
                a.swap(c * n + j, c * n + p);
            }
        }
        let d = a[j * n + j];
        let dinv = T::one() / d;
        // Row j of the panel: a_jc ← a_jc / d (c ≠ j), a_jj ← 1/d.
        for c in k..k + kb {
            a[c * n + j] = if c == j { dinv } else { a[c * n + j] / d };
        }
        // Column j, negated (row j excluded): the multipliers of the update.
        let mut mult: Vec<T> = a[j * n..j * n + n].iter().map(|&v| -v).collect();
        mult[j] = T::zero();
        // Other panel columns: a_ic ← a_ic − a_ij·(a_jc/d), with a_jc/d already in row j.
        for c in k..k + kb {
            if c == j {
                continue;
            }
            let r = a[c * n + j];
            if r != T::zero() {
                for (x, &m) in a[c * n..c * n + n].iter_mut().zip(&mult) {
                    *x += m * r;
                }
            }
        }
        // Column j: a_ij ← −a_ij/d, a_jj ← 1/d.
        for (x, &m) in a[j * n..j * n + n].iter_mut().zip(&mult) {
            *x = m * dinv;
        }
        a[j * n + j] = dinv;
    }
    Ok(())
}

/// Applies the block's sweeps to the columns outside the panel `k..k + kb`:
/// `C ← C + panel·C_mid`, `C_mid` zeroed first (so it becomes `A11⁻¹·C_mid`).
fn update_outside<T: Scalar>(n: usize, a: &mut [T], k: usize, kb: usize) {
    let m = view_mut(n, n, a);
    let (mut left, rest) = m.split_at(Axis(1), k);
    let (panel, mut right) = rest.split_at(Axis(1), kb);
    let width = NB;
    let mut chunks: Vec<_> = left.axis_chunks_iter_mut(Axis(1), width).collect();
    chunks.extend(right.axis_chunks_iter_mut(Axis(1), width));
    let pv = panel.view();
    let apply = |mut c: ndarray::ArrayViewMut2<'_, T>| {
        let mid = c.slice(s![k..k + kb, ..]).to_owned();
        c.slice_mut(s![k..k + kb, ..]).fill(T::zero());
        gemm(T::one(), &pv, &mid.view(), T::one(), c);
    };
    if n * n * kb < 1 << 20 {
        chunks.into_iter().for_each(apply);
    } else {
        chunks.into_par_iter().for_each(apply);
    }
}
