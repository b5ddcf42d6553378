//! cuSPARSE's generic SpMV on our CSR arrays, through cudarc's raw bindings.

use cudarc::cusparse::sys as cs;
use gpu_blas::Scalar;
use std::ffi::c_void;

fn ok(s: cs::cusparseStatus_t, what: &str) {
    assert_eq!(
        s,
        cs::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS,
        "cuSPARSE {what} failed"
    );
}

/// The cuSPARSE value type for a scalar.
pub fn data_type<T: Scalar>() -> cs::cudaDataType {
    match T::PREFIX {
        's' => cs::cudaDataType::CUDA_R_32F,
        'd' => cs::cudaDataType::CUDA_R_64F,
        'c' => cs::cudaDataType::CUDA_C_32F,
        _ => cs::cudaDataType::CUDA_C_64F,
    }
}

/// A handle bound to our stream plus the descriptors of one `y = alpha*A*x + beta*y` problem.
pub struct SpmvProblem {
    h: cs::cusparseHandle_t,
    a: cs::cusparseSpMatDescr_t,
    x: cs::cusparseDnVecDescr_t,
    y: cs::cusparseDnVecDescr_t,
    dt: cs::cudaDataType,
}

impl SpmvProblem {
    /// # Safety
    /// The pointers must be live device arrays of the stated sizes on the stream's context.
    pub unsafe fn new<T: Scalar>(
        stream: cudarc::driver::sys::CUstream,
        rows: usize,
        cols: usize,
        nnz: usize,
        (rp, ci, va): (u64, u64, u64),
        xp: u64,
        yp: u64,
    ) -> SpmvProblem {
        let dt = data_type::<T>();
        let mut p = SpmvProblem {
            h: std::ptr::null_mut(),
            a: std::ptr::null_mut(),
            x: std::ptr::null_mut(),
            y: std::ptr::null_mut(),
            dt,
        };
        // SAFETY: creating a handle and descriptors over the caller's live device arrays.
        unsafe {
            ok(cs::cusparseCreate(&mut p.h), "create");
            ok(
                cs::cusparseSetStream(p.h, stream as cs::cudaStream_t),
                "set stream",
            );
            ok(
                cs::cusparseCreateCsr(
                    &mut p.a,
                    rows as i64,
                    cols as i64,
                    nnz as i64,
                    rp as *mut c_void,
                    ci as *mut c_void,
                    va as *mut c_void,
                    cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                    cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                    cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                    dt,
                ),
                "create csr",
            );
            ok(
                cs::cusparseCreateDnVec(&mut p.x, cols as i64, xp as *mut c_void, dt),
                "create x",
            );
            ok(
                cs::cusparseCreateDnVec(&mut p.y, rows as i64, yp as *mut c_void, dt),
                "create y",
            );
        }
        p
    }

    /// Workspace bytes for `alg`.
    pub fn buffer_size<T: Scalar>(&self, alg: cs::cusparseSpMVAlg_t, alpha: &T, beta: &T) -> usize {
        let mut size = 0usize;
        // SAFETY: descriptors are live; alpha/beta are host scalars of the value type.
        let s = unsafe {
            cs::cusparseSpMV_bufferSize(
                self.h,
                cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                alpha as *const T as *const c_void,
                self.a,
                self.x,
                beta as *const T as *const c_void,
                self.y,
                self.dt,
                alg,
                &mut size,
            )
        };
        ok(s, "buffer size");
        size
    }

    /// Enqueues one SpMV.
    ///
    /// # Safety
    /// `buffer` must be a device workspace of at least `buffer_size` bytes.
    pub unsafe fn run<T: Scalar>(
        &self,
        alg: cs::cusparseSpMVAlg_t,
        alpha: &T,
        beta: &T,
        buffer: u64,
    ) {
        // SAFETY: the caller provides the workspace; descriptors are live.
        let s = unsafe {
            cs::cusparseSpMV(
                self.h,
                cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                alpha as *const T as *const c_void,
                self.a,
                self.x,
                beta as *const T as *const c_void,
                self.y,
                self.dt,
                alg,
                buffer as *mut c_void,
            )
        };
        ok(s, "spmv");
    }
}

impl Drop for SpmvProblem {
    fn drop(&mut self) {
        // SAFETY: each object was created once in `new` and is destroyed once here.
        unsafe {
            cs::cusparseDestroyDnVec(self.y);
            cs::cusparseDestroyDnVec(self.x);
            cs::cusparseDestroySpMat(self.a);
            cs::cusparseDestroy(self.h);
        }
    }
}
