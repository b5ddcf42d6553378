//! Uniform batches: `batch` matrices of one size `n`, a fixed stride apart in one buffer.

use crate::check::{self, dims};
use crate::gpu::{self, Desc};
use crate::kernel::{getrf_checked, getri_one, getrs_one, has_zero_pivot, nan, pivots_in_range};
use crate::status;
use gpu_blas::blas2::Trans;
use gpu_blas::{DeviceVec, Result, Scalar};
use rayon::prelude::*;

/// Where the matrices of a uniform batch lie in one buffer.
///
/// Matrix `k` (`0 ≤ k < batch`) is the column-major `n × n` matrix with leading dimension `n`
/// whose element `(i, j)` is `a[k·stride + i + j·n]`. `stride ≥ n²`; elements between matrices
/// (when `stride > n²`) are never read or written. A buffer holding the batch needs at least
/// `(batch − 1)·stride + n²` elements ([`required_len`](Self::required_len)).
///
/// ```
/// use batched_lu::BatchLayout;
/// let l = BatchLayout { n: 3, batch: 4, stride: 10 };
/// assert_eq!(l.required_len(), 3 * 10 + 9);
/// assert_eq!(BatchLayout::packed(3, 4).stride, 9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchLayout {
    /// Order of every matrix.
    pub n: usize,
    /// Number of matrices.
    pub batch: usize,
    /// Elements from the start of one matrix to the start of the next (`≥ n²`).
    pub stride: usize,
}

impl BatchLayout {
    /// `batch` matrices of order `n` stored back to back (`stride = n²`).
    ///
    /// ```
    /// use batched_lu::BatchLayout;
    /// assert_eq!(BatchLayout::packed(2, 5), BatchLayout { n: 2, batch: 5, stride: 4 });
    /// ```
    pub fn packed(n: usize, batch: usize) -> Self {
        BatchLayout {
            n,
            batch,
            stride: n.saturating_mul(n),
        }
    }

    /// The fewest elements a buffer holding the batch may have: `(batch − 1)·stride + n²`, or
    /// 0 for an empty batch (saturating at `usize::MAX`).
    ///
    /// ```
    /// use batched_lu::BatchLayout;
    /// assert_eq!(BatchLayout::packed(4, 3).required_len(), 48);
    /// assert_eq!(BatchLayout::packed(4, 0).required_len(), 0);
    /// ```
    pub fn required_len(&self) -> usize {
        if self.batch == 0 {
            0
        } else {
            (self.batch - 1)
                .saturating_mul(self.stride)
                .saturating_add(self.n.saturating_mul(self.n))
        }
    }

    /// Checks `stride ≥ n²`, the pivot range and overflow; returns the required length.
    pub(crate) fn validate(&self, op: &'static str) -> Result<usize> {
        check::pivot_range(op, self.n)?;
        let nn = self.n * self.n; // n ≤ i32::MAX, so n² fits a 64-bit usize
        if self.stride < nn {
            return Err(dims(
                op,
                format!("stride {} < n² = {nn} (n = {})", self.stride, self.n),
            ));
        }
        check::extent(op, self.batch, self.stride, nn)
    }

    /// `n·batch`, the length of the batch's pivots, or an error naming `op` where it overflows.
    pub(crate) fn pivot_len(&self, op: &'static str) -> Result<usize> {
        self.n.checked_mul(self.batch).ok_or_else(|| {
            dims(
                op,
                format!("n·batch overflows ({} · {})", self.n, self.batch),
            )
        })
    }

    fn is_empty(&self) -> bool {
        self.n == 0 || self.batch == 0
    }

