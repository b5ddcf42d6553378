//! What a factorization's `info` says about each matrix, and the checks that turn `info` or a
//! pivot vector into typed errors.
//!
//! The batched calls validate each matrix where it is factored or inverted (on a GPU, inside
//! the kernels), so a call only queues its work and returns: a matrix holding a NaN or an
//! infinity is reported through its `info` entry, not by a synchronizing error. These checks
//! read `info` (or the pivots) back, which waits for the work queued before them.

use crate::check;
use gpu_blas::{DeviceVec, Error, Result};

/// `info` of a matrix whose first non-finite entry (column-major) is at position `e` of the
/// matrix: `−1 − e`, saturating at `i32::MIN` (positions from `2³¹ − 1` on, only possible
/// for orders above 46 340).
pub(crate) fn nonfinite_info(e: usize) -> i32 {
    -1 - e.min(i32::MAX as usize) as i32
}

/// What the `info` entry of one matrix says after [`getrf_batched`](crate::getrf_batched)
/// (or [`getrf_vbatched`](crate::getrf_vbatched), [`inverse_batched`](crate::inverse_batched),
/// [`solve_batched`](crate::solve_batched)).
///
/// | `info` | status | the matrix |
/// |---|---|---|
/// | `0` | [`Regular`](Self::Regular) | factored, every `U(j, j) ≠ 0` |
/// | `j > 0` | [`Singular`](Self::Singular) `{ pivot: j }` | factored (`A = P·L·U` holds), `U(j−1, j−1)` (1-based `j`) is the first exactly-zero pivot: no inverse or solution |
/// | `−1 − e` | [`NonFinite`](Self::NonFinite) `{ position: e }` | left unchanged, pivots `1..=n`: its entry at column-major position `e` is the first NaN or infinity |
///
/// ```
/// use batched_lu::MatrixStatus;
/// assert_eq!(MatrixStatus::from_info(0), MatrixStatus::Regular);
/// assert_eq!(MatrixStatus::from_info(3), MatrixStatus::Singular { pivot: 3 });
/// // Entry (1, 2) of a 4 × 4 matrix is column-major position 1 + 2·4 = 9.
/// assert_eq!(MatrixStatus::from_info(-10), MatrixStatus::NonFinite { position: 9 });
/// assert!(MatrixStatus::from_info(0).is_regular());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixStatus {
    /// Factored; every diagonal entry of `U` is non-zero, so the solves and the inverse exist.
    Regular,
    /// Factored, but `U` has an exactly-zero diagonal entry: `pivot` (1-based) is the first.
    Singular {
        /// The 1-based index `j` of the first `U(j, j) = 0` (LAPACK's `info > 0`).
        pivot: usize,
    },
    /// Not factored: the matrix holds a NaN or an infinity and was left as it was.
    NonFinite {
        /// Column-major position `i + j·n` of its first non-finite entry (at least
        /// `2³¹ − 1` when it reads exactly that: positions are saturated there).
        position: usize,
    },
}

impl MatrixStatus {
    /// Decodes one `info` entry (see the table on [`MatrixStatus`]).
    ///
    /// ```
    /// use batched_lu::MatrixStatus;
    /// assert_eq!(MatrixStatus::from_info(-1), MatrixStatus::NonFinite { position: 0 });
    /// ```
    pub fn from_info(info: i32) -> Self {
        match info {
            0 => MatrixStatus::Regular,
            j if j > 0 => MatrixStatus::Singular { pivot: j as usize },
            j => MatrixStatus::NonFinite {
                position: (-1 - j as i64) as usize,
            },
        }
    }

    /// Whether the matrix was factored with a non-singular `U` (`info = 0`).
    ///
    /// ```
    /// use batched_lu::MatrixStatus;
    /// assert!(!MatrixStatus::from_info(2).is_regular());
    /// ```
    pub fn is_regular(self) -> bool {
        self == MatrixStatus::Regular
    }
}

/// Reads `info` back (waiting for the work queued before) and fails with
/// [`Error::NonFinite`] at the first matrix `k` that holds a NaN or an infinity, naming the
/// flat index `at(k) + e` of that entry in the factored buffer; else returns the entries.
pub(crate) fn check_info(
    op: &'static str,
    info: &DeviceVec<i32>,
    batch: usize,
    at: impl Fn(usize) -> usize,
) -> Result<Vec<i32>> {
    check::exactly(op, "info", info.len(), batch)?;
    let v = info.to_vec()?;
    let first = v
        .iter()
        .enumerate()
        .find_map(|(k, &i)| match MatrixStatus::from_info(i) {
            MatrixStatus::NonFinite { position } => Some((k, position)),
            _ => None,
        });
    match first {
        None => Ok(v),
        Some((k, position)) => Err(Error::NonFinite {
            op,
            index: at(k).saturating_add(position),
        }),
    }
}

/// Reads the pivots back and fails with [`Error::OutOfBounds`] at the first pivot outside
/// `1..=n_k` of its matrix (`ranges` yields each matrix's order and first pivot's index).
pub(crate) fn check_pivots(
    op: &'static str,
    pivots: &DeviceVec<i32>,
    len: usize,
    ranges: impl Iterator<Item = (usize, usize)>,
) -> Result<()> {
    check::exactly(op, "pivots", pivots.len(), len)?;
    let p = pivots.to_vec()?;
    for (n, s) in ranges {
        check::pivots_valid(op, n, &p[s..s + n], s)?;
    }
    Ok(())
}
