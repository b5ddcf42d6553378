//! The unblocked bordering inverse on the GPU, one border row per step, from the level-1 and
//! level-2 operations of `gpu_blas` (their CUDA kernels): with `W⁻¹` (order `t`) held in the
//! upper triangle of the leading `t × t` block of a full Hermitian working copy,
//! `r = A(0..t, t)`, `ρ = A(t, t)`:
//! `q = −W⁻¹·r` (`hemv`, upper), `β = ρ + rᴴ·q` (`dotc`, read by the host to check the
//! breakdown), `W⁻¹ += q·qᴴ/β` (`her`, upper), column `t` above the diagonal `← q/β` (`copy`,
//! `scal`, overwriting `r`, which is no longer needed), `(t, t) ← 1/β`. The lower triangle is
//! filled from the upper one at the end. Per step: two passes over the triangle of `W⁻¹` and
//! one host synchronization.

use super::cublas::{self as cb, CUBLAS_OP_C, OP_N};
use super::kernels as k;
use super::ops::hermitian_copy;
use super::Dense;
use crate::bordering::threshold;
use crate::error::{Error, Result};
use gpu_blas::blas2::Uplo;
use gpu_blas::{blas1, blas2, DeviceMatrix, DeviceVec, MatRef, Scalar};
use num_traits::{Float, ToPrimitive};

/// `A⁻¹` of the Hermitian matrix whose `uplo` triangle `a` holds, by the unblocked bordering
/// method; a numerically singular leading block is [`Error::SingularLeadingBlock`] (threshold
/// `n·ε·‖A‖₁`, as on the CPU). Also returns `‖A‖₁`.
pub(crate) fn unblocked<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<(DeviceMatrix<T>, T::Real)> {
    let dev = a.device().clone();
    let mut w = hermitian_copy(op, uplo, a)?;
    let n = w.rows();
    let anorm = k::norm1(op, &dev, Dense::of(op, &w)?)?;
    if n == 0 {
        return Ok((w, anorm));
    }
    let thr = threshold::<T>(n, anorm);
    let diag = k::diagonal(op, &dev, Dense::of(op, &w)?)?;
    steps(op, &mut w, &diag, thr)?;
    k::mirror(op, &dev, Dense::of(op, &w)?, true)?;
    Ok((w, anorm))
}

/// `A⁻¹` of the Hermitian matrix whose `uplo` triangle `a` holds, by the blocked bordering
/// method with `b` rows per step (the CPU method's steps): on the full Hermitian working copy,
/// with `W⁻¹` (order `t`) in the leading block, `R = A(0..t, t..t+b)`, `D = A(t..t+b, t..t+b)`:
/// `Q = −W⁻¹·R` and `S = D + Rᴴ·Q` (cuBLAS `gemm`, `S` in place of `D`), `S⁻¹` on the host by
/// the unblocked method (which checks the pivots `β`; `b × b` copied down and back),
/// the upper border `Q·S⁻¹` (computed in place of `R`), `W⁻¹ += (Q·S⁻¹)·Qᴴ` from it, and the
/// left border `S⁻¹·Qᴴ` (equal to `(Q·S⁻¹)ᴴ` as `S⁻¹` is Hermitian), all `gemm`. The upper triangle is copied to the
/// lower one at the end. Workspace: one `n × b` block. Also returns `‖A‖₁`.
pub(crate) fn blocked<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
    b: usize,
) -> Result<(DeviceMatrix<T>, T::Real)> {
    let dev = a.device().clone();
    let mut w = hermitian_copy(op, uplo, a)?;
    let n = w.rows();
    let anorm = k::norm1(op, &dev, Dense::of(op, &w)?)?;
    if n == 0 {
        return Ok((w, anorm));
    }
    let thr = threshold::<T>(n, anorm);
    let b = b.clamp(1, n);
    let wd = Dense::of(op, &w)?;
    let qbuf = DeviceMatrix::<T>::zeros(&dev, n, b)?;
    let qd = Dense::of(op, &qbuf)?;
    let mut s_dev = DeviceMatrix::<T>::zeros(&dev, b, b)?;
    let mut t = 0;
    while t < n {
        let tb = b.min(n - t);
        let e = t + tb;
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
        // S⁻¹ on the host (its lower triangle taken as the Hermitian S, as on the CPU).
        let mut s_blk = s_dev.block_mut(0, 0, tb, tb)?;
        s_blk.copy_from(&w.block(t, t, tb, tb)?)?;
        let mut sv = s_dev
            .block(0, 0, tb, tb)?
            .to_array()?
            .t()
            .iter()
            .copied()
            .collect::<Vec<T>>();
        // `to_array` is row-major (i, j); its transpose iterates column-major.
        crate::check::hermitian_from(Uplo::Lower, tb, &mut sv);
        crate::cpu::bordering::unblocked(tb, &mut sv, thr, t).map_err(|bd| {
            Error::SingularLeadingBlock {
                op,
                step: bd.step,
                beta: bd.beta,
                threshold: thr.to_f64().unwrap_or(f64::NAN),
            }
        })?;
        let sinv = DeviceMatrix::from_col_major(&dev, tb, tb, tb, sv)?;
        let mut s_blk = s_dev.block_mut(0, 0, tb, tb)?;
        s_blk.copy_from(&sinv.view())?;
        let sid = Dense::of(op, &s_dev)?.at(0, 0, tb, tb);
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
                sid,
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
                sid,
                q,
                T::zero(),
                wd.at(t, 0, tb, t),
            )?;
        }
        // S⁻¹ into the diagonal block.
        let mut d = w.block_mut(t, t, tb, tb)?;
        d.copy_from(&sinv.view())?;
        t = e;
    }
    k::mirror(op, &dev, wd, true)?;
    drop((qbuf, s_dev));
    Ok((w, anorm))
}

