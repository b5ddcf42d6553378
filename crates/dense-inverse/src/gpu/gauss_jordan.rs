//! Blocked Gauss-Jordan inversion with partial pivoting on the GPU: the CPU method's block
//! steps (`cpu::gauss_jordan`), with each panel brought to its Gauss-Jordan form through an LU
//! factorization of the panel instead of pivot-by-pivot sweeps.
//!
//! For the `kb`-column panel `k..e` (`e = k + kb`) of the working matrix, with the row blocks
//! `0..k`, `k..e`, `e..n` written `0`, `1`, `2`:
//! 1. LU of the panel's rows `k..n` with partial pivoting (`lu::factor_panel`, as in
//!    `lu::getrf`): `P·[A11; A21] = [L11; L21]·U11`. The pivot search is the CPU
//!    sweep's (largest `|re| + |im|` in rows `j..n` of column `j`, first on ties) on the same
//!    values in exact arithmetic, and `info` records the first exactly-zero pivot (1-based
//!    global column), the CPU method's singular step.
//! 2. The panel's interchanges on every other column (`laswp_rows`).
//! 3. Every other column block `C` becomes `[C0 − A01·A11⁻¹·C1; A11⁻¹·C1; C2 − A21·A11⁻¹·C1]`.
//! 4. The panel becomes `[−A01·A11⁻¹; A11⁻¹; −A21·A11⁻¹]`, with
//!    `−A21·A11⁻¹ = −L21·L11⁻¹` and `−A01·A11⁻¹ = −(A01·U11⁻¹)·L11⁻¹` (cuBLAS `trsm`), then
//!    `A11⁻¹ = U11⁻¹·L11⁻¹` in place (`trtri` on `U11`, `L11` moved to a workspace by
//!    `getri_save_l`, one `trsm`).
//!
//! Below order 3072 (one level, `kb = NB`), step 3 goes as `C ← C + panel·C1` after step 4,
//! with `C1` saved to a workspace and zeroed (`gj_save_rows`; two `gemm`s, the columns left
//! and right of the panel). From 3072 on ([`invert_lookahead`]) the panels are block columns
//! of `b` columns (192 to 512 by order, see `lu::gj_outer_block`) factored as the LU's (by
//! 48-column panels and the updates inside the block column) on a priority stream, which then
//! takes step 3 on the next block column only as far as its factorization needs
//! (`Z = L11⁻¹·C1`, `C2 ← C2 − L21·Z`); a side stream forms step 4 out of place by products
//! ([`panel_by_products`]) and finishes step 3 there (`C1 ← U11⁻¹·Z`, `C0 ← C0 − A01·C1`);
//! the device's stream takes step 3 on every other column as `C ← C + panel·C1`, while the
//! next block column is factored. Below order 12288 on devices where the panels run as
//! thread block clusters, those big products run in a partition of the multiprocessors (a
//! green context, `gpu_blas::interop::cuda_partition_streams`) that leaves out a group of 16
//! able to hold a panel's cluster (`lu::gj_partition`), so the panels never wait for the
//! products' blocks to drain.
//!
//! After the last panel the array holds `(P·A)⁻¹`; the columns are interchanged back in
//! reverse order (`swap_cols`, LAPACK `getri`'s last step). Extra memory: a `min(n, NB) × n`
//! workspace (one level), or with the lookahead `b × n` and `n × 2b` ones and `b × 2b` for
//! the diagonal block's inverses (`b` the outer width), and `n` pivots.

use super::cublas::{self as cb, LEFT, LOWER, NON_UNIT, OP_N, RIGHT, UNIT, UPPER};
use super::kernels as k;
use super::{flag, lu, read_i32, Dense, NB};
use crate::error::{Error, Result};
use cudarc::driver::{CudaEvent, CudaStream};
use gpu_blas::{Device, DeviceMatrix, DeviceVec, Scalar};
use std::sync::Arc;

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
    let outer = lu::gj_outer_block(n);
    // The side stream only where the lookahead runs (it is created on first use).
    let streams = match lu::lookahead_stream(dev, outer)? {
        Some(pri) => gpu_blas::interop::cuda_side_stream(dev)?.map(|side| (pri, side)),
        None => None,
    };
    match streams {
        Some((pri, side)) => {
            let streams = (&pri, &side, lu::gj_partition(op, dev, n)?);
            invert_lookahead(op, dev, a, (&ipiv, &info), outer, streams)?
        }
        None => invert_one_level(op, dev, a, (&ipiv, &info))?,
    }
    k::swap_cols(op, dev, a, &ipiv)?;
    let info = read_i32(&info)?;
    if info > 0 {
        return Err(Error::Singular {
            op,
            step: info as usize,
        });
    }
    Ok(())
}