    /// Reads the `info` of a factorization of this batch back (waiting for the work queued before
    /// it) and returns it, or fails with [`NonFinite`](gpu_blas::Error::NonFinite) at the first
    /// matrix `k` that was not factored for holding a NaN or an infinity: `index` is the flat index
    /// `k·stride + e` of that entry in `a` (see [`MatrixStatus`](crate::MatrixStatus)). Singular
    /// matrices are no error here: their entries are returned.
    ///
    /// # Errors
    /// [`NonFinite`](gpu_blas::Error::NonFinite) as above;
    /// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) for `info.len() ≠ batch`.
    ///
    /// ```
    /// use batched_lu::{inverse_batched, BatchLayout};
    /// use gpu_blas::{Device, DeviceVec, Error};
    /// let dev = Device::cpu();
    /// let l = BatchLayout::packed(2, 2);
    /// let a = DeviceVec::from_slice(&dev, &[2.0f64, 0.0, 0.0, 2.0, 1.0, 2.0, f64::INFINITY, 4.0])?;
    /// let mut inv = DeviceVec::zeros(&dev, 8)?;
    /// let info = inverse_batched(l, &a, &mut inv, 4)?;
    /// assert_eq!(l.check_info(&info), Err(Error::NonFinite { op: "getrf_batched", index: 6 }));
    /// assert_eq!(inv.to_vec()?[..4], [0.5, 0.0, 0.0, 0.5]); // matrix 0 was inverted
    /// assert!(inv.to_vec()?[4..].iter().all(|v| v.is_nan()));
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn check_info(&self, info: &DeviceVec<i32>) -> Result<Vec<i32>> {
        status::check_info("getrf_batched", info, self.batch, |k| {
            k.saturating_mul(self.stride)
        })
    }

    /// Reads `pivots` back and fails with [`OutOfBounds`](gpu_blas::Error::OutOfBounds) at the
    /// first pivot outside `1..=n` of its matrix, for pivots that do not come from
    /// [`getrf_batched`] (whose pivots are always in range; [`getrs_batched`] and
    /// [`getri_batched`] give NaN for a matrix whose pivots are not).
    ///
    /// # Errors
    /// [`OutOfBounds`](gpu_blas::Error::OutOfBounds) as above, naming the flat index;
    /// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) for
    /// `pivots.len() ≠ n·batch`.
    ///
    /// ```
    /// use batched_lu::BatchLayout;
    /// use gpu_blas::{Device, DeviceVec, Error};
    /// let dev = Device::cpu();
    /// let l = BatchLayout::packed(2, 2);
    /// assert!(l.check_pivots(&DeviceVec::from_slice(&dev, &[2, 2, 1, 2])?).is_ok());
    /// let r = l.check_pivots(&DeviceVec::from_slice(&dev, &[2, 2, 3, 2])?);
    /// assert!(matches!(r, Err(Error::OutOfBounds { .. })));
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn check_pivots(&self, pivots: &DeviceVec<i32>) -> Result<()> {
        const OP: &str = "check_pivots";
        check::pivot_range(OP, self.n)?;
        let len = self.pivot_len(OP)?;
        let n = self.n;
        status::check_pivots(OP, pivots, len, (0..self.batch).map(|k| (n, k * n)))
    }
}

/// Validates a right-hand-side layout: `b_stride ≥ n·nrhs` and `b` long enough.
fn check_rhs(
    op: &'static str,
    l: &BatchLayout,
    b_len: usize,
    nrhs: usize,
    b_stride: usize,
) -> Result<()> {
    let size =
        l.n.checked_mul(nrhs)
            .ok_or_else(|| dims(op, format!("n·nrhs overflows ({} · {nrhs})", l.n)))?;
    if b_stride < size {
        return Err(dims(op, format!("b_stride {b_stride} < n·nrhs = {size}")));
    }
    let need = check::extent(op, l.batch, b_stride, size)?;
    check::at_least(op, "b", b_len, need)
}

/// Validates an output-inverse layout: `inv_stride ≥ n²` and `inv` long enough.
fn check_inv(op: &'static str, l: &BatchLayout, inv_len: usize, inv_stride: usize) -> Result<()> {
    let nn = l.n * l.n;
    if inv_stride < nn {
        return Err(dims(op, format!("inv_stride {inv_stride} < n² = {nn}")));
    }
    let need = check::extent(op, l.batch, inv_stride, nn)?;
    check::at_least(op, "inv", inv_len, need)
}

/// Factors, pivots and `info` of a batch.
type Factored<T> = (DeviceVec<T>, DeviceVec<i32>, DeviceVec<i32>);