/// The bordering steps on the full Hermitian working copy `w` (any device; `diag` its diagonal
/// on the host, `thr` the breakdown threshold): afterwards the upper triangle of `w` holds the
/// upper triangle of `A⁻¹`.
pub(crate) fn steps<T: Scalar>(
    op: &'static str,
    w: &mut DeviceMatrix<T>,
    diag: &[T],
    thr: T::Real,
) -> Result<()> {
    let dev = w.device().clone();
    let n = w.rows();
    let mut q = DeviceVec::<T>::zeros(&dev, n)?;
    for (t, d) in diag.iter().enumerate().take(n) {
        let mut beta = d.re();
        if t > 0 {
            blas2::hemv(
                Uplo::Upper,
                -T::one(),
                w.block(0, 0, t, t)?,
                w.block(0, t, t, 1)?.col(0)?,
                T::zero(),
                q.strided_mut(0, t, 1)?,
            )?;
            let rq = blas1::dotc(w.block(0, t, t, 1)?.col(0)?, q.strided(0, t, 1)?)?;
            beta += rq.re();
        }
        if Float::abs(beta) <= thr || !Float::is_finite(beta) {
            return Err(Error::SingularLeadingBlock {
                op,
                step: t + 1,
                beta: Float::abs(beta).to_f64().unwrap_or(f64::NAN),
                threshold: thr.to_f64().unwrap_or(f64::NAN),
            });
        }
        let binv = Float::recip(beta);
        if t > 0 {
            blas2::her(
                Uplo::Upper,
                binv,
                q.strided(0, t, 1)?,
                w.block_mut(0, 0, t, t)?,
            )?;
            let mut col = w.block_mut(0, t, t, 1)?;
            blas1::copy(q.strided(0, t, 1)?, col.col_mut(0)?)?;
            blas1::scal(T::from_real(binv), col.col_mut(0)?)?;
        }
        let one = DeviceMatrix::from_col_major(&dev, 1, 1, 1, vec![T::from_real(binv)])?;
        w.block_mut(t, t, 1, 1)?.copy_from(&one.view())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_blas::Device;
    use num_complex::Complex64;

    /// The device-independent part, run on the CPU backend of `gpu_blas`: the upper triangle
    /// of the result matches the CPU implementation's inverse.
    fn check<T: Scalar>(n: usize) {
        let mut h: Vec<T> = gpu_blas::testing::random_values(n * n, n as u64 + 5);
        for j in 0..n {
            for i in 0..j {
                h[j * n + i] = h[i * n + j].conj();
            }
            h[j * n + j] = T::from_f64(n as f64 + 2.0);
        }
        let dev = Device::cpu();
        let mut w = DeviceMatrix::from_col_major(&dev, n, n, n, h.clone()).unwrap();
        let diag: Vec<T> = (0..n).map(|j| h[j * n + j]).collect();
        let thr = threshold::<T>(n, T::from_f64(1e-3).re());
        steps("test", &mut w, &diag, thr).unwrap();
        let got = w.to_array().unwrap();
        let mut want = h.clone();
        crate::cpu::bordering::unblocked(n, &mut want, thr, 0)
            .unwrap_or_else(|_| panic!("reference breakdown"));
        let tol = 100.0 * n as f64 * T::epsilon().to_f64().unwrap();
        for j in 0..n {
            for i in 0..=j {
                let d = (got[(i, j)] - want[j * n + i]).to_c64().norm();
                assert!(d <= tol, "n = {n} ({i}, {j}): {d:e}");
            }
        }
    }

    #[test]
    fn steps_match_the_cpu_method() {
        for n in [1, 2, 5, 33] {
            check::<f64>(n);
            check::<Complex64>(n);
            check::<f32>(n);
        }
    }
}
