//! The CUDA backend: our kernels in `kernels/dense_inverse.cu` for the panels, interchanges,
//! diagonal blocks and scans, cuBLAS (`cublas.rs`) for the level-3 products and triangular
//! solves between them.
//!
//! Every routine works on a compact device matrix this crate owns (a [`DeviceMatrix`] with
//! leading dimension `n`, described by [`Dense`]): views passed by the caller are copied in
//! with one strided copy ([`MatMut::copy_from`]) and results copied back the same way (a
//! triangle column by column), because `gpu_blas` hands out device addresses of whole buffers
//! only. All work is queued on the device's stream;
//! the host waits only where it reads a result (`info`, a scan's first index, a norm, the
//! diagonal or pivots of `O(n)` size).

pub(crate) mod bordering;
pub(crate) mod cublas;
pub(crate) mod gauss_jordan;
pub(crate) mod kernels;
pub(crate) mod lu;
pub(crate) mod ops;
pub(crate) mod potrf;

use crate::error::Result;
use cudarc::driver::CudaStream;
use gpu_blas::{blas1, interop, Device, DeviceMatrix, DeviceVec, Error, MatMut, MatRef, Scalar};
use std::marker::PhantomData;
use std::sync::Arc;

thread_local! {
    /// The stream [`on_stream`] redirects this thread's launches to, if any.
    static STREAM: std::cell::RefCell<Option<Arc<CudaStream>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with every kernel launch and cuBLAS call of this crate on this thread queued on
/// `s` (a stream of the device's context) instead of the device's stream; the previous
/// choice is restored afterwards, also if `f` panics. Work on `s` is ordered with the
/// device's stream only through events, which the caller records and waits for.
pub(crate) fn on_stream<R>(s: &Arc<CudaStream>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<CudaStream>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            STREAM.with(|c| *c.borrow_mut() = prev);
        }
    }
    let prev = STREAM.with(|c| c.borrow_mut().replace(s.clone()));
    let _restore = Restore(prev);
    f()
}

/// The stream this thread's launches on `dev` go to: the one [`on_stream`] set, else the
/// device's.
pub(crate) fn launch_stream(op: &'static str, dev: &Device) -> Result<Arc<CudaStream>> {
    if let Some(s) = STREAM.with(|c| c.borrow().clone()) {
        return Ok(s);
    }
    interop::cuda_stream(dev).ok_or_else(|| not_cuda(op))
}

/// Block size of the blocked algorithms (LU panel width, Cholesky and triangular-inverse
/// diagonal blocks). The diagonal-block kernels stage an `NB × NB` block in shared memory.
pub(crate) const NB: usize = 64;

/// A column-major matrix on the GPU this crate owns: device address of `(0, 0)` and leading
/// dimension. Only built from a live [`DeviceMatrix`] (or a block of one) whose buffer outlives
/// every use; `rows`/`cols` bound every launch that touches it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dense<T> {
    pub ptr: u64,
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
    _t: PhantomData<T>,
}

impl<T: Scalar> Dense<T> {
    /// The whole of `m` (which must be on a CUDA device).
    pub(crate) fn of(op: &'static str, m: &DeviceMatrix<T>) -> Result<Self> {
        let ptr = interop::matrix_ptr(m).ok_or_else(|| not_cuda(op))?;
        Ok(Dense {
            ptr,
            rows: m.rows(),
            cols: m.cols(),
            ld: m.ld(),
            _t: PhantomData,
        })
    }

    /// The `nr × nc` block at `(i, j)`; panics (a bug, never user input) if it leaves the matrix.
    pub(crate) fn at(&self, i: usize, j: usize, nr: usize, nc: usize) -> Self {
        assert!(
            i + nr <= self.rows && j + nc <= self.cols,
            "block {nr}x{nc} at ({i}, {j}) outside {}x{}",
            self.rows,
            self.cols
        );
        let off = (i + j * self.ld) * std::mem::size_of::<T>();
        Dense {
            ptr: self.ptr + off as u64,
            rows: nr,
            cols: nc,
            ld: self.ld,
            _t: PhantomData,
        }
    }
}

impl<T> Dense<T> {
    /// The buffer of `self` (a whole matrix stored without gaps: `ld == rows`) seen as an
    /// `nr × nc` matrix with leading dimension `ld`; panics (a bug) if that does not fit.
    pub(crate) fn shaped(&self, nr: usize, nc: usize, ld: usize) -> Self {
        assert!(
            self.ld == self.rows
                && ld >= nr
                && (nc == 0 || (nc - 1) * ld + nr <= self.rows * self.cols),
            "{nr}x{nc} (ld {ld}) does not fit a buffer of {}x{}",
            self.rows,
            self.cols
        );
        Dense {
            ptr: self.ptr,
            rows: nr,
            cols: nc,
            ld,
            _t: PhantomData,
        }
    }
}

pub(crate) fn not_cuda(op: &'static str) -> crate::Error {
    Error::Unsupported {
        op,
        detail: "not a CUDA device".into(),
    }
    .into()
}

/// Device address of a CUDA vector (0 for an empty one, never dereferenced then).
pub(crate) fn vptr<T: gpu_blas::Element>(v: &DeviceVec<T>) -> u64 {
    interop::vec_ptr(v).unwrap_or(0)
}

/// A new compact `rows × cols` matrix (leading dimension `max(rows, 1)`) holding a copy of the
/// view. Out of memory is [`Error::OutOfMemory`].
pub(crate) fn copy_in<T: Scalar>(a: &MatRef<'_, T>) -> Result<DeviceMatrix<T>> {
    Ok(DeviceMatrix::copy_of(a)?)
}

/// `dst ← src` (same shape): one strided two-dimensional copy on the device's stream.
pub(crate) fn copy_view<T: Scalar>(src: &MatRef<'_, T>, dst: &mut MatMut<'_, T>) -> Result<()> {
    Ok(dst.copy_from(src)?)
}

/// Writes the lower (`lower`) or upper triangle, diagonal included, of the compact `n × n`
/// matrix `src` into the view `dst`; the other triangle of `dst` is not touched.
pub(crate) fn copy_triangle<T: Scalar>(
    lower: bool,
    src: &DeviceMatrix<T>,
    dst: &mut MatMut<'_, T>,
) -> Result<()> {
    let n = src.rows();
    for j in 0..n {
        let (lo, hi) = if lower { (j, n) } else { (0, j + 1) };
        let s = src.block(lo, j, hi - lo, 1)?;
        let mut d = dst.block_mut(lo, j, hi - lo, 1)?;
        blas1::copy(s.col(0)?, d.col_mut(0)?)?;
    }
    Ok(())
}

/// Reads one `i32` (waits for the queued work).
pub(crate) fn read_i32(v: &DeviceVec<i32>) -> Result<i32> {
    Ok(v.read_range(0, 1)?[0])
}

/// A one-element counter or flag on `dev`, initialised to `v`.
pub(crate) fn flag(dev: &Device, v: i32) -> Result<DeviceVec<i32>> {
    Ok(DeviceVec::from_vec(dev, vec![v])?)
}
