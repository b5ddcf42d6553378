//! Strided vector views and column-major matrix views into device buffers.
//!
//! A vector view of length `n` with increment `inc` follows the BLAS convention: `offset` is the
//! element with the lowest address, and logical element `i` sits at
//! `offset + i·inc` when `inc > 0` and at `offset + (n − 1 − i)·|inc|` when `inc < 0`.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::scalar::Element;

/// Checks that a strided view lies inside a buffer of `buf_len` elements.
pub(crate) fn check_strided(
    op: &'static str,
    buf_len: usize,
    offset: usize,
    len: usize,
    inc: isize,
) -> Result<()> {
    if inc == 0 {
        return Err(Error::InvalidIncrement {
            op,
            arg: "inc",
            inc,
            reason: "a view's increment must be non-zero",
        });
    }
    if len == 0 {
        return if offset <= buf_len {
            Ok(())
        } else {
            Err(Error::bounds(
                op,
                format!("offset {offset} past buffer of {buf_len}"),
            ))
        };
    }
    let last = (len - 1)
        .checked_mul(inc.unsigned_abs())
        .and_then(|s| s.checked_add(offset));
    match last {
        Some(l) if l < buf_len => Ok(()),
        _ => Err(Error::bounds(
            op,
            format!("{len} elements with increment {inc} from offset {offset} exceed buffer of {buf_len}"),
        )),
    }
}

/// Physical index of logical element `i` of a strided view.
#[inline]
pub(crate) fn phys(offset: usize, len: usize, inc: isize, i: usize) -> usize {
    if inc > 0 {
        offset + i * inc as usize
    } else {
        offset + (len - 1 - i) * inc.unsigned_abs()
    }
}

/// A read-only strided vector: `len` elements, `inc` apart, in a device buffer.
///
/// Obtained from a [`DeviceVec`](crate::DeviceVec) (`(&v).into()`, [`DeviceVec::view`](crate::DeviceVec::view),
/// [`DeviceVec::strided`](crate::DeviceVec::strided)) or from a matrix row or column.
///
/// ```
/// use gpu_blas::{Device, DeviceVec};
/// let v = DeviceVec::from_slice(&Device::cpu(), &[0.0f64, 1.0, 2.0, 3.0, 4.0, 5.0])?;
/// // Every second element, from the first: [0, 2, 4].
/// assert_eq!(v.strided(0, 3, 2)?.to_vec()?, vec![0.0, 2.0, 4.0]);
/// // A negative increment walks backwards (BLAS convention): [4, 2, 0].
/// assert_eq!(v.strided(0, 3, -2)?.to_vec()?, vec![4.0, 2.0, 0.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct VecRef<'a, T: Element> {
    pub(crate) buf: &'a Buffer<T>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) inc: isize,
}

impl<T: Element> Clone for VecRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for VecRef<'_, T> {}

/// A mutable strided vector: `len` elements, `inc` apart, in a device buffer.
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceVec};
/// let mut v = DeviceVec::from_slice(&Device::cpu(), &[1.0f32, 1.0, 1.0, 1.0])?;
/// blas1::scal(3.0, v.strided_mut(1, 2, 2)?)?; // scale elements 1 and 3
/// assert_eq!(v.to_vec()?, vec![1.0, 3.0, 1.0, 3.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct VecMut<'a, T: Element> {
    pub(crate) buf: &'a mut Buffer<T>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) inc: isize,
}

macro_rules! vec_common {
    ($name:ident) => {
        impl<T: Element> $name<'_, T> {
            /// Number of logical elements.
            pub fn len(&self) -> usize {
                self.len
            }
            /// Whether the view is empty.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }
            /// Distance between consecutive logical elements (negative: reversed).
            pub fn inc(&self) -> isize {
                self.inc
            }
            /// Index of the lowest-addressed element in the underlying buffer.
            pub fn offset(&self) -> usize {
                self.offset
            }
            /// The device holding the data.
            pub fn device(&self) -> &Device {
                self.buf.device()
            }
            /// The elements in logical order, copied to the host (waits for pending work).
            ///
            /// # Errors
            /// [`Error::Cuda`] if a pending kernel failed.
            pub fn to_vec(&self) -> Result<Vec<T>> {
                if self.len == 0 {
                    return Ok(Vec::new());
                }
                let span = (self.len - 1) * self.inc.unsigned_abs() + 1;
                let mut raw = vec![T::default(); span];
                self.buf.read(self.offset, &mut raw)?;
                Ok((0..self.len)
                    .map(|i| raw[phys(0, self.len, self.inc, i)])
                    .collect())
            }
        }
    };
}
vec_common!(VecRef);
vec_common!(VecMut);

