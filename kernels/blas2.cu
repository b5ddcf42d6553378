// BLAS level 2 for s, d, c, z: gemv (N via row tiles x column splits, T/C via a warp per
// column with optional row splits; both finish with a deterministic reduction of the splits),
// ger/geru/gerc and syr/her (element-wise over one 16-byte pack per thread; syr/her pair
// columns j and n-1-j so no block falls outside the triangle), and the diagonal
// block solve of the blocked trsv (blocks of 32). symv/hemv read the stored triangle once in tiles
// (symv_tiles + symv_finish) or, for strided/unaligned operands, run the gemv kernels restricted to a triangle.
//
// Vectors: pointer to the lowest-addressed element, signed increment (BLAS convention).
// Triangle modes: 0 full, 1 lower (i >= j), 2 upper (i <= j), 3 strictly lower, 4 strictly upper.

#include "common.cuh"

#define B2_BLOCK 256

__device__ __forceinline__ void row_range(int mode, i64 j, i64 m, i64& lo, i64& hi) {
    lo = 0;
    hi = m;
    switch (mode) {
        case 1: lo = j; break;
        case 2: hi = j + 1 < m ? j + 1 : m; break;
        case 3: lo = j + 1; break;
        case 4: hi = j < m ? j : m; break;
        default: break;
    }
}

__device__ __forceinline__ float realpart(float v) { return v; }
__device__ __forceinline__ double realpart(double v) { return v; }
__device__ __forceinline__ cf32 realpart(cf32 v) { return {v.re, 0.0f}; }
__device__ __forceinline__ cf64 realpart(cf64 v) { return {v.re, 0.0}; }

template <class T> __device__ __forceinline__ T vec_at(const T* x, i64 n, i64 inc, i64 i) {
    return x[start_of(n, inc) + i * inc];
}

template <class T> __device__ __forceinline__ bool is_zero_t(T v);
template <> __device__ __forceinline__ bool is_zero_t(float v) { return v == 0.0f; }
template <> __device__ __forceinline__ bool is_zero_t(double v) { return v == 0.0; }
template <> __device__ __forceinline__ bool is_zero_t(cf32 v) { return v.re == 0.0f && v.im == 0.0f; }
template <> __device__ __forceinline__ bool is_zero_t(cf64 v) { return v.re == 0.0 && v.im == 0.0; }

// y[i] = alpha * s + beta * y[i] (y not read when beta == 0).
template <class T> __device__ __forceinline__ void axpby_store(T* y, i64 n, i64 incy, i64 i, T alpha, T s, T beta) {
    T* p = y + start_of(n, incy) + i * incy;
    *p = is_zero_t(beta) ? mul(alpha, s) : madd(alpha, s, mul(beta, *p));
}

// Loads through L2 only (data written by other blocks of the same launch).
__device__ __forceinline__ float ldcg_t(const float* p) { return __ldcg(p); }
__device__ __forceinline__ double ldcg_t(const double* p) { return __ldcg(p); }
__device__ __forceinline__ cf32 ldcg_t(const cf32* p) {
    float2 v = __ldcg(reinterpret_cast<const float2*>(p));
    return {v.x, v.y};
}
__device__ __forceinline__ cf64 ldcg_t(const cf64* p) {
    double2 v = __ldcg(reinterpret_cast<const double2*>(p));
    return {v.x, v.y};
}

// Whether this block is the last of `expected` blocks to arrive at `counter` (all of the block's
// threads get the answer; the last one resets the counter to zero for the next launch). Writes
// made by the block before the call are visible to the last block.
__device__ __forceinline__ bool last_block_of(unsigned* counter, unsigned expected) {
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned done = atomicAdd(counter, 1u);
        last = (done == expected - 1);
        if (last) *counter = 0u;
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

// ---------------------------------------------------------------------------------------------
// gemv N: block (tile of B2_BLOCK * V rows) x (split of the columns). V rows per thread: a
// 16-byte pack when VEC, else 1. splits == 1 writes y directly, else partials[split * m + i].
template <class T, bool VEC>
__device__ void gemvn_part(i64 m, i64 n, T alpha, const T* __restrict__ A, i64 lda, const T* __restrict__ x,
                           i64 incx, T beta, T* y, i64 incy, T* partials, unsigned* counters, int mode, int herm,
                           i64 cols_per_split) {
    constexpr int V = VEC ? Pack<T>::N : 1;
    const i64 i0 = ((i64)blockIdx.x * B2_BLOCK + threadIdx.x) * V;
    const i64 j0 = (i64)blockIdx.y * cols_per_split;
    const i64 j1 = min(n, j0 + cols_per_split);
    T acc[V];
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] = zero<T>();
    if (i0 < m) {
        const i64 sx = start_of(n, incx);
        if (VEC && mode == 0 && i0 + V <= m) {
            i64 j = j0;
            for (; j + 8 <= j1; j += 8) {
                Pack<T> a[8];
                T xv[8];
#pragma unroll
                for (int u = 0; u < 8; ++u) {
                    uint4 w = __ldcs(reinterpret_cast<const uint4*>(A + (j + u) * lda + i0));
                    a[u] = *reinterpret_cast<Pack<T>*>(&w);
                    xv[u] = x[sx + (j + u) * incx];
                }
#pragma unroll
                for (int u = 0; u < 8; ++u)
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[e] = madd(a[u].v[e], xv[u], acc[e]);
            }
            for (; j < j1; ++j) {
                const Pack<T> a = *reinterpret_cast<const Pack<T>*>(A + j * lda + i0);
                const T xv = x[sx + j * incx];
#pragma unroll
                for (int e = 0; e < V; ++e) acc[e] = madd(a.v[e], xv, acc[e]);
            }
        } else {
            for (i64 j = j0; j < j1; ++j) {
                i64 lo, hi;
                row_range(mode, j, m, lo, hi);
                const T xv = x[sx + j * incx];
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    const i64 i = i0 + e;
                    if (i < m && i >= lo && i < hi) {
                        T a = A[j * lda + i];
                        if (herm && i == j) a = realpart(a);
                        acc[e] = madd(a, xv, acc[e]);
                    }
                }
            }
        }
    }
    if (gridDim.y == 1) {
#pragma unroll
        for (int e = 0; e < V; ++e)
            if (i0 + e < m) axpby_store(y, m, incy, i0 + e, alpha, acc[e], beta);
        return;
    }
