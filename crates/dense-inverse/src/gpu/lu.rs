//! LU with partial pivoting on the GPU: `getrf` (blocked right-looking), `getrs`, `getri`, and
//! the blocked triangular inverse `trtri` shared with the Cholesky inverse.

use super::cublas::{self as cb, LEFT, LOWER, NON_UNIT, OP_N, RIGHT, UNIT, UPPER};
use super::kernels as k;
use super::{Dense, NB};
use crate::error::Result;
use gpu_blas::blas2::Trans;
use gpu_blas::{Device, DeviceMatrix, DeviceVec, Scalar};

/// `A = P·L·U` in place on the `n × n` matrix `a` (LAPACK `getrf`); `ipiv` (`n` entries) gets
/// the 1-based interchanges, `info` (one entry, 0 on entry) the first exactly-zero pivot.
/// Queued, not waited for.
///
/// Per `NB`-column panel: the panel's LU in one cooperative launch (`getrf_panel`), or where
/// that does not fit, for each column `getrf_pivot` (pivot search, interchange inside the
/// panel, scaling) and `getrf_update` (rank-1 update of the panel's later columns); then
/// `laswp_rows` on the columns left and right of the panel, `U12 ← L11⁻¹·A12` (cuBLAS `trsm`)
/// and `A22 ← A22 − L21·U12` (cuBLAS `gemm`).
pub(crate) fn getrf<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n && ipiv.len() == n);
    let scratch = k::PanelScratch::<T>::new(op, dev, NB)?;
    let mut kk = 0;
    while kk < n {
        let kb = NB.min(n - kk);
        let e = kk + kb;
        factor_panel(op, dev, a, (kk, kb), ipiv, info, scratch.as_ref())?;
        k::laswp_rows(op, dev, a, (kk, e), ipiv, (kk, e), false)?;
        if e < n {
            let m = n - e;
            cb::trsm(
                op,
                dev,
                LEFT,
                LOWER,
                OP_N,
                UNIT,
                (kb, m),
                T::one(),
                a.at(kk, kk, kb, kb),
                a.at(kk, e, kb, m),
            )?;
            cb::gemm(
                op,
                dev,
                OP_N,
                OP_N,
                (m, m, kb),
                -T::one(),
                a.at(e, kk, m, kb),
                a.at(kk, e, kb, m),
                T::one(),
                a.at(e, e, m, m),
            )?;
        }
        kk = e;
    }
    Ok(())
}

/// LU with partial pivoting of the panel `a(kk..n, kk..kk + kb)` (pivots into
/// `ipiv[kk..kk + kb]`, the first zero pivot into `info`): one cooperative `getrf_panel` launch
/// when `scratch` is there and the panel fits, else `getrf_pivot` and `getrf_update` per column.
#[allow(clippy::too_many_arguments)]
pub(crate) fn factor_panel<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, kb): (usize, usize),
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    scratch: Option<&k::PanelScratch<T>>,
) -> Result<()> {
    if let Some(sc) = scratch {
        if k::getrf_panel(op, dev, a, kk, kb, ipiv, info, sc)? {
            return Ok(());
        }
    }
    for j in kk..kk + kb {
        k::getrf_pivot(op, dev, a, j, kk, kb, ipiv, info)?;
        k::getrf_update(op, dev, a, j, kk + kb)?;
    }
    Ok(())
}

/// Right-hand sides below this count are permuted through a gathered copy (`permute_rows`,
/// parallel over all elements); above, in place by `laswp_rows` (a thread per column).
const PERMUTE_MAX: usize = 64;

/// The composite row permutation of LAPACK interchanges: `(P^T·B)[i] = B[perm[i]]`.
fn composite(piv: &[i32]) -> Vec<i32> {
    let mut perm: Vec<i32> = (0..piv.len() as i32).collect();
    for (j, &p) in piv.iter().enumerate() {
        perm.swap(j, p as usize - 1);
    }
    perm
}

/// Solves `op(A)·X = B` (LAPACK `getrs`) from factors `lu` (`n × n`), pivots (`ipiv` on the
/// device, `piv` the same on the host, validated in `1..=n`) and the compact `n × nrhs`
/// right-hand sides `b`; returns the matrix holding `X` (`b` itself or a permuted copy).
pub(crate) fn getrs<T: Scalar>(
    op: &'static str,
    trans: Trans,
    lu: Dense<T>,
    ipiv: &DeviceVec<i32>,
    piv: &[i32],
    mut b: DeviceMatrix<T>,
) -> Result<DeviceMatrix<T>> {
    let dev = b.device().clone();
    let (n, nrhs) = (lu.rows, b.cols());
    assert!(b.rows() == n && piv.len() == n);
    if n == 0 || nrhs == 0 {
        return Ok(b);
    }
    let small = nrhs < PERMUTE_MAX;
    let perm = if small {
        Some(DeviceVec::from_vec(&dev, composite(piv))?)
    } else {
        None
    };
    let solve = |x: Dense<T>| -> Result<()> {
        let (l, u) = (lu, lu);
        match trans {
            Trans::N => {
                cb::trsm(op, &dev, LEFT, LOWER, OP_N, UNIT, (n, nrhs), T::one(), l, x)?;
                cb::trsm(
                    op,
                    &dev,
                    LEFT,
                    UPPER,
                    OP_N,
                    NON_UNIT,
                    (n, nrhs),
                    T::one(),
                    u,
                    x,
                )
            }
            Trans::T | Trans::C => {
                let t = if trans == Trans::T {
                    cb::op_t()
                } else {
                    cb::op_c::<T>()
                };
                cb::trsm(
                    op,
                    &dev,
                    LEFT,
                    UPPER,
                    t,
                    NON_UNIT,
                    (n, nrhs),
                    T::one(),
                    u,
                    x,
                )?;
                cb::trsm(op, &dev, LEFT, LOWER, t, UNIT, (n, nrhs), T::one(), l, x)
            }
        }
    };
    let bd = Dense::of(op, &b)?;
    match (trans, &perm) {
        (Trans::N, Some(p)) => {
            let x = DeviceMatrix::zeros(&dev, n, nrhs)?;
            let xd = Dense::of(op, &x)?;
            k::permute_rows(op, &dev, bd, xd, p, false)?;
            solve(xd)?;
            Ok(x)
        }
        (Trans::N, None) => {
            k::laswp_rows(op, &dev, bd, (0, 0), ipiv, (0, n), false)?;
            solve(bd)?;
            Ok(b)
        }
        (_, Some(p)) => {
            solve(bd)?;
            let x = DeviceMatrix::zeros(&dev, n, nrhs)?;
            k::permute_rows(op, &dev, bd, Dense::of(op, &x)?, p, true)?;
            Ok(x)
        }
        (_, None) => {
            solve(bd)?;
            k::laswp_rows(op, &dev, bd, (0, 0), ipiv, (0, n), true)?;
            let _ = &mut b;
            Ok(b)
        }
    }
}