/// On a GPU: queues the factorization of a copy of `a` into new buffers (factors, pivots and
/// `info`; `a` is left unchanged) and returns them.
fn gpu_factor_copy<T: Scalar>(op: &'static str, d: &Desc, a: &DeviceVec<T>) -> Result<Factored<T>> {
    let dev = a.device().clone();
    let mut f = a.try_clone()?;
    // getrf writes every pivot and every info entry of a uniform batch: no memset needed.
    let mut piv = DeviceVec::uninit(&dev, d.n * d.batch)?;
    let mut info = DeviceVec::uninit(&dev, d.batch)?;
    gpu::getrf(op, d, &mut f, &mut piv, &mut info)?;
    Ok((f, piv, info))
}

/// Factors every matrix of the (non-empty) batch in place; returns the pivots and infos.
fn factor_host<T: Scalar>(l: &BatchLayout, a: &mut [T]) -> (Vec<i32>, Vec<i32>) {
    let n = l.n;
    let mut piv = vec![0i32; n * l.batch];
    let mut info = vec![0i32; l.batch];
    a.par_chunks_mut(l.stride)
        .zip(piv.par_chunks_mut(n))
        .zip(info.par_iter_mut())
        .for_each(|((m, p), i)| *i = getrf_checked(n, &mut m[..n * n], p));
    (piv, info)
}

/// Solves with every matrix of the (non-empty) batch; matrices whose `info` is non-zero (when
/// given) or whose pivots leave `1..=n` get NaN solutions.
#[allow(clippy::too_many_arguments)]
fn solve_host<T: Scalar>(
    l: &BatchLayout,
    trans: Trans,
    a: &[T],
    piv: &[i32],
    info: Option<&[i32]>,
    b: &mut [T],
    nrhs: usize,
    b_stride: usize,
) {
    let n = l.n;
    b.par_chunks_mut(b_stride)
        .zip(piv.par_chunks(n))
        .enumerate()
        .for_each(|(k, (x, p))| {
            let x = &mut x[..n * nrhs];
            let m = &a[k * l.stride..k * l.stride + n * n];
            if info.is_some_and(|i| i[k] != 0) || !pivots_in_range(n, p) {
                x.fill(nan());
            } else {
                getrs_one(n, trans, m, p, x, nrhs);
            }
        });
}

/// Inverts every matrix of the (non-empty) batch; singular ones (and those whose pivots leave
/// `1..=n`) get NaN.
fn invert_host<T: Scalar>(
    l: &BatchLayout,
    a: &[T],
    piv: &[i32],
    info: &[i32],
    inv: &mut [T],
    inv_stride: usize,
) {
    let n = l.n;
    inv.par_chunks_mut(inv_stride)
        .zip(piv.par_chunks(n))
        .enumerate()
        .for_each(|(k, (x, p))| {
            let x = &mut x[..n * n];
            let m = &a[k * l.stride..k * l.stride + n * n];
            if info[k] != 0 || has_zero_pivot(n, m) || !pivots_in_range(n, p) {
                x.fill(nan());
            } else {
                getri_one(n, m, p, x);
            }
        });
}