/// Steps 1 to 4 of the module's method by `NB`-column panels on the device's stream, step 3
/// after step 4 as `C ← C + panel·C1`.
fn invert_one_level<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (ipiv, info): (&DeviceVec<i32>, &DeviceVec<i32>),
) -> Result<()> {
    let n = a.rows;
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
        lu::factor_panel(op, dev, a, (kk, kb), ipiv, info, scratch.as_ref())?;
        k::laswp_rows(op, dev, a, (kk, e), ipiv, (kk, e), false)?;
        panel_form(op, dev, a, (kk, kb), wsd)?;
        update_outside(op, dev, a, (kk, kb), wsd)?;
        kk = e;
    }
    // The workspace is freed (stream-ordered) after the queued work that uses it.
    drop(ws);
    Ok(())
}

/// Steps 1 to 4 of the module's method by block columns of `outer` columns on three streams,
/// with a lookahead of one as `lu::getrf_lookahead` does for the LU. With block column
/// `K = [kk, e)` and the next `K+1 = [e, e2)`:
/// - the priority stream `pri`: `K`'s LU (`lu::factor_block`: its panels and the updates
///   inside it), then, once the device's stream has updated `K+1` by `K − 1`, `K`'s
///   interchanges on `K+1` and the lower part of step 3 there (`Z = L11⁻¹·C1`,
///   `C2 ← C2 − L21·Z`: `lu::trailing_update`), all that `K+1`'s LU needs;
/// - the side stream `side`, once `K` is factored: step 4 into the workspace `F` of `K`
///   ([`panel_by_products`]; two workspaces used in turn), then, after `pri`'s part of
///   `K+1`, the upper part of step 3 on `K+1` ([`upper_update`]), which `K+1`'s step 4 reads;
/// - the device's stream, once `F` is formed: the interchanges and `C ← C + F·C1` on the
///   columns right of `K+1` (those of `K+2` first, which `pri` waits for) and left of `K`
///   ([`add_panel_times_saved`]), then, after `side`'s upper part (the last use of `K`'s
///   factors), `F` copied into `K`.
///
/// So the chain that sets the pace is `pri`'s factorizations and the lower updates between
/// them; step 4, the upper updates and the big products run beside it. Where `part` has a
/// reserve and the driver makes the partition, the device stream's part runs on the
/// partition's low-priority stream instead (and, where `part` says so, `side`'s work and the
/// lookahead on its high-priority ones), so that the multiprocessors left out are always free
/// for `pri`. The device's stream waits for the others before returning, also after an
/// error.
fn invert_lookahead<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (ipiv, info): (&DeviceVec<i32>, &DeviceVec<i32>),
    outer: usize,
    (pri, side, part): (&Arc<CudaStream>, &Arc<CudaStream>, lu::GjPartition),
) -> Result<()> {
    use cudarc::driver::sys::CUevent_flags;
    let device_stream = super::launch_stream(op, dev)?;
    // The big products in a partition leaving `part.reserve` multiprocessors outside (where
    // asked also the side stream's products and the lookahead, ahead of them), so that the
    // priority stream's kernels find those free.
    let streams = match part.reserve {
        0 => None,
        r => gpu_blas::interop::cuda_partition_streams(dev, r as u32, part.clustered)?,
    };
    let (main, side, ahead) = match streams {
        Some(p) => (
            p.low,
            if part.side {
                p.high[0].clone()
            } else {
                side.clone()
            },
            part.lookahead.then(|| p.high[1].clone()),
        ),
        None => (device_stream.clone(), side.clone(), None),
    };
    let (side, ahead) = (&side, ahead.as_ref());
    let drv = |e: cudarc::driver::DriverError| Error::from(k::driver_error(op, e));
    let mark = |s: &CudaStream| {
        s.record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(drv)
    };
    let n = a.rows;
    assert!(a.cols == n && ipiv.len() == n && outer > 0);
    let b = outer.min(n);
    let scratch = k::PanelScratch::<T>::new(op, dev, NB)?;
    // The device's stream's: the saved rows C1 of the columns outside K and K+1, each at its
    // own column (the columns of K and K+1 are not used).
    let ws = DeviceMatrix::<T>::zeros(dev, b, n)?;
    // The side stream's: the panels in their Gauss-Jordan form (two n × b halves, used in
    // turn), and the inverses of the diagonal block's triangles (b × 2b), with ones to set a
    // unit diagonal from.
    let fbuf = DeviceMatrix::<T>::zeros(dev, n, 2 * b)?;
    let tbuf = DeviceMatrix::<T>::zeros(dev, b, 2 * b)?;
    let ones = DeviceVec::from_vec(dev, vec![T::one(); b])?;
    let one_ptr = gpu_blas::interop::vec_ptr(&ones).ok_or_else(|| super::not_cuda(op))?;
    let (wsd, fd, td) = (
        Dense::of(op, &ws)?,
        Dense::of(op, &fbuf)?,
        Dense::of(op, &tbuf)?,
    );
    let start = mark(&device_stream)?;
    for s in [pri, side, &main].into_iter().chain(ahead) {
        s.wait(&start).map_err(drv)?;
    }
    let run = || -> Result<()> {
        // The device's stream's mark after K+2 is updated by K (pri waits for it before
        // K+1's lookahead), and after each step (its F may then be formed again).
        let mut big_done: Option<CudaEvent> = None;
        let mut step_done: [Option<CudaEvent>; 2] = [None, None];
        let (mut kk, mut step) = (0, 0usize);
        while kk < n {
            let e = (kk + outer).min(n);
            let e2 = (e + outer).min(n);
            let kb = e - kk;
            let f = fd.at(0, (step % 2) * b, n, kb);
            let factored = super::on_stream(pri, || -> Result<_> {
                lu::factor_block(op, dev, a, (kk, e), ipiv, info, scratch.as_ref(), &mut None)?;
                lu::trace_mark(op, pri, "factored", kk)?;
                mark(pri)
            })?;
            // The lookahead: K+1 updated by K, on pri or in the partition.
            let la = ahead.unwrap_or(pri);
            let looked = super::on_stream(la, || -> Result<_> {
                if ahead.is_some() {
                    la.wait(&factored).map_err(drv)?;
                }
                if let Some(ev) = &big_done {
                    la.wait(ev).map_err(drv)?;
                }
                if e < e2 {
                    k::laswp_rows(op, dev, a.at(0, e, n, e2 - e), (0, 0), ipiv, (kk, e), false)?;
                    lu::trailing_update(op, dev, a, (kk, kb), (e, e2))?;
                }
                lu::trace_mark(op, la, "lookahead", kk)?;
                mark(la)
            })?;
            if ahead.is_some() {
                pri.wait(&looked).map_err(drv)?;
            }
            let (formed, upper_done) = super::on_stream(side, || -> Result<_> {
                side.wait(&factored).map_err(drv)?;
                if let Some(ev) = &step_done[step % 2] {
                    side.wait(ev).map_err(drv)?;
                }
                panel_by_products(op, dev, a, (kk, kb), f, td, one_ptr)?;
                lu::trace_mark(op, side, "formed", kk)?;
                let formed = mark(side)?;
                side.wait(&looked).map_err(drv)?;
                upper_update(op, dev, a, (kk, kb), (e, e2))?;
                Ok((formed, mark(side)?))
            })?;
            main.wait(&formed).map_err(drv)?;
            if e2 < n {
                // K+2 first: the priority stream waits for it before K+1's lookahead.
                let e3 = (e2 + outer).min(n);
                k::laswp_rows(
                    op,
                    dev,
                    a.at(0, e2, n, n - e2),
                    (0, 0),
                    ipiv,
                    (kk, e),
                    false,
                )?;
                for (c0, c1) in [(e2, e3), (e3, n)] {
                    if c0 < c1 {
                        let (c, w) = (a.at(0, c0, n, c1 - c0), wsd.at(0, c0, kb, c1 - c0));
                        add_panel_times_saved(op, dev, f, c, (kk, kb), w)?;
                    }
                    if c1 == e3 {
                        big_done = Some(mark(&main)?);
                    }
                }
            }
            lu::trace_mark(op, &main, "right", kk)?;
            if kk > 0 {
                let c = a.at(0, 0, n, kk);
                k::laswp_rows(op, dev, c, (0, 0), ipiv, (kk, e), false)?;
                add_panel_times_saved(op, dev, f, c, (kk, kb), wsd.at(0, 0, kb, kk))?;
            }
            main.wait(&upper_done).map_err(drv)?;
            k::copy_dense(op, dev, f, a.at(0, kk, n, kb))?;
            lu::trace_mark(op, &main, "update", kk)?;
            step_done[step % 2] = Some(mark(&main)?);
            kk = e;
            step += 1;
        }
        Ok(())
    };
    let r = super::on_stream(&main, run);
    // Whatever happened, nothing queued on the other streams may outlive the caller's buffers.
    let joined = [pri, side, &main]
        .into_iter()
        .chain(ahead)
        .try_for_each(|s| mark(s).and_then(|ev| device_stream.wait(&ev).map_err(drv)));
    // The workspaces are freed (stream-ordered) after the queued work that uses them.
    drop((ws, fbuf, tbuf, ones));
    r.and(joined)
}

