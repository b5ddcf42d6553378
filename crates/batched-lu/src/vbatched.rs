//! Variable-size batches: matrices of different orders at arbitrary (disjoint) offsets of one
//! buffer.

use crate::check::{self, dims};
use crate::gpu::{self, VarArrays};
use crate::kernel::{getrf_checked, getri_one, getrs_one, has_zero_pivot, nan, pivots_in_range};
use crate::status;
use gpu_blas::blas2::Trans;
use gpu_blas::{DeviceVec, Error, Result, Scalar};
use rayon::prelude::*;

/// Where the matrices of a variable-size batch lie in one buffer.
///
/// Matrix `k` is the column-major `n_k × n_k` matrix (`n_k = sizes[k]`, leading dimension
/// `n_k`) whose element `(i, j)` is `a[offsets[k] + i + j·n_k]`. The matrices must not overlap.
/// The pivots of matrix `k` start at `pivots[n_0 + … + n_{k−1}]` (all pivots back to back,
/// [`pivot_len`](Self::pivot_len) in all), and so do the right-hand sides of
/// [`getrs_vbatched`].
///
/// ```
/// use batched_lu::VarBatch;
/// let vb = VarBatch::packed(&[1, 3, 2]);
/// assert_eq!(vb.offsets, vec![0, 1, 10]);
/// assert_eq!(vb.required_len(), 14);
/// assert_eq!(vb.pivot_len(), 6);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VarBatch {
    /// Order `n_k` of each matrix.
    pub sizes: Vec<usize>,
    /// Offset of each matrix's element `(0, 0)` in the buffer.
    pub offsets: Vec<usize>,
}

impl VarBatch {
    /// Matrices of the given orders stored back to back (`offsets[k] = n_0² + … + n_{k−1}²`).
    ///
    /// ```
    /// use batched_lu::VarBatch;
    /// assert_eq!(VarBatch::packed(&[2, 2]).offsets, vec![0, 4]);
    /// ```
    pub fn packed(sizes: &[usize]) -> Self {
        let mut offsets = Vec::with_capacity(sizes.len());
        let mut at = 0usize;
        for &n in sizes {
            offsets.push(at);
            at = at.saturating_add(n.saturating_mul(n));
        }
        VarBatch {
            sizes: sizes.to_vec(),
            offsets,
        }
    }

    /// The fewest elements a buffer holding the batch may have: `max_k (offsets[k] + n_k²)`
    /// (saturating).
    ///
    /// ```
    /// use batched_lu::VarBatch;
    /// let vb = VarBatch { sizes: vec![2, 1], offsets: vec![10, 0] };
    /// assert_eq!(vb.required_len(), 14);
    /// ```
    pub fn required_len(&self) -> usize {
        self.sizes
            .iter()
            .zip(&self.offsets)
            .map(|(&n, &o)| o.saturating_add(n.saturating_mul(n)))
            .max()
            .unwrap_or(0)
    }

    /// Number of pivots (and of right-hand-side elements of [`getrs_vbatched`]):
    /// `n_0 + n_1 + …` (saturating).
    ///
    /// ```
    /// use batched_lu::VarBatch;
    /// assert_eq!(VarBatch::packed(&[4, 0, 5]).pivot_len(), 9);
    /// ```
    pub fn pivot_len(&self) -> usize {
        self.sizes.iter().fold(0usize, |s, &n| s.saturating_add(n))
    }

