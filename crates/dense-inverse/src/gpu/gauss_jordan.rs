//! Blocked Gauss-Jordan inversion with partial pivoting on the GPU: the CPU method's block
//! steps (`cpu::gauss_jordan`), with each panel brought to its Gauss-Jordan form through an LU
//! factorization of the panel instead of pivot-by-pivot sweeps.
//!
//! For the `NB`-column panel `k..e` (`e = k + kb`) of the working matrix, with the row blocks
//! `0..k`, `k..e`, `e..n` written `0`, `1`, `2`:
//! 1. LU of the panel's rows `k..n` with partial pivoting (`lu::factor_panel`, as in
//!    `lu::getrf`): `P·[A11; A21] = [L11; L21]·U11`. The pivot search is the CPU
//!    sweep's (largest `|re| + |im|` in rows `j..n` of column `j`, first on ties) on the same
//!    values in exact arithmetic, and `info` records the first exactly-zero pivot (1-based
//!    global column), the CPU method's singular step.
//! 2. The panel's interchanges on every other column (`laswp_rows`).
//! 3. The panel becomes `[−A01·A11⁻¹; A11⁻¹; −A21·A11⁻¹]` (cuBLAS `trsm`): with
//!    `A11 = L11·U11` and `A21 = L21·U11`, `−A21·A11⁻¹ = −L21·L11⁻¹` and
//!    `−A01·A11⁻¹ = −(A01·U11⁻¹)·L11⁻¹`; then `A11⁻¹ = U11⁻¹·L11⁻¹` in place
//!    (`trtri_diag` on `U11`, `L11` moved to the workspace by `getri_save_l`, one `trsm`).
//! 4. Every other column block `C`: its rows `k..e` saved to the workspace and zeroed
//!    (`gj_save_rows`), then `C ← C + panel·saved` (cuBLAS `gemm`, one for the columns left of
//!    the panel, one for those right of it), which gives `C1 ← A11⁻¹·C1` and
//!    `C0,2 ← C0,2 − A01,21·A11⁻¹·C1`.
//!
//! After the last panel the array holds `(P·A)⁻¹`; the columns are interchanged back in
//! reverse order (`swap_cols`, LAPACK `getri`'s last step). Extra memory: a `min(n, NB) × n`
//! workspace and `n` pivots.

use super::cublas::{self as cb, LOWER, NON_UNIT, OP_N, RIGHT, UNIT, UPPER};
use super::kernels as k;
use super::{flag, lu, read_i32, Dense, NB};
use crate::error::{Error, Result};
use gpu_blas::{Device, DeviceMatrix, DeviceVec, Scalar};

/// `A ← A⁻¹` in place on the compact `n × n` matrix `w` (checked finite by the caller) by
/// blocked Gauss-Jordan with partial pivoting; [`Error::Singular`] at the first column without
/// a non-zero pivot (1-based, as the CPU method), found after all the work is queued (one wait,
/// for `info`). On error `w` holds intermediate values.
pub(crate) fn invert<T: Scalar>(op: &'static str, dev: &Device, w: &DeviceMatrix<T>) -> Result<()> {
    let n = w.rows();
    assert!(w.cols() == n);
    if n == 0 {
        return Ok(());
    }
    let a = Dense::of(op, w)?;
    let ipiv = DeviceVec::<i32>::zeros(dev, n)?;
    let info = flag(dev, 0)?;
    // Workspace, leading dimension min(n, NB): first the panel's L11 (kb × kb), then the saved
    // block row of the other columns (kb × (n − kb)); one use ends before the next starts, in
    // stream order.
    let ws = DeviceMatrix::<T>::zeros(dev, NB.min(n), n)?;
    let wsd = Dense::of(op, &ws)?;
    let scratch = k::PanelScratch::<T>::new(op, dev, NB)?;
    let mut kk = 0;
    while kk < n {
        let kb = NB.min(n - kk);
        let e = kk + kb;
        lu::factor_panel(op, dev, a, (kk, kb), &ipiv, &info, scratch.as_ref())?;
        k::laswp_rows(op, dev, a, (kk, e), &ipiv, (kk, e), false)?;
        panel_form(op, dev, a, (kk, kb), wsd)?;
        update_outside(op, dev, a, (kk, kb), wsd)?;
        kk = e;
    }
    k::swap_cols(op, dev, a, &ipiv)?;
    let info = read_i32(&info)?;
    // `wsd` is a raw address into `ws`: the buffer is dropped only here, after the wait.
    drop(ws);
    if info > 0 {
        return Err(Error::Singular {
            op,
            step: info as usize,
        });
    }
    Ok(())
}