/// The upper part of step 3 on the columns `c0..c1` outside the LU-factored block column
/// `kk..kk + kb` of `a` (its rows `0..kk` still `A01`), whose rows `kk..kk + kb` hold
/// `Z = L11⁻¹·C1` (after `lu::trailing_update`): `C1 ← U11⁻¹·Z` (`= A11⁻¹·C1`, cuBLAS `trsm`)
/// and `C0 ← C0 − A01·C1` (`gemm`). Nothing when `c0 == c1`.
fn upper_update<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, kb): (usize, usize),
    (c0, c1): (usize, usize),
) -> Result<()> {
    if c0 >= c1 {
        return Ok(());
    }
    let w = c1 - c0;
    let c1b = a.at(kk, c0, kb, w);
    cb::trsm(
        op,
        dev,
        LEFT,
        UPPER,
        OP_N,
        NON_UNIT,
        (kb, w),
        T::one(),
        a.at(kk, kk, kb, kb),
        c1b,
    )?;
    if kk > 0 {
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (kk, w, kb),
            -T::one(),
            a.at(0, kk, kk, kb),
            c1b,
            T::one(),
            a.at(0, c0, kk, w),
        )?;
    }
    Ok(())
}

/// Step 4 out of place and by products: the LU-factored block column `kk..kk + kb` of `a`
/// (rows `0..kk` still `A01`) into `f` (`n × kb`) as `[−A01·A11⁻¹; A11⁻¹; −L21·L11⁻¹]`, `a`
/// not written. `L11⁻¹` and `U11⁻¹` are formed in `t` (`kb × 2·kb`) with zeros in their other
/// triangles (copies of the diagonal block, `L11`'s diagonal set to ones by a strided copy
/// from `one_ptr`, `lu::trtri`, `zero_tri`); then `A11⁻¹ = U11⁻¹·L11⁻¹`, `−L21·L11⁻¹` and
/// `−A01·A11⁻¹` by three `gemm`s. cuBLAS `trsm` with `kb` right-hand columns and thousands of
/// rows (the in-place [`panel_form`]) runs far under `gemm`'s rate, and the `kk`-row ones
/// grow with `kk`.
fn panel_by_products<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (kk, kb): (usize, usize),
    f: Dense<T>,
    t: Dense<T>,
    one_ptr: u64,
) -> Result<()> {
    let (n, e) = (a.rows, kk + kb);
    let d = a.at(kk, kk, kb, kb);
    let (li, ui) = (t.at(0, 0, kb, kb), t.at(0, kb, kb, kb));
    k::copy_dense(op, dev, d, li)?;
    cb::copy_strided::<T>(op, dev, kb, (one_ptr, 1), (li.ptr, li.ld + 1))?;
    lu::trtri(op, dev, li, false)?;
    k::zero_tri(op, dev, li, false)?;
    k::copy_dense(op, dev, d, ui)?;
    lu::trtri(op, dev, ui, true)?;
    k::zero_tri(op, dev, ui, true)?;
    let f11 = f.at(kk, 0, kb, kb);
    cb::gemm(
        op,
        dev,
        OP_N,
        OP_N,
        (kb, kb, kb),
        T::one(),
        ui,
        li,
        T::zero(),
        f11,
    )?;
    if e < n {
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (n - e, kb, kb),
            -T::one(),
            a.at(e, kk, n - e, kb),
            li,
            T::zero(),
            f.at(e, 0, n - e, kb),
        )?;
    }
    if kk > 0 {
        cb::gemm(
            op,
            dev,
            OP_N,
            OP_N,
            (kk, kb, kb),
            -T::one(),
            a.at(0, kk, kk, kb),
            f11,
            T::zero(),
            f.at(0, 0, kk, kb),
        )?;
    }
    Ok(())
}