    /// Checks the sizes, that every matrix fits a buffer of `len` elements and that the
    /// non-empty matrices are disjoint; returns them ordered by offset.
    fn validate(&self, op: &'static str, what: &str, len: usize) -> Result<Vec<usize>> {
        if self.sizes.len() != self.offsets.len() {
            return Err(dims(
                op,
                format!(
                    "{} sizes but {} offsets",
                    self.sizes.len(),
                    self.offsets.len()
                ),
            ));
        }
        for (k, (&n, &o)) in self.sizes.iter().zip(&self.offsets).enumerate() {
            check::pivot_range(op, n)?;
            let end = o.checked_add(n * n).ok_or_else(|| Error::SizeTooLarge {
                op,
                detail: format!("matrix {k}: offset {o} + n² overflows usize"),
            })?;
            if n > 0 && end > len {
                return Err(dims(
                    op,
                    format!(
                        "matrix {k} (n = {n}, offset {o}) ends at {end} > {what}.len() = {len}"
                    ),
                ));
            }
        }
        let mut order: Vec<usize> = (0..self.sizes.len())
            .filter(|&k| self.sizes[k] > 0)
            .collect();
        order.sort_by_key(|&k| self.offsets[k]);
        for w in order.windows(2) {
            let (p, q) = (w[0], w[1]);
            if self.offsets[p] + self.sizes[p] * self.sizes[p] > self.offsets[q] {
                return Err(dims(op, format!("matrices {p} and {q} overlap")));
            }
        }
        Ok(order)
    }

    /// Start of each matrix's pivots (and right-hand side).
    /// [`BatchLayout::check_info`](crate::BatchLayout::check_info) for a variable-size batch:
    /// reads `info` back and fails with [`NonFinite`](gpu_blas::Error::NonFinite) at the first
    /// matrix `k` left unfactored for a NaN or an infinity, `index` being `offsets[k] + e`.
    ///
    /// # Errors
    /// [`NonFinite`](gpu_blas::Error::NonFinite) as above;
    /// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) for
    /// `info.len() ≠ sizes.len()`.
    ///
    /// ```
    /// use batched_lu::{getrf_vbatched, VarBatch};
    /// use gpu_blas::{Device, DeviceVec, Error};
    /// let dev = Device::cpu();
    /// let vb = VarBatch { sizes: vec![1, 2], offsets: vec![4, 0] };
    /// let mut a = DeviceVec::from_slice(&dev, &[1.0f64, 2.0, f64::NAN, 4.0, 5.0])?;
    /// let (mut piv, mut info) = (DeviceVec::zeros(&dev, 3)?, DeviceVec::zeros(&dev, 2)?);
    /// getrf_vbatched(&vb, &mut a, &mut piv, &mut info)?;
    /// assert_eq!(vb.check_info(&info), Err(Error::NonFinite { op: "getrf_vbatched", index: 2 }));
    /// assert_eq!(a.to_vec()?[4], 5.0); // matrix 0 ([5]) was factored
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn check_info(&self, info: &DeviceVec<i32>) -> Result<Vec<i32>> {
        status::check_info("getrf_vbatched", info, self.sizes.len(), |k| {
            self.offsets.get(k).copied().unwrap_or(0)
        })
    }

    /// [`BatchLayout::check_pivots`](crate::BatchLayout::check_pivots) for a variable-size
    /// batch: fails with [`OutOfBounds`](gpu_blas::Error::OutOfBounds) at the first pivot
    /// outside `1..=n_k` of its matrix.
    ///
    /// # Errors
    /// [`OutOfBounds`](gpu_blas::Error::OutOfBounds) as above;
    /// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) for
    /// `pivots.len() ≠ pivot_len()`.
    ///
    /// ```
    /// use batched_lu::VarBatch;
    /// use gpu_blas::{Device, DeviceVec};
    /// let dev = Device::cpu();
    /// let vb = VarBatch::packed(&[1, 2]);
    /// assert!(vb.check_pivots(&DeviceVec::from_slice(&dev, &[1, 2, 2])?).is_ok());
    /// assert!(vb.check_pivots(&DeviceVec::from_slice(&dev, &[2, 2, 2])?).is_err());
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn check_pivots(&self, pivots: &DeviceVec<i32>) -> Result<()> {
        const OP: &str = "check_pivots";
        for &n in &self.sizes {
            check::pivot_range(OP, n)?;
        }
        let ranges = self.sizes.iter().copied().zip(self.pivot_starts());
        status::check_pivots(OP, pivots, self.pivot_len(), ranges)
    }

