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
    cb::trsm(
        op,
        dev,
        LEFT,
        LOWER,
        OP_N,
        NON_UNIT,
        (n, nrhs),
        T::one(),
        l,
        b,
    )?;
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
/// mirror): `L ← L⁻¹` ([`trtri`]), then the lower triangle of `L⁻ᴴ·L⁻¹` by blocks (LAPACK
/// `lauum`: cuBLAS `trmm`, `lauum_diag`, `gemm`, `herk`), then `mirror` to the upper triangle.
pub(crate) fn potri<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<()> {
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    trtri(op, dev, a, false)?;
    let mut i = 0;
    while i < n {
        let ib = NB.min(n - i);
        if i > 0 {
            cb::trmm(
                op,
                dev,
                LEFT,
                LOWER,
                cb::op_c::<T>(),
                NON_UNIT,
                (ib, i),
                T::one(),
                a.at(i, i, ib, ib),
                a.at(i, 0, ib, i),
            )?;
        }
        k::lauum_diag(op, dev, a.at(i, i, ib, ib))?;
        if i + ib < n {
            let m = n - i - ib;
            if i > 0 {
                cb::gemm(
                    op,
                    dev,
                    cb::op_c::<T>(),
                    OP_N,
                    (ib, i, m),
                    T::one(),
                    a.at(i + ib, i, m, ib),
                    a.at(i + ib, 0, m, i),
                    T::one(),
                    a.at(i, 0, ib, i),
                )?;
            }
            cb::herk(
                op,
                dev,
                LOWER,
                cb::op_c::<T>(),
                (ib, m),
                T::Real::one(),
                a.at(i + ib, i, m, ib),
                T::Real::one(),
                a.at(i, i, ib, ib),
            )?;
        }
        i += ib;
    }
    k::mirror(op, dev, a, false)
}

/// Whether a real is positive (false for NaN).
pub(crate) fn positive<R: gpu_blas::RealScalar>(r: R) -> bool {
    r > num_traits::Zero::zero()
}
