// Kernels of one large dense matrix (crate dense-inverse): LU panel steps, row and column
// interchanges, triangular inverses and products of diagonal blocks, the Cholesky diagonal
// block, Hermitian mirroring, scans and norms, for s, d, c, z.
//
// Every matrix is column-major with a 64-bit leading dimension `ld`; element (i, j) is
// a[i + j * ld] with i64 arithmetic. Level-3 work (GEMM, TRSM, TRMM, SYRK/HERK) is done by
// cuBLAS between these launches; the kernels here are the panel, pivoting and diagonal-block
// steps around it.
//
// * getrf_pivot: one block; pivot search in column j (largest |re| + |im|, first on ties),
//   interchange of rows j and p inside the panel columns, scaling of the column below the
//   diagonal; records ipiv[j] (1-based) and the first zero pivot in info.
// * getrf_update: rank-1 update of the panel's columns right of j (a thread per row).
// * getrf_panel: the whole panel (pivot searches, interchanges, scaling, updates) in one
//   cooperative launch, the panel's rows spread over the blocks' shared memory, one grid-wide
//   barrier per column; getrf_panel_cl the same in one thread block cluster (sm_90), its
//   blocks exchanging pivots and rows through distributed shared memory after a cluster
//   barrier; getrf_panel_push the same with every block's items pushed into every block's
//   shared memory (st.async, counted on mbarriers), no barrier per column.
// * laswp_rows: LAPACK row interchanges ipiv[k1..k2) applied to columns outside a skipped range
//   (a thread per column).
// * permute_rows: gather / scatter of rows by a permutation (solves with few right-hand sides).
// * getri_save_l / swap_cols: the column steps of getri (swap_cols also ends Gauss-Jordan).
// * gj_save_rows: Gauss-Jordan's block-row save (a panel's pivot rows of the other columns
//   copied to a workspace and zeroed).
// * trtri_diag / lauum_diag / potrf_diag: one block per diagonal block (order <= 64), the
//   block staged in dynamic shared memory (trtri_diag: every diagonal block of a matrix at once).
// * bord_step / bord_finish: one step of the unblocked bordering inverse (a fused pass over the
//   triangle of the current inverse, then the next pivot beta).
// * mirror / zero_tri / herm_check / diag_gather / nonfinite_scan / col_norm1: small helpers.

#include "common.cuh"

// ---------------------------------------------------------------------------------------------
// Scalar helpers local to this file.


__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
__device__ __forceinline__ cf32 sub(cf32 a, cf32 b) { return {a.re - b.re, a.im - b.im}; }
__device__ __forceinline__ cf64 sub(cf64 a, cf64 b) { return {a.re - b.re, a.im - b.im}; }

__device__ __forceinline__ float re_of(float a) { return a; }
__device__ __forceinline__ double re_of(double a) { return a; }
__device__ __forceinline__ float re_of(cf32 a) { return a.re; }
__device__ __forceinline__ double re_of(cf64 a) { return a.re; }

__device__ __forceinline__ float im_of(float) { return 0.0f; }
__device__ __forceinline__ double im_of(double) { return 0.0; }
__device__ __forceinline__ float im_of(cf32 a) { return a.im; }
__device__ __forceinline__ double im_of(cf64 a) { return a.im; }

// A real value as T.
__device__ __forceinline__ float of_real(float, float r) { return r; }
__device__ __forceinline__ double of_real(double, double r) { return r; }
__device__ __forceinline__ cf32 of_real(cf32, float r) { return {r, 0.0f}; }
__device__ __forceinline__ cf64 of_real(cf64, double r) { return {r, 0.0}; }

// Modulus.
__device__ __forceinline__ float mod_of(float a) { return fabsf(a); }
__device__ __forceinline__ double mod_of(double a) { return fabs(a); }
__device__ __forceinline__ float mod_of(cf32 a) { return hypotf(a.re, a.im); }
__device__ __forceinline__ double mod_of(cf64 a) { return hypot(a.re, a.im); }


__device__ __forceinline__ bool eq(float a, float b) { return a == b; }
__device__ __forceinline__ bool eq(double a, double b) { return a == b; }
__device__ __forceinline__ bool eq(cf32 a, cf32 b) { return a.re == b.re && a.im == b.im; }
__device__ __forceinline__ bool eq(cf64 a, cf64 b) { return a.re == b.re && a.im == b.im; }

__device__ __forceinline__ i64 at(i64 i, i64 j, i64 ld) { return i + j * ld; }

// Largest non-negative value by bit pattern (valid for non-negative floats; NaN wins).
__device__ __forceinline__ void atomic_max_nonneg(float* p, float v) {
    atomicMax(reinterpret_cast<unsigned int*>(p), __float_as_uint(v));
}
__device__ __forceinline__ void atomic_max_nonneg(double* p, double v) {
    atomicMax(reinterpret_cast<unsigned long long*>(p), (unsigned long long)__double_as_longlong(v));
}

// ---------------------------------------------------------------------------------------------
// LU panel: pivot search, interchange inside the panel, scaling. One block, blockDim.x a power
// of two <= 1024 (the launch uses 512).

template <class T>
__device__ void getrf_pivot(T* a, i64 ld, int n, int j, int k, int kb, int* ipiv, int* info) {
    typedef typename Real<T>::type R;
    __shared__ R best_v[1024];
    __shared__ int best_i[1024];
    const int t = threadIdx.x;
    R bv = -1;
    int bi = j;
    const T* col = a + (i64)j * ld;
    for (int i = j + t; i < n; i += blockDim.x) {
        const R m = abs1(col[i]);
        if (m > bv) {  // rows visited in increasing order per thread: first on ties
            bv = m;
            bi = i;
        }
    }
    best_v[t] = bv;
    best_i[t] = bi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            const R v2 = best_v[t + s];
            const int i2 = best_i[t + s];
            if (v2 > best_v[t] || (v2 == best_v[t] && i2 < best_i[t])) {
                best_v[t] = v2;
                best_i[t] = i2;
            }
        }
        __syncthreads();
    }
    const int p = best_i[0];
    const bool zero_pivot = !(best_v[0] > 0);
    if (t == 0) {
        ipiv[j] = p + 1;
        if (zero_pivot && *info == 0) *info = j + 1;
    }
    if (zero_pivot) return;  // uniform: nothing to eliminate, no division
    if (p != j) {
        for (int c = k + t; c < k + kb; c += blockDim.x) {
            const T x = a[at(j, c, ld)];
            a[at(j, c, ld)] = a[at(p, c, ld)];
            a[at(p, c, ld)] = x;
        }
    }
    __syncthreads();
    const T r = div_s(one_t<T>(), a[at(j, j, ld)]);
    T* cj = a + (i64)j * ld;
    for (int i = j + 1 + t; i < n; i += blockDim.x) cj[i] = mul(cj[i], r);
}

// a[i, c] -= a[i, j] * a[j, c] for rows j < i < n and columns j < c < kend.
template <class T> __device__ void getrf_update(T* a, i64 ld, int n, int j, int kend) {
    for (int i = j + 1 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const T l = neg(a[at(i, j, ld)]);
        if (eq(l, zero<T>())) continue;
        for (int c = j + 1; c < kend; ++c) a[at(i, c, ld)] = madd(l, a[at(j, c, ld)], a[at(i, c, ld)]);
    }
}

// Row interchanges ipiv[k1..k2) (1-based rows), forward or backward, on columns
// [0, ncols) \ [skip0, skip1): a thread per column.
template <class T>
__device__ void laswp_rows(T* a, i64 ld, int ncols, int skip0, int skip1, const int* ipiv, int k1, int k2,
                           int backward) {
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < ncols; c += gridDim.x * blockDim.x) {
        if (c >= skip0 && c < skip1) continue;
        T* col = a + (i64)c * ld;
        if (!backward) {
            for (int p = k1; p < k2; ++p) {
                const int r = ipiv[p] - 1;
                if (r != p) {
                    const T x = col[p];
                    col[p] = col[r];
                    col[r] = x;
                }
            }
        } else {
            for (int p = k2 - 1; p >= k1; --p) {
                const int r = ipiv[p] - 1;
                if (r != p) {
                    const T x = col[p];
                    col[p] = col[r];
                    col[r] = x;
                }
            }
        }
    }
}

// dst[i, c] = src[perm[i], c] (gather) or dst[perm[i], c] = src[i, c] (scatter).
template <class T>
__device__ void permute_rows(const T* src, i64 lds, T* dst, i64 ldd, int n, int nrhs, const int* perm,
                             int scatter) {
    const i64 total = (i64)n * nrhs;
    for (i64 e = blockIdx.x * (i64)blockDim.x + threadIdx.x; e < total; e += (i64)gridDim.x * blockDim.x) {
        const int i = (int)(e % n), c = (int)(e / n);
        const int p = perm[i];
        if (scatter) dst[at(p, c, ldd)] = src[at(i, c, lds)];
        else dst[at(i, c, ldd)] = src[at(p, c, lds)];
    }
}

