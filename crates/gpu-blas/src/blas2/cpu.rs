//! Level 2 on the host: plain loops over column-major data, split over rayon threads by rows or
//! columns when the work is large. Every output element is summed in one fixed order whatever
//! the split, so results do not depend on the thread count.

use super::{Diag, Trans, Uplo};
use crate::buffer::Storage;
use crate::scalar::Scalar;
use crate::view::{phys, MatMut, MatRef, VecMut, VecRef};
use rayon::prelude::*;
use std::ops::Range;

/// Work (matrix elements touched) per rayon task; below `PAR_MIN` everything runs on the
/// calling thread.
const CHUNK: usize = 1 << 14;
const PAR_MIN: usize = 1 << 16;
/// Block size of the triangular solve: the diagonal blocks are solved sequentially, the
/// off-diagonal updates between them run in parallel.
const NB: usize = 128;

/// A column-major host matrix: element `(i, j)` at `s[off + i + j·ld]`.
#[derive(Clone, Copy)]
struct Host<'a, T> {
    s: &'a [T],
    off: usize,
    ld: usize,
}

impl<'a, T: Scalar> Host<'a, T> {
    fn new(a: &MatRef<'a, T>) -> Self {
        Host {
            s: a.buf.host().expect("CPU view holds host storage"),
            off: a.offset,
            ld: a.ld,
        }
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> T {
        self.s[self.off + i + j * self.ld]
    }

    /// Rows `rows` of column `j`.
    #[inline]
    fn col(&self, j: usize, rows: Range<usize>) -> &'a [T] {
        let base = self.off + j * self.ld;
        &self.s[base + rows.start..base + rows.end]
    }
}

/// The logical elements of a strided vector, contiguous.
fn gather<T: Scalar>(v: &VecRef<'_, T>) -> Vec<T> {
    let s = v.buf.host().expect("CPU view holds host storage");
    (0..v.len)
        .map(|i| s[phys(v.offset, v.len, v.inc, i)])
        .collect()
}

/// `v_i ← f(i, v_i)` for every logical element of a strided vector.
fn update<T: Scalar>(v: &mut VecMut<'_, T>, f: impl Fn(usize, T) -> T) {
    let (off, n, inc) = (v.offset, v.len, v.inc);
    let s = match v.buf.storage_mut() {
        Storage::Host(h) => h,
        Storage::Cuda(_) => unreachable!("CPU view holds host storage"),
    };
    for i in 0..n {
        let p = phys(off, n, inc, i);
        s[p] = f(i, s[p]);
    }
}

/// The columns of a mutable view as host slices: item `j` holds rows `0..rows` of column `j`
/// followed, except for the last column, by the padding rows up to `ld` (never to be written).
fn columns_mut<'b, T: Scalar>(a: &'b mut MatMut<'_, T>) -> Option<(&'b mut [T], usize)> {
    let (off, rows, cols, ld) = (a.offset, a.rows, a.cols, a.ld);
    if rows == 0 || cols == 0 {
        return None;
    }
    let s = match a.buf.storage_mut() {
        Storage::Host(h) => h,
        Storage::Cuda(_) => unreachable!("CPU view holds host storage"),
    };
    Some((&mut s[off..off + (cols - 1) * ld + rows], ld))
}

/// `out[k] = Σ_j a(r0 + k, j)·x[j]` over the columns `cols`, where column `j` contributes only
/// its rows in `rows_of(j)`. Parallel over blocks of rows; each element sums `j` in order.
fn mv_n<T: Scalar>(
    a: Host<'_, T>,
    r0: usize,
    cols: Range<usize>,
    rows_of: impl Fn(usize) -> Range<usize> + Sync,
    x: &[T],
    out: &mut [T],
) {
    let run = |start: usize, o: &mut [T]| {
        let end = start + o.len();
        o.fill(T::zero());
        for j in cols.clone() {
            let r = rows_of(j);
            let (lo, hi) = (r.start.max(start), r.end.min(end));
            if lo >= hi {
                continue;
            }
            let xj = x[j];
            for (o, &aij) in o[lo - start..hi - start].iter_mut().zip(a.col(j, lo..hi)) {
                *o += aij * xj;
            }
        }
    };
    if out.len().saturating_mul(cols.len()) < PAR_MIN {
        run(r0, out);
    } else {
        let rb = (CHUNK / cols.len().max(1)).max(64);
        out.par_chunks_mut(rb)
            .enumerate()
            .for_each(|(c, o)| run(r0 + c * rb, o));
    }
}

