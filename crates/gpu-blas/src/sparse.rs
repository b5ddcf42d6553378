//! Compressed sparse row (CSR) matrices on a device, with row-length statistics computed once.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use sprs::CsMat;
use std::sync::OnceLock;

/// Row-length statistics of a sparse matrix, computed once at construction; the SpMV kernel
/// choice is made from them.
///
/// ```
/// use gpu_blas::{CsrMatrix, Device};
/// let a = CsrMatrix::<f64>::from_csr(&Device::cpu(), 3, 3, vec![0, 2, 2, 5], vec![0, 2, 0, 1, 2], vec![1.0; 5])?;
/// let s = a.row_stats();
/// assert_eq!((s.min, s.max, s.empty_rows), (0, 3, 1));
/// assert!((s.mean - 5.0 / 3.0).abs() < 1e-12);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowStats {
    /// Number of rows.
    pub rows: usize,
    /// Number of stored entries.
    pub nnz: usize,
    /// Shortest row (stored entries).
    pub min: usize,
    /// Longest row.
    pub max: usize,
    /// Mean row length `nnz / rows` (0 for no rows).
    pub mean: f64,
    /// Standard deviation of the row lengths.
    pub std_dev: f64,
    /// Number of rows with no stored entry.
    pub empty_rows: usize,
}

impl RowStats {
    fn from_row_ptr(row_ptr: &[i32]) -> RowStats {
        let rows = row_ptr.len().saturating_sub(1);
        if rows == 0 {
            return RowStats {
                rows: 0,
                nnz: 0,
                min: 0,
                max: 0,
                mean: 0.0,
                std_dev: 0.0,
                empty_rows: 0,
            };
        }
        let lens = row_ptr.windows(2).map(|w| (w[1] - w[0]) as usize);
        let (mut min, mut max, mut sum, mut sq, mut empty) = (usize::MAX, 0, 0f64, 0f64, 0);
        for l in lens {
            min = min.min(l);
            max = max.max(l);
            sum += l as f64;
            sq += (l as f64) * (l as f64);
            empty += usize::from(l == 0);
        }
        let mean = sum / rows as f64;
        RowStats {
            rows,
            nnz: row_ptr[rows] as usize,
            min,
            max,
            mean,
            std_dev: (sq / rows as f64 - mean * mean).max(0.0).sqrt(),
            empty_rows: empty,
        }
    }
}

/// A sparse matrix in compressed sparse row form on one device: `row_ptr` (`rows + 1` entries,
/// non-decreasing from 0 to `nnz`), `col_idx` (strictly increasing within each row, in
/// `0..cols`) and `values`, with `i32` indices (sizes beyond `i32::MAX` are refused, never
/// wrapped).
///
/// ```
/// use gpu_blas::{CsrMatrix, Device};
/// // [[1, 0, 2],
/// //  [0, 3, 0]]
/// let a = CsrMatrix::from_csr(&Device::auto(), 2, 3, vec![0, 2, 3], vec![0, 2, 1], vec![1.0f64, 2.0, 3.0])?;
/// assert_eq!((a.rows(), a.cols(), a.nnz()), (2, 3, 3));
/// assert_eq!(a.to_sprs()?.to_dense(), ndarray::array![[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct CsrMatrix<T: Scalar> {
    rows: usize,
    cols: usize,
    pub(crate) row_ptr: Buffer<i32>,
    pub(crate) col_idx: Buffer<i32>,
    pub(crate) values: Buffer<T>,
    stats: RowStats,
    /// Row blocks of the load-balanced GPU kernel, their capacity, and the column indices as
    /// 16-bit offsets from each block's first row where they all fit; built on first use.
    pub(crate) row_blocks: OnceLock<crate::spmv::AdaptiveIndex>,
}

fn to_i32(what: &str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| Error::SizeTooLarge {
        op: "CsrMatrix",
        detail: format!("{what} = {v} does not fit the 32-bit indices"),
    })
}

/// Checks CSR arrays, naming the first bad row.
fn validate(
    rows: usize,
    cols: usize,
    row_ptr: &[i32],
    col_idx: &[i32],
    nvals: usize,
) -> Result<()> {
    let bad = |detail: String| Err(Error::InvalidSparse { detail });
    if row_ptr.len() != rows + 1 {
        return bad(format!(
            "row_ptr has {} entries, expected rows + 1 = {}",
            row_ptr.len(),
            rows + 1
        ));
    }
    if row_ptr[0] != 0 {
        return bad(format!("row_ptr[0] = {}, expected 0", row_ptr[0]));
    }
    let nnz = row_ptr[rows];
    if nnz < 0 || nnz as usize != col_idx.len() || col_idx.len() != nvals {
        return bad(format!(
            "row_ptr[rows] = {nnz}, col_idx has {} entries, values {nvals}; all three must agree",
            col_idx.len()
        ));
    }
    for r in 0..rows {
        let (a, b) = (row_ptr[r], row_ptr[r + 1]);
        if b < a || b > nnz {
            return bad(format!(
                "row {r}: row_ptr goes from {a} to {b} (must be non-decreasing and <= nnz {nnz})"
            ));
        }
        let mut prev = -1i64;
        for &c in &col_idx[a as usize..b as usize] {
            if c < 0 || c as usize >= cols {
                return bad(format!("row {r}: column index {c} outside 0..{cols}"));
            }
            if (c as i64) <= prev {
                return bad(format!(
                    "row {r}: column indices not strictly increasing ({prev} then {c})"
                ));
            }
            prev = c as i64;
        }
    }
    Ok(())
}

