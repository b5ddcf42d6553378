//! `batched-lu`: LU factorization with partial pivoting, linear solves and inverses of many
//! small dense matrices in one call.
//!
//! * Uniform batches ([`BatchLayout`]: `batch` matrices of order `n`, a fixed stride apart):
//!   [`getrf_batched`] (`A_k = P_k·L_k·U_k`), [`getrs_batched`] (`op(A_k)·X_k = B_k` from the
//!   factors), [`getri_batched`] (`A_k⁻¹` from the factors), and the one-call drivers
//!   [`inverse_batched`] and [`solve_batched`].
//! * Variable-size batches ([`VarBatch`]: one order and offset per matrix):
//!   [`getrf_vbatched`], [`getrs_vbatched`], [`getri_vbatched`].
//!
//! Matrices are column-major with leading dimension `n`; pivots are 1-based LAPACK row indices
//! (`i32`) and `info` follows LAPACK `getrf`. [`batch_from_array`], [`batch_to_array`] and
//! [`pivots_to_array`] convert a batch from and to `ndarray` (shape `(batch, n, n)`,
//! `a[[k, i, j]] = A_k(i, j)`). Both backends run every operation: the CPU
//! (multithreaded over the batch with rayon, a blocked LU per matrix) and CUDA (the kernels of
//! `kernels/batched_lu.cu`: whole matrices in registers for n ≤ 32, one thread block per matrix
//! with the current panel in shared memory above; for the inverse at 33 ≤ n ≤ 128 (f32: 192), one block
//! per matrix with the factors in shared memory and the inverse in registers; for f32
//! up to 256 and f64 180..192 two blocks per matrix with one triangle of the factors at a time,
//! for f64 and c64 193..256 and c128 161..192 four, the larger triangles staged in two
//! parts, for c128 193..256 seven or eight, each triangle staged in three parts, and for every
//! type at 257..512 three to thirty-two, each triangle in one to thirteen parts).
//! Argument errors are found before anything is written.
//!
//! On a GPU every call returns once its work is queued: each matrix is validated on the device,
//! where it is factored, and what the device finds is reported per matrix in `info`
//! ([`MatrixStatus`]): a matrix holding a NaN or an infinity is left unchanged and the rest of
//! the batch is factored. [`BatchLayout::check_info`] (or [`VarBatch::check_info`]) reads `info`
//! back and turns such a matrix into [`Error::NonFinite`](gpu_blas::Error::NonFinite).
//!
//! ```
//! use batched_lu::{inverse_batched, BatchLayout};
//! use gpu_blas::{Device, DeviceVec};
//! let dev = Device::cpu();
//! // 1000 copies of [[2, 0], [0, 4]].
//! let a = DeviceVec::from_vec(&dev, [2.0f64, 0.0, 0.0, 4.0].repeat(1000))?;
//! let mut inv = DeviceVec::zeros(&dev, 4000)?;
//! let info = inverse_batched(BatchLayout::packed(2, 1000), &a, &mut inv, 4)?;
//! assert!(info.to_vec()?.iter().all(|&i| i == 0));
//! assert_eq!(&inv.to_vec()?[4..8], &[0.5, 0.0, 0.0, 0.25]);
//! # Ok::<(), gpu_blas::Error>(())
//! ```

mod array;
mod batched;
mod check;
mod gpu;
mod kernel;
mod status;
mod tuning;
mod vbatched;

#[doc(hidden)]
pub use gpu::set_blocked_config;
#[doc(hidden)]
pub use tuning::{Blocked, RegCap};

pub use array::{batch_from_array, batch_to_array, pivots_to_array};
pub use batched::{
    getrf_batched, getri_batched, getrs_batched, inverse_batched, solve_batched, BatchLayout,
};
pub use status::MatrixStatus;
pub use vbatched::{getrf_vbatched, getri_vbatched, getrs_vbatched, VarBatch};
