//! Reading and writing Matrix Market (`.mtx`) files.
//!
//! A Matrix Market file is text: a banner `%%MatrixMarket matrix <format> <field> <symmetry>`
//! (keywords case-insensitive), then any number of comment lines starting with `%` (and blank
//! lines), then a size line, then the entries, one per line:
//!
//! ```text
//! %%MatrixMarket matrix coordinate real symmetric
//! % the 3 x 3 matrix [[4, 1, 0], [1, 5, 2], [0, 2, 6]]: lower triangle only
//! 3 3 5
//! 1 1 4.0
//! 2 1 1.0
//! 2 2 5.0
//! 3 2 2.0
//! 3 3 6.0
//! ```
//!
//! * [`MmFormat`]: `coordinate` (sparse triplets `i j a_ij`, 1-based) or `array` (dense,
//!   column-major);
//! * [`MmField`]: `real`, `integer`, `complex` (`re im`) or `pattern` (no value, reads as 1);
//! * [`MmSymmetry`]: `general`, `symmetric`, `skew-symmetric` or `hermitian`; for all but
//!   `general` only the lower triangle is stored and the reader expands it to the full matrix.
//!
//! [`read`]/[`read_from`] return the [`MmHeader`] and an [`MmMatrix`]: a CSR
//! [`sprs::CsMat`] for coordinate files, an [`ndarray::Array2`] for array files. Gzip-compressed
//! input (recognised by its first two bytes `1f 8b`, whatever the file name) is decompressed on
//! the fly. [`write_sparse`]/[`write_dense`] and their `_to` variants write files that read back
//! bit-for-bit (values are printed in Rust's shortest round-trip form, e.g. `1.5e0`).
//!
//! Malformed input gives [`Error::Parse`] with the 1-based line number and
//! what was expected there. The reader never allocates more than the input's actual content
//! justifies: a size line declaring a huge matrix followed by a few entries fails cleanly.
//!
//! ```
//! use gpu_blas::matrix_market::{read_from, MmMatrix};
//! let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n\
//!             1 1 4.0\n2 1 1.0\n2 2 5.0\n3 2 2.0\n3 3 6.0\n";
//! let (header, m) = read_from::<f64, _>(text.as_bytes())?;
//! assert_eq!(header.entries, 5);
//! let a = m.as_sparse().unwrap();
//! assert_eq!(a.nnz(), 7); // both triangles
//! assert_eq!(a.get(0, 1), Some(&1.0));
//! assert_eq!(a.get(1, 0), Some(&1.0));
//! # Ok::<(), gpu_blas::Error>(())
//! ```

mod header;
mod read;
mod write;

pub use header::{MmField, MmFormat, MmHeader, MmSymmetry};
pub use read::{read, read_from, read_header, read_header_from};
pub use write::{write_dense, write_dense_to, write_sparse, write_sparse_to};

use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// A matrix read from a Matrix Market file.
///
/// * `Sparse`: from a `coordinate` file: a CSR matrix with sorted column indices in every row,
///   duplicate entries summed, and the symmetry expanded to the full matrix (for a
///   symmetric file both `a_ij` and `a_ji` are stored).
/// * `Dense`: from an `array` file: the full `rows x cols` matrix (row-major `ndarray` layout),
///   symmetry expanded.
///
/// ```
/// use gpu_blas::matrix_market::{read_from, MmMatrix};
/// let text = "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n";
/// let (_, m) = read_from::<f64, _>(text.as_bytes())?;
/// match m {
///     MmMatrix::Dense(a) => assert_eq!(a, ndarray::array![[1.0, 3.0], [2.0, 4.0]]),
///     MmMatrix::Sparse(_) => unreachable!("array files are dense"),
/// }
/// # Ok::<(), gpu_blas::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum MmMatrix<T> {
    /// CSR storage (`sprs::CsMat`), sorted indices, no duplicates.
    Sparse(sprs::CsMat<T>),
    /// Dense storage.
    Dense(ndarray::Array2<T>),
}

impl<T: Scalar> MmMatrix<T> {
    /// The shape `(rows, cols)`.
    ///
    /// ```
    /// use gpu_blas::matrix_market::read_from;
    /// let text = "%%MatrixMarket matrix coordinate pattern general\n2 7 1\n2 7\n";
    /// let (_, m) = read_from::<f32, _>(text.as_bytes())?;
    /// assert_eq!(m.shape(), (2, 7));
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn shape(&self) -> (usize, usize) {
        match self {
            MmMatrix::Sparse(a) => a.shape(),
            MmMatrix::Dense(a) => a.dim(),
        }
    }

    /// The sparse matrix, if this is `Sparse`.
    ///
    /// ```
    /// use gpu_blas::matrix_market::read_from;
    /// let text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -3.5\n";
    /// let (_, m) = read_from::<f64, _>(text.as_bytes())?;
    /// assert_eq!(m.as_sparse().unwrap().get(0, 1), Some(&-3.5));
    /// assert!(m.as_dense().is_none());
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn as_sparse(&self) -> Option<&sprs::CsMat<T>> {
        match self {
            MmMatrix::Sparse(a) => Some(a),
            MmMatrix::Dense(_) => None,
        }
    }

    /// The dense matrix, if this is `Dense`.
    ///
    /// ```
    /// use gpu_blas::matrix_market::read_from;
    /// let text = "%%MatrixMarket matrix array real general\n1 2\n5\n6\n";
    /// let (_, m) = read_from::<f64, _>(text.as_bytes())?;
    /// assert_eq!(m.as_dense().unwrap()[[0, 1]], 6.0);
    /// assert!(m.as_sparse().is_none());
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn as_dense(&self) -> Option<&ndarray::Array2<T>> {
        match self {
            MmMatrix::Dense(a) => Some(a),
            MmMatrix::Sparse(_) => None,
        }
    }

    /// The matrix as a dense `rows x cols` array: `A[i][j]` is the stored value or zero.
    ///
    /// # Errors
    /// [`Error::SizeTooLarge`] when `rows·cols` elements cannot be addressed.
    ///
    /// ```
    /// use gpu_blas::matrix_market::read_from;
    /// let text = "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n";
    /// let (_, m) = read_from::<f64, _>(text.as_bytes())?;
    /// assert_eq!(m.to_dense()?, ndarray::array![[0.0, -3.0], [3.0, 0.0]]);
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn to_dense(&self) -> Result<ndarray::Array2<T>> {
        match self {
            MmMatrix::Dense(a) => Ok(a.clone()),
            MmMatrix::Sparse(a) => {
                let (rows, cols) = a.shape();
                let limit = isize::MAX as usize / std::mem::size_of::<T>().max(1);
                if rows.checked_mul(cols).is_none_or(|n| n > limit) {
                    return Err(Error::SizeTooLarge {
                        op: "matrix_market::MmMatrix::to_dense",
                        detail: format!("a dense {rows} x {cols} matrix is too large"),
                    });
                }
                let mut out = ndarray::Array2::<T>::zeros((rows, cols));
                for (&v, (i, j)) in a.iter() {
                    out[[i, j]] += v;
                }
                Ok(out)
            }
        }
    }
}