/// `out[k] = Σ_{i ∈ rows_of(c0 + k)} op(a(i, c0 + k))·x[i]`, `op` conjugating when `conj`.
/// Parallel over columns when `work` (the elements read) is large.
fn mv_t<T: Scalar>(
    a: Host<'_, T>,
    c0: usize,
    rows_of: impl Fn(usize) -> Range<usize> + Sync,
    conj: bool,
    x: &[T],
    out: &mut [T],
    work: usize,
) {
    let dot = |j: usize| {
        let r = rows_of(j);
        if r.start >= r.end {
            return T::zero();
        }
        let col = a.col(j, r.clone());
        let xs = &x[r];
        let mut s = T::zero();
        if conj {
            for (&aij, &xi) in col.iter().zip(xs) {
                s += aij.conj() * xi;
            }
        } else {
            for (&aij, &xi) in col.iter().zip(xs) {
                s += aij * xi;
            }
        }
        s
    };
    if work < PAR_MIN {
        out.iter_mut()
            .enumerate()
            .for_each(|(k, o)| *o = dot(c0 + k));
    } else {
        let per_col = (work / out.len().max(1)).max(1);
        out.par_iter_mut()
            .with_min_len((CHUNK / per_col).max(1))
            .enumerate()
            .for_each(|(k, o)| *o = dot(c0 + k));
    }
}

/// `y ← α·t + β·y` (`t = None`: the product is zero or not formed); with `β = 0` `y` is not
/// read, with `β = 1` it is not scaled.
fn finish<T: Scalar>(alpha: T, t: Option<&[T]>, beta: T, mut y: VecMut<'_, T>) {
    let (zero, one) = (T::zero(), T::one());
    match t {
        Some(t) => update(&mut y, |i, old| {
            let p = alpha * t[i];
            if beta == zero {
                p
            } else if beta == one {
                p + old
            } else {
                p + beta * old
            }
        }),
        None if beta == one => {}
        None => update(
            &mut y,
            |_, old| if beta == zero { zero } else { beta * old },
        ),
    }
}

pub(crate) fn gemv<T: Scalar>(
    trans: Trans,
    alpha: T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: T,
    y: VecMut<'_, T>,
) {
    let (m, n) = if trans == Trans::N {
        (a.rows, a.cols)
    } else {
        (a.cols, a.rows)
    };
    if m == 0 {
        return;
    }
    if n == 0 || alpha == T::zero() {
        finish(alpha, None, beta, y);
        return;
    }
    let h = Host::new(&a);
    let xs = gather(&x);
    let mut t = vec![T::zero(); m];
    match trans {
        Trans::N => mv_n(h, 0, 0..n, |_| 0..m, &xs, &mut t),
        Trans::T | Trans::C => mv_t(h, 0, |_| 0..n, trans == Trans::C, &xs, &mut t, m * n),
    }
    finish(alpha, Some(&t), beta, y);
}

