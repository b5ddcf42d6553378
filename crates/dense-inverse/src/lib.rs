//! `dense-inverse`: inverses, factorizations, solves, determinants and condition estimates of
//! one large dense matrix.
//!
//! * LU with partial pivoting (LAPACK `getrf`/`getrs`/`getri` semantics: 1-based `i32`
//!   pivots, `info`): [`lu_factor`], [`lu_factor_in_place`], [`lu_solve`] (`N`/`T`/`C`),
//!   [`lu_inverse`], [`lu_inverse_in_place`].
//! * Cholesky of Hermitian positive definite matrices, one triangle referenced (`potrf`/
//!   `potrs`/`potri`): [`cholesky_factor`], [`cholesky_factor_in_place`], [`cholesky_solve`],
//!   [`cholesky_inverse`], [`cholesky_inverse_in_place`].
//! * Blocked Gauss-Jordan with partial pivoting: [`gauss_jordan_inverse`],
//!   [`gauss_jordan_inverse_in_place`].
//! * The bordering (block-iterative) inverse of Hermitian matrices, one border row per step or
//!   `b` at once: [`bordering_inverse`], [`bordering_inverse_in_place`], [`Bordering`].
//! * [`determinant`] (phase and log-magnitude, [`Determinant`]), [`norm1`],
//!   [`hermitian_norm1`], reciprocal condition estimates [`lu_rcond`], [`cholesky_rcond`]
//!   (Hager–Higham, LAPACK `gecon`/`pocon`), and [`inverse`] with [`Method::Auto`], which
//!   returns an [`Inverse`] carrying the method used and `rcond`, flagged when `rcond < ε`.
//!
//! Every function is generic over the four [`gpu_blas::Scalar`] types (`f32`, `f64`,
//! `Complex<f32>`, `Complex<f64>`) and takes [`gpu_blas::MatRef`]/[`gpu_blas::MatMut`] views
//! (a `&DeviceMatrix`, a block of a larger matrix, any leading dimension). Results are new
//! `n × n` matrices with leading dimension `n` on the input's device.
//!
//! Arguments are validated before any data is read or written; non-finite input is reported
//! ([`gpu_blas::Error::NonFinite`]) before anything is written, and every in-place function
//! leaves its buffer unchanged on error. Both backends run the same blocked algorithms: on the
//! CPU the bulk is ndarray matrix products, multithreaded with rayon; on a CUDA GPU the panels,
//! interchanges, diagonal blocks and scans are this crate's kernels and the level-3 products and
//! triangular solves are cuBLAS calls, all queued on the device's stream; the unblocked
//! bordering method is two fused kernels per step, the blocked one cuBLAS products with the
//! small Schur complements inverted by one kernel each (the device is waited for only to check
//! for a breakdown, a bounded number of times per call).
//!
//! Memory: both backends work on one compact copy of the matrix (host memory for the CPU, device
//! memory for a GPU; read and written back with one strided copy); out-of-place functions compute in
//! the buffer that becomes their result (the GPU LU inverse also in one more `n × n` matrix for
//! the factors, where it fits), in-place ones in that one copy. No path holds more than
//! one extra `n × n` buffer (solves: a copy of the factors plus copies of `b`); blocked paths add
//! `n × 64` blocks. Running out of device memory is [`gpu_blas::Error::OutOfMemory`].
//!
//! ```
//! use dense_inverse::{inverse, Method};
//! use gpu_blas::{Device, DeviceMatrix};
//! let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[4.0f64, 7.0], [2.0, 6.0]])?;
//! let inv = inverse(&a, Method::Auto)?;
//! assert!(!inv.is_ill_conditioned());
//! let x = inv.matrix.to_array()?;
//! assert!((x[[0, 0]] - 0.6).abs() < 1e-15 && (x[[0, 1]] + 0.7).abs() < 1e-15);
//! # Ok::<(), dense_inverse::Error>(())
//! ```

mod bordering;
mod check;
mod cholesky;
mod condition;
mod cpu;
mod determinant;
mod error;
mod gauss_jordan;
mod gpu;
mod inverse;
mod lu;

#[doc(hidden)]
pub use gpu::lu::{
    lu_inverse_phases, panel_launch_blocks, set_gj_partition, set_lu_lookahead, set_lu_outer_block,
    set_lu_trace, set_panel_blocks, set_panel_cluster, set_panel_cluster_variant, set_panel_split,
    set_panel_width, take_lu_trace, GjPartition, PanelSync,
};

pub use bordering::{bordering_inverse, bordering_inverse_in_place, Bordering};
pub use cholesky::{
    cholesky_factor, cholesky_factor_in_place, cholesky_inverse, cholesky_inverse_in_place,
    cholesky_solve,
};
pub use condition::{cholesky_rcond, hermitian_norm1, lu_rcond, norm1};
pub use determinant::{determinant, Determinant};
pub use error::{Error, Result};
pub use gauss_jordan::{gauss_jordan_inverse, gauss_jordan_inverse_in_place};
pub use inverse::{inverse, Inverse, Method};
pub use lu::{lu_factor, lu_factor_in_place, lu_inverse, lu_inverse_in_place, lu_solve, LuFactors};
