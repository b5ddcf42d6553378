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
/// diagonal entries non-zero; the strict upper triangle is neither read nor written), blocked
/// by `NB` columns from the bottom right (LAPACK `trtri`, lower): `X ← T·X` with the inverted
/// trailing block `T` (block rows as matrix products), `X ← −X·D⁻¹` with the diagonal block
/// `D`, then `D ← D⁻¹` by substitution.
pub(crate) fn trtri_lower<T: Scalar>(n: usize, a: &mut [T]) {
    if n == 0 {
        return;
    }
    let mut j = (n - 1) / NB * NB;
    loop {
        let jb = NB.min(n - j);
        let st = j + jb;
        if st < n {
            let (left, right) = a.split_at_mut(st * n);
            // T = L⁻¹(st.., st..) in `right` (columns st..n), X = L(st.., j..st) in `left`.
            let t = view(n, n - st, right);
            let mut x = view_mut(n, jb, &mut left[j * n..]);
            // X ← T·X, block rows bottom-up (the rows above are still the old X).
            let mut ie = n;
            while ie > st {
                let ib = ie.saturating_sub(NB).max(st);
                for mut col in x.columns_mut() {
                    for r in (ib..ie).rev() {
                        let mut acc = T::zero();
                        for k in ib..=r {
                            acc += t[(r, k - st)] * col[k];
                        }
                        col[r] = acc;
                    }
                }
                if ib > st {
                    let (above, mut rest) = x.view_mut().split_at(Axis(0), ib);
                    gemm(
                        T::one(),
                        &t.slice(s![ib..ie, ..ib - st]),
                        &above.slice(s![st.., ..]).view(),
                        T::one(),
                        rest.slice_mut(s![..ie - ib, ..]),
                    );
                }
                ie = ib;
            }
            // X ← −X·D⁻¹, D = L(j..st, j..st) (not yet inverted), columns right to left.
            for c in (0..jb).rev() {
                let d = x[(j + c, c)];
                for k in c + 1..jb {
                    let dkc = x[(j + k, c)];
                    if dkc != T::zero() {
                        for r in st..n {
                            let y = x[(r, k)];
                            x[(r, c)] += y * dkc;
                        }
                    }
                }
                for r in st..n {
                    x[(r, c)] = -x[(r, c)] / d;
                }
            }
        }
        trtri_lower_diag(n, a, j, jb);
        if j == 0 {
            break;
        }
        j -= NB;
    }
}

/// Inverts the lower-triangular `m × m` diagonal block at `(off, off)` of the compact matrix `a`
/// (leading dimension `n`) in place, by columns from the right.
fn trtri_lower_diag<T: Scalar>(n: usize, a: &mut [T], off: usize, m: usize) {
    for j in (0..m).rev() {
        let (head, done) = a.split_at_mut((off + j + 1) * n);
        let col = &mut head[(off + j) * n + off..(off + j) * n + off + m];
        col[j] = T::one() / col[j];
        let ajj = -col[j];
        // x ← T·x with T = (L⁻¹)[j+1.., j+1..] of the block, x = col[j+1..], by columns k decreasing.
        for k in (j + 1..m).rev() {
            let xk = col[k];
            let tk = &done[(k - j - 1) * n + off..(k - j - 1) * n + off + m];
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

/// `A⁻¹ = Mᴴ·M` with `M = L⁻¹` (LAPACK `lauum`, lower), in place on the lower triangle
/// (`(i, j)`, `i ≥ j`, is `Σ_{k ≥ i} conj(M(k, i))·M(k, j)`), blocked by `NB` rows from the
/// top: block row `I` becomes `M(I, I)ᴴ·M(I, ..I) + M(>I, I)ᴴ·M(>I, ..I)` (a small triangular
/// product and a matrix product) and its diagonal block `M(I, I)ᴴ·M(I, I) + M(>I, I)ᴴ·M(>I, I)`.
/// Only later block rows read the rows below `I`, so ascending order works in place. The strict
/// upper triangle of the diagonal blocks is used as scratch.
fn lauum_lower<T: Scalar>(n: usize, a: &mut [T]) {
    let mut i = 0;
    while i < n {
        let ib = NB.min(n - i);
        let e = i + ib;
        let mut m = view_mut(n, n, a);
        // Diagonal block product D = M11ᴴ·M11 (lower), from the old M11.
        let mut d = Array2::<T>::zeros((ib, ib));
        for c in 0..ib {
            for r in c..ib {
                let mut acc = T::zero();
                for k in r..ib {
                    acc += m[(i + k, i + r)].conj() * m[(i + k, i + c)];
                }
                d[(r, c)] = acc;
            }
        }
        // Block row left of the diagonal: M(I, ..i) ← M11ᴴ·M(I, ..i), r ascending in place.
        for c in 0..i {
            for r in 0..ib {
                let mut acc = T::zero();
                for k in r..ib {
                    acc += m[(i + k, i + r)].conj() * m[(i + k, c)];
                }
                m[(i + r, c)] = acc;
            }
        }
        if e < n {
            let (top, bottom) = m.view_mut().split_at(Axis(0), e);
            // Bᴴ with B = M(>I, I).
            let bh = bottom.slice(s![.., i..e]).t().mapv(|v| v.conj());
            let mut top = top;
            if i > 0 {
                gemm(
                    T::one(),
                    &bh.view(),
                    &bottom.slice(s![.., ..i]),
                    T::one(),
                    top.slice_mut(s![i.., ..i]),
                );
            }
            gemm(
                T::one(),
                &bh.view(),
                &bottom.slice(s![.., i..e]),
                T::one(),
                d.view_mut(),
            );
        }
        for c in 0..ib {
            for r in c..ib {
                m[(i + r, i + c)] = d[(r, c)];
            }
        }
        i = e;
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