/// In-place inverse of the `n × n` triangular matrix `a` (non-unit diagonal; LAPACK `trtri`),
/// recursive, so the work is a few large cuBLAS `trsm` calls: with `a` split at `n1` (half of
/// `n`, a multiple of `NB`) into `[A11 A12; 0 A22]` (upper), `A12 ← −A11⁻¹·A12·A22⁻¹` by two
/// `trsm` (left with `A11`, right with `A22`) before the diagonal blocks are inverted in turn;
/// lower likewise with `A21 ← −A22⁻¹·A21·A11⁻¹`. Blocks of order ≤ `NB` are inverted by
/// `trtri_diag`, which leaves the other triangle alone.
pub(crate) fn trtri<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    upper: bool,
) -> Result<()> {
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    if n <= NB {
        return k::trtri_diag(op, dev, a, upper);
    }
    let n1 = (n / 2).div_ceil(NB) * NB;
    let n2 = n - n1;
    let (a11, a22) = (a.at(0, 0, n1, n1), a.at(n1, n1, n2, n2));
    if upper {
        let a12 = a.at(0, n1, n1, n2);
        cb::trsm(
            op,
            dev,
            LEFT,
            UPPER,
            OP_N,
            NON_UNIT,
            (n1, n2),
            T::one(),
            a11,
            a12,
        )?;
        cb::trsm(
            op,
            dev,
            RIGHT,
            UPPER,
            OP_N,
            NON_UNIT,
            (n1, n2),
            -T::one(),
            a22,
            a12,
        )?;
    } else {
        let a21 = a.at(n1, 0, n2, n1);
        cb::trsm(
            op,
            dev,
            LEFT,
            LOWER,
            OP_N,
            NON_UNIT,
            (n2, n1),
            -T::one(),
            a22,
            a21,
        )?;
        cb::trsm(
            op,
            dev,
            RIGHT,
            LOWER,
            OP_N,
            NON_UNIT,
            (n2, n1),
            T::one(),
            a11,
            a21,
        )?;
    }
    trtri(op, dev, a11, upper)?;
    trtri(op, dev, a22, upper)
}

/// Column block of the second half of [`getri`] (wide, so its `gemm` has enough output tiles
/// to fill the GPU; the `trsm` with the block's `GETRI_NB × GETRI_NB` triangle is cuBLAS's).
const GETRI_NB: usize = 256;

/// `A⁻¹` in place from the LU factors in `a` (no zero pivot; LAPACK `getri`): `U ← U⁻¹`
/// ([`trtri`]), then `X·L = U⁻¹` by `GETRI_NB`-column blocks from the right (the block's part
/// of `L` saved to an `n × GETRI_NB` workspace and zeroed, cuBLAS `gemm` with the columns to
/// its right, `trsm` with the block's unit lower triangle), then the columns interchanged back
/// (`swap_cols`). Extra memory: the `n × GETRI_NB` workspace.
pub(crate) fn getri<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
) -> Result<()> {
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    trtri(op, dev, a, true)?;
    let w = DeviceMatrix::<T>::zeros(dev, n, GETRI_NB.min(n))?;
    let wd = Dense::of(op, &w)?;
    let mut j = ((n - 1) / GETRI_NB) * GETRI_NB;
    loop {
        let jb = GETRI_NB.min(n - j);
        k::getri_save_l(op, dev, a, (j, jb), wd)?;
        if j + jb < n {
            let m = n - j - jb;
            cb::gemm(
                op,
                dev,
                OP_N,
                OP_N,
                (n, jb, m),
                -T::one(),
                a.at(0, j + jb, n, m),
                wd.at(j + jb, 0, m, jb),
                T::one(),
                a.at(0, j, n, jb),
            )?;
        }
        cb::trsm(
            op,
            dev,
            RIGHT,
            LOWER,
            OP_N,
            UNIT,
            (n, jb),
            T::one(),
            wd.at(j, 0, jb, jb),
            a.at(0, j, n, jb),
        )?;
        if j == 0 {
            break;
        }
        j -= GETRI_NB;
    }
    k::swap_cols(op, dev, a, ipiv)?;
    // The workspace is freed (stream-ordered) after the queued work that uses it.
    drop(w);
    Ok(())
}