pub(crate) fn ger<T: Scalar>(
    conj: bool,
    alpha: T,
    x: VecRef<'_, T>,
    y: VecRef<'_, T>,
    mut a: MatMut<'_, T>,
) {
    let (m, n) = (a.rows, a.cols);
    if alpha == T::zero() {
        return;
    }
    let Some((s, ld)) = columns_mut(&mut a) else {
        return;
    };
    let (xs, ys) = (gather(&x), gather(&y));
    let col = |j: usize, c: &mut [T]| {
        let yj = if conj { ys[j].conj() } else { ys[j] };
        let t = alpha * yj;
        for (aij, &xi) in c[..m].iter_mut().zip(&xs) {
            *aij += xi * t;
        }
    };
    if m * n < PAR_MIN {
        s.chunks_mut(ld).enumerate().for_each(|(j, c)| col(j, c));
    } else {
        s.par_chunks_mut(ld)
            .with_min_len((CHUNK / m).max(1))
            .enumerate()
            .for_each(|(j, c)| col(j, c));
    }
}

/// Rows of column `j` in the strict `uplo` triangle of an `n × n` matrix.
fn strict(uplo: Uplo, n: usize) -> impl Fn(usize) -> Range<usize> + Sync + Copy {
    move |j| match uplo {
        Uplo::Upper => 0..j,
        Uplo::Lower => j + 1..n,
    }
}

pub(crate) fn symv<T: Scalar>(
    herm: bool,
    uplo: Uplo,
    alpha: T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: T,
    y: VecMut<'_, T>,
) {
    let n = a.rows;
    if n == 0 {
        return;
    }
    if alpha == T::zero() {
        finish(alpha, None, beta, y);
        return;
    }
    let h = Host::new(&a);
    let xs = gather(&x);
    let tri = strict(uplo, n);
    // A = D + S + op(S)ᵀ with S the stored strict triangle: A·x = D·x + S·x + op(S)ᵀ·x.
    let mut t = vec![T::zero(); n];
    mv_n(h, 0, 0..n, tri, &xs, &mut t);
    let mut u = vec![T::zero(); n];
    mv_t(h, 0, tri, herm, &xs, &mut u, n * n / 2);
    for (j, (tj, uj)) in t.iter_mut().zip(&u).enumerate() {
        let d = h.at(j, j);
        let d = if herm { T::from_real(d.re()) } else { d };
        *tj = d * xs[j] + (*tj + *uj);
    }
    finish(alpha, Some(&t), beta, y);
}

pub(crate) fn syr<T: Scalar>(
    herm: bool,
    uplo: Uplo,
    alpha: T,
    x: VecRef<'_, T>,
    mut a: MatMut<'_, T>,
) {
    let n = a.rows;
    let conj_real = herm && T::IS_COMPLEX;
    let add = alpha != T::zero();
    if !add && !conj_real {
        return;
    }
    let Some((s, ld)) = columns_mut(&mut a) else {
        return;
    };
    let xs = gather(&x);
    let col = |j: usize, c: &mut [T]| {
        let xj = if herm { xs[j].conj() } else { xs[j] };
        let t = alpha * xj;
        let rows = match uplo {
            Uplo::Upper => 0..j + 1,
            Uplo::Lower => j..n,
        };
        if add {
            for (i, aij) in rows.clone().zip(&mut c[rows]) {
                *aij += xs[i] * t;
            }
        }
        if conj_real {
            // Aᴴ = A: the diagonal is real whatever it held before.
            let d = &mut c[j];
            *d = T::from_real(d.re());
        }
    };
    if n * n / 2 < PAR_MIN {
        s.chunks_mut(ld).enumerate().for_each(|(j, c)| col(j, c));
    } else {
        s.par_chunks_mut(ld)
            .with_min_len((2 * CHUNK / n).max(1))
            .enumerate()
            .for_each(|(j, c)| col(j, c));
    }
}