// getri: w[i, jj - j] = a[i, jj], a[i, jj] = 0 for j <= jj < j + jb, jj < i < n.
template <class T> __device__ void getri_save_l(T* a, i64 ld, int n, int j, int jb, T* w, i64 ldw) {
    const int jj = j + blockIdx.y;
    if (blockIdx.y >= jb) return;
    for (int i = jj + 1 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        w[at(i, jj - j, ldw)] = a[at(i, jj, ld)];
        a[at(i, jj, ld)] = zero<T>();
    }
}

// getri: columns interchanged back, j = n - 2 down to 0: swap columns j and ipiv[j] - 1.
// A thread per row.
template <class T> __device__ void swap_cols(T* a, i64 ld, int n, const int* ipiv) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        for (int j = n - 2; j >= 0; --j) {
            const int p = ipiv[j] - 1;
            if (p != j) {
                const T x = a[at(i, j, ld)];
                a[at(i, j, ld)] = a[at(i, p, ld)];
                a[at(i, p, ld)] = x;
            }
        }
    }
}

// Gauss-Jordan, panel k..k + kb of the n x n matrix a: w[r, c'] = a[k + r, c] and
// a[k + r, c] = 0 for 0 <= r < kb and every column c outside [k, k + kb), with c' = c (c < k)
// or c - kb (c >= k + kb); w is kb x (n - kb) at least. Consecutive threads take consecutive
// rows of a column.
template <class T> __device__ void gj_save_rows(T* a, i64 ld, int n, int k, int kb, T* w, i64 ldw) {
    const i64 total = (i64)kb * (n - kb);
    for (i64 e = blockIdx.x * (i64)blockDim.x + threadIdx.x; e < total; e += (i64)gridDim.x * blockDim.x) {
        const int r = (int)(e % kb), cw = (int)(e / kb);
        const int c = cw < k ? cw : cw + kb;
        w[at(r, cw, ldw)] = a[at(k + r, c, ld)];
        a[at(k + r, c, ld)] = zero<T>();
    }
}

// ---------------------------------------------------------------------------------------------
// Diagonal blocks (order nb <= 64, one block of threads, the block staged in shared memory).

// In-place inverse of every diagonal block of the n x n triangular matrix a: block b of the
// grid takes the block at (64 b, 64 b), of order nb = min(64, n - 64 b), staged in shared
// memory; a thread per column of the block's inverse computes it by substitution into a
// second shared array (leading dimension nb + 1, so the threads' columns fall in different
// banks) and writes it back. The other triangle and the off-diagonal blocks are not touched.
template <class T> __device__ void trtri_diag(T* a, i64 ld, int n, int upper) {
    extern __shared__ unsigned char smem_raw[];
    const int k = blockIdx.x * 64;
    const int nb = min(64, n - k);
    if (nb <= 0) return;
    a += (i64)k * ld + k;
    T* s = reinterpret_cast<T*>(smem_raw);
    T* xs = s + nb * nb;
    const int ldx = nb + 1;
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) s[e] = a[at(e % nb, e / nb, ld)];
    __syncthreads();
    const int j = threadIdx.x;
    if (j < nb) {
        T* x = xs + j * ldx;  // column j of the inverse
        x[j] = div_s(one_t<T>(), s[j + j * nb]);
        if (upper) {
            for (int i = j - 1; i >= 0; --i) {
                T acc = zero<T>();
                for (int p = i + 1; p <= j; ++p) acc = madd(s[i + p * nb], x[p], acc);
                x[i] = div_s(neg(acc), s[i + i * nb]);
            }
        } else {
            for (int i = j + 1; i < nb; ++i) {
                T acc = zero<T>();
                for (int p = j; p < i; ++p) acc = madd(s[i + p * nb], x[p], acc);
                x[i] = div_s(neg(acc), s[i + i * nb]);
            }
        }
    }
    __syncthreads();
    // Coalesced write-back of the inverted triangle (diagonal included).
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) {
        const int i = e % nb, jj = e / nb;
        if (upper ? i <= jj : i >= jj) a[at(i, jj, ld)] = xs[i + jj * ldx];
    }
}

// Lower triangle of M^H * M for the lower-triangular nb x nb block M, in place:
// R(i, j) = sum_{p >= i} conj(M(p, i)) M(p, j) for i >= j.
template <class T> __device__ void lauum_diag(T* a, i64 ld, int nb) {
    extern __shared__ unsigned char smem_raw[];
    T* s = reinterpret_cast<T*>(smem_raw);
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) s[e] = a[at(e % nb, e / nb, ld)];
    __syncthreads();
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) {
        const int i = e % nb, j = e / nb;
        if (i < j) continue;
        T acc = zero<T>();
        for (int p = i; p < nb; ++p) acc = madd(conj(s[p + i * nb]), s[p + j * nb], acc);
        a[at(i, j, ld)] = acc;
    }
}

// Cholesky of the lower triangle of an nb x nb diagonal block (earlier blocks' updates already
// applied); the first non-positive or non-finite pivot sets info = col0 + j + 1 (when info is
// still 0) and stops. Does nothing when info is already set.
template <class T> __device__ void potrf_diag(T* a, i64 ld, int nb, int col0, int* info) {
    typedef typename Real<T>::type R;
    extern __shared__ unsigned char smem_raw[];
    T* s = reinterpret_cast<T*>(smem_raw);
    __shared__ int failed;
    if (*info != 0) return;  // uniform
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) s[e] = a[at(e % nb, e / nb, ld)];
    if (threadIdx.x == 0) failed = 0;
    __syncthreads();
    // Right-looking: column j is final once the updates by the columns before it are in; its
    // pivot's square root, the column scaled, then the rank-1 update of the trailing lower
    // triangle: thread (row lane r, column group g) holds row i = r of every g-th column k,
    // with its multiplier s(i, j) read once. Two block barriers per column; s(j, j) is written
    // after the first, once every thread has read the pivot.
    const int lane = threadIdx.x & 63, groups = max(1, (int)blockDim.x >> 6), g = threadIdx.x >> 6;
    for (int j = 0; j < nb; ++j) {
        const R d = re_of(s[j + j * nb]);
        if (!(d > 0) || !isfinite(d)) {
            if (threadIdx.x == 0) {
                failed = 1;
                if (*info == 0) *info = col0 + j + 1;
            }
            break;  // uniform: every thread read the same d
        }
        const R ljj = sqrt(d);
        const R inv = (R)1 / ljj;
        for (int i = j + 1 + threadIdx.x; i < nb; i += blockDim.x) s[i + j * nb] = mul(s[i + j * nb], of_real(T(), inv));
        __syncthreads();
        if (threadIdx.x == 0) s[j + j * nb] = of_real(T(), ljj);
        const int i = lane;
        if (i > j && i < nb && g < groups) {
            const T lij = s[i + j * nb];
            for (int k = j + 1 + g; k <= i; k += groups) s[i + k * nb] = sub(s[i + k * nb], mul(lij, conj(s[k + j * nb])));
        }
        __syncthreads();
    }
    __syncthreads();
    if (failed) return;
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) {
        const int i = e % nb, j = e / nb;
        if (i >= j) a[at(i, j, ld)] = s[e];
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers on whole matrices (2-D grid-stride over (i, j)).

// Makes the n x n matrix exactly Hermitian from one triangle: from_upper ? a(i, j) =
// conj(a(j, i)) : a(j, i) = conj(a(i, j)) for i > j; the diagonal's imaginary part is dropped.
template <class T> __device__ void mirror(T* a, i64 ld, int n, int from_upper) {
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        for (int i = j + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
            if (i == j) {
                a[at(j, j, ld)] = of_real(T(), re_of(a[at(j, j, ld)]));
            } else if (from_upper) {
                a[at(i, j, ld)] = conj(a[at(j, i, ld)]);
            } else {
                a[at(j, i, ld)] = conj(a[at(i, j, ld)]);
            }
        }
    }
}

// Zeros the strict lower (lower != 0) or strict upper triangle.
template <class T> __device__ void zero_tri(T* a, i64 ld, int n, int lower) {
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        for (int i = j + 1 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
            if (lower) a[at(i, j, ld)] = zero<T>();
            else a[at(j, i, ld)] = zero<T>();
        }
    }
}