#pragma unroll
    for (int e = 0; e < V; ++e)
        if (i0 + e < m) partials[(i64)blockIdx.y * m + i0 + e] = acc[e];
    // The last split to finish for this row tile sums the splits in order and writes y.
    if (last_block_of(counters + blockIdx.x, gridDim.y)) {
#pragma unroll
        for (int e = 0; e < V; ++e) {
            const i64 i = i0 + e;
            if (i >= m) break;
            T s = zero<T>();
            for (unsigned k = 0; k < gridDim.y; ++k) s = add(s, ldcg_t(partials + (i64)k * m + i));
            axpby_store(y, m, incy, i, alpha, s, beta);
        }
    }
}

// gemv N, narrow tiles: a block covers RT*V rows and all n columns; its 256 threads form RT row
// lanes x CT = 256/RT column lanes. Each thread accumulates V rows over columns ct, ct+CT, ...;
// the CT partial sums are combined by a shared-memory tree (fixed order), so no partial sums go
// through global memory and no second pass is needed.
template <class T, bool VEC, bool TRI>
__device__ void gemvn_tile(i64 m, i64 n, T alpha, const T* __restrict__ A, i64 lda, const T* __restrict__ x, i64 incx,
                           T beta, T* y, i64 incy, int mode, int herm, int rt_lanes) {
    constexpr int V = VEC ? Pack<T>::N : 1;
    __shared__ T red[B2_BLOCK * V];
    const int RT = rt_lanes, CT = B2_BLOCK / rt_lanes;
    const int rt = threadIdx.x % RT, ct = threadIdx.x / RT;
    const i64 i0 = ((i64)blockIdx.x * RT + rt) * V;
    const i64 sx = start_of(n, incx);
    T acc[V];
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] = zero<T>();
    if (i0 < m) {
        if (VEC && i0 + V <= m) {
            // Columns whose rows i0..i0+V all lie in the triangle take the packed path; the (at
            // most V) columns crossing the diagonal take the element path.
            if (!TRI) mode = 0;
            i64 jlo = 0, jhi = n;
            if (mode == 1 || mode == 3) jhi = min(n, i0);
            else if (mode == 2 || mode == 4) jlo = min(n, i0 + V);
            i64 j = jlo + ((ct - jlo % CT) % CT + CT) % CT;
            for (; j + 3 * CT < jhi; j += 4 * CT) {
                Pack<T> a[4];
                T xv[4];
#pragma unroll
                for (int u = 0; u < 4; ++u) {
                    uint4 w = __ldcs(reinterpret_cast<const uint4*>(A + (j + u * CT) * lda + i0));
                    a[u] = *reinterpret_cast<Pack<T>*>(&w);
                    xv[u] = x[sx + (j + u * CT) * incx];
                }
#pragma unroll
                for (int u = 0; u < 4; ++u)
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[e] = madd(a[u].v[e], xv[u], acc[e]);
            }
            for (; j < jhi; j += CT) {
                const Pack<T> a = *reinterpret_cast<const Pack<T>*>(A + j * lda + i0);
                const T xv = x[sx + j * incx];
#pragma unroll
                for (int e = 0; e < V; ++e) acc[e] = madd(a.v[e], xv, acc[e]);
            }
            if (TRI && mode != 0) {
                for (i64 jj = i0; jj < min(n, i0 + V); ++jj) {
                    if (jj % CT != ct) continue;
                    i64 lo, hi;
                    row_range(mode, jj, m, lo, hi);
                    const T xv = x[sx + jj * incx];
#pragma unroll
                    for (int e = 0; e < V; ++e) {
                        const i64 i = i0 + e;
                        if (i >= lo && i < hi) {
                            T a = A[jj * lda + i];
                            if (herm && i == jj) a = realpart(a);
                            acc[e] = madd(a, xv, acc[e]);
                        }
                    }
                }
            }
        } else {
            for (i64 j = ct; j < n; j += CT) {
                i64 lo, hi;
                row_range(mode, j, m, lo, hi);
                const T xv = x[sx + j * incx];
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    const i64 i = i0 + e;
                    if (i < m && i >= lo && i < hi) {
                        T a = A[j * lda + i];
                        if (herm && i == j) a = realpart(a);
                        acc[e] = madd(a, xv, acc[e]);
                    }
                }
            }
        }
    }
#pragma unroll
    for (int e = 0; e < V; ++e) red[(ct * RT + rt) * V + e] = acc[e];
    __syncthreads();
    for (int s = CT / 2; s > 0; s >>= 1) {
        if (ct < s) {
#pragma unroll
            for (int e = 0; e < V; ++e) red[(ct * RT + rt) * V + e] = add(red[(ct * RT + rt) * V + e], red[((ct + s) * RT + rt) * V + e]);
        }
        __syncthreads();
    }
    if (ct == 0) {
#pragma unroll
        for (int e = 0; e < V; ++e)
            if (i0 + e < m) axpby_store(y, m, incy, i0 + e, alpha, red[rt * V + e], beta);
    }
}