/// Step 3: the LU-factored panel `kk..kk + kb` of `a` (rows `0..kk` still `A01`) in place to
/// `[−A01·A11⁻¹; A11⁻¹; −A21·A11⁻¹]`. `ws` (at least `kb × kb`) receives `L11`.
fn panel_form<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, kb): (usize, usize),
    ws: Dense<T>,
) -> Result<()> {
    let n = a.rows;
    let e = kk + kb;
    // The diagonal block: L11 strictly below the diagonal (unit), U11 on and above it.
    let d11 = a.at(kk, kk, kb, kb);
    if e < n {
        // −A21·A11⁻¹ = −L21·L11⁻¹.
        cb::trsm(
            op,
            dev,
            RIGHT,
            LOWER,
            OP_N,
            UNIT,
            (n - e, kb),
            -T::one(),
            d11,
            a.at(e, kk, n - e, kb),
        )?;
    }
    if kk > 0 {
        // −A01·A11⁻¹ = −(A01·U11⁻¹)·L11⁻¹.
        let x01 = a.at(0, kk, kk, kb);
        cb::trsm(
            op,
            dev,
            RIGHT,
            UPPER,
            OP_N,
            NON_UNIT,
            (kk, kb),
            -T::one(),
            d11,
            x01,
        )?;
        cb::trsm(
            op,
            dev,
            RIGHT,
            LOWER,
            OP_N,
            UNIT,
            (kk, kb),
            T::one(),
            d11,
            x01,
        )?;
    }
    // A11⁻¹ = U11⁻¹·L11⁻¹: U11 ← U11⁻¹ (the strict lower triangle is not touched), L11 moved
    // to the workspace (zeros left behind), then X·L11 = U11⁻¹ solved in place.
    k::trtri_diag(op, dev, d11, true)?;
    k::getri_save_l(op, dev, d11, (0, kb), ws)?;
    cb::trsm(
        op,
        dev,
        RIGHT,
        LOWER,
        OP_N,
        UNIT,
        (kb, kb),
        T::one(),
        ws.at(0, 0, kb, kb),
        d11,
    )
}

/// Step 4: `C ← C + panel·C1` for the columns `C` outside the panel `kk..kk + kb`, with `C1`
/// (rows `kk..kk + kb` of `C`) saved to `ws` and zeroed first.
fn update_outside<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, kb): (usize, usize),
    ws: Dense<T>,
) -> Result<()> {
    let n = a.rows;
    let e = kk + kb;
    if kb == n {
        return Ok(());
    }
    // ws columns 0..kk hold the left columns' rows, kk..n − kb the right columns'.
    k::gj_save_rows(op, dev, a, (kk, kb), ws)?;
    let panel = a.at(0, kk, n, kb);
    if kk > 0 {
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (n, kk, kb),
            T::one(),
            panel,
            ws.at(0, 0, kb, kk),
            T::one(),
            a.at(0, 0, n, kk),
        )?;
    }
    if e < n {
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (n, n - e, kb),
            T::one(),
            panel,
            ws.at(0, kk, kb, n - e),
            T::one(),
            a.at(0, e, n, n - e),
        )?;
    }
    Ok(())
}