/// LU factorization with partial pivoting of every matrix in the batch, in place
/// (LAPACK `getrf`): `A_k = P_k·L_k·U_k`.
///
/// `L_k` is unit lower triangular (stored below the diagonal of `A_k`, its unit diagonal implied),
/// `U_k` upper triangular (stored on and above the diagonal). At step `j` the pivot is the entry of
/// largest `|re| + |im|` on or below the diagonal of column `j` (the first one on ties) and
/// `pivots[k·n + j]` gets its 1-based row: row `j + 1` was swapped with it. `info[k]` is 0, or the
/// 1-based index `j + 1` of the first exactly-zero `U_k(j, j)`; the factorization still completes
/// (as in LAPACK) and the factors satisfy `A_k = P_k·L_k·U_k`. A matrix holding a NaN or an
/// infinity is not factored: it is left as it was, its pivots are `1..=n` and `info[k] = −1 − e`,
/// `e` the column-major position of its first non-finite entry; the other matrices are factored all
/// the same. [`MatrixStatus`](crate::MatrixStatus) decodes an entry, and
/// [`BatchLayout::check_info`] turns the first non-finite matrix into
/// [`NonFinite`](gpu_blas::Error::NonFinite).
///
/// Lengths: `a.len() ≥ layout.required_len()`, `pivots.len() = n·batch`, `info.len() = batch`.
/// On the CPU each matrix is factored on one thread (column by column up to n = 64, blocked
/// by 32 columns above) and the batch is spread over rayon threads; the buffers are copied to
/// the host and back. On a GPU, orders up to 32 keep a whole matrix in the registers of 4–32
/// lanes; larger ones use one thread block per matrix (left-looking, blocked, the current
/// panel in shared memory). The panel must fit the GPU's shared memory: with 227 KiB per block
/// that allows n up to about 6800 (f32), 3400 (f64, c64) and 1700 (c128); larger orders are
/// [`Unsupported`](gpu_blas::Error::Unsupported).
/// A GPU call checks each matrix inside the kernel that factors it, before that kernel's first
/// store, and returns once the work is queued, without waiting for it: reading `info` (or the
/// factors) waits.
///
/// # Errors
/// Checked before anything is written: [`DeviceMismatch`](gpu_blas::Error::DeviceMismatch),
/// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) (a length or `stride < n²`),
/// [`SizeTooLarge`](gpu_blas::Error::SizeTooLarge) (`n > i32::MAX` or an overflowing layout),
/// [`Unsupported`](gpu_blas::Error::Unsupported) for an order too large for the GPU kernels.
/// A non-finite matrix is reported in `info` (above).
///
/// ```
/// use batched_lu::{getrf_batched, BatchLayout, MatrixStatus};
/// use gpu_blas::{Device, DeviceVec, Error};
/// let dev = Device::cpu();
/// // Three 2×2 matrices, column-major: [[1, 2], [3, 4]], [[0, 1], [0, 2]] (singular) and
/// // one with a NaN at (1, 0).
/// let mut a = DeviceVec::from_slice(
///     &dev,
///     &[1.0f64, 3.0, 2.0, 4.0, 0.0, 0.0, 1.0, 2.0, 5.0, f64::NAN, 6.0, 7.0],
/// )?;
/// let mut piv = DeviceVec::zeros(&dev, 6)?;
/// let mut info = DeviceVec::zeros(&dev, 3)?;
/// let l = BatchLayout::packed(2, 3);
/// getrf_batched(l, &mut a, &mut piv, &mut info)?;
/// assert_eq!(piv.to_vec()?, vec![2, 2, 1, 2, 1, 2]); // row 2 is the first pivot of matrix 0
/// let status: Vec<_> = info.to_vec()?.into_iter().map(MatrixStatus::from_info).collect();
/// assert_eq!(status[0], MatrixStatus::Regular);
/// assert_eq!(status[1], MatrixStatus::Singular { pivot: 1 }); // U(1,1) is exactly zero
/// assert_eq!(status[2], MatrixStatus::NonFinite { position: 1 }); // left unchanged
/// assert_eq!(l.check_info(&info), Err(Error::NonFinite { op: "getrf_batched", index: 9 }));
/// let f = a.to_vec()?;
/// assert_eq!(&f[..4], &[3.0, 1.0 / 3.0, 4.0, 2.0 - 4.0 / 3.0]); // L21, U11, U12, U22
/// assert_eq!(f[10..], [6.0, 7.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn getrf_batched<T: Scalar>(
    layout: BatchLayout,
    a: &mut DeviceVec<T>,
    pivots: &mut DeviceVec<i32>,
    info: &mut DeviceVec<i32>,
) -> Result<()> {
    const OP: &str = "getrf_batched";
    check::same_device(OP, a.device(), &[pivots.device(), info.device()])?;
    let need = layout.validate(OP)?;
    check::at_least(OP, "a", a.len(), need)?;
    check::exactly(OP, "pivots", pivots.len(), layout.n * layout.batch)?;
    check::exactly(OP, "info", info.len(), layout.batch)?;
    if layout.is_empty() {
        return info.copy_from_slice(&vec![0; layout.batch]);
    }
    if a.device().is_cuda() {
        let d = Desc::uniform(layout.n, layout.batch, layout.stride, 0);
        return gpu::getrf(OP, &d, a, pivots, info);
    }
    let mut host = a.to_vec()?;
    let (piv, inf) = factor_host(&layout, &mut host);
    a.copy_from_slice(&host)?;
    pivots.copy_from_slice(&piv)?;
    info.copy_from_slice(&inf)
}

