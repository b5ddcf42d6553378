//! Sparse matrix–vector product `y ← α·A·x + β·y` for [`CsrMatrix`].
//!
//! On the GPU three kernel families are available and [`SpmvKernel::Auto`] picks one from the
//! matrix's [`RowStats`]:
//! * [`SpmvKernel::ThreadPerRow`]: one thread per row, for very short rows;
//! * [`SpmvKernel::VectorPerRow`]: a group of 2–32 lanes per row (the group size follows the mean
//!   row length), for regular rows;
//! * [`SpmvKernel::Adaptive`]: load-balanced row blocks (each block gets either many short rows
//!   totalling at most 4 KiB (mean row length under 4) or 8 KiB of products, staged through shared memory, or one long row reduced by the
//!   whole block), for irregular row lengths.
//!
//! With `β = 0`, `y` is not read (NaNs in it do not propagate), as in BLAS.
//!
//! ```
//! use gpu_blas::{spmv, CsrMatrix, Device, DeviceVec};
//! let dev = Device::auto();
//! // [[2, 1], [0, 3]]
//! let a = CsrMatrix::from_csr(&dev, 2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![2.0f64, 1.0, 3.0])?;
//! let x = DeviceVec::from_slice(&dev, &[1.0, 1.0])?;
//! let mut y = DeviceVec::from_slice(&dev, &[10.0, 10.0])?;
//! spmv::spmv(1.0, &a, &x, 0.5, &mut y)?;
//! assert_eq!(y.to_vec()?, vec![8.0, 8.0]);
//! # Ok::<(), gpu_blas::Error>(())
//! ```

mod cpu;
mod cuda;

/// Benchmark exploration only (not a stable API): force the adaptive kernel's staging bytes per
/// block (at most 16384); 0 restores the automatic choice.
#[doc(hidden)]
pub fn set_adaptive_cap_bytes(bytes: usize) {
    cuda::set_cap_bytes(bytes.min(16384));
}

use crate::device::Kind;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::sparse::{CsrMatrix, RowStats};
use crate::view::{VecMut, VecRef};

/// What the load-balanced kernel keeps per matrix: its row blocks for a staging capacity of
/// `cap` entries and, where every column index lies within ±2¹⁵ of its block's first row, the
/// indices as 16-bit offsets from that row (`None` otherwise).
pub(crate) struct AdaptiveIndex {
    pub(crate) cap: i32,
    pub(crate) blocks: crate::buffer::Buffer<i32>,
    pub(crate) delta16: Option<crate::buffer::Buffer<u32>>,
}

/// Which SpMV kernel the GPU runs (the CPU ignores the choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpmvKernel {
    /// Chosen from the row-length statistics (see [`choose`]).
    Auto,
    /// One thread per row.
    ThreadPerRow,
    /// `lanes` threads per row (2, 4, 8, 16 or 32).
    VectorPerRow {
        /// Threads cooperating on one row.
        lanes: u32,
    },
    /// Load-balanced row blocks (CSR-adaptive). On the GPU, when every column index lies
    /// within ±2¹⁵ of its row block's first row, the kernel reads the indices as 16-bit offsets
    /// (built once per matrix with the blocks), two bytes less per entry.
    Adaptive,
}

/// The kernel [`SpmvKernel::Auto`] runs for a matrix with these statistics:
/// [`SpmvKernel::Adaptive`] for irregular rows (longest row above `4·mean + 64`, or standard
/// deviation above the mean) and for large matrices (at least 2²⁰ entries), whose coalesced
/// staging pays off; otherwise, for small regular matrices where launch latency dominates,
/// [`SpmvKernel::ThreadPerRow`] for rows averaging under 2 entries and
/// [`SpmvKernel::VectorPerRow`] with the power of two nearest to `mean / 2` lanes (2 to 32),
/// so each lane handles about two entries. The rule follows the H100 measurements in
/// `docs/perf-notes.md`.
///
/// ```
/// use gpu_blas::{spmv::{choose, SpmvKernel}, RowStats};
/// let small = RowStats { rows: 1000, nnz: 6900, min: 5, max: 7, mean: 6.9, std_dev: 0.4, empty_rows: 0 };
/// assert_eq!(choose(&small), SpmvKernel::VectorPerRow { lanes: 4 });
/// let large = RowStats { rows: 4_096_000, nnz: 28_518_400, min: 4, max: 7, mean: 6.96, std_dev: 0.2, empty_rows: 0 };
/// assert_eq!(choose(&large), SpmvKernel::Adaptive);
/// let power_law = RowStats { rows: 1000, nnz: 12_000, min: 1, max: 10_000, mean: 12.0, std_dev: 150.0, empty_rows: 0 };
/// assert_eq!(choose(&power_law), SpmvKernel::Adaptive);
/// ```
pub fn choose(s: &RowStats) -> SpmvKernel {
    let irregular = (s.max as f64) > 4.0 * s.mean + 64.0 || s.std_dev > s.mean.max(1.0);
    if irregular || s.nnz >= 1 << 20 {
        SpmvKernel::Adaptive
    } else if s.mean < 2.0 {
        SpmvKernel::ThreadPerRow
    } else {
        let lanes = 2f64.powf((s.mean / 2.0).log2().round()).clamp(2.0, 32.0) as u32;
        SpmvKernel::VectorPerRow { lanes }
    }
}