pub(crate) fn trsv<T: Scalar>(
    uplo: Uplo,
    trans: Trans,
    diag: Diag,
    a: MatRef<'_, T>,
    mut x: VecMut<'_, T>,
) {
    let n = a.rows;
    if n == 0 {
        return;
    }
    let h = Host::new(&a);
    let mut xs = gather(&x.as_ref());
    let unit = diag == Diag::Unit;
    let conj = trans == Trans::C;
    let op = |v: T| if conj { v.conj() } else { v };
    // Blocks of NB indices: the diagonal block is solved sequentially, the rest of the vector
    // is updated with the block's contribution by a parallel matrix–vector product.
    let blocks: Vec<Range<usize>> = (0..n.div_ceil(NB))
        .map(|b| b * NB..((b + 1) * NB).min(n))
        .collect();
    let forward = matches!(
        (uplo, trans),
        (Uplo::Lower, Trans::N) | (Uplo::Upper, Trans::T | Trans::C)
    );
    let order: Vec<Range<usize>> = if forward {
        blocks
    } else {
        blocks.into_iter().rev().collect()
    };
    for blk in order {
        let (b0, b1) = (blk.start, blk.end);
        match (uplo, trans) {
            (Uplo::Upper, Trans::N) => {
                // Backward, by columns: x_j ← x_j / a_jj, then x_{i<j} −= x_j·a_ij.
                for j in (b0..b1).rev() {
                    if !unit {
                        xs[j] /= h.at(j, j);
                    }
                    let xj = xs[j];
                    for (xi, &aij) in xs[b0..j].iter_mut().zip(h.col(j, b0..j)) {
                        *xi -= aij * xj;
                    }
                }
                if b0 > 0 {
                    let mut t = vec![T::zero(); b0];
                    mv_n(h, 0, b0..b1, |_| 0..b0, &xs, &mut t);
                    xs[..b0].iter_mut().zip(&t).for_each(|(xi, ti)| *xi -= *ti);
                }
            }
            (Uplo::Lower, Trans::N) => {
                // Forward, by columns: x_j ← x_j / a_jj, then x_{i>j} −= x_j·a_ij.
                for j in b0..b1 {
                    if !unit {
                        xs[j] /= h.at(j, j);
                    }
                    let xj = xs[j];
                    for (xi, &aij) in xs[j + 1..b1].iter_mut().zip(h.col(j, j + 1..b1)) {
                        *xi -= aij * xj;
                    }
                }
                if b1 < n {
                    let mut t = vec![T::zero(); n - b1];
                    mv_n(h, b1, b0..b1, |_| b1..n, &xs, &mut t);
                    xs[b1..].iter_mut().zip(&t).for_each(|(xi, ti)| *xi -= *ti);
                }
            }
            (Uplo::Upper, _) => {
                // op(A) lower: forward, by dot products with the columns of A.
                if b0 > 0 {
                    let mut t = vec![T::zero(); b1 - b0];
                    mv_t(h, b0, |_| 0..b0, conj, &xs, &mut t, b0 * (b1 - b0));
                    xs[b0..b1]
                        .iter_mut()
                        .zip(&t)
                        .for_each(|(xi, ti)| *xi -= *ti);
                }
                for j in b0..b1 {
                    let mut s = xs[j];
                    for (&aij, &xi) in h.col(j, b0..j).iter().zip(&xs[b0..j]) {
                        s -= op(aij) * xi;
                    }
                    if !unit {
                        s /= op(h.at(j, j));
                    }
                    xs[j] = s;
                }
            }
            (Uplo::Lower, _) => {
                // op(A) upper: backward, by dot products with the columns of A.
                if b1 < n {
                    let mut t = vec![T::zero(); b1 - b0];
                    mv_t(h, b0, |_| b1..n, conj, &xs, &mut t, (n - b1) * (b1 - b0));
                    xs[b0..b1]
                        .iter_mut()
                        .zip(&t)
                        .for_each(|(xi, ti)| *xi -= *ti);
                }
                for j in (b0..b1).rev() {
                    let mut s = xs[j];
                    for (&aij, &xi) in h.col(j, j + 1..b1).iter().zip(&xs[j + 1..b1]) {
                        s -= op(aij) * xi;
                    }
                    if !unit {
                        s /= op(h.at(j, j));
                    }
                    xs[j] = s;
                }
            }
        }
    }
    update(&mut x, |i, _| xs[i]);
}
