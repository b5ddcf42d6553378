//! The CUDA branch of every public operation that runs on a GPU: the same validation order and
//! errors as the CPU branch, the work on device copies (see the module docs of `gpu`).
//!
//! Memory per path (besides the result, `n × n` with leading dimension `n`):
//! * out-of-place factorizations and inverses work in their result; LU inverses add an
//!   `n × NB` workspace, Gauss-Jordan an `NB × n` one;
//! * in-place ones hold one `n × n` working copy (the view is written back only on success);
//! * solves hold a copy of the factors (`n × n`) and one or two `n × nrhs` copies of `b`;
//! * `norm1`, `hermitian_norm1`, `lu_rcond`, `cholesky_rcond`, `determinant` hold one `n × n`
//!   copy; the rcond estimators add a few `n`-vectors.

use super::kernels::{self as k, Part};
use super::{copy_in, copy_triangle, copy_view, flag, gauss_jordan, lu, potrf, read_i32, Dense};
use crate::bordering::Bordering;
use crate::cpu::condition::{norm1_estimate, rcond_from};
use crate::determinant::{from_diagonal, Determinant};
use crate::error::{Error, Result};
use crate::inverse::{Inverse, Method};
use crate::lu::{check_pivots, LuFactors};
use gpu_blas::blas2::{Trans, Uplo};
use gpu_blas::{Device, DeviceMatrix, DeviceVec, MatMut, MatRef, Scalar};

/// [`gpu_blas::Error::NonFinite`] at the first non-finite entry of `part` of `a`.
fn finite<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>, part: Part) -> Result<()> {
    match k::first_nonfinite(op, dev, a, part)? {
        None => Ok(()),
        Some(index) => Err(gpu_blas::Error::NonFinite { op, index }.into()),
    }
}

fn part_of(uplo: Uplo) -> Part {
    match uplo {
        Uplo::Lower => Part::Lower,
        Uplo::Upper => Part::Upper,
    }
}

/// A compact copy of `a` with its non-finite check (whole matrix).
fn checked_copy<T: Scalar>(op: &'static str, a: &MatRef<'_, T>) -> Result<DeviceMatrix<T>> {
    let w = copy_in(a)?;
    finite(op, a.device(), Dense::of(op, &w)?, Part::All)?;
    Ok(w)
}

/// A compact, exactly Hermitian copy of `a` built from its `uplo` triangle (checked finite).
pub(crate) fn hermitian_copy<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<DeviceMatrix<T>> {
    let w = copy_in(a)?;
    let d = Dense::of(op, &w)?;
    finite(op, a.device(), d, part_of(uplo))?;
    k::mirror(op, a.device(), d, uplo == Uplo::Upper)?;
    Ok(w)
}

/// LU in place on a compact matrix: pivots and `info` (waits for `info`).
fn factor_lu<T: Scalar>(
    op: &'static str,
    dev: &Device,
    w: &DeviceMatrix<T>,
    pivots: &DeviceVec<i32>,
) -> Result<i32> {
    let n = w.rows();
    if n == 0 {
        return Ok(0);
    }
    let info = flag(dev, 0)?;
    lu::getrf(op, dev, Dense::of(op, w)?, pivots, &info)?;
    read_i32(&info)
}

/// Cholesky (lower) in place on a compact Hermitian matrix; the failing column as an error.
fn factor_cholesky<T: Scalar>(op: &'static str, dev: &Device, w: &DeviceMatrix<T>) -> Result<()> {
    match try_cholesky(op, dev, w)? {
        0 => Ok(()),
        c => Err(Error::NotPositiveDefinite {
            op,
            column: c as usize,
        }),
    }
}

/// Cholesky (lower) in place; returns `info` (0 or the 1-based failing column).
fn try_cholesky<T: Scalar>(op: &'static str, dev: &Device, w: &DeviceMatrix<T>) -> Result<i32> {
    if w.rows() == 0 {
        return Ok(0);
    }
    let info = flag(dev, 0)?;
    potrf::potrf(op, dev, Dense::of(op, w)?, &info)?;
    read_i32(&info)
}

