//! Batches to and from `ndarray`: a batch of `batch` square matrices of order `n` is the 3-D
//! array `a` of shape `(batch, n, n)` with `a[[k, i, j]] = A_k(i, j)`; pivots are the 2-D array
//! of shape `(batch, n)` with `p[[k, j]]` the 1-based row interchanged with row `j + 1` at step
//! `j` of matrix `k`.

use crate::batched::BatchLayout;
use crate::check::{self, dims};
use gpu_blas::{Device, DeviceVec, Result, Scalar};
use ndarray::{Array2, Array3, ArrayBase, Data, Ix3};

/// Copies the 3-D array `a` (shape `(batch, n, n)`, any memory order, `a[[k, i, j]] = A_k(i, j)`)
/// to `device` as a packed batch: matrix `k` column-major at `k·n²`, so the returned
/// [`BatchLayout::packed`]`(n, batch)` describes it for every call of this crate.
///
/// # Errors
/// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) when the matrices are not square;
/// [`SizeTooLarge`](gpu_blas::Error::SizeTooLarge) when `n` exceeds the `i32` pivot range;
/// [`OutOfMemory`](gpu_blas::Error::OutOfMemory) or [`Cuda`](gpu_blas::Error::Cuda) from the
/// copy.
///
/// ```
/// use batched_lu::{batch_from_array, batch_to_array, getrf_batched};
/// use gpu_blas::{Device, DeviceVec};
/// use ndarray::array;
/// let dev = Device::cpu();
/// // Two 2 × 2 matrices: [[4, 3], [6, 3]] and [[1, 0], [0, 2]].
/// let a = array![[[4.0f64, 3.0], [6.0, 3.0]], [[1.0, 0.0], [0.0, 2.0]]];
/// let (layout, mut d) = batch_from_array(&dev, &a)?;
/// let (mut piv, mut info) = (DeviceVec::zeros(&dev, 4)?, DeviceVec::zeros(&dev, 2)?);
/// getrf_batched(layout, &mut d, &mut piv, &mut info)?;
/// let f = batch_to_array(layout, &d)?;
/// // P·A = L·U for the first matrix: rows swapped, l₂₁ = 4/6, u₂₂ = 3 − (2/3)·3 = 1.
/// assert_eq!(piv.to_vec()?[..2], [2, 2]);
/// assert_eq!((f[[0, 0, 0]], f[[0, 0, 1]], f[[0, 1, 1]]), (6.0, 3.0, 1.0));
/// assert!((f[[0, 1, 0]] - 2.0 / 3.0).abs() < 1e-15);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn batch_from_array<T: Scalar, S: Data<Elem = T>>(
    device: &Device,
    a: &ArrayBase<S, Ix3>,
) -> Result<(BatchLayout, DeviceVec<T>)> {
    const OP: &str = "batch_from_array";
    let (batch, rows, n) = a.dim();
    if rows != n {
        return Err(dims(
            OP,
            format!(
                "the matrices are {rows} x {n}, not square (array shape ({batch}, {rows}, {n}))"
            ),
        ));
    }
    check::pivot_range(OP, n)?;
    // Axes (k, j, i) in standard order: matrix after matrix, each column after column.
    let data: Vec<T> = a.view().permuted_axes([0, 2, 1]).iter().copied().collect();
    Ok((
        BatchLayout::packed(n, batch),
        DeviceVec::from_vec(device, data)?,
    ))
}

