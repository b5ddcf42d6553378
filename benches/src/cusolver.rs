//! The cuSOLVER dense routines the inverse section compares against (`<t>getrf`, `<t>getrs`,
//! `<t>potrf`, `<t>potri` and their workspace queries), called through cudarc's raw bindings on
//! raw device addresses. Matrices are column-major with leading dimension `lda`; pivots and
//! `info` are device `int` arrays.

use cudarc::cusolver::sys as cs;
use gpu_blas::Scalar;
use num_complex::{Complex32, Complex64};
use std::ffi::c_int;

/// A cuSOLVER dense handle bound to our stream.
pub struct Cusolver {
    h: cs::cusolverDnHandle_t,
}

/// The status of a cuSOLVER call as a `Result`, so that the harness reports a failure instead
/// of stopping.
pub fn check(s: cs::cusolverStatus_t, what: &str) -> Result<(), String> {
    if s == cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("cuSOLVER {what}: {s:?}"))
    }
}

impl Cusolver {
    /// A handle whose work is queued on `stream`; an error when the library is not installed
    /// or the handle cannot be created.
    pub fn new(stream: cudarc::driver::sys::CUstream) -> Result<Cusolver, String> {
        // SAFETY: only tries to open the shared library.
        if !unsafe { cs::is_culib_present() } {
            return Err("cuSOLVER library not found".into());
        }
        let mut h = std::ptr::null_mut();
        // SAFETY: creating a handle in the current context; `h` is written by the call.
        check(unsafe { cs::cusolverDnCreate(&mut h) }, "create")?;
        let c = Cusolver { h };
        // SAFETY: the handle is live and the stream belongs to the current context.
        let s = unsafe { cs::cusolverDnSetStream(c.h, stream as cs::cudaStream_t) };
        check(s, "set stream")?;
        Ok(c)
    }
}

impl Drop for Cusolver {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `new` and is destroyed once.
        unsafe {
            cs::cusolverDnDestroy(self.h);
        }
    }
}

const LOWER: cs::cublasFillMode_t = cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;

/// The dense LU and Cholesky entry points per scalar type (lower triangle for Cholesky).
/// Workspace sizes are in elements of the type.
pub trait CusolverInv: Scalar {
    /// Workspace of [`getrf`](Self::getrf) for an `n × n` matrix.
    ///
    /// # Safety
    /// `a` is the device address of an `n × n` matrix with leading dimension `lda ≥ n`.
    unsafe fn getrf_buffer_size(
        c: &Cusolver,
        n: c_int,
        a: u64,
        lda: c_int,
    ) -> Result<c_int, String>;
    /// `A = P·L·U` in place; `work` has the elements [`getrf_buffer_size`](Self::getrf_buffer_size) asked for, `ipiv`
    /// `n` and `info` one device `int`.
    ///
    /// # Safety
    /// As `getrf_buffer_size`, with the buffers described.
    unsafe fn getrf(
        c: &Cusolver,
        n: c_int,
        a: u64,
        lda: c_int,
        work: u64,
        ipiv: u64,
        info: u64,
    ) -> Result<(), String>;
    /// `B ← A⁻¹·B` from the factors of `getrf` (no transpose), `B` `n × nrhs`.
    ///
    /// # Safety
    /// As `getrf`; `b` is an `n × nrhs` device matrix with leading dimension `ldb ≥ n`,
    /// disjoint from `a`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrs(
        c: &Cusolver,
        n: c_int,
        nrhs: c_int,
        a: u64,
        lda: c_int,
        ipiv: u64,
        b: u64,
        ldb: c_int,
        info: u64,
    ) -> Result<(), String>;
    /// Workspace of [`potrf`](Self::potrf) (lower).
    ///
    /// # Safety
    /// As `getrf_buffer_size`.
    unsafe fn potrf_buffer_size(
        c: &Cusolver,
        n: c_int,
        a: u64,
        lda: c_int,
    ) -> Result<c_int, String>;
    /// `A = L·Lᴴ` in place, lower triangle; `work` has `lwork` elements.
    ///
    /// # Safety
    /// As `getrf_buffer_size`; `work` holds `lwork` elements, `info` one device `int`.
    unsafe fn potrf(
        c: &Cusolver,
        n: c_int,
        a: u64,
        lda: c_int,
        work: u64,
        lwork: c_int,
        info: u64,
    ) -> Result<(), String>;
    /// Workspace of [`potri`](Self::potri) (lower).
    ///
    /// # Safety
    /// As `getrf_buffer_size`.
    unsafe fn potri_buffer_size(
        c: &Cusolver,
        n: c_int,
        a: u64,
        lda: c_int,
    ) -> Result<c_int, String>;
    /// `A⁻¹` from the lower Cholesky factor, in place (lower triangle only).
    ///
    /// # Safety
    /// As `potrf`.
    unsafe fn potri(
        c: &Cusolver,
        n: c_int,
        a: u64,
        lda: c_int,
        work: u64,
        lwork: c_int,
        info: u64,
    ) -> Result<(), String>;
}

