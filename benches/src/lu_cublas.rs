//! The cuBLAS batched LU routines (`getrfBatched`, `getrsBatched`, `getriBatched`,
//! `matinvBatched`), called through cudarc's raw bindings.
//!
//! Every matrix argument is the device address of a device array of per-matrix device
//! addresses (`u64` each); pivots and `info` arrays are device addresses of `int` arrays, except
//! the `info` of `getrsBatched`, which is a host `int` (parameter checks only).

use crate::cublas::Cublas;
use cudarc::cublas::sys as cb;
use gpu_blas::Scalar;
use num_complex::{Complex32, Complex64};
use std::ffi::c_int;

/// The status of a cuBLAS call as a `Result`, so that the harness reports a failure instead of
/// stopping.
pub fn check(s: cb::cublasStatus_t, what: &str) -> Result<(), String> {
    if s == cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("cuBLAS {what}: {s:?}"))
    }
}

/// Batched LU entry points per scalar type.
pub trait CublasLu: Scalar {
    /// `A_k = P_k·L_k·U_k` in place (with pivoting) for `batch` matrices of order `n`.
    ///
    /// # Safety
    /// `a` holds `batch` addresses of `n × n` matrices (leading dimension `lda`), `piv` has
    /// `n·batch` and `info` `batch` device `int`s.
    unsafe fn getrf_batched(
        c: &Cublas,
        n: c_int,
        a: u64,
        lda: c_int,
        piv: u64,
        info: u64,
        batch: c_int,
    ) -> Result<(), String>;
    /// `C_k = A_k⁻¹` from the factors and pivots of `getrf_batched` (out of place).
    ///
    /// # Safety
    /// As `getrf_batched`; `c_out` holds `batch` addresses of disjoint `n × n` outputs.
    #[allow(clippy::too_many_arguments)]
    unsafe fn getri_batched(
        c: &Cublas,
        n: c_int,
        a: u64,
        lda: c_int,
        piv: u64,
        c_out: u64,
        ldc: c_int,
        info: u64,
        batch: c_int,
    ) -> Result<(), String>;
    /// Solves `A_k·X_k = B_k` (no transpose) from the factors, overwriting `B_k`; returns the
    /// host `info` (`0`, or minus the index of an invalid parameter).
    ///
    /// # Safety
    /// As `getrf_batched`; `b` holds `batch` addresses of `n × nrhs` blocks (leading dimension
    /// `ldb`).
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrs_batched(
        c: &Cublas,
        n: c_int,
        nrhs: c_int,
        a: u64,
        lda: c_int,
        piv: u64,
        b: u64,
        ldb: c_int,
        batch: c_int,
    ) -> Result<c_int, String>;
    /// `Ainv_k = A_k⁻¹` in one call (`n ≤ 32`), `A_k` unchanged.
    ///
    /// # Safety
    /// As `getri_batched`, without pivots.
    #[allow(clippy::too_many_arguments)]
    unsafe fn matinv_batched(
        c: &Cublas,
        n: c_int,
        a: u64,
        lda: c_int,
        a_inv: u64,
        lda_inv: c_int,
        info: u64,
        batch: c_int,
    ) -> Result<(), String>;
}

macro_rules! impl_lu {
    ($t:ty, $e:ty, $getrf:ident, $getri:ident, $getrs:ident, $matinv:ident) => {
        impl CublasLu for $t {
            unsafe fn getrf_batched(
                c: &Cublas,
                n: c_int,
                a: u64,
                lda: c_int,
                piv: u64,
                info: u64,
                batch: c_int,
            ) -> Result<(), String> {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cb::$getrf(
                        c.h,
                        n,
                        a as *const *mut $e,
                        lda,
                        piv as *mut c_int,
                        info as *mut c_int,
                        batch,
                    )
                };
                check(s, stringify!($getrf))
            }
            unsafe fn getri_batched(
                c: &Cublas,
                n: c_int,
                a: u64,
                lda: c_int,
                piv: u64,
                c_out: u64,
                ldc: c_int,
                info: u64,
                batch: c_int,
            ) -> Result<(), String> {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cb::$getri(
                        c.h,
                        n,
                        a as *const *const $e,
                        lda,
                        piv as *const c_int,
                        c_out as *const *mut $e,
                        ldc,
                        info as *mut c_int,
                        batch,
                    )
                };
                check(s, stringify!($getri))
            }
            unsafe fn getrs_batched(
                c: &Cublas,
                n: c_int,
                nrhs: c_int,
                a: u64,
                lda: c_int,
                piv: u64,
                b: u64,
                ldb: c_int,
                batch: c_int,
            ) -> Result<c_int, String> {
                let mut info: c_int = 0;
                // SAFETY: forwarded from the caller's contract; `info` is a host int that
                // outlives the call.
                let s = unsafe {
                    cb::$getrs(
                        c.h,
                        cb::cublasOperation_t::CUBLAS_OP_N,
                        n,
                        nrhs,
                        a as *const *const $e,
                        lda,
                        piv as *const c_int,
                        b as *const *mut $e,
                        ldb,
                        &mut info,
                        batch,
                    )
                };
                check(s, stringify!($getrs)).map(|()| info)
            }
            unsafe fn matinv_batched(
                c: &Cublas,
                n: c_int,
                a: u64,
                lda: c_int,
                a_inv: u64,
                lda_inv: c_int,
                info: u64,
                batch: c_int,
            ) -> Result<(), String> {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cb::$matinv(
                        c.h,
                        n,
                        a as *const *const $e,
                        lda,
                        a_inv as *const *mut $e,
                        lda_inv,
                        info as *mut c_int,
                        batch,
                    )
                };
                check(s, stringify!($matinv))
            }
        }
    };
}

impl_lu!(
    f32,
    f32,
    cublasSgetrfBatched,
    cublasSgetriBatched,
    cublasSgetrsBatched,
    cublasSmatinvBatched
);
impl_lu!(
    f64,
    f64,
    cublasDgetrfBatched,
    cublasDgetriBatched,
    cublasDgetrsBatched,
    cublasDmatinvBatched
);
impl_lu!(
    Complex32,
    cb::cuComplex,
    cublasCgetrfBatched,
    cublasCgetriBatched,
    cublasCgetrsBatched,
    cublasCmatinvBatched
);
impl_lu!(
    Complex64,
    cb::cuDoubleComplex,
    cublasZgetrfBatched,
    cublasZgetriBatched,
    cublasZgetrsBatched,
    cublasZmatinvBatched
);
