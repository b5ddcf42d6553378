//! The bordering inverse on the GPU.
//!
//! Unblocked: with `W⁻¹` (order `t`) held in the upper triangle of the leading `t × t` block
//! of a full Hermitian working copy, `r = A(0..t, t)`, `ρ = A(t, t)`: `q = −W⁻¹·r`,
//! `β = ρ + rᴴ·q`, `W⁻¹ += q·qᴴ/β`, column `t` above the diagonal `← q/β`, `(t, t) ← 1/β`.
//! Each step is two kernels and one pass over the triangle of `W⁻¹`: `bord_step` applies the
//! previous step's update and border while it forms the next product `W⁻¹·r` (the next `r` is a
//! column of the input, known in advance), and `bord_finish` turns that product into `q` and
//! the next `β` (one block). Nothing waits for the host: a breakdown (`|β|` at or under the
//! threshold) is recorded on the device and read once at the end. The lower triangle is filled
//! from the upper one at the end.
//!
//! Blocked: see [`blocked`].

use super::cublas::{self as cb, CUBLAS_OP_C, OP_N};
use super::kernels as k;
use super::ops::hermitian_copy;
use super::{Dense, NB};
use crate::bordering::threshold;
use crate::error::{Error, Result};
use gpu_blas::blas2::Uplo;
use gpu_blas::{DeviceMatrix, DeviceVec, MatRef, Scalar};
use num_traits::ToPrimitive;

/// `A⁻¹` of the Hermitian matrix whose `uplo` triangle `a` holds, by the unblocked bordering
/// method; a numerically singular leading block is [`Error::SingularLeadingBlock`] (threshold
/// `n·ε·‖A‖₁`, as on the CPU). Also returns `‖A‖₁`.
pub(crate) fn unblocked<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<(DeviceMatrix<T>, T::Real)> {
    let dev = a.device().clone();
    let w = hermitian_copy(op, uplo, a)?;
    let n = w.rows();
    let anorm = k::norm1(op, &dev, Dense::of(op, &w)?)?;
    if n == 0 {
        return Ok((w, anorm));
    }
    let thr = threshold::<T>(n, anorm);
    let wd = Dense::of(op, &w)?;
    let st = k::BordState::<T>::new(&dev, n)?;
    for t in 0..n {
        if t > 0 {
            k::bord_step(op, &dev, wd, t - 1, &st, true)?;
        }
        k::bord_finish(op, &dev, wd, t, &st, thr)?;
    }
    k::bord_step(op, &dev, wd, n - 1, &st, false)?;
    let flag = st.flag.read_range(0, 1)?[0];
    if flag != i32::MAX {
        return Err(Error::SingularLeadingBlock {
            op,
            step: flag as usize,
            beta: st.fbeta.read_range(0, 1)?[0].to_f64().unwrap_or(f64::NAN),
            threshold: thr.to_f64().unwrap_or(f64::NAN),
        });
    }
    k::mirror(op, &dev, Dense::of(op, &w)?, true)?;
    Ok((w, anorm))
}

/// Diagonal blocks of at most this order are inverted by one `bord_leaf` launch (the block in
/// shared memory); larger single steps recurse with steps of this order.
const LEAF_MAX: usize = NB;

/// Breakdown checks (each a wait for the device) per top-level pass, at most: a failing matrix
/// stops within about `1/CHECKS` of the work after its failing step.
const CHECKS: usize = 16;

/// `A⁻¹` of the Hermitian matrix whose `uplo` triangle `a` holds, by the blocked bordering
/// method with `b` rows per step (the CPU method's steps): on the full Hermitian working copy,
/// with `W⁻¹` (order `t`) in the leading block, `R = A(0..t, t..t+b)`, `D = A(t..t+b, t..t+b)`:
/// `Q = −W⁻¹·R` and `S = D + Rᴴ·Q` (cuBLAS `gemm`, `S` in place of `D`), then `S⁻¹` in place
/// (see [`invert_in_place`]), the upper border `Q·S⁻¹` (computed in place of `R`),
/// `W⁻¹ += (Q·S⁻¹)·Qᴴ` from it, and the left border `S⁻¹·Qᴴ` (equal to `(Q·S⁻¹)ᴴ` as `S⁻¹` is
/// Hermitian), all `gemm`. The upper triangle is copied to the lower one at the end.
/// Workspace: one `n × b` block (and `b × 64` for the inner level). Also returns `‖A‖₁`.
pub(crate) fn blocked<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
    b: usize,
) -> Result<(DeviceMatrix<T>, T::Real)> {
    let dev = a.device().clone();
    let mut w = hermitian_copy(op, uplo, a)?;
    let anorm = k::norm1(op, &dev, Dense::of(op, &w)?)?;
    blocked_in_place(op, &mut w, b, anorm, false)?;
    Ok((w, anorm))
}

