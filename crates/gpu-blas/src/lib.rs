//! `gpu-blas`: the foundation of the workspace.
//!
//! * [`Device`]: the CPU or a CUDA GPU (reached through the driver API with dynamic loading, so
//!   this crate builds and runs on machines without CUDA).
//! * Buffers that remember their device: [`DeviceVec`], [`DeviceMatrix`] (column-major with a
//!   leading dimension), [`DeviceScalar`], and views [`VecRef`]/[`VecMut`]/[`MatRef`]/[`MatMut`]
//!   for strided vectors, rows, columns and blocks; conversions from and to `ndarray`.
//! * [`Scalar`]: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.
//! * [`blas1`], [`blas2`]: BLAS levels 1 and 2 on both backends.
//! * [`CsrMatrix`] and [`spmv`]: sparse matrices and the sparse matrix–vector product.
//! * [`kernels`]: loading and launching the kernels of crates built on this one.
//!
//! ```
//! use gpu_blas::{blas1, Device, DeviceVec};
//! let dev = Device::auto(); // CUDA 0 if usable, else the CPU
//! let x = DeviceVec::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
//! let y = DeviceVec::from_slice(&dev, &[4.0f64, 5.0, 6.0])?;
//! assert_eq!(blas1::dot(&x, &y)?, 32.0);
//! # Ok::<(), gpu_blas::Error>(())
//! ```

pub mod blas1;
pub mod blas2;
mod buffer;
mod cuda;
mod device;
mod error;
pub mod gallery;
pub mod interop;
pub mod kernels;
mod matrix;
pub mod matrix_market;
mod scalar;
mod sparse;
pub mod spmv;
pub mod testing;
mod vector;
mod view;

pub use device::Device;
pub use error::{Error, Result};
pub use matrix::DeviceMatrix;
pub use scalar::{Element, RealScalar, Scalar};
pub use sparse::{CsrMatrix, RowStats};
pub use vector::{DeviceScalar, DeviceVec};
pub use view::{MatMut, MatRef, VecMut, VecRef};