/// Step 3 on the columns `c` (`n` rows, outside the panel, their rows interchanged) from the
/// panel in its Gauss-Jordan form (`n × kb`, rows `kk..kk + kb` holding `A11⁻¹`): `C1`
/// (rows `kk..kk + kb` of `c`) saved to `ws` (`kb × c.cols`) and zeroed, then
/// `C ← C + panel·C1` (one `gemm`).
fn add_panel_times_saved<T: Scalar>(
    op: &'static str,
    dev: &Device,
    panel: Dense<T>,
    c: Dense<T>,
    (kk, kb): (usize, usize),
    ws: Dense<T>,
) -> Result<()> {
    let c1 = c.at(kk, 0, kb, c.cols);
    k::copy_dense(op, dev, c1, ws)?;
    k::zero_dense(op, dev, c1)?;
    cb::gemm(
        op,
        dev,
        OP_N,
        OP_N,
        (c.rows, c.cols, kb),
        T::one(),
        panel,
        ws,
        T::one(),
        c,
    )
}

/// Step 4: the LU-factored panel `kk..kk + kb` of `a` (rows `0..kk` still `A01`) in place to
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
    lu::trtri(op, dev, d11, true)?;
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

/// Step 3 after step 4: `C ← C + panel·C1` for the columns `C` outside the panel `kk..kk + kb`, with `C1`
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