fn singular(op: &'static str, info: i32) -> Result<()> {
    if info > 0 {
        return Err(Error::Singular {
            op,
            step: info as usize,
        });
    }
    Ok(())
}

pub(crate) fn lu_factor<T: Scalar>(op: &'static str, a: &MatRef<'_, T>) -> Result<LuFactors<T>> {
    let dev = a.device();
    let w = checked_copy(op, a)?;
    let pivots = DeviceVec::zeros(dev, a.rows())?;
    let info = factor_lu(op, dev, &w, &pivots)?;
    Ok(LuFactors {
        factors: w,
        pivots,
        info,
    })
}

pub(crate) fn lu_factor_in_place<T: Scalar>(
    op: &'static str,
    a: &mut MatMut<'_, T>,
    pivots: &mut DeviceVec<i32>,
) -> Result<i32> {
    let dev = a.device().clone();
    let w = checked_copy(op, &a.as_ref())?;
    // The pivots are written by the kernels; every argument was checked before this point.
    let info = factor_lu(op, &dev, &w, pivots)?;
    copy_view(&w.view(), a)?;
    Ok(info)
}

/// Host pivots, validated in `1..=n`.
fn host_pivots(op: &'static str, n: usize, pivots: &DeviceVec<i32>) -> Result<Vec<i32>> {
    let piv = pivots.to_vec()?;
    check_pivots(op, n, &piv)?;
    Ok(piv)
}

/// [`Error::Singular`] at the first exactly-zero diagonal entry of the factors.
fn zero_pivot<T: Scalar>(op: &'static str, dev: &Device, lu: Dense<T>) -> Result<()> {
    let d = k::diagonal(op, dev, lu)?;
    match d.iter().position(|&v| v == T::zero()) {
        None => Ok(()),
        Some(j) => Err(Error::Singular { op, step: j + 1 }),
    }
}

pub(crate) fn lu_solve<T: Scalar>(
    op: &'static str,
    trans: Trans,
    f: &MatRef<'_, T>,
    pivots: &DeviceVec<i32>,
    b: &mut MatMut<'_, T>,
) -> Result<()> {
    let (dev, n) = (f.device().clone(), f.rows());
    let piv = host_pivots(op, n, pivots)?;
    let lu = copy_in(f)?;
    let lud = Dense::of(op, &lu)?;
    zero_pivot(op, &dev, lud)?;
    let bw = checked_copy(op, &b.as_ref())?;
    let x = lu::getrs(op, trans, lud, pivots, &piv, bw)?;
    copy_view(&x.view(), b)
}

/// Factor and invert the compact matrix `w` in place; [`Error::Singular`] on `info > 0`.
/// Returns the pivots.
fn invert_lu<T: Scalar>(
    op: &'static str,
    dev: &Device,
    w: &DeviceMatrix<T>,
) -> Result<DeviceVec<i32>> {
    let pivots = DeviceVec::zeros(dev, w.rows())?;
    singular(op, factor_lu(op, dev, w, &pivots)?)?;
    lu::getri(op, dev, Dense::of(op, w)?, &pivots)?;
    Ok(pivots)
}

