//! Column-major dense matrices on a device.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::scalar::Element;
use crate::view::{MatMut, MatRef, VecMut, VecRef};
use ndarray::{Array2, ArrayBase, Data, Ix2};

/// A dense `rows × cols` matrix in column-major order with leading dimension `ld >= rows`:
/// element `(i, j)` is stored at `i + j·ld`.
///
/// ```
/// use gpu_blas::{Device, DeviceMatrix};
/// use ndarray::array;
/// let a = DeviceMatrix::from_array(&Device::auto(), &array![[1.0f32, 2.0], [3.0, 4.0]])?;
/// assert_eq!(a.col(1)?.to_vec()?, vec![2.0, 4.0]);
/// assert_eq!(a.row(1)?.to_vec()?, vec![3.0, 4.0]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub struct DeviceMatrix<T: Element> {
    pub(crate) buf: Buffer<T>,
    rows: usize,
    cols: usize,
    ld: usize,
}

impl<T: Element> DeviceMatrix<T> {
    /// A zero `rows × cols` matrix with `ld = rows`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] or [`Error::SizeTooLarge`].
    pub fn zeros(device: &Device, rows: usize, cols: usize) -> Result<Self> {
        Self::zeros_with_ld(device, rows, cols, rows.max(1))
    }

    /// A zero `rows × cols` matrix with leading dimension `ld` (padding rows stay zero).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if `ld < rows`; [`Error::OutOfMemory`] or [`Error::SizeTooLarge`].
    pub fn zeros_with_ld(device: &Device, rows: usize, cols: usize, ld: usize) -> Result<Self> {
        if ld < rows.max(1) {
            return Err(Error::bounds(
                "DeviceMatrix::zeros_with_ld",
                format!("leading dimension {ld} smaller than {rows} rows"),
            ));
        }
        let len = ld.checked_mul(cols).ok_or_else(|| Error::SizeTooLarge {
            op: "DeviceMatrix::zeros",
            detail: format!("{ld} x {cols}"),
        })?;
        Ok(DeviceMatrix {
            buf: Buffer::zeros(device, len, "DeviceMatrix::zeros")?,
            rows,
            cols,
            ld,
        })
    }

    /// Wraps column-major data (`data.len() == ld·cols`, `ld >= rows`).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] if the length does not match.
    pub fn from_col_major(
        device: &Device,
        rows: usize,
        cols: usize,
        ld: usize,
        data: Vec<T>,
    ) -> Result<Self> {
        if ld < rows.max(1) || ld.checked_mul(cols) != Some(data.len()) {
            return Err(Error::dims(
                "DeviceMatrix::from_col_major",
                format!(
                    "{rows}x{cols} with ld {ld} needs {} elements, got {}",
                    ld.saturating_mul(cols),
                    data.len()
                ),
            ));
        }
        Ok(DeviceMatrix {
            buf: Buffer::from_vec(device, data, "DeviceMatrix::from_col_major")?,
            rows,
            cols,
            ld,
        })
    }

    /// A compact copy (`ld = rows`) of the matrix or block `src`, on its device: one strided
    /// copy into a new buffer that is not zero-filled first (every element is then written by
    /// the copy).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`], [`Error::SizeTooLarge`] or [`Error::Cuda`].
    ///
    /// ```
    /// use gpu_blas::{DeviceMatrix, Device};
    /// let dev = Device::cpu();
    /// let a = DeviceMatrix::from_col_major(&dev, 3, 3, 3, (0..9).map(f64::from).collect())?;
    /// let b = DeviceMatrix::copy_of(&a.block(1, 1, 2, 2)?)?;
    /// assert_eq!((b.rows(), b.cols(), b.ld()), (2, 2, 2));
    /// assert_eq!(b.to_array()?[(1, 0)], 5.0);
    /// # Ok::<(), gpu_blas::Error>(())
    /// ```
    pub fn copy_of(src: &MatRef<'_, T>) -> Result<Self> {
        let (rows, cols) = (src.rows(), src.cols());
        if rows == 0 || cols == 0 {
            return Self::zeros(src.device(), rows, cols);
        }
        let len = rows.checked_mul(cols).ok_or_else(|| Error::SizeTooLarge {
            op: "DeviceMatrix::copy_of",
            detail: format!("{rows} x {cols}"),
        })?;
        let mut m = DeviceMatrix {
            buf: Buffer::uninit(src.device(), len, "DeviceMatrix::copy_of")?,
            rows,
            cols,
            ld: rows,
        };
        m.view_mut().copy_from(src)?;
        Ok(m)
    }

