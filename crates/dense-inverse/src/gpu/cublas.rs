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

/// Runs `f` with the handle of the stream this thread's launches on `dev` go to
/// ([`super::launch_stream`]: the device's, unless redirected; one handle per stream, created
/// and bound to it on first use), the device's context current on this thread, and the
/// handle's lock held.
fn with_handle<R>(
    op: &'static str,
    dev: &Device,
    f: impl FnOnce(cb::cublasHandle_t) -> Result<R>,
) -> Result<R> {
    let stream = super::launch_stream(op, dev)?;
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
            // binds it to the stream, the device's or its priority stream, both of which live
            // as long as the process's device.
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

/// One operand of [`gemm_batched`]: the first matrix and the distance, in elements, from one
/// matrix of the batch to the next.
pub(crate) type Strided<T> = (Dense<T>, usize);

/// `C_i ← α·A_i·B_i + β·C_i` for `i < count` (cuBLAS `gemmStridedBatched`, no transposes),
/// where `X_i` is the block `X` moved `i·stride` elements on (`C_i` is `m × n`, `k` the inner
/// dimension). The caller keeps every `X_i` inside its buffer and the `C_i` apart from each
/// other and from the `A_i`, `B_i`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_batched<T: Scalar>(
    op: &'static str,
    dev: &Device,
    (m, n, k): (usize, usize, usize),
    alpha: T,
    (a, sa): Strided<T>,
    (b, sb): Strided<T>,
    beta: T,
    (c, sc): Strided<T>,
    count: usize,
) -> Result<()> {
    if m == 0 || n == 0 || count == 0 {
        return Ok(());
    }
    check_layout::<T>();
    let (mi, ni, k_eff, cnt) = (int(op, m)?, int(op, n)?, int(op, k)?, int(op, count)?);
    let (lda, ldb, ldc) = (int(op, a.ld)?, int(op, b.ld)?, int(op, c.ld)?);
    let stride = |s: usize| {
        i64::try_from(s).map_err(|_| {
            crate::Error::from(Error::SizeTooLarge {
                op,
                detail: format!("batch stride {s}"),
            })
        })
    };
    let (sa, sb, sc) = (stride(sa)?, stride(sb)?, stride(sc)?);
    with_handle(op, dev, |h| {
        by_type!(
            T,
            f,
            [
                cb::cublasSgemmStridedBatched,
                cb::cublasDgemmStridedBatched,
                cb::cublasCgemmStridedBatched,
                cb::cublasZgemmStridedBatched
            ],
            // SAFETY: as in `gemm`, for every matrix of the batch (the caller keeps each in
            // its buffer and the outputs disjoint).
            status(op, "gemmStridedBatched", unsafe {
                f(
                    h,
                    OP_N,
                    OP_N,
                    mi,
                    ni,
                    k_eff,
                    &as_elem::<T, E>(alpha),
                    a.ptr as *const E,
                    lda,
                    sa,
                    b.ptr as *const E,
                    ldb,
                    sb,
                    &as_elem::<T, E>(beta),
                    c.ptr as *mut E,
                    ldc,
                    sc,
                    cnt,
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

/// Triangles of this order or less are solved by one cuBLAS `trsm` in [`trsm_rec`].
pub(crate) const TRSM_LEAF: usize = 512;

/// [`trsm`] with `op(A) = A`, recursively: the triangle split at `k₁` (half its order, rounded
/// up to a multiple of 64) into `A₁₁`, `A₂₂` and the off-diagonal block, `B` split to match;
/// the solve with the diagonal block that comes first, one `gemm` that removes its part from the
/// other half of `B`, then the solve with the other diagonal block. For `A·X = α·B` with `A`
/// lower, `X₁ = A₁₁⁻¹·α·B₁`, `B₂ ← α·B₂ − A₂₁·X₁`, `X₂ = A₂₂⁻¹·B₂`; the other sides and
/// triangles mirror it. Triangles of order ≤ [`TRSM_LEAF`] go to cuBLAS `trsm`. The flops are
/// the same as one `trsm`'s; all but the leaves' are `gemm`'s, which runs at a higher rate
/// than cuBLAS's `trsm` on large operands. Agrees with [`trsm`] to rounding.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trsm_rec<T: Scalar>(
    op: &'static str,
    dev: &Device,
    side: cb::cublasSideMode_t,
    uplo: cb::cublasFillMode_t,
    diag: cb::cublasDiagType_t,
    (m, n): (usize, usize),
    alpha: T,
    a: Dense<T>,
    b: Dense<T>,
) -> Result<()> {
    let leaf = |alpha, t: Dense<T>, x: Dense<T>| {
        trsm(
            op,
            dev,
            side,
            uplo,
            OP_N,
            diag,
            (x.rows, x.cols),
            alpha,
            t,
            x,
        )
    };
    trsm_rec_with(op, dev, (side, uplo), (m, n), alpha, a, b, &leaf)
}

/// A leaf solve of [`trsm_rec_with`]: `(α, A, B)`, `A` the triangle of order ≤ [`TRSM_LEAF`],
/// `B` the part of the right-hand side it acts on, overwritten with the solution.
pub(crate) type Leaf<'a, T> = dyn Fn(T, Dense<T>, Dense<T>) -> Result<()> + 'a;

/// The recursion of [`trsm_rec`] with the triangles of order ≤ [`TRSM_LEAF`] solved by `leaf`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trsm_rec_with<T: Scalar>(
    op: &'static str,
    dev: &Device,
    (side, uplo): (cb::cublasSideMode_t, cb::cublasFillMode_t),
    (m, n): (usize, usize),
    alpha: T,
    a: Dense<T>,
    b: Dense<T>,
    leaf: &Leaf<'_, T>,
) -> Result<()> {
    let left = side == LEFT;
    let k = if left { m } else { n };
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k <= TRSM_LEAF {
        return leaf(alpha, a.at(0, 0, k, k), b.at(0, 0, m, n));
    }
    let (src, dst, off) = split(left, uplo == LOWER, k, a, b.at(0, 0, m, n));
    let solve = |alpha, (t, x): Half<T>| {
        trsm_rec_with(op, dev, (side, uplo), (x.rows, x.cols), alpha, t, x, leaf)
    };
    solve(alpha, src)?;
    off_product(op, dev, left, off, src.1, -T::one(), alpha, dst.1)?;
    solve(T::one(), dst)
}

/// `y ← x` for `n` elements `incx` and `incy` apart (cuBLAS `copy`), e.g. along a diagonal.
pub(crate) fn copy_strided<T: Scalar>(
    op: &'static str,
    dev: &Device,
    n: usize,
    (x, incx): (u64, usize),
    (y, incy): (u64, usize),
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    check_layout::<T>();
    let (ni, ix, iy) = (int(op, n)?, int(op, incx)?, int(op, incy)?);
    with_handle(op, dev, |h| {
        by_type!(
            T,
            f,
            [
                cb::cublasScopy_v2,
                cb::cublasDcopy_v2,
                cb::cublasCcopy_v2,
                cb::cublasZcopy_v2
            ],
            // SAFETY: the caller passes device addresses of this crate's buffers holding `n`
            // elements of `T` at the given strides.
            status(op, "copy", unsafe {
                f(h, ni, x as *const E, ix, y as *mut E, iy)
            })
        )
    })
}

/// [`trsm`] on the left with `op(A) = Aᵀ` or `Aᴴ` (`trans`), recursively as [`trsm_rec`]: the
/// stored triangle split at `k₁` (half its order, rounded up to a multiple of 64); `op(A)` of
/// a stored lower `A` is upper, so `X₂ = op(A₂₂)⁻¹·α·B₂`, `B₁ ← α·B₁ − op(A₂₁)·X₂` (one
/// `gemm` with `op` on the stored `A₂₁`), `X₁ = op(A₁₁)⁻¹·B₁`; a stored upper `A` mirrors it.
/// Triangles of order ≤ [`TRSM_LEAF`] go to cuBLAS `trsm`, which on its own solves a large
/// triangle with few right-hand sides far below the rate of these products (the transposed
/// solves of `getrs`, `potrs` and the condition estimates). Agrees with [`trsm`] to rounding.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trsm_rec_left_t<T: Scalar>(
    op: &'static str,
    dev: &Device,
    uplo: cb::cublasFillMode_t,
    trans: cb::cublasOperation_t,
    diag: cb::cublasDiagType_t,
    (m, n): (usize, usize),
    alpha: T,
    a: Dense<T>,
    b: Dense<T>,
) -> Result<()> {
    if m <= TRSM_LEAF || n == 0 {
        return trsm(op, dev, LEFT, uplo, trans, diag, (m, n), alpha, a, b);
    }
    // op(A) is the other triangle, so it maps the halves the other way round than A does.
    let (dst, src, off) = split(true, uplo == LOWER, m, a, b.at(0, 0, m, n));
    let solve = |alpha, (t, x): Half<T>| {
        trsm_rec_left_t(op, dev, uplo, trans, diag, (x.rows, n), alpha, t, x)
    };
    solve(alpha, src)?;
    let (s, d) = (src.1, dst.1);
    gemm(
        op,
        dev,
        trans,
        OP_N,
        (d.rows, n, s.rows),
        -T::one(),
        off,
        s,
        alpha,
        d,
    )?;
    solve(T::one(), dst)
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

/// [`trmm`] (in place) with `op(A) = A`, recursively, as [`trsm_rec`]: the triangle split at
/// `k₁` into `A₁₁`, `A₂₂` and the off-diagonal block, `B` split to match. For `B ← α·A·B` with
/// `A` upper, `B₁ ← α·A₁₁·B₁` (recursively), `B₁ ← B₁ + α·A₁₂·B₂` (one `gemm`, `B₂` not yet
/// changed), `B₂ ← α·A₂₂·B₂`; the other sides and triangles order the three steps so that the
/// `gemm` reads the part of `B` that is still unchanged. Triangles of order ≤ `leaf` (at least
/// 64) go to cuBLAS `trmm`. Agrees with [`trmm`] to rounding.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trmm_rec<T: Scalar>(
    op: &'static str,
    dev: &Device,
    (side, uplo, diag): (
        cb::cublasSideMode_t,
        cb::cublasFillMode_t,
        cb::cublasDiagType_t,
    ),
    (m, n): (usize, usize),
    alpha: T,
    a: Dense<T>,
    b: Dense<T>,
    leaf: usize,
) -> Result<()> {
    let left = side == LEFT;
    let k = if left { m } else { n };
    if k <= leaf.max(64) || m == 0 || n == 0 {
        return trmm(op, dev, side, uplo, OP_N, diag, (m, n), alpha, a, b);
    }
    let (src, dst, off) = split(left, uplo == LOWER, k, a, b.at(0, 0, m, n));
    let mul = |(t, x): Half<T>| {
        trmm_rec(
            op,
            dev,
            (side, uplo, diag),
            (x.rows, x.cols),
            alpha,
            t,
            x,
            leaf,
        )
    };
    mul(dst)?;
    off_product(op, dev, left, off, src.1, alpha, T::one(), dst.1)?;
    mul(src)
}

/// A diagonal block of a triangle and the part of `B` it acts on.
type Half<T> = (Dense<T>, Dense<T>);

/// The split of [`trsm_rec`], [`trsm_rec_left_t`] and [`trmm_rec`]: the triangle `a` of order `k` (`B = b`, on its
/// left or right) at `k₁` (half of `k`, rounded up to a multiple of 64) into its diagonal blocks
/// with the matching halves of `B`, returned as `(src, dst, off)`: `off` is the off-diagonal
/// block, which maps the half `src` into the half `dst` (`A·X`: `dst += off·src`; `X·A`:
/// `dst += src·off`). A solve does `src` first and then removes `off`'s part of it from `dst`;
/// a product updates `dst` first (its own block, then `off`'s part of the still unchanged
/// `src`) and `src` last.
fn split<T: Scalar>(
    left: bool,
    lower: bool,
    k: usize,
    a: Dense<T>,
    b: Dense<T>,
) -> (Half<T>, Half<T>, Dense<T>) {
    let k1 = (k / 2).div_ceil(64) * 64;
    let k2 = k - k1;
    let (a11, a22) = (a.at(0, 0, k1, k1), a.at(k1, k1, k2, k2));
    let (b1, b2) = if left {
        (b.at(0, 0, k1, b.cols), b.at(k1, 0, k2, b.cols))
    } else {
        (b.at(0, 0, b.rows, k1), b.at(0, k1, b.rows, k2))
    };
    let off = if lower {
        a.at(k1, 0, k2, k1)
    } else {
        a.at(0, k1, k1, k2)
    };
    // A·X with A lower and X·A with A upper map the first half into the second.
    if left == lower {
        ((a11, b1), (a22, b2), off)
    } else {
        ((a22, b2), (a11, b1), off)
    }
}

/// `dst ← α·off·src + β·dst` (`left`) or `dst ← α·src·off + β·dst`: the `gemm` of
/// [`trsm_rec`] and [`trmm_rec`].
#[allow(clippy::too_many_arguments)]
fn off_product<T: Scalar>(
    op: &'static str,
    dev: &Device,
    left: bool,
    off: Dense<T>,
    src: Dense<T>,
    alpha: T,
    beta: T,
    dst: Dense<T>,
) -> Result<()> {
    let (x, y, depth) = if left {
        (off, src, src.rows)
    } else {
        (src, off, src.cols)
    };
    gemm(
        op,
        dev,
        OP_N,
        OP_N,
        (dst.rows, dst.cols, depth),
        alpha,
        x,
        y,
        beta,
        dst,
    )
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

#[cfg(test)]
mod tests {
    //! [`trsm_rec`] and [`trmm_rec`] on CUDA (skipped without a GPU), every side, triangle and
    //! diagonal kind, and [`trsm_rec_left_t`] with both transposes, with triangles large enough to recurse twice (and split unevenly), against
    //! a plain f64 residual on the host: `op(A)·X − α·B` for the solve, `Y − α·op(A)·B` for the
    //! product. The triangle's other half and, for a unit diagonal,
    //! its diagonal hold NaN, so reading them shows in the result.
    use super::*;
    use gpu_blas::testing::{cuda_test_device, random_values};
    use gpu_blas::DeviceMatrix;
    use num_complex::Complex64 as C64;

    const OP: &str = "trsm_rec / trmm_rec test";

    /// `(order of the triangle, other dimension of B)`.
    const SHAPES: &[(usize, usize)] = &[(1100, 48), (513, 70), (90, 33)];

    /// A `k × k` triangle (`lower` or upper): off-diagonal entries of size up to `1/k`, diagonal
    /// `1.5 ± 0.5` (NaN for a `unit` one), NaN in the other triangle.
    fn triangle<T: Scalar>(k: usize, lower: bool, unit: bool, seed: u64) -> Vec<T> {
        let nan = T::from_f64(f64::NAN);
        let mut a: Vec<T> = random_values::<T>(k * k, seed);
        let d = random_values::<f64>(k, seed + 7);
        for j in 0..k {
            for i in 0..k {
                let e = &mut a[i + j * k];
                *e = if i == j {
                    if unit {
                        nan
                    } else {
                        T::from_f64(1.5 + 0.5 * d[i])
                    }
                } else if (i > j) == lower {
                    *e * T::from_f64(1.0 / k as f64)
                } else {
                    nan
                };
            }
        }
        a
    }

    /// The largest modulus in the result `x` (asserted finite) and the infinity norm of the
    /// `k × k` triangle given entrywise by `tri`.
    fn norms<T: Scalar>(x: &[C64], k: usize, tri: impl Fn(usize, usize) -> C64) -> (f64, f64) {
        let xmax = x.iter().map(|v| v.norm()).fold(0.0, f64::max);
        assert!(
            xmax.is_finite(),
            "{}: non-finite result (k = {k})",
            T::PREFIX
        );
        let tnorm = (0..k)
            .map(|i| (0..k).map(|j| tri(i, j).norm()).sum::<f64>())
            .fold(0.0, f64::max);
        (xmax, tnorm)
    }

    fn check<T: Scalar>(
        dev: &Device,
        side: cb::cublasSideMode_t,
        uplo: cb::cublasFillMode_t,
        unit: bool,
        multiply: bool,
    ) {
        let left = side == LEFT;
        let lower = uplo == LOWER;
        for (s, &(k, other)) in SHAPES.iter().enumerate() {
            let (m, n) = if left { (k, other) } else { (other, k) };
            let seed = 40 + s as u64;
            let a = triangle::<T>(k, lower, unit, seed);
            let b: Vec<T> = random_values::<T>(m * n, seed + 3);
            let alpha = T::from_f64(-1.25);
            let ad = DeviceMatrix::from_col_major(dev, k, k, k, a.clone()).unwrap();
            let bd = DeviceMatrix::from_col_major(dev, m, n, m, b.clone()).unwrap();
            let (da, db) = (Dense::of(OP, &ad).unwrap(), Dense::of(OP, &bd).unwrap());
            let diag = if unit { UNIT } else { NON_UNIT };
            if multiply {
                trmm_rec(OP, dev, (side, uplo, diag), (m, n), alpha, da, db, 256).unwrap();
            } else {
                trsm_rec(OP, dev, side, uplo, diag, (m, n), alpha, da, db).unwrap();
            }
            // Row-major (ndarray's logical order): x[i * n + j] = X(i, j).
            let x: Vec<C64> = bd.to_array().unwrap().iter().map(|v| v.to_c64()).collect();
            let tri = |i: usize, j: usize| -> C64 {
                if i == j {
                    if unit {
                        C64::new(1.0, 0.0)
                    } else {
                        a[i + j * k].to_c64()
                    }
                } else if (i > j) == lower {
                    a[i + j * k].to_c64()
                } else {
                    C64::new(0.0, 0.0)
                }
            };
            let (xmax, tnorm) = norms::<T>(&x, k, tri);
            let eps = T::epsilon().to_c64().re;
            let al = alpha.to_c64();
            // Row-major like x: b_rm[i * n + j] = B(i, j).
            let b_rm: Vec<C64> = (0..m * n)
                .map(|e| b[e / n + (e % n) * m].to_c64())
                .collect();
            // (A·M)(i, j) on the left, (M·A)(i, j) on the right, for row-major M.
            let prod = |mm: &[C64], i: usize, j: usize| -> C64 {
                if left {
                    (0..k).map(|p| tri(i, p) * mm[p * n + j]).sum()
                } else {
                    (0..k).map(|p| mm[i * n + p] * tri(p, j)).sum()
                }
            };
            let (scale, what) = if multiply {
                (
                    b_rm.iter().map(|v| v.norm()).fold(0.0, f64::max) * al.norm(),
                    "trmm_rec",
                )
            } else {
                (xmax, "trsm_rec")
            };
            let tol = 16.0 * k as f64 * eps * tnorm * scale;
            let mut worst = 0.0f64;
            for i in 0..m {
                for j in 0..n {
                    let r = if multiply {
                        x[i * n + j] - al * prod(&b_rm, i, j)
                    } else {
                        prod(&x, i, j) - al * b_rm[i * n + j]
                    };
                    worst = worst.max(r.norm());
                }
            }
            assert!(
                worst <= tol,
                "{what} {} left={left} lower={lower} unit={unit} k={k}: residual {worst:e} > {tol:e}",
                T::PREFIX
            );
        }
    }

    /// [`trsm_rec_left_t`]: `op(A)·X = α·B` with `op` the transpose or the conjugate
    /// transpose, against the same host residual (the other triangle and a unit diagonal NaN).
    fn check_t<T: Scalar>(dev: &Device, uplo: cb::cublasFillMode_t, conj: bool, unit: bool) {
        let lower = uplo == LOWER;
        for (s, &(k, n)) in SHAPES.iter().enumerate() {
            let seed = 60 + s as u64;
            let a = triangle::<T>(k, lower, unit, seed);
            let b: Vec<T> = random_values::<T>(k * n, seed + 3);
            let alpha = T::from_f64(0.75);
            let ad = DeviceMatrix::from_col_major(dev, k, k, k, a.clone()).unwrap();
            let bd = DeviceMatrix::from_col_major(dev, k, n, k, b.clone()).unwrap();
            let (da, db) = (Dense::of(OP, &ad).unwrap(), Dense::of(OP, &bd).unwrap());
            let (diag, trans) = (
                if unit { UNIT } else { NON_UNIT },
                if conj { op_c::<T>() } else { op_t() },
            );
            trsm_rec_left_t(OP, dev, uplo, trans, diag, (k, n), alpha, da, db).unwrap();
            let x: Vec<C64> = bd.to_array().unwrap().iter().map(|v| v.to_c64()).collect();
            // op(A)(i, p) = A(p, i), conjugated for the conjugate transpose.
            let opa = |i: usize, p: usize| -> C64 {
                let v = if i == p {
                    if unit {
                        C64::new(1.0, 0.0)
                    } else {
                        a[i + i * k].to_c64()
                    }
                } else if (p > i) == lower {
                    a[p + i * k].to_c64()
                } else {
                    C64::new(0.0, 0.0)
                };
                if conj {
                    v.conj()
                } else {
                    v
                }
            };
            let (xmax, tnorm) = norms::<T>(&x, k, opa);
            let eps = T::epsilon().to_c64().re;
            let al = alpha.to_c64();
            let tol = 16.0 * k as f64 * eps * tnorm * xmax;
            let mut worst = 0.0f64;
            for i in 0..k {
                for j in 0..n {
                    let s: C64 = (0..k).map(|p| opa(i, p) * x[p * n + j]).sum();
                    worst = worst.max((s - al * b[i + j * k].to_c64()).norm());
                }
            }
            assert!(
                worst <= tol,
                "trsm_rec_left_t {} lower={lower} conj={conj} unit={unit} k={k}: residual {worst:e} > {tol:e}",
                T::PREFIX
            );
        }
    }

    fn all<T: Scalar>(dev: &Device) {
        for uplo in [LOWER, UPPER] {
            for conj in [false, true] {
                for unit in [false, true] {
                    check_t::<T>(dev, uplo, conj, unit);
                }
            }
        }
        for side in [LEFT, RIGHT] {
            for uplo in [LOWER, UPPER] {
                for unit in [false, true] {
                    check::<T>(dev, side, uplo, unit, false);
                    check::<T>(dev, side, uplo, unit, true);
                }
            }
        }
    }

    /// A block as (element offset, rows, cols), for [`split`]'s test.
    fn block(d: Dense<f64>) -> (u64, usize, usize) {
        (d.ptr / 8, d.rows, d.cols)
    }

    /// [`split`] on a 1100 × 1100 triangle (`k₁ = 576`, `k₂ = 524`, leading dimension 2000)
    /// and a `B` of 1100 × 30 (left) or 30 × 1100 (right, leading dimension 40): the half solved
    /// first (`src`), the half updated by the `gemm` (`dst`) and the off-diagonal block, for
    /// every side and triangle. Runs without a GPU (only addresses are computed).
    #[test]
    fn split_picks_the_halves_and_the_off_diagonal_block() {
        let dense = |rows, cols, ld| Dense::<f64> {
            ptr: 0,
            rows,
            cols,
            ld,
            _t: std::marker::PhantomData,
        };
        let a = dense(1100, 1100, 2000);
        let (a11, a22) = ((0, 576, 576), (576 + 576 * 2000, 524, 524));
        let (a21, a12) = ((576, 524, 576), (576 * 2000, 576, 524));
        let (bl, br) = (dense(1100, 30, 1100), dense(30, 1100, 40));
        let (bl1, bl2) = ((0, 576, 30), (576, 524, 30));
        let (br1, br2) = ((0, 30, 576), (576 * 40, 30, 524));
        let cases = [
            // (left, lower, B, src, dst, off)
            (true, true, bl, (a11, bl1), (a22, bl2), a21),
            (true, false, bl, (a22, bl2), (a11, bl1), a12),
            (false, true, br, (a22, br2), (a11, br1), a21),
            (false, false, br, (a11, br1), (a22, br2), a12),
        ];
        for (left, lower, b, src, dst, off) in cases {
            let (s, d, o) = split(left, lower, 1100, a, b);
            let got = ((block(s.0), block(s.1)), (block(d.0), block(d.1)), block(o));
            assert_eq!(got, (src, dst, off), "left = {left}, lower = {lower}");
        }
    }

    #[test]
    fn trsm_rec_and_trmm_rec_on_every_side_and_triangle() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        all::<f64>(&dev);
        all::<f32>(&dev);
        all::<num_complex::Complex64>(&dev);
    }
}