// *bad = 1 unless the matrix is exactly Hermitian with a real positive diagonal.
// Tile (bi, bj), bi >= bj, of 32 x 32 (one block of 256 threads): a(i, j) == conj(a(j, i))
// for the tile's entries below the diagonal, a(j, j) real and positive on it. Both tiles are
// read coalesced (the mirror one through shared memory); *bad = 1 on any mismatch.
constexpr int HERM_TILE = 32;
template <class T> __device__ void herm_check(const T* a, i64 ld, int n, int* bad) {
    __shared__ T mirror_s[HERM_TILE][HERM_TILE + 1];
    const int bi = blockIdx.x, bj = blockIdx.y;
    // Blocks placed after a mismatch was found have nothing to add (general input is
    // usually found out by the first off-diagonal tiles).
    if (bi < bj || *(volatile const int*)bad) return;
    const int c = threadIdx.x % HERM_TILE, r0 = threadIdx.x / HERM_TILE;
    // mirror_s[jj][ii] = a(bj*32 + c, bi*32 + rr): row index c runs fastest (coalesced).
    for (int rr = r0; rr < HERM_TILE; rr += 256 / HERM_TILE) {
        const int i = bj * HERM_TILE + c, j = bi * HERM_TILE + rr;
        if (i < n && j < n) mirror_s[c][rr] = a[at(i, j, ld)];
    }
    __syncthreads();
    bool ok = true;
    for (int cc = r0; cc < HERM_TILE; cc += 256 / HERM_TILE) {
        const int i = bi * HERM_TILE + c, j = bj * HERM_TILE + cc;
        if (i >= n || j >= n || i < j) continue;
        const T v = a[at(i, j, ld)];
        if (i == j) {
            ok = ok && im_of(v) == 0 && re_of(v) > 0;
        } else {
            // a(j, i) is mirror_s[cc][c] (its row j - bj*32 = cc, column i - bi*32 = c).
            ok = ok && eq(v, conj(mirror_s[cc][c]));
        }
    }
    if (!ok) *bad = 1;
}

// out[j] = a(j, j).
template <class T> __device__ void diag_gather(const T* a, i64 ld, int n, T* out) {
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) out[j] = a[at(j, j, ld)];
}

// The smallest i + j * m with a non-finite a(i, j) of the m x n matrix, in the part (0 all,
// 1 lower, 2 upper triangle; the triangles for square matrices).
template <class T>
__device__ void nonfinite_scan(const T* a, i64 ld, int m, int n, int part, unsigned long long* first) {
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        const int lo = part == 1 ? j : 0, hi = part == 2 ? min(j + 1, m) : m;
        for (int i = lo + blockIdx.x * blockDim.x + threadIdx.x; i < hi; i += gridDim.x * blockDim.x) {
            if (!finite_t(a[at(i, j, ld)])) atomicMin(first, (unsigned long long)i + (unsigned long long)j * m);
        }
    }
}

// *out = max_j sum_i |a(i, j)| (moduli; out starts at 0): a block per column, grid-stride.
template <class T> __device__ void col_norm1(const T* a, i64 ld, int m, int n, typename Real<T>::type* out) {
    typedef typename Real<T>::type R;
    __shared__ R part[256];
    for (int j = blockIdx.x; j < n; j += gridDim.x) {
        R s = 0;
        for (int i = threadIdx.x; i < m; i += blockDim.x) s += mod_of(a[at(i, j, ld)]);
        part[threadIdx.x] = s;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
            __syncthreads();
        }
        if (threadIdx.x == 0) atomic_max_nonneg(out, part[0]);
        __syncthreads();
    }
}

// ---------------------------------------------------------------------------------------------
// Unblocked bordering, one pass over the current inverse per step.
//
// With W the inverse of the leading m x m block in the upper triangle of a (order m = t - 1 at
// step t), q = -W r_m and beta = rho_m + Re(r_m^H q) from the previous step: bord_step makes
// W' = [[W + q q^H / beta, q / beta], [., 1 / beta]] (order m + 1; the triangle read and
// written once) and, reading the next border column r = a(0..m, m + 1) (has_r), accumulates
// y = W' r into y (zero on entry; atomics). bord_finish then forms q = -y, the next
// beta = rho + Re(r^H q) (one block) and records the first step whose |beta| <= thr (or is not
// finite) in flag (INT_MAX: none yet) with |beta| in fbeta; y is left zero.