    /// A copy of a 2-D `ndarray` (any memory order) as a column-major matrix on `device`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] or [`Error::Cuda`].
    pub fn from_array<S: Data<Elem = T>>(device: &Device, a: &ArrayBase<S, Ix2>) -> Result<Self> {
        let (rows, cols) = a.dim();
        let data: Vec<T> = a.t().iter().copied().collect();
        Self::from_col_major(device, rows, cols, rows.max(1), data)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Leading dimension.
    pub fn ld(&self) -> usize {
        self.ld
    }

    /// The device holding the data.
    pub fn device(&self) -> &Device {
        self.buf.device()
    }

    /// The whole matrix as a view.
    pub fn view(&self) -> MatRef<'_, T> {
        MatRef {
            buf: &self.buf,
            offset: 0,
            rows: self.rows,
            cols: self.cols,
            ld: self.ld,
        }
    }

    /// The whole matrix as a mutable view.
    pub fn view_mut(&mut self) -> MatMut<'_, T> {
        MatMut {
            buf: &mut self.buf,
            offset: 0,
            rows: self.rows,
            cols: self.cols,
            ld: self.ld,
        }
    }

    /// Column `j` (increment 1).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if `j >= cols`.
    pub fn col(&self, j: usize) -> Result<VecRef<'_, T>> {
        if j >= self.cols {
            return Err(Error::bounds("col", format!("column {j} of {}", self.cols)));
        }
        VecRef::new(&self.buf, j * self.ld, self.rows, 1, "col")
    }

    /// Row `i` (increment `ld`).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if `i >= rows`.
    pub fn row(&self, i: usize) -> Result<VecRef<'_, T>> {
        if i >= self.rows {
            return Err(Error::bounds("row", format!("row {i} of {}", self.rows)));
        }
        VecRef::new(&self.buf, i, self.cols, self.ld as isize, "row")
    }

    /// Mutable column `j`.
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
        VecMut::new(&mut self.buf, j * self.ld, self.rows, 1, "col_mut")
    }

    /// Mutable row `i`.
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
        let ld = self.ld as isize;
        VecMut::new(&mut self.buf, i, self.cols, ld, "row_mut")
    }

    /// The `nr × nc` block at `(r0, c0)`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if the block leaves the matrix.
    pub fn block(&self, r0: usize, c0: usize, nr: usize, nc: usize) -> Result<MatRef<'_, T>> {
        self.view().block(r0, c0, nr, nc)
    }

    /// The mutable `nr × nc` block at `(r0, c0)`.
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
        self.view().block(r0, c0, nr, nc)?;
        let offset = r0 + c0 * self.ld;
        MatMut::new(&mut self.buf, offset, nr, nc, self.ld, "block_mut")
    }

    /// The matrix as an `ndarray::Array2` on the host (waits for pending work).
    ///
    /// # Errors
    /// [`Error::Cuda`] if a pending kernel failed.
    pub fn to_array(&self) -> Result<Array2<T>> {
        self.view().to_array()
    }

    /// A copy on the same device.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] or [`Error::Cuda`].
    pub fn try_clone(&self) -> Result<Self> {
        Ok(DeviceMatrix {
            buf: self.buf.try_clone()?,
            ..*self
        })
    }

    /// An explicit copy on another device.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] or [`Error::Cuda`].
    pub fn to_device(&self, device: &Device) -> Result<Self> {
        Ok(DeviceMatrix {
            buf: self.buf.to_device(device)?,
            ..*self
        })
    }
}

impl<T: Element> std::fmt::Debug for DeviceMatrix<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceMatrix<{}>({}x{}, ld {}, {})",
            std::any::type_name::<T>(),
            self.rows,
            self.cols,
            self.ld,
            self.device()
        )
    }
}