impl<'a, T: Element> VecRef<'a, T> {
    pub(crate) fn new(
        buf: &'a Buffer<T>,
        offset: usize,
        len: usize,
        inc: isize,
        op: &'static str,
    ) -> Result<Self> {
        check_strided(op, buf.len(), offset, len, inc)?;
        Ok(VecRef {
            buf,
            offset,
            len,
            inc,
        })
    }
}

impl<'a, T: Element> VecMut<'a, T> {
    pub(crate) fn new(
        buf: &'a mut Buffer<T>,
        offset: usize,
        len: usize,
        inc: isize,
        op: &'static str,
    ) -> Result<Self> {
        check_strided(op, buf.len(), offset, len, inc)?;
        Ok(VecMut {
            buf,
            offset,
            len,
            inc,
        })
    }

    /// A read-only view of the same elements.
    pub fn as_ref(&self) -> VecRef<'_, T> {
        VecRef {
            buf: self.buf,
            offset: self.offset,
            len: self.len,
            inc: self.inc,
        }
    }

    /// A shorter-lived mutable view of the same elements, so the view can be used again.
    pub fn reborrow(&mut self) -> VecMut<'_, T> {
        VecMut {
            buf: self.buf,
            offset: self.offset,
            len: self.len,
            inc: self.inc,
        }
    }
}

/// A read-only column-major matrix view: `rows × cols`, leading dimension `ld`, starting at
/// `offset`; element `(i, j)` is at `offset + i + j·ld`.
///
/// ```
/// use gpu_blas::{Device, DeviceMatrix};
/// use ndarray::array;
/// let a = DeviceMatrix::from_array(&Device::cpu(), &array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]])?;
/// let b = a.view().block(0, 1, 2, 2)?;
/// assert_eq!(b.to_array()?, array![[2.0, 3.0], [5.0, 6.0]]);
/// assert_eq!(b.row(1)?.to_vec()?, vec![5.0, 6.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct MatRef<'a, T: Element> {
    pub(crate) buf: &'a Buffer<T>,
    pub(crate) offset: usize,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) ld: usize,
}

impl<T: Element> Clone for MatRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for MatRef<'_, T> {}

/// A mutable column-major matrix view (see [`MatRef`] for the layout).
///
/// ```
/// use gpu_blas::{blas1, Device, DeviceMatrix};
/// use ndarray::array;
/// let mut a = DeviceMatrix::from_array(&Device::cpu(), &array![[1.0f64, 2.0], [3.0, 4.0]])?;
/// let mut v = a.view_mut();
/// blas1::scal(10.0, v.col_mut(1)?)?;
/// assert_eq!(a.to_array()?, array![[1.0, 20.0], [3.0, 40.0]]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct MatMut<'a, T: Element> {
    pub(crate) buf: &'a mut Buffer<T>,
    pub(crate) offset: usize,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) ld: usize,
}