__device__ __forceinline__ void atomic_add_t(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add_t(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add_t(cf32* p, cf32 v) {
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
}
__device__ __forceinline__ void atomic_add_t(cf64* p, cf64 v) {
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
}

// Sum over a warp (valid in lane 0; every lane must call).
template <class T> __device__ __forceinline__ T warp_sum_t(T v) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = add(v, shfl_down(v, d));
    return v;
}

// One halving step of warp_sum16: v[0..2H) becomes v[0..H), each the sum of this lane's and
// lane ^ 2H's values of one index (the lower H indices where bit 2H of the lane is clear, the
// upper H where it is set).
template <int H, class T> __device__ __forceinline__ void warp_halve(T (&v)[16], int lane) {
    const bool upper = (lane & (2 * H)) != 0;
#pragma unroll
    for (int k = 0; k < H; ++k) {
        const T send = upper ? v[k] : v[k + H];
        const T keep = upper ? v[k + H] : v[k];
        v[k] = add(keep, shfl_xor_w(send, 2 * H, 32));
    }
}

// Sixteen sums over a warp at once (every lane must call): afterwards v[0] in lanes l and
// l ^ 1 holds the sum over the warp of v[l >> 1]. 16 shuffles (per four bytes of T) where 16
// separate warp sums take 80.
template <class T> __device__ __forceinline__ void warp_sum16(T (&v)[16]) {
    const int lane = threadIdx.x & 31;
    warp_halve<8>(v, lane);
    warp_halve<4>(v, lane);
    warp_halve<2>(v, lane);
    warp_halve<1>(v, lane);
    v[0] = add(v[0], shfl_xor_w(v[0], 1, 32));
}

// v with its imaginary part dropped (a Hermitian matrix's diagonal).
template <class T> __device__ __forceinline__ T real_only(T v) { return of_real(v, re_of(v)); }

constexpr int BORD_TILE = 64;    // tile of the triangle: BORD_TILE x BORD_TILE, 256 threads
constexpr int BORD_GROUPS = 4;   // column groups of a tile (256 threads / BORD_TILE rows)
constexpr int BORD_CPT = BORD_TILE / BORD_GROUPS; // columns per thread (16, as warp_sum16 sums)
constexpr int BORD_BORDER = 256; // rows of the new border column per block
static_assert(BORD_GROUPS * BORD_TILE == 256 && BORD_GROUPS == 4 && BORD_CPT == 16,
              "bord_step: 256 threads, four row partials, 16 columns per thread as warp_sum16 sums");

// Tile (ti, tj), ti <= tj, of the upper triangle from its linear index k (column-major order
// of tiles: k = tj (tj + 1) / 2 + ti).
__device__ __forceinline__ void tri_tile(int k, int& ti, int& tj) {
    int j = (int)((sqrt(8.0 * (double)k + 1.0) - 1.0) * 0.5);
    while ((j + 1) * (j + 2) / 2 <= k) ++j;
    while (j * (j + 1) / 2 > k) --j;
    tj = j;
    ti = k - j * (j + 1) / 2;
}

template <class T>
__device__ void bord_step(T* a, i64 ld, int m, const T* __restrict__ q, const typename Real<T>::type* beta,
                          int has_r, T* y) {
    typedef typename Real<T>::type R;
    const R binv = (R)1 / *beta;
    const int tiles = (m + BORD_TILE - 1) / BORD_TILE;
    const int ntri = tiles * (tiles + 1) / 2;
    const T* r = a + (i64)(m + 1) * ld; // the next border column (rows 0..m), when has_r
    if ((int)blockIdx.x < ntri) {
        __shared__ T qj_s[BORD_TILE], rj_s[BORD_TILE];
        __shared__ T rowpart[BORD_GROUPS][BORD_TILE], colpart[2][BORD_TILE];
        // Odd steps visit the tiles in reverse order, so that a step starts on the tiles the
        // previous one touched last (the part of the triangle still in L2).
        const int kt = (m & 1) ? ntri - 1 - (int)blockIdx.x : (int)blockIdx.x;
        int ti, tj;
        tri_tile(kt, ti, tj);
        const int i0 = ti * BORD_TILE, j0 = tj * BORD_TILE;
        // Thread (li, g): row i0 + li, columns j0 + g + BORD_GROUPS k for k < BORD_CPT; a warp
        // is 32 consecutive rows of one column group.
        const int li = threadIdx.x % BORD_TILE, g = threadIdx.x / BORD_TILE, lane = threadIdx.x & 31;
        const int i = i0 + li;
        const bool row_ok = i < m;
        // All of the thread's elements are loaded before any is stored (a store to a could alias
        // a later load, so the compiler keeps loads after earlier stores): BORD_CPT loads in
        // flight per thread.
        T w[BORD_CPT];
#pragma unroll
        for (int k = 0; k < BORD_CPT; ++k) {
            const int j = j0 + g + BORD_GROUPS * k;
            w[k] = (row_ok && j < m && i <= j) ? a[i + (i64)j * ld] : zero<T>();
        }
        const T qi = row_ok ? mul(q[i], of_real(zero<T>(), binv)) : zero<T>();
        const T ri = (has_r && row_ok) ? r[i] : zero<T>();
        if (threadIdx.x < BORD_TILE) {
            const int j = j0 + threadIdx.x;
            qj_s[threadIdx.x] = j < m ? conj(q[j]) : zero<T>();
            rj_s[threadIdx.x] = (has_r && j < m) ? r[j] : zero<T>();
        }
        __syncthreads();
        // Update and store; w[k] becomes the element's part of its column sum
        // y_j += sum_{i < j} conj(w_ij) r_i (the strict upper part only), the row sum
        // y_i += sum_j w_ij r_j accumulates in yrow.
        T yrow = zero<T>();
#pragma unroll
        for (int k = 0; k < BORD_CPT; ++k) {
            const int c = g + BORD_GROUPS * k, j = j0 + c;
            T col = zero<T>();
            if (row_ok && j < m && i <= j) {
                T v = madd(qi, qj_s[c], w[k]);
                if (i == j) v = real_only(v);
                a[i + (i64)j * ld] = v;
                if (has_r) {
                    yrow = madd(v, rj_s[c], yrow);
                    if (i < j) col = mul(conj(v), ri);
                }
            }
            w[k] = col;
        }
        if (!has_r) return;
        // The warp's 32 rows of each of its 16 columns summed at once: column g + 4 (lane >> 1)
        // in the even lanes.
        warp_sum16(w);
        if ((lane & 1) == 0) colpart[li / 32][g + BORD_GROUPS * (lane >> 1)] = w[0];
        rowpart[g][li] = yrow;
        __syncthreads();
        if (threadIdx.x < BORD_TILE) {
            const int k = threadIdx.x;
            const int ir = i0 + k, jc = j0 + k;
            if (ir < m) atomic_add_t(&y[ir], add(add(rowpart[0][k], rowpart[1][k]), add(rowpart[2][k], rowpart[3][k])));
            if (jc < m) atomic_add_t(&y[jc], add(colpart[0][k], colpart[1][k]));
        }
        return;
    }
    // The new border: column m above the diagonal q / beta, a(m, m) = 1 / beta, and their part
    // of y: y_i += (q_i / beta) r_m, y_m += sum_i conj(q_i / beta) r_i + r_m / beta.
    __shared__ T part[BORD_BORDER / 32];
    const int kb = blockIdx.x - ntri;
    const int i = kb * BORD_BORDER + threadIdx.x;
    T colm = zero<T>();
    if (i < m) {
        const T c = mul(q[i], of_real(zero<T>(), binv));
        a[i + (i64)m * ld] = c;
        if (has_r) {
            atomic_add_t(&y[i], mul(c, r[m]));
            colm = mul(conj(c), r[i]);
        }
    }
    if (kb == 0 && threadIdx.x == 0) a[m + (i64)m * ld] = of_real(zero<T>(), binv);
    if (!has_r) return;
    colm = warp_sum_t(colm);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = colm;
    __syncthreads();
    if (threadIdx.x == 0) {
        T s = kb == 0 ? mul(r[m], of_real(zero<T>(), binv)) : zero<T>();
        for (int w = 0; w < BORD_BORDER / 32; ++w) s = add(s, part[w]);
        atomic_add_t(&y[m], s);
    }
}

template <class T>
__device__ void bord_finish(const T* a, i64 ld, int t, T* q, T* y, typename Real<T>::type* beta,
                            typename Real<T>::type thr, int* flag, typename Real<T>::type* fbeta) {
    typedef typename Real<T>::type R;
    __shared__ R part[32];
    const T* r = a + (i64)t * ld;
    R acc = 0;
    // Rows i = threadIdx.x + k blockDim.x in increasing k, in batches of U (32 bytes of y and
    // of r per thread) loaded before any is stored (q and y could alias the loads as far as the
    // compiler knows).
    constexpr int U = 32 / (int)sizeof(T);
    for (int base = 0; base < t; base += U * (int)blockDim.x) {
        T yv[U], rv[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const int i = base + k * (int)blockDim.x + (int)threadIdx.x;
            yv[k] = i < t ? y[i] : zero<T>();
            rv[k] = i < t ? r[i] : zero<T>();
        }
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const int i = base + k * (int)blockDim.x + (int)threadIdx.x;
            if (i < t) {
                const T qi = neg(yv[k]);
                q[i] = qi;
                y[i] = zero<T>();
                acc += re_of(mul(conj(rv[k]), qi));
            }
        }
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        R b = re_of(r[t]);
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) b += part[w];
        *beta = b;
        const R ab = b < 0 ? -b : b;
        if ((!(ab > thr) || !isfinite(b)) && *flag == 0x7fffffff) {
            *flag = t + 1;
            *fbeta = ab;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// bord_leaf: the inverse of an m x m (m <= 64) Hermitian diagonal block of the blocked bordering
// inverse, by the unblocked bordering steps in shared memory; one block of 256 threads, the
// block (its lower triangle taken as the Hermitian matrix, the diagonal's imaginary part dropped)
// staged in m * m elements of dynamic shared memory and written back in both triangles.
//
// Step t (W the inverse of the leading t x t block, r = column t above the diagonal, rho its
// diagonal entry): q = -W r, beta = rho + Re(r^H q), W += q q^H / beta, the border q / beta,
// (t, t) = 1 / beta. Thread (i, p) = (tid % 64, tid / 64) sums every fourth product of row i of
// W r; after one block barrier every warp adds the four partials of all 64 rows itself (two rows
// per lane), reduces beta with shuffles and keeps q in its own shared copy, so the update needs no
// second barrier before it; r and rho were read into registers before the barrier, as the update
// overwrites column t. Two block barriers per step.
//
// The first step (numbered from the whole matrix: step0 + t + 1) whose beta fails the test sets
// flag (INT_MAX: none yet) and fbeta = |beta|: |beta| <= thr or not finite, or with `positive`
// beta <= thr (not positive definite). A block launched with the flag already set does nothing.

template <class T>
__device__ void bord_leaf(T* a, i64 ld, int m, int step0, typename Real<T>::type thr, int positive, int* flag,
                          typename Real<T>::type* fbeta) {
    typedef typename Real<T>::type R;
    extern __shared__ unsigned char smem_raw[];
    T* s = reinterpret_cast<T*>(smem_raw);
    __shared__ T part[4 * 64];
    __shared__ T qw[8][64];
    if (*flag != 0x7fffffff) return;  // uniform
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (int e = tid; e < m * m; e += blockDim.x) {
        const int i = e % m, j = e / m;
        s[e] = i > j ? a[at(i, j, ld)] : (i == j ? real_only(a[at(i, i, ld)]) : conj(a[at(j, i, ld)]));
    }
    __syncthreads();
    const int row = tid & 63, p = tid >> 6;
    T* q = qw[warp];
    bool failed = false;
    for (int t = 0; t < m; ++t) {
        // r (rows lane and lane + 32 of column t) and rho, before the barrier.
        const T r0 = lane < t ? s[lane + t * m] : zero<T>();
        const T r1 = lane + 32 < t ? s[lane + 32 + t * m] : zero<T>();
        const R rho = re_of(s[t + t * m]);
        T acc = zero<T>();
        if (row < t)
            for (int k = p; k < t; k += 4) acc = madd(s[row + k * m], s[k + t * m], acc);
        part[p * 64 + row] = acc;
        __syncthreads();
        const T q0 = neg(add(add(part[lane], part[64 + lane]), add(part[128 + lane], part[192 + lane])));
        const T q1 = neg(add(add(part[32 + lane], part[96 + lane]), add(part[160 + lane], part[224 + lane])));
        R v = re_of(mul(conj(r0), q0)) + re_of(mul(conj(r1), q1));
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
        const R beta = rho + v;
        const R binv = (R)1 / beta;
        const T bi = of_real(T(), binv);
        q[lane] = q0;
        q[lane + 32] = q1;
        __syncwarp();
        if (tid == 0 && !failed) {
            const R ab = beta < 0 ? -beta : beta;
            const R tested = positive ? beta : ab;
            if (!(tested > thr) || !isfinite(beta)) {
                failed = true;
                *flag = step0 + t + 1;
                *fbeta = ab;
            }
        }
        // W(i, k) += (q_i / beta) conj(q_k); column t = q / beta, row t its conjugate.
        if (row <= t) {
            const T qbi = mul(q[row], bi);
            for (int k = p; k <= t; k += 4) {
                T w;
                if (row < t && k < t) w = madd(qbi, conj(q[k]), s[row + k * m]);
                else if (row < t) w = qbi;                    // k == t
                else if (k < t) w = conj(mul(q[k], bi));      // row == t
                else w = bi;
                s[row + k * m] = w;
            }
        }
        __syncthreads();
    }
    for (int e = tid; e < m * m; e += blockDim.x) a[at(e % m, e / m, ld)] = s[e];
}

// ---------------------------------------------------------------------------------------------
// getrf_panel: the LU with partial pivoting of the panel a(k..n, k..k+kb) in one cooperative
// launch, with one grid-wide barrier (grid_barrier) per column. Block b holds `rows`
// consecutive panel rows in shared memory (all kb columns).
//
// The grid size G is the host's choice, any G >= 1 whose blocks can all be resident:
// rows = ceil((n - k) / G), so the dynamic shared memory is (rows * kb + kb) elements; blocks
// whose first row is past n - 1 hold none; part_v / part_i need 2 G entries and rowbuf
// 2 (G + 1) kb. Every warp reduces the G partials after each barrier (ceil(G / 32) loads per
// lane), and a block's work per column grows with rows.
//
// Column j = k + c. Before barrier c every block publishes, from its rows as they are after
// its update by column j - 1: its argmax of column j over its rows >= j (largest |re| + |im|,
// the first row on ties) and a copy of that candidate row (all kb columns); the block holding
// row j also publishes row j. After barrier c every block reduces the partials to the same
// pivot p, in the same order as getrf_pivot, so the pivots are LAPACK's; takes row p from
// p's owner's candidate and row j from its copy, and interchanges the two among the rows it
// holds (row p becomes row j); scales its rows below j; applies the rank-1 update to their
// later panel columns, finding on the way its argmax of column j + 1; and publishes for
// column j + 1.
//
// Why one barrier per column suffices: what is published for column j (part_v, part_i,
// rowbuf, at the column's parity) is written only between barriers c - 1 and c and read only
// between barriers c and c + 1. The next writes of the same parity (for column j + 2) come
// after barrier c + 1, which no block passes before every block arrived there, i.e. finished
// its reads of column j. So a block is at most one column ahead of any other, and the two
// parities keep its writes for column j + 1 apart from the others' reads for column j.
// Published values are read past L1 (ld_cg): the same addresses are read again two columns
// later, after other blocks rewrote them.
//
// ipiv and info as getrf_pivot: ipiv[j] = p + 1; info the first j + 1 whose column has no
// entry with |re| + |im| > 0 (no scaling or update then); if no entry of the column compares at
// all (every one NaN), the pivot is row j itself, as in getrf_pivot. The panel is written
// back at the end.

// Warp-wide argmax of (v, i): every lane gets the best of the warp's pairs (largest v, then
// smallest i). v is never NaN, so the order is total and any reduction order gives the same.
template <class R> __device__ __forceinline__ void warp_argmax_all(R& v, int& i) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        const R v2 = __shfl_xor_sync(0xffffffffu, v, d);
        const int i2 = __shfl_xor_sync(0xffffffffu, i, d);
        better(v, i, v2, i2);
    }
}