impl<T: Scalar> CsrMatrix<T> {
    /// Builds a matrix from CSR arrays after validating them.
    ///
    /// # Errors
    /// [`Error::InvalidSparse`] naming the first bad row (non-monotone `row_ptr`, column index out of
    /// range or not strictly increasing, inconsistent lengths); [`Error::SizeTooLarge`] if a size
    /// does not fit `i32`; allocation errors.
    pub fn from_csr(
        device: &Device,
        rows: usize,
        cols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<usize>,
        values: Vec<T>,
    ) -> Result<Self> {
        to_i32("rows", rows)?;
        to_i32("cols", cols)?;
        to_i32("nnz", values.len())?;
        let rp = row_ptr
            .iter()
            .map(|&v| to_i32("row_ptr entry", v))
            .collect::<Result<Vec<_>>>()?;
        // Indices beyond i32 become i32::MAX, which `validate` reports as out of range.
        let ci = col_idx
            .iter()
            .map(|&v| i32::try_from(v).unwrap_or(i32::MAX))
            .collect();
        Self::from_i32(device, rows, cols, rp, ci, values)
    }

    /// Like [`from_csr`](Self::from_csr) with `i32` index arrays (no conversion).
    ///
    /// # Errors
    /// As [`from_csr`](Self::from_csr).
    pub fn from_i32(
        device: &Device,
        rows: usize,
        cols: usize,
        row_ptr: Vec<i32>,
        col_idx: Vec<i32>,
        values: Vec<T>,
    ) -> Result<Self> {
        to_i32("rows", rows)?;
        to_i32("cols", cols)?;
        validate(rows, cols, &row_ptr, &col_idx, values.len())?;
        let stats = RowStats::from_row_ptr(&row_ptr);
        Ok(CsrMatrix {
            rows,
            cols,
            row_ptr: Buffer::from_vec(device, row_ptr, "CsrMatrix")?,
            col_idx: Buffer::from_vec(device, col_idx, "CsrMatrix")?,
            values: Buffer::from_vec(device, values, "CsrMatrix")?,
            stats,
            row_blocks: OnceLock::new(),
        })
    }

    /// Copies an `sprs` matrix (CSR or CSC; CSC is converted) to `device`. Explicit zeros are kept.
    ///
    /// # Errors
    /// [`Error::SizeTooLarge`] if a size does not fit `i32`; allocation errors.
    ///
    /// ```
    /// use gpu_blas::{CsrMatrix, Device};
    /// let s = sprs::CsMat::new((2, 2), vec![0, 1, 2], vec![1, 0], vec![5.0f32, 6.0]);
    /// let a = CsrMatrix::from_sprs(&Device::cpu(), &s)?;
    /// assert_eq!(a.to_sprs()?, s);
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn from_sprs(device: &Device, m: &CsMat<T>) -> Result<Self> {
        let csr;
        let m = if m.is_csr() {
            m
        } else {
            csr = m.to_csr();
            &csr
        };
        let (rows, cols) = m.shape();
        let rp = m
            .indptr()
            .to_proper()
            .iter()
            .map(|&v| to_i32("nnz", v))
            .collect::<Result<Vec<_>>>()?;
        // sprs guarantees sorted indices within each row; keep the data exactly as given.
        let ci = m
            .indices()
            .iter()
            .map(|&v| to_i32("column", v))
            .collect::<Result<Vec<_>>>()?;
        Self::from_i32(device, rows, cols, rp, ci, m.data().to_vec())
    }

    /// The matrix as an `sprs` CSR matrix on the host (waits for pending work).
    ///
    /// # Errors
    /// [`Error::Cuda`] if a pending kernel failed.
    pub fn to_sprs(&self) -> Result<CsMat<T>> {
        let rp: Vec<usize> = self
            .row_ptr
            .to_vec()?
            .into_iter()
            .map(|v| v as usize)
            .collect();
        let ci: Vec<usize> = self
            .col_idx
            .to_vec()?
            .into_iter()
            .map(|v| v as usize)
            .collect();
        Ok(CsMat::new(
            (self.rows, self.cols),
            rp,
            ci,
            self.values.to_vec()?,
        ))
    }

    /// A copy on another device.
    ///
    /// # Errors
    /// Allocation or copy errors.
    pub fn to_device(&self, device: &Device) -> Result<Self> {
        Ok(CsrMatrix {
            rows: self.rows,
            cols: self.cols,
            row_ptr: self.row_ptr.to_device(device)?,
            col_idx: self.col_idx.to_device(device)?,
            values: self.values.to_device(device)?,
            stats: self.stats,
            row_blocks: OnceLock::new(),
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Row-length statistics.
    pub fn row_stats(&self) -> RowStats {
        self.stats
    }

    /// The device holding the matrix.
    pub fn device(&self) -> &Device {
        self.values.device()
    }
}

impl<T: Scalar> std::fmt::Debug for CsrMatrix<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CsrMatrix({}x{}, nnz {}, {})",
            self.rows,
            self.cols,
            self.nnz(),
            self.device()
        )
    }
}