    fn pivot_starts(&self) -> Vec<usize> {
        let mut at = 0;
        self.sizes
            .iter()
            .map(|&n| {
                let s = at;
                at += n;
                s
            })
            .collect()
    }

    /// Disjoint mutable slices of the matrices, indexed by matrix (`order` from `validate`).
    fn carve<'a, T>(&self, s: &'a mut [T], order: &[usize]) -> Vec<&'a mut [T]> {
        let mut out: Vec<&'a mut [T]> = self.sizes.iter().map(|_| Default::default()).collect();
        let mut rest = s;
        let mut pos = 0;
        for &k in order {
            let (n, o) = (self.sizes[k], self.offsets[k]);
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(o - pos);
            let (m, tail) = tail.split_at_mut(n * n);
            out[k] = m;
            rest = tail;
            pos = o + n * n;
        }
        out
    }

    /// Read-only slice of matrix `k` (validated).
    fn matrix<'a, T>(&self, s: &'a [T], k: usize) -> &'a [T] {
        let (n, o) = (self.sizes[k], self.offsets[k]);
        if n == 0 {
            &[]
        } else {
            &s[o..o + n * n]
        }
    }
}

/// Splits `s` into consecutive pieces of lengths `sizes`.
fn split_by<'a, T>(mut s: &'a mut [T], sizes: &[usize]) -> Vec<&'a mut [T]> {
    sizes
        .iter()
        .map(|&n| {
            let (head, tail) = std::mem::take(&mut s).split_at_mut(n);
            s = tail;
            head
        })
        .collect()
}

/// [`getrf_batched`](crate::getrf_batched) for a variable-size batch: `A_k = P_k·L_k·U_k` in
/// place for every matrix, with the same pivot choice and `info` semantics (1-based pivots of
/// matrix `k` at `pivots[n_0 + … + n_{k−1} ..]`, `info[k]` 0 or the 1-based index of the first
/// exactly-zero `U_k(j, j)`; a matrix holding a NaN or an infinity is left as it was, with
/// pivots `1..=n_k` and `info[k] = −1 − e`, see [`MatrixStatus`](crate::MatrixStatus) and
/// [`VarBatch::check_info`]). A GPU call returns once the work is queued.
///
/// Lengths: `a.len() ≥ vb.required_len()`, `pivots.len() = vb.pivot_len()`,
/// `info.len() = vb.sizes.len()`.
///
/// # Errors
/// As [`getrf_batched`](crate::getrf_batched); also
/// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) for `sizes`/`offsets` of different
/// lengths, a matrix past the end of `a` or overlapping matrices.
///
/// ```
/// use batched_lu::{getrf_vbatched, VarBatch};
/// use gpu_blas::{Device, DeviceVec};
/// let dev = Device::cpu();
/// let vb = VarBatch::packed(&[1, 2]); // [5] and [[0, 1], [1, 0]]
/// let mut a = DeviceVec::from_slice(&dev, &[5.0f64, 0.0, 1.0, 1.0, 0.0])?;
/// let (mut piv, mut info) = (DeviceVec::zeros(&dev, 3)?, DeviceVec::zeros(&dev, 2)?);
/// getrf_vbatched(&vb, &mut a, &mut piv, &mut info)?;
/// assert_eq!(piv.to_vec()?, vec![1, 2, 2]);
/// assert_eq!(info.to_vec()?, vec![0, 0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn getrf_vbatched<T: Scalar>(
    vb: &VarBatch,
    a: &mut DeviceVec<T>,
    pivots: &mut DeviceVec<i32>,
    info: &mut DeviceVec<i32>,
) -> Result<()> {
    const OP: &str = "getrf_vbatched";
    check::same_device(OP, a.device(), &[pivots.device(), info.device()])?;
    let order = vb.validate(OP, "a", a.len())?;
    check::exactly(OP, "pivots", pivots.len(), vb.pivot_len())?;
    check::exactly(OP, "info", info.len(), vb.sizes.len())?;
    if vb.sizes.is_empty() {
        return Ok(());
    }
    if a.device().is_cuda() {
        // The arrays are freed in stream order, after the kernel that reads them.
        let arrays = VarArrays::new(a.device(), &vb.sizes, &vb.offsets, &vb.pivot_starts(), None)?;
        return gpu::getrf(OP, &arrays.desc(), a, pivots, info);
    }
    let mut host = a.to_vec()?;
    let mut piv = vec![0i32; vb.pivot_len()];
    let mut inf = vec![0i32; vb.sizes.len()];
    let mats = vb.carve(&mut host, &order);
    let pivs = split_by(&mut piv, &vb.sizes);
    mats.into_par_iter()
        .zip(pivs)
        .zip(inf.par_iter_mut())
        .zip(vb.sizes.par_iter())
        .for_each(|(((m, p), i), &n)| *i = getrf_checked(n, m, p));
    a.copy_from_slice(&host)?;
    pivots.copy_from_slice(&piv)?;
    info.copy_from_slice(&inf)
}