// Block-wide argmax of (v, i); every thread gets the result. Writes red_v / red_i (one entry
// per warp) and synchronizes once: the caller synchronizes again before they are next written.
template <class R> __device__ __forceinline__ void block_argmax_all(R& v, int& i, R* red_v, int* red_i) {
    warp_argmax_all(v, i);
    if ((threadIdx.x & 31) == 0) {
        red_v[threadIdx.x >> 5] = v;
        red_i[threadIdx.x >> 5] = i;
    }
    __syncthreads();
    // Every warp reduces the warps' partials itself, a lane each (-1 / ROW_NONE is no
    // candidate), so no thread loops over them.
    const int lane = threadIdx.x & 31;
    const bool has = lane < (int)(blockDim.x >> 5);
    v = has ? red_v[lane] : R(-1);
    i = has ? red_i[lane] : ROW_NONE;
    warp_argmax_all(v, i);
}

// Barrier of the whole grid, for a cooperative launch (every block resident), in one word
// (the scheme of cooperative groups' grid sync): each block adds to bar[0] once, block 0 adds
// 2^31 - (gridDim.x - 1) and every other block 1, so one round adds exactly 2^31: the low 31
// bits return to zero and the top bit flips when, and only when, the last block arrives (before
// that the sum is short of 2^31 by at least one, which cannot carry into the top bit). A block
// waits until the top bit differs from the one its own add saw; it sees the flip one hop after
// the last arrival, with no reset and no second word. A block that passed may add for the next
// round while another still waits: its add cannot flip the bit back before the waiting block
// has passed and added too. Ordering: the block's writes before the barrier happen before
// thread 0's add (the first __syncthreads), which is a release at GPU scope (cumulative, so it
// carries them); thread 0's spin reads are acquires at GPU scope, so the read that sees the
// flip synchronizes with every block's release add, and the second __syncthreads carries that
// to the rest of the block. This replaces two sequentially consistent fences
// (__threadfence) around a relaxed add and volatile reads. bar[0]'s low 31 bits are zero
// between launches.
__device__ __forceinline__ void grid_barrier(unsigned* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
        unsigned old, now;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(bar), "r"(add) : "memory");
        do {
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(bar) : "memory");
        } while (((old ^ now) & 0x80000000u) == 0);
    }
    __syncthreads();
}

// Loads that bypass L1 (ld.global.cg): values other blocks of the same grid wrote since this
// block last read the address, which a cached L1 line could hide.
__device__ __forceinline__ float ld_cg(const float* p) { return __ldcg(p); }
__device__ __forceinline__ double ld_cg(const double* p) { return __ldcg(p); }
__device__ __forceinline__ int ld_cg(const int* p) { return __ldcg(p); }
__device__ __forceinline__ cf32 ld_cg(const cf32* p) {
    const float2 v = __ldcg(reinterpret_cast<const float2*>(p));
    return {v.x, v.y};
}
__device__ __forceinline__ cf64 ld_cg(const cf64* p) {
    const double2 v = __ldcg(reinterpret_cast<const double2*>(p));
    return {v.x, v.y};
}

// getrf_panel's publication for column j: the block's argmax partial (bv, bi) into part_v[b],
// part_i[b]; its candidate row bi (all kb columns) into pub[b * kb ..]; and, from the block
// holding row j, row j into pub[G * kb ..]. part_v, part_i and pub point at the column's
// parity. S is the block's rows r0..r1 (leading dimension `rows`).
template <class T, class R>
__device__ __forceinline__ void panel_publish(const T* S, int rows, int kb, int r0, int r1, int j, R bv, int bi,
                                              R* part_v, int* part_i, T* pub) {
    const int b = blockIdx.x, G = gridDim.x;
    if (threadIdx.x == 0) {
        part_v[b] = bv;
        part_i[b] = bi;
    }
    const bool has_cand = bi != ROW_NONE, has_j = j >= r0 && j < r1;
    for (int e = threadIdx.x; e < 2 * kb; e += blockDim.x) {
        if (e < kb) {
            if (has_cand) pub[(i64)b * kb + e] = S[(bi - r0) + e * rows];
        } else if (has_j) {
            pub[(i64)G * kb + (e - kb)] = S[(j - r0) + (e - kb) * rows];
        }
    }
}