/// Reads the batch `layout` describes in `a` back into a 3-D array of shape `(batch, n, n)`
/// with `out[[k, i, j]] = A_k(i, j)` (waiting for the work queued on `a`); elements between
/// matrices (`stride > n²`) are left out.
///
/// # Errors
/// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) when `a` is shorter than the layout
/// needs or `stride < n²`; [`SizeTooLarge`](gpu_blas::Error::SizeTooLarge) when `n` exceeds the
/// `i32` pivot index range (as for every operation of the crate); [`Cuda`](gpu_blas::Error::Cuda)
/// from the copy.
///
/// ```
/// use batched_lu::{batch_to_array, BatchLayout};
/// use gpu_blas::{Device, DeviceVec};
/// let dev = Device::cpu();
/// // Two 2 × 2 matrices, column-major, five elements apart (one unused element between them).
/// let a = DeviceVec::from_slice(&dev, &[1.0f32, 2.0, 3.0, 4.0, 0.0, 5.0, 6.0, 7.0, 8.0])?;
/// let m = batch_to_array(BatchLayout { n: 2, batch: 2, stride: 5 }, &a)?;
/// assert_eq!(m[[0, 1, 0]], 2.0); // A_0(1, 0)
/// assert_eq!(m[[1, 0, 1]], 7.0); // A_1(0, 1)
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn batch_to_array<T: Scalar>(layout: BatchLayout, a: &DeviceVec<T>) -> Result<Array3<T>> {
    const OP: &str = "batch_to_array";
    let BatchLayout { n, batch, stride } = layout;
    let need = layout.validate(OP)?;
    check::at_least(OP, "a", a.len(), need)?;
    let host = if need == 0 {
        Vec::new()
    } else {
        a.read_range(0, need)?
    };
    Ok(Array3::from_shape_fn((batch, n, n), |(k, i, j)| {
        host[k * stride + i + j * n]
    }))
}