/// `A⁻¹` for the compact `w` holding `A`: factored in place, the inverse in a second matrix
/// where one more `n × n` fits (`w` is then the one extra matrix beside the caller's input and
/// the result): `U⁻¹` formed during the factorization where it runs with the lookahead
/// ([`lu::getrf_uinv`]), then [`lu::getri_from_uinv`]; otherwise the factors copied and
/// [`lu::getri_into`]. Where the second matrix does not fit, in place in `w` by the blocked
/// [`lu::getri`] (an `n × 256` workspace). [`Error::Singular`] on a zero pivot. Returns the
/// matrix holding the inverse.
fn factor_and_invert<T: Scalar>(
    op: &'static str,
    dev: &Device,
    w: DeviceMatrix<T>,
) -> Result<DeviceMatrix<T>> {
    let n = w.rows();
    let pivots = DeviceVec::zeros(dev, n)?;
    match DeviceMatrix::<T>::zeros(dev, n, n) {
        Ok(x) => {
            let (f, xd) = (Dense::of(op, &w)?, Dense::of(op, &x)?);
            if n > 0 {
                let info = flag(dev, 0)?;
                let s = super::launch_stream(op, dev)?;
                lu::trace_mark(op, &s, "start", 0)?;
                let uinv = lu::getrf_uinv(op, dev, f, &pivots, &info, xd)?;
                lu::trace_mark(op, &s, "factor-end", n)?;
                singular(op, read_i32(&info)?)?;
                if uinv {
                    lu::getri_from_uinv(op, dev, f, xd, &pivots)?;
                    lu::trace_mark(op, &s, "solve-end", n)?;
                } else {
                    k::copy_dense(op, dev, f, xd)?;
                    lu::getri_into(op, dev, f, xd, &pivots)?;
                }
            }
            Ok(x)
        }
        Err(gpu_blas::Error::OutOfMemory { .. }) => {
            singular(op, factor_lu(op, dev, &w, &pivots)?)?;
            lu::getri(op, dev, Dense::of(op, &w)?, &pivots)?;
            Ok(w)
        }
        Err(e) => Err(e.into()),
    }
}

pub(crate) fn lu_inverse<T: Scalar>(
    op: &'static str,
    a: &MatRef<'_, T>,
) -> Result<DeviceMatrix<T>> {
    let dev = a.device();
    let w = checked_copy(op, a)?;
    factor_and_invert(op, dev, w)
}

pub(crate) fn lu_inverse_in_place<T: Scalar>(
    op: &'static str,
    a: &mut MatMut<'_, T>,
) -> Result<()> {
    let dev = a.device().clone();
    let w = checked_copy(op, &a.as_ref())?;
    invert_lu(op, &dev, &w)?;
    copy_view(&w.view(), a)
}

pub(crate) fn gauss_jordan_inverse<T: Scalar>(
    op: &'static str,
    a: &MatRef<'_, T>,
) -> Result<DeviceMatrix<T>> {
    let w = checked_copy(op, a)?;
    gauss_jordan::invert(op, a.device(), &w)?;
    Ok(w)
}

pub(crate) fn gauss_jordan_inverse_in_place<T: Scalar>(
    op: &'static str,
    a: &mut MatMut<'_, T>,
) -> Result<()> {
    let dev = a.device().clone();
    let w = checked_copy(op, &a.as_ref())?;
    gauss_jordan::invert(op, &dev, &w)?;
    copy_view(&w.view(), a)
}

/// Moves the lower factor in `w` to the `uplo` triangle (`U = Lᴴ`) and zeros the other one.
fn finish_factor<T: Scalar>(op: &'static str, dev: &Device, uplo: Uplo, w: Dense<T>) -> Result<()> {
    match uplo {
        Uplo::Lower => k::zero_tri(op, dev, w, false),
        Uplo::Upper => {
            k::mirror(op, dev, w, false)?;
            k::zero_tri(op, dev, w, true)
        }
    }
}

pub(crate) fn cholesky_factor<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<DeviceMatrix<T>> {
    let dev = a.device();
    let w = hermitian_copy(op, uplo, a)?;
    factor_cholesky(op, dev, &w)?;
    finish_factor(op, dev, uplo, Dense::of(op, &w)?)?;
    Ok(w)
}

pub(crate) fn cholesky_factor_in_place<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &mut MatMut<'_, T>,
) -> Result<()> {
    let dev = a.device().clone();
    let w = hermitian_copy(op, uplo, &a.as_ref())?;
    factor_cholesky(op, &dev, &w)?;
    if uplo == Uplo::Upper {
        k::mirror(op, &dev, Dense::of(op, &w)?, false)?;
    }
    copy_triangle(uplo == Uplo::Lower, &w, a)
}