// ---------------------------------------------------------------------------------------------
// gemv T/C, element path (any increments, triangle modes for symv/hemv): one warp per column j
// of A (y has n entries), rows split over gridDim.y.
template <class T>
__device__ void gemvt(i64 m, i64 n, T alpha, const T* __restrict__ A, i64 lda, const T* __restrict__ x, i64 incx,
                      T beta, T* y, i64 incy, T* partials, unsigned* counters, int conj_a, int mode, int herm,
                      i64 rows_per_split) {
    const int lane = threadIdx.x & 31;
    const i64 j = ((i64)blockIdx.x * B2_BLOCK + threadIdx.x) >> 5;
    T acc = zero<T>();
    if (j < n) {
        i64 lo, hi;
        row_range(mode, j, m, lo, hi);
        const i64 r0 = (i64)blockIdx.y * rows_per_split, r1 = min(m, r0 + rows_per_split);
        lo = max(lo, r0);
        hi = min(hi, r1);
        const T* col = A + j * lda;
        const i64 sx = start_of(m, incx);
        for (i64 k = lo + lane; k < hi; k += 32) {
            T a = col[k];
            if (herm && k == j) a = realpart(a);
            if (conj_a) a = conj(a);
            acc = madd(a, x[sx + k * incx], acc);
        }
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) acc = add(acc, shfl_down(acc, d));
    if (gridDim.y == 1) {
        if (lane == 0 && j < n) axpby_store(y, n, incy, j, alpha, acc, beta);
        return;
    }
    if (lane == 0 && j < n) partials[(i64)blockIdx.y * n + j] = acc;
    // The last row split to finish for these columns sums the splits in order and writes y.
    if (last_block_of(counters + blockIdx.x, gridDim.y)) {
        const i64 jj = (i64)blockIdx.x * (B2_BLOCK / 32) + threadIdx.x;
        if (threadIdx.x < B2_BLOCK / 32 && jj < n) {
            T s = zero<T>();
            for (unsigned k = 0; k < gridDim.y; ++k) s = add(s, ldcg_t(partials + (i64)k * n + jj));
            axpby_store(y, n, incy, jj, alpha, s, beta);
        }
    }
}

// gemv T/C, full matrix with 16-byte packs: one warp per PAIR of columns (2w, 2w+1), so each
// pack of x is loaded once for two columns and twice as many matrix loads are in flight.
template <class T, bool TRI>
__device__ void gemvt_pair(i64 m, i64 n, T alpha, const T* __restrict__ A, i64 lda, const T* __restrict__ x, T beta,
                           T* y, i64 incy, T* partials, unsigned* counters, int conj_a, int mode, int herm,
                           i64 rows_per_split) {
    constexpr int V = Pack<T>::N;
    const int lane = threadIdx.x & 31;
    const i64 j0 = (((i64)blockIdx.x * B2_BLOCK + threadIdx.x) >> 5) * 2;
    T acc0 = zero<T>(), acc1 = zero<T>();
    if (j0 < n) {
        const bool two = j0 + 1 < n;
        i64 r0 = (i64)blockIdx.y * rows_per_split, r1 = min(m, r0 + rows_per_split);
        const T* c0 = A + j0 * lda;
        const T* c1 = two ? c0 + lda : c0;
        // Rows of each column inside the triangle; packs wholly inside both take the packed path,
        // the few packs crossing a boundary (or holding a Hermitian diagonal) the element path.
        if (!TRI) mode = herm = 0;
        i64 lo0, hi0, lo1, hi1;
        row_range(mode, j0, m, lo0, hi0);
        row_range(mode, two ? j0 + 1 : j0, m, lo1, hi1);
        if (!two) {
            lo1 = lo0;
            hi1 = hi0;
        }
        const i64 lo_all = min(lo0, lo1), hi_all = max(hi0, hi1);
        const i64 lo_full = max(lo0, lo1), hi_full = min(hi0, hi1);
        r0 = max(r0, lo_all / V * V);
        r1 = min(r1, hi_all);
        auto elem = [&](i64 k) {
            if (k >= lo0 && k < hi0) {
                T a = c0[k];
                if (herm && k == j0) a = realpart(a);
                acc0 = madd(conj_a ? conj(a) : a, x[k], acc0);
            }
            if (two && k >= lo1 && k < hi1) {
                T a = c1[k];
                if (herm && k == j0 + 1) a = realpart(a);
                acc1 = madd(conj_a ? conj(a) : a, x[k], acc1);
            }
        };
        // A pack [p, p+V) is "clean" when inside both columns' ranges and free of diagonals.
        auto clean_span = [&](i64 p, i64 q) {  // every pack in [p, q)
            return p >= lo_full && q <= hi_full && (!herm || p > j0 + 1 || q <= j0);
        };
        auto clean = [&](i64 p) { return clean_span(p, p + V); };
        const i64 full_hi = r0 + (r1 - r0) / V * V;
        i64 i = r0 + lane * V;
        for (; i + 3 * 32 * V < full_hi; i += 4 * 32 * V) {
            if (!clean_span(i, i + 3 * 32 * V + V)) {
                for (int u = 0; u < 4; ++u) {
                    const i64 p = i + u * 32 * V;
                    if (clean(p)) {
                        const Pack<T> a0 = *reinterpret_cast<const Pack<T>*>(c0 + p);
                        const Pack<T> a1 = *reinterpret_cast<const Pack<T>*>(c1 + p);
                        const Pack<T> b = *reinterpret_cast<const Pack<T>*>(x + p);
#pragma unroll
                        for (int e = 0; e < V; ++e) {
                            acc0 = madd(conj_a ? conj(a0.v[e]) : a0.v[e], b.v[e], acc0);
                            acc1 = madd(conj_a ? conj(a1.v[e]) : a1.v[e], b.v[e], acc1);
                        }
                    } else {
                        for (int e = 0; e < V; ++e) elem(p + e);
                    }
                }
                continue;
            }
            Pack<T> a0[4], a1[4], b[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                uint4 w0 = __ldcs(reinterpret_cast<const uint4*>(c0 + i + u * 32 * V));
                uint4 w1 = __ldcs(reinterpret_cast<const uint4*>(c1 + i + u * 32 * V));
                a0[u] = *reinterpret_cast<Pack<T>*>(&w0);
                a1[u] = *reinterpret_cast<Pack<T>*>(&w1);
                b[u] = *reinterpret_cast<const Pack<T>*>(x + i + u * 32 * V);
            }
#pragma unroll
            for (int u = 0; u < 4; ++u)
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    acc0 = madd(conj_a ? conj(a0[u].v[e]) : a0[u].v[e], b[u].v[e], acc0);
                    acc1 = madd(conj_a ? conj(a1[u].v[e]) : a1[u].v[e], b[u].v[e], acc1);
                }
        }
        for (; i < full_hi; i += 32 * V) {
            if (!clean(i)) {
                for (int e = 0; e < V; ++e) elem(i + e);
                continue;
            }
            const Pack<T> a0 = *reinterpret_cast<const Pack<T>*>(c0 + i);
            const Pack<T> a1 = *reinterpret_cast<const Pack<T>*>(c1 + i);
            const Pack<T> b = *reinterpret_cast<const Pack<T>*>(x + i);
#pragma unroll
            for (int e = 0; e < V; ++e) {
                acc0 = madd(conj_a ? conj(a0.v[e]) : a0.v[e], b.v[e], acc0);
                acc1 = madd(conj_a ? conj(a1.v[e]) : a1.v[e], b.v[e], acc1);
            }
        }
        for (i64 k = full_hi + lane; k < r1; k += 32) elem(k);
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        acc0 = add(acc0, shfl_down(acc0, d));
        acc1 = add(acc1, shfl_down(acc1, d));
    }
    if (gridDim.y == 1) {
        if (lane == 0 && j0 < n) {
            axpby_store(y, n, incy, j0, alpha, acc0, beta);
            if (j0 + 1 < n) axpby_store(y, n, incy, j0 + 1, alpha, acc1, beta);
        }
        return;
    }
    if (lane == 0 && j0 < n) {
        partials[(i64)blockIdx.y * n + j0] = acc0;
        if (j0 + 1 < n) partials[(i64)blockIdx.y * n + j0 + 1] = acc1;
    }
    // The last row split to finish for these 16 columns sums the splits in order and writes y.
    if (last_block_of(counters + blockIdx.x, gridDim.y)) {
        const i64 jj = (i64)blockIdx.x * (B2_BLOCK / 16) + threadIdx.x;
        if (threadIdx.x < B2_BLOCK / 16 && jj < n) {
            T s = zero<T>();
            for (unsigned k = 0; k < gridDim.y; ++k) s = add(s, ldcg_t(partials + (i64)k * n + jj));
            axpby_store(y, n, incy, jj, alpha, s, beta);
        }
    }
}