#[cfg(test)]
mod tests {
    //! The lookahead Gauss-Jordan on small orders with forced outer widths (the built-in rule
    //! takes it only from order 3072), on CUDA only (skipped without a GPU): `X·A = I` within
    //! rounding, the same inverse as the one-level method within its conditioning, and the
    //! singular step of a zero column.
    use super::*;
    use gpu_blas::testing::{cuda_test_device, random_values};
    use num_complex::Complex64 as C64;

    const OP: &str = "gauss_jordan test";

    /// `A⁻¹` of the column-major `a` by the lookahead method (`Some(outer)`) or the one-level
    /// one (`None`); the inverse and `info`.
    fn run<T: Scalar>(dev: &Device, n: usize, a: &[T], outer: Option<usize>) -> (Vec<T>, i32) {
        run_in(dev, n, a, outer, lu::GjPartition::default())
    }

    /// [`run`] with the multiprocessors shared as `part` says.
    fn run_in<T: Scalar>(
        dev: &Device,
        n: usize,
        a: &[T],
        outer: Option<usize>,
        part: lu::GjPartition,
    ) -> (Vec<T>, i32) {
        let m = DeviceMatrix::from_col_major(dev, n, n, n, a.to_vec()).unwrap();
        let d = Dense::of(OP, &m).unwrap();
        let ipiv = DeviceVec::<i32>::zeros(dev, n).unwrap();
        let info = flag(dev, 0).unwrap();
        match outer {
            Some(outer) => {
                let pri = gpu_blas::interop::cuda_priority_stream(dev)
                    .unwrap()
                    .unwrap();
                let side = gpu_blas::interop::cuda_side_stream(dev).unwrap().unwrap();
                let streams = (&pri, &side, part);
                invert_lookahead(OP, dev, d, (&ipiv, &info), outer, streams).unwrap();
            }
            None => invert_one_level(OP, dev, d, (&ipiv, &info)).unwrap(),
        }
        k::swap_cols(OP, dev, d, &ipiv).unwrap();
        let x = m.to_array().unwrap();
        let info = read_i32(&info).unwrap();
        ((0..n * n).map(|t| x[(t % n, t / n)]).collect(), info)
    }

