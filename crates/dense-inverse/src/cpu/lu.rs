//! LU with partial pivoting on the host: `getrf` (blocked right-looking), `getrs` (N/T/C) and
//! `getri` (in place on the factors), LAPACK pivots and `info`.

use super::blocks::{conj_all, gemm, laswp, par_columns, trsm_left, view, view_mut, NB};
use gpu_blas::blas2::Trans;
use gpu_blas::Scalar;
use ndarray::{s, Axis};

/// In-place `A = P·L·U` of the compact `n × n` matrix `a` (LAPACK `getrf`): `L` unit lower
/// below the diagonal, `U` upper on and above it, `ipiv[j]` the 1-based row interchanged with
/// row `j + 1` at step `j` (largest `|re| + |im|`, first on ties). Returns `info`: 0, or the
/// 1-based index of the first exactly-zero `U(j, j)`; the factorization always completes.
///
/// Blocked right-looking: an `NB`-column panel is factored by columns, its interchanges applied
/// to the other columns, then `A12 ← L11⁻¹·A12` and `A22 ← A22 − A21·A12` (matrix product).
pub(crate) fn getrf<T: Scalar>(n: usize, a: &mut [T], ipiv: &mut [i32]) -> i32 {
    let mut info = 0;
    let mut k = 0;
    while k < n {
        let kb = NB.min(n - k);
        panel(n, a, k, kb, ipiv, &mut info);
        laswp(n, a, ipiv, k, k + kb, false, |j| j < k || j >= k + kb);
        if k + kb < n {
            let mut m = view_mut(n, n, a);
            let (left, right) = m.view_mut().split_at(Axis(1), k + kb);
            let (top, bot) = right.split_at(Axis(0), k + kb);
            let mut a12 = top.slice_move(s![k.., ..]);
            trsm_left(true, true, left.slice(s![k..k + kb, k..]), a12.view_mut());
            gemm(
                -T::one(),
                &left.slice(s![k + kb.., k..]),
                &a12.view(),
                T::one(),
                bot,
            );
        }
        k += kb;
    }
    info
}

/// Unblocked right-looking LU of the panel `a[k.., k..k + kb]`; interchanges swap rows within
/// the panel columns only.
fn panel<T: Scalar>(n: usize, a: &mut [T], k: usize, kb: usize, ipiv: &mut [i32], info: &mut i32) {
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
        ipiv[j] = (p + 1) as i32;
        if a[j * n + p] != T::zero() {
            if p != j {
                for c in k..k + kb {
                    a.swap(c * n + j, c * n + p);
                }
            }
            let piv = a[j * n + j];
            for v in &mut a[j * n + j + 1..j * n + n] {
                *v /= piv;
            }
        } else if *info == 0 {
            *info = (j + 1) as i32;
        }
        let (left, right) = a.split_at_mut((j + 1) * n);
        let l = &left[j * n + j + 1..j * n + n];
        for c in 0..k + kb - j - 1 {
            let col = &mut right[c * n..c * n + n];
            let u = col[j];
            if u != T::zero() {
                for (x, &li) in col[j + 1..].iter_mut().zip(l) {
                    *x -= li * u;
                }
            }
        }
    }
}

/// Solves `op(A)·X = B` in place for the compact `n × nrhs` matrix `b`, from the factors of
/// [`getrf`] (LAPACK `getrs`). Pivots must lie in `1..=n`.
pub(crate) fn getrs<T: Scalar>(
    trans: Trans,
    n: usize,
    lu: &[T],
    ipiv: &[i32],
    b: &mut [T],
    nrhs: usize,
) {
    if n == 0 || nrhs == 0 {
        return;
    }
    if trans == Trans::C {
        conj_all(b);
        getrs(Trans::T, n, lu, ipiv, b, nrhs);
        conj_all(b);
        return;
    }
    if trans == Trans::N {
        laswp(n, b, ipiv, 0, n, false, |_| true);
    }
    let f = view(n, n, lu);
    par_columns(view_mut(n, nrhs, b), 2 * n * n, |mut x| {
        if trans == Trans::N {
            trsm_left(true, true, f, x.view_mut());
            trsm_left(false, false, f, x);
        } else {
            // Aᵀ = Uᵀ·Lᵀ·Pᵀ: Uᵀ is lower, Lᵀ unit upper.
            trsm_left(true, false, f.t(), x.view_mut());
            trsm_left(false, true, f.t(), x);
        }
    });
    if trans != Trans::N {
        laswp(n, b, ipiv, 0, n, true, |_| true);
    }
}