/// Checks that a `rows × cols` block with leading dimension `ld` at `offset` fits `buf_len`.
pub(crate) fn check_matrix(
    op: &'static str,
    buf_len: usize,
    offset: usize,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<()> {
    if ld < rows.max(1) {
        return Err(Error::bounds(
            op,
            format!("leading dimension {ld} smaller than the row count {rows}"),
        ));
    }
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let last = (cols - 1)
        .checked_mul(ld)
        .and_then(|c| c.checked_add(rows - 1))
        .and_then(|c| c.checked_add(offset));
    match last {
        Some(l) if l < buf_len => Ok(()),
        _ => Err(Error::bounds(
            op,
            format!("{rows}x{cols} block (ld {ld}) at offset {offset} exceeds buffer of {buf_len}"),
        )),
    }
}

fn check_block(
    op: &'static str,
    rows: usize,
    cols: usize,
    r0: usize,
    c0: usize,
    nr: usize,
    nc: usize,
) -> Result<()> {
    if r0.checked_add(nr).is_none_or(|e| e > rows) || c0.checked_add(nc).is_none_or(|e| e > cols) {
        return Err(Error::bounds(
            op,
            format!("block {nr}x{nc} at ({r0}, {c0}) outside a {rows}x{cols} matrix"),
        ));
    }
    Ok(())
}

macro_rules! mat_common {
    ($name:ident) => {
        impl<T: Element> $name<'_, T> {
            /// Number of rows.
            pub fn rows(&self) -> usize {
                self.rows
            }
            /// Number of columns.
            pub fn cols(&self) -> usize {
                self.cols
            }
            /// Leading dimension (distance between the starts of consecutive columns).
            pub fn ld(&self) -> usize {
                self.ld
            }
            /// The device holding the data.
            pub fn device(&self) -> &Device {
                self.buf.device()
            }
            /// Column `j` as a vector (increment 1).
            ///
            /// # Errors
            /// [`Error::OutOfBounds`] if `j >= cols`.
            pub fn col(&self, j: usize) -> Result<VecRef<'_, T>> {
                if j >= self.cols {
                    return Err(Error::bounds("col", format!("column {j} of {}", self.cols)));
                }
                VecRef::new(self.buf, self.offset + j * self.ld, self.rows, 1, "col")
            }
            /// Row `i` as a vector (increment `ld`).
            ///
            /// # Errors
            /// [`Error::OutOfBounds`] if `i >= rows`.
            pub fn row(&self, i: usize) -> Result<VecRef<'_, T>> {
                if i >= self.rows {
                    return Err(Error::bounds("row", format!("row {i} of {}", self.rows)));
                }
                VecRef::new(
                    self.buf,
                    self.offset + i,
                    self.cols,
                    self.ld.max(1) as isize,
                    "row",
                )
            }
            /// The matrix as a column-major-indexed `ndarray` on the host (waits for pending work).
            ///
            /// # Errors
            /// [`Error::Cuda`] if a pending kernel failed.
            pub fn to_array(&self) -> Result<ndarray::Array2<T>> {
                let mut out = ndarray::Array2::<T>::default((self.rows, self.cols));
                if self.rows == 0 || self.cols == 0 {
                    return Ok(out);
                }
                let span = (self.cols - 1) * self.ld + self.rows;
                let mut raw = vec![T::default(); span];
                self.buf.read(self.offset, &mut raw)?;
                for ((i, j), v) in out.indexed_iter_mut() {
                    *v = raw[i + j * self.ld];
                }
                Ok(out)
            }
        }
    };
}
mat_common!(MatRef);
mat_common!(MatMut);

impl<'a, T: Element> MatRef<'a, T> {
    /// The `nr × nc` block whose top-left element is `(r0, c0)`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if the block leaves the matrix.
    pub fn block(&self, r0: usize, c0: usize, nr: usize, nc: usize) -> Result<MatRef<'a, T>> {
        check_block("block", self.rows, self.cols, r0, c0, nr, nc)?;
        Ok(MatRef {
            buf: self.buf,
            offset: self.offset + r0 + c0 * self.ld,
            rows: nr,
            cols: nc,
            ld: self.ld,
        })
    }
}

impl<'a, T: Element> MatMut<'a, T> {
    pub(crate) fn new(
        buf: &'a mut Buffer<T>,
        offset: usize,
        rows: usize,
        cols: usize,
        ld: usize,
        op: &'static str,
    ) -> Result<Self> {
        check_matrix(op, buf.len(), offset, rows, cols, ld)?;
        Ok(MatMut {
            buf,
            offset,
            rows,
            cols,
            ld,
        })
    }