/// Solves `op(A_k)·X_k = B_k` for every matrix of the batch from the factors and pivots of
/// [`getrf_batched`] (LAPACK `getrs`), overwriting `B_k` with `X_k`.
///
/// `op(A)` is `A`, `Aᵀ` or `Aᴴ` ([`Trans`]). `B_k` is the column-major `n × nrhs` matrix with
/// leading dimension `n` starting at `b[k·b_stride]` (`b_stride ≥ n·nrhs`; elements between
/// blocks are untouched). As in LAPACK, `info` is not consulted: factors with a zero `U(j, j)`
/// give infinities or NaN. A matrix whose pivots leave `1..=n` (never so after
/// [`getrf_batched`]) gets `X_k` = NaN; [`BatchLayout::check_pivots`] names the first such
/// pivot. Lengths: `a.len() ≥ layout.required_len()`, `pivots.len() = n·batch`,
/// `b.len() ≥ (batch − 1)·b_stride + n·nrhs`. A GPU call returns once the work is queued.
///
/// # Errors
/// As [`getrf_batched`], checked before anything is written.
///
/// ```
/// use batched_lu::{getrf_batched, getrs_batched, BatchLayout};
/// use gpu_blas::{blas2::Trans, Device, DeviceVec};
/// let dev = Device::cpu();
/// let l = BatchLayout::packed(2, 1);
/// let mut a = DeviceVec::from_slice(&dev, &[2.0f64, 1.0, 1.0, 3.0])?; // [[2, 1], [1, 3]]
/// let (mut piv, mut info) = (DeviceVec::zeros(&dev, 2)?, DeviceVec::zeros(&dev, 1)?);
/// getrf_batched(l, &mut a, &mut piv, &mut info)?;
/// let mut b = DeviceVec::from_slice(&dev, &[3.0, 4.0])?; // A·[1, 1] = [3, 4]
/// getrs_batched(l, Trans::N, &a, &piv, &mut b, 1, 2)?;
/// let x = b.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn getrs_batched<T: Scalar>(
    layout: BatchLayout,
    trans: Trans,
    a: &DeviceVec<T>,
    pivots: &DeviceVec<i32>,
    b: &mut DeviceVec<T>,
    nrhs: usize,
    b_stride: usize,
) -> Result<()> {
    const OP: &str = "getrs_batched";
    check::same_device(OP, a.device(), &[pivots.device(), b.device()])?;
    let need = layout.validate(OP)?;
    check::at_least(OP, "a", a.len(), need)?;
    check::exactly(OP, "pivots", pivots.len(), layout.n * layout.batch)?;
    check_rhs(OP, &layout, b.len(), nrhs, b_stride)?;
    if layout.is_empty() || nrhs == 0 {
        return Ok(());
    }
    if a.device().is_cuda() {
        let d = Desc::uniform(layout.n, layout.batch, layout.stride, b_stride);
        return gpu::getrs(OP, &d, trans, a, pivots, None, b, nrhs);
    }
    let piv = pivots.to_vec()?;
    let ah = a.to_vec()?;
    let mut bh = b.to_vec()?;
    solve_host(&layout, trans, &ah, &piv, None, &mut bh, nrhs, b_stride);
    b.copy_from_slice(&bh)
}

