//! The cuBLAS level-3 routines the blocked algorithms call between our kernels: `gemm`, `trsm`,
//! `trmm` (in place, `C = B`) and `herk` (`syrk` for real types).
//!
//! One handle per device, created on first use, bound to the device's stream
//! (`cublasSetStream`) in host pointer mode (the scalars `α`, `β` are host values), kept for the
//! life of the process. Calls hold the handle's lock, so the handle is never used by two threads
//! at once. The routine for `T` is picked by `T::PREFIX` (`s`, `d`, `c`, `z`); element pointers
//! are raw device addresses of buffers this crate owns ([`super::Dense`]).

use super::Dense;
use crate::error::Result;
use cudarc::cublas::sys as cb;
use gpu_blas::{interop, Device, Error, Scalar};
use std::ffi::c_int;
use std::sync::{Mutex, OnceLock};

pub(crate) use cb::cublasDiagType_t::{CUBLAS_DIAG_NON_UNIT as NON_UNIT, CUBLAS_DIAG_UNIT as UNIT};
pub(crate) use cb::cublasFillMode_t::{
    CUBLAS_FILL_MODE_LOWER as LOWER, CUBLAS_FILL_MODE_UPPER as UPPER,
};
pub(crate) use cb::cublasOperation_t::{CUBLAS_OP_C, CUBLAS_OP_N as OP_N, CUBLAS_OP_T};
pub(crate) use cb::cublasSideMode_t::{CUBLAS_SIDE_LEFT as LEFT, CUBLAS_SIDE_RIGHT as RIGHT};

/// `Aᴴ` for complex `T`, `Aᵀ` for real `T` (the same thing).
pub(crate) fn op_c<T: Scalar>() -> cb::cublasOperation_t {
    if T::IS_COMPLEX {
        CUBLAS_OP_C
    } else {
        CUBLAS_OP_T
    }
}

/// `Aᵀ`.
pub(crate) fn op_t() -> cb::cublasOperation_t {
    CUBLAS_OP_T
}

struct Handle {
    stream: usize,
    h: cb::cublasHandle_t,
}

// SAFETY: a cuBLAS handle may be used from any thread as long as calls are not concurrent;
// every use goes through the `HANDLES` mutex.
unsafe impl Send for Handle {}

static HANDLES: Mutex<Vec<Handle>> = Mutex::new(Vec::new());
static PRESENT: OnceLock<bool> = OnceLock::new();

fn status(op: &'static str, what: &str, s: cb::cublasStatus_t) -> Result<()> {
    match s {
        cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS => Ok(()),
        cb::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED => {
            Err(Error::OutOfMemory { op, bytes: 0 }.into())
        }
        other => Err(Error::Cuda {
            op,
            message: format!("cuBLAS {what} failed: {other:?}"),
        }
        .into()),
    }
}

/// Runs `f` with the handle of `dev` (created and bound to the device's stream on first use),
/// the device's context current on this thread, and the handle's lock held.
fn with_handle<R>(
    op: &'static str,
    dev: &Device,
    f: impl FnOnce(cb::cublasHandle_t) -> Result<R>,
) -> Result<R> {
    let stream = interop::cuda_stream(dev).ok_or_else(|| super::not_cuda(op))?;
    let ctx = interop::cuda_context(dev).ok_or_else(|| super::not_cuda(op))?;
    // SAFETY: probing for the library only tries to open it; no symbol is called.
    if !*PRESENT.get_or_init(|| unsafe { cb::is_culib_present() }) {
        return Err(Error::CudaUnavailable(format!(
            "{op}: the cuBLAS library (libcublas) could not be loaded"
        ))
        .into());
    }
    ctx.bind_to_thread().map_err(|e| Error::Cuda {
        op,
        message: format!("binding the context: {e:?}"),
    })?;
    let key = stream.cu_stream() as usize;
    let mut handles = HANDLES.lock().unwrap_or_else(|p| p.into_inner());
    let h = match handles.iter().find(|h| h.stream == key) {
        Some(h) => h.h,
        None => {
            let mut h: cb::cublasHandle_t = std::ptr::null_mut();
            // SAFETY: creates a handle in the current context (the device's, bound above) and
            // binds it to the device's stream, which lives as long as the process's device.
            unsafe {
                status(op, "cublasCreate", cb::cublasCreate_v2(&mut h))?;
                status(
                    op,
                    "cublasSetStream",
                    cb::cublasSetStream_v2(h, stream.cu_stream() as cb::cudaStream_t),
                )?;
                status(
                    op,
                    "cublasSetPointerMode",
                    cb::cublasSetPointerMode_v2(
                        h,
                        cb::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST,
                    ),
                )?;
            }
            handles.push(Handle { stream: key, h });
            h
        }
    };
    f(h)
}

