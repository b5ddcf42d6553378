//! The cuBLAS level-1 routines, called through cudarc's raw bindings on raw device pointers.

use cudarc::cublas::sys as cb;
use num_complex::{Complex32, Complex64};
use std::ffi::c_int;

/// A cuBLAS handle bound to our stream, in device pointer mode (results stay on the device, as
/// ours do in the `_into` variants).
pub struct Cublas {
    pub h: cb::cublasHandle_t,
}

pub fn ok(s: cb::cublasStatus_t, what: &str) {
    assert_eq!(
        s,
        cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS,
        "cuBLAS {what} failed"
    );
}

impl Cublas {
    pub fn new(stream: cudarc::driver::sys::CUstream) -> Cublas {
        let mut h = std::ptr::null_mut();
        // SAFETY: creating a handle and binding it to a live stream of the current context.
        unsafe {
            ok(cb::cublasCreate_v2(&mut h), "create");
            ok(
                cb::cublasSetStream_v2(h, stream as cb::cudaStream_t),
                "set stream",
            );
            ok(
                cb::cublasSetPointerMode_v2(h, cb::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE),
                "pointer mode",
            );
        }
        Cublas { h }
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `new` and is destroyed once.
        unsafe {
            cb::cublasDestroy_v2(self.h);
        }
    }
}

/// Level-1 entry points per scalar type; pointers are raw device addresses.
pub trait CublasL1 {
    /// # Safety
    /// Pointers must be valid device addresses for `n` elements (results: one element).
    unsafe fn dot(c: &Cublas, n: c_int, x: u64, y: u64, out: u64);
    /// # Safety
    /// As `dot`.
    unsafe fn dotc(c: &Cublas, n: c_int, x: u64, y: u64, out: u64);
    /// # Safety
    /// As `dot`.
    unsafe fn nrm2(c: &Cublas, n: c_int, x: u64, out: u64);
    /// # Safety
    /// As `dot`.
    unsafe fn asum(c: &Cublas, n: c_int, x: u64, out: u64);
    /// # Safety
    /// As `dot`; `out` holds one `int`.
    unsafe fn iamax(c: &Cublas, n: c_int, x: u64, out: u64);
    /// # Safety
    /// As `dot`; `alpha` is a device address.
    unsafe fn axpy(c: &Cublas, n: c_int, alpha: u64, x: u64, y: u64);
    /// # Safety
    /// As `axpy`.
    unsafe fn scal(c: &Cublas, n: c_int, alpha: u64, x: u64);
    /// # Safety
    /// As `dot`.
    unsafe fn copy(c: &Cublas, n: c_int, x: u64, y: u64);
    /// # Safety
    /// As `dot`.
    unsafe fn swap(c: &Cublas, n: c_int, x: u64, y: u64);
}

macro_rules! impl_l1 {
    ($t:ty, $e:ty, $r:ty, $dot:ident, $dotc:ident, $nrm2:ident, $asum:ident, $iamax:ident,
     $axpy:ident, $scal:ident, $copy:ident, $swap:ident) => {
        impl CublasL1 for $t {
            unsafe fn dot(c: &Cublas, n: c_int, x: u64, y: u64, out: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe {
                    cb::$dot(c.h, n, x as *const $e, 1, y as *const $e, 1, out as *mut $e)
                };
                ok(status, "dot");
            }
            unsafe fn dotc(c: &Cublas, n: c_int, x: u64, y: u64, out: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe {
                    cb::$dotc(c.h, n, x as *const $e, 1, y as *const $e, 1, out as *mut $e)
                };
                ok(status, "dotc");
            }
            unsafe fn nrm2(c: &Cublas, n: c_int, x: u64, out: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe { cb::$nrm2(c.h, n, x as *const $e, 1, out as *mut $r) };
                ok(status, "nrm2");
            }
            unsafe fn asum(c: &Cublas, n: c_int, x: u64, out: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe { cb::$asum(c.h, n, x as *const $e, 1, out as *mut $r) };
                ok(status, "asum");
            }
            unsafe fn iamax(c: &Cublas, n: c_int, x: u64, out: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe { cb::$iamax(c.h, n, x as *const $e, 1, out as *mut c_int) };
                ok(status, "iamax");
            }
            unsafe fn axpy(c: &Cublas, n: c_int, alpha: u64, x: u64, y: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe {
                    cb::$axpy(
                        c.h,
                        n,
                        alpha as *const $e,
                        x as *const $e,
                        1,
                        y as *mut $e,
                        1,
                    )
                };
                ok(status, "axpy");
            }
            unsafe fn scal(c: &Cublas, n: c_int, alpha: u64, x: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe { cb::$scal(c.h, n, alpha as *const $e, x as *mut $e, 1) };
                ok(status, "scal");
            }
            unsafe fn copy(c: &Cublas, n: c_int, x: u64, y: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe { cb::$copy(c.h, n, x as *const $e, 1, y as *mut $e, 1) };
                ok(status, "copy");
            }
            unsafe fn swap(c: &Cublas, n: c_int, x: u64, y: u64) {
                // SAFETY: the caller upholds this function's contract.
                let status = unsafe { cb::$swap(c.h, n, x as *mut $e, 1, y as *mut $e, 1) };
                ok(status, "swap");
            }
        }
    };
}

impl_l1!(
    f32,
    f32,
    f32,
    cublasSdot_v2,
    cublasSdot_v2,
    cublasSnrm2_v2,
    cublasSasum_v2,
    cublasIsamax_v2,
    cublasSaxpy_v2,
    cublasSscal_v2,
    cublasScopy_v2,
    cublasSswap_v2
);
impl_l1!(
    f64,
    f64,
    f64,
    cublasDdot_v2,
    cublasDdot_v2,
    cublasDnrm2_v2,
    cublasDasum_v2,
    cublasIdamax_v2,
    cublasDaxpy_v2,
    cublasDscal_v2,
    cublasDcopy_v2,
    cublasDswap_v2
);
impl_l1!(
    Complex32,
    cb::cuComplex,
    f32,
    cublasCdotu_v2,
    cublasCdotc_v2,
    cublasScnrm2_v2,
    cublasScasum_v2,
    cublasIcamax_v2,
    cublasCaxpy_v2,
    cublasCscal_v2,
    cublasCcopy_v2,
    cublasCswap_v2
);
impl_l1!(
    Complex64,
    cb::cuDoubleComplex,
    f64,
    cublasZdotu_v2,
    cublasZdotc_v2,
    cublasDznrm2_v2,
    cublasDzasum_v2,
    cublasIzamax_v2,
    cublasZaxpy_v2,
    cublasZscal_v2,
    cublasZcopy_v2,
    cublasZswap_v2
);
