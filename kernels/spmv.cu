// CSR sparse matrix-vector product y = alpha*A*x + beta*y for s, d, c, z.
//
// Three kernel families (the host picks one from the row-length statistics):
//   spmv_row_<p>     one thread per row
//   spmv_vec<L>_<p>  L lanes per row (L = 2, 4, 8, 16, 32), shuffle reduction
//   spmv_adapt_<p>   load-balanced row blocks: a block gets many short rows holding at most
//                    `cap` entries and `cap` rows (products and row pointers staged in dynamic
//                    shared memory of cap*(sizeof(T)+4)+4 bytes, then reduced by groups
//                    of lanes sized to the rows) or one long row (reduced by the whole block).
//   spmv_adapt16_<p> the same, with each column index stored as a 16-bit offset from its
//                    block's first row (where every offset fits): 2 bytes less per entry.
// Matrix entries are read once with streaming loads; x goes through the read-only cache.
// With beta == 0, y is not read.

#include "common.cuh"

#define SPMV_BLOCK 256

__device__ __forceinline__ float ld_stream(const float* p) { return __ldcs(p); }
__device__ __forceinline__ double ld_stream(const double* p) { return __ldcs(p); }
__device__ __forceinline__ cf32 ld_stream(const cf32* p) {
    float2 v = __ldcs(reinterpret_cast<const float2*>(p));
    return {v.x, v.y};
}
__device__ __forceinline__ cf64 ld_stream(const cf64* p) {
    double2 v = __ldcs(reinterpret_cast<const double2*>(p));
    return {v.x, v.y};
}
__device__ __forceinline__ float ld_ro(const float* p) { return __ldg(p); }
__device__ __forceinline__ double ld_ro(const double* p) { return __ldg(p); }
__device__ __forceinline__ cf32 ld_ro(const cf32* p) {
    float2 v = __ldg(reinterpret_cast<const float2*>(p));
    return {v.x, v.y};
}
__device__ __forceinline__ cf64 ld_ro(const cf64* p) {
    double2 v = __ldg(reinterpret_cast<const double2*>(p));
    return {v.x, v.y};
}

__device__ __forceinline__ bool is_zero(float v) { return v == 0.0f; }
__device__ __forceinline__ bool is_zero(double v) { return v == 0.0; }
__device__ __forceinline__ bool is_zero(cf32 v) { return v.re == 0.0f && v.im == 0.0f; }
__device__ __forceinline__ bool is_zero(cf64 v) { return v.re == 0.0 && v.im == 0.0; }

template <class T>
__device__ __forceinline__ void store_row(T* y, i64 incy, int r, T alpha, T beta, T sum) {
    T* p = y + (i64)r * incy;
    *p = is_zero(beta) ? mul(alpha, sum) : madd(alpha, sum, mul(beta, *p));
}

// Sum over the `width` lanes of an aligned lane group (width a power of two <= 32); all lanes of
// the warp must call it.
template <class T> __device__ __forceinline__ T group_sum(T v, int width) {
    for (int d = width >> 1; d > 0; d >>= 1) v = add(v, shfl_down(v, d));
    return v;
}

template <class T>
__device__ __forceinline__ T row_dot(const int* __restrict__ col, const T* __restrict__ val,
                                     const T* __restrict__ x, i64 incx, int k0, int k1, int first,
                                     int step) {
    // Two independent chains: both index/value loads are issued before the dependent x gathers.
    T s0 = zero<T>(), s1 = zero<T>();
    int k = k0 + first;
    for (; k + step < k1; k += 2 * step) {
        const int c0 = __ldcs(col + k), c1 = __ldcs(col + k + step);
        const T v0 = ld_stream(val + k), v1 = ld_stream(val + k + step);
        s0 = madd(v0, ld_ro(x + (i64)c0 * incx), s0);
        s1 = madd(v1, ld_ro(x + (i64)c1 * incx), s1);
    }
    if (k < k1) s0 = madd(ld_stream(val + k), ld_ro(x + (i64)__ldcs(col + k) * incx), s0);
    return add(s0, s1);
}

template <class T>
__device__ void spmv_row(int rows, const int* __restrict__ rp, const int* __restrict__ col,
                         const T* __restrict__ val, const T* __restrict__ x, i64 incx, T* y, i64 incy,
                         T alpha, T beta) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    store_row(y, incy, r, alpha, beta, row_dot(col, val, x, incx, rp[r], rp[r + 1], 0, 1));
}

template <class T, int L>
__device__ void spmv_vec(int rows, const int* __restrict__ rp, const int* __restrict__ col,
                         const T* __restrict__ val, const T* __restrict__ x, i64 incx, T* y, i64 incy,
                         T alpha, T beta) {
    const int lane = threadIdx.x & (L - 1);
    const int r = (blockIdx.x * blockDim.x + threadIdx.x) / L;
    T s = zero<T>();
    if (r < rows) s = row_dot(col, val, x, incx, rp[r], rp[r + 1], lane, L);
    s = group_sum(s, L);
    if (r < rows && lane == 0) store_row(y, incy, r, alpha, beta, s);
}

template <class T> struct SumOf {
    T s;
    static __device__ __forceinline__ SumOf identity() { return {zero<T>()}; }
    static __device__ __forceinline__ SumOf combine(SumOf a, SumOf b) { return {add(a.s, b.s)}; }
};

// Column index of entry k of a block whose first row is r0: the stored index, or (D16) the
// stored 16-bit offset from r0 (`col` then points at int16 values).
template <bool D16> __device__ __forceinline__ int col_at(const int* __restrict__ col, int k, int r0) {
    if (D16) return r0 + (int)__ldcs(reinterpret_cast<const short*>(col) + k);
    return __ldcs(col + k);
}

