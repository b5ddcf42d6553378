//! Cholesky on the GPU, lower storage (`A = L·Lᴴ`): `potrf` (blocked right-looking), `potrs`,
//! `potri` (`trtri` + `lauum`). Upper storage is converted by the callers (`mirror`).

use super::cublas::{self as cb, LEFT, LOWER, NON_UNIT, OP_N, RIGHT};
use super::kernels as k;
use super::lu::trtri_zeroed;
use super::{Dense, NB};
use crate::error::Result;
use gpu_blas::{Device, DeviceVec, Scalar};
use num_traits::One;

/// Block columns of [`potrf`] from this order up (below it, one level of `NB` columns).
const POTRF_OUTER_FROM: usize = 2048;

/// Width of [`potrf`]'s outer block columns.
const POTRF_OUTER: usize = 512;

/// `A = L·Lᴴ` in place on the lower triangle of the `n × n` matrix `a` (LAPACK `potrf`);
/// `info` (0 on entry) gets the 1-based column of the first non-positive pivot. Queued, not
/// waited for; after a failure the later steps compute garbage that nobody reads (the
/// diagonal-block kernel returns at once when `info` is set).
///
/// Per block column of `b` columns (`POTRF_OUTER` from `n = POTRF_OUTER_FROM`, else `NB`):
/// the diagonal block `A11 = L11·L11ᴴ` (`potrf_diag` when `b = NB`, else this routine one
/// level down, by `NB` columns), `L21 ← A21·L11⁻ᴴ` (cuBLAS `trsm`),
/// `A22 ← A22 − L21·L21ᴴ` (cuBLAS `herk`/`syrk`, lower triangle). The two levels keep the
/// flops of the `NB`-column loop but give the update a depth of `b`, where `herk` of depth
/// `NB` runs far below its peak.
pub(crate) fn potrf<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    info: &DeviceVec<i32>,
) -> Result<()> {
    let nb = if a.rows >= POTRF_OUTER_FROM {
        POTRF_OUTER
    } else {
        NB
    };
    potrf_level(op, dev, a, info, 0, nb)
}

/// [`potrf`] by block columns of `nb` on the diagonal block `a` of the whole matrix starting at
/// row and column `base` (for `info`'s column numbers).
fn potrf_level<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    info: &DeviceVec<i32>,
    base: usize,
    nb: usize,
) -> Result<()> {
    let n = a.rows;
    let mut kk = 0;
    while kk < n {
        let kb = nb.min(n - kk);
        let e = kk + kb;
        let a11 = a.at(kk, kk, kb, kb);
        if kb <= NB {
            k::potrf_diag(op, dev, a11, base + kk, info)?;
        } else {
            potrf_level(op, dev, a11, info, base + kk, NB)?;
        }
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
                a11,
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
    cb::trsm_rec_left_t(
        op,
        dev,
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
/// mirror): the strict upper triangle zeroed (the mirror overwrites it at the end), `L ← L⁻¹`
/// ([`trtri_zeroed`]), then the lower triangle of `L⁻ᴴ·L⁻¹` ([`lauum`]), then
/// `mirror` to the upper triangle.
pub(crate) fn potri<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<()> {
    let n = a.rows;
    if n == 0 {
        return Ok(());
    }
    k::zero_tri(op, dev, a, false)?;
    trtri_zeroed(op, dev, a, false)?;
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

#[cfg(test)]
mod tests {
    //! [`potrf`] on CUDA (skipped without a GPU) with one and two levels of block columns,
    //! orders that end in shorter blocks: `A − L·Lᴴ` on the lower triangle against a plain f64
    //! loop on the host, bounded by `16·n·eps·‖A‖` (max norms of a matrix with `‖L‖² ≈ ‖A‖`);
    //! `info` 0; and, with a negative diagonal entry planted at column `c` of an otherwise
    //! positive definite matrix, `info = c + 1` however the levels split the columns.
    use super::*;
    use gpu_blas::testing::{cuda_test_device, random_values};
    use gpu_blas::DeviceMatrix;
    use num_complex::Complex64 as C64;

    const OP: &str = "potrf test";

    /// Hermitian, diagonally dominant: off-diagonal entries up to `1/n`, diagonal 2.
    fn spd<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
        let r = random_values::<T>(n * n, seed);
        let mut a = vec![T::zero(); n * n];
        for j in 0..n {
            for i in 0..n {
                a[i + j * n] = if i == j {
                    T::from_f64(2.0)
                } else if i > j {
                    r[i + j * n] * T::from_f64(1.0 / n as f64)
                } else {
                    r[j + i * n].conj() * T::from_f64(1.0 / n as f64)
                };
            }
        }
        a
    }

    fn factor<T: Scalar>(dev: &Device, n: usize, nb: usize, a: &[T]) -> (Vec<T>, i32) {
        let ad = DeviceMatrix::from_col_major(dev, n, n, n, a.to_vec()).unwrap();
        let info = DeviceVec::<i32>::zeros(dev, 1).unwrap();
        let da = Dense::of(OP, &ad).unwrap();
        if nb == 0 {
            potrf(OP, dev, da, &info).unwrap();
        } else {
            potrf_level(OP, dev, da, &info, 0, nb).unwrap();
        }
        // Row-major from the device: l[i * n + j] = L(i, j).
        let l = ad.to_array().unwrap().iter().copied().collect();
        (l, info.to_vec().unwrap()[0])
    }

    fn check<T: Scalar>(dev: &Device, n: usize, nb: usize) {
        let a = spd::<T>(n, 7 + n as u64);
        let (l, info) = factor(dev, n, nb, &a);
        let what = format!("{} n={n} nb={nb}", T::PREFIX);
        assert_eq!(info, 0, "{what}: info");
        let lij = |i: usize, j: usize| l[i * n + j].to_c64();
        let mut worst = 0.0f64;
        for j in 0..n {
            for i in j..n {
                let s: C64 = (0..=j).map(|p| lij(i, p) * lij(j, p).conj()).sum();
                worst = worst.max((s - a[i + j * n].to_c64()).norm());
            }
        }
        let eps = T::epsilon().to_c64().re;
        let tol = 16.0 * n as f64 * eps * 3.0;
        assert!(worst <= tol, "{what}: |A - L·Lᴴ| = {worst:e} > {tol:e}");
        // Not positive definite at column c.
        for c in [0, n / 3, n - 1] {
            let mut b = a.clone();
            b[c + c * n] = T::from_f64(-1.0);
            let (_, info) = factor(dev, n, nb, &b);
            assert_eq!(
                info,
                c as i32 + 1,
                "{what}: info with column {c} not positive"
            );
        }
    }

    #[test]
    fn potrf_one_and_two_levels() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        check::<f64>(&dev, 2100, 0);
        check::<f64>(&dev, 700, 192);
        check::<f32>(&dev, 300, 128);
        check::<num_complex::Complex64>(&dev, 2050, 0);
        check::<num_complex::Complex32>(&dev, 450, 256);
    }
}