    fn max_abs<T: Scalar>(v: &[T]) -> f64 {
        v.iter().fold(0f64, |s, x| s.max(x.to_c64().norm()))
    }

    fn lookahead_inverse<T: Scalar>(dev: &Device) {
        let eps = T::epsilon().to_c64().re;
        // Orders, outer widths, and how the multiprocessors are shared.
        let none = lu::GjPartition::default();
        let all_in = lu::GjPartition {
            reserve: 40,
            clustered: false,
            side: true,
            lookahead: true,
        };
        let clustered = lu::GjPartition {
            reserve: 16,
            clustered: true,
            ..none
        };
        let cases = [
            (300usize, 128usize, none),
            (517, 192, none),
            (640, 128, none),
            (200, 64, none),
            (517, 192, clustered),
            (640, 128, all_in),
        ];
        for (n, outer, part) in cases {
            let what = format!("{} n = {n} outer = {outer} partition {part:?}", T::PREFIX);
            let a = random_values::<T>(n * n, 40 + n as u64);
            let (x, info) = run_in(dev, n, &a, Some(outer), part);
            assert_eq!(info, 0, "{what}: info");
            // max |X·A − I| ≤ c·n·eps·max|X|·max|A|·n.
            let mut worst = 0f64;
            for j in 0..n {
                for i in 0..n {
                    let mut s = C64::new(0.0, 0.0);
                    for t in 0..n {
                        s += x[i + t * n].to_c64() * a[t + j * n].to_c64();
                    }
                    let want = if i == j { 1.0 } else { 0.0 };
                    worst = worst.max((s - C64::new(want, 0.0)).norm());
                }
            }
            let (xn, an) = (max_abs(&x), max_abs(&a));
            let tol = 64.0 * (n * n) as f64 * eps * an * xn;
            assert!(worst <= tol, "{what}: max |X·A − I| = {worst:e} > {tol:e}");
            // The one-level method's inverse: the same within cond·n·eps (relative, max-norm).
            let (y, info) = run(dev, n, &a, None);
            assert_eq!(info, 0, "{what}: one-level info");
            let diff = x
                .iter()
                .zip(&y)
                .fold(0f64, |s, (p, q)| s.max((p.to_c64() - q.to_c64()).norm()));
            let tol = 64.0 * (n * n) as f64 * eps * an * xn * xn;
            assert!(diff <= tol, "{what}: max |X − Y| = {diff:e} > {tol:e}");
        }
    }

    #[test]
    fn lookahead_gauss_jordan_inverts() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        lookahead_inverse::<f64>(&dev);
        lookahead_inverse::<f32>(&dev);
        lookahead_inverse::<num_complex::Complex64>(&dev);
    }

    /// A zero column in the first, a middle and the last block column, and at a block
    /// column's edge: `info` is its 1-based index, as on one level.
    #[test]
    fn lookahead_gauss_jordan_singular_step() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        let n = 400;
        for j in [5usize, 127, 128, 250, 399] {
            let mut a = random_values::<f64>(n * n, 3 + j as u64);
            for i in 0..n {
                a[i + j * n] = 0.0;
            }
            let (_, info) = run(&dev, n, &a, Some(128));
            assert_eq!(info, j as i32 + 1, "zero column {j}");
            let part = lu::GjPartition {
                reserve: 16,
                clustered: false,
                side: true,
                lookahead: true,
            };
            let (_, info) = run_in(&dev, n, &a, Some(128), part);
            assert_eq!(info, j as i32 + 1, "zero column {j}, partition");
            let (_, info) = run(&dev, n, &a, None);
            assert_eq!(info, j as i32 + 1, "zero column {j}, one level");
        }
    }
}
