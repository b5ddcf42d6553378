//! Argument validation and the host copies of the CPU backend.
//!
//! Every public function validates its arguments with these helpers before it reads or writes
//! any data, then dispatches to the backend. The CPU backend works on one compact host copy of
//! the matrix (leading dimension `n`), read and written back column by column, so no path holds
//! more than that one extra `n × n` buffer besides its result.

use crate::error::{Error, Result};
use gpu_blas::blas2::Uplo;
use gpu_blas::{blas1, Device, DeviceMatrix, DeviceVec, MatMut, MatRef, Scalar};

/// The order `n` of a square matrix, which must also fit the `i32` pivot indices.
pub(crate) fn square(op: &'static str, rows: usize, cols: usize) -> Result<usize> {
    if rows != cols {
        return Err(Error::NotSquare { op, rows, cols });
    }
    if i32::try_from(rows).is_err() {
        return Err(gpu_blas::Error::SizeTooLarge {
            op,
            detail: format!("n = {rows} exceeds the i32 pivot index range"),
        }
        .into());
    }
    Ok(rows)
}

/// Every device in `others` equals `first`.
pub(crate) fn same_device(op: &'static str, first: &Device, others: &[&Device]) -> Result<()> {
    match others.iter().find(|d| **d != first) {
        None => Ok(()),
        Some(d) => Err(gpu_blas::Error::DeviceMismatch {
            op,
            left: first.to_string(),
            right: d.to_string(),
        }
        .into()),
    }
}

/// A right-hand side of `n` rows.
pub(crate) fn rhs_rows(op: &'static str, n: usize, rows: usize) -> Result<()> {
    if rows != n {
        return Err(gpu_blas::Error::DimensionMismatch {
            op,
            detail: format!("b has {rows} rows, the matrix is {n}x{n}"),
        }
        .into());
    }
    Ok(())
}

/// A pivot vector of length `n`.
pub(crate) fn pivots_len(op: &'static str, n: usize, len: usize) -> Result<()> {
    if len != n {
        return Err(gpu_blas::Error::DimensionMismatch {
            op,
            detail: format!("pivots has {len} elements, expected n = {n}"),
        }
        .into());
    }
    Ok(())
}

/// Which backend runs an operation whose arguments are valid.
pub(crate) enum Backend {
    /// The host CPU.
    Cpu,
    /// A CUDA GPU (the `gpu` module).
    Cuda,
}

/// The backend for `dev`.
pub(crate) fn backend(_op: &'static str, dev: &Device) -> Result<Backend> {
    Ok(if dev.is_cpu() {
        Backend::Cpu
    } else {
        Backend::Cuda
    })
}

/// Host copy of a `rows × cols` view, column-major with leading dimension `rows`.
pub(crate) fn read<T: Scalar>(a: &MatRef<'_, T>) -> Result<Vec<T>> {
    let (m, n) = (a.rows(), a.cols());
    let mut out = Vec::with_capacity(m * n);
    for j in 0..n {
        out.extend(a.col(j)?.to_vec()?);
    }
    Ok(out)
}

/// The first non-finite entry of a compact `m × n` host matrix, as `i + j·m`.
pub(crate) fn finite<T: Scalar>(op: &'static str, h: &[T]) -> Result<()> {
    match h.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(gpu_blas::Error::NonFinite { op, index }.into()),
    }
}

/// Host copy of a square matrix of which only the `uplo` triangle is referenced: the other
/// triangle is filled with the conjugate transpose and the diagonal's imaginary part is dropped,
/// so the copy is exactly Hermitian. Non-finite values in the referenced triangle are errors
/// (index `i + j·n`); the other triangle is never inspected.
pub(crate) fn read_hermitian<T: Scalar>(
    op: &'static str,
    uplo: Uplo,
    a: &MatRef<'_, T>,
) -> Result<Vec<T>> {
    let n = a.rows();
    let mut h = read(a)?;
    for j in 0..n {
        let (lo, hi) = match uplo {
            Uplo::Lower => (j, n),
            Uplo::Upper => (0, j + 1),
        };
        if let Some(i) = (lo..hi).find(|&i| !h[i + j * n].is_finite()) {
            return Err(gpu_blas::Error::NonFinite {
                op,
                index: i + j * n,
            }
            .into());
        }
    }
    hermitian_from(uplo, n, &mut h);
    Ok(h)
}

/// Fills the triangle opposite `uplo` of a compact `n × n` matrix with the conjugate transpose
/// of `uplo`, and makes the diagonal real.
pub(crate) fn hermitian_from<T: Scalar>(uplo: Uplo, n: usize, h: &mut [T]) {
    for j in 0..n {
        h[j + j * n] = T::from_real(h[j + j * n].re());
        for i in j + 1..n {
            match uplo {
                Uplo::Lower => h[j + i * n] = h[i + j * n].conj(),
                Uplo::Upper => h[i + j * n] = h[j + i * n].conj(),
            }
        }
    }
}

/// Writes a compact host matrix (leading dimension `rows`) into the view, column by column.
pub(crate) fn write<T: Scalar>(a: &mut MatMut<'_, T>, h: &[T]) -> Result<()> {
    let m = a.rows();
    for j in 0..a.cols() {
        let col = DeviceVec::from_slice(a.device(), &h[j * m..(j + 1) * m])?;
        blas1::copy(&col, a.col_mut(j)?)?;
    }
    Ok(())
}

/// Writes only the `uplo` triangle (diagonal included) of a compact `n × n` host matrix.
pub(crate) fn write_triangle<T: Scalar>(uplo: Uplo, a: &mut MatMut<'_, T>, h: &[T]) -> Result<()> {
    let n = a.rows();
    for j in 0..n {
        let (lo, hi) = match uplo {
            Uplo::Lower => (j, n),
            Uplo::Upper => (0, j + 1),
        };
        let col = DeviceVec::from_slice(a.device(), &h[lo + j * n..hi + j * n])?;
        let mut blk = a.block_mut(lo, j, hi - lo, 1)?;
        blas1::copy(&col, blk.col_mut(0)?)?;
    }
    Ok(())
}

/// A new compact `n × n` matrix on `dev` holding the host data (moved, not copied, on the CPU).
pub(crate) fn new_matrix<T: Scalar>(dev: &Device, n: usize, h: Vec<T>) -> Result<DeviceMatrix<T>> {
    Ok(DeviceMatrix::from_col_major(dev, n, n, n.max(1), h)?)
}