/// [`getrs_batched`](crate::getrs_batched) for a variable-size batch with one right-hand side
/// per matrix: solves `op(A_k)·x_k = b_k` in place, `b_k` being the `n_k` elements of `b`
/// starting at `n_0 + … + n_{k−1}` (`b.len() = vb.pivot_len()`). `info` is not consulted; a
/// matrix whose pivots leave `1..=n_k` gets `x_k` = NaN ([`VarBatch::check_pivots`] names the
/// first such pivot). A GPU call returns once the work is queued.
///
/// # Errors
/// As [`getrf_vbatched`].
///
/// ```
/// use batched_lu::{getrf_vbatched, getrs_vbatched, VarBatch};
/// use gpu_blas::{blas2::Trans, Device, DeviceVec};
/// let dev = Device::cpu();
/// let vb = VarBatch::packed(&[1, 2]); // [4] and [[0, 2], [1, 0]]
/// let mut a = DeviceVec::from_slice(&dev, &[4.0f64, 0.0, 1.0, 2.0, 0.0])?;
/// let (mut piv, mut info) = (DeviceVec::zeros(&dev, 3)?, DeviceVec::zeros(&dev, 2)?);
/// getrf_vbatched(&vb, &mut a, &mut piv, &mut info)?;
/// let mut b = DeviceVec::from_slice(&dev, &[8.0, 2.0, 3.0])?;
/// getrs_vbatched(&vb, Trans::T, &a, &piv, &mut b)?; // Aᵀ = [[0, 1], [2, 0]]
/// assert_eq!(b.to_vec()?, vec![2.0, 1.5, 2.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn getrs_vbatched<T: Scalar>(
    vb: &VarBatch,
    trans: Trans,
    a: &DeviceVec<T>,
    pivots: &DeviceVec<i32>,
    b: &mut DeviceVec<T>,
) -> Result<()> {
    const OP: &str = "getrs_vbatched";
    check::same_device(OP, a.device(), &[pivots.device(), b.device()])?;
    vb.validate(OP, "a", a.len())?;
    check::exactly(OP, "pivots", pivots.len(), vb.pivot_len())?;
    check::exactly(OP, "b", b.len(), vb.pivot_len())?;
    if vb.sizes.is_empty() {
        return Ok(());
    }
    if a.device().is_cuda() {
        let starts = vb.pivot_starts();
        let arrays = VarArrays::new(a.device(), &vb.sizes, &vb.offsets, &starts, Some(&starts))?;
        return gpu::getrs(OP, &arrays.desc(), trans, a, pivots, None, b, 1);
    }
    let piv = pivots.to_vec()?;
    let ah = a.to_vec()?;
    let mut bh = b.to_vec()?;
    let starts = vb.pivot_starts();
    split_by(&mut bh, &vb.sizes)
        .into_par_iter()
        .enumerate()
        .for_each(|(k, x)| {
            let n = vb.sizes[k];
            let p = &piv[starts[k]..starts[k] + n];
            if pivots_in_range(n, p) {
                getrs_one(n, trans, vb.matrix(&ah, k), p, x, 1);
            } else {
                x.fill(nan());
            }
        });
    b.copy_from_slice(&bh)
}