// gemv T/C, full matrix with 16-byte packs, deep variant: one warp per C consecutive columns
// (blockDim.x / 32 warps per block), U packs per lane of each column and of x loaded before any
// is used, so each warp streams U * 512 contiguous bytes of each of its columns per pass and
// loads each pack of x once for C columns; rows split over gridDim.y.
template <class T, int C, int U>
__device__ void gemvt_col(i64 m, i64 n, T alpha, const T* __restrict__ A, i64 lda, const T* __restrict__ x, T beta,
                          T* y, i64 incy, T* partials, unsigned* counters, int conj_a, i64 rows_per_split) {
    constexpr int V = Pack<T>::N;
    const int lane = threadIdx.x & 31;
    const int wpb = (int)(blockDim.x >> 5);
    const i64 j0 = ((i64)blockIdx.x * wpb + (threadIdx.x >> 5)) * C;
    T acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) acc[c] = zero<T>();
    if (j0 < n) {
        const i64 r0 = (i64)blockIdx.y * rows_per_split, r1 = min(m, r0 + rows_per_split);
        // Columns past n re-read column j0 (their sums are dropped).
        const T* col[C];
#pragma unroll
        for (int c = 0; c < C; ++c) col[c] = A + (j0 + c < n ? j0 + c : j0) * lda;
        const i64 full_hi = r0 + (r1 - r0) / V * V;
        i64 i = r0 + lane * V;
        for (; i + (U - 1) * 32 * V < full_hi; i += U * 32 * V) {
            uint4 w[C][U];
            Pack<T> b[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
#pragma unroll
                for (int c = 0; c < C; ++c) w[c][u] = __ldcs(reinterpret_cast<const uint4*>(col[c] + i + u * 32 * V));
                b[u] = *reinterpret_cast<const Pack<T>*>(x + i + u * 32 * V);
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    const Pack<T> a = *reinterpret_cast<Pack<T>*>(&w[c][u]);
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[c] = madd(conj_a ? conj(a.v[e]) : a.v[e], b[u].v[e], acc[c]);
                }
        }
        for (; i < full_hi; i += 32 * V) {
            const Pack<T> b = *reinterpret_cast<const Pack<T>*>(x + i);
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const Pack<T> a = *reinterpret_cast<const Pack<T>*>(col[c] + i);
#pragma unroll
                for (int e = 0; e < V; ++e) acc[c] = madd(conj_a ? conj(a.v[e]) : a.v[e], b.v[e], acc[c]);
            }
        }
        for (i64 k = full_hi + lane; k < r1; k += 32)
#pragma unroll
            for (int c = 0; c < C; ++c) acc[c] = madd(conj_a ? conj(col[c][k]) : col[c][k], x[k], acc[c]);
    }
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) acc[c] = add(acc[c], shfl_down(acc[c], d));
    if (gridDim.y == 1) {
        if (lane == 0)
#pragma unroll
            for (int c = 0; c < C; ++c)
                if (j0 + c < n) axpby_store(y, n, incy, j0 + c, alpha, acc[c], beta);
        return;
    }
    if (lane == 0)