/// Reads the pivots of a factorization of the batch `layout` describes back into a 2-D array of
/// shape `(batch, n)`: `out[[k, j]]` is the 1-based row of matrix `k` interchanged with row
/// `j + 1` at step `j` (LAPACK's `ipiv`).
///
/// # Errors
/// [`DimensionMismatch`](gpu_blas::Error::DimensionMismatch) when `pivots.len() ≠ n·batch`;
/// [`Cuda`](gpu_blas::Error::Cuda) from the copy.
///
/// ```
/// use batched_lu::{pivots_to_array, BatchLayout};
/// use gpu_blas::{Device, DeviceVec};
/// let dev = Device::cpu();
/// let p = DeviceVec::from_slice(&dev, &[2, 2, 1, 2])?;
/// let a = pivots_to_array(BatchLayout::packed(2, 2), &p)?;
/// assert_eq!(a.row(0).to_vec(), vec![2, 2]);
/// assert_eq!(a.row(1).to_vec(), vec![1, 2]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn pivots_to_array(layout: BatchLayout, pivots: &DeviceVec<i32>) -> Result<Array2<i32>> {
    const OP: &str = "pivots_to_array";
    let len = layout.pivot_len(OP)?;
    check::exactly(OP, "pivots", pivots.len(), len)?;
    let host = if len == 0 {
        Vec::new()
    } else {
        pivots.to_vec()?
    };
    Array2::from_shape_vec((layout.batch, layout.n), host).map_err(|e| {
        dims(
            OP,
            format!("{e} (n = {}, batch = {})", layout.n, layout.batch),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::getrf_batched;
    use gpu_blas::Error;
    use ndarray::{Array3, ShapeBuilder};
    use num_complex::Complex64;

    /// A row-major, a column-major (Fortran order) and a non-contiguous array come back element
    /// for element, and the packed buffer holds matrix k column-major at k·n².
    #[test]
    fn round_trip_in_any_memory_order() {
        let dev = Device::cpu();
        let f = |(k, i, j): (usize, usize, usize)| (100 * k + 10 * i + j) as f64;
        let c = Array3::from_shape_fn((3, 4, 4), f);
        let fortran = Array3::from_shape_fn((3, 4, 4).f(), f);
        let larger = Array3::from_shape_fn((3, 5, 6), f);
        let sliced = larger.slice(ndarray::s![.., ..4, ..4]);
        for a in [c.view(), fortran.view(), sliced] {
            let (l, d) = batch_from_array(&dev, &a).unwrap();
            assert_eq!(l, BatchLayout::packed(4, 3));
            let flat = d.to_vec().unwrap();
            assert_eq!(flat[16 + 2 + 4 * 3], f((1, 2, 3)));
            assert_eq!(batch_to_array(l, &d).unwrap(), c);
        }
        // A transposed view reads each matrix transposed.
        let t = c.view().permuted_axes([0, 2, 1]);
        let (l, d) = batch_from_array(&dev, &t).unwrap();
        assert_eq!(batch_to_array(l, &d).unwrap()[[2, 1, 3]], f((2, 3, 1)));
    }

    #[test]
    fn shapes_and_lengths_are_checked() {
        let dev = Device::cpu();
        let r = batch_from_array(&dev, &Array3::<f32>::zeros((2, 3, 4)));
        assert!(matches!(
            r,
            Err(Error::DimensionMismatch {
                op: "batch_from_array",
                ..
            })
        ));
        let short = DeviceVec::<f32>::zeros(&dev, 7).unwrap();
        let r = batch_to_array(BatchLayout::packed(2, 2), &short);
        assert!(matches!(
            r,
            Err(Error::DimensionMismatch {
                op: "batch_to_array",
                ..
            })
        ));
        let r = batch_to_array(
            BatchLayout {
                n: 2,
                batch: 2,
                stride: 3,
            },
            &short,
        );
        assert!(matches!(r, Err(Error::DimensionMismatch { .. })));
        let p = DeviceVec::<i32>::zeros(&dev, 5).unwrap();
        let r = pivots_to_array(BatchLayout::packed(2, 2), &p);
        assert!(matches!(
            r,
            Err(Error::DimensionMismatch {
                op: "pivots_to_array",
                ..
            })
        ));
        // Empty batches pass through.
        let (l, d) = batch_from_array(&dev, &Array3::<f64>::zeros((0, 5, 5))).unwrap();
        assert_eq!(batch_to_array(l, &d).unwrap().dim(), (0, 5, 5));
    }

    /// Factors from arrays, checked against the input by a plain loop: every entry of P·A equals
    /// that of L·U within 4·n·ε·(Σ_m |L(i, m)|·|U(m, j)| + |(P·A)(i, j)|).
    #[test]
    fn factors_through_arrays_reconstruct_the_input() {
        let dev = Device::cpu();
        let (batch, n) = (5, 7);
        let a = Array3::from_shape_fn((batch, n, n), |(k, i, j)| {
            let x = ((k * 131 + i * 37 + j * 11) % 17) as f64 - 8.0;
            Complex64::new(x, ((i + 2 * j + k) % 5) as f64 - 2.0)
        });
        let (l, mut d) = batch_from_array(&dev, &a).unwrap();
        let mut piv = DeviceVec::zeros(&dev, n * batch).unwrap();
        let mut info = DeviceVec::zeros(&dev, batch).unwrap();
        getrf_batched(l, &mut d, &mut piv, &mut info).unwrap();
        let f = batch_to_array(l, &d).unwrap();
        let p = pivots_to_array(l, &piv).unwrap();
        for k in 0..batch {
            // P·A: the interchanges applied to A's rows in order.
            let mut pa: Vec<Vec<Complex64>> = (0..n)
                .map(|i| a.slice(ndarray::s![k, i, ..]).to_vec())
                .collect();
            for j in 0..n {
                pa.swap(j, (p[[k, j]] - 1) as usize);
            }
            for (i, row) in pa.iter().enumerate() {
                for (j, want) in row.iter().enumerate() {
                    // (L·U)(i, j) and Σ |L(i, m)|·|U(m, j)|, which bounds its rounding error.
                    let (mut lu, mut mag) = (Complex64::new(0.0, 0.0), 0.0);
                    for m in 0..=i.min(j) {
                        let lim = if m == i {
                            Complex64::new(1.0, 0.0)
                        } else {
                            f[[k, i, m]]
                        };
                        lu += lim * f[[k, m, j]];
                        mag += lim.norm() * f[[k, m, j]].norm();
                    }
                    let tol = 4.0 * n as f64 * f64::EPSILON * (mag + want.norm());
                    assert!(
                        (lu - want).norm() <= tol,
                        "matrix {k} ({i}, {j}): {lu} vs {want}"
                    );
                }
            }
        }
    }
}
