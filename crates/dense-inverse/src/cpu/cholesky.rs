//! Cholesky on the host, lower storage (`A = L·Lᴴ`): `potrf` (blocked right-looking),
//! `potrs`, `potri` (in place: `L ← L⁻¹`, then `A⁻¹ = L⁻ᴴ·L⁻¹`). Callers with upper storage
//! convert (`U = Lᴴ`) before and after.

use super::blocks::{gemm, par_columns, trsm_left, view, view_mut, NB};
use gpu_blas::Scalar;
use ndarray::{s, Array2, Axis};
use num_traits::{Float, Zero};
use rayon::prelude::*;

/// In-place `A = L·Lᴴ` of the lower triangle of the compact `n × n` Hermitian matrix `a` (the
/// imaginary part of the diagonal is ignored; the strict upper triangle is used as scratch).
/// `Err(j)` is the 1-based column whose pivot `A(j, j) − Σ|L(j, c)|²` is not positive (or not
/// finite): the leading minor of order `j` is not positive definite.
pub(crate) fn potrf<T: Scalar>(n: usize, a: &mut [T]) -> Result<(), usize> {
    let mut k = 0;
    while k < n {
        let kb = NB.min(n - k);
        let e = k + kb;
        // Diagonal block and the panel below it, left-looking inside the block.
        for j in k..e {
            let (done, rest) = a.split_at_mut(j * n);
            let col = &mut rest[..n];
            let mut d = col[j].re();
            for c in k..j {
                d -= done[c * n + j].abs().powi(2);
            }
            if d <= T::Real::zero() || !Float::is_finite(d) {
                return Err(j + 1);
            }
            let ljj = Float::sqrt(d);
            col[j] = T::from_real(ljj);
            for c in k..j {
                let f = done[c * n + j].conj();
                if f != T::zero() {
                    let lc = &done[c * n + j + 1..c * n + n];
                    for (x, &l) in col[j + 1..].iter_mut().zip(lc) {
                        *x -= l * f;
                    }
                }
            }
            let inv = T::from_real(ljj.recip());
            for x in &mut col[j + 1..] {
                *x *= inv;
            }
        }
        if e < n {
            // A22 ← A22 − L21·L21ᴴ on the lower triangle, by column chunks.
            let m = view_mut(n, n, a);
            let (left, right) = m.split_at(Axis(1), e);
            let l21 = left.slice(s![e.., k..]);
            let w: Array2<T> = l21.t().mapv(|v| v.conj());
            let mut a22 = right.slice_move(s![e.., ..]);
            let cols = a22.ncols();
            let step = NB.max(cols.div_ceil(4 * rayon::current_num_threads().max(1)));
            let chunks: Vec<_> = a22
                .axis_chunks_iter_mut(Axis(1), step)
                .enumerate()
                .collect();
            let update = |(i, c): (usize, ndarray::ArrayViewMut2<'_, T>)| {
                let c0 = i * step;
                let cw = c.ncols();
                let c = c.slice_move(s![c0.., ..]);
                gemm(
                    -T::one(),
                    &l21.slice(s![c0.., ..]),
                    &w.slice(s![.., c0..c0 + cw]),
                    T::one(),
                    c,
                );
            };
            if cols * cols * kb < (1 << 20) {
                chunks.into_iter().for_each(update);
            } else {
                chunks.into_par_iter().for_each(update);
            }
        }
        k = e;
    }
    Ok(())
}

/// Solves `A·X = B` in place for the compact `n × nrhs` matrix `b` from the lower factor `l`:
/// `L·Y = B`, then `Lᴴ·X = Y` (as `Lᵀ·conj(X) = conj(Y)`).
pub(crate) fn potrs<T: Scalar>(n: usize, l: &[T], b: &mut [T], nrhs: usize) {
    if n == 0 || nrhs == 0 {
        return;
    }
    let f = view(n, n, l);
    par_columns(view_mut(n, nrhs, b), 2 * n * n, |mut x| {
        trsm_left(true, false, f, x.view_mut());
        x.mapv_inplace(|v| v.conj());
        trsm_left(false, false, f.t(), x.view_mut());
        x.mapv_inplace(|v| v.conj());
    });
}

/// `L ← L⁻¹` in place on the lower triangle of the compact `n × n` matrix `a` (non-unit, all
/// diagonal entries non-zero), by columns from the right.
pub(crate) fn trtri_lower<T: Scalar>(n: usize, a: &mut [T]) {
    for j in (0..n).rev() {
        let (head, done) = a.split_at_mut((j + 1) * n);
        let col = &mut head[j * n..];
        col[j] = T::one() / col[j];
        let ajj = -col[j];
        // x ← T·x with T = (L⁻¹)[j+1.., j+1..] lower, x = col[j+1..], by columns k decreasing.
        for k in (j + 1..n).rev() {
            let xk = col[k];
            let tk = &done[(k - j - 1) * n..(k - j) * n];
            col[k] = tk[k] * xk;
            if xk != T::zero() {
                for (xi, &t) in col[k + 1..].iter_mut().zip(&tk[k + 1..]) {
                    *xi += t * xk;
                }
            }
        }
        for v in &mut col[j + 1..] {
            *v *= ajj;
        }
    }
}

/// `A⁻¹ = Mᴴ·M` with `M = L⁻¹` (LAPACK `lauum`), in place on the lower triangle: entry
/// `(i, j)`, `i ≥ j`, is `Σ_{k ≥ i} conj(M(k, i))·M(k, j)`; columns in increasing order, the
/// entries of one column computed (in parallel when long) before any is stored.
fn lauum_lower<T: Scalar>(n: usize, a: &mut [T]) {
    let mut tmp: Vec<T> = Vec::with_capacity(n);
    for j in 0..n {
        let entry = |i: usize| {
            let ci = &a[i * n + i..i * n + n];
            let cj = &a[j * n + i..j * n + n];
            ci.iter().zip(cj).map(|(&x, &y)| x.conj() * y).sum::<T>()
        };
        tmp.clear();
        if (n - j) * (n - j) < 1 << 16 {
            tmp.extend((j..n).map(entry));
        } else {
            (j..n).into_par_iter().map(entry).collect_into_vec(&mut tmp);
        }
        a[j * n + j..j * n + n].copy_from_slice(&tmp);
    }
}

/// `A⁻¹` in place (both triangles, exactly Hermitian) from the lower factor of [`potrf`].
pub(crate) fn potri<T: Scalar>(n: usize, a: &mut [T]) {
    trtri_lower(n, a);
    lauum_lower(n, a);
    for j in 0..n {
        a[j * n + j] = T::from_real(a[j * n + j].re());
        for i in j + 1..n {
            a[i * n + j] = a[j * n + i].conj();
        }
    }
}

/// Converts a compact upper factor `U` (upper triangle) into `L = Uᴴ` (lower triangle), or back
/// (`to_lower = false`); the diagonal is shared.
pub(crate) fn transpose_triangle<T: Scalar>(n: usize, a: &mut [T], to_lower: bool) {
    for j in 0..n {
        for i in j + 1..n {
            if to_lower {
                a[j * n + i] = a[i * n + j].conj();
            } else {
                a[i * n + j] = a[j * n + i].conj();
            }
        }
    }
}

/// Zeroes the strict triangle opposite the factor (`upper_zero`: the strict upper one).
pub(crate) fn zero_strict<T: Scalar>(n: usize, a: &mut [T], upper_zero: bool) {
    for j in 0..n {
        let r = if upper_zero { 0..j } else { j + 1..n };
        a[j * n..j * n + n][r].fill(T::zero());
    }
}