// How getrf_panel's blocks exchange what they publish for a column, and wait for each other:
// through global memory and grid_barrier (PanelGrid, a cooperative launch of any size), or
// through their own shared memory, read by the others over distributed shared memory, and the
// hardware cluster barrier (PanelCluster, a launch of exactly one thread block cluster, sm_90).
// Either way: start() comes before the first publication; publish(par, ...) writes the
// column's items at parity par; after barrier(), partial / cand / jrow / load read them;
// finish() keeps a block's published items readable until every block is done with them.
template <class T> struct PanelGrid {
    typedef typename Real<T>::type R;
    static constexpr bool DEFER = false;
    R* part_v;
    int* part_i;
    T* rowbuf;
    unsigned* bar;
    int kb;
    __device__ i64 pub_len() const { return (i64)(gridDim.x + 1) * kb; }
    __device__ void barrier(int) const { grid_barrier(bar); }
    __device__ void publish(int par, const T* S, int rows, int r0, int r1, int j, R bv, int bi) const {
        const int G = gridDim.x;
        panel_publish(S, rows, kb, r0, r1, j, bv, bi, part_v + par * G, part_i + par * G, rowbuf + par * pub_len());
    }
    __device__ void partial(int par, int q, R& v, int& i) const {
        v = ld_cg(&part_v[par * gridDim.x + q]);
        i = ld_cg(&part_i[par * gridDim.x + q]);
    }
    __device__ const T* cand(int par, int q) const { return rowbuf + par * pub_len() + (i64)q * kb; }
    __device__ const T* jrow(int par, int) const { return rowbuf + par * pub_len() + (i64)gridDim.x * kb; }
    __device__ T load(const T* p) const { return ld_cg(p); }
    __device__ void start() const {}
    __device__ void finish() const {}
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Every block's own items in its dynamic shared memory after the panel rows: per parity the
// candidate row and row j (kb entries each), pulled by the others at the address mapped into
// this block's shared memory (mapa); and an inbox of every block's argmax partial per parity,
// which each block pushes into every block's inbox before the barrier, so that after it the
// partials are read from local shared memory. The grid is one cluster, so block q is cluster
// rank q. `light`: the barrier as the block's own barrier, one cluster-scope fence by thread 0
// and a relaxed arrival, instead of a release arrival by every thread.
template <class T> struct PanelCluster {
    typedef typename Real<T>::type R;
    static constexpr bool DEFER = false;
    T* rows2;  // [par][cand | row j][kb]
    R* inv;    // [par][CLUSTER_MAX]
    int* ini;  // [par][CLUSTER_MAX]
    int kb;
    int light;
    static constexpr int CLUSTER_MAX = 16;
    template <class U> __device__ static U* at_rank(U* p, int q) {
        unsigned long long out;
        asm volatile("mapa.u64 %0, %1, %2;" : "=l"(out) : "l"(p), "r"(q));
        return reinterpret_cast<U*>(out);
    }
    __device__ void barrier(int = 0) const {
        if (light) {
            __syncthreads();
            if (threadIdx.x == 0) asm volatile("fence.acq_rel.cluster;" ::: "memory");
            asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
        } else {
            asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
        }
    }
    __device__ void publish(int par, const T* S, int rows, int r0, int r1, int j, R bv, int bi) const {
        if (threadIdx.x < gridDim.x) {
            const int at = par * CLUSTER_MAX + blockIdx.x;
            *at_rank(inv + at, threadIdx.x) = bv;
            *at_rank(ini + at, threadIdx.x) = bi;
        }
        const bool has_cand = bi != ROW_NONE, has_j = j >= r0 && j < r1;
        T* out = rows2 + (i64)par * 2 * kb;
        for (int e = threadIdx.x; e < 2 * kb; e += blockDim.x) {
            if (e < kb) {
                if (has_cand) out[e] = S[(bi - r0) + e * rows];
            } else if (has_j) {
                out[e] = S[(j - r0) + (e - kb) * rows];
            }
        }
    }
    __device__ void partial(int par, int q, R& v, int& i) const {
        v = inv[par * CLUSTER_MAX + q];
        i = ini[par * CLUSTER_MAX + q];
    }
    __device__ const T* cand(int par, int q) const { return at_rank(rows2 + (i64)par * 2 * kb, q); }
    __device__ const T* jrow(int par, int owner) const { return at_rank(rows2 + (i64)par * 2 * kb + kb, owner); }
    __device__ T load(const T* p) const { return *p; }
    // Every block of the cluster has started before any block writes into another's shared
    // memory (the first publication pushes into every inbox).
    __device__ void start() const { barrier(); }
    __device__ void finish() const { barrier(); }
};

// PanelPush: the cluster exchange without any barrier or remote load per column. Each block
// pushes what it publishes for a column into every block's shared memory with st.async
// (16-byte chunks over distributed shared memory), whose completion counts bytes on the
// receiving block's mbarrier for the column's parity: its argmax partial, its candidate row
// (kb elements) and, from the block holding row j, row j. A block waits until its mbarrier has
// received every block's items (G partials and candidate rows, one row j); then the pivot
// search, the pivot row and row j read only its own shared memory. The wait (try_wait with
// acquire at cluster scope) pairs with the release of st.async's completion, so no fence is
// needed. Per parity the box holds 16 partial slots of 16 bytes, then 16 candidate rows and row
// j, each `pitch` bytes (kb elements rounded up to 16 bytes). A block pushes a column's items
// only after every block's items of the previous column reached it, and every block read its
// box of that parity two columns back before it pushed the previous column's items, so a box is
// never written while it is read.
template <class T> struct PanelPush {
    typedef typename Real<T>::type R;
    static constexpr bool DEFER = true;
    static constexpr int CLUSTER_MAX = 16;
    static constexpr int EPC = 16 / (int)sizeof(T);  // elements per 16-byte chunk
    unsigned char* box;        // [2][box_bytes]
    unsigned long long* mbar;  // [2]
    int kb;
    int pitch;      // bytes per row in the box
    int box_bytes;  // 16 * CLUSTER_MAX + (CLUSTER_MAX + 1) * pitch
    __device__ static unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
    __device__ static unsigned remote(unsigned a, int q) {
        unsigned out;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(a), "r"(q));
        return out;
    }
    __device__ T* row_slot(int par, int q) const {
        return reinterpret_cast<T*>(box + (i64)par * box_bytes + 16 * CLUSTER_MAX + (i64)q * pitch);
    }
    // Chunk u of local row r of S (zeros past kb, or everywhere when r < 0: no candidate).
    __device__ uint4 row_chunk(const T* S, int rows, int r, int u) const {
        union {
            uint4 v;
            T e[EPC];
        } out;
        out.v = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (int x = 0; x < EPC; ++x) {
            const int c = u * EPC + x;
            if (r >= 0 && c < kb) out.e[x] = S[r + (i64)c * rows];
        }
        return out.v;
    }
    __device__ void start() const {
        if (threadIdx.x == 0) {
            for (int b = 0; b < 2; ++b)
                asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(mbar + b)) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        }
        // Every block's mbarriers are initialized before any block pushes into it.
        asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    }
    // Column c's items: thread 0 arms the parity's mbarrier with the bytes to come (its only
    // arrival of the phase); every thread waits for the phase, (c >> 1) & 1, to complete.
    __device__ void barrier(int c) const {
        const unsigned mb = smem_u32(mbar + (c & 1));
        const unsigned bytes = gridDim.x * (16u + pitch) + pitch;
        if (threadIdx.x == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb), "r"(bytes) : "memory");
        const unsigned parity = (c >> 1) & 1;
        unsigned done;
        do {
            asm volatile(
                "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                "selp.u32 %0, 1, 0, p;\n\t}"
                : "=r"(done)
                : "r"(mb), "r"(parity)
                : "memory");
        } while (!done);
    }
    // Warp w pushes to blocks w, w + warps, ...: the partial, the candidate row and row j.
    __device__ void publish(int par, const T* S, int rows, int r0, int r1, int j, R bv, int bi) const {
        const int G = gridDim.x, b = blockIdx.x;
        const bool has_j = j >= r0 && j < r1;
        const int cw = pitch >> 4;
        const int items = 1 + cw + (has_j ? cw : 0);
        const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
        const unsigned base = smem_u32(box + (i64)par * box_bytes), mb = smem_u32(mbar + par);
        const int cand = bi == ROW_NONE ? -1 : bi - r0;
        for (int q = warp; q < G; q += nw) {
            const unsigned rbase = remote(base, q), rmb = remote(mb, q);
            for (int u = lane; u < items; u += 32) {
                uint4 v;
                unsigned dst;
                if (u == 0) {
                    union {
                        uint4 v;
                        struct {
                            R r;
                            int i;
                        } s;
                    } pk;
                    pk.v = make_uint4(0u, 0u, 0u, 0u);
                    pk.s.r = bv;
                    pk.s.i = bi;
                    v = pk.v;
                    dst = rbase + 16u * b;
                } else if (u <= cw) {
                    v = row_chunk(S, rows, cand, u - 1);
                    dst = rbase + 16u * CLUSTER_MAX + (unsigned)b * pitch + 16u * (u - 1);
                } else {
                    v = row_chunk(S, rows, j - r0, u - 1 - cw);
                    dst = rbase + 16u * CLUSTER_MAX + (unsigned)CLUSTER_MAX * pitch + 16u * (u - 1 - cw);
                }
                asm volatile(
                    "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(dst),
                    "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(rmb)
                    : "memory");
            }
        }
    }
    __device__ void partial(int par, int q, R& v, int& i) const {
        const unsigned char* at = box + (i64)par * box_bytes + 16 * q;
        v = *reinterpret_cast<const R*>(at);
        i = *reinterpret_cast<const int*>(at + sizeof(R));
    }
    __device__ const T* cand(int par, int q) const { return row_slot(par, q); }
    __device__ const T* jrow(int par, int) const { return row_slot(par, CLUSTER_MAX); }
    __device__ T load(const T* p) const { return *p; }
    // No block leaves while another may still address it (none does after its last wait, but
    // one cluster barrier per panel keeps that independent of the pushes' bookkeeping).
    __device__ void finish() const {
        asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    }
};
#endif

// The block of getrf_panel holding row k + x of a panel spread `rows` per block: x / rows by a
// float reciprocal (rrows = 1 / rows) and one correction step, instead of an integer division
// on each column's critical path (x < 2^24, so the float product is off by less than one).
__device__ __forceinline__ int owner_of(int x, int rows, float rrows) {
    int q = __float2int_rz((float)x * rrows);
    if (q * rows > x) --q;
    else if ((q + 1) * rows <= x) ++q;
    return q;
}

