//! The per-matrix host kernels: one column-major `n × n` matrix (leading dimension `n`) at a
//! time. The batched drivers run them over the batch with rayon; every matrix is factored in
//! one fixed order of operations, so results do not depend on the thread count.

use gpu_blas::blas2::Trans;
use gpu_blas::Scalar;
use num_traits::Float;

/// Panel width of the blocked factorization.
const NB: usize = 32;

/// In-place LU with partial pivoting (LAPACK `getrf` order of pivot choices):
/// `A = P·L·U`, `L` unit lower (stored below the diagonal), `U` upper.
///
/// `ipiv[j]` gets the 1-based row swapped with row `j + 1` at step `j`. Returns `0` or the
/// 1-based index of the first exactly-zero `U(j, j)`; the factorization always completes.
/// Orders up to `2·NB` are factored column by column ([`getf2`]); larger ones are blocked
/// right-looking: a panel of `NB` columns by [`getf2`], its interchanges applied to the rest
/// of the rows, `U12 = L11⁻¹·A12`, then the rank-`NB` update `A22 −= L21·U12`.
pub(crate) fn getrf_one<T: Scalar>(n: usize, a: &mut [T], ipiv: &mut [i32]) -> i32 {
    if n <= 2 * NB {
        return getf2(n, n, a, n, ipiv);
    }
    let mut info = 0i32;
    for j0 in (0..n).step_by(NB) {
        let w = NB.min(n - j0);
        let pinfo = getf2(n - j0, w, &mut a[j0 + j0 * n..], n, &mut ipiv[j0..j0 + w]);
        if info == 0 && pinfo > 0 {
            info = pinfo + j0 as i32;
        }
        for p in &mut ipiv[j0..j0 + w] {
            *p += j0 as i32;
        }
        // The panel's interchanges on the columns left and right of it.
        for (jj, &p) in (j0..).zip(&ipiv[j0..j0 + w]) {
            let p = p as usize - 1;
            if p != jj {
                for c in (0..j0).chain(j0 + w..n) {
                    a.swap(jj + c * n, p + c * n);
                }
            }
        }
        let (left, right) = a.split_at_mut((j0 + w) * n);
        let panel = &left[j0 * n..];
        // U12 ← L11⁻¹·A12 and A22 ← A22 − L21·U12, column by column of the trailing part.
        for col in right.chunks_exact_mut(n) {
            for k in 0..w {
                let u = col[j0 + k];
                if u != T::zero() {
                    let lk = &panel[k * n..k * n + n];
                    for (c, &l) in col[j0 + k + 1..].iter_mut().zip(&lk[j0 + k + 1..]) {
                        *c -= l * u;
                    }
                }
            }
        }
    }
    info
}

/// Unblocked left-looking LU with partial pivoting of the `m × w` column-major block `a`
/// (leading dimension `ld`, `m ≥ w`): the interchanges are applied to the block's rows only.
/// `ipiv` (length `w`) gets 1-based rows relative to the block; returns 0 or the 1-based
/// index of the first exactly-zero pivot.
fn getf2<T: Scalar>(m: usize, w: usize, a: &mut [T], ld: usize, ipiv: &mut [i32]) -> i32 {
    let mut info = 0i32;
    for j in 0..w {
        let (left, right) = a.split_at_mut(j * ld);
        let col = &mut right[..m];
        // Apply the earlier interchanges to column j (lazily, in order).
        for (i, &p) in ipiv[..j].iter().enumerate() {
            let p = p as usize - 1;
            if p != i {
                col.swap(i, p);
            }
        }
        // The forward solve with the unit lower L11 on rows 0..j and the update
        // A(j.., j) −= L(j.., 0..j)·U(0..j, j) on the rest.
        for k in 0..j {
            let u = col[k];
            if u != T::zero() {
                let lk = &left[k * ld..k * ld + m];
                for (c, &l) in col[k + 1..].iter_mut().zip(&lk[k + 1..]) {
                    *c -= l * u;
                }
            }
        }
        // Pivot: the largest |re| + |im| on or below the diagonal, the first one on ties.
        let mut p = j;
        let mut best = col[j].abs1();
        for (i, v) in col.iter().enumerate().skip(j + 1) {
            let mv = v.abs1();
            if mv > best {
                best = mv;
                p = i;
            }
        }
        ipiv[j] = (p + 1) as i32;
        let piv = col[p];
        if piv != T::zero() {
            if p != j {
                col.swap(j, p);
                for c in 0..j {
                    left.swap(j + c * ld, p + c * ld);
                }
            }
            for v in &mut col[j + 1..] {
                *v /= piv;
            }
        } else if info == 0 {
            info = (j + 1) as i32;
        }
    }
    info
}