/// [`getri_batched`](crate::getri_batched) for a variable-size batch: `Inv_k = A_k⁻¹` from the
/// factors, written to `inv` at the same offsets as the matrices of `a`
/// (`inv.len() ≥ vb.required_len()`; everything else in `inv` is untouched). Matrices with
/// `info[k] ≠ 0`, an exactly-zero `U_k(j, j)` or a pivot outside `1..=n_k` get NaN. A GPU
/// call returns once the work is queued.
///
/// # Errors
/// As [`getrs_vbatched`], and [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) for
/// `info.len() ≠ vb.sizes.len()` or a short `inv`.
///
/// ```
/// use batched_lu::{getrf_vbatched, getri_vbatched, VarBatch};
/// use gpu_blas::{Device, DeviceVec};
/// let dev = Device::cpu();
/// let vb = VarBatch::packed(&[1, 2]); // [4] and [[0, 2], [1, 0]]
/// let mut a = DeviceVec::from_slice(&dev, &[4.0f64, 0.0, 1.0, 2.0, 0.0])?;
/// let (mut piv, mut info) = (DeviceVec::zeros(&dev, 3)?, DeviceVec::zeros(&dev, 2)?);
/// getrf_vbatched(&vb, &mut a, &mut piv, &mut info)?;
/// let mut inv = DeviceVec::zeros(&dev, 5)?;
/// getri_vbatched(&vb, &a, &piv, &info, &mut inv)?;
/// assert_eq!(inv.to_vec()?, vec![0.25, 0.0, 0.5, 1.0, 0.0]); // [[0, 1], [1/2, 0]]
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn getri_vbatched<T: Scalar>(
    vb: &VarBatch,
    a: &DeviceVec<T>,
    pivots: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    inv: &mut DeviceVec<T>,
) -> Result<()> {
    const OP: &str = "getri_vbatched";
    check::same_device(
        OP,
        a.device(),
        &[pivots.device(), info.device(), inv.device()],
    )?;
    let order = vb.validate(OP, "a", a.len())?;
    vb.validate(OP, "inv", inv.len())?;
    check::exactly(OP, "pivots", pivots.len(), vb.pivot_len())?;
    check::exactly(OP, "info", info.len(), vb.sizes.len())?;
    if vb.sizes.is_empty() {
        return Ok(());
    }
    if a.device().is_cuda() {
        let starts = vb.pivot_starts();
        let arrays = VarArrays::new(
            a.device(),
            &vb.sizes,
            &vb.offsets,
            &starts,
            Some(&vb.offsets),
        )?;
        return gpu::getri(OP, &arrays.desc(), a, pivots, info, inv);
    }
    let piv = pivots.to_vec()?;
    let inf = info.to_vec()?;
    let ah = a.to_vec()?;
    let mut ih = inv.to_vec()?;
    let starts = vb.pivot_starts();
    vb.carve(&mut ih, &order)
        .into_par_iter()
        .enumerate()
        .for_each(|(k, x)| {
            let n = vb.sizes[k];
            let m = vb.matrix(&ah, k);
            let p = &piv[starts[k]..starts[k] + n];
            if inf[k] != 0 || has_zero_pivot(n, m) || !pivots_in_range(n, p) {
                x.fill(nan());
            } else {
                getri_one(n, m, p, x);
            }
        });
    inv.copy_from_slice(&ih)
}