// One row of the panel's rank-1 update: row[t·rows] ← nl·pv[t] + row[t·rows] for t < w (four
// loaded before any is updated, so the shared-memory loads overlap), written only with
// `write`; `first` sees column 0's value (updated or not), for the next column's argmax.
template <class T, class F>
__device__ __forceinline__ void row_update(T* row, int rows, T nl, const T* pv, int w, bool write, F first) {
    constexpr int U = 4;
    for (int t = 0; t < w; t += U) {
        T v[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (t + u < w) v[u] = row[(i64)(t + u) * rows];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (t + u < w) {
                if (write) {
                    v[u] = madd(nl, pv[t + u], v[u]);
                    row[(i64)(t + u) * rows] = v[u];
                }
                if (t + u == 0) first(v[u]);
            }
        }
    }
}

template <class T, class C>
__device__ void getrf_panel_body(T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info, C comm, T* S,
                                 T* prow_at) {
    typedef typename Real<T>::type R;
    __shared__ R red_v[32];
    __shared__ int red_i[32];
    const int G = gridDim.x, b = blockIdx.x, tid = threadIdx.x, bd = blockDim.x, lane = tid & 31;
    const int m = n - k;
    const int rows = (m + G - 1) / G;
    const int r0 = k + b * rows;
    const int r1 = min(n, r0 + rows);
    const int nr = max(0, r1 - r0);  // blocks past the end hold no rows
    const float rrows = 1.0f / (float)rows;
    // S: nr x kb used, leading dimension rows; prow_at: the pivot row, kb entries (two for
    // C::DEFER).
    for (int e = tid; e < nr * kb; e += bd) {
        const int r = e % nr, c = e / nr;
        S[r + c * rows] = a[at(r0 + r, k + c, ld)];
    }
    __syncthreads();
    R bv = -1;
    int bi = ROW_NONE;
    for (int r = tid; r < nr; r += bd) better(bv, bi, abs1(S[r]), r0 + r);
    block_argmax_all(bv, bi, red_v, red_i);
    comm.start();
    comm.publish(0, S, rows, r0, r1, k, bv, bi);
    for (int c = 0; c < kb; ++c) {
        const int j = k + c, par = c & 1;
        // The pivot row; two of them by parity where the update runs after the publication
        // (a thread still updating by column c's pivot row while another has passed the next
        // column's wait and stores the next one).
        T* const prow = prow_at + (C::DEFER ? par * kb : 0);
        comm.barrier(c);
        // The pivot: every warp reduces all partials itself (no block synchronization), and
        // every warp of every block finds the same (p, value).
        R gv = -1;
        int gi = ROW_NONE;
        for (int q = lane; q < G; q += 32) {
            R v;
            int i;
            comm.partial(par, q, v, i);
            better(gv, gi, v, i);
        }
        warp_argmax_all(gv, gi);
        const int p = gi == ROW_NONE ? j : gi;
        const bool zero_piv = !(gv > 0);
        if (b == 0 && tid == 0) {
            ipiv[j] = p + 1;
            if (zero_piv && *info == 0) *info = j + 1;
        }
        // Row p as published by its owner (row j itself when p == j), and row j's copy.
        const T* jrow = comm.jrow(par, owner_of(j - k, rows, rrows));
        const T* prow_g = p == j ? jrow : comm.cand(par, owner_of(p - k, rows, rrows));
        const bool swap = p != j;
        const bool has_j = swap && j >= r0 && j < r1, has_p = swap && p >= r0 && p < r1;
        for (int cc = tid; cc < kb; cc += bd) {
            const T v = comm.load(&prow_g[cc]);
            prow[cc] = v;
            if (has_j) S[(j - r0) + cc * rows] = v;
            if (has_p) S[(p - r0) + cc * rows] = comm.load(&jrow[cc]);
        }
        __syncthreads();
        // Rows of this block below j: local rows lo..nr.
        const int lo = max(0, j + 1 - r0);
        const int cnt = max(0, nr - lo);
        const int w = kb - c - 1;
        bv = -1;
        bi = ROW_NONE;
        if (C::DEFER && 5 * cnt >= bd) {
            // Row-wise, with the bulk of the update after the publication: a thread per row
            // scales its multiplier and updates column c + 1 only; the block's candidate row and
            // row j + 1 (the rows this block publishes) get their later columns from a thread
            // per (row, column); the publication goes out; then every other row's later columns,
            // while the items travel (the next column's interchange touches only published
            // rows). The same operations on each element as below, so the same bits.
            const T rcp = zero_piv ? one_t<T>() : div_s(one_t<T>(), prow[c]);
            for (int r = lo + tid; r < nr; r += bd) {
                T l = S[r + c * rows];
                if (!zero_piv) {
                    l = mul(l, rcp);
                    S[r + c * rows] = l;
                }
                if (w > 0) {
                    T v = S[r + (i64)(c + 1) * rows];
                    if (!zero_piv) {
                        v = madd(neg(l), prow[c + 1], v);
                        S[r + (i64)(c + 1) * rows] = v;
                    }
                    better(bv, bi, abs1(v), r0 + r);
                }
            }
            if (w == 0) break;
            block_argmax_all(bv, bi, red_v, red_i);
            const int jn = j + 1;
            const int lc = bi == ROW_NONE ? -1 : bi - r0;
            const int lj = jn >= r0 && jn < r1 && jn != bi ? jn - r0 : -1;
            const int w2 = w - 1;
            if (!zero_piv && w2 > 0) {
                for (int e = tid; e < 2 * w2; e += bd) {
                    const int rl = e < w2 ? lc : lj;
                    if (rl < 0) continue;
                    const int cc = c + 2 + (e < w2 ? e : e - w2);
                    S[rl + (i64)cc * rows] = madd(neg(S[rl + (i64)c * rows]), prow[cc], S[rl + (i64)cc * rows]);
                }
            }
            __syncthreads();
            comm.publish(par ^ 1, S, rows, r0, r1, jn, bv, bi);
            if (!zero_piv && w2 > 0) {
                for (int r = lo + tid; r < nr; r += bd) {
                    if (r == lc || r == lj) continue;
                    row_update(S + r + (i64)(c + 2) * rows, rows, neg(S[r + c * rows]), prow + c + 2, w2, true,
                               [](T) {});
                }
            }
            continue;
        }
        if (5 * cnt >= bd) {
            // At least a fifth as many rows as threads: a thread per row scales its multiplier
            // and updates its row's later columns (four loaded before any is updated), with no
            // block barrier between scaling and update and each multiplier read once; the
            // same operations on each element as below, so the same bits.
            const T rcp = zero_piv ? one_t<T>() : div_s(one_t<T>(), prow[c]);
            for (int r = lo + tid; r < nr; r += bd) {
                T l = S[r + c * rows];
                if (!zero_piv) {
                    l = mul(l, rcp);
                    S[r + c * rows] = l;
                }
                row_update(S + r + (i64)(c + 1) * rows, rows, neg(l), prow + c + 1, w, !zero_piv,
                           [&](T v0) { better(bv, bi, abs1(v0), r0 + r); });
            }
            if (w == 0) break;
        } else {
            if (!zero_piv) {
                const T rcp = div_s(one_t<T>(), prow[c]);
                for (int r = lo + tid; r < nr; r += bd) S[r + c * rows] = mul(S[r + c * rows], rcp);
                __syncthreads();
            }
            if (w == 0) break;
            // Rank-1 update of columns c+1..kb of rows lo..nr (element e: row lo + e % cnt,
            // column c + 1 + e / cnt, stepped without dividing), and the argmax of column
            // c + 1 over them.
            if (cnt > 0) {
                // Four elements per pass, all loaded before any is updated: the shared-memory
                // loads of a thread's elements are independent, so they overlap instead of each
                // load-FMA-store waiting for the last (the same operations, so the same bits).
                constexpr int U = 4;
                const int total = cnt * w;
                TileWalk t(tid, bd, cnt);
                for (int e = tid; e < total; e += U * bd) {
                    int rr[U], cc[U];
                    T v[U], l[U], pv[U];
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        rr[u] = t.row;
                        cc[u] = t.col;
                        t.step();
                    }
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        if (e + u * bd < total) {
                            v[u] = S[(lo + rr[u]) + (c + 1 + cc[u]) * rows];
                            l[u] = S[(lo + rr[u]) + c * rows];
                            pv[u] = prow[c + 1 + cc[u]];
                        }
                    }
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        if (e + u * bd < total) {
                            if (!zero_piv) {
                                v[u] = madd(neg(l[u]), pv[u], v[u]);
                                S[(lo + rr[u]) + (c + 1 + cc[u]) * rows] = v[u];
                            }
                            if (cc[u] == 0) better(bv, bi, abs1(v[u]), r0 + lo + rr[u]);
                        }
                    }
                }
            }
        }
        block_argmax_all(bv, bi, red_v, red_i);
        comm.publish(par ^ 1, S, rows, r0, r1, j + 1, bv, bi);
    }
    comm.finish();
    __syncthreads();
    for (int e = tid; e < nr * kb; e += bd) {
        const int r = e % nr, c = e / nr;
        a[at(r0 + r, k + c, ld)] = S[r + c * rows];
    }
}