fn int(op: &'static str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| {
        Error::SizeTooLarge {
            op,
            detail: format!("{v} exceeds cuBLAS's 32-bit dimensions"),
        }
        .into()
    })
}

/// Calls the `s`/`d`/`c`/`z` variant of a routine for `T`: `$f` is bound to the variant and
/// `E` to its element type (`f32`, `f64`, `cuComplex`, `cuDoubleComplex`), `Rl` to the real
/// type.
macro_rules! by_type {
    ($T:ty, $f:ident, [$s:path, $d:path, $c:path, $z:path], $body:expr) => {
        match <$T as Scalar>::PREFIX {
            's' => {
                #[allow(dead_code)]
                type E = f32;
                #[allow(dead_code)]
                type Rl = f32;
                let $f = $s;
                $body
            }
            'd' => {
                #[allow(dead_code)]
                type E = f64;
                #[allow(dead_code)]
                type Rl = f64;
                let $f = $d;
                $body
            }
            'c' => {
                #[allow(dead_code)]
                type E = cb::cuComplex;
                #[allow(dead_code)]
                type Rl = f32;
                let $f = $c;
                $body
            }
            _ => {
                #[allow(dead_code)]
                type E = cb::cuDoubleComplex;
                #[allow(dead_code)]
                type Rl = f64;
                let $f = $z;
                $body
            }
        }
    };
}

/// Checks that `T` has the size of the cuBLAS element type its prefix names.
fn check_layout<T: Scalar>() {
    let want = match T::PREFIX {
        's' => 4,
        'd' | 'c' => 8,
        _ => 16,
    };
    assert_eq!(std::mem::size_of::<T>(), want, "scalar layout");
}

/// The scalar `v` as the cuBLAS element type `E`, in a value of `E`'s own alignment.
/// `cuDoubleComplex` is 16-byte aligned and cuBLAS may read a host scalar with aligned
/// loads, so a pointer to a `Complex64` (8-byte aligned) must not be passed as one.
fn as_elem<T: Scalar, E: Copy>(v: T) -> E {
    assert_eq!(
        std::mem::size_of::<T>(),
        std::mem::size_of::<E>(),
        "scalar layout"
    );
    // SAFETY: same size (asserted), and both are plain pairs or single values of the same
    // floating-point type (`check_layout` matches the prefix to the size); `transmute_copy`
    // reads `v` unaligned and returns a properly aligned `E`.
    unsafe { std::mem::transmute_copy(&v) }
}

/// `C ← α·op(A)·op(B) + β·C` (`C` is `m × n`, `k` the inner dimension).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm<T: Scalar>(
    op: &'static str,
    dev: &Device,
    ta: cb::cublasOperation_t,
    tb: cb::cublasOperation_t,
    (m, n, k): (usize, usize, usize),
    alpha: T,
    a: Dense<T>,
    b: Dense<T>,
    beta: T,
    c: Dense<T>,
) -> Result<()> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    check_layout::<T>();
    let (mi, ni, k_eff) = (int(op, m)?, int(op, n)?, int(op, k)?);
    let (lda, ldb, ldc) = (int(op, a.ld)?, int(op, b.ld)?, int(op, c.ld)?);
    with_handle(op, dev, |h| {
        by_type!(
            T,
            f,
            [
                cb::cublasSgemm_v2,
                cb::cublasDgemm_v2,
                cb::cublasCgemm_v2,
                cb::cublasZgemm_v2
            ],
            // SAFETY: a, b, c are live device matrices of this crate large enough for the
            // shapes (the callers take them as blocks of checked sizes); alpha and beta are
            // host values of T, whose layout matches E (checked above); the handle is bound to
            // the device's stream, so the call is ordered with our kernels.
            status(op, "gemm", unsafe {
                f(
                    h,
                    ta,
                    tb,
                    mi,
                    ni,
                    k_eff,
                    &as_elem::<T, E>(alpha),
                    a.ptr as *const E,
                    lda,
                    b.ptr as *const E,
                    ldb,
                    &as_elem::<T, E>(beta),
                    c.ptr as *mut E,
                    ldc,
                )
            })
        )
    })
}