template <class T, bool D16>
__device__ void spmv_adapt(int cap, const int* __restrict__ blocks, const int* __restrict__ rp,
                           const int* __restrict__ col, const T* __restrict__ val,
                           const T* __restrict__ x, i64 incx, T* y, i64 incy, T alpha, T beta) {
    extern __shared__ __align__(16) unsigned char adapt_smem[];
    T* prod = reinterpret_cast<T*>(adapt_smem);
    int* srp = reinterpret_cast<int*>(adapt_smem + (size_t)cap * sizeof(T));
    const int r0 = blocks[blockIdx.x], r1 = blocks[blockIdx.x + 1];
    const int nrows = r1 - r0;
    const int tid = threadIdx.x;
    if (nrows == 1) {
        // One long row: the whole block, four independent gathers in flight per thread.
        const int k0 = rp[r0], k1 = rp[r0 + 1];
        T s8[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) s8[u] = zero<T>();
        int k = k0 + tid;
        for (; k + 3 * SPMV_BLOCK < k1; k += 4 * SPMV_BLOCK) {
            int c[4];
            T v[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                c[u] = col_at<D16>(col, k + u * SPMV_BLOCK, r0);
                v[u] = ld_stream(val + k + u * SPMV_BLOCK);
            }
#pragma unroll
            for (int u = 0; u < 4; ++u) s8[u] = madd(v[u], ld_ro(x + (i64)c[u] * incx), s8[u]);
        }
        for (; k < k1; k += SPMV_BLOCK) s8[0] = madd(ld_stream(val + k), ld_ro(x + (i64)col_at<D16>(col, k, r0) * incx), s8[0]);
        T t = zero<T>();
#pragma unroll
        for (int u = 0; u < 4; ++u) t = add(t, s8[u]);
        SumOf<T> acc{t};
        acc = block_reduce(acc);
        if (tid == 0) store_row(y, incy, r0, alpha, beta, acc.s);
        return;
    }
    // Many short rows: stage the row pointers and the products, then reduce each row with a
    // lane group from shared memory only.
    for (int r = tid; r <= nrows; r += SPMV_BLOCK) srp[r] = rp[r0 + r];
    const int k0 = rp[r0], k1 = rp[r1];
    // Unrolled by four so each thread has four independent gathers in flight.
    int k = k0 + tid;
    for (; k + 3 * SPMV_BLOCK < k1; k += 4 * SPMV_BLOCK) {
        int c[4];
        T v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            c[u] = col_at<D16>(col, k + u * SPMV_BLOCK, r0);
            v[u] = ld_stream(val + k + u * SPMV_BLOCK);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) prod[k + u * SPMV_BLOCK - k0] = mul(v[u], ld_ro(x + (i64)c[u] * incx));
    }
    for (; k < k1; k += SPMV_BLOCK) prod[k - k0] = mul(ld_stream(val + k), ld_ro(x + (i64)col_at<D16>(col, k, r0) * incx));
    __syncthreads();
    int tpr = 1;
    while (tpr < 32 && tpr * 2 * nrows <= SPMV_BLOCK) tpr *= 2;
    const int groups = SPMV_BLOCK / tpr, g = tid / tpr, lane = tid & (tpr - 1);
    for (int base = 0; base < nrows; base += groups) {
        const int rr = base + g;
        T s = zero<T>();
        if (rr < nrows) {
            const int a = srp[rr] - k0, b = srp[rr + 1] - k0;
            for (int k = a + lane; k < b; k += tpr) s = add(s, prod[k]);
        }
        s = group_sum(s, tpr);
        if (rr < nrows && lane == 0) store_row(y, incy, r0 + rr, alpha, beta, s);
    }
}

#define SPMV_ARGS(T)                                                                          \
    int rows, const int* __restrict__ rp, const int* __restrict__ col, const T* __restrict__ val, \
        const T* __restrict__ x, i64 incx, T* y, i64 incy, T alpha, T beta
#define SPMV_PASS rows, rp, col, val, x, incx, y, incy, alpha, beta

#define SPMV_KERNELS(P, T)                                                                                       \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_row_##P(SPMV_ARGS(T)) { spmv_row<T>(SPMV_PASS); } \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_vec2_##P(SPMV_ARGS(T)) { spmv_vec<T, 2>(SPMV_PASS); } \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_vec4_##P(SPMV_ARGS(T)) { spmv_vec<T, 4>(SPMV_PASS); } \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_vec8_##P(SPMV_ARGS(T)) { spmv_vec<T, 8>(SPMV_PASS); } \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_vec16_##P(SPMV_ARGS(T)) { spmv_vec<T, 16>(SPMV_PASS); } \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_vec32_##P(SPMV_ARGS(T)) { spmv_vec<T, 32>(SPMV_PASS); } \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_adapt_##P(int cap, const int* __restrict__ blocks, SPMV_ARGS(T)) { \
        (void)rows;                                                                                              \
        spmv_adapt<T, false>(cap, blocks, rp, col, val, x, incx, y, incy, alpha, beta);                          \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(SPMV_BLOCK) spmv_adapt16_##P(int cap, const int* __restrict__ blocks, SPMV_ARGS(T)) { \
        (void)rows;                                                                                              \
        spmv_adapt<T, true>(cap, blocks, rp, col, val, x, incx, y, incy, alpha, beta);                           \
    }

SPMV_KERNELS(s, float)
SPMV_KERNELS(d, double)
SPMV_KERNELS(c, cf32)
SPMV_KERNELS(z, cf64)