template <class T>
__device__ void getrf_panel(T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info,
                            typename Real<T>::type* part_v, int* part_i, T* rowbuf, unsigned* bar) {
    extern __shared__ unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int rows = (n - k + gridDim.x - 1) / gridDim.x;
    const PanelGrid<T> comm{part_v, part_i, rowbuf, bar, kb};
    getrf_panel_body<T>(a, ld, n, k, kb, ipiv, info, comm, S, S + (i64)rows * kb);
}

// getrf_panel_cl: getrf_panel in one thread block cluster (the grid is the cluster, of up to
// 16 blocks): the same rows per block, pivots, operations and results, with every published
// item in the publishing block's shared memory (dynamic shared memory: the rows, the pivot
// row, then PanelCluster's 4 kb elements and its inbox of 2 x 16 partials) and the cluster barrier in place of
// the grid's. Needs sm_90; elsewhere it traps (the host launches it only on sm_90).
template <class T>
__device__ void getrf_panel_cl(T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info, int light) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename Real<T>::type R;
    extern __shared__ unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int rows = (n - k + gridDim.x - 1) / gridDim.x;
    T* prow = S + (i64)rows * kb;
    T* rows2 = prow + kb;
    R* inv = reinterpret_cast<R*>(rows2 + 4 * kb);
    int* ini = reinterpret_cast<int*>(inv + 2 * PanelCluster<T>::CLUSTER_MAX);
    const PanelCluster<T> comm{rows2, inv, ini, kb, light};
    getrf_panel_body<T>(a, ld, n, k, kb, ipiv, info, comm, S, prow);
#else
    __trap();
#endif
}

// getrf_panel_push: getrf_panel_cl with PanelPush's exchange (st.async pushes counted on
// mbarriers, no cluster barrier per column). Dynamic shared memory: the rows and two pivot rows,
// then (from the next multiple of 16 bytes) the two boxes and the two mbarriers; the host
// passes pitch (kb elements rounded up to 16 bytes). Needs sm_90; elsewhere it traps.
template <class T>
__device__ void getrf_panel_push(T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info, int pitch) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int rows = (n - k + gridDim.x - 1) / gridDim.x;
    T* prow = S + (i64)rows * kb;  // two pivot rows, by parity
    const i64 head = (((i64)rows * kb + 2 * kb) * (i64)sizeof(T) + 15) / 16 * 16;
    const int box_bytes = 16 * PanelPush<T>::CLUSTER_MAX + (PanelPush<T>::CLUSTER_MAX + 1) * pitch;
    unsigned char* box = smem_raw + head;
    unsigned long long* mbar = reinterpret_cast<unsigned long long*>(box + 2 * (i64)box_bytes);
    const PanelPush<T> comm{box, mbar, kb, pitch, box_bytes};
    getrf_panel_body<T>(a, ld, n, k, kb, ipiv, info, comm, S, prow);
#else
    __trap();
#endif
}

// ---------------------------------------------------------------------------------------------
// Instantiations: extern "C" <op>_<prefix>.

#define DENSE(T, P)                                                                                          \
    extern "C" __global__ void __launch_bounds__(512)                                                        \
        getrf_pivot_##P(T* a, i64 ld, int n, int j, int k, int kb, int* ipiv, int* info) {                  \
        getrf_pivot<T>(a, ld, n, j, k, kb, ipiv, info);                                                      \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                                        \
        getrf_panel_##P(T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info, Real<T>::type* part_v,     \
                        int* part_i, T* rowbuf, unsigned* bar) {                                             \
        getrf_panel<T>(a, ld, n, k, kb, ipiv, info, part_v, part_i, rowbuf, bar);                            \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(512, 1)                                                     \
        getrf_panel_cl_##P(T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info, int light) {           \
        getrf_panel_cl<T>(a, ld, n, k, kb, ipiv, info, light);                                               \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(512, 1)                                                     \
        getrf_panel_push_##P(T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info, int pitch) {         \
        getrf_panel_push<T>(a, ld, n, k, kb, ipiv, info, pitch);                                             \
    }                                                                                                        \
    extern "C" __global__ void getrf_update_##P(T* a, i64 ld, int n, int j, int kend) {                      \
        getrf_update<T>(a, ld, n, j, kend);                                                                  \
    }                                                                                                        \
    extern "C" __global__ void laswp_rows_##P(T* a, i64 ld, int ncols, int skip0, int skip1, const int* ipiv, \
                                              int k1, int k2, int backward) {                                \
        laswp_rows<T>(a, ld, ncols, skip0, skip1, ipiv, k1, k2, backward);                                   \
    }                                                                                                        \
    extern "C" __global__ void permute_rows_##P(const T* src, i64 lds, T* dst, i64 ldd, int n, int nrhs,     \
                                                const int* perm, int scatter) {                              \
        permute_rows<T>(src, lds, dst, ldd, n, nrhs, perm, scatter);                                         \
    }                                                                                                        \
    extern "C" __global__ void getri_save_l_##P(T* a, i64 ld, int n, int j, int jb, T* w, i64 ldw) {         \
        getri_save_l<T>(a, ld, n, j, jb, w, ldw);                                                            \
    }                                                                                                        \
    extern "C" __global__ void swap_cols_##P(T* a, i64 ld, int n, const int* ipiv) {                         \
        swap_cols<T>(a, ld, n, ipiv);                                                                        \
    }                                                                                                        \
    extern "C" __global__ void gj_save_rows_##P(T* a, i64 ld, int n, int k, int kb, T* w, i64 ldw) {         \
        gj_save_rows<T>(a, ld, n, k, kb, w, ldw);                                                            \
    }                                                                                                        \
    extern "C" __global__ void trtri_diag_##P(T* a, i64 ld, int n, int upper) {                              \
        trtri_diag<T>(a, ld, n, upper);                                                                      \
    }                                                                                                        \
    extern "C" __global__ void lauum_diag_##P(T* a, i64 ld, int nb) { lauum_diag<T>(a, ld, nb); }            \
    extern "C" __global__ void potrf_diag_##P(T* a, i64 ld, int nb, int col0, int* info) {                   \
        potrf_diag<T>(a, ld, nb, col0, info);                                                                \
    }                                                                                                        \
    extern "C" __global__ void mirror_##P(T* a, i64 ld, int n, int from_upper) {                             \
        mirror<T>(a, ld, n, from_upper);                                                                     \
    }                                                                                                        \
    extern "C" __global__ void zero_tri_##P(T* a, i64 ld, int n, int lower) { zero_tri<T>(a, ld, n, lower); } \
    extern "C" __global__ void herm_check_##P(const T* a, i64 ld, int n, int* bad) {                         \
        herm_check<T>(a, ld, n, bad);                                                                        \
    }                                                                                                        \
    extern "C" __global__ void diag_gather_##P(const T* a, i64 ld, int n, T* out) {                          \
        diag_gather<T>(a, ld, n, out);                                                                       \
    }                                                                                                        \
    extern "C" __global__ void nonfinite_scan_##P(const T* a, i64 ld, int m, int n, int part,                \
                                                  unsigned long long* first) {                               \
        nonfinite_scan<T>(a, ld, m, n, part, first);                                                         \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                                        \
        bord_step_##P(T* a, i64 ld, int m, const T* q, const Real<T>::type* beta, int has_r, T* y) {         \
        bord_step<T>(a, ld, m, q, beta, has_r, y);                                                           \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(1024)                                                       \
        bord_finish_##P(const T* a, i64 ld, int t, T* q, T* y, Real<T>::type* beta, Real<T>::type thr,      \
                        int* flag, Real<T>::type* fbeta) {                                                   \
        bord_finish<T>(a, ld, t, q, y, beta, thr, flag, fbeta);                                              \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                                        \
        bord_leaf_##P(T* a, i64 ld, int m, int step0, Real<T>::type thr, int positive, int* flag,               \
                      Real<T>::type* fbeta) {                                                                \
        bord_leaf<T>(a, ld, m, step0, thr, positive, flag, fbeta);                                           \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                                        \
        col_norm1_##P(const T* a, i64 ld, int m, int n, Real<T>::type* out) {                                \
        col_norm1<T>(a, ld, m, n, out);                                                                      \
    }

DENSE(float, s)
DENSE(double, d)
DENSE(cf32, c)
DENSE(cf64, z)