/// `y ← α·A·x + β·y`, kernel chosen automatically.
///
/// # Errors
/// [`Error::DimensionMismatch`] unless `x.len() == A.cols()` and `y.len() == A.rows()`;
/// [`Error::InvalidIncrement`] for a negative increment; [`Error::DeviceMismatch`];
/// [`Error::Cuda`].
pub fn spmv<'x, 'y, T: Scalar>(
    alpha: T,
    a: &CsrMatrix<T>,
    x: impl Into<VecRef<'x, T>>,
    beta: T,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    spmv_with(SpmvKernel::Auto, alpha, a, x, beta, y)
}

/// [`spmv`] with the GPU kernel forced.
///
/// # Errors
/// As [`spmv`], plus [`Error::DimensionMismatch`] for a lane count other than 2, 4, 8, 16 or 32.
///
/// ```
/// use gpu_blas::{spmv::{spmv_with, SpmvKernel}, CsrMatrix, Device, DeviceVec};
/// let dev = Device::cpu();
/// let a = CsrMatrix::from_csr(&dev, 1, 3, vec![0, 3], vec![0, 1, 2], vec![1.0f32, 2.0, 3.0])?;
/// let x = DeviceVec::from_slice(&dev, &[1.0, 1.0, 1.0])?;
/// let mut y = DeviceVec::zeros(&dev, 1)?;
/// spmv_with(SpmvKernel::VectorPerRow { lanes: 4 }, 2.0, &a, &x, 0.0, &mut y)?;
/// assert_eq!(y.to_vec()?, vec![12.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn spmv_with<'x, 'y, T: Scalar>(
    kernel: SpmvKernel,
    alpha: T,
    a: &CsrMatrix<T>,
    x: impl Into<VecRef<'x, T>>,
    beta: T,
    y: impl Into<VecMut<'y, T>>,
) -> Result<()> {
    const OP: &str = "spmv";
    let (x, y) = (x.into(), y.into());
    if x.len != a.cols() || y.len != a.rows() {
        return Err(Error::dims(
            OP,
            format!(
                "A is {}x{}, x has {} and y {} elements",
                a.rows(),
                a.cols(),
                x.len,
                y.len
            ),
        ));
    }
    for (arg, inc) in [("incx", x.inc), ("incy", y.inc)] {
        if inc <= 0 {
            return Err(Error::InvalidIncrement {
                op: OP,
                arg,
                inc,
                reason: "spmv takes positive increments",
            });
        }
    }
    if let SpmvKernel::VectorPerRow { lanes } = kernel {
        if !matches!(lanes, 2 | 4 | 8 | 16 | 32) {
            return Err(Error::dims(
                OP,
                format!("lanes per row must be 2, 4, 8, 16 or 32, got {lanes}"),
            ));
        }
    }
    a.device().ensure_same(x.device(), OP)?;
    a.device().ensure_same(y.device(), OP)?;
    let dev = a.device().clone();
    match dev.kind() {
        Kind::Cpu => {
            cpu::spmv(alpha, a, x, beta, y);
            Ok(())
        }
        Kind::Cuda(b) => {
            let k = if kernel == SpmvKernel::Auto {
                choose(&a.row_stats())
            } else {
                kernel
            };
            cuda::spmv(b, k, alpha, a, x, beta, y)
        }
    }
}