#[inline]
fn op<T: Scalar>(trans: Trans, x: T) -> T {
    if trans == Trans::C {
        x.conj()
    } else {
        x
    }
}

/// Solves `op(A)·X = B` in place for the `n × nrhs` column-major `b` (leading dimension `n`)
/// from the factors of [`getrf_one`]. Pivots must already be validated (in `1..=n`).
pub(crate) fn getrs_one<T: Scalar>(
    n: usize,
    trans: Trans,
    a: &[T],
    ipiv: &[i32],
    b: &mut [T],
    nrhs: usize,
) {
    if n == 0 {
        return;
    }
    for x in b.chunks_exact_mut(n).take(nrhs) {
        match trans {
            Trans::N => {
                // x ← Pᵀ·b, then L·y = x, then U·x = y.
                for (i, &p) in ipiv.iter().enumerate() {
                    x.swap(i, p as usize - 1);
                }
                for k in 0..n {
                    let v = x[k];
                    if v != T::zero() {
                        for (xi, &l) in x[k + 1..].iter_mut().zip(&a[k * n + k + 1..k * n + n]) {
                            *xi -= l * v;
                        }
                    }
                }
                for k in (0..n).rev() {
                    x[k] /= a[k * n + k];
                    let v = x[k];
                    if v != T::zero() {
                        for (xi, &u) in x[..k].iter_mut().zip(&a[k * n..k * n + k]) {
                            *xi -= u * v;
                        }
                    }
                }
            }
            Trans::T | Trans::C => {
                // op(A) = op(U)·op(L)·Pᵀ: solve op(U)·y = b, op(L)·z = y, then x = P·z.
                for k in 0..n {
                    let col = &a[k * n..k * n + n];
                    let mut s = x[k];
                    for (&u, &xi) in col[..k].iter().zip(&x[..k]) {
                        s -= op(trans, u) * xi;
                    }
                    x[k] = s / op(trans, col[k]);
                }
                for k in (0..n).rev() {
                    let col = &a[k * n..k * n + n];
                    let mut s = x[k];
                    for (&l, &xi) in col[k + 1..].iter().zip(&x[k + 1..]) {
                        s -= op(trans, l) * xi;
                    }
                    x[k] = s;
                }
                for (i, &p) in ipiv.iter().enumerate().rev() {
                    x.swap(i, p as usize - 1);
                }
            }
        }
    }
}

/// `inv ← A⁻¹` (`n × n`, leading dimension `n`) from the factors: solves `A·X = I`.
pub(crate) fn getri_one<T: Scalar>(n: usize, a: &[T], ipiv: &[i32], inv: &mut [T]) {
    let inv = &mut inv[..n * n];
    inv.fill(T::zero());
    for j in 0..n {
        inv[j * n + j] = T::one();
    }
    getrs_one(n, Trans::N, a, ipiv, inv, n);
}

/// [`getrf_one`] on a matrix checked first: one holding a NaN or an infinity is left as it
/// was, its pivots set to `1..=n`, and the info returned is `−1 − e` for the column-major
/// position `e` of its first non-finite entry.
pub(crate) fn getrf_checked<T: Scalar>(n: usize, a: &mut [T], ipiv: &mut [i32]) -> i32 {
    match a[..n * n].iter().position(|v| !v.is_finite()) {
        Some(e) => {
            for (j, p) in ipiv.iter_mut().enumerate() {
                *p = j as i32 + 1;
            }
            crate::status::nonfinite_info(e)
        }
        None => getrf_one(n, a, ipiv),
    }
}

/// Whether every pivot of an order-`n` matrix lies in `1..=n` (the solves and the inverse
/// give NaN for a matrix whose pivots do not).
pub(crate) fn pivots_in_range(n: usize, ipiv: &[i32]) -> bool {
    ipiv.iter().all(|&p| p >= 1 && p as usize <= n)
}

/// Whether the factors have an exactly-zero diagonal entry of `U`.
pub(crate) fn has_zero_pivot<T: Scalar>(n: usize, a: &[T]) -> bool {
    (0..n).any(|k| a[k * n + k] == T::zero())
}

/// Not-a-number in every part: what the outputs of singular matrices are filled with.
pub(crate) fn nan<T: Scalar>() -> T {
    T::from_parts(T::Real::nan(), T::Real::nan())
}
