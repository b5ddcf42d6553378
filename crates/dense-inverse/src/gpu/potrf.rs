//! Cholesky on the GPU, lower storage (`A = L·Lᴴ`): `potrf` (blocked right-looking), `potrs`,
//! `potri` (`trtri` + `lauum`). Upper storage is converted by the callers (`mirror`).

use super::cublas::{self as cb, LEFT, LOWER, NON_UNIT, OP_N, RIGHT};
use super::kernels as k;
use super::lu::trtri;
use super::{Dense, NB};
use crate::error::Result;
use gpu_blas::{Device, DeviceVec, Scalar};
use num_traits::One;

/// `A = L·Lᴴ` in place on the lower triangle of the `n × n` matrix `a` (LAPACK `potrf`);
/// `info` (0 on entry) gets the 1-based column of the first non-positive pivot. Queued, not
/// waited for; after a failure the later steps compute garbage that nobody reads (the
/// diagonal-block kernel returns at once when `info` is set).
///
/// Per `NB` block: `potrf_diag` on the diagonal block, `L21 ← A21·L11⁻ᴴ` (cuBLAS `trsm`),
/// `A22 ← A22 − L21·L21ᴴ` (cuBLAS `herk`/`syrk`, lower triangle).
pub(crate) fn potrf<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    info: &DeviceVec<i32>,
) -> Result<()> {
    let n = a.rows;
    let mut kk = 0;
    while kk < n {
        let kb = NB.min(n - kk);
        let e = kk + kb;
        k::potrf_diag(op, dev, a.at(kk, kk, kb, kb), kk, info)?;
        if e < n {
            let m = n - e;
            cb::trsm(
                op,
                dev,
                RIGHT,
                LOWER,
                cb::op_c::<T>(),
                NON_UNIT,
                (m, kb),
                T::one(),
                a.at(kk, kk, kb, kb),
                a.at(e, kk, m, kb),
            )?;
            cb::herk(
                op,
                dev,
                LOWER,
                OP_N,
                (m, kb),
                -T::Real::one(),
                a.at(e, kk, m, kb),
                T::Real::one(),
                a.at(e, e, m, m),
            )?;
        }
        kk = e;
    }
    Ok(())
}

/// `B ← A⁻¹·B` from the lower factor in `l` (LAPACK `potrs`): `L·Y = B`, `Lᴴ·X = Y`.
pub(crate) fn potrs<T: Scalar>(
    op: &'static str,
    dev: &Device,
    l: Dense<T>,
    b: Dense<T>,
) -> Result<()> {
    let (n, nrhs) = (l.rows, b.cols);
    cb::trsm_rec(op, dev, LEFT, LOWER, NON_UNIT, (n, nrhs), T::one(), l, b)?;
    cb::trsm(
        op,
        dev,
        LEFT,
        LOWER,
        cb::op_c::<T>(),
        NON_UNIT,
        (n, nrhs),
        T::one(),
        l,
        b,
    )
}

/// `A⁻¹` in place from the lower factor in `a`, both triangles written (LAPACK `potri` plus a
/// mirror): `L ← L⁻¹` ([`trtri`]), then the lower triangle of `L⁻ᴴ·L⁻¹` ([`lauum`]), then
/// `mirror` to the upper triangle.
pub(crate) fn potri<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<()> {
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    trtri(op, dev, a, false)?;
    lauum(op, dev, a)?;
    k::mirror(op, dev, a, false)
}

/// The lower triangle of `Lᴴ·L` in place of the lower triangular `L` (LAPACK `lauum`),
/// recursive: with `L` split at `n1` (half of `n`, a multiple of `NB`) into
/// `[L11 0; L21 L22]`, `X11 = L11ᴴ·L11 + L21ᴴ·L21` (recursion, then cuBLAS `herk`),
/// `X21 = L22ᴴ·L21` (`trmm`), `X22 = L22ᴴ·L22` (recursion); blocks of order ≤ `NB` by
/// `lauum_diag`.
fn lauum<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<()> {
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    if n <= NB {
        return k::lauum_diag(op, dev, a);
    }
    let n1 = (n / 2).div_ceil(NB) * NB;
    let n2 = n - n1;
    let (a11, a21, a22) = (
        a.at(0, 0, n1, n1),
        a.at(n1, 0, n2, n1),
        a.at(n1, n1, n2, n2),
    );
    lauum(op, dev, a11)?;
    cb::herk(
        op,
        dev,
        LOWER,
        cb::op_c::<T>(),
        (n1, n2),
        T::Real::one(),
        a21,
        T::Real::one(),
        a11,
    )?;
    cb::trmm(
        op,
        dev,
        LEFT,
        LOWER,
        cb::op_c::<T>(),
        NON_UNIT,
        (n2, n1),
        T::one(),
        a22,
        a21,
    )?;
    lauum(op, dev, a22)
}

/// Whether a real is positive (false for NaN).
pub(crate) fn positive<R: gpu_blas::RealScalar>(r: R) -> bool {
    r > num_traits::Zero::zero()
}
