//! Block kernels shared by the factorizations: the matrix product (parallel over column
//! chunks), the blocked triangular solve and column-major views of host slices.

use gpu_blas::Scalar;
use ndarray::linalg::general_mat_mul;
use ndarray::{s, ArrayView2, ArrayViewMut2, Axis, ShapeBuilder};
use rayon::prelude::*;

/// Block size of the blocked algorithms (panel width).
pub(crate) const NB: usize = 64;

/// Multiply-adds above which a product is spread over rayon threads.
const PAR_WORK: usize = 1 << 20;

/// The compact column-major `rows × cols` host matrix `h` as an ndarray view.
pub(crate) fn view<T>(rows: usize, cols: usize, h: &[T]) -> ArrayView2<'_, T> {
    ArrayView2::from_shape((rows, cols).f(), &h[..rows * cols])
        .expect("a compact column-major shape always fits its slice")
}

/// The compact column-major `rows × cols` host matrix `h` as a mutable ndarray view.
pub(crate) fn view_mut<T>(rows: usize, cols: usize, h: &mut [T]) -> ArrayViewMut2<'_, T> {
    ArrayViewMut2::from_shape((rows, cols).f(), &mut h[..rows * cols])
        .expect("a compact column-major shape always fits its slice")
}

/// Width of the column chunks a parallel loop over `cols` columns uses.
fn chunk_width(cols: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    cols.div_ceil(2 * threads).max(NB / 2)
}

/// `C ← α·A·B + β·C` through ndarray's matrix product, split over column chunks of `C` on rayon
/// threads when the product is large.
pub(crate) fn gemm<T: Scalar>(
    alpha: T,
    a: &ArrayView2<'_, T>,
    b: &ArrayView2<'_, T>,
    beta: T,
    mut c: ArrayViewMut2<'_, T>,
) {
    let (m, k) = a.dim();
    let n = c.ncols();
    if m == 0 || n == 0 {
        return;
    }
    if m * n * k < PAR_WORK || n < NB {
        general_mat_mul(alpha, a, b, beta, &mut c);
        return;
    }
    let w = chunk_width(n);
    let chunks: Vec<_> = c.axis_chunks_iter_mut(Axis(1), w).enumerate().collect();
    chunks.into_par_iter().for_each(|(i, mut cc)| {
        let bb = b.slice(s![.., i * w..i * w + cc.ncols()]);
        general_mat_mul(alpha, a, &bb, beta, &mut cc);
    });
}

/// Runs `f` on column chunks of `b` (in parallel when `work` multiply-adds per column times the
/// column count is large), else on the whole of `b`.
pub(crate) fn par_columns<T: Scalar>(
    mut b: ArrayViewMut2<'_, T>,
    work_per_col: usize,
    f: impl Fn(ArrayViewMut2<'_, T>) + Sync,
) {
    let n = b.ncols();
    if n < NB || work_per_col.saturating_mul(n) < PAR_WORK {
        f(b);
        return;
    }
    let chunks: Vec<_> = b.axis_chunks_iter_mut(Axis(1), chunk_width(n)).collect();
    chunks.into_par_iter().for_each(&f);
}

/// Solves `T·X = B` in place (`B ← T⁻¹·B`) for a triangular `T` (`lower` or upper, `unit`
/// diagonal or not), blocked: `NB × NB` diagonal blocks by substitution, the rest of `B` updated
/// with matrix products. `t` may be any view (a transpose included).
pub(crate) fn trsm_left<T: Scalar>(
    lower: bool,
    unit: bool,
    t: ArrayView2<'_, T>,
    mut b: ArrayViewMut2<'_, T>,
) {
    let n = t.nrows();
    if n == 0 || b.ncols() == 0 {
        return;
    }
    if lower {
        let mut k = 0;
        while k < n {
            let e = (k + NB).min(n);
            trsm_small(
                true,
                unit,
                &t.slice(s![k..e, k..e]),
                b.slice_mut(s![k..e, ..]),
            );
            if e < n {
                let (top, bot) = b.view_mut().split_at(Axis(0), e);
                gemm(
                    -T::one(),
                    &t.slice(s![e.., k..e]),
                    &top.slice(s![k.., ..]),
                    T::one(),
                    bot,
                );
            }
            k = e;
        }
    } else {
        let mut e = n;
        while e > 0 {
            let k = e.saturating_sub(NB);
            trsm_small(
                false,
                unit,
                &t.slice(s![k..e, k..e]),
                b.slice_mut(s![k..e, ..]),
            );
            if k > 0 {
                let (top, bot) = b.view_mut().split_at(Axis(0), k);
                gemm(
                    -T::one(),
                    &t.slice(s![..k, k..e]),
                    &bot.slice(s![..e - k, ..]),
                    T::one(),
                    top,
                );
            }
            e = k;
        }
    }
}

/// Substitution with a small triangular block, column by column of `b`.
fn trsm_small<T: Scalar>(lower: bool, unit: bool, t: &ArrayView2<'_, T>, b: ArrayViewMut2<'_, T>) {
    let n = t.nrows();
    let solve = |mut b: ArrayViewMut2<'_, T>| {
        for mut x in b.axis_iter_mut(Axis(1)) {
            if lower {
                for i in 0..n {
                    if !unit {
                        x[i] /= t[[i, i]];
                    }
                    let xi = x[i];
                    if xi != T::zero() {
                        for r in i + 1..n {
                            x[r] -= t[[r, i]] * xi;
                        }
                    }
                }
            } else {
                for i in (0..n).rev() {
                    if !unit {
                        x[i] /= t[[i, i]];
                    }
                    let xi = x[i];
                    if xi != T::zero() {
                        for r in 0..i {
                            x[r] -= t[[r, i]] * xi;
                        }
                    }
                }
            }
        }
    };
    par_columns(b, n * n, solve);
}

/// Conjugates every element (a no-op for real types).
pub(crate) fn conj_all<T: Scalar>(h: &mut [T]) {
    if T::IS_COMPLEX {
        h.iter_mut().for_each(|v| *v = v.conj());
    }
}

/// Applies the row interchanges `ipiv[k0..k1]` (1-based, LAPACK order: row `k + 1` with row
/// `ipiv[k]`, for `k` increasing, or decreasing when `reverse`) to every column of the compact
/// `n`-row matrix `h` for which `cols(j)` holds.
pub(crate) fn laswp<T: Scalar>(
    n: usize,
    h: &mut [T],
    ipiv: &[i32],
    k0: usize,
    k1: usize,
    reverse: bool,
    cols: impl Fn(usize) -> bool + Sync,
) {
    if n == 0 {
        return;
    }
    let apply = |(j, c): (usize, &mut [T])| {
        if !cols(j) {
            return;
        }
        let swap = |c: &mut [T], k: usize| {
            let p = ipiv[k] as usize - 1;
            if p != k {
                c.swap(k, p);
            }
        };
        if reverse {
            (k0..k1).rev().for_each(|k| swap(c, k));
        } else {
            (k0..k1).for_each(|k| swap(c, k));
        }
    };
    if h.len() / n * (k1 - k0) < PAR_WORK / 16 {
        h.chunks_mut(n).enumerate().for_each(apply);
    } else {
        h.par_chunks_mut(n).enumerate().for_each(apply);
    }
}