/// `U ← U⁻¹` in place for the upper triangle of the column-major `n × n` matrix `a`
/// (LAPACK `trtri`, upper, non-unit; the strict lower part is neither read nor written),
/// blocked by `NB` columns: `X ← T·X` with the inverted leading block (block rows as matrix
/// products), `X ← −X·D⁻¹` with the next diagonal block `D`, then `D ← D⁻¹` by substitution.
pub(crate) fn trtri_upper<T: Scalar>(n: usize, a: &mut [T]) {
    let mut j = 0;
    while j < n {
        let jb = NB.min(n - j);
        if j > 0 {
            let (left, right) = a.split_at_mut(j * n);
            let t = view(n, j, left);
            let mut x = view_mut(n, jb, right);
            // X(0..j, :) ← T·X, block rows top-down (the rows below are still the old X).
            let mut ib = 0;
            while ib < j {
                let ie = (ib + NB).min(j);
                for mut col in x.columns_mut() {
                    for r in ib..ie {
                        let mut acc = T::zero();
                        for k in r..ie {
                            acc += t[(r, k)] * col[k];
                        }
                        col[r] = acc;
                    }
                }
                if ie < j {
                    let (top, below) = x.view_mut().split_at(Axis(0), ie);
                    gemm(
                        T::one(),
                        &t.slice(s![ib..ie, ie..j]),
                        &below.slice(s![..j - ie, ..]).view(),
                        T::one(),
                        top.slice_move(s![ib.., ..]),
                    );
                }
                ib = ie;
            }
            // X ← −X·D⁻¹, D = U(j..j+jb, j..j+jb) (not yet inverted), column by column.
            for c in 0..jb {
                let d = x[(j + c, c)];
                for k in 0..c {
                    let dkc = x[(j + k, c)];
                    if dkc != T::zero() {
                        for r in 0..j {
                            let y = x[(r, k)];
                            x[(r, c)] += y * dkc;
                        }
                    }
                }
                for r in 0..j {
                    x[(r, c)] = -x[(r, c)] / d;
                }
            }
        }
        trtri_diag_block(n, a, j, jb);
        j += jb;
    }
}

/// Inverts the upper-triangular `m × m` diagonal block at `(off, off)` of the column-major
/// matrix `a` (leading dimension `n`) in place, column by column.
fn trtri_diag_block<T: Scalar>(n: usize, a: &mut [T], off: usize, m: usize) {
    for j in 0..m {
        let (done, rest) = a.split_at_mut((off + j) * n);
        let col = &mut rest[off..off + m];
        col[j] = T::one() / col[j];
        let ajj = -col[j];
        // x ← T·x with T = (U⁻¹)[..j, ..j] upper, x = col[..j], in place by columns k.
        for k in 0..j {
            let xk = col[k];
            if xk != T::zero() {
                let tk = &done[(off + k) * n + off..(off + k) * n + off + k];
                for (xi, &t) in col[..k].iter_mut().zip(tk) {
                    *xi += t * xk;
                }
            }
            col[k] = done[(off + k) * n + off + k] * xk;
        }
        for v in &mut col[..j] {
            *v *= ajj;
        }
    }
}

/// `A⁻¹` in place from the factors of [`getrf`] (LAPACK `getri`), all `U(j, j)` non-zero:
/// `U ← U⁻¹`, then `X·L = U⁻¹` is solved for `X` by `NB`-column blocks from the right (one
/// matrix product per block, with an `n × NB` copy of the block of `L`), then the columns are
/// interchanged back: `A⁻¹ = X·P`.
pub(crate) fn getri<T: Scalar>(n: usize, a: &mut [T], ipiv: &[i32]) {
    if n == 0 {
        return;
    }
    trtri_upper(n, a);
    let mut work = vec![T::zero(); n * NB];
    let nblocks = n.div_ceil(NB);
    for blk in (0..nblocks).rev() {
        let j = blk * NB;
        let jb = NB.min(n - j);
        // Move the block of L (below the diagonal) to work, zero it in a.
        for jj in 0..jb {
            let c = j + jj;
            for i in c + 1..n {
                work[jj * n + i] = a[c * n + i];
                a[c * n + i] = T::zero();
            }
        }
        let w = view(n, jb, &work);
        let mut m = view_mut(n, n, a);
        let (left, right) = m.view_mut().split_at(Axis(1), j + jb);
        let mut cur = left.slice_move(s![.., j..]);
        if j + jb < n {
            gemm(
                -T::one(),
                &right.view(),
                &w.slice(s![j + jb.., ..]),
                T::one(),
                cur.view_mut(),
            );
        }
        // cur ← cur·L11⁻¹ with L11 = w[j..j + jb, ..] unit lower, columns from the right.
        for c in (0..jb).rev() {
            for r in c + 1..jb {
                let l = w[[j + r, c]];
                if l != T::zero() {
                    let (mut cc, cr) = cur.multi_slice_mut((s![.., c], s![.., r]));
                    cc.scaled_add(-l, &cr);
                }
            }
        }
    }
    // A⁻¹ = X·P: interchange columns in reverse order.
    for j in (0..n.saturating_sub(1)).rev() {
        let p = ipiv[j] as usize - 1;
        if p != j {
            for i in 0..n {
                a.swap(j * n + i, p * n + i);
            }
        }
    }
}