#pragma unroll
        for (int c = 0; c < C; ++c)
            if (j0 + c < n) partials[(i64)blockIdx.y * n + j0 + c] = acc[c];
    // The last row split to finish for these columns sums the splits in order and writes y.
    if (last_block_of(counters + blockIdx.x, gridDim.y)) {
        const i64 jj = (i64)blockIdx.x * wpb * C + threadIdx.x;
        if ((int)threadIdx.x < wpb * C && jj < n) {
            T t = zero<T>();
            for (unsigned k = 0; k < gridDim.y; ++k) t = add(t, ldcg_t(partials + (i64)k * n + jj));
            axpby_store(y, n, incy, jj, alpha, t, beta);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// ger / syr / her: A[i, j] += alpha * x[i] * op(y[j]) for (i, j) in the triangle `mode`; one
// 16-byte pack of a column per thread, blockIdx.x = column, blockIdx.y = row tile. herm: the
// diagonal's imaginary part is set to zero.
template <class T, bool VEC>
__device__ void rank1(i64 m, i64 n, T alpha, const T* __restrict__ x, i64 incx, const T* __restrict__ y, i64 incy,
                      T* A, i64 lda, int conj_y, int mode, int herm) {
    constexpr int V = VEC ? Pack<T>::N : 1;
    const i64 j = blockIdx.x;
    const i64 i0 = ((i64)blockIdx.y * B2_BLOCK + threadIdx.x) * V;
    i64 lo, hi;
    row_range(mode, j, m, lo, hi);
    if (i0 + V <= lo || i0 >= hi) return;
    T yj = vec_at(y, n, incy, j);
    if (conj_y) yj = conj(yj);
    const T ay = mul(alpha, yj);
    T* col = A + j * lda;
    if (VEC && i0 >= lo && i0 + V <= hi) {
        Pack<T> a;
        uint4 w = __ldcs(reinterpret_cast<const uint4*>(col + i0));
        a = *reinterpret_cast<Pack<T>*>(&w);
        Pack<T> xv = *reinterpret_cast<const Pack<T>*>(x + i0);
#pragma unroll
        for (int e = 0; e < V; ++e) {
            a.v[e] = madd(xv.v[e], ay, a.v[e]);
            if (herm && i0 + e == j) a.v[e] = realpart(a.v[e]);
        }
        __stcs(reinterpret_cast<uint4*>(col + i0), *reinterpret_cast<uint4*>(&a));
    } else {
        const i64 sx = start_of(m, incx);
#pragma unroll
        for (int e = 0; e < V; ++e) {
            const i64 i = i0 + e;
            if (i >= lo && i < hi) {
                T v = madd(x[sx + i * incx], ay, col[i]);
                if (herm && i == j) v = realpart(v);
                col[i] = v;
            }
        }
    }
}

// syr / her on a triangle with no empty blocks: columns p and n-1-p are paired so that their
// non-empty row tiles together number about T+1; block (p, y) takes tile y of that pair.
template <class T, bool VEC>
__device__ void rank1_pair(i64 n, T alpha, const T* __restrict__ x, i64 incx, T* __restrict__ A, i64 lda, int mode,
                           int herm) {
    constexpr int V = VEC ? Pack<T>::N : 1;
    const i64 TR = (i64)B2_BLOCK * V;
    const i64 T_ = (n + TR - 1) / TR;
    const i64 p = blockIdx.x;
    // tiles of column j holding triangle rows: lower [j, n) -> tiles j/TR .. T_-1; upper [0, j] -> 0 .. j/TR
    auto first_tile = [&](i64 j) { return mode == 1 ? j / TR : (i64)0; };
    auto count = [&](i64 j) { return mode == 1 ? T_ - j / TR : j / TR + 1; };
    i64 j = p, t = blockIdx.y;
    if (t >= count(p)) {
        t -= count(p);
        j = n - 1 - p;
        if (j == p || t >= count(j)) return;
    }
    t += first_tile(j);
    i64 lo, hi;
    row_range(mode, j, n, lo, hi);
    const i64 i0 = t * TR + (i64)threadIdx.x * V;
    if (i0 + V <= lo || i0 >= hi) return;
    const i64 sx = start_of(n, incx);
    T xj = x[sx + j * incx];
    if (herm) xj = conj(xj);
    const T ay = mul(alpha, xj);
    T* col = A + j * lda;
    if (VEC && i0 >= lo && i0 + V <= hi) {
        uint4 w = __ldcs(reinterpret_cast<const uint4*>(col + i0));
        Pack<T> a = *reinterpret_cast<Pack<T>*>(&w);
        const Pack<T> xp = *reinterpret_cast<const Pack<T>*>(x + i0);
#pragma unroll
        for (int e = 0; e < V; ++e) {
            a.v[e] = madd(xp.v[e], ay, a.v[e]);
            if (herm && i0 + e == j) a.v[e] = realpart(a.v[e]);
        }
        __stcs(reinterpret_cast<uint4*>(col + i0), *reinterpret_cast<uint4*>(&a));
    } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
            const i64 i = i0 + e;
            if (i >= lo && i < hi) {
                T v = madd(x[sx + i * incx], ay, col[i]);
                if (herm && i == j) v = realpart(v);
                col[i] = v;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Diagonal block of the blocked trsv: x[0..b) <- op(A)^{-1} x for a b x b triangle (b <= 32),
// one block of 32 threads. lower_eff: op(A) is lower triangular (forward substitution).
// trans: 0 N, 1 T, 2 C. The block is staged in shared memory as L[i][j] = op(A)[i][j].
#define TRSV_NB 32
template <class T>
__device__ void trsv_diag(int b, const T* __restrict__ A, i64 lda, T* x, i64 n, i64 incx, i64 first, int lower_eff,
                          int trans, int unit) {
    __shared__ T L[TRSV_NB][TRSV_NB + 1];
    __shared__ T xs[TRSV_NB];
    const int t = threadIdx.x;
    for (int k = t; k < b * b; k += blockDim.x) {
        const int i = k % b, j = k / b;  // element (i, j) of A's block, column-major
        T a = A[j * lda + i];
        if (trans == 2) a = conj(a);
        if (trans == 0) L[i][j] = a;
        else L[j][i] = a;
    }
    const i64 sx = start_of(n, incx);
    if (t < b) xs[t] = x[sx + (first + t) * incx];
    __syncthreads();
    for (int s = 0; s < b; ++s) {
        const int k = lower_eff ? s : b - 1 - s;
        if (t == 0 && !unit) {
            // xs[k] /= L[k][k]
            const T d = L[k][k];
            T v = xs[k];
            xs[k] = div_s(v, d);
        }
        __syncthreads();
        const bool below = lower_eff ? (t > k) : (t < k);
        if (t < b && below) xs[t] = madd(neg(L[t][k]), xs[k], xs[t]);
        __syncthreads();
    }
    if (t < b) x[sx + (first + t) * incx] = xs[t];
}

// ---------------------------------------------------------------------------------------------
// symv / hemv in one pass over the stored triangle. The triangle is cut into tiles of
// MB = 32·V·SYMV_R rows (each lane holds SYMV_R packs of V elements of every column, so a column
// of a tile is SYMV_R·512 contiguous bytes) by SYMV_NB = 32 columns; K = MB / 32 column tiles
// span one row tile. Block (I, c) takes the column tiles c·8 .. c·8 + 7 of row tile I's stored
// ones (lower: J = 0 .. (I+1)K - 1, upper: J = I·K .. end), one tile per warp. Each tile is read
// once and used twice: its rows give A_IJ·x_J (accumulated per lane, summed over the block's
// warps in shared memory and written to wrow[I][c]) and its columns give op(A_IJ)ᵀ·x_I (op =
// conj for hemv; reduced across the warp and written to wcol[I][J]). The K tiles that the
// diagonal crosses read only the stored triangle (the other is masked, never multiplied) and,
// for hemv, the real part of the diagonal. symv_finish then sums each row's partials in a fixed
// order: the result does not depend on scheduling. Requires 16-byte aligned columns
// (lda % V == 0) and a contiguous aligned x.
#define SYMV_WARPS 8
#define SYMV_R 2
#define SYMV_NB 32

// The pack of V elements at p, of which the first `valid` exist (the others read as zero).
template <class T, bool STREAM> __device__ __forceinline__ Pack<T> pack_upto(const T* p, i64 valid) {
    Pack<T> r;
    if (valid >= Pack<T>::N) {
        if (STREAM) *reinterpret_cast<uint4*>(&r) = __ldcs(reinterpret_cast<const uint4*>(p));
        else r = *reinterpret_cast<const Pack<T>*>(p);
    } else {
#pragma unroll
        for (int e = 0; e < Pack<T>::N; ++e) r.v[e] = e < valid ? p[e] : zero<T>();
    }
    return r;
}

// Sums s[u] (u = 0..7, one value per column of a group of 8) over the warp in 9 shuffles
// instead of 40: halving exchanges over lane bits 4, 3, 2 leave each lane one column, then two
// butterflies. Lane L ends with the total of column ((L >> 4) & 1)·4 + ((L >> 3) & 1)·2 +
// ((L >> 2) & 1); the four lanes of a column hold the same bits.
template <class T> __device__ __forceinline__ T warp_sum8(const T (&s)[8], int lane) {
    const bool b4 = lane & 16, b3 = lane & 8, b2 = lane & 4;
    T t[4], u[2];
#pragma unroll
    for (int k = 0; k < 4; ++k) t[k] = add(b4 ? s[k + 4] : s[k], shfl_xor_w(b4 ? s[k] : s[k + 4], 16, 32));
#pragma unroll
    for (int k = 0; k < 2; ++k) u[k] = add(b3 ? t[k + 2] : t[k], shfl_xor_w(b3 ? t[k] : t[k + 2], 8, 32));
    T v = add(b2 ? u[1] : u[0], shfl_xor_w(b2 ? u[0] : u[1], 4, 32));
    v = add(v, shfl_xor_w(v, 2, 32));
    return add(v, shfl_xor_w(v, 1, 32));
}

// One tile: the lane's packs of rows r0 + p·32·V + lane·V .. + V (p < SYMV_R), columns
// c0 .. c0 + SYMV_NB (those < n). Row sums accumulate in racc; the tile's column sums are
// stored to out[0 .. SYMV_NB). EDGE: the tile reaches past row or column n - 1, so loads are
// masked; otherwise every load is unconditional, which lets all of a group's loads be in
// flight before the first is used (a load under a branch is waited for where the branches
// join).
template <class T, bool DIAG, bool EDGE>
__device__ __forceinline__ void symv_tile(i64 n, const T* __restrict__ A, i64 lda, const T* __restrict__ x, i64 r0,
                                          i64 c0, const Pack<T> (&xi)[SYMV_R], int upper, int conj_a, int herm,
                                          T (&racc)[SYMV_R][Pack<T>::N], T* __restrict__ out) {
    constexpr int V = Pack<T>::N, R = SYMV_R, NB = SYMV_NB, U = 8;
    const int lane = threadIdx.x & 31;
    const i64 row = r0 + lane * V;  // the lane's first row
    const i64 cols = n - c0 < NB ? n - c0 : NB;
    const T* col0 = A + c0 * lda + row;
    const int mine = ((lane >> 4) & 1) * 4 + ((lane >> 3) & 1) * 2 + ((lane >> 2) & 1);
#pragma unroll
    for (int cb = 0; cb < NB; cb += U) {
        Pack<T> a[U][R];
        T xc[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int c = cb + u;
            if (!EDGE) {
#pragma unroll
                for (int p = 0; p < R; ++p)
                    *reinterpret_cast<uint4*>(&a[u][p]) =
                        __ldcs(reinterpret_cast<const uint4*>(col0 + c * lda + p * 32 * V));
                xc[u] = x[c0 + c];
            } else if (c < cols) {
#pragma unroll
                for (int p = 0; p < R; ++p) a[u][p] = pack_upto<T, true>(col0 + c * lda + p * 32 * V, n - row - p * 32 * V);
                xc[u] = x[c0 + c];
            } else {
                xc[u] = zero<T>();
#pragma unroll
                for (int p = 0; p < R; ++p)
#pragma unroll
                    for (int e = 0; e < V; ++e) a[u][p].v[e] = zero<T>();
            }
        }
        T s[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            s[u] = zero<T>();
#pragma unroll
            for (int p = 0; p < R; ++p)
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    T ae = a[u][p].v[e];
                    T at = conj_a ? conj(ae) : ae;
                    if (DIAG) {
                        const i64 r = row + p * 32 * V + e, c = c0 + cb + u;
                        const bool stored = upper ? r <= c : r >= c;
                        if (!stored) ae = at = zero<T>();
                        if (r == c) {
                            if (herm) ae = realpart(ae);
                            at = zero<T>();  // the diagonal counts once, in the row sums
                        }
                    }
                    racc[p][e] = madd(ae, xc[u], racc[p][e]);
                    s[u] = madd(at, xi[p].v[e], s[u]);
                }
        }
        const T v = warp_sum8(s, lane);
        if ((lane & 3) == 0) out[cb + mine] = v;
    }
}

template <class T>
__device__ void symv_tiles(i64 n, const T* __restrict__ A, i64 lda, const T* __restrict__ x, int upper, int conj_a,
                           int herm, T* __restrict__ wcol, T* __restrict__ wrow) {
    constexpr int V = Pack<T>::N, R = SYMV_R, MB = 32 * V * R, NB = SYMV_NB, K = MB / NB;
    __shared__ T red[SYMV_WARPS][MB];
    const i64 tc = (n + NB - 1) / NB;
    const i64 I = blockIdx.x, c = blockIdx.y;
    const i64 first = upper ? I * K : 0;
    const i64 count = upper ? tc - I * K : ((I + 1) * K < tc ? (I + 1) * K : tc);
    if (c * SYMV_WARPS >= count) return;  // the whole block: no tile of this row left
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    T racc[R][V];
#pragma unroll
    for (int p = 0; p < R; ++p)
#pragma unroll
        for (int e = 0; e < V; ++e) racc[p][e] = zero<T>();
    const i64 k = c * SYMV_WARPS + warp;
    if (k < count) {
        const i64 J = first + k;
        const i64 r0 = I * MB, c0 = J * NB;
        Pack<T> xi[R];
#pragma unroll
        for (int p = 0; p < R; ++p) {
            const i64 r = r0 + p * 32 * V + lane * V;
            xi[p] = pack_upto<T, false>(x + r, n - r);
        }
        T* out = wcol + (I * tc + J) * NB;
        const bool diag = J >= I * K && J < (I + 1) * K, edge = r0 + MB > n || c0 + NB > n;
        if (diag) {
            if (edge) symv_tile<T, true, true>(n, A, lda, x, r0, c0, xi, upper, conj_a, herm, racc, out);
            else symv_tile<T, true, false>(n, A, lda, x, r0, c0, xi, upper, conj_a, herm, racc, out);
        } else {
            if (edge) symv_tile<T, false, true>(n, A, lda, x, r0, c0, xi, upper, conj_a, herm, racc, out);
            else symv_tile<T, false, false>(n, A, lda, x, r0, c0, xi, upper, conj_a, herm, racc, out);
        }
    }
#pragma unroll
    for (int p = 0; p < R; ++p)
#pragma unroll
        for (int e = 0; e < V; ++e) red[warp][p * 32 * V + lane * V + e] = racc[p][e];
    __syncthreads();
    for (int t = threadIdx.x; t < MB; t += blockDim.x) {
        T sum = red[0][t];
#pragma unroll
        for (int w = 1; w < SYMV_WARPS; ++w) sum = add(sum, red[w][t]);
        wrow[(I * gridDim.y + c) * MB + t] = sum;
    }
}

// y ← α·(Σ partials) + β·y for each row: block Rb takes row tile Rb (MB rows); its threads are
// MB rows × (blockDim.x / MB) groups that each sum every g-th partial, then the groups are
// added in order. A row r gets the column sums of the tiles (S, r / 32) for every stored S
// and the row sums of the chunks of row tile Rb.
template <class T>
__device__ void symv_finish(i64 n, T alpha, T beta, T* y, i64 incy, int upper, const T* __restrict__ wcol,
                            const T* __restrict__ wrow, i64 chunks) {
    constexpr int V = Pack<T>::N, MB = 32 * V * SYMV_R, NB = SYMV_NB, K = MB / NB, G = B2_BLOCK / MB;
    static_assert(G >= 1, "a row tile must fit one block");
    __shared__ T part[G][MB];
    const i64 tr = (n + MB - 1) / MB, tc = (n + NB - 1) / NB;
    const i64 Rb = blockIdx.x;
    const int rr = threadIdx.x % MB, g = threadIdx.x / MB;
    const i64 r = Rb * MB + rr, jt = r / NB, jj = r % NB;
    const i64 count = upper ? tc - Rb * K : ((Rb + 1) * K < tc ? (Rb + 1) * K : tc);
    const i64 nchunks = (count + SYMV_WARPS - 1) / SYMV_WARPS;
    const i64 ncol = upper ? Rb + 1 : tr - Rb;  // row tiles whose columns give rows of Rb
    const i64 total = r < n ? ncol + nchunks : 0;
    T acc[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) acc[q] = zero<T>();
    // Item t < ncol: the column sums of tile (S, jt) (lower: S = Rb + t, upper: S = t);
    // item ncol + c: row chunk c of row tile Rb.
    for (i64 t0 = g; t0 < total; t0 += 4 * G) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const i64 t = t0 + q * G;
            if (t < total) {
                const T* p = t < ncol ? wcol + ((upper ? t : Rb + t) * tc + jt) * NB + jj
                                      : wrow + (Rb * chunks + (t - ncol)) * MB + rr;
                acc[q] = add(acc[q], *p);
            }
        }
    }
    part[g][rr] = add(add(acc[0], acc[1]), add(acc[2], acc[3]));
    __syncthreads();
    if (g == 0 && r < n) {
        T sum = part[0][rr];
#pragma unroll
        for (int h = 1; h < G; ++h) sum = add(sum, part[h][rr]);
        axpby_store(y, n, incy, r, alpha, sum, beta);
    }
}

// ---------------------------------------------------------------------------------------------
// The gemv T kernels (gemvt_pair*, gemvt_col*) carry an explicit minimum of one block per SM.
// Without a minimum, ptxas issues each 16-byte column load just before its FMA, leaving one load
// in flight per lane. With any explicit minimum it issues the loads as a group. On an H100 this
// took gemv T f64 n = 16384 from 1.01x to 0.99x of cuBLAS and n = 4096 from 0.97x to 0.94x.
// The gemv N kernels keep the default: the same change made them 4-6 % slower
// (docs/perf-notes.md, "gemv T/C").
// One warp per C columns, U loads of each column per lane and pass (gemvt_col), 4 warps a block.
#define GEMVT_COL(P, T, C, U)                                                                              \
    extern "C" __global__ void __launch_bounds__(128, 1)                                                   \
        gemvt_col##C##x##U##_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, T beta, T* y,     \
                                 i64 incy, T* partials, unsigned* counters, int conj_a, i64 rps) {         \
        gemvt_col<T, C, U>(m, n, alpha, A, lda, x, beta, y, incy, partials, counters, conj_a, rps);        \
    }