/// Out-of-place inverses from the factors of [`getrf_batched`] (LAPACK `getri`):
/// `Inv_k = A_k⁻¹ = U_k⁻¹·L_k⁻¹·P_kᵀ`, computed by solving `A_k·X = I`.
///
/// `Inv_k` is the column-major `n × n` matrix (leading dimension `n`) at `inv[k·inv_stride]`
/// (`inv_stride ≥ n²`; elements between matrices untouched). A matrix with `info[k] ≠ 0` (singular,
/// or not factored for a non-finite entry; see [`MatrixStatus`](crate::MatrixStatus)), an
/// exactly-zero `U_k(j, j)` or a pivot outside `1..=n` (never so after [`getrf_batched`]) has no
/// inverse: its `Inv_k` is filled with NaN, and `info` is the status saying which outputs are
/// valid. Lengths as in [`getrf_batched`], plus `inv.len() ≥ (batch − 1)·inv_stride + n²`. A GPU
/// call returns once the work is queued.
///
/// # Errors
/// As [`getrs_batched`], and [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) for
/// `info.len() ≠ batch` or a short `inv`.
///
/// ```
/// use batched_lu::{getrf_batched, getri_batched, BatchLayout};
/// use gpu_blas::{Device, DeviceVec};
/// let dev = Device::cpu();
/// let l = BatchLayout::packed(2, 2);
/// // [[0, 2], [4, 0]] and the singular [[1, 1], [1, 1]].
/// let mut a = DeviceVec::from_slice(&dev, &[0.0f64, 4.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0])?;
/// let (mut piv, mut info) = (DeviceVec::zeros(&dev, 4)?, DeviceVec::zeros(&dev, 2)?);
/// getrf_batched(l, &mut a, &mut piv, &mut info)?;
/// let mut inv = DeviceVec::zeros(&dev, 8)?;
/// getri_batched(l, &a, &piv, &info, &mut inv, 4)?;
/// let x = inv.to_vec()?;
/// assert_eq!(&x[..4], &[0.0, 0.5, 0.25, 0.0]); // [[0, 1/4], [1/2, 0]]
/// assert_eq!(info.to_vec()?, vec![0, 2]);
/// assert!(x[4..].iter().all(|v| v.is_nan()));
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn getri_batched<T: Scalar>(
    layout: BatchLayout,
    a: &DeviceVec<T>,
    pivots: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    inv: &mut DeviceVec<T>,
    inv_stride: usize,
) -> Result<()> {
    const OP: &str = "getri_batched";
    check::same_device(
        OP,
        a.device(),
        &[pivots.device(), info.device(), inv.device()],
    )?;
    let need = layout.validate(OP)?;
    check::at_least(OP, "a", a.len(), need)?;
    check::exactly(OP, "pivots", pivots.len(), layout.n * layout.batch)?;
    check::exactly(OP, "info", info.len(), layout.batch)?;
    check_inv(OP, &layout, inv.len(), inv_stride)?;
    if layout.is_empty() {
        return Ok(());
    }
    if a.device().is_cuda() {
        let d = Desc::uniform(layout.n, layout.batch, layout.stride, inv_stride);
        return gpu::getri(OP, &d, a, pivots, info, inv);
    }
    let piv = pivots.to_vec()?;
    let inf = info.to_vec()?;
    let ah = a.to_vec()?;
    let mut ih = inv.to_vec()?;
    invert_host(&layout, &ah, &piv, &inf, &mut ih, inv_stride);
    inv.copy_from_slice(&ih)
}

/// Inverses of every matrix of the batch: [`getrf_batched`] on a copy of `a`, then
/// [`getri_batched`] into `inv`; `a` is left unchanged. Returns `info` (length `batch`, see
/// [`MatrixStatus`](crate::MatrixStatus)): 0 where `Inv_k = A_k⁻¹` was computed; else `Inv_k` is
/// filled with NaN and `info[k]` is the 1-based index of the first zero `U_k(j, j)`, or `−1 − e`
/// where `A_k` holds a NaN or an infinity at position `e` ([`BatchLayout::check_info`] makes that a
/// [`NonFinite`](gpu_blas::Error::NonFinite) error). A GPU call returns once the work is queued.
///
/// # Errors
/// As [`getrf_batched`] and [`getri_batched`]; nothing is written on error.
///
/// ```
/// use batched_lu::{inverse_batched, BatchLayout};
/// use gpu_blas::{Device, DeviceVec};
/// let dev = Device::cpu();
/// let a = DeviceVec::from_slice(&dev, &[4.0f64, 0.0, 0.0, 0.5, 0.0])?; // diag(4, 0.5); 0
/// let mut inv = DeviceVec::zeros(&dev, 5)?;
/// let info = inverse_batched(BatchLayout { n: 2, batch: 1, stride: 5 }, &a, &mut inv, 4)?;
/// assert_eq!(info.to_vec()?, vec![0]);
/// assert_eq!(inv.to_vec()?, vec![0.25, 0.0, 0.0, 2.0, 0.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn inverse_batched<T: Scalar>(
    layout: BatchLayout,
    a: &DeviceVec<T>,
    inv: &mut DeviceVec<T>,
    inv_stride: usize,
) -> Result<DeviceVec<i32>> {
    const OP: &str = "inverse_batched";
    check::same_device(OP, a.device(), &[inv.device()])?;
    let need = layout.validate(OP)?;
    check::at_least(OP, "a", a.len(), need)?;
    check_inv(OP, &layout, inv.len(), inv_stride)?;
    if layout.is_empty() {
        return DeviceVec::zeros(a.device(), layout.batch);
    }
    if a.device().is_cuda() {
        let d = Desc::uniform(layout.n, layout.batch, layout.stride, inv_stride);
        let (f, piv, info) = gpu_factor_copy(OP, &d, a)?;
        gpu::getri(OP, &d, &f, &piv, &info, inv)?;
        return Ok(info);
    }
    let mut host = a.to_vec()?;
    let (piv, info) = factor_host(&layout, &mut host);
    let mut ih = inv.to_vec()?;
    invert_host(&layout, &host, &piv, &info, &mut ih, inv_stride);
    inv.copy_from_slice(&ih)?;
    DeviceVec::from_vec(a.device(), info)
}