    /// A read-only view of the same block.
    pub fn as_ref(&self) -> MatRef<'_, T> {
        MatRef {
            buf: self.buf,
            offset: self.offset,
            rows: self.rows,
            cols: self.cols,
            ld: self.ld,
        }
    }

    /// The mutable `nr × nc` block whose top-left element is `(r0, c0)`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if the block leaves the matrix.
    pub fn block_mut(
        &mut self,
        r0: usize,
        c0: usize,
        nr: usize,
        nc: usize,
    ) -> Result<MatMut<'_, T>> {
        check_block("block_mut", self.rows, self.cols, r0, c0, nr, nc)?;
        Ok(MatMut {
            buf: self.buf,
            offset: self.offset + r0 + c0 * self.ld,
            rows: nr,
            cols: nc,
            ld: self.ld,
        })
    }

    /// `self ← src` (LAPACK `lacpy`, all of it): both views have the same shape and device;
    /// on a GPU one strided two-dimensional copy queued on the device's stream.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for different shapes, [`Error::DeviceMismatch`] for
    /// different devices, [`Error::Cuda`] if the copy cannot be queued.
    ///
    /// ```
    /// use gpu_blas::{Device, DeviceMatrix};
    /// let dev = Device::cpu();
    /// let a = DeviceMatrix::from_col_major(&dev, 2, 2, 3, vec![1.0, 2.0, 0.0, 3.0, 4.0, 0.0])?;
    /// let mut b = DeviceMatrix::<f64>::zeros(&dev, 2, 2)?;
    /// b.view_mut().copy_from(&a.view())?;
    /// assert_eq!(b.to_array()?, a.to_array()?);
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn copy_from(&mut self, src: &MatRef<'_, T>) -> Result<()> {
        const OP: &str = "copy_from";
        if (src.rows, src.cols) != (self.rows, self.cols) {
            return Err(Error::dims(
                OP,
                format!(
                    "source is {}×{}, destination {}×{}",
                    src.rows, src.cols, self.rows, self.cols
                ),
            ));
        }
        src.buf.device().ensure_same(self.buf.device(), OP)?;
        if self.rows == 0 || self.cols == 0 {
            return Ok(());
        }
        let (rows, cols) = (self.rows, self.cols);
        let (soff, sld, doff, dld) = (src.offset, src.ld, self.offset, self.ld);
        if let (Some(sp), Some(dp)) = (src.buf.cuda_ptr(soff), self.buf.cuda_ptr(doff)) {
            let b = self
                .buf
                .device()
                .cuda_backend()
                .expect("a CUDA buffer lives on a CUDA device");
            let es = std::mem::size_of::<T>();
            return b.copy_2d(OP, sp, sld * es, dp, dld * es, rows * es, cols);
        }
        let s = src
            .buf
            .host()
            .expect("a buffer without a device address is on the host");
        match self.buf.storage_mut() {
            crate::buffer::Storage::Host(d) => {
                for j in 0..cols {
                    d[doff + j * dld..doff + j * dld + rows]
                        .copy_from_slice(&s[soff + j * sld..soff + j * sld + rows]);
                }
                Ok(())
            }
            crate::buffer::Storage::Cuda(_) => unreachable!("checked above: same device"),
        }
    }

    /// Column `j` as a mutable vector.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if `j >= cols`.
    pub fn col_mut(&mut self, j: usize) -> Result<VecMut<'_, T>> {
        if j >= self.cols {
            return Err(Error::bounds(
                "col_mut",
                format!("column {j} of {}", self.cols),
            ));
        }
        VecMut::new(self.buf, self.offset + j * self.ld, self.rows, 1, "col_mut")
    }

    /// Row `i` as a mutable vector (increment `ld`).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if `i >= rows`.
    pub fn row_mut(&mut self, i: usize) -> Result<VecMut<'_, T>> {
        if i >= self.rows {
            return Err(Error::bounds(
                "row_mut",
                format!("row {i} of {}", self.rows),
            ));
        }
        let ld = self.ld.max(1) as isize;
        VecMut::new(self.buf, self.offset + i, self.cols, ld, "row_mut")
    }
}