#define B2_KERNELS(P, T, SYMV_MINB)                                                                                \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        gemvn_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, i64 incx, T beta, T* y, i64 incy,  \
                  T* partials, unsigned* counters, int mode, int herm, i64 cps) {                                              \
        gemvn_part<T, false>(m, n, alpha, A, lda, x, incx, beta, y, incy, partials, counters, mode, herm, cps);      \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        gemvn_vec_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, i64 incx, T beta, T* y,       \
                      i64 incy, T* partials, unsigned* counters, int mode, int herm, i64 cps) {                                \
        gemvn_part<T, true>(m, n, alpha, A, lda, x, incx, beta, y, incy, partials, counters, mode, herm, cps);       \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        gemvn_tile_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, i64 incx, T beta, T* y,      \
                       i64 incy, int mode, int herm, int rt) {                                             \
        gemvn_tile<T, false, true>(m, n, alpha, A, lda, x, incx, beta, y, incy, mode, herm, rt);           \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        gemvn_tile_vec_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, i64 incx, T beta, T* y,  \
                           i64 incy, int mode, int herm, int rt) {                                         \
        gemvn_tile<T, true, false>(m, n, alpha, A, lda, x, incx, beta, y, incy, 0, 0, rt);                 \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        gemvn_tile_tri_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, i64 incx, T beta, T* y,  \
                           i64 incy, int mode, int herm, int rt) {                                         \
        gemvn_tile<T, true, true>(m, n, alpha, A, lda, x, incx, beta, y, incy, mode, herm, rt);            \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        gemvt_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, i64 incx, T beta, T* y, i64 incy,  \
                  T* partials, unsigned* counters, int conj_a, int mode, int herm, i64 rps) {                                  \
        gemvt<T>(m, n, alpha, A, lda, x, incx, beta, y, incy, partials, counters, conj_a, mode, herm, rps);   \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK, 1)                                              \
        gemvt_pair_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, T beta, T* y, i64 incy,      \
                       T* partials, unsigned* counters, int conj_a, int mode, int herm, i64 rps) {         \
        gemvt_pair<T, false>(m, n, alpha, A, lda, x, beta, y, incy, partials, counters, conj_a, 0, 0, rps);\
    }                                                                                                      \
    GEMVT_COL(P, T, 1, 16)                                                                                 \
    GEMVT_COL(P, T, 1, 32)                                                                                 \
    GEMVT_COL(P, T, 2, 8)                                                                                  \
    GEMVT_COL(P, T, 2, 16)                                                                                 \
    GEMVT_COL(P, T, 4, 8)                                                                                  \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK, 1)                                              \
        gemvt_pair_tri_##P(i64 m, i64 n, T alpha, const T* A, i64 lda, const T* x, T beta, T* y, i64 incy,  \
                           T* partials, unsigned* counters, int conj_a, int mode, int herm, i64 rps) {     \
        gemvt_pair<T, true>(m, n, alpha, A, lda, x, beta, y, incy, partials, counters, conj_a, mode, herm, \
                            rps);                                                                          \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        rank1_##P(i64 m, i64 n, T alpha, const T* x, i64 incx, const T* y, i64 incy, T* A, i64 lda,        \
                  int conj_y, int mode, int herm) {                                                        \
        rank1<T, false>(m, n, alpha, x, incx, y, incy, A, lda, conj_y, mode, herm);                        \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        rank1_vec_##P(i64 m, i64 n, T alpha, const T* x, i64 incx, const T* y, i64 incy, T* A, i64 lda,    \
                      int conj_y, int mode, int herm) {                                                    \
        rank1<T, true>(m, n, alpha, x, incx, y, incy, A, lda, conj_y, mode, herm);                         \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        rank1_pair_##P(i64 n, T alpha, const T* x, i64 incx, T* A, i64 lda, int mode, int herm) {          \
        rank1_pair<T, false>(n, alpha, x, incx, A, lda, mode, herm);                                       \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        rank1_pair_vec_##P(i64 n, T alpha, const T* x, i64 incx, T* A, i64 lda, int mode, int herm) {      \
        rank1_pair<T, true>(n, alpha, x, incx, A, lda, mode, herm);                                        \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(SYMV_WARPS * 32, SYMV_MINB)                                      \
        symv_tiles_##P(i64 n, const T* A, i64 lda, const T* x, int upper, int conj_a, int herm, T* wcol,    \
                       T* wrow) {                                                                          \
        symv_tiles<T>(n, A, lda, x, upper, conj_a, herm, wcol, wrow);                                      \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(B2_BLOCK)                                                 \
        symv_finish_##P(i64 n, T alpha, T beta, T* y, i64 incy, int upper, const T* wcol, const T* wrow,    \
                        i64 chunks) {                                                                      \
        symv_finish<T>(n, alpha, beta, y, incy, upper, wcol, wrow, chunks);                                \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(TRSV_NB)                                                  \
        trsv_diag_##P(int b, const T* A, i64 lda, T* x, i64 n, i64 incx, i64 first, int lower_eff,         \
                      int trans, int unit) {                                                               \
        trsv_diag<T>(b, A, lda, x, n, incx, first, lower_eff, trans, unit);                                \
    }

B2_KERNELS(s, float, 2)
B2_KERNELS(d, double, 2)
B2_KERNELS(c, cf32, 2)
B2_KERNELS(z, cf64, 2)