/// A compact lower factor `L` from the `uplo` triangle of a factor view, its diagonal checked
/// positive (as the CPU path's `read_factor`).
fn read_factor<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    f: &MatRef<'_, T>,
) -> Result<DeviceMatrix<T>> {
    let l = hermitian_copy(op, uplo, f)?;
    let d = k::diagonal(op, f.device(), Dense::of(op, &l)?)?;
    if let Some(j) = d.iter().position(|v| !potrf::positive(v.re())) {
        return Err(Error::NotPositiveDefinite { op, column: j + 1 });
    }
    Ok(l)
}

pub(crate) fn cholesky_solve<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    f: &MatRef<'_, T>,
    b: &mut MatMut<'_, T>,
) -> Result<()> {
    let dev = f.device().clone();
    let l = read_factor(op, uplo, f)?;
    let bw = checked_copy(op, &b.as_ref())?;
    if f.rows() > 0 {
        potrf::potrs(op, &dev, Dense::of(op, &l)?, Dense::of(op, &bw)?)?;
    }
    copy_view(&bw.view(), b)
}

/// Hermitian copy, Cholesky and inverse in place (both triangles).
fn invert_cholesky<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<DeviceMatrix<T>> {
    let dev = a.device();
    let w = hermitian_copy(op, uplo, a)?;
    factor_cholesky(op, dev, &w)?;
    potrf::potri(op, dev, Dense::of(op, &w)?)?;
    Ok(w)
}

pub(crate) fn cholesky_inverse<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<DeviceMatrix<T>> {
    invert_cholesky(op, uplo, a)
}

pub(crate) fn cholesky_inverse_in_place<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &mut MatMut<'_, T>,
) -> Result<()> {
    let w = invert_cholesky(op, uplo, &a.as_ref())?;
    copy_view(&w.view(), a)
}

pub(crate) fn determinant<T: Scalar>(
    op: &'static str,
    a: &MatRef<'_, T>,
) -> Result<Determinant<T>> {
    let f = lu_factor(op, a)?;
    factors_determinant(op, &f)
}

pub(crate) fn factors_determinant<T: Scalar>(
    op: &'static str,
    f: &LuFactors<T>,
) -> Result<Determinant<T>> {
    let n = f.factors.rows();
    let piv = host_pivots(op, n, &f.pivots)?;
    let d = k::diagonal(op, f.factors.device(), Dense::of(op, &f.factors)?)?;
    Ok(from_diagonal(&d, &piv))
}

pub(crate) fn norm1<T: Scalar>(op: &'static str, a: &MatRef<'_, T>) -> Result<T::Real> {
    let w = checked_copy(op, a)?;
    k::norm1(op, a.device(), Dense::of(op, &w)?)
}

pub(crate) fn hermitian_norm1<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<T::Real> {
    let w = hermitian_copy(op, uplo, a)?;
    k::norm1(op, a.device(), Dense::of(op, &w)?)
}