/// [`blocked`] on the compact, exactly Hermitian working matrix `w` (both triangles), whose
/// `‖·‖₁` is `anorm`: `w` becomes `A⁻¹`. A pivot `β` with `|β|` at or under the threshold (or
/// not finite) is [`Error::SingularLeadingBlock`]; with `positive`, so is any `β` at or under
/// the threshold (the test for a positive definite `A`, whose pivots are all positive).
pub(crate) fn blocked_in_place<T: Scalar>(
    op: &'static str,
    w: &mut DeviceMatrix<T>,
    b: usize,
    anorm: T::Real,
    positive: bool,
) -> Result<()> {
    let n = w.rows();
    if n == 0 {
        return Ok(());
    }
    let dev = w.device().clone();
    let level = Level {
        op,
        thr: threshold::<T>(n, anorm),
        positive,
        flag: DeviceVec::from_vec(&dev, vec![i32::MAX])?,
        fbeta: DeviceVec::zeros(&dev, 1)?,
    };
    invert_in_place(&level, w, 0, n, b.clamp(1, n), true)?;
    level.check()?;
    k::mirror(op, &dev, Dense::of(op, w)?, true)?;
    Ok(())
}

/// What every level of [`invert_in_place`] shares.
struct Level<T: Scalar> {
    op: &'static str,
    /// Breakdown threshold of `|β|`.
    thr: T::Real,
    /// Whether a pivot `β ≤ thr` fails too.
    positive: bool,
    /// The first failing step (1-based, `i32::MAX`: none), set on the device.
    flag: DeviceVec<i32>,
    /// `|β|` of that step.
    fbeta: DeviceVec<T::Real>,
}

impl<T: Scalar> Level<T> {
    /// Waits for the device and turns a recorded failing step into its error.
    fn check(&self) -> Result<()> {
        let step = self.flag.read_range(0, 1)?[0];
        if step == i32::MAX {
            return Ok(());
        }
        Err(Error::SingularLeadingBlock {
            op: self.op,
            step: step as usize,
            beta: self.fbeta.read_range(0, 1)?[0].to_f64().unwrap_or(f64::NAN),
            threshold: self.thr.to_f64().unwrap_or(f64::NAN),
        })
    }
}

/// Replaces the `m × m` diagonal block of `w` at `(o, o)`, Hermitian and held in both triangles,
/// by its inverse (both triangles), by blocked bordering with `b` rows per step. A block that
/// is a single step is inverted by `bord_leaf` when of order ≤ [`LEAF_MAX`], else recursively
/// with steps of that order. Failing steps are numbered from the start of the whole matrix and
/// recorded on the device; the `top` level checks the record [`CHECKS`] times at most.
fn invert_in_place<T: Scalar>(
    lv: &Level<T>,
    w: &mut DeviceMatrix<T>,
    o: usize,
    m: usize,
    b: usize,
    top: bool,
) -> Result<()> {
    let op = lv.op;
    let dev = w.device().clone();
    if m <= b {
        if m > LEAF_MAX {
            return invert_in_place(lv, w, o, m, LEAF_MAX, false);
        }
        let d = Dense::of(op, w)?.at(o, o, m, m);
        return k::bord_leaf(op, &dev, d, o, lv.thr, lv.positive, &lv.flag, &lv.fbeta);
    }
    let wd = Dense::of(op, w)?.at(o, o, m, m);
    // Q is t × tb with t < m a multiple of b.
    let qbuf = DeviceMatrix::<T>::zeros(&dev, (m - 1) / b * b, b)?;
    let qd = Dense::of(op, &qbuf)?;
    let every = m.div_ceil(b).div_ceil(CHECKS);
    let mut t = 0;
    let mut step = 0;
    while t < m {
        let tb = b.min(m - t);
        let sd = wd.at(t, t, tb, tb);
        if t > 0 {
            let (r, q) = (wd.at(0, t, t, tb), qd.at(0, 0, t, tb));
            // Q = −W⁻¹·R, S = D + Rᴴ·Q (in place of D).
            cb::gemm(
                op,
                &dev,
                OP_N,
                OP_N,
                (t, tb, t),
                -T::one(),
                wd.at(0, 0, t, t),
                r,
                T::zero(),
                q,
            )?;
            cb::gemm(
                op,
                &dev,
                CUBLAS_OP_C,
                OP_N,
                (tb, tb, t),
                T::one(),
                r,
                q,
                T::one(),
                sd,
            )?;
        }
        invert_in_place(lv, w, o + t, tb, b, false)?;
        step += 1;
        if top && step % every == 0 && t + tb < m {
            lv.check()?;
        }
        if t > 0 {
            // The upper border Q·S⁻¹ (R, its previous content, is no longer needed), then
            // W⁻¹ += (Q·S⁻¹)·Qᴴ from that border, and the left border S⁻¹·Qᴴ.
            let (q, qs) = (qd.at(0, 0, t, tb), wd.at(0, t, t, tb));
            cb::gemm(
                op,
                &dev,
                OP_N,
                OP_N,
                (t, tb, tb),
                T::one(),
                q,
                sd,
                T::zero(),
                qs,
            )?;
            cb::gemm(
                op,
                &dev,
                OP_N,
                CUBLAS_OP_C,
                (t, t, tb),
                T::one(),
                qs,
                q,
                T::one(),
                wd.at(0, 0, t, t),
            )?;
            cb::gemm(
                op,
                &dev,
                OP_N,
                CUBLAS_OP_C,
                (tb, t, tb),
                T::one(),
                sd,
                q,
                T::zero(),
                wd.at(t, 0, tb, t),
            )?;
        }
        t += tb;
    }
    drop(qbuf);
    Ok(())
}