macro_rules! impl_inv {
    ($t:ty, $e:ty, $getrf_bs:ident, $getrf:ident, $getrs:ident, $potrf_bs:ident, $potrf:ident,
     $potri_bs:ident, $potri:ident) => {
        impl CusolverInv for $t {
            unsafe fn getrf_buffer_size(
                c: &Cusolver,
                n: c_int,
                a: u64,
                lda: c_int,
            ) -> Result<c_int, String> {
                let mut lwork: c_int = 0;
                // SAFETY: forwarded from the caller's contract; `lwork` is a host int.
                let s = unsafe { cs::$getrf_bs(c.h, n, n, a as *mut $e, lda, &mut lwork) };
                check(s, stringify!($getrf_bs)).map(|()| lwork)
            }
            unsafe fn getrf(
                c: &Cusolver,
                n: c_int,
                a: u64,
                lda: c_int,
                work: u64,
                ipiv: u64,
                info: u64,
            ) -> Result<(), String> {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cs::$getrf(
                        c.h,
                        n,
                        n,
                        a as *mut $e,
                        lda,
                        work as *mut $e,
                        ipiv as *mut c_int,
                        info as *mut c_int,
                    )
                };
                check(s, stringify!($getrf))
            }
            unsafe fn getrs(
                c: &Cusolver,
                n: c_int,
                nrhs: c_int,
                a: u64,
                lda: c_int,
                ipiv: u64,
                b: u64,
                ldb: c_int,
                info: u64,
            ) -> Result<(), String> {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cs::$getrs(
                        c.h,
                        cs::cublasOperation_t::CUBLAS_OP_N,
                        n,
                        nrhs,
                        a as *const $e,
                        lda,
                        ipiv as *const c_int,
                        b as *mut $e,
                        ldb,
                        info as *mut c_int,
                    )
                };
                check(s, stringify!($getrs))
            }
            unsafe fn potrf_buffer_size(
                c: &Cusolver,
                n: c_int,
                a: u64,
                lda: c_int,
            ) -> Result<c_int, String> {
                let mut lwork: c_int = 0;
                // SAFETY: forwarded from the caller's contract; `lwork` is a host int.
                let s = unsafe { cs::$potrf_bs(c.h, LOWER, n, a as *mut $e, lda, &mut lwork) };
                check(s, stringify!($potrf_bs)).map(|()| lwork)
            }
            unsafe fn potrf(
                c: &Cusolver,
                n: c_int,
                a: u64,
                lda: c_int,
                work: u64,
                lwork: c_int,
                info: u64,
            ) -> Result<(), String> {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cs::$potrf(
                        c.h,
                        LOWER,
                        n,
                        a as *mut $e,
                        lda,
                        work as *mut $e,
                        lwork,
                        info as *mut c_int,
                    )
                };
                check(s, stringify!($potrf))
            }
            unsafe fn potri_buffer_size(
                c: &Cusolver,
                n: c_int,
                a: u64,
                lda: c_int,
            ) -> Result<c_int, String> {
                let mut lwork: c_int = 0;
                // SAFETY: forwarded from the caller's contract; `lwork` is a host int.
                let s = unsafe { cs::$potri_bs(c.h, LOWER, n, a as *mut $e, lda, &mut lwork) };
                check(s, stringify!($potri_bs)).map(|()| lwork)
            }
            unsafe fn potri(
                c: &Cusolver,
                n: c_int,
                a: u64,
                lda: c_int,
                work: u64,
                lwork: c_int,
                info: u64,
            ) -> Result<(), String> {
                // SAFETY: forwarded from the caller's contract.
                let s = unsafe {
                    cs::$potri(
                        c.h,
                        LOWER,
                        n,
                        a as *mut $e,
                        lda,
                        work as *mut $e,
                        lwork,
                        info as *mut c_int,
                    )
                };
                check(s, stringify!($potri))
            }
        }
    };
}

impl_inv!(
    f32,
    f32,
    cusolverDnSgetrf_bufferSize,
    cusolverDnSgetrf,
    cusolverDnSgetrs,
    cusolverDnSpotrf_bufferSize,
    cusolverDnSpotrf,
    cusolverDnSpotri_bufferSize,
    cusolverDnSpotri
);
impl_inv!(
    f64,
    f64,
    cusolverDnDgetrf_bufferSize,
    cusolverDnDgetrf,
    cusolverDnDgetrs,
    cusolverDnDpotrf_bufferSize,
    cusolverDnDpotrf,
    cusolverDnDpotri_bufferSize,
    cusolverDnDpotri
);
impl_inv!(
    Complex32,
    cs::cuComplex,
    cusolverDnCgetrf_bufferSize,
    cusolverDnCgetrf,
    cusolverDnCgetrs,
    cusolverDnCpotrf_bufferSize,
    cusolverDnCpotrf,
    cusolverDnCpotri_bufferSize,
    cusolverDnCpotri
);
impl_inv!(
    Complex64,
    cs::cuDoubleComplex,
    cusolverDnZgetrf_bufferSize,
    cusolverDnZgetrf,
    cusolverDnZgetrs,
    cusolverDnZpotrf_bufferSize,
    cusolverDnZpotrf,
    cusolverDnZpotri_bufferSize,
    cusolverDnZpotri
);