/// Runs the Hager–Higham estimator with `solve(x, adjoint)` on the GPU, keeping the first
/// error.
fn estimate<T: Scalar>(
    n: usize,
    mut solve: impl FnMut(&mut [T], bool) -> Result<()>,
) -> Result<T::Real> {
    let mut err = None;
    let est = norm1_estimate::<T>(n, |x, adjoint| {
        if err.is_none() {
            if let Err(e) = solve(x, adjoint) {
                err = Some(e);
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(est),
    }
}

/// `x ← op(A)⁻¹·x` for one host vector through the GPU `getrs`.
fn lu_solve_vec<T: Scalar>(
    op: &'static str,
    dev: &Device,
    lu: Dense<T>,
    ipiv: &DeviceVec<i32>,
    piv: &[i32],
    x: &mut [T],
    adjoint: bool,
) -> Result<()> {
    let n = x.len();
    let b = DeviceMatrix::from_col_major(dev, n, 1, n.max(1), x.to_vec())?;
    let t = if adjoint { Trans::C } else { Trans::N };
    let r = lu::getrs(op, t, lu, ipiv, piv, b)?;
    x.copy_from_slice(&r.col(0)?.to_vec()?);
    Ok(())
}

/// rcond from LU factors in `lu` (compact, no zero pivot checked here).
fn lu_rcond_dev<T: Scalar>(
    op: &'static str,
    dev: &Device,
    lu: Dense<T>,
    ipiv: &DeviceVec<i32>,
    piv: &[i32],
    anorm: T::Real,
) -> Result<T::Real> {
    let n = lu.rows;
    if k::diagonal(op, dev, lu)?.contains(&T::zero()) {
        return Ok(num_traits::Zero::zero());
    }
    let est = estimate::<T>(n, |x, adj| lu_solve_vec(op, dev, lu, ipiv, piv, x, adj))?;
    Ok(rcond_from(n, anorm, est))
}

/// rcond from a lower Cholesky factor in `l`.
fn cholesky_rcond_dev<T: Scalar>(
    op: &'static str,
    dev: &Device,
    l: Dense<T>,
    anorm: T::Real,
) -> Result<T::Real> {
    let n = l.rows;
    let est = estimate::<T>(n, |x, _| {
        let b = DeviceMatrix::from_col_major(dev, n, 1, n.max(1), x.to_vec())?;
        potrf::potrs(op, dev, l, Dense::of(op, &b)?)?;
        x.copy_from_slice(&b.col(0)?.to_vec()?);
        Ok(())
    })?;
    Ok(rcond_from(n, anorm, est))
}

pub(crate) fn lu_rcond<T: Scalar>(
    op: &'static str,
    f: &MatRef<'_, T>,
    pivots: &DeviceVec<i32>,
    anorm: T::Real,
) -> Result<T::Real> {
    let (dev, n) = (f.device().clone(), f.rows());
    let piv = host_pivots(op, n, pivots)?;
    let lu = checked_copy(op, f)?;
    lu_rcond_dev(op, &dev, Dense::of(op, &lu)?, pivots, &piv, anorm)
}

pub(crate) fn cholesky_rcond<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    f: &MatRef<'_, T>,
    anorm: T::Real,
) -> Result<T::Real> {
    let l = read_factor(op, uplo, f)?;
    cholesky_rcond_dev(op, f.device(), Dense::of(op, &l)?, anorm)
}

/// The [`Inverse`] of `A` from its computed inverse `x`, with the exact
/// `rcond = 1/(‖A‖₁·‖A⁻¹‖₁)` (`anorm = ‖A‖₁`; one column-sum pass over `x`).
fn with_exact_rcond<T: Scalar>(
    op: &'static str,
    dev: &Device,
    x: DeviceMatrix<T>,
    anorm: T::Real,
    method_used: Method,
) -> Result<Inverse<T>> {
    let xnorm = k::norm1(op, dev, Dense::of(op, &x)?)?;
    let rcond = rcond_from(x.rows(), anorm, xnorm);
    Ok(Inverse {
        matrix: x,
        method_used,
        rcond,
        rcond_exact: true,
        norm1: anorm,
    })
}

/// LU path of [`inverse`]: factor the compact matrix `w` (holding `A`), invert.
fn inverse_lu<T: Scalar>(
    op: &'static str,
    dev: &Device,
    w: DeviceMatrix<T>,
    anorm: T::Real,
) -> Result<Inverse<T>> {
    let matrix = factor_and_invert(op, dev, w)?;
    with_exact_rcond(op, dev, matrix, anorm, Method::Lu)
}

/// Cholesky path of [`inverse`] on the Hermitian compact `w`, already factored.
fn inverse_cholesky<T: Scalar>(
    op: &'static str,
    dev: &Device,
    w: DeviceMatrix<T>,
    anorm: T::Real,
    method_used: Method,
) -> Result<Inverse<T>> {
    potrf::potri(op, dev, Dense::of(op, &w)?)?;
    with_exact_rcond(op, dev, w, anorm, method_used)
}

/// Rows per step of the blocked bordering inverse that [`inverse`] with [`Method::Auto`] uses
/// for positive definite input on the GPU (256 and 512 were equally fast at n = 8000 on an
/// H100, 64 1.6× slower).
pub(crate) const AUTO_BORDERING_BLOCK: usize = 256;

/// Order from which [`inverse`] with [`Method::Auto`] inverts general input on the GPU by
/// Gauss-Jordan (where it runs on two levels with the lookahead) instead of LU: f64 on an
/// H100, n = 4000 15.7 ms against `lu_inverse`'s 17.2, n = 8000 40.5 against 48.0, n = 16000
/// 201 against 211; in place, with workspaces of `3·n·b` elements (`b` the outer width)
/// instead of a second `n × n` matrix.
pub(crate) const AUTO_GAUSS_JORDAN_MIN: usize = 3072;

pub(crate) fn inverse<T: Scalar>(
    op: &'static str,
    a: &MatRef<'_, T>,
    method: Method,
) -> Result<Inverse<T>> {
    let dev = a.device().clone();
    // The inverse with the exact `rcond = 1/(‖A‖₁·‖A⁻¹‖₁)` of the computed `A⁻¹`.
    let exact = |w: DeviceMatrix<T>, anorm: T::Real, method_used: Method| {
        with_exact_rcond(op, &dev, w, anorm, method_used)
    };
    match method {
        Method::Auto => {
            let w = checked_copy(op, a)?;
            let wd = Dense::of(op, &w)?;
            let anorm = k::norm1(op, &dev, wd)?;
            let mut w = w;
            if k::is_hermitian_positive_diagonal(op, &dev, wd)? {
                // Hermitian: the blocked bordering inverse, kept when every pivot β is
                // positive (the matrix is positive definite).
                match super::bordering::blocked_in_place(
                    op,
                    &mut w,
                    AUTO_BORDERING_BLOCK,
                    anorm,
                    true,
                ) {
                    Ok(()) => {
                        let used = Method::Bordering(
                            Uplo::Lower,
                            Bordering::Blocked(AUTO_BORDERING_BLOCK),
                        );
                        return exact(w, anorm, used);
                    }
                    Err(Error::SingularLeadingBlock { .. }) => {}
                    Err(e) => return Err(e),
                }
                // Not positive definite: the copy was overwritten, read the input again.
                copy_view(a, &mut w.view_mut())?;
            }
            // Partial pivoting: Gauss-Jordan with the lookahead from AUTO_GAUSS_JORDAN_MIN
            // on, LU below.
            if w.rows() >= AUTO_GAUSS_JORDAN_MIN {
                gauss_jordan::invert(op, &dev, &w)?;
                return exact(w, anorm, Method::GaussJordan);
            }
            inverse_lu(op, &dev, w, anorm)
        }
        Method::Lu => {
            let w = checked_copy(op, a)?;
            let anorm = k::norm1(op, &dev, Dense::of(op, &w)?)?;
            inverse_lu(op, &dev, w, anorm)
        }
        Method::Cholesky(uplo) => {
            let w = hermitian_copy(op, uplo, a)?;
            let anorm = k::norm1(op, &dev, Dense::of(op, &w)?)?;
            factor_cholesky(op, &dev, &w)?;
            inverse_cholesky(op, &dev, w, anorm, method)
        }
        Method::GaussJordan => {
            let w = checked_copy(op, a)?;
            let anorm = k::norm1(op, &dev, Dense::of(op, &w)?)?;
            gauss_jordan::invert(op, &dev, &w)?;
            exact(w, anorm, method)
        }
        Method::Bordering(uplo, variant) => {
            let (w, anorm) = match variant {
                Bordering::Unblocked => super::bordering::unblocked(op, uplo, a)?,
                Bordering::Blocked(b) => super::bordering::blocked(op, uplo, a, b)?,
            };
            exact(w, anorm, method)
        }
    }
}