/// Solves `op(A_k)·X_k = B_k` for every matrix of the batch: [`getrf_batched`] on a copy of `a`
/// (left unchanged), then [`getrs_batched`] on `b`. Returns `info` (length `batch`, see
/// [`MatrixStatus`](crate::MatrixStatus)): 0 where `X_k` was computed; else `B_k` is filled with
/// NaN (it is never left holding a meaningless "solution") and `info[k]` is the 1-based index of
/// the first zero `U_k(j, j)`, or `−1 − e` where `A_k` holds a NaN or an infinity at position `e`.
/// A GPU call returns once the work is queued.
///
/// # Errors
/// As [`getrf_batched`] and [`getrs_batched`]; nothing is written on error.
///
/// ```
/// use batched_lu::{solve_batched, BatchLayout};
/// use gpu_blas::{blas2::Trans, Device, DeviceVec};
/// use num_complex::Complex64 as C;
/// let dev = Device::cpu();
/// // A = [[0, i], [2, 0]]: Aᴴ·x = b for x = [1, 1] gives b = [2, −i].
/// let a = DeviceVec::from_slice(&dev, &[C::new(0.0, 0.0), C::new(2.0, 0.0), C::new(0.0, 1.0), C::new(0.0, 0.0)])?;
/// let mut b = DeviceVec::from_slice(&dev, &[C::new(2.0, 0.0), C::new(0.0, -1.0)])?;
/// let info = solve_batched(BatchLayout::packed(2, 1), Trans::C, &a, &mut b, 1, 2)?;
/// assert_eq!(info.to_vec()?, vec![0]);
/// assert_eq!(b.to_vec()?, vec![C::new(1.0, 0.0), C::new(1.0, 0.0)]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn solve_batched<T: Scalar>(
    layout: BatchLayout,
    trans: Trans,
    a: &DeviceVec<T>,
    b: &mut DeviceVec<T>,
    nrhs: usize,
    b_stride: usize,
) -> Result<DeviceVec<i32>> {
    const OP: &str = "solve_batched";
    check::same_device(OP, a.device(), &[b.device()])?;
    let need = layout.validate(OP)?;
    check::at_least(OP, "a", a.len(), need)?;
    check_rhs(OP, &layout, b.len(), nrhs, b_stride)?;
    if layout.is_empty() {
        return DeviceVec::zeros(a.device(), layout.batch);
    }
    if a.device().is_cuda() {
        let d = Desc::uniform(layout.n, layout.batch, layout.stride, b_stride);
        let (f, piv, info) = gpu_factor_copy(OP, &d, a)?;
        if nrhs > 0 {
            gpu::getrs(OP, &d, trans, &f, &piv, Some(&info), b, nrhs)?;
        }
        return Ok(info);
    }
    let mut host = a.to_vec()?;
    let (piv, info) = factor_host(&layout, &mut host);
    if nrhs > 0 {
        let mut bh = b.to_vec()?;
        solve_host(
            &layout,
            trans,
            &host,
            &piv,
            Some(&info),
            &mut bh,
            nrhs,
            b_stride,
        );
        b.copy_from_slice(&bh)?;
    }
    DeviceVec::from_vec(a.device(), info)
}