/// `B ← α·op(A)⁻¹·B` (`side` left) or `B ← α·B·op(A)⁻¹` (right); `B` is `m × n`, `A`
/// triangular (`uplo`, `diag`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn trsm<T: Scalar>(
    op: &'static str,
    dev: &Device,
    side: cb::cublasSideMode_t,
    uplo: cb::cublasFillMode_t,
    trans: cb::cublasOperation_t,
    diag: cb::cublasDiagType_t,
    (m, n): (usize, usize),
    alpha: T,
    a: Dense<T>,
    b: Dense<T>,
) -> Result<()> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    check_layout::<T>();
    let (mi, ni, lda, ldb) = (int(op, m)?, int(op, n)?, int(op, a.ld)?, int(op, b.ld)?);
    with_handle(op, dev, |h| {
        by_type!(
            T,
            f,
            [
                cb::cublasStrsm_v2,
                cb::cublasDtrsm_v2,
                cb::cublasCtrsm_v2,
                cb::cublasZtrsm_v2
            ],
            // SAFETY: as in `gemm`: live device blocks of the stated shapes, host scalar of a
            // matching layout, ordered on the device's stream.
            status(op, "trsm", unsafe {
                f(
                    h,
                    side,
                    uplo,
                    trans,
                    diag,
                    mi,
                    ni,
                    &as_elem::<T, E>(alpha),
                    a.ptr as *const E,
                    lda,
                    b.ptr as *mut E,
                    ldb,
                )
            })
        )
    })
}

/// `B ← α·op(A)·B` (left) or `B ← α·B·op(A)` (right) in place (cuBLAS's `C` is `B`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn trmm<T: Scalar>(
    op: &'static str,
    dev: &Device,
    side: cb::cublasSideMode_t,
    uplo: cb::cublasFillMode_t,
    trans: cb::cublasOperation_t,
    diag: cb::cublasDiagType_t,
    (m, n): (usize, usize),
    alpha: T,
    a: Dense<T>,
    b: Dense<T>,
) -> Result<()> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    check_layout::<T>();
    let (mi, ni, lda, ldb) = (int(op, m)?, int(op, n)?, int(op, a.ld)?, int(op, b.ld)?);
    with_handle(op, dev, |h| {
        by_type!(
            T,
            f,
            [
                cb::cublasStrmm_v2,
                cb::cublasDtrmm_v2,
                cb::cublasCtrmm_v2,
                cb::cublasZtrmm_v2
            ],
            // SAFETY: as in `gemm`; passing B as C is cuBLAS's documented in-place form.
            status(op, "trmm", unsafe {
                f(
                    h,
                    side,
                    uplo,
                    trans,
                    diag,
                    mi,
                    ni,
                    &as_elem::<T, E>(alpha),
                    a.ptr as *const E,
                    lda,
                    b.ptr as *const E,
                    ldb,
                    b.ptr as *mut E,
                    ldb,
                )
            })
        )
    })
}

/// `C ← α·op(A)·op(A)ᴴ + β·C` on the `uplo` triangle of the `n × n` matrix `C`, real `α`, `β`
/// (`herk`; `syrk` for real types, where `ᴴ` is `ᵀ`). `trans` is `N` (`A` is `n × k`) or
/// [`op_c`] (`A` is `k × n`, `C ← α·Aᴴ·A + β·C`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn herk<T: Scalar>(
    op: &'static str,
    dev: &Device,
    uplo: cb::cublasFillMode_t,
    trans: cb::cublasOperation_t,
    (n, k): (usize, usize),
    alpha: T::Real,
    a: Dense<T>,
    beta: T::Real,
    c: Dense<T>,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    check_layout::<T>();
    let (ni, ki, lda, ldc) = (int(op, n)?, int(op, k)?, int(op, a.ld)?, int(op, c.ld)?);
    // Real types: alpha/beta are T itself.
    let (al, be) = (T::from_real(alpha), T::from_real(beta));
    with_handle(op, dev, |h| {
        if T::IS_COMPLEX {
            by_type!(
                T,
                f,
                [
                    cb::cublasCherk_v2,
                    cb::cublasZherk_v2,
                    cb::cublasCherk_v2,
                    cb::cublasZherk_v2
                ],
                // SAFETY: as in `gemm`; complex T ('c' or 'z', the other arms are never taken);
                // herk's scalars are the real type Rl (f32 for 'c', f64 for 'z'), which T::Real
                // is.
                status(op, "herk", unsafe {
                    f(
                        h,
                        uplo,
                        trans,
                        ni,
                        ki,
                        &alpha as *const T::Real as *const Rl,
                        a.ptr as *const _,
                        lda,
                        &beta as *const T::Real as *const Rl,
                        c.ptr as *mut _,
                        ldc,
                    )
                })
            )
        } else {
            by_type!(
                T,
                f,
                [
                    cb::cublasSsyrk_v2,
                    cb::cublasDsyrk_v2,
                    cb::cublasSsyrk_v2,
                    cb::cublasDsyrk_v2
                ],
                // SAFETY: as in `gemm`; real T ('s' or 'd', the other arms are never taken), so
                // alpha and beta as T have the routine's element layout.
                status(op, "syrk", unsafe {
                    f(
                        h,
                        uplo,
                        trans,
                        ni,
                        ki,
                        &al as *const T as *const _,
                        a.ptr as *const _,
                        lda,
                        &be as *const T as *const _,
                        c.ptr as *mut _,
                        ldc,
                    )
                })
            )
        }
    })
}
