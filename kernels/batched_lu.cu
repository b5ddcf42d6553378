// Batched LU with partial pivoting, solves and inverses of many small matrices, for s, d, c, z.
//
// Matrices are column-major with leading dimension n. A batch is described by a uniform order
// and strides, or (variable-size batches) by per-matrix arrays of orders and offsets; a null
// array means "uniform".
//
// * n <= 32, uniform batches: `getrf_small` keeps a whole matrix in the registers of a group of
//   W = 4, 8, 16 or 32 lanes (one row per lane, 32 / W matrices per warp). Row interchanges cost
//   nothing: a lane only changes the logical position of the row it holds. For W = 32 the pivot
//   search is a hardware reduction (redux.sync); for W >= 16 the pivot row reaches the other
//   lanes through shared memory. `getri_small` gives each lane one column of the inverse and
//   reads the factors from shared memory. `getrs_small` gives lane i row i of the factors (N) or
//   column i (T, C) and solves the right-hand sides one at a time, x_j passed on by shuffles.
// * 32 < n <= 96 (f32; f64 and c64: 64, but c64 37..40), uniform batches, LU (`getrf_rows`):
//   the same layout over one block of one to three warps, one or two rows per thread, one block
//   barrier per column.
// * 32 < n <= 128 (f32: 192, c64: 160, c128: 112), uniform batches, inverse from the factors
//   (`getri_mid`): one block of 2 to 16 warps per matrix, the factors in shared memory, each
//   half-warp a set of columns of the inverse in registers (R = ⌈n / 16⌉ rows per lane; whole
//   warps for f64 97..104 and f32 above 128), with at most one block barrier after the loads
//   (U's columns divided by their diagonal: complex types, real ones from five rows per lane).
//   The columns are solved for as columns of L⁻¹ (then U⁻¹ L⁻¹, stored permuted), so the
//   forward substitution of column c starts at step c. f32 193..256, f64 180..192, c64
//   161..192 and c128 65..80 and 113..144: the same with one packed triangle of the factors in
//   shared memory at a time (L, then U) and two consecutive blocks per matrix; f64 and c64
//   193..256 and c128 161..192: four blocks per matrix, from f64 and c64 225 (c128: 161) each
//   triangle staged in two parts.
// * Every other case: one thread block per matrix (`getrf_blocked`), left-looking and blocked
//   by NB columns. The current panel (all n rows, NB columns) lives in shared memory; the
//   columns to its left are read from global memory (L2) by a register-tiled update (f64: on
//   the tensor cores). The panel itself is factored by one warp (real types) or by the whole
//   block (complex types). Row
//   interchanges are applied to the columns left of the panel when the panel is done (a
//   list of the rows they touch, a warp per column; c128: a thread per column stepping through
//   them), so those columns are always in LAPACK order and read coalesced; for
//   the columns right of it they are deferred: a permutation in shared memory maps logical
//   rows to stored rows, and each panel is gathered through it when it is loaded. f64 from 65
//   to 256 (`getrf_lookahead`): while warp 0 factors a panel, the other warps already solve the
//   next panel's rows above it, whose order no later interchange changes.
// * Solves of one right-hand side above n = 32 (two for some types and orders): a warp per (matrix,
//   right-hand side), streaming the factors (`getrs_warp`: column by column, the solution in registers;
//   orders past those, to 512: `getrs_tile`, a tile of columns at a time, the solution in shared memory).
// * Other solves and inverses (`getrs_blocked`, `getri_blocked`): one block per (matrix, chunk of NB
//   right-hand-side columns), the chunk in shared memory, blocked forward and backward
//   substitution with the same register-tiled update.

#include <type_traits>
#include <utility>

#include "common.cuh"

// ---------------------------------------------------------------------------------------------
// Scalar helpers (one, NaN, finiteness and zero tests are in common.cuh).

// op(v): v, or its conjugate for OP == 2.
template <int OP, class T> __device__ __forceinline__ T opc(T v) { return OP == 2 ? conj(v) : v; }


// ---------------------------------------------------------------------------------------------
// Batch descriptors: matrix k's order and offsets.

struct Batch {
    int n;             // order (uniform batches)
    i64 a_stride;      // elements between matrices of A (uniform)
    i64 x_stride;      // elements between right-hand sides / inverses (uniform)
    const int* ns;     // per-matrix orders, or null
    const i64* aoff;   // per-matrix offsets into A, or null
    const i64* poff;   // per-matrix offsets into the pivots, or null (then k * n)
    const i64* xoff;   // per-matrix offsets into B / Inv, or null
    __device__ int order(int k) const { return ns ? ns[k] : n; }
    __device__ i64 a_at(int k) const { return aoff ? aoff[k] : (i64)k * a_stride; }
    __device__ i64 p_at(int k) const { return poff ? poff[k] : (i64)k * n; }
    __device__ i64 x_at(int k) const { return xoff ? xoff[k] : (i64)k * x_stride; }
};

// ---------------------------------------------------------------------------------------------
// Validation, per matrix and with no host round trip: a matrix holding a NaN or an infinity is
// left as it was by the factorization; its pivots become 1..n and its info −1 − e, e the
// column-major position of its first non-finite entry. The register kernels (n <= 32, the
// block-register LU) and the f64 blocked kernel check the matrix they hold before their first
// store; for the other types' blocked kernels `nonfinite_info_scan` runs first, on the same
// stream, and the factorization skips the matrices it marked (checking inside cost those
// kernels 15-40 %, through their register allocation: docs/perf-notes.md, Batched LU
// Version 13). The solves and inverses give a matrix whose pivots leave 1..n NaN outputs, as
// they do for a singular one.

// "No bad position" for the min-reductions of the validation.
constexpr int NO_BAD = 0x7fffffff;

// The info of a matrix whose first non-finite entry is at column-major position e.
__device__ __forceinline__ int nonfinite_info(int e) { return -1 - e; }

// The smallest column-major position e = t0, t0 + nt, ... < nn of a non-finite element of
// the matrix a, or NO_BAD. Each thread has VAL_U loads in flight before it tests any of them
// (one at a time read the batch at 1.2–1.8 TB/s, four at 1.9–2.9 TB/s in the separate scan
// this replaced; docs/perf-notes.md, Version 8); its positions increase, so the first it
// finds is its smallest.
constexpr int VAL_U = 8;
template <class T> __device__ int first_nonfinite(const T* __restrict__ a, int nn, int t0, int nt) {
    for (int e0 = t0; e0 < nn; e0 += VAL_U * nt) {
        T v[VAL_U];
#pragma unroll
        for (int u = 0; u < VAL_U; ++u) v[u] = e0 + u * nt < nn ? a[e0 + u * nt] : zero<T>();
#pragma unroll
        for (int u = 0; u < VAL_U; ++u)
            if (!finite_t(v[u])) return e0 + u * nt;
    }
    return NO_BAD;
}

// `first_nonfinite` for `nonfinite_info_scan`, whose warps read whole matrices: 16-byte loads
// (the elements before the matrix's first 16-byte boundary and after its last one singly), VW
// of them in flight per lane, every position tested and the smallest kept. On an H200 the scan
// read c64 batches at 2.5–2.6 TB/s by single 8-byte loads and at 3.9–4.4 TB/s this way (four
// loads in flight), c128 at 3.5–3.6 and 4.2–4.5 (sixteen), f32 at 3.4–4.0 and 3.7–4.4 (four):
// docs/perf-notes.md, Batched LU Version 31.
template <class T> __host__ __device__ constexpr int scan_loads() { return sizeof(T) == 16 ? 16 : 4; }
template <class T> __device__ int first_nonfinite_wide(const T* __restrict__ a, int nn, int t0, int nt) {
    typedef Pack<T> PK;
    constexpr int E = PK::N, VW = scan_loads<T>();
    const unsigned mis = (unsigned)(reinterpret_cast<unsigned long long>(a) & 15ull);
    const int head = min(nn, (int)(((16u - mis) & 15u) / sizeof(T)));
    const int np = (nn - head) / E, tail = head + np * E;
    int bad = NO_BAD;
    for (int e = t0; e < head; e += nt)
        if (!finite_t(a[e])) bad = min(bad, e);
    const PK* p = reinterpret_cast<const PK*>(a + head);
    for (int q0 = t0; q0 < np; q0 += VW * nt) {
        PK v[VW];
#pragma unroll
        for (int u = 0; u < VW; ++u)
            if (q0 + u * nt < np) v[u] = p[q0 + u * nt];
#pragma unroll
        for (int u = 0; u < VW; ++u)
#pragma unroll
            for (int x = 0; x < E; ++x)
                if (q0 + u * nt < np && !finite_t(v[u].v[x])) bad = min(bad, head + (q0 + u * nt) * E + x);
    }
    for (int e = tail + t0; e < nn; e += nt)
        if (!finite_t(a[e])) bad = min(bad, e);
    return bad;
}

// The block-wide smallest of the threads' `bad` positions (every thread gets it), through the
// int at `slot` in shared memory, free for the caller's use around it. Only on the path of a
// matrix found bad: three barriers.
__device__ __forceinline__ int block_min_bad(int bad, int* slot) {
    if (threadIdx.x == 0) *slot = NO_BAD;
    __syncthreads();
    if (bad != NO_BAD) atomicMin(slot, bad);
    __syncthreads();
    const int e = *slot;
    __syncthreads();
    return e;
}

// One warp per matrix (grid-stride): info[k] = 0 for a finite matrix; for one with a non-finite
// entry, info[k] = −1 − e and pivots 1..n, the marks the blocked factorization of f32, c64 and
// c128 (`validate_inside` false) reads at its start. Every info entry is written.
template <class T>
__device__ void nonfinite_info_scan(const T* __restrict__ a, int* __restrict__ ipiv, int* __restrict__ info, Batch b,
                                    int batch) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int k = warp; k < batch; k += nwarps) {
        const int n = b.order(k);
        const unsigned e =
            __reduce_min_sync(0xffffffffu, (unsigned)first_nonfinite_wide(a + b.a_at(k), n * n, lane, 32));
        if (e != (unsigned)NO_BAD)
            for (int i = lane; i < n; i += 32) ipiv[b.p_at(k) + i] = i + 1;
        if (lane == 0) info[k] = e == (unsigned)NO_BAD ? 0 : nonfinite_info((int)e);
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the kernel families below.

// Where position r goes when positions a and b are exchanged (a row interchange followed by a
// row's logical position, or by the one of a column of Pᵀ).
__device__ __forceinline__ int swapped(int r, int a, int b) { return r == a ? b : (r == b ? a : r); }

// Visits the elements e = tid, tid + bd, ... < rows * cols of a rows x cols tile as (i, c) =
// (e % rows, e / rows), stepped without dividing, and copies v = get(i, c) to put(i, c, v). U
// elements per pass: all their loads are issued before any store, so a thread has U loads in
// flight instead of waiting for each (a load from global memory is hundreds of cycles).
template <int U, class T, class Get, class Put>
__device__ __forceinline__ void copy_tile(int rows, int cols, Get get, Put put) {
    if (rows <= 0 || cols <= 0) return;
    const int bd = blockDim.x, total = rows * cols;
    TileWalk t(threadIdx.x, bd, rows);
    for (int e = threadIdx.x; e < total; e += U * bd) {
        T v[U];
        int ii[U], cc[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            ii[u] = t.row;
            cc[u] = t.col;
            v[u] = e + u * bd < total ? get(t.row, t.col) : zero<T>();
            t.step();
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (e + u * bd < total) put(ii[u], cc[u], v[u]);
    }
}

// One element from global to shared memory by an asynchronous copy (cp.async: no register on
// the way, so every copy of a thread can be in flight at once), complete for the issuing thread
// at `cp_async_wait`.
template <class T> __device__ __forceinline__ void cp_async_elem(T* dst, const T* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src),
                 "n"((int)sizeof(T))
                 : "memory");
}
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// The thread's asynchronous copies issued so far closed as one group; and the wait for all but the
// N most recent groups (the copies of the older groups complete for the issuing thread).
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
// The dynamic shared memory the block was launched with, in bytes.
__device__ __forceinline__ unsigned dynamic_smem_bytes() {
    unsigned r;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}

// ---------------------------------------------------------------------------------------------
// n <= 32: a whole matrix in the registers of W lanes, one row per lane.

// The pivot search's key of a row: 0 for a row that is not a candidate, 1 for a NaN entry (only
// after an overflow: it ranks below every number, so a column of NaN pivots on its first
// candidate row), else 2 + the bits of |v|, which order non-negative floats as integers.
__device__ __forceinline__ unsigned long long pivot_key(double a1, bool cand) {
    return cand ? (a1 == a1 ? (unsigned long long)__double_as_longlong(a1) + 2ull : 1ull) : 0ull;
}
__device__ __forceinline__ unsigned long long pivot_key(float a1, bool cand) {
    return cand ? (a1 == a1 ? (unsigned long long)__float_as_uint(a1) + 2ull : 1ull) : 0ull;
}

// The smallest logical row `pos` among the lanes of the group (mask `gm`) whose key is the
// group's largest (LAPACK's i?amax: the first of equal entries wins), and that key. Every lane
// of the group gets the same result. Hardware reductions (redux.sync) instead of a shuffle
// tree: two or three instructions where the tree took 15 to 20 shuffles.
template <class R>
__device__ __forceinline__ int group_argmax(unsigned long long key, int pos, unsigned gm, unsigned long long& kmax) {
    unsigned hit;
    if (sizeof(R) == 8) {
        const unsigned hi = (unsigned)(key >> 32), lo = (unsigned)key;
        const unsigned mhi = __reduce_max_sync(gm, hi);
        const unsigned mlo = __reduce_max_sync(gm, hi == mhi ? lo : 0u);
        kmax = ((unsigned long long)mhi << 32) | mlo;
        hit = hi == mhi && lo == mlo;
    } else {
        const unsigned k32 = (unsigned)key;
        const unsigned m = __reduce_max_sync(gm, k32);
        kmax = m;
        hit = k32 == m;
    }
    return (int)__reduce_min_sync(gm, hit && key != 0ull ? (unsigned)pos : 0x7fffffffu);
}

// Runs f(c, j) for the steps j = 0, 1, .., n − 1 (DOWN: n − 1, .., 0) of a register kernel
// of width W in chunks of CH steps, c being the chunk's first step: a compile-time constant
// once the chunk loop is unrolled, while j inside a chunk is a loop variable (CH = 1: every
// step unrolled, j = c).
template <int W, int CH, bool DOWN, class F> __device__ __forceinline__ void chunked_steps(int n, F f) {
#pragma unroll
    for (int i = 0; i < W / CH; ++i) {
        const int c = DOWN ? W - CH - i * CH : i * CH;
        if constexpr (CH == 1) {
            if (c < n) f(c, c);
        } else if constexpr (DOWN) {
#pragma unroll 1
            for (int j = min(c + CH, n) - 1; j >= c; --j) f(c, j);
        } else {
            const int jend = min(c + CH, n);
#pragma unroll 1
            for (int j = c; j < jend; ++j) f(c, j);
        }
    }
}

// Element k of the register array x, and its store, for k in the chunk c..c + CH − 1 (c a
// compile-time constant once the chunk loop is unrolled, k not): a select over the chunk, so
// that x is only ever indexed by constants and stays in registers.
template <int CH, class T> __device__ __forceinline__ T chunk_get(const T* x, int c, int k) {
    T v = x[c];
#pragma unroll
    for (int i = c + 1; i < c + CH; ++i)
        if (i == k) v = x[i];
    return v;
}
template <int CH, class T> __device__ __forceinline__ void chunk_set(T* x, int c, int k, T v) {
#pragma unroll
    for (int i = c; i < c + CH; ++i)
        if (i == k) x[i] = v;
}

// Whether a chunked factorization step tests only its own chunk's columns against the step
// (`chunk_bound`): a step k of the chunk starting at c has k < c + CH, so the columns from
// c + CH on need no test, which ptxas does not find by itself (it tested every column of every
// step: an ISETP before each update). Measured (docs/perf-notes.md, Batched LU Version 24): the
// real types' row kernels 0.81–0.98 of the time, c128's 32-lane kernel 0.91; but c64's kernels
// 1.26–1.55, so c64 keeps the test of every column.
template <class T> __host__ __device__ constexpr bool is_c64() {
    return sizeof(T) == 8 && sizeof(typename Real<T>::type) == 4;
}
template <class T> __host__ __device__ constexpr bool chunk_bound() { return !is_c64<T>(); }

// The pivot search and the pivot row's broadcast of `getrf_small`, each in one of two forms
// (a compile-time choice per W, from the measurements in docs/perf-notes.md):
// * RED (only with SMEM): the argmax by hardware reductions (`group_argmax`), else by a shuffle
//   tree carrying (|v|, row, lane);
// * SMEM: the lane holding the pivot row writes its columns j.. to shared memory 16 bytes at a
//   time and the others read them back (two rows per group in `buf`, alternating by step), else
//   every element is shuffled from that lane.
//
// FULL: the order is W, a compile-time constant (the kernels `getrf_small_f<W>`): no test of a
// column or step against n is left in the code, a fifth to a quarter fewer instructions for the
// real types (docs/perf-notes.md, Batched LU Version 24).
template <class T, int W, bool RED, bool SMEM, int CH, bool FULL>
__device__ void getrf_small(T* __restrict__ a, int* __restrict__ ipiv, int* __restrict__ info, int batch, int n_arg,
                            i64 stride, T* __restrict__ buf) {
    const int n = FULL ? W : n_arg;
    typedef typename Real<T>::type R;
    constexpr bool CB = chunk_bound<T>();
    typedef Pack<T> PK;
    constexpr int E = PK::N;  // elements per 16 bytes
    static_assert(W % E == 0 && W <= 32, "W is 4, 8, 16 or 32");
    static_assert(SMEM || !RED, "the shuffled broadcast needs the shuffle tree's source lane");
    static_assert(W % CH == 0 && (CH == 1 || (SMEM && CH % E == 0)), "chunks of whole packs, SMEM only");
    const int gl = threadIdx.x % W, g = threadIdx.x / W;
    const unsigned gm = W == 32 ? 0xffffffffu : (((1u << W) - 1u) << ((threadIdx.x & 31) & ~(W - 1)));
    const int k = (int)(((i64)blockIdx.x * blockDim.x + threadIdx.x) / W);
    const bool live = k < batch;  // uniform within a group
    T* A = a + (live ? (i64)k * stride : 0);
    T* rb = buf + 2 * W * g;
    const bool row = live && gl < n;
    T r[W];
#pragma unroll
    for (int j = 0; j < W; ++j) r[j] = (row && j < n) ? A[gl + (i64)j * n] : zero<T>();
    int pos = gl, inf = 0, mypiv = 0;
    // Steps in chunks of CH: the first column c of a chunk is a compile-time constant, the step
    // j within it is not (CH = 1: every step unrolled). A step updates the columns c.. of its
    // chunk on, those at or left of j masked, so the code holds W / CH copies of a step instead
    // of W. Fully unrolled, the c128 32-lane kernel is 164 KB of code; in chunks of two steps
    // it is 112 KB and 36–41 % faster at n = 32 (docs/perf-notes.md, Batched LU Version 14).
    auto step = [&](const int c, const int j) {
        const T rj = chunk_get<CH>(r, c, j);
        // A NaN entry (only after an overflow) ranks below every number but above the
        // non-candidates, so a column of NaN pivots on its first candidate row, and every
        // lane of the group ends the search with the same pivot row p.
        const R a1 = abs1(rj);
        const bool cand = row && pos >= j;
        int p, src = gl;
        bool zero_pivot;
        if constexpr (RED) {
            unsigned long long kmax;
            p = group_argmax<R>(pivot_key(a1, cand), pos, gm, kmax);
            zero_pivot = kmax == 2ull;
        } else {
            R v = cand ? (a1 == a1 ? a1 : (R)-0.5) : (R)-1;
            p = cand ? pos : ROW_NONE;
#pragma unroll
            for (int off = W / 2; off > 0; off >>= 1) {
                const R v2 = shfl_xor_w(v, off, W);
                const int p2 = __shfl_xor_sync(0xffffffffu, p, off, W);
                const int s2 = __shfl_xor_sync(0xffffffffu, src, off, W);
                if (v2 > v || (v2 == v && p2 < p)) {
                    v = v2;
                    p = p2;
                    src = s2;
                }
            }
            zero_pivot = v == (R)0;
        }
        if (zero_pivot && inf == 0) inf = j + 1;
        if (row && gl == j) mypiv = p + 1;
        T* rbj = rb + (j & 1) * W;
        if constexpr (SMEM) {
            if (row && pos == p) {
                // CH = 1: from j's pack; else from the chunk's first.
#pragma unroll
                for (int q = c / E; q < W / E; ++q) {
                    if (CH == 1 && q < j / E) continue;
                    PK v;
#pragma unroll
                    for (int e = 0; e < E; ++e) v.v[e] = r[q * E + e];
                    reinterpret_cast<PK*>(rbj)[q] = v;
                }
            }
            __syncwarp();
        }
        pos = swapped(pos, p, j);
        const bool below = row && pos > j;
        T l = rj;
        if constexpr (SMEM) {
            // 16 bytes at a time, each pack read right before its updates, so the row never
            // sits in registers twice.
            const PK* pr = reinterpret_cast<const PK*>(rbj);
            const T piv = reinterpret_cast<const T*>(rbj)[j];
            if (below && !is_zero_v(piv)) l = div_s(l, piv);
            if (below) chunk_set<CH>(r, c, j, l);
            const T nl = neg(l);
#pragma unroll
            for (int q = c / E; q < W / E; ++q) {
                if (q * E >= n) break;
                if (CH == 1 && q < j / E) continue;
                const PK v = pr[q];
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    const int jj = q * E + e;
                    if (((CB && jj >= c + CH) || jj > j) && jj < n && below) r[jj] = madd(nl, v.v[e], r[jj]);
                }
            }
        } else {
            const T piv = shfl_idx(r[j], src, W);
            if (below && !is_zero_v(piv)) l = div_s(l, piv);
            if (below) r[j] = l;
            const T nl = neg(l);
#pragma unroll
            for (int jj = j + 1; jj < W; ++jj) {
                if (jj < n) {
                    const T u = shfl_idx(r[jj], src, W);
                    if (below) r[jj] = madd(nl, u, r[jj]);
                }
            }
        }
    };
    chunked_steps<W, CH, false>(n, step);
    // Validation after the steps, so that it holds no register through them: every step keeps a
    // NaN or an infinity in the slot it started in (x − y, x·y and x / y are non-finite when x
    // is, and a zero pivot divides nothing), so a matrix with a non-finite entry has one in its
    // factors. Only then is the matrix, not yet written, read again to tell non-finite input
    // (left as it was) from an overflow of finite input (stored, as LAPACK does).
    unsigned bad_e = NO_BAD;
    bool nf = false;
#pragma unroll
    for (int j = 0; j < W; ++j) nf |= row && j < n && !finite_t(r[j]);
    if ((__ballot_sync(0xffffffffu, nf) & gm) != 0u) {
        for (int j = n - 1; row && j >= 0; --j)
            if (!finite_t(A[gl + (i64)j * n])) bad_e = gl + j * n;
        bad_e = __reduce_min_sync(gm, bad_e);
    }
    if (row && bad_e != NO_BAD) {
        ipiv[(i64)k * n + gl] = gl + 1;
        if (gl == 0) info[k] = nonfinite_info((int)bad_e);
    } else if (row) {
#pragma unroll
        for (int j = 0; j < W; ++j)
            if (j < n) A[pos + (i64)j * n] = r[j];
        ipiv[(i64)k * n + gl] = mypiv;
        if (gl == 0) info[k] = inf;
    }
}

// Solves op(A_k)·x = b from the factors for n <= 32 (`getrs_small`): a group of W lanes per
// (matrix k, chunk of `cpg` right-hand-side columns), the chunks' columns one after another.
// Lane i holds, in registers, row i of the factors (OP 0) or column i, conjugated for OP 2, and
// x_i. OP 0: x_i starts as b at the row the interchanges bring to i, then L·y = P^T·b forward
// and U·x = y backward. OP 1, 2: op(A) = op(U)·op(L)·P^T, so op(U)·z = b forward (lane i holds
// column i of U, i.e. row i of op(U)), op(L)·w = z backward, and x = P·w by one shuffle. Each
// substitution step passes the step's final x_j to the group by a shuffle; the diagonal
// division is done by lane j alone. A matrix with a non-zero `info` (when given) or a pivot
// outside 1..n gets NaN in every column.
template <class T, int W, int OP>
__device__ void getrs_small(const T* __restrict__ a, const int* __restrict__ ipiv, const int* __restrict__ info,
                            T* __restrict__ x, int nrhs, int cpg, int batch, int n, i64 a_stride, i64 x_stride) {
    const int gl = threadIdx.x % W;
    const unsigned gm = W == 32 ? 0xffffffffu : (((1u << W) - 1u) << ((threadIdx.x & 31) & ~(W - 1)));
    const i64 gid = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / W;
    const int chunks = (nrhs + cpg - 1) / cpg;
    // Groups past the batch stay (every lane of the warp takes part in every shuffle, so the
    // compiler needs no emulation of a partial warp's shuffles) but touch no memory.
    const bool live = gid < (i64)batch * chunks;
    const i64 k = live ? gid / chunks : 0;
    const int c0 = (int)(gid % chunks) * cpg;
    const bool row = live && gl < n;
    const T* A = a + k * a_stride;
    T f[W];
#pragma unroll
    for (int j = 0; j < W; ++j)
        f[j] = (row && j < n) ? (OP == 0 ? A[gl + (i64)j * n] : opc<OP>(A[j + (i64)gl * n])) : zero<T>();
    // The lane's own diagonal entry, for its division (indexing f by the lane's number would put
    // f in local memory; dividing by f[j] at every step took c128 to 255 registers and spills).
    T d = one_t<T>();
#pragma unroll
    for (int j = 0; j < W; ++j)
        if (j == gl && row) d = f[j];
    const int pl = row ? ipiv[k * n + gl] - 1 : 0;
    bool bad = row && (pl < 0 || pl >= n);
    if (live && info != nullptr && info[k] != 0) bad = true;
    bad = (__ballot_sync(0xffffffffu, bad) & gm) != 0u;
    // Where x_i is read from (OP 0: the interchanges walked back from the last) or taken from
    // (OP 1, 2: walked forward); a bad matrix's positions are not used.
    int src = gl;
    if (OP == 0) {
#pragma unroll
        for (int j = W - 1; j >= 0; --j) {
            const int p = __shfl_sync(0xffffffffu, pl, j, W);
            if (j < n) src = swapped(src, j, p);
        }
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j) {
            const int p = __shfl_sync(0xffffffffu, pl, j, W);
            if (j < n) src = swapped(src, j, p);
        }
    }
    if (bad) src = gl;
    // The same number of columns in every group (those past nrhs touch no memory).
    for (int cc = 0; cc < cpg; ++cc) {
        const int c = c0 + cc;
        T* X = x + k * x_stride + (i64)c * n;
        const bool rw = row && c < nrhs;
        // A column past nrhs carries ones, not zeros: a zero dividend takes the division's slow
        // path (f64 n = 16, 5 right-hand sides: three dead columns made the solve 1.7 times as
        // long as with 8 live ones).
        T xi = !rw ? one_t<T>() : bad ? zero<T>() : X[OP == 0 ? src : gl];
        if (OP == 0) {
#pragma unroll
            for (int j = 0; j < W; ++j) {
                const T xj = shfl_idx(xi, j, W);
                if (j < n && gl > j) xi = msub(f[j], xj, xi);
            }
#pragma unroll
            for (int j = W - 1; j >= 0; --j) {
                if (j < n && gl == j) xi = div_s(xi, d);
                const T xj = shfl_idx(xi, j, W);
                if (j < n && gl < j) xi = msub(f[j], xj, xi);
            }
        } else {
#pragma unroll
            for (int j = 0; j < W; ++j) {
                if (j < n && gl == j) xi = div_s(xi, d);
                const T xj = shfl_idx(xi, j, W);
                if (j < n && gl > j) xi = msub(f[j], xj, xi);
            }
#pragma unroll
            for (int j = W - 1; j >= 0; --j) {
                const T xj = shfl_idx(xi, j, W);
                if (j < n && gl < j) xi = msub(f[j], xj, xi);
            }
            xi = shfl_idx(xi, src, W);
        }
        if (rw) X[gl] = bad ? nan_t<T>() : xi;
    }
}

// v, conjugated where c.
template <class T> __device__ __forceinline__ T conj_if(T v, bool c) { return c ? conj(v) : v; }

// Sum over the warp (every lane gets it), by an exchange butterfly.
template <class T> __device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = add(v, shfl_xor_w(v, off, 32));
    return v;
}

// The interchanges of the 0-based pivots `ps` applied to the warp's `xs` by lane 0: in
// LAPACK's order (REV false: P^T·b) or in reverse (REV true: P·w); the warp synchronised after.
template <bool REV, class T> __device__ __forceinline__ void lane0_swaps(T* xs, const int* ps, int n) {
    if ((threadIdx.x & 31) == 0) {
        for (int j = REV ? n - 1 : 0; REV ? j >= 0 : j < n; j += REV ? -1 : 1) {
            const int p = ps[j];
            if (p != j) {
                const T t = xs[j];
                xs[j] = xs[p];
                xs[p] = t;
            }
        }
    }
    __syncwarp();
}

// One warp's (matrix, right-hand side) in the streaming solves: the order, the factors and the
// right-hand side (overwritten by the solution).
template <class T> struct RhsWarp {
    int n;
    const T* A;
    T* X;
};

// The common start of the streaming solves: the warp's matrix k = g / nrhs and right-hand side
// g mod nrhs from its global index g; the pivots (0-based) into `ps` and b into `xs`. False when
// the warp has nothing left to do: past the batch, an empty matrix, or a matrix with a non-zero
// `info` (when given) or a pivot outside 1..n, whose right-hand side is then set to NaN.
template <class T>
__device__ __forceinline__ bool rhs_warp_begin(const T* __restrict__ a, const int* __restrict__ ipiv,
                                               const int* __restrict__ info, T* __restrict__ x, int nrhs, int batch,
                                               Batch b, T* xs, int* ps, RhsWarp<T>& w) {
    const int lane = threadIdx.x & 31;
    // The warp's index through a shuffle, so that the compiler knows it (and every exit after
    // it) to be uniform over the warp: otherwise each shuffle is emitted as a loop over the
    // converged lanes (a third of the code).
    const int wv = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);
    const i64 gw = (i64)blockIdx.x * (blockDim.x >> 5) + wv;
    const i64 k = gw / nrhs;
    const int c = (int)(gw % nrhs);
    if (k >= batch) return false;
    const int n = b.order((int)k);
    if (n == 0) return false;
    w = RhsWarp<T>{n, a + b.a_at((int)k), x + b.x_at((int)k) + (i64)c * n};
    const int* P = ipiv + b.p_at((int)k);
    bool bad = info != nullptr && info[k] != 0;
    for (int i = lane; i < n; i += 32) {
        const int p = P[i] - 1;
        bad |= p < 0 || p >= n;
        ps[i] = p;
        xs[i] = w.X[i];
    }
    if (__any_sync(0xffffffffu, bad)) {
        for (int i = lane; i < n; i += 32) w.X[i] = nan_t<T>();
        return false;
    }
    __syncwarp();
    return true;
}

// Solves op(A_k)·x = b from the factors for one right-hand side per warp (`getrs_warp`),
// n <= 32·R, streaming the factors from global memory once, column by column (coalesced): a
// solve with few right-hand sides reads each factor once for two flops, so it is bound by that
// read. Lane l holds x_i for the rows i = l + 32 r (r < R) in registers. OP 0: the
// interchanges are applied to b in shared memory by lane 0 (LAPACK order), then L·y = P^T·b and
// U·x = y by columns (after step j, x_j is passed to the warp by a shuffle and every lane
// updates its rows by column j). OP 1 (T, conjugated for C where `cj`): op(U)·z = b and op(L)·w = z by dot products of the
// columns of A with the finished part of the solution (a warp sum per step), then x = P·w in
// shared memory. A matrix with a non-zero `info` (when given) or a pivot outside 1..n gets NaN.
// `xs` and `ps`: 32·R elements and 32·R ints of shared memory per warp.
template <class T, int R, int OP>
__device__ void getrs_warp(const T* __restrict__ a, const int* __restrict__ ipiv, const int* __restrict__ info,
                           T* __restrict__ x, int nrhs, bool cj, int batch, Batch b, T* xs, int* ps) {
    const int lane = threadIdx.x & 31;
    RhsWarp<T> w;
    if (!rhs_warp_begin(a, ipiv, info, x, nrhs, batch, b, xs, ps, w)) return;
    const int n = w.n;
    const T* A = w.A;
    T* X = w.X;
    if (OP == 0) lane0_swaps<false>(xs, ps, n);
    T xr[R], d[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int i = lane + 32 * r;
        xr[r] = i < n ? xs[i] : zero<T>();
        d[r] = i < n ? conj_if(A[i + (i64)i * n], cj) : one_t<T>();
    }
    if (OP == 0) {
        // L·y = P^T·b: after step j, rows below j take column j of L.
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int j0 = 32 * r;
            if (j0 >= n) break;
            const int jn = min(32, n - j0);
#pragma unroll 1
            for (int jj = 0; jj < jn; ++jj) {
                const int j = j0 + jj;
                const T xj = shfl_idx(xr[r], jj);
                const T* col = A + (i64)j * n;
#pragma unroll
                for (int r2 = r; r2 < R; ++r2) {
                    const int i = lane + 32 * r2;
                    if (i > j && i < n) xr[r2] = msub(col[i], xj, xr[r2]);
                }
            }
        }
        // U·x = y: x_j divided by U(j, j) by its lane, then rows above j take column j of U.
#pragma unroll
        for (int r = R - 1; r >= 0; --r) {
            const int j0 = 32 * r;
            if (j0 >= n) continue;
            const int jn = min(32, n - j0);
#pragma unroll 1
            for (int jj = jn - 1; jj >= 0; --jj) {
                const int j = j0 + jj;
                if (lane == jj) xr[r] = div_s(xr[r], d[r]);
                const T xj = shfl_idx(xr[r], jj);
                const T* col = A + (i64)j * n;
#pragma unroll
                for (int r2 = 0; r2 <= r; ++r2) {
                    const int i = lane + 32 * r2;
                    if (i < j) xr[r2] = msub(col[i], xj, xr[r2]);
                }
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int i = lane + 32 * r;
            if (i < n) X[i] = xr[r];
        }
        return;
    }
    // op(U)·z = b: z_j = (b_j − Σ_{i<j} op(U(i, j))·z_i) / op(U(j, j)), column j of A read whole.
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int j0 = 32 * r;
        if (j0 >= n) break;
        const int jn = min(32, n - j0);
#pragma unroll 1
        for (int jj = 0; jj < jn; ++jj) {
            const int j = j0 + jj;
            const T* col = A + (i64)j * n;
            T sum = zero<T>();
#pragma unroll
            for (int r2 = 0; r2 <= r; ++r2) {
                const int i = lane + 32 * r2;
                if (i < j) sum = madd(conj_if(col[i], cj), xr[r2], sum);
            }
            sum = warp_sum(sum);
            if (lane == jj) xr[r] = div_s(add(xr[r], neg(sum)), d[r]);
        }
    }
    // op(L)·w = z: w_j = z_j − Σ_{i>j} op(L(i, j))·w_i.
#pragma unroll
    for (int r = R - 1; r >= 0; --r) {
        const int j0 = 32 * r;
        if (j0 >= n) continue;
        const int jn = min(32, n - j0);
#pragma unroll 1
        for (int jj = jn - 1; jj >= 0; --jj) {
            const int j = j0 + jj;
            const T* col = A + (i64)j * n;
            T sum = zero<T>();
#pragma unroll
            for (int r2 = r; r2 < R; ++r2) {
                const int i = lane + 32 * r2;
                if (i > j && i < n) sum = madd(conj_if(col[i], cj), xr[r2], sum);
            }
            sum = warp_sum(sum);
            if (lane == jj) xr[r] = add(xr[r], neg(sum));
        }
    }
    // x = P·w: the interchanges in reverse order.
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int i = lane + 32 * r;
        if (i < n) xs[i] = xr[r];
    }
    __syncwarp();
    lane0_swaps<true>(xs, ps, n);
    for (int i = lane; i < n; i += 32) X[i] = xs[i];
}

// Σ over the warp of p[0..TB) (TB = 16 or 32): lane l (l < TB; for TB = 16 also lane l + 16)
// gets the sum of entry l, by halving exchanges (TB − 1 of them, and 16 more for TB = 16).
template <int TB, class T> __device__ __forceinline__ T warp_reduce_scatter(T (&p)[TB]) {
    const int lane = threadIdx.x & 31;
    if (TB == 16) {
#pragma unroll
        for (int q = 0; q < TB; ++q) p[q] = add(p[q], shfl_xor_w(p[q], 16, 32));
    }
#pragma unroll
    for (int h = TB / 2; h >= 1; h >>= 1) {
        const bool up = (lane & h) != 0;
#pragma unroll
        for (int q = 0; q < h; ++q) {
            const T send = up ? p[q] : p[q + h];
            const T keep = up ? p[q + h] : p[q];
            p[q] = add(keep, shfl_xor_w(send, h, 32));
        }
    }
    return p[0];
}

// Solves op(A_k)·x = b from the factors for one right-hand side per warp (`getrs_tile`), for
// orders past those of `getrs_warp`, whose column-by-column steps each wait for memory there:
// here the solution sits in shared memory and the factors are taken TB columns at a time. A
// tile's triangle is solved in registers (lane l: row l of the TB × TB diagonal tile for OP 0,
// column l for OP 1, conjugated where `cj`), by shuffles; the rest of the tile's columns update
// the other rows, TB loads in flight per row (OP 0: x_i −= Σ_q A(i, j0 + q)·x_{j0+q}), or (OP 1)
// give the tile's rows their sums Σ_i op(A(i, j0 + q))·z_i, each lane a part of the rows and all
// TB columns, then a reduce-scatter over the warp. The diagonal is applied as its reciprocal
// (once per tile and lane). Interchanges, validation and NaN outputs as `getrs_warp`; `xs` and
// `ps`: n elements and n ints of shared memory per warp.
template <class T, int TB, int OP>
__device__ void getrs_tile(const T* __restrict__ a, const int* __restrict__ ipiv, const int* __restrict__ info,
                           T* __restrict__ x, int nrhs, bool cj, int batch, Batch b, T* xs, int* ps) {
    const int lane = threadIdx.x & 31;
    RhsWarp<T> w;
    if (!rhs_warp_begin(a, ipiv, info, x, nrhs, batch, b, xs, ps, w)) return;
    const int n = w.n;
    const T* A = w.A;
    T* X = w.X;
    if (OP == 0) lane0_swaps<false>(xs, ps, n);
    const int nbk = (n + TB - 1) / TB;
    // Row `lane` of the diagonal tile at j0 (OP 0) or its column `lane` (OP 1), conjugated where
    // cj; zeros outside the matrix and for lanes past the tile.
    T t[TB];
    auto tile = [&](int j0) {
        const int r = j0 + lane;
#pragma unroll
        for (int q = 0; q < TB; ++q) {
            const int cq = j0 + q;
            const bool in = lane < TB && r < n && cq < n;
            t[q] = in ? conj_if(OP == 0 ? A[r + (i64)cq * n] : A[cq + (i64)r * n], cj) : zero<T>();
        }
    };
    // The lane's diagonal entry's reciprocal in the tile at j0 (1 outside the matrix).
    auto recip = [&](int j0) {
        const int r = j0 + lane;
        return (lane < TB && r < n) ? div_s(one_t<T>(), conj_if(A[r + (i64)r * n], cj)) : one_t<T>();
    };
    T xj[TB];
    if (OP == 0) {
        // L·y = P^T·b, a tile of TB columns at a time: the tile's triangle in registers by
        // shuffles, then the rows below it take the tile's columns (TB loads in flight per row).
        for (int bk = 0; bk < nbk; ++bk) {
            const int j0 = bk * TB;
            tile(j0);
            T xv = (lane < TB && j0 + lane < n) ? xs[j0 + lane] : zero<T>();
#pragma unroll
            for (int q = 0; q < TB; ++q) {
                xj[q] = shfl_idx(xv, q);
                if (lane > q) xv = msub(t[q], xj[q], xv);
            }
            if (lane < TB && j0 + lane < n) xs[j0 + lane] = xv;
            for (int i = j0 + TB + lane; i < n; i += 32) {
                T acc = xs[i];
#pragma unroll
                for (int q = 0; q < TB; ++q)
                    if (j0 + q < n) acc = msub(A[i + (i64)(j0 + q) * n], xj[q], acc);
                xs[i] = acc;
            }
            __syncwarp();
        }
        // U·x = y from the last tile: its triangle (x_j times 1 / U(j, j) by its lane), then the
        // rows above it.
        for (int bk = nbk - 1; bk >= 0; --bk) {
            const int j0 = bk * TB;
            tile(j0);
            const T d = recip(j0);
            T xv = (lane < TB && j0 + lane < n) ? xs[j0 + lane] : zero<T>();
#pragma unroll
            for (int q = TB - 1; q >= 0; --q) {
                if (lane == q) xv = mul(xv, d);
                xj[q] = shfl_idx(xv, q);
                if (lane < q) xv = msub(t[q], xj[q], xv);
            }
            if (lane < TB && j0 + lane < n) xs[j0 + lane] = xv;
            for (int i = lane; i < j0; i += 32) {
                T acc = xs[i];
#pragma unroll
                for (int q = 0; q < TB; ++q)
                    if (j0 + q < n) acc = msub(A[i + (i64)(j0 + q) * n], xj[q], acc);
                xs[i] = acc;
            }
            __syncwarp();
        }
        for (int i = lane; i < n; i += 32) X[i] = xs[i];
        return;
    }
    // op(U)·z = b: a tile's rows first take Σ_{i<j0} op(A(i, j))·z_i (each lane a part of the
    // sums of the tile's TB columns, then a reduce-scatter), then its triangle.
    for (int bk = 0; bk < nbk; ++bk) {
        const int j0 = bk * TB;
#pragma unroll
        for (int q = 0; q < TB; ++q) xj[q] = zero<T>();
        for (int i = lane; i < j0; i += 32) {
            const T zi = xs[i];
#pragma unroll
            for (int q = 0; q < TB; ++q)
                if (j0 + q < n) xj[q] = madd(conj_if(A[i + (i64)(j0 + q) * n], cj), zi, xj[q]);
        }
        const T s = warp_reduce_scatter<TB>(xj);
        tile(j0);
        const T d = recip(j0);
        T xv = (lane < TB && j0 + lane < n) ? add(xs[j0 + lane], neg(s)) : zero<T>();
#pragma unroll
        for (int q = 0; q < TB; ++q) {
            if (lane == q) xv = mul(xv, d);
            const T xq = shfl_idx(xv, q);
            if (lane > q) xv = msub(t[q], xq, xv);
        }
        __syncwarp();
        if (lane < TB && j0 + lane < n) xs[j0 + lane] = xv;
        __syncwarp();
    }
    // op(L)·w = z from the last tile: the rows below it first (the same sums), then its triangle.
    for (int bk = nbk - 1; bk >= 0; --bk) {
        const int j0 = bk * TB;
#pragma unroll
        for (int q = 0; q < TB; ++q) xj[q] = zero<T>();
        for (int i = j0 + TB + lane; i < n; i += 32) {
            const T wi = xs[i];
#pragma unroll
            for (int q = 0; q < TB; ++q)
                if (j0 + q < n) xj[q] = madd(conj_if(A[i + (i64)(j0 + q) * n], cj), wi, xj[q]);
        }
        const T s = warp_reduce_scatter<TB>(xj);
        tile(j0);
        T xv = (lane < TB && j0 + lane < n) ? add(xs[j0 + lane], neg(s)) : zero<T>();
#pragma unroll
        for (int q = TB - 1; q >= 0; --q) {
            const T xq = shfl_idx(xv, q);
            if (lane < q) xv = msub(t[q], xq, xv);
        }
        __syncwarp();
        if (lane < TB && j0 + lane < n) xs[j0 + lane] = xv;
        __syncwarp();
    }
    // x = P·w: the interchanges in reverse order.
    lane0_swaps<true>(xs, ps, n);
    for (int i = lane; i < n; i += 32) X[i] = xs[i];
}

// Inverse from the factors for n <= 32: one lane per column of the inverse, the factors of the
// group's matrix in shared memory (leading dimension W + 1).
template <class T, int W, int CH>
__device__ void getri_small(const T* __restrict__ a, const int* __restrict__ ipiv, const int* __restrict__ info,
                            T* __restrict__ inv, int batch, int n, i64 a_stride, i64 inv_stride, T* smem) {
    constexpr int LD = W + 1;
    const int gl = threadIdx.x % W, g = threadIdx.x / W;
    const int k = (int)(((i64)blockIdx.x * blockDim.x + threadIdx.x) / W);
    // Groups past the batch stay (the warp synchronizes as a whole) but touch no memory.
    const bool live = k < batch;
    T* F = smem + g * W * LD;
    const T* A = a + (live ? (i64)k * a_stride : 0);
    const int nn = live ? n * n : 0;
    // Where column gl of P^T I has its one: follow row gl through the interchanges.
    int at = gl;
    bool bad_piv = false;
    // Real types and groups of up to 16 lanes issue every load of the group at once (the
    // n² ≤ W² factors, W per lane, and the pivots) before the first use; the complex 32-lane
    // kernels (64 and 128 registers of staging) keep one load per loop step.
    constexpr bool PRELOAD = W <= 16 || sizeof(T) == sizeof(typename Real<T>::type);
    if constexpr (PRELOAD) {
        T v[W];
#pragma unroll
        for (int i = 0; i < W; ++i) {
            const int e = gl + i * W;
            v[i] = e < nn ? A[e] : zero<T>();
        }
        int pv[W];
#pragma unroll
        for (int j = 0; j < W; ++j) pv[j] = (live && j < n) ? ipiv[(i64)k * n + j] - 1 : 0;
#pragma unroll
        for (int j = 0; j < W; ++j) bad_piv |= j < n && (pv[j] < 0 || pv[j] >= n);
        if (nn > 0) {
            TileWalk t(gl, W, n);
#pragma unroll
            for (int i = 0; i < W; ++i) {
                if (gl + i * W < nn) F[t.row + t.col * LD] = v[i];
                t.step();
            }
        }
#pragma unroll
        for (int j = 0; j < W; ++j) {
            if (j < n) at = swapped(at, j, pv[j]);
        }
    } else {
        // The factors by asynchronous copies (every copy of the lane in flight, no register on
        // the way) and the pivots one per lane, passed round by shuffles: before, each loop
        // step waited for its own load (docs/perf-notes.md, Batched LU Version 18).
        if (nn > 0) {
            TileWalk t(gl, W, n);
            for (int e = gl; e < nn; e += W) {
                cp_async_elem(F + t.row + t.col * LD, A + e);
                t.step();
            }
        }
        const int pl = (live && gl < n) ? ipiv[(i64)k * n + gl] - 1 : 0;
        for (int j = 0; j < n; ++j) {
            const int p = __shfl_sync(0xffffffffu, pl, j, W);
            bad_piv |= p < 0 || p >= n;
            at = swapped(at, j, p);
        }
        cp_async_wait();
    }
    // A pivot outside 1..n (only from elsewhere than getrf) moves `at` nowhere in memory, but
    // the matrix gets NaN, as a singular one does.
    bool bad = live && (bad_piv || info[k] != 0);
    __syncwarp();
    for (int j = 0; live && j < n; ++j) bad = bad || is_zero_v(F[j + j * LD]);
    T x[W];
#pragma unroll
    for (int i = 0; i < W; ++i) x[i] = (i == at) ? one_t<T>() : zero<T>();
    // The substitutions in chunks of CH steps, as in `getrf_small`: chunk c's first step is a
    // compile-time constant, its step j is not, and a step updates the rows of its chunk and
    // beyond (forward) or before (backward), those not past j masked.
    auto fwd = [&](const int c, const int j) {
        const T nx = neg(chunk_get<CH>(x, c, j));
#pragma unroll
        for (int i = c + 1; i < W; ++i)
            if ((i >= c + CH || i > j) && i < n) x[i] = madd(F[i + j * LD], nx, x[i]);
    };
    auto bwd = [&](const int c, const int j) {
        const T xj = div_s(chunk_get<CH>(x, c, j), F[j + j * LD]);
        chunk_set<CH>(x, c, j, xj);
        const T nx = neg(xj);
#pragma unroll
        for (int i = 0; i < c + CH - 1; ++i)
            if (i < c || i < j) x[i] = madd(F[i + j * LD], nx, x[i]);
    };
    chunked_steps<W, CH, false>(n, fwd);
    chunked_steps<W, CH, true>(n, bwd);
    __syncwarp();
    if (live && gl < n) {
#pragma unroll
        for (int i = 0; i < W; ++i)
            if (i < n) F[i + gl * LD] = bad ? nan_t<T>() : x[i];
    }
    __syncwarp();
    T* X = inv + (live ? (i64)k * inv_stride : 0);
    if (nn > 0) {
        TileWalk t(gl, W, n);
        for (int e = gl; e < nn; e += W) {
            X[e] = F[t.row + t.col * LD];
            t.step();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 32 < n <= 32·R, uniform batches: the inverse from the factors, one block of NW warps per matrix.
// The factors sit in shared memory; each warp computes CPW columns of U⁻¹·L⁻¹ (column c solving
// L·U·x = e_c; it is column at[c] of A⁻¹ = U⁻¹·L⁻¹·P), lane l rows l, l + 32, ... (R slots) of
// each, in registers. Rows above c of L⁻¹'s column c are zero, so its forward substitution starts
// at step c: warp w takes a low part (columns from w·⌈CPW/2⌉) and a high part (counted down from
// the last), and its forward steps update the low part alone until the high part's first column.
// That is a third fewer updates than a dense forward substitution of every column (15–30 % faster,
// docs/perf-notes.md); SKIP = false keeps the dense form (every column from step 0), for the one
// kernel where it was faster. Step s of a substitution needs row s of the warp's columns in every
// lane: the lane holding it writes it to a per-warp buffer in shared memory (16 bytes at a time),
// and every lane reads it back beside its own rows' factor entries L(l + 32·g, s); a __syncwarp
// after the write and one after the reads. (Two buffers alternating by step and one __syncwarp
// measured 5–10 % slower.) After the loads the warps never wait for each other.
//
// TRI (the orders above those whose factors fit in shared memory whole, and c128 65..80, where
// half the shared memory lets more blocks reside): the shared memory holds one triangle at a
// time, packed by columns: the strict lower triangle of L for the forward substitution (column
// s, rows s + 1.., at s·(2n − s − 1)/2), then, after a block barrier, the strict upper triangle
// of U for the backward one (column s, rows 0..s − 1, at s·(s − 1)/2); U's diagonal is read from
// global memory. The columns of the inverse are split over SPLIT consecutive blocks (TRI_SPLIT,
// or four for the orders whose columns two blocks' registers would not hold): block SPLIT·k + p
// takes columns p·NG·CPW.. (NG·CPW of them) of matrix k, so a later part's forward
// substitution starts further on. Consecutive blocks run at about the same time, so the
// second part reads the factors the first has just brought into L2 (3–5 % faster than the
// parts in the grid's y dimension, docs/perf-notes.md).
constexpr int TRI_SPLIT = 2;
//
// HW = 16 (every order up to 128 but f64 97..104 and f32 above 128): each half-warp is a group
// of its own, with its own CPW columns (the two halves of a warp alternate within the warp's
// parts, so their steps stay alike) and row buffer, lane l of it rows l, l + 16, ... (R =
// ⌈n / 16⌉). The row slots a step skips come in sixteens: a substitution's steps issue
// (R + 1)/R times the rows they update against (R' + 1)/R' with R' = R / 2 slots of 32 (at
// n = 64 a sixth fewer FMAs), and at 33..48 and 65..80 there are fewer slots (48 and 80
// instead of 64 and 96). 15–30 % faster than whole warps at 49..128 (docs/perf-notes.md).
//
// Staging of the triangles beyond one at a time (TRI only):
// * PH > 0: each triangle in two parts (below), for f64 and c64 225..256 and c128 161..192.
// * P3 > 0: each in three parts, for c128 193..256, whose triangle (up to 510 KiB) two parts
//   would not fit: split slots LA < LB for L and UA < UB for U, 4 bits each (LA + 16·LB +
//   256·UA + 4096·UB); with eight warps of half-warp groups of two columns (32 columns per
//   block), 0.62 of the blocked inverse's time at n = 256 (docs/perf-notes.md, Batched LU
//   Version 27; whole warps of four columns 0.63).
// * LM > 0: each in many parts starting at 16-column sub-slots (bit masks LM for L, UM for U),
//   behind barriers between sub-slots, for every type at 257..512 (c128 at 512: a triangle of
//   2 MiB in thirteen parts of up to 210 KiB each; f32 at 257..320: one part): eight whole
//   warps of two to twelve columns (about as many as the registers hold without spills), so 16
//   to 96 columns per block; 0.58–0.73 of the blocked inverse's time (Batched LU Versions 27
//   and 28). Compiled for sm_90 on only (see below).
// * UPRE: one triangle, but the launch gives all the shared memory a block may have, and U's
//   columns that fit beside L's (those from uk on) are copied at the start, arriving during
//   the forward substitution; only U's first columns wait for it. f32 193..256, where the
//   copies are 4 bytes each: 0.97 of the time (other types and forms gained nothing, Version
//   27).
template <class T, int NW, int CPW, int R, bool TRI = false, int HW = 32, bool SKIP = true, bool FOLD = false,
          int SPLIT = TRI_SPLIT, int PH = 0, bool UPRE = false, int P3 = 0, unsigned LM = 0, unsigned UM = 0>
__device__ void getri_mid(const T* __restrict__ a, const int* __restrict__ ipiv, const int* __restrict__ info,
                          T* __restrict__ inv, int n, i64 a_stride, i64 inv_stride, unsigned char* smem) {
    typedef Pack<T> PK;
    constexpr int E = PK::N;
    constexpr int UP = (CPW + E - 1) / E;  // packs of one row of a warp's columns
    static_assert(HW == 32 || HW == 16, "groups of 32 lanes, or half-warps");
    constexpr int NMAX = HW * R;
    constexpr int NG = NW * (32 / HW);  // groups of HW lanes per block
    // Whether U's columns are divided by their diagonal entries before the backward
    // substitution (see there): complex types, and real ones from five rows per lane. The real
    // kernels of up to four rows per lane took 2–12 % longer with it (their single-lane products
    // are one multiplication per column, less than the extra pass and barrier).
    constexpr bool PRE = !std::is_same<typename Real<T>::type, T>::value || R > 4;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int hl = lane % HW, grp = threadIdx.x / HW;  // lane in its group, the group
    const int k = TRI ? blockIdx.x / SPLIT : blockIdx.x;
    const int c0 = TRI ? (int)(blockIdx.x % SPLIT) * NG * CPW : 0;  // the block's first column
    const T* A = a + (i64)k * a_stride;
    const int nn = n * n;
    // Two phases (PH > 0, the triangle form only): each triangle in two parts split at column
    // S = PH·HW (a slot boundary, S < n), the part a substitution needs first staged first: L's
    // columns c0..S (see `subL` below), then S..n (stored from offL on: offL elements precede
    // them); U's columns S..n (stored from offU on), then 0..S.
    constexpr bool TWO = TRI && PH > 0;
    const int S = PH * HW, ntri = n * (n - 1) / 2;
    const int offL = TWO ? S * (2 * n - S - 1) / 2 : 0, offU = TWO ? S * (S - 1) / 2 : 0;
    // The forward substitution of the block's columns starts at step c0 (column c of L⁻¹ is zero
    // above row c), so it never reads L's columns before c0: L is staged from column c0 on
    // (stored from subL on), and a block whose steps all lie in the second part (`late`) stages
    // that part alone, at the start.
    const bool late = TWO && c0 >= S;
    const int subL = TRI ? c0 * (2 * n - c0 - 1) / 2 : 0;
    // Three parts (P3 > 0, the triangle form only, for triangles that two parts would not fit):
    // L split at columns la = LA·HW and lb = LB·HW, staged in that order (a block stages from
    // column c0, in the part p0 that holds it); U split at ua = UA·HW and ub = UB·HW, staged from
    // the last part down. Each part at the start of F, less the elements before it (oLa, ...).
    constexpr bool THREE = TRI && P3 > 0;
    static_assert(!THREE || (PH == 0 && !UPRE), "one staging scheme at a time");
    constexpr int LA = P3 & 15, LB = (P3 >> 4) & 15, UA = (P3 >> 8) & 15, UB = (P3 >> 12) & 15;
    const int la = LA * HW, lb = LB * HW, ua = UA * HW, ub = UB * HW;
    const int oLa = la * (2 * n - la - 1) / 2, oLb = lb * (2 * n - lb - 1) / 2;
    const int oUa = ua * (ua - 1) / 2, oUb = ub * (ub - 1) / 2;
    const int p0 = !THREE ? 0 : c0 >= lb ? 2 : c0 >= la ? 1 : 0;
    // Many parts (LM > 0, whole warps only): the parts start at the 16-column sub-slots whose
    // bits are set in LM (L) and UM (U), bit 0 set in both; a part is staged when a
    // substitution reaches it (L upward, U downward), behind block barriers at sub-slot
    // boundaries, which every warp passes. The block stages L from c0 to the end of the part
    // holding c0 at the start.
    constexpr bool MULTI = TRI && LM != 0u;
    static_assert(!MULTI || (HW == 32 && PH == 0 && !UPRE && P3 == 0 && (LM & 1u) && (UM & 1u)), "many parts");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    // The many-part kernels take more shared memory per block (up to 227 KiB) than the GPUs
    // before sm_90 have, so the host never launches them there (`mid` in gpu.rs falls back to
    // the blocked kernels); their code is left out of those builds.
    if constexpr (MULTI) {
        __trap();
        return;
    }
#endif
    auto lo_of = [n](int c) { return c * (2 * n - c - 1) / 2; };  // L's elements before column c
    auto up_of = [](int c) { return c * (c - 1) / 2; };           // U's elements before column c
    // The first sub-slot of the part holding sub-slot j, and the first of the next part (32:
    // none), for a mask m.
    auto part_start = [](unsigned m, int j) { return 31 - __clz(m & (0xffffffffu >> (31 - j))); };
    auto part_end = [](unsigned m, int j) { return j >= 31 || (m >> (j + 1)) == 0u ? 32 : j + __ffs(m >> (j + 1)); };
    const int jc0 = c0 / 16;
    // A block with no column of the inverse (its part past n: at most the last, e.g. the last of
    // 32 at orders to 496).
    if (MULTI && c0 >= n) return;
    // Elements of the factors held at once.
    // UPRE: as many as the launch's dynamic shared memory holds beside the rest of the layout.
    constexpr int REST = NMAX * (int)sizeof(T) + 2 * NMAX * 4 + NG * UP * 16;
    const int nf = !TRI  ? nn
                   : TWO ? max(max(offL, ntri - offL), max(offU, ntri - offU))
                   : THREE ? max(max(max(oLa, oLb - oLa), ntri - oLb), max(max(oUa, oUb - oUa), ntri - oUb))
                   : MULTI ? ((int)dynamic_smem_bytes() - REST) / 16 * E
                   : UPRE ? max(ntri, ((int)dynamic_smem_bytes() - REST) / 16 * E)
                          : ntri;
    // UPRE: U's packed columns start at F + xu, so that its columns uk.. lie past the part of L
    // the forward substitution reads (F[0, ntri − subL)) and are staged at the start: column c
    // of U starts at xu + c(c − 1)/2, so uk is the least c with c(c − 1)/2 ≥ ntri − subL − xu.
    const int xu = UPRE ? nf - ntri : 0;
    int uk = n;
    if constexpr (UPRE) {
        const int dl = ntri - subL - xu;
        int c = dl <= 0 ? 0 : (int)((1.f + sqrtf(1.f + 8.f * (float)dl)) * 0.5f);
        while (c > 0 && (c - 1) * (c - 2) / 2 >= dl) --c;
        while (c * (c - 1) / 2 < dl) ++c;
        uk = min(c, n);
    }
    // Shared memory (see `mid_smem` in gpu.rs): the factors (leading dimension n, 16 bytes more
    // in front, or one packed triangle for TRI, rounded up to 16 bytes), the reciprocals of U's
    // diagonal (NMAX), the column of the inverse each column of L⁻¹ becomes (NMAX ints), the
    // pivots (NMAX ints), per group a row buffer of UP packs, and (not TRI) an mbarrier.
    // The whole factors (not TRI) start at A's offset within 16 bytes, 16 bytes reserved in
    // front (see the bulk copy below).
    const unsigned mis = TRI ? 0u : (unsigned)(reinterpret_cast<unsigned long long>(A) & 15);
    T* F = reinterpret_cast<T*>(smem + mis);
    T* Dr = reinterpret_cast<T*>(smem + (TRI ? 0 : 16)) + (nf + E - 1) / E * E;
    int* at = reinterpret_cast<int*>(Dr + NMAX);
    int* pv = at + NMAX;
    PK* Xb = reinterpret_cast<PK*>(pv + NMAX) + grp * UP;
    // Columns cl..ch of a triangle, column c's rows lo <= i < hi to F[base + i] (its packed place
    // less `sub`): warp w takes columns cl + w, cl + w + NW, ..., each element by an asynchronous
    // copy (complete for the thread at `cp_async_wait`).
    auto stage_triangle = [&](bool lower, int cl, int ch, int sub) {
        for (int c = cl + w; c < ch; c += NW) {
            const int lo = lower ? c + 1 : 0, hi = lower ? n : c;
            const int base = (lower ? c * (2 * n - c - 1) / 2 - c - 1 : c * (c - 1) / 2) - sub;
            for (int i = lo + lane; i < hi; i += 32) cp_async_elem(F + base + i, A + i + (i64)c * n);
        }
    };
    // U's columns cl..ch as staged above, each scaled by the reciprocal of its diagonal entry
    // (see the backward substitution): the thread scales the elements it copied itself, so its
    // own `cp_async_wait` orders the copies before the products.
    auto scale_upper = [&](int cl, int ch, int sub) {
        for (int c = cl + w; c < ch; c += NW) {
            const T d = Dr[c];
            T* col = F + c * (c - 1) / 2 - sub;
            for (int i = lane; i < c; i += 32) col[i] = mul(col[i], d);
        }
    };
    // The factors' loads run while the block sets up the pivots, and were exposed before (a
    // thread's four loads in flight, then its stores; one block per multiprocessor at most of
    // these orders): the triangle by asynchronous copies, the whole factors on sm_90 by one
    // bulk copy of the copy engine (cp.async.bulk) for their 16-byte aligned middle, counted on
    // an mbarrier after the row buffers, the head and tail (under 16 bytes each) loaded as
    // usual. 0.83–0.95 of the time (docs/perf-notes.md, Batched LU Version 18).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr bool bulk = !TRI;
#else
    constexpr bool bulk = false;
#endif
    const unsigned mbar = (unsigned)__cvta_generic_to_shared(reinterpret_cast<PK*>(pv + NMAX) + NG * UP);
    if constexpr (TRI) {
        stage_triangle(true, c0,
                       MULTI   ? min(n, 16 * part_end(LM, jc0))
                       : THREE ? (p0 == 0 ? la : p0 == 1 ? lb : n)
                       : TWO && !late ? S
                                      : n,
                       subL);
        if constexpr (UPRE) {
            // L first, as one group of copies (waited for before the substitution); then U's
            // columns uk.., which arrive during the forward substitution.
            cp_async_commit();
            stage_triangle(false, uk, n, -xu);
            cp_async_commit();
        }
    } else if constexpr (!bulk) {
        for (int i = threadIdx.x; i < nn; i += blockDim.x) cp_async_elem(F + i, A + i);
    } else {
        const int head = (int)((16 - mis) & 15) / (int)sizeof(T);
        const unsigned bytes16 = (unsigned)((nn - head) * (int)sizeof(T)) & ~15u;
        const int tail = head + (int)(bytes16 / sizeof(T));
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mbar) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar), "r"(bytes16) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                             (unsigned)__cvta_generic_to_shared(F + head)),
                         "l"(A + head), "r"(bytes16), "r"(mbar)
                         : "memory");
        }
        if ((int)threadIdx.x < head) F[threadIdx.x] = A[threadIdx.x];
        for (int i = tail + threadIdx.x; i < nn; i += blockDim.x) F[i] = A[i];
    }
    for (int j = threadIdx.x; j < n; j += blockDim.x) pv[j] = ipiv[(i64)k * n + j] - 1;
    __syncthreads();
    // The singular test (info, or an exactly-zero U(j, j)) and, for row j followed through the
    // interchanges to pj, at[pj] = j: column pj of L⁻¹ (U⁻¹ L⁻¹ P = A⁻¹) is column j of A⁻¹.
    int bad = 0;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const T d = A[j + (i64)j * n];
        bad |= is_zero_v(d);
        Dr[j] = div_s(one_t<T>(), d);
        int pj = j;
        for (int s = 0; s < n; ++s) pj = swapped(pj, s, pv[s]);
        if (pj >= 0 && pj < n) at[pj] = j;
        // A pivot outside 1..n: NaN, as for a singular matrix (and `at` is not a permutation:
        // the store below does not read it then).
        bad |= pv[j] < 0 || pv[j] >= n;
    }
    if (threadIdx.x == 0) bad |= info[k] != 0;
    if constexpr (UPRE) {
        cp_async_wait_group<1>();
    } else if constexpr (!bulk) {
        cp_async_wait();
    }
    bad = __syncthreads_or(bad);
    if constexpr (bulk) {
        unsigned done;
        do {
            asm volatile(
                "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                "selp.u32 %0, 1, 0, p;\n\t}"
                : "=r"(done)
                : "r"(mbar)
                : "memory");
        } while (!done);
    }
    if constexpr (!TRI && PRE) {
        // The strict upper triangle scaled column by column (see the backward substitution);
        // the forward substitution reads only L, but the barrier comes before it all the same
        // (the warps are then in step, and the backward substitution needs every column).
        for (int c = w + 1; c < n; c += NW)
            for (int i = lane; i < c; i += 32) F[i + c * n] = mul(F[i + c * n], Dr[c]);
        __syncthreads();
    }
    // The group's columns of L⁻¹ (e_c, solved for in place, then by U): its warp's low part,
    // TA columns from c0 + w·TA·GPW, and high part, TB columns counted down from the block's
    // last, the group (q) taking every GPW-th of each. Column c of the solution is column
    // at[c] of the inverse. The forward substitution of column c starts at step c (rows above
    // c stay zero), so the warp's low part starts at s_lo and its high part at s_hi: the
    // warps' forward steps balance, about half of them dense.
    constexpr int GPW = 32 / HW, TA = (CPW + 1) / 2, TB = CPW - TA;
    const int q = grp - w * GPW;
    const int wu = __shfl_sync(~0u, w, 0);  // w, warp-uniform to the compiler too
    const int s_lo = c0 + wu * TA * GPW, s_hi = c0 + (NW * TA + (NW - 1 - wu) * TB) * GPW;
    auto col_of = [&](int t) { return (t < TA ? s_lo + t * GPW : s_hi + (t - TA) * GPW) + q; };
    T x[R][CPW];
#pragma unroll
    for (int t = 0; t < CPW; ++t) {
#pragma unroll
        for (int g = 0; g < R; ++g) x[g][t] = hl + HW * g == col_of(t) && col_of(t) < n ? one_t<T>() : zero<T>();
    }
    // The lane holding the step's row writes its first TU columns (xs) to the group's buffer.
    auto publish = [&](const T(&xs)[CPW], auto tu) {
        constexpr int TU = decltype(tu)::value;
#pragma unroll
        for (int u = 0; u < (TU + E - 1) / E; ++u) {
            PK v;
#pragma unroll
            for (int e = 0; e < E; ++e) v.v[e] = u * E + e < TU ? xs[u * E + e] : zero<T>();
            Xb[u] = v;
        }
    };
    // x(slot g's row) -= F(row, s) · row s, for the slots whose flag is set (the loops are
    // unrolled, so the flags that are false or true for a whole slot fold away); F(i, s) is
    // F[cb + i] (cb: the column's base, s·n, or that of its packed triangle). FOLD: f[g] is
    // read and used under the same flag, with no zero default and no separate negation (msub),
    // and the flags of the slots other than the step's are constants: 1–15 % faster, except in
    // the whole-warp kernels with the whole factors (f64 97..104, f32 129..192: 3–5 % slower)
    // and three kernels where ptxas then spills (2–8 % slower), which keep the first form
    // (docs/perf-notes.md, Batched LU Version 17).
    auto update = [&](int cb, const bool(&act)[R], auto tu) {
        constexpr int TU = decltype(tu)::value;
        T f[R];
#pragma unroll
        for (int g = 0; g < R; ++g) {
            if constexpr (FOLD) {
                if (act[g]) f[g] = F[cb + hl + HW * g];
            } else {
                f[g] = act[g] ? neg(F[cb + hl + HW * g]) : zero<T>();
            }
        }
#pragma unroll
        for (int u = 0; u < (TU + E - 1) / E; ++u) {
            const PK v = Xb[u];
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const int t = u * E + e;
                if (t >= TU) continue;
#pragma unroll
                for (int g = 0; g < R; ++g)
                    if (act[g])
                        x[g][t] = FOLD ? msub(f[g], v.v[e], x[g][t]) : madd(f[g], v.v[e], x[g][t]);
            }
        }
    };
    // Forward substitution with L (unit lower): row s (slot h) is final when step s begins;
    // the rows below it are updated: the slots after h whole (their rows are past s, and those
    // before the last slot below n: the shapes have HW·(R − 1) < n), slot h below s. Steps
    // s_lo..s_hi take the low part only.
    auto forward_at = [&](int h, int s, auto tu, int sub) {
        if (hl == s - h * HW) publish(x[h], tu);
        __syncwarp();
        bool act[R];
#pragma unroll
        for (int g = 0; g < R; ++g)
            act[g] = g >= h && ((FOLD && g > h) || hl + HW * g > s) && ((FOLD && g < R - 1) || hl + HW * g < n);
        update(TRI ? s * (2 * n - s - 1) / 2 - s - 1 - sub : s * n, act, tu);
        __syncwarp();
    };
    auto forward = [&](int h, int s, auto tu) {
        const int sub = THREE ? (h >= LB && p0 <= 1 ? oLb : h >= LA && p0 == 0 ? oLa : subL)
                              : TWO && !late && h >= PH ? offL
                                                        : subL;
        forward_at(h, s, tu, sub);
    };
#pragma unroll
    for (int h = 0; MULTI && h < R; ++h) {
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            const int j = 2 * h + q, lo = h * HW + 16 * q, hi = min(n, lo + 16);
            if (((LM >> j) & 1u) && j > jc0 && lo < n) {
                __syncthreads();
                stage_triangle(true, lo, min(n, 16 * part_end(LM, j)), lo_of(lo));
                cp_async_wait();
                __syncthreads();
            }
            const int ps = 16 * part_start(LM, j), sub = ps > c0 ? lo_of(ps) : subL;
#pragma unroll 1
            for (int s = max(lo, s_lo); s < min(hi, s_hi); ++s) forward_at(h, s, std::integral_constant<int, TA>(), sub);
#pragma unroll 1
            for (int s = max(lo, s_hi); s < hi; ++s) forward_at(h, s, std::integral_constant<int, CPW>(), sub);
        }
    }
#pragma unroll
    for (int h = 0; !MULTI && h < R; ++h) {
        if constexpr (TWO) {
            if (h == PH && !late) {
                __syncthreads();
                stage_triangle(true, S, n, offL);
                cp_async_wait();
                __syncthreads();
            }
        }
        if constexpr (THREE) {
            if ((h == LA && p0 == 0) || (h == LB && p0 <= 1)) {
                __syncthreads();
                if (h == LA) stage_triangle(true, la, lb, oLa);
                else stage_triangle(true, lb, n, oLb);
                cp_async_wait();
                __syncthreads();
            }
        }
        const int end = min(n, h * HW + HW);
#pragma unroll 1
        for (int s = max(h * HW, s_lo); SKIP && s < min(end, s_hi); ++s)
            forward(h, s, std::integral_constant<int, TA>());
#pragma unroll 1
        for (int s = max(h * HW, SKIP ? s_hi : c0); s < end; ++s) forward(h, s, std::integral_constant<int, CPW>());
    }
    if constexpr (TRI) {
        __syncthreads();
        const int u0 = MULTI ? 16 * part_start(UM, (n - 1) / 16) : THREE ? ub : TWO ? S : 0;
        const int su = UPRE ? -xu : MULTI ? up_of(u0) : THREE ? oUb : offU;
        stage_triangle(false, u0, uk, su);
        cp_async_wait();
        if constexpr (PRE) scale_upper(u0, uk, su);
        if constexpr (PRE && UPRE) scale_upper(uk, n, -xu);
        __syncthreads();
    }
    // Backward substitution with U. PRE: its columns already divided by their diagonal entries
    // (U(i, s) / U(s, s) in place of U(i, s)): step s updates the rows above s by the row as it
    // stands (x(i) −= U(i, s)/U(s, s) · y(s), where y(s) = U(s, s)·x(s) is what the row holds
    // once the steps after s are done), and every row is divided by its U(s, s) at the end.
    // So the lane holding row s publishes it unscaled, and the step has no single-lane
    // products (they were a tenth to a fifth of a backward step's instructions, issued for
    // one lane); 6–13 % faster at 100..256 and for the complex types (docs/perf-notes.md,
    // Batched LU Version 20). Otherwise the lane holding row s scales it by 1 / U(s, s) before
    // publishing it. The rows above s: the slots before h whole (their rows are below h·HW <= s),
    // slot h above s.
    // Step s of slot h, U's column s at `off` in the shared memory.
    auto backward_at = [&](int h, int s, int off) {
        if (hl == s - h * HW) {
            if constexpr (!PRE) {
                const T d = Dr[s];
#pragma unroll
                for (int t = 0; t < CPW; ++t) x[h][t] = mul(x[h][t], d);
            }
            publish(x[h], std::integral_constant<int, CPW>());
        }
        __syncwarp();
        bool act[R];
#pragma unroll
        for (int g = 0; g < R; ++g) act[g] = g <= h && ((FOLD && g < h) || hl + HW * g < s);
        update(off, act, std::integral_constant<int, CPW>());
        __syncwarp();
    };
#pragma unroll
    for (int h = R - 1; MULTI && h >= 0; --h) {
#pragma unroll
        for (int q = 1; q >= 0; --q) {
            const int j = 2 * h + q, lo = h * HW + 16 * q;
            if (j < 31 && ((UM >> (j + 1)) & 1u) && 16 * (j + 1) < n) {
                const int cl = 16 * part_start(UM, j), so = up_of(cl);
                __syncthreads();
                stage_triangle(false, cl, 16 * (j + 1), so);
                cp_async_wait();
                if constexpr (PRE) scale_upper(cl, 16 * (j + 1), so);
                __syncthreads();
            }
            const int sub = up_of(16 * part_start(UM, j));
#pragma unroll 1
            for (int s = min(n, lo + 16) - 1; s >= lo; --s) backward_at(h, s, s * (s - 1) / 2 - sub);
        }
    }
#pragma unroll
    for (int h = R - 1; !MULTI && h >= 0; --h) {
        if constexpr (TWO) {
            if (h == PH - 1) {
                __syncthreads();
                stage_triangle(false, 0, S, 0);
                cp_async_wait();
                if constexpr (PRE) scale_upper(0, S, 0);
                __syncthreads();
            }
        }
        if constexpr (THREE) {
            if (h == UB - 1 || h == UA - 1) {
                const int cl = h == UB - 1 ? ua : 0, ch = h == UB - 1 ? ub : ua, so = h == UB - 1 ? oUa : 0;
                __syncthreads();
                stage_triangle(false, cl, ch, so);
                cp_async_wait();
                if constexpr (PRE) scale_upper(cl, ch, so);
                __syncthreads();
            }
        }
        const int sub = THREE ? (h >= UB ? oUb : h >= UA ? oUa : 0) : TWO && h >= PH ? offU : 0;
#pragma unroll 1
        for (int s = min(n, h * HW + HW) - 1; s >= h * HW; --s)
            backward_at(h, s, TRI ? s * (s - 1) / 2 - sub + xu : s * n);
    }
#pragma unroll
    for (int g = 0; g < R; ++g) {
        if (PRE && hl + HW * g < n) {
            const T d = Dr[hl + HW * g];
#pragma unroll
            for (int t = 0; t < CPW; ++t) x[g][t] = mul(x[g][t], d);
        }
    }
    T* X = inv + (i64)k * inv_stride;
#pragma unroll
    for (int t = 0; t < CPW; ++t) {
        const int c = col_of(t);
        if (c < n) {
            const int col = bad ? c : at[c];
#pragma unroll
            for (int g = 0; g < R; ++g)
                if (hl + HW * g < n) X[hl + HW * g + (i64)col * n] = bad ? nan_t<T>() : x[g][t];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 32 < n <= NMAX (f32 to 64, f64 to 48, c64 to 36), uniform batches: LU with the whole matrix in the
// registers of one block of NW warps, one row per thread slot (thread t holds rows t, t + 32·NW,
// ... : R slots), every column of its rows. As in `getrf_small`, a row never moves: `pos` is
// its logical position and an interchange swaps two positions. Step k: each warp finds its
// best candidate of column k by hardware reductions, and the lane holding that row writes the
// row (columns k..) to the warp's slot of a buffer in shared memory (two buffers alternating
// by step); one block barrier (none for one warp); every thread reads the warps' candidates,
// takes the winner's row as the pivot row and updates its own rows with it. The steps are
// unrolled at compile time, so every register index is a constant.

// The pivot search's key in the integer width of the real type (see `pivot_key`): one
// 32-bit reduction for f32 instead of a 64-bit key's two.
__device__ __forceinline__ unsigned long long row_key(double a1, bool cand) { return pivot_key(a1, cand); }
__device__ __forceinline__ unsigned row_key(float a1, bool cand) {
    return cand ? (a1 == a1 ? __float_as_uint(a1) + 2u : 1u) : 0u;
}

// `group_argmax` over a whole warp for either key width.
__device__ __forceinline__ int warp_argmax(unsigned long long key, int pos, unsigned long long& kmax) {
    return group_argmax<double>(key, pos, 0xffffffffu, kmax);
}
__device__ __forceinline__ int warp_argmax(unsigned key, int pos, unsigned& kmax) {
    kmax = __reduce_max_sync(0xffffffffu, key);
    return (int)__reduce_min_sync(0xffffffffu, key == kmax && key != 0u ? (unsigned)pos : 0x7fffffffu);
}

// A warp's best candidate of a step, for the block-wide choice.
struct __align__(16) RowCand {
    unsigned long long key;
    int pos, pad;
};

// Shared memory of `getrf_rows`: two row buffers and two candidate slots per warp.
template <class T, int NW, int NMAX> __host__ __device__ constexpr int rows_smem() {
    return 2 * NW * (NMAX * (int)sizeof(T) + (int)sizeof(RowCand));
}

template <class T, int NW, int R, int NMAX, int CH> struct RowsLU {
    typedef typename Real<T>::type RT;
    typedef typename std::conditional<sizeof(RT) == 8, unsigned long long, unsigned>::type KT;
    typedef Pack<T> PK;
    static constexpr int E = PK::N, CP = NMAX / E, NT = 32 * NW;
    static constexpr bool CB = chunk_bound<T>();
    static_assert(NMAX % E == 0, "NMAX is a whole number of 16-byte packs");
    static_assert(NMAX % CH == 0, "whole chunks");
    T v[R][NMAX];
    int pos[R], mypiv[R];
    bool live[R];
    int inf, n, t, lane, w;
    PK* rows;       // [2][NW][CP]
    RowCand* cand;  // [2][NW]

    // Step k of the chunk whose first step is c (a compile-time constant; k = c when CH = 1):
    // column k is read by a select over the chunk, and the update covers the columns c.., those
    // at or left of k masked.
    template <int c> __device__ __forceinline__ void step(const int k) {
        if (k >= n) return;
        KT key = 0;
        int kpos = ROW_NONE;
#pragma unroll
        for (int i = 0; i < R; ++i) {
            const KT kk = row_key(abs1(chunk_get<CH>(v[i], c, k)), live[i] && pos[i] >= k);
            if (kk > key || (kk == key && pos[i] < kpos)) {
                key = kk;
                kpos = pos[i];
            }
        }
        KT kmax;
        const int p = warp_argmax(key, kpos, kmax);
        const int b = k & 1;
        PK* rb = rows + (b * NW + w) * CP;
#pragma unroll
        for (int i = 0; i < R; ++i) {
            if (pos[i] == p) {
#pragma unroll
                for (int q = c / E; q < CP; ++q) {
                    PK pk;
#pragma unroll
                    for (int e = 0; e < E; ++e) pk.v[e] = v[i][q * E + e];
                    rb[q] = pk;
                }
            }
        }
        unsigned long long K = kmax;
        int P = p, W = 0;
        if constexpr (NW > 1) {
            if (lane == 0) cand[b * NW + w] = RowCand{(unsigned long long)kmax, p, 0};
            __syncthreads();
            const RowCand c0 = cand[b * NW];
            K = c0.key;
            P = c0.pos;
#pragma unroll
            for (int ww = 1; ww < NW; ++ww) {
                const RowCand cw = cand[b * NW + ww];
                if (cw.key > K || (cw.key == K && cw.pos < P)) {
                    K = cw.key;
                    P = cw.pos;
                    W = ww;
                }
            }
        } else {
            __syncwarp();
        }
        const PK* ub = rows + (b * NW + W) * CP;
        const T pv = reinterpret_cast<const T*>(ub)[k];
        if (K == 2ull && inf == 0) inf = k + 1;
        T nl[R];
        bool below[R];
#pragma unroll
        for (int i = 0; i < R; ++i) {
            if (t + NT * i == k) mypiv[i] = P + 1;
            pos[i] = swapped(pos[i], P, k);
            below[i] = live[i] && pos[i] > k;
            T l = chunk_get<CH>(v[i], c, k);
            if (below[i] && !is_zero_v(pv)) l = div_s(l, pv);
            if (below[i]) chunk_set<CH>(v[i], c, k, l);
            nl[i] = neg(l);
        }
        // 16 bytes of the pivot row at a time, each read right before its updates.
#pragma unroll
        for (int q = c / E; q < CP; ++q) {
            const PK u = ub[q];
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const int col = q * E + e;
                if (col < c) continue;
#pragma unroll
                for (int i = 0; i < R; ++i)
                    if (below[i] && ((CB && col >= c + CH) || col > k)) v[i][col] = madd(nl[i], u.v[e], v[i][col]);
            }
        }
    }
    template <int... C> __device__ __forceinline__ void steps(std::integer_sequence<int, C...>) {
        (chunk<C * CH>(), ...);
    }
    template <int c> __device__ __forceinline__ void chunk() {
        if constexpr (CH == 1) {
            step<c>(c);
        } else {
            const int end = min(c + CH, n);
#pragma unroll 1
            for (int k = c; k < end; ++k) step<c>(k);
        }
    }
};

// Inlined into its kernel: left to the compiler, the module's largest instantiation stayed a
// call (f32 at 64, or at 60 once 64 ran in chunks), with other registers than inlined.
template <class T, int NW, int R, int NMAX, int CH>
__device__ __forceinline__ void getrf_rows(T* __restrict__ a, int* __restrict__ ipiv, int* __restrict__ info, int n, i64 stride,
                           unsigned char* smem) {
    typedef RowsLU<T, NW, R, NMAX, CH> S;
    S s;
    s.n = n;
    s.t = threadIdx.x;
    s.lane = s.t & 31;
    s.w = s.t >> 5;
    s.rows = reinterpret_cast<typename S::PK*>(smem);
    s.cand = reinterpret_cast<RowCand*>(s.rows + 2 * NW * S::CP);
    const i64 mk = blockIdx.x;
    T* A = a + mk * stride;
#pragma unroll
    for (int i = 0; i < R; ++i) {
        const int row = s.t + S::NT * i;
        s.live[i] = row < n;
        s.pos[i] = row;
        s.mypiv[i] = 0;
#pragma unroll
        for (int c = 0; c < NMAX; ++c) s.v[i][c] = (s.live[i] && c < n) ? A[row + (i64)c * n] : zero<T>();
    }
    s.inf = 0;
    s.steps(std::make_integer_sequence<int, NMAX / CH>{});
    // Validation after the steps, as in `getrf_small`: non-finite factors only come from
    // non-finite input or an overflow, and the matrix, not yet written, tells them apart.
    bool nf = false;
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
        for (int c = 0; c < NMAX; ++c) nf |= s.live[i] && c < n && !finite_t(s.v[i][c]);
    if (__syncthreads_or(nf)) {
        int bad = NO_BAD;
        for (int i = 0; i < R; ++i) {
            const int row = s.t + S::NT * i;
            for (int c = n - 1; s.live[i] && c >= 0; --c)
                if (!finite_t(A[row + (i64)c * n])) bad = min(bad, row + c * n);
        }
        // The row buffers are free once every thread is past the last step's reads.
        __syncthreads();
        const int e = block_min_bad(bad, reinterpret_cast<int*>(smem));
        if (e != NO_BAD) {
            for (int i = s.t; i < n; i += S::NT) ipiv[mk * n + i] = i + 1;
            if (s.t == 0) info[mk] = nonfinite_info(e);
            return;
        }
    }
#pragma unroll
    for (int i = 0; i < R; ++i) {
        if (!s.live[i]) continue;
#pragma unroll
        for (int c = 0; c < NMAX; ++c)
            if (c < n) A[s.pos[i] + (i64)c * n] = s.v[i][c];
        ipiv[mk * n + s.t + S::NT * i] = s.mypiv[i];
    }
    if (s.t == 0) info[mk] = s.inf;
}

// ---------------------------------------------------------------------------------------------
// Blocked kernels: one thread block per matrix (getrf) or per (matrix, column chunk) (solves).

// Element (i, k) of op(F) for the factors F: F(i, k) for OP = 0, F(k, i) (conjugated for OP = 2).
template <class T, int OP> struct FacAcc {
    const T* a;
    int ld;
    __device__ __forceinline__ T operator()(int i, int k) const {
        if (OP == 0) return a[i + (i64)k * ld];
        return opc<OP>(a[k + (i64)i * ld]);
    }
    // The address of element (i, k) (OP = 0 only: the others conjugate or transpose).
    __device__ __forceinline__ const T* ptr(int i, int k) const { return a + i + (i64)k * ld; }
};

// `getrf_blocked`'s accessor of L: `FacAcc<T, 0>`, a type of its own so that `panel_gemm` can
// read L by a running pointer in the factorization alone, where `strided_l_loads` says so.
template <class T> struct FactorAcc : FacAcc<T, 0> {};

// The threads that run a blocked kernel's shared steps (`load_diag`, `diag_solve`,
// `panel_gemm`, `lower_solve`) and their barrier: the whole block, or (`AfterWarp0`, the
// look-ahead of `getrf_lookahead`) its warps after the first, on named barrier 1 while warp 0
// factors the panel.
struct WholeBlock {
    static __device__ __forceinline__ unsigned tid() { return threadIdx.x; }
    static __device__ __forceinline__ unsigned count() { return blockDim.x; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
};
struct AfterWarp0 {
    static __device__ __forceinline__ unsigned tid() { return threadIdx.x - 32u; }
    static __device__ __forceinline__ unsigned count() { return blockDim.x - 32u; }
    static __device__ __forceinline__ void sync() { asm volatile("bar.sync 1, %0;" ::"r"(blockDim.x - 32) : "memory"); }
};

// Warp 0 passes `count` barriers of its own (named barrier 2 for 32 threads: no waiting), one
// for each barrier 1 that the other warps pass meanwhile. No ordering depends on them: they keep
// the kernel checkable by compute-sanitizer's racecheck, which, with warp 0 behind the others by
// a few passes of barrier 1, reports hazards between accesses that __syncthreads orders (it
// seems to order warps by the barriers each has passed; the reduced kernel
// benches/fatbin-compare/racecheck_barrier_count.cu gets that report with no race in it; with
// these passes the look-ahead is racecheck-clean, its time unchanged within 0.5 %:
// docs/perf-notes.md, Batched LU Version 22).
__device__ __forceinline__ void pass_barriers(int count) {
    for (int i = 0; i < count; ++i) asm volatile("bar.sync 2, 32;" ::: "memory");
}

// d += a·b on the FP64 tensor cores (m8n8k4): a is 8 × 4 (lane: row lane / 4, column lane % 4),
// b is 4 × 8 (lane: row lane % 4, column lane / 4), d is 8 × 8 (lane: row lane / 4, columns
// 2 (lane % 4) + {0, 1}). Every lane of the warp must take part.
__device__ __forceinline__ void dmma_8x8x4(double& d0, double& d1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
}

// The f64 form of `panel_gemm` on the tensor cores: each warp takes tiles of 8 rows × NB
// columns (NB / 8 accumulator tiles of 8 × 8, two values per lane) and steps through the kk
// columns of M four at a time, KU = 4 steps per round so that four loads of M are in flight at
// once (two tiles per warp with two steps per round measured 2–10 % slower at f64 n = 190).
// M's entries are negated on load (exact), so the tiles accumulate P − M·P. Rows past r_hi
// and columns of M past kk give zero operands and nothing is stored for them. The leading
// dimension ldp ≡ 4 (mod 16) keeps the B-operand loads (four consecutive rows of eight
// columns) free of bank conflicts (see `blocked_ld`).
template <int NB, class G = WholeBlock, class Acc>
__device__ __forceinline__ void panel_gemm_dmma(double* P, int ldp, int r_lo, int r_hi, int kb, int kk, Acc acc) {
    constexpr int NT = NB / 8, KU = 4;
    const int lane = threadIdx.x & 31, nw = G::count() >> 5;
    const int gr = lane >> 2, gc = lane & 3;
    for (int t0 = r_lo + 8 * (int)(G::tid() >> 5); t0 < r_hi; t0 += 8 * nw) {
        const int i = t0 + gr;
        const bool row_ok = i < r_hi;
        double c[NT][2];
#pragma unroll
        for (int t = 0; t < NT; ++t) {
            const double* pc = P + i + (t * 8 + 2 * gc) * ldp;
            c[t][0] = row_ok ? pc[0] : 0.0;
            c[t][1] = row_ok ? pc[ldp] : 0.0;
        }
#pragma unroll 1
        for (int k0 = 0; k0 < kk; k0 += 4 * KU) {
            double av[KU], bv[KU][NT];
#pragma unroll
            for (int u = 0; u < KU; ++u) {
                const int k = k0 + 4 * u + gc;
                const bool k_ok = k < kk;
                av[u] = row_ok && k_ok ? -acc(i, kb + k) : 0.0;
#pragma unroll
                for (int t = 0; t < NT; ++t) bv[u][t] = k_ok ? P[kb + k + (t * 8 + gr) * ldp] : 0.0;
            }
#pragma unroll
            for (int u = 0; u < KU; ++u)
#pragma unroll
                for (int t = 0; t < NT; ++t) dmma_8x8x4(c[t][0], c[t][1], av[u], bv[u][t]);
        }
        if (row_ok) {
#pragma unroll
            for (int t = 0; t < NT; ++t) {
                double* pc = P + i + (t * 8 + 2 * gc) * ldp;
                pc[0] = c[t][0];
                pc[ldp] = c[t][1];
            }
        }
    }
}

// Whether the factorization's CUDA-core update (`panel_gemm` with `FactorAcc`) reads L by a
// running pointer instead of an element-wise accessor, which spends about ten integer
// instructions on each load's 64-bit address and test (16 % of the f32 n = 190 kernel's
// instructions). c64 only: its kernels 2 % (n = 100) to 5 % (n = 256) faster; f32's took 13 %
// longer (its 48-register kernel spilled 124 bytes instead of 16; in chunks of four loads, no
// spill, it was 0–4 % slower) and c128's 0–5 % longer (docs/perf-notes.md, Batched LU
// Version 29).
template <class T> __host__ __device__ constexpr bool strided_l_loads() { return is_c64<T>(); }

// P(r_lo..r_hi, :) -= M(r_lo..r_hi, kb..kb+kk) * P(kb..kb+kk, :), M read through `acc`, for all
// NB columns of the panel (columns past the panel's width and rows past n are zero padding).
// Threads form NB / CPT column groups; each keeps CPT columns of one row in registers and
// reads M in chunks of KC columns.
// With TC (f64 only) the update runs on the tensor cores instead (`panel_gemm_dmma`).
template <class T, int NB, int CPT, bool TC, class GR = WholeBlock, class Acc>
__device__ __forceinline__ void panel_gemm(T* P, int ldp, int r_lo, int r_hi, int kb, int kk, Acc acc) {
    if constexpr (TC && std::is_same<T, double>::value) {
        panel_gemm_dmma<NB, GR>(P, ldp, r_lo, r_hi, kb, kk, acc);
        return;
    }
    constexpr int G = NB / CPT, KC = 8;
    const int g = GR::tid() % G, RT = GR::count() / G;
    if ((int)GR::tid() >= RT * G) return;
    T* Pc = P + g * CPT * ldp;
    for (int i = r_lo + (int)GR::tid() / G; i < r_hi; i += RT) {
        T x[CPT];
#pragma unroll
        for (int c = 0; c < CPT; ++c) x[c] = Pc[i + c * ldp];
        const auto update = [&](const T(&l)[KC], int s0) {
#pragma unroll
            for (int s = 0; s < KC; ++s) {
                const T nl = neg(l[s]);
#pragma unroll
                for (int c = 0; c < CPT; ++c) x[c] = madd(nl, Pc[kb + s0 + s + c * ldp], x[c]);
            }
        };
        if constexpr (std::is_same<Acc, FactorAcc<T>>::value && strided_l_loads<T>()) {
            // M read as stored by a running pointer (two integer instructions per load), tested
            // against kk only in a last, partial chunk.
            const T* lp = acc.ptr(i, kb);
            const i64 ld = acc.ld;
#pragma unroll 1
            for (int s0 = 0; s0 < kk; s0 += KC) {
                T l[KC];
                if (s0 + KC <= kk) {
#pragma unroll
                    for (int s = 0; s < KC; ++s, lp += ld) l[s] = *lp;
                } else {
#pragma unroll
                    for (int s = 0; s < KC; ++s, lp += ld) l[s] = s0 + s < kk ? *lp : zero<T>();
                }
                update(l, s0);
            }
        } else {
#pragma unroll 1
            for (int s0 = 0; s0 < kk; s0 += KC) {
                T l[KC];
#pragma unroll
                for (int s = 0; s < KC; ++s) l[s] = s0 + s < kk ? acc(i, kb + s0 + s) : zero<T>();
                update(l, s0);
            }
        }
#pragma unroll
        for (int c = 0; c < CPT; ++c) Pc[i + c * ldp] = x[c];
    }
}

// Loads the kk x kk diagonal block M(kb.., kb..) into D (leading dimension NB). ASYNC (the
// accessor's OP = 0): by asynchronous copies, complete at `cp_async_wait`.
template <class T, int NB, bool ASYNC = false, class G = WholeBlock, class Acc>
__device__ __forceinline__ void load_diag(T* D, int kb, int kk, Acc acc) {
    for (int e = G::tid(); e < kk * kk; e += G::count()) {
        const int r = e % kk, s = e / kk;
        if constexpr (ASYNC)
            cp_async_elem(D + r + s * NB, acc.ptr(kb + r, kb + s));
        else
            D[r + s * NB] = acc(kb + r, kb + s);
    }
}

// `diag_solve` with two columns per group of NB lanes: columns base + sub and base + sub +
// 32 / NB of each pass, the kk steps unrolled (kk ≤ NB).
template <class T, int NB, bool LOWER, bool UNIT, class G = WholeBlock>
__device__ __forceinline__ void diag_solve_pairs(T* P, int ldp, int kb, int kk, int w, const T* D) {
    constexpr int CPW = 32 / NB;
    const int lane = threadIdx.x & 31, r = lane % NB, sub = lane / NB;
    const int nwarps = G::count() >> 5;
    for (int base = (int)(G::tid() >> 5) * 2 * CPW; base < w; base += nwarps * 2 * CPW) {
        T x[2];
        bool act[2];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            const int c = base + sub + u * CPW;
            act[u] = c < w && r < kk;
            x[u] = act[u] ? P[kb + r + c * ldp] : zero<T>();
        }
#pragma unroll
        for (int q = 0; q < NB; ++q) {
            if (q < kk) {
                const int st = LOWER ? q : kk - 1 - q;
                if (!UNIT && r == st) {
                    const T d = D[st + st * NB];
#pragma unroll
                    for (int u = 0; u < 2; ++u) x[u] = div_s(x[u], d);
                }
                // Rows past kk read stale entries of D: their values are never used or stored.
                const T nd = neg(D[r + st * NB]);
                const bool upd = LOWER ? r > st : r < st;
#pragma unroll
                for (int u = 0; u < 2; ++u) {
                    const T xs = shfl_idx(x[u], st, NB);
                    if (upd) x[u] = madd(nd, xs, x[u]);
                }
            }
        }
#pragma unroll
        for (int u = 0; u < 2; ++u)
            if (act[u]) P[kb + r + (base + sub + u * CPW) * ldp] = x[u];
    }
}

// Solves the kk x kk triangle of D (lower or upper, unit diagonal if UNIT; leading dimension
// NB) for rows kb..kb+kk of the w panel columns, in place. Each column goes to a group of NB
// lanes (lane r holds row r; NB ≤ 32), so a step is one shuffle and one FMA per lane instead
// of a serial loop over the triangle: kk dependent steps per column, every warp of the block
// taking 32 / NB columns at a time. Every lane of a warp takes part in the shuffles. (A column
// per thread with the column in registers issues a seventh of the instructions but measured
// slower in most kernels: docs/perf-notes.md, Batched LU Version 11.)
//
// With PAIRS, each group of NB lanes takes two columns at once (two independent chains per
// step, one read of D for both) and the steps are unrolled over NB: the factorizations of f32,
// c64 and c128, chosen from builds of single variants where it was 1–4 % faster at n = 190
// and 7 % slower for f64 (Version 12). With NB = 8 one warp takes the whole panel width.
template <class T, int NB, bool LOWER, bool UNIT, bool PAIRS = false, class G = WholeBlock>
__device__ __forceinline__ void diag_solve(T* P, int ldp, int kb, int kk, int w, const T* D) {
    if constexpr (PAIRS) {
        diag_solve_pairs<T, NB, LOWER, UNIT, G>(P, ldp, kb, kk, w, D);
        return;
    }
    constexpr int CPW = 32 / NB;  // columns per warp
    const int lane = threadIdx.x & 31, r = lane % NB, sub = lane / NB;
    const int nwarps = G::count() >> 5;
    for (int base = (int)(G::tid() >> 5) * CPW; base < w; base += nwarps * CPW) {
        const int c = base + sub;
        const bool active = c < w && r < kk;
        T x = active ? P[kb + r + c * ldp] : zero<T>();
        if (LOWER) {
            for (int s = 0; s < kk; ++s) {
                if (!UNIT && active && r == s) x = div_s(x, D[s + s * NB]);
                const T xs = shfl_idx(x, s, NB);
                if (active && r > s) x = madd(neg(D[r + s * NB]), xs, x);
            }
        } else {
            for (int s = kk - 1; s >= 0; --s) {
                if (!UNIT && active && r == s) x = div_s(x, D[s + s * NB]);
                const T xs = shfl_idx(x, s, NB);
                if (active && r < s) x = madd(neg(D[r + s * NB]), xs, x);
            }
        }
        if (active) P[kb + r + c * ldp] = x;
    }
}

// The barriers (G::sync) `lower_solve` passes with these arguments.
template <int NB, bool LATE> __device__ __forceinline__ int lower_solve_barriers(int n, int kstart, int kend) {
    const int rend = LATE ? kend : n;
    int s = 0;
    for (int kb = kstart; kb < kend; kb += NB) s += kb + min(NB, kend - kb) < rend ? 3 : 2;
    return s + (LATE && rend < n && kstart < kend ? 1 : 0);
}

// Forward substitution on the panel: rows kstart..kend of P solved with the lower triangle of M
// (unit diagonal if UNIT), rows kend..n updated; rows above kstart must be zero (they are
// neither read nor written) and kstart a multiple of NB. Starts and ends with the panel
// consistent across the block (syncs included).
//
// With LATE, each diagonal block's update reaches rows up to kend only, and rows kend..n then
// take the whole update by rows kstart..kend in one pass, their values in registers from the
// first column to the last (getrf's f64 panels: the rows below the panel's diagonal are not
// needed by the diagonal solves, so they wait for the end instead of being loaded, updated by
// NB columns, stored back and waited for once per diagonal block).
// PAIRS: `diag_solve`'s two-column form. ASYNC (M read as it is stored): each diagonal block is
// copied asynchronously while the previous block's update runs (D is free once its solve is
// done), instead of loaded between two barriers.
template <class T, int NB, int CPT, bool UNIT, bool TC, bool LATE, bool PAIRS = false, bool ASYNC = false,
          class G = WholeBlock, class Acc>
__device__ void lower_solve(T* P, int ldp, int n, int w, int kstart, int kend, Acc acc, T* D) {
    const int rend = LATE ? kend : n;
    if constexpr (ASYNC) {
        if (kstart < kend) load_diag<T, NB, true, G>(D, kstart, min(NB, kend - kstart), acc);
    }
    for (int kb = kstart; kb < kend; kb += NB) {
        const int kk = min(NB, kend - kb);
        if constexpr (ASYNC)
            cp_async_wait();
        else
            load_diag<T, NB, false, G>(D, kb, kk, acc);
        G::sync();
        diag_solve<T, NB, true, UNIT, PAIRS, G>(P, ldp, kb, kk, w, D);
        G::sync();
        if constexpr (ASYNC) {
            if (kb + NB < kend) load_diag<T, NB, true, G>(D, kb + NB, min(NB, kend - kb - NB), acc);
        }
        if (kb + kk < rend) {
            panel_gemm<T, NB, CPT, TC, G>(P, ldp, kb + kk, rend, kb, kk, acc);
            G::sync();
        }
    }
    if (LATE && rend < n && kstart < kend) {
        panel_gemm<T, NB, CPT, TC, G>(P, ldp, rend, n, kstart, kend - kstart, acc);
        G::sync();
    }
}

// Backward substitution on the panel with the upper triangle of M (unit diagonal if UNIT).
// ASYNC: as in `lower_solve`.
template <class T, int NB, int CPT, bool UNIT, bool TC, bool ASYNC = false, class Acc>
__device__ void upper_solve(T* P, int ldp, int n, int w, Acc acc, T* D) {
    const int nblk = (n + NB - 1) / NB;
    if constexpr (ASYNC) load_diag<T, NB, true>(D, (nblk - 1) * NB, n - (nblk - 1) * NB, acc);
    for (int b = nblk - 1; b >= 0; --b) {
        const int kb = b * NB, kk = min(NB, n - kb);
        if constexpr (ASYNC)
            cp_async_wait();
        else
            load_diag<T, NB>(D, kb, kk, acc);
        __syncthreads();
        diag_solve<T, NB, false, UNIT>(P, ldp, kb, kk, w, D);
        __syncthreads();
        if constexpr (ASYNC) {
            if (b > 0) load_diag<T, NB, true>(D, kb - NB, NB, acc);
        }
        panel_gemm<T, NB, CPT, TC>(P, ldp, 0, kb, kb, kk, acc);
        __syncthreads();
    }
}

// Leading dimension of a blocked kernel's panel of np rows: np itself, except for f64, where it is
// the next value ≡ 4 (mod 16): the tensor-core update loads four consecutive rows of eight
// columns at once, and with this stride the eight columns fall on distinct banks two by two.
template <class T> __host__ __device__ constexpr int blocked_ld(int np) {
    return std::is_same<T, double>::value ? np + ((4 - np % 16) + 16) % 16 : np;
}

// Whether `getrf_blocked` factors its panel with the whole block (`panel_block`: complex types)
// or with one warp (`panel_warp`: real types), and whether its forward substitution gives the
// rows below the panel's diagonal their whole update in one pass at the end (f64, whose
// update runs on the tensor cores). Measured per type: docs/perf-notes.md, Batched LU
// Version 11.
template <class T> __host__ __device__ constexpr bool block_panel() {
    return !std::is_same<typename Real<T>::type, T>::value;
}
template <class T> __host__ __device__ constexpr bool late_rows() { return std::is_same<T, double>::value; }
// Whether the factorization's diagonal solves take two columns per lane group (all but f64,
// where it was 7 % slower at n = 190) and whether the interchanges reach the columns left of
// the panel through `swap_list` (all but c128, whose kernel spilled more with it and was 7 %
// slower at n = 190 without interchanges). Chosen from builds of single variants:
// docs/perf-notes.md, Batched LU Version 12, which also has the library build's measurements.
template <class T> __host__ __device__ constexpr bool diag_pairs() { return !std::is_same<T, double>::value; }
template <class T> __host__ __device__ constexpr bool list_swaps() { return !std::is_same<T, cf64>::value; }
// Whether the blocked factorization checks its matrix itself (f64: while warp 0 factors the first
// panel, the other warps read the matrix; 2–5.5 % of the kernel's time) or finds the marks of
// `nonfinite_info_scan` (the other types, whose kernels lost 15–40 % to the check inside).
template <class T> __host__ __device__ constexpr bool validate_inside() { return std::is_same<T, double>::value; }
// Whether `getrf_blocked` copies L's diagonal blocks asynchronously during the previous block's
// update (`lower_solve`'s ASYNC): 4–8 % faster for f32, c64 and c128 at 100..190, 2 % slower
// for f64 at 190 (docs/perf-notes.md, Batched LU Version 18).
template <class T> __host__ __device__ constexpr bool async_diag() { return !std::is_same<T, double>::value; }
// The same for `solve_blocked`'s substitutions (N solves and the inverse): f64 and c64, whose
// solves and inverse it sped up by 3–10 %; f32's solves took 15–20 % longer with it, c128's
// 0–4 % (harness, docs/perf-notes.md, Batched LU Version 18).
template <class T> __host__ __device__ constexpr bool async_solve_diag() { return sizeof(T) == 8; }

// Shared memory of the blocked kernels: panel (ld x NB: np = n rounded up to a multiple of NB
// rows, ld = blocked_ld(np) its leading dimension, padding zero), diagonal block (NB x NB), the
// permutation (n ints, rounded up to a multiple of 4), where the block factors the panel
// (`block_panel`) the argmax scratch (32 reals, 32 ints) and, in the factorization where
// `list_swaps`, the interchange list (4 NB ints). (The list once shared the diagonal block's
// space, which is free while it is used: the f64 kernel then took 66 registers instead of 64,
// so seven blocks per multiprocessor instead of eight, and 6 % longer at n = 190;
// docs/perf-notes.md, Batched LU Version 12.)
template <class T, int NB> struct Smem {
    T* P;
    T* D;
    int* perm;
    typename Real<T>::type* red_v;
    int* red_i;
    int ld;
    // pad: the leading dimension of `blocked_ld` (for the tensor-core update), else np.
    __device__ Smem(unsigned char* base, int n, bool pad = true) {
        const int np = (n + NB - 1) / NB * NB;
        ld = pad ? blocked_ld<T>(np) : np;
        P = reinterpret_cast<T*>(base);
        D = P + (i64)ld * NB;
        perm = reinterpret_cast<int*>(D + NB * NB);
        red_v = reinterpret_cast<typename Real<T>::type*>(perm + ((n + 3) & ~3));
        red_i = reinterpret_cast<int*>(red_v + 32);
        swp = block_panel<T>() ? red_i + 32 : reinterpret_cast<int*>(red_v);
    }
    // The factorization's interchange list (`swap_list`: 4 NB ints, where `list_swaps`), after
    // the permutation or the argmax scratch.
    int* swp;
};

// |v| back from a pivot key of 2 or more (see `pivot_key`).
__device__ __forceinline__ double key_value(unsigned long long key, double) { return __longlong_as_double((i64)(key - 2ull)); }
__device__ __forceinline__ float key_value(unsigned long long key, float) { return __uint_as_float((unsigned)(key - 2ull)); }

// Block-wide argmax of (v, i) (every thread gets the result); v is −1 (no candidate, i =
// ROW_NONE) or a number ≥ 0. Each warp reduces by hardware reductions on the pivot key, then
// the warps' results meet in shared memory. One __syncthreads; the scratch may be reused after
// the caller's next __syncthreads.
template <class R> __device__ __forceinline__ void block_argmax(R& v, int& i, R* red_v, int* red_i) {
    unsigned long long kmax;
    const int iw = group_argmax<R>(v >= (R)0 ? pivot_key(v, true) : 0ull, i, 0xffffffffu, kmax);
    if ((threadIdx.x & 31) == 0) {
        red_v[threadIdx.x >> 5] = kmax >= 2ull ? key_value(kmax, (R)0) : (R)-1;
        red_i[threadIdx.x >> 5] = kmax >= 2ull ? iw : ROW_NONE;
    }
    __syncthreads();
    const int nw = (blockDim.x + 31) >> 5;
    v = red_v[0];
    i = red_i[0];
    for (int w = 1; w < nw; ++w) better(v, i, red_v[w], red_i[w]);
}

// Step j of a panel's factorization chose row p (0-based): the pivot goes to ipiv[j] (1-based)
// and the logical rows j and p of `perm` are exchanged. One thread.
__device__ __forceinline__ void record_pivot(int* ipiv, int* perm, int j, int p) {
    ipiv[j] = p + 1;
    const int t = perm[j];
    perm[j] = perm[p];
    perm[p] = t;
}

// Exchanges rows j and p of column t of the panel P (leading dimension ldp).
template <class T> __device__ __forceinline__ void swap_panel_rows(T* P, int ldp, int j, int p, int t) {
    const T s = P[j + t * ldp];
    P[j + t * ldp] = P[p + t * ldp];
    P[p + t * ldp] = s;
}

// The whole block's factorization of the panel (the same contract as `panel_warp`): the rows
// are spread over every thread, two block barriers per column (the interchange, the argmax).
// Ends with the panel consistent across the block.
template <class T, int NB>
__device__ int panel_block(T* P, int ldp, int n, int j0, int w, int* ipiv, Smem<T, NB>& sm, int inf, int& piv_c) {
    typedef typename Real<T>::type R;
    R v = (R)-1;
    int p = ROW_NONE;
    for (int i = j0 + threadIdx.x; i < n; i += blockDim.x) better(v, p, abs1(P[i]), i);
    block_argmax(v, p, sm.red_v, sm.red_i);
    // No comparable entry (NaN only, after an overflow): pivot on the diagonal row.
    if (p == ROW_NONE) p = j0;
    for (int c = 0; c < w; ++c) {
        const int j = j0 + c;
        if (list_swaps<T>() && threadIdx.x == (unsigned)c) piv_c = p;
        if (threadIdx.x == 0) {
            if (v == (R)0 && inf == 0) inf = j + 1;
            record_pivot(ipiv, sm.perm, j, p);
        }
        if (p != j && threadIdx.x < (unsigned)w) swap_panel_rows(P, ldp, j, p, threadIdx.x);
        __syncthreads();
        const T piv = P[j + c * ldp];
        const bool scale = !is_zero_v(piv);
        v = (R)-1;
        p = ROW_NONE;
        for (int i = j + 1 + threadIdx.x; i < n; i += blockDim.x) {
            T l = P[i + c * ldp];
            if (scale) l = div_s(l, piv);
            P[i + c * ldp] = l;
            const T nl = neg(l);
            for (int c2 = c + 1; c2 < w; ++c2) {
                const T u = madd(nl, P[j + c2 * ldp], P[i + c2 * ldp]);
                P[i + c2 * ldp] = u;
                if (c2 == c + 1) better(v, p, abs1(u), i);
            }
        }
        if (c + 1 < w) {
            block_argmax(v, p, sm.red_v, sm.red_i);
            if (p == ROW_NONE) p = j + 1;
        } else {
            __syncthreads();
        }
    }
    return inf;
}

extern __shared__ __align__(16) unsigned char dyn_smem[];

// Rows per lane that `panel_warp` keeps in registers at once (the multipliers of one step).
constexpr int PANEL_S = 4;

// Warp 0's factorization of the panel: rows j0..n of its w columns in P (leading dimension
// ldp), right-looking, partial pivoting by LAPACK's rule. Writes the pivots ipiv[j0..j0+w)
// (1-based), exchanges the panel's rows and the logical rows in `perm`, and returns `inf`
// updated with the first exactly zero pivot (1-based); where `list_swaps`, lane c (thread c of
// the block in `panel_block`) also keeps column c's pivot row (0-based) in `piv_c`, for
// `swap_list`. Lane l handles the rows j + 1 + l + 32 s; the candidates of the next column are
// ranked during the update that produces them. (Its loop
// over the update's columns unrolled over the panel width made the kernel 35 % slower at f64
// n = 190; docs/perf-notes.md, Batched LU Version 11.)
template <class T>
__device__ int panel_warp(T* P, int ldp, int n, int j0, int w, int* ipiv, int* perm, int inf, int& piv_c) {
    typedef typename Real<T>::type R;
    const int lane = threadIdx.x & 31;
    R v = (R)-1;
    int p = ROW_NONE;
    for (int i = j0 + lane; i < n; i += 32) better(v, p, abs1(P[i]), i);
    for (int c = 0; c < w; ++c) {
        const int j = j0 + c;
        unsigned long long kmax;
        const int iw = group_argmax<R>(v >= (R)0 ? pivot_key(v, true) : 0ull, p, 0xffffffffu, kmax);
        // No comparable entry (NaN only, after an overflow): pivot on the diagonal row.
        p = kmax >= 2ull ? iw : j;
        if (list_swaps<T>() && lane == c) piv_c = p;
        if (lane == 0) {
            if (kmax >= 2ull && key_value(kmax, (R)0) == (R)0 && inf == 0) inf = j + 1;
            record_pivot(ipiv, perm, j, p);
        }
        if (p != j)
            for (int t = lane; t < w; t += 32) swap_panel_rows(P, ldp, j, p, t);
        __syncwarp();
        const T piv = P[j + c * ldp];
        const bool scale = !is_zero_v(piv);
        v = (R)-1;
        p = ROW_NONE;
        for (int i0 = j + 1 + lane; i0 < n; i0 += 32 * PANEL_S) {
            T l[PANEL_S];
#pragma unroll
            for (int s = 0; s < PANEL_S; ++s) {
                const int i = i0 + 32 * s;
                l[s] = zero<T>();
                if (i < n) {
                    T x = P[i + c * ldp];
                    if (scale) x = div_s(x, piv);
                    P[i + c * ldp] = x;
                    l[s] = neg(x);
                }
            }
            if (c + 1 < w) {
                const T u = P[j + (c + 1) * ldp];
#pragma unroll
                for (int s = 0; s < PANEL_S; ++s) {
                    const int i = i0 + 32 * s;
                    if (i < n) {
                        const T x = madd(l[s], u, P[i + (c + 1) * ldp]);
                        P[i + (c + 1) * ldp] = x;
                        better(v, p, abs1(x), i);
                    }
                }
            }
            for (int c2 = c + 2; c2 < w; ++c2) {
                const T u = P[j + c2 * ldp];
#pragma unroll
                for (int s = 0; s < PANEL_S; ++s) {
                    const int i = i0 + 32 * s;
                    if (i < n) P[i + c2 * ldp] = madd(l[s], u, P[i + c2 * ldp]);
                }
            }
        }
        __syncwarp();
    }
    return inf;
}

// Warp 0, after the panel j0..j0+w (lane c holding column c's pivot row, 0-based, in piv_c):
// the rows its interchanges touch, rows j0..j0+w (entries 0..w) and their pivot rows (entries
// NB..NB+w, repeats allowed), each with the row whose content, as stored before the panel, it
// now holds. The w transpositions run on lane-held entries (lane l: entries l, l + 32), by
// ballots and shuffles. Writes swp[t] = the row, swp[2NB + t] = its source, for t < 2NB
// (unused entries: −1). (A first form read the pivots back from `ipiv` in global memory, one
// round trip to L2 per column on warp 0's path while the block waits; Version 12.)
template <int NB>
__device__ __forceinline__ void swap_list(int piv_c, int j0, int w, int* swp) {
    constexpr int E = (2 * NB + 31) / 32;
    const int lane = threadIdx.x & 31;
    int row[E], src[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const int t = lane + 32 * e;
        const int pt = __shfl_sync(0xffffffffu, piv_c, (t - NB) & 31);
        row[e] = -1;
        if (t < w) row[e] = j0 + t;
        else if (t >= NB && t - NB < w) row[e] = pt;
        src[e] = row[e];
    }
    for (int c = 0; c < w; ++c) {
        const int j = j0 + c, p = __shfl_sync(0xffffffffu, piv_c, c);
        if (p == j) continue;
        // Every entry of a row holds the same source: read it from the first.
        int sj = 0, sp = 0;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const unsigned mj = __ballot_sync(0xffffffffu, row[e] == j);
            const unsigned mp = __ballot_sync(0xffffffffu, row[e] == p);
            const int xj = __shfl_sync(0xffffffffu, src[e], mj ? __ffs(mj) - 1 : 0);
            const int xp = __shfl_sync(0xffffffffu, src[e], mp ? __ffs(mp) - 1 : 0);
            if (mj) sj = xj;
            if (mp) sp = xp;
        }
#pragma unroll
        for (int e = 0; e < E; ++e) {
            if (row[e] == j) src[e] = sp;
            else if (row[e] == p) src[e] = sj;
        }
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const int t = lane + 32 * e;
        if (t < 2 * NB) {
            swp[t] = row[e];
            swp[2 * NB + t] = src[e];
        }
    }
}

// The panel's interchanges applied to the columns 0..j0 of A in global memory, from the list of
// `swap_list`: a warp per column, lane l moving entries l (and l + 32), the loads of UC columns
// issued before their stores. (A thread per column stepping through the w interchanges waited
// for two dependent loads at each: 20 % of the f64 n = 190 factorization with an interchange
// at every step; with this form that factorization takes 20 % less time, Version 12.)
template <class T, int NB>
__device__ __forceinline__ void left_swaps(T* a, int n, int j0, const int* swp) {
    constexpr int E = (2 * NB + 31) / 32, UC = 4;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int dst[E], src[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const int t = lane + 32 * e;
        dst[e] = t < 2 * NB ? swp[t] : -1;
        src[e] = t < 2 * NB ? swp[2 * NB + t] : -1;
        if (dst[e] == src[e]) dst[e] = -1;
    }
    for (int c0 = wid * UC; c0 < j0; c0 += nw * UC) {
        T v[UC][E];
#pragma unroll
        for (int u = 0; u < UC; ++u)
#pragma unroll
            for (int e = 0; e < E; ++e)
                if (c0 + u < j0 && dst[e] >= 0) v[u][e] = a[src[e] + (i64)(c0 + u) * n];
        __syncwarp();
#pragma unroll
        for (int u = 0; u < UC; ++u)
#pragma unroll
            for (int e = 0; e < E; ++e)
                if (c0 + u < j0 && dst[e] >= 0) a[dst[e] + (i64)(c0 + u) * n] = v[u][e];
    }
}

// The interchanges of the panel j0..j0 + w applied to the columns left of it: from the swap
// list (`left_swaps`) where `list_swaps`, else (c128) a thread per column stepping through the
// pivots in ipiv.
template <class T, int NB>
__device__ __forceinline__ void swap_left_columns(T* a, int n, int j0, int w, const int* ipiv, const int* swp) {
    if constexpr (list_swaps<T>()) {
        left_swaps<T, NB>(a, n, j0, swp);
    } else {
        for (int col = threadIdx.x; col < j0; col += blockDim.x) {
            T* x = a + (i64)col * n;
            for (int c = 0; c < w; ++c) {
                const int j = j0 + c, p = ipiv[j] - 1;
                if (p != j) {
                    const T t = x[j];
                    x[j] = x[p];
                    x[p] = t;
                }
            }
        }
    }
}

// Rows r0..r1 of the panel whose first column is column jc of A (wc columns; NB in P, the
// padding zero) gathered through the permutation by asynchronous copies of the threads of G.
template <class T, int NB, class G>
__device__ __forceinline__ void gather_panel(T* P, int ldp, const T* a, const int* perm, int n, int r0, int r1, int jc,
                                             int wc) {
    for (int c = 0; c < NB; ++c)
        for (int i = r0 + G::tid(); i < r1; i += G::count()) {
            if (i < n && c < wc)
                cp_async_elem(P + i + c * ldp, a + perm[i] + (i64)(jc + c) * n);
            else
                P[i + c * ldp] = zero<T>();
        }
}

// Whether the factorization's block k has nothing to do: an empty matrix (info 0 written) or,
// where the kernel does not check its matrix itself (`validate_inside`), one the scan marked
// non-finite (left as it was: the scan wrote its pivots and info).
template <class T> __device__ __forceinline__ bool factor_skipped(int* info, int k, int n) {
    if (n == 0) {
        if (threadIdx.x == 0) info[k] = 0;
        return true;
    }
    return !validate_inside<T>() && info[k] < 0;
}

// The logical-row permutation in shared memory set to the identity, for the whole block.
__device__ __forceinline__ void identity_perm(int* perm, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) perm[i] = i;
    __syncthreads();
}

template <class T, int NB, int CPT>
__device__ void getrf_blocked(T* __restrict__ abase, int* __restrict__ pivbase, int* __restrict__ info, Batch b) {
    const int k = blockIdx.x;
    const int n = b.order(k);
    if (factor_skipped<T>(info, k, n)) return;
    T* a = abase + b.a_at(k);
    int* ipiv = pivbase + b.p_at(k);
    Smem<T, NB> sm(dyn_smem, n);
    T* P = sm.P;
    const int ldp = sm.ld;
    identity_perm(sm.perm, n);
    int inf = 0;
    int j0 = 0;
    for (; j0 < n; j0 += NB) {
        const int w = min(NB, n - j0);
        const bool last = j0 + NB >= n;
        // The panel's gather through the permutation, by asynchronous copies (the padding
        // stored as zeros).
        gather_panel<T, NB, WholeBlock>(P, ldp, a, sm.perm, n, 0, ldp, j0, w);
        cp_async_wait();
        __syncthreads();
        // The columns left of the panel hold L with every interchange so far applied (in
        // LAPACK order), so the update reads them straight, coalesced.
        lower_solve<T, NB, CPT, true, true, late_rows<T>(), diag_pairs<T>(), async_diag<T>()>(
            P, ldp, n, w, 0, j0, FactorAcc<T>{{a, n}}, sm.D);
        // Factor the panel's rows j0..n (right-looking inside the panel). Real types: warp 0
        // alone, the argmax a warp reduction and the steps ordered by the warp's own
        // synchronisation, so one block barrier for the panel instead of two per column (the
        // other warps wait at it, which costs no issue slots: the blocks beside this one use
        // them). Complex types: the whole block (their divisions and updates are four times
        // the work, and one warp took 5–11 % longer).
        int* swp = sm.swp;
        int piv_c = 0;
        // Validation (`validate_inside`), before the first store into a (the panel's, below):
        // the smallest position of a non-finite entry, read by the other warps while warp 0
        // factors the first panel (by warp 0 after the panel in a block of one warp).
        int bad = NO_BAD;
        if constexpr (block_panel<T>()) {
            inf = panel_block<T, NB>(P, ldp, n, j0, w, ipiv, sm, inf, piv_c);
            if constexpr (list_swaps<T>()) {
                if (threadIdx.x < 32) swap_list<NB>(piv_c, j0, w, swp);
                __syncthreads();
            }
        } else {
            if (threadIdx.x < 32) {
                inf = panel_warp<T>(P, ldp, n, j0, w, ipiv, sm.perm, inf, piv_c);
                if constexpr (list_swaps<T>()) swap_list<NB>(piv_c, j0, w, swp);
                if (validate_inside<T>() && j0 == 0 && blockDim.x == 32)
                    bad = first_nonfinite(a, n * n, threadIdx.x, 32);
            } else if (validate_inside<T>() && j0 == 0) {
                bad = first_nonfinite(a, n * n, threadIdx.x - 32, blockDim.x - 32);
            }
            if (!validate_inside<T>() || j0 > 0) __syncthreads();
        }
        if (validate_inside<T>() && j0 == 0 && __syncthreads_or(bad != NO_BAD)) {
            // The diagonal block is free until the next panel's update.
            const int e = block_min_bad(bad, reinterpret_cast<int*>(sm.D));
            for (int i = threadIdx.x; i < n; i += blockDim.x) ipiv[i] = i + 1;
            if (threadIdx.x == 0) info[k] = nonfinite_info(e);
            return;
        }
        // The panel goes back in LAPACK order; its interchanges (rows j0.. only) are applied to
        // the columns left of it (`left_swaps`; c128: a thread per column). Columns right of the
        // panel stay where they were: the next panel is gathered through the permutation.
        copy_tile<4, T>(
            n, w, [&](int i, int c) { return P[i + c * ldp]; }, [&](int i, int c, T v) { a[i + (i64)(j0 + c) * n] = v; });
        swap_left_columns<T, NB>(a, n, j0, w, ipiv, swp);
        __syncthreads();
        if (last) break;
    }
    if (threadIdx.x == 0) info[k] = inf;
}

// `getrf_blocked` for the real types with a look-ahead: while warp 0 factors the panel j0..j0+NB
// (rows j0..n of P), the other warps already take the next panel's rows 0..j0 (whose logical
// rows no later interchange moves) into the free rows 0..j0 of P and solve them with L's columns
// 0..j0: the forward substitution, all of the left-looking work on those rows, runs beside the
// panel instead of after it, on named barrier 1. The rows 0..j0 of the panel being factored are
// final U before it starts and go back to A first. Once the panel is done, the next panel's rows
// j0..n (their order now known) are gathered, take their update from L's columns 0..j0 in one
// pass, and the diagonal block of the panel just factored finishes them. The same operations in
// the same order as `getrf_blocked`, so the factors are the same bit for bit.
template <class T, int NB, int CPT>
__device__ void getrf_lookahead(T* __restrict__ abase, int* __restrict__ pivbase, int* __restrict__ info, Batch b) {
    static_assert(!block_panel<T>(), "warp 0 factors the panel");
    constexpr bool LATE = late_rows<T>(), PAIRS = diag_pairs<T>(), AS = async_diag<T>();
    const int k = blockIdx.x;
    const int n = b.order(k);
    if (factor_skipped<T>(info, k, n)) return;
    T* a = abase + b.a_at(k);
    int* ipiv = pivbase + b.p_at(k);
    Smem<T, NB> sm(dyn_smem, n);
    T* P = sm.P;
    const int ldp = sm.ld;
    const FacAcc<T, 0> acc{a, n};
    // With one warp there is no one to look ahead: it solves the rows 0..j0 after the panel.
    const bool la = blockDim.x > 32;
    identity_perm(sm.perm, n);
    gather_panel<T, NB, WholeBlock>(P, ldp, a, sm.perm, n, 0, ldp, 0, min(NB, n));
    cp_async_wait();
    __syncthreads();
    int inf = 0;
    for (int j0 = 0;; j0 += NB) {
        const int w = min(NB, n - j0), j1 = j0 + NB;
        const bool last = j1 >= n;
        const int w1 = last ? 0 : min(NB, n - j1);
        // The panel's U rows 0..j0 back to A, by the threads of G.
        auto store_top = [&](auto g) {
            using G = decltype(g);
            if (j0 == 0) return;
            TileWalk t(G::tid(), G::count(), j0);
            for (int e = G::tid(); e < j0 * w; e += G::count(), t.step())
                a[t.row + (i64)(j0 + t.col) * n] = P[t.row + t.col * ldp];
        };
        int piv_c = 0, bad = NO_BAD;
        if (threadIdx.x < 32) {
            inf = panel_warp<T>(P, ldp, n, j0, w, ipiv, sm.perm, inf, piv_c);
            if constexpr (list_swaps<T>()) swap_list<NB>(piv_c, j0, w, sm.swp);
            if (validate_inside<T>() && j0 == 0 && !la) bad = first_nonfinite(a, n * n, threadIdx.x, 32);
            if (!la) store_top(WholeBlock{});
            // As many as the look-ahead below passes.
            if (la && j0 > 0 && !last) pass_barriers(2 + lower_solve_barriers<NB, LATE>(j0, 0, j0));
        } else if (validate_inside<T>() && j0 == 0) {
            bad = first_nonfinite(a, n * n, threadIdx.x - 32, blockDim.x - 32);
        } else if (j0 > 0) {
            // The look-ahead: U rows 0..j0 of this panel stored, the next panel's rows 0..j0 in
            // their place and solved.
            store_top(AfterWarp0{});
            if (!last) {
                AfterWarp0::sync();
                gather_panel<T, NB, AfterWarp0>(P, ldp, a, sm.perm, n, 0, j0, j1, w1);
                cp_async_wait();
                AfterWarp0::sync();
                lower_solve<T, NB, CPT, true, true, LATE, PAIRS, AS, AfterWarp0>(P, ldp, j0, w1, 0, j0, acc, sm.D);
            }
        }
        if (validate_inside<T>() && j0 == 0) {
            if (__syncthreads_or(bad != NO_BAD)) {
                const int e = block_min_bad(bad, reinterpret_cast<int*>(sm.D));
                for (int i = threadIdx.x; i < n; i += blockDim.x) ipiv[i] = i + 1;
                if (threadIdx.x == 0) info[k] = nonfinite_info(e);
                return;
            }
        } else {
            __syncthreads();
        }
        // The panel's rows j0..n go back in LAPACK order; its interchanges reach the columns left
        // of it.
        copy_tile<4, T>(
            n - j0, w, [&](int i, int c) { return P[j0 + i + c * ldp]; },
            [&](int i, int c, T v) { a[j0 + i + (i64)(j0 + c) * n] = v; });
        swap_left_columns<T, NB>(a, n, j0, w, ipiv, sm.swp);
        __syncthreads();
        if (last) break;
        // The next panel: its rows j0..n (rows 0..j0 too, and their solve, without a look-ahead).
        const int r0 = la ? j0 : 0;
        gather_panel<T, NB, WholeBlock>(P, ldp, a, sm.perm, n, r0, ldp, j1, w1);
        cp_async_wait();
        __syncthreads();
        if (!la && j0 > 0) lower_solve<T, NB, CPT, true, true, LATE, PAIRS, AS>(P, ldp, j0, w1, 0, j0, acc, sm.D);
        if (j0 > 0) {
            panel_gemm<T, NB, CPT, true>(P, ldp, j0, n, 0, j0, acc);
            __syncthreads();
        }
        lower_solve<T, NB, CPT, true, true, LATE, PAIRS, AS>(P, ldp, n, w1, j0, j1, acc, sm.D);
    }
    if (threadIdx.x == 0) info[k] = inf;
}

// Solves op(A_k) X = B_k (MODE 0: N, 1: T, 2: C) or computes A_k^{-1} (MODE 3) for the chunk
// of NB right-hand-side columns `blockIdx.x % chunks` of matrix `blockIdx.x / chunks`.
// `info` (nullable) marks matrices whose outputs are filled with NaN instead.
template <class T, int NB, int CPT, int MODE>
__device__ void solve_blocked(const T* __restrict__ abase, const int* __restrict__ pivbase,
                              const int* __restrict__ info, T* __restrict__ xbase, int nrhs, int chunks, Batch b) {
    const int k = blockIdx.x / chunks, ch = blockIdx.x % chunks;
    const int n = b.order(k);
    const int cols = MODE == 3 ? n : nrhs;
    const int c0 = ch * NB;
    if (c0 >= cols || n == 0) return;
    const int w = min(NB, cols - c0);
    const T* a = abase + b.a_at(k);
    const int* ipiv = pivbase + b.p_at(k);
    T* X = xbase + b.x_at(k);
    // The inverse's update stays on the CUDA cores (see `panel_gemm`), so its panel is unpadded.
    Smem<T, NB> sm(dyn_smem, n, MODE != 3);
    T* P = sm.P;
    const int ldp = sm.ld;
    // The singular test: info, or (inverses) an exactly-zero U(j, j); and the pivots' range
    // (one outside 1..n, only from elsewhere than getrf, would index outside the permutation).
    int bad = info != nullptr && info[k] != 0;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const int p = ipiv[j];
        bad |= p < 1 || p > n;
        if (MODE == 3) bad |= is_zero_v(a[j + (i64)j * n]);
    }
    if (__syncthreads_or(bad)) {
        for (int e = threadIdx.x; e < n * w; e += blockDim.x) X[e % n + (i64)(c0 + e / n) * n] = nan_t<T>();
        return;
    }
    if (threadIdx.x == 0) {
        for (int i = 0; i < n; ++i) sm.perm[i] = i;
        for (int j = 0; j < n; ++j) {
            const int p = ipiv[j] - 1;
            const int t = sm.perm[j];
            sm.perm[j] = sm.perm[p];
            sm.perm[p] = t;
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < ldp * NB; e += blockDim.x) {
        const int i = e % ldp, c = e / ldp;
        T v = zero<T>();
        if (i >= n || c >= w) {
        } else if (MODE == 3) v = i == c0 + c ? one_t<T>() : zero<T>();
        else if (MODE == 0) v = X[sm.perm[i] + (i64)(c0 + c) * n];
        else v = X[i + (i64)(c0 + c) * n];
        P[i + c * ldp] = v;
    }
    __syncthreads();
    if (MODE == 0 || MODE == 3) {
        // Inverse: column c0 + c of L⁻¹ is zero above row c0 + c, so the forward solve of the
        // chunk starts at block row c0 (4n³/3 flops for the inverse instead of 2n³).
        constexpr bool AS = async_solve_diag<T>();
        lower_solve<T, NB, CPT, true, MODE != 3, false, false, AS>(P, ldp, n, w, MODE == 3 ? c0 : 0, n,
                                                                   FacAcc<T, 0>{a, n}, sm.D);
        upper_solve<T, NB, CPT, false, MODE != 3, AS>(P, ldp, n, w, FacAcc<T, 0>{a, n}, sm.D);
    } else {
        constexpr int OP = MODE == 2 ? 2 : 1;
        lower_solve<T, NB, CPT, false, true, false>(P, ldp, n, w, 0, n, FacAcc<T, OP>{a, n}, sm.D);
        upper_solve<T, NB, CPT, true, true>(P, ldp, n, w, FacAcc<T, OP>{a, n}, sm.D);
    }
    // A⁻¹ = (U⁻¹·L⁻¹)·Pᵀ: column j of U⁻¹·L⁻¹ is column perm[j] of the inverse.
    for (int e = threadIdx.x; e < n * w; e += blockDim.x) {
        const int i = e % n, c = e / n;
        const int row = (MODE == 1 || MODE == 2) ? sm.perm[i] : i;
        const int col = MODE == 3 ? sm.perm[c0 + c] : c0 + c;
        X[row + (i64)col * n] = P[i + c * ldp];
    }
}

// ---------------------------------------------------------------------------------------------
// Instantiations: <name>_<prefix> (small kernels: _w<W>; blocked kernels: _nb<NB>).

#define BATCH_ARGS int batch, int n, i64 a_stride, i64 x_stride, const int *ns, const i64 *aoff, const i64 *poff, \
                   const i64 *xoff
#define BATCH Batch{n, a_stride, x_stride, ns, aoff, poff, xoff}

// Resident 128-thread blocks asked of ptxas for the register factorization: room for the row
// (W elements) and 32 to 40 more registers. Without a minimum, ptxas keeps more of the pivot
// row in flight and the larger kernels lose a fifth of their resident warps. 32 more at W = 32
// and for c128 at W = 16 (five blocks instead of four: 660 of the 1250 blocks of a batch of
// 10000 at once instead of 528, and the kernel 16 % faster at n = 16; the other types at W = 16
// gained nothing from more blocks, or lost to spills: docs/perf-notes.md, Batched LU Version
// 21).
constexpr int small_minb(int bytes, int w) {
    return 65536 / (128 * (w * bytes / 4 + (w == 32 || (w == 16 && bytes == 16) ? 32 : 40)));
}

// The forms of the pivot search and broadcast per group width (see `getrf_small`).
__host__ __device__ constexpr bool small_red(int w) { return w == 32; }
__host__ __device__ constexpr bool small_smem(int w) { return w >= 16; }
// Steps per chunk of `getrf_small` and `getri_small` (1: every step unrolled), from the
// measurements in docs/perf-notes.md (Batched LU Version 14): chunks only pay in the complex
// 32-lane kernels (c128 getrf 2, getri 4; c64 getri 4); elsewhere they lose 15–70 %.
template <class T> __host__ __device__ constexpr int small_chunk_f(int w) {
    return w == 32 && sizeof(T) == 16 ? 2 : 1;
}
template <class T> __host__ __device__ constexpr int small_chunk_i(int w) {
    return w == 32 && sizeof(T) == 2 * sizeof(typename Real<T>::type) ? 4 : 1;
}

#define SMALL(T, P, W)                                                                                         \
    extern "C" __global__ void __launch_bounds__(128, small_minb(sizeof(T), W)) getrf_small_w##W##_##P(    \
        T* a, int* ipiv, int* info, int batch, int n, i64 stride) {                                          \
        __shared__ __align__(16) unsigned char rows[2 * 128 * sizeof(T)];                                    \
        getrf_small<T, W, small_red(W), small_smem(W), small_chunk_f<T>(W), false>(                            \
            a, ipiv, info, batch, n, stride, reinterpret_cast<T*>(rows));                                        \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(128)                                                        \
        getrs_small_w##W##_##P(const T* a, const int* ipiv, const int* info, T* x, int nrhs, int cpg, int trans, \
                               int batch, int n, i64 a_stride, i64 x_stride) {                               \
        if (trans == 0) getrs_small<T, W, 0>(a, ipiv, info, x, nrhs, cpg, batch, n, a_stride, x_stride);      \
        else if (trans == 1) getrs_small<T, W, 1>(a, ipiv, info, x, nrhs, cpg, batch, n, a_stride, x_stride); \
        else getrs_small<T, W, 2>(a, ipiv, info, x, nrhs, cpg, batch, n, a_stride, x_stride);                 \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(64)                                                         \
        getri_small_w##W##_##P(const T* a, const int* ipiv, const int* info, T* inv, int batch, int n,       \
                               i64 a_stride, i64 inv_stride) {                                               \
        getri_small<T, W, small_chunk_i<T>(W)>(a, ipiv, info, inv, batch, n, a_stride, inv_stride,         \
                                                      reinterpret_cast<T*>(dyn_smem));                            \
    }

// The register factorization of order exactly W (`getrf_small` with FULL), instantiated where it
// is the faster (`small_factor_kernel` in crates/batched-lu/src/gpu.rs; docs/perf-notes.md,
// Batched LU Version 24). As the general kernels, but c64 at W = 32 takes steps in chunks of two
// on four blocks (128 registers): 0.92 of the general kernel's time there, against 1.04 in its
// form.
template <class T> __host__ __device__ constexpr bool small_c64_32(int w) { return w == 32 && is_c64<T>(); }
template <class T> __host__ __device__ constexpr int small_minb_full(int w) {
    return small_c64_32<T>(w) ? 4 : small_minb(sizeof(T), w);
}
template <class T> __host__ __device__ constexpr int small_chunk_full(int w) {
    return small_c64_32<T>(w) ? 2 : small_chunk_f<T>(w);
}
#define SMALL_FULL(T, P, W)                                                                                    \
    extern "C" __global__ void __launch_bounds__(128, small_minb_full<T>(W)) getrf_small_f##W##_##P(          \
        T* a, int* ipiv, int* info, int batch, int n, i64 stride) {                                          \
        __shared__ __align__(16) unsigned char rows[2 * 128 * sizeof(T)];                                    \
        getrf_small<T, W, small_red(W), small_smem(W), small_chunk_full<T>(W), true>(                          \
            a, ipiv, info, batch, n, stride, reinterpret_cast<T*>(rows));                                        \
    }

// The mid-size inverse kernels: NAME runs getri_mid with the template arguments after T on one
// block (per column part, for TRI) per matrix; blocks past the batch's last matrix return at once.
#define MID_KERNEL_X(NAME, T, NW, CPW, R, TRI, HW, SKIP, FOLD, SPLIT, PH, UPRE, P3, LM, UM)                      \
    extern "C" __global__ void __launch_bounds__(NW * 32)                                                     \
        NAME(const T* a, const int* ipiv, const int* info, T* inv, int batch, int n, i64 a_stride,            \
             i64 inv_stride) {                                                                                \
        if ((TRI ? blockIdx.x / SPLIT : blockIdx.x) >= (unsigned)batch) return;                             \
        getri_mid<T, NW, CPW, R, TRI, HW, SKIP, FOLD, SPLIT, PH, UPRE, P3, LM, UM>(a, ipiv, info, inv, n,      \
                                                                                 a_stride, inv_stride,         \
                                                                                 dyn_smem);                    \
    }
#define MID_KERNEL_S(NAME, T, NW, CPW, R, TRI, HW, SKIP, FOLD, SPLIT, PH) \
    MID_KERNEL_X(NAME, T, NW, CPW, R, TRI, HW, SKIP, FOLD, SPLIT, PH, false, 0, 0u, 0u)
// The triangle form in half-warp groups with each triangle staged in three parts (P3: the split
// slots of 16 rows, see getri_mid) and the columns split over SPLIT consecutive blocks.
#define MID_TRI3_H(T, P, NW, CPG, R, SPLIT, LA, LB, UA, UB)                                                 \
    MID_KERNEL_X(getri_tri3_r##R##_w##NW##_c##CPG##_h16_##P, T, NW, CPG, R, true, 16, true, true, SPLIT, 0, \
                 false, LA + 16 * LB + 256 * UA + 4096 * UB, 0u, 0u)
// The triangle form in whole warps with each triangle staged in many parts (LM, UM: the
// sub-slots of 16 columns where L's and U's parts start, see getri_mid) and the columns split
// over SPLIT consecutive blocks.
#define MID_TRIM(T, P, NW, CPW, R, SPLIT, LM, UM) \
    MID_KERNEL_X(getri_trim_r##R##_w##NW##_c##CPW##_##P, T, NW, CPW, R, true, 32, true, true, SPLIT, 0, false, 0, LM, UM)
// UPRE (see getri_mid): U's later columns staged during the forward substitution.
#define MID_KERNEL_U(NAME, T, NW, CPW, R, HW, FOLD, SPLIT) \
    MID_KERNEL_X(NAME, T, NW, CPW, R, true, HW, true, FOLD, SPLIT, 0, true, 0, 0u, 0u)
#define MID_KERNEL(NAME, T, NW, CPW, R, TRI, HW, SKIP, FOLD) \
    MID_KERNEL_S(NAME, T, NW, CPW, R, TRI, HW, SKIP, FOLD, TRI_SPLIT, 0)
// NW warps of CPW columns each and R rows per lane (orders up to 32·R and NW·CPW).
#define MID_R(T, P, NW, CPW, R) \
    MID_KERNEL(getri_mid_r##R##_w##NW##_c##CPW##_##P, T, NW, CPW, R, false, 32, true, false)
// The same with one packed triangle of the factors in shared memory at a time and the columns
// split over TRI_SPLIT consecutive blocks (whole warps, and half-warp groups). FOLD: the update's
// folded form (see getri_mid).
#define MID_TRI(T, P, NW, CPW, R) \
    MID_KERNEL(getri_tri_r##R##_w##NW##_c##CPW##_##P, T, NW, CPW, R, true, 32, true, true)
// MID_TRI with U's later columns staged during the forward substitution (UPRE, see getri_mid).
#define MID_TRI_U(T, P, NW, CPW, R) \
    MID_KERNEL_U(getri_tri_r##R##_w##NW##_c##CPW##_##P, T, NW, CPW, R, 32, true, TRI_SPLIT)
#define MID_TRI_H(T, P, NW, CPW, R, FOLD) \
    MID_KERNEL(getri_tri_r##R##_w##NW##_c##CPW##_h16_##P, T, NW, CPW, R, true, 16, true, FOLD)
// The triangle form with the columns split over four consecutive blocks (whole warps), for the
// orders whose columns would not fit the registers of two blocks; PH > 0: each triangle staged in
// two parts split at column 32·PH, for those whose whole triangle would not fit in shared memory.
#define MID_TRI4(T, P, NW, CPW, R, PH) \
    MID_KERNEL_S(getri_tri4_r##R##_w##NW##_c##CPW##_p##PH##_##P, T, NW, CPW, R, true, 32, true, true, 4, PH)
// Half-warp groups of CPW columns, R rows per lane (orders up to 16·R). SKIP: whether each
// column's forward substitution starts at its own step (see getri_mid).
#define MID_H(T, P, NW, CPW, R, SKIP, FOLD) \
    MID_KERNEL(getri_mid_r##R##_w##NW##_c##CPW##_h16_##P, T, NW, CPW, R, false, 16, SKIP, FOLD)
#define MID_HS(T, P, NW, CPW, R) MID_H(T, P, NW, CPW, R, true, true)

// The shapes `half_shape` and `mid_shape` in gpu.rs pick (from the measurements in
// docs/perf-notes.md, Batched LU Versions 10, 15 and 16): half-warp groups of R = ⌈n / 16⌉ rows per
// lane at every order from 33 (f32 to 128, f64 to 96 and 105..128, complex to the largest),
// ⌈n / (2·NW)⌉ columns per group: f32 two warps up to 40, four up to 96, eight up to 128; f64 two warps
// up to 40, four up to 64, eight up to 96, sixteen at 105..128; c64 four warps up to 80, eight up
// to 128, twelve at 129..144 and eight at 145..160 (six and ten columns per group: 167 and 255
// registers, one block per multiprocessor); c128 four up to 56, eight up to 64, twelve at 81..96
// and eight at 97..112 (one block per multiprocessor; its factors above 119 would not fit in
// shared memory). The nine-column f64 kernel (33..36) keeps the
// dense forward substitution (92 registers against 104: one more block per multiprocessor). The
// f64 kernel of 41..48 and the c128 triangle kernel of 129..144 keep the update's first form
// (FOLD = false: the folded one spills there and was 2–8 % slower), as do the whole-warp ones. Whole
// warps (HW = 32) serve f64 97..104 (four warps of 25 or 26 columns: two blocks per multiprocessor
// fit, which the half-warp form with eight warps does not match) and f32 129..192 (sixteen warps of
// five and six rows per lane: the factors alone then take most of a multiprocessor's shared memory,
// one block each). The triangle form, two blocks per matrix: whole warps (`tri_shape`) for f32
// 193..256 with seven or eight rows per lane and f64 180..192 with six, sixteen warps of ⌈n / 32⌉
// columns (measured slower than the blocked kernels for f64 below 180); half-warp groups of
// R = ⌈n / 16⌉ rows per lane (`tri_half_shape`) for c64 161..192 (twelve warps of four columns
// per group) and c128 65..80 (four warps of five columns: three blocks per multiprocessor where
// the whole factors allowed one), 113..128 (eight warps of four) and 129..144 (twelve of three):
// 0.61–0.9 of the blocked kernels' time, and 0.86–0.88 of the whole-factor kernel's at c128
// 65..80 (docs/perf-notes.md, Batched LU Version 17; the wider groups at c64 161..192 and c128
// 113..128, 0.88–0.99 of sixteen warps' time, Version 18). Below those orders (c64 129..160, c128
// 97..112) the whole factors in one block per multiprocessor took 0.68–0.86 of the triangle
// form's time.
#define MID_S                                                                                                 \
    MID_HS(float, s, 2, 9, 3) MID_HS(float, s, 2, 10, 3) MID_HS(float, s, 4, 6, 3)                            \
    MID_HS(float, s, 4, 7, 4) MID_HS(float, s, 4, 8, 4) MID_HS(float, s, 4, 9, 5) MID_HS(float, s, 4, 10, 5)  \
    MID_HS(float, s, 4, 11, 6) MID_HS(float, s, 4, 12, 6) MID_HS(float, s, 8, 7, 7) MID_HS(float, s, 8, 8, 8) \
    MID_R(float, s, 16, 10, 5) MID_R(float, s, 16, 12, 6) MID_TRI_U(float, s, 16, 7, 7) MID_TRI_U(float, s, 16, 8, 8) \
    MID_TRIM(float, s, 8, 12, 9, 3, 0x1u, 0x1u) MID_TRIM(float, s, 8, 12, 10, 4, 0x1u, 0x1u)                    \
    MID_TRIM(float, s, 8, 10, 11, 5, 0x8001u, 0x81u) MID_TRIM(float, s, 8, 10, 12, 5, 0x1001u, 0x1001u)         \
    MID_TRIM(float, s, 8, 8, 13, 7, 0x401u, 0x10001u) MID_TRIM(float, s, 8, 8, 14, 7, 0x201u, 0x80001u)         \
    MID_TRIM(float, s, 8, 8, 15, 8, 0x800101u, 0x400081u) MID_TRIM(float, s, 8, 8, 16, 8, 0x40081u, 0x2004001u)
#define MID_D                                                                                                 \
    MID_H(double, d, 2, 9, 3, false, true) MID_HS(double, d, 2, 10, 3) MID_H(double, d, 4, 6, 3, true, false)  \
    MID_HS(double, d, 4, 7, 4) MID_HS(double, d, 4, 8, 4) MID_HS(double, d, 8, 5, 5) MID_HS(double, d, 8, 6, 6) \
    MID_R(double, d, 4, 25, 4) MID_R(double, d, 4, 26, 4) MID_HS(double, d, 16, 4, 7) MID_HS(double, d, 16, 4, 8) \
    MID_TRI(double, d, 16, 6, 6) MID_TRI4(double, d, 16, 4, 7, 0) MID_TRI4(double, d, 16, 4, 8, 4) \
    MID_TRIM(double, d, 8, 8, 9, 5, 0x81u, 0x801u) MID_TRIM(double, d, 8, 8, 10, 5, 0x41u, 0x4001u)                     \
    MID_TRIM(double, d, 8, 6, 11, 8, 0x2021u, 0x20201u) MID_TRIM(double, d, 8, 6, 12, 8, 0x1021u, 0x81001u)             \
    MID_TRIM(double, d, 8, 5, 13, 11, 0x20211u, 0x420201u) MID_TRIM(double, d, 8, 5, 14, 12, 0x10211u, 0x1081001u)      \
    MID_TRIM(double, d, 8, 4, 15, 15, 0x81089u, 0x8840801u) MID_TRIM(double, d, 8, 4, 16, 16, 0x20020889u, 0x22208009u)
#define MID_C                                                                                                 \
    MID_HS(cf32, c, 4, 5, 3) MID_HS(cf32, c, 4, 6, 3) MID_HS(cf32, c, 4, 7, 4) MID_HS(cf32, c, 4, 8, 4)       \
    MID_HS(cf32, c, 4, 9, 5) MID_HS(cf32, c, 4, 10, 5) MID_HS(cf32, c, 8, 6, 6) MID_HS(cf32, c, 8, 7, 7)      \
    MID_HS(cf32, c, 8, 8, 8) MID_HS(cf32, c, 12, 6, 9) MID_HS(cf32, c, 8, 10, 10)                              \
    MID_TRI_H(cf32, c, 12, 4, 11, true) MID_TRI_H(cf32, c, 12, 4, 12, true)                                  \
    MID_TRI4(cf32, c, 16, 4, 7, 0) MID_TRI4(cf32, c, 16, 4, 8, 4) \
    MID_TRIM(cf32, c, 8, 8, 9, 5, 0x81u, 0x801u) MID_TRIM(cf32, c, 8, 8, 10, 5, 0x41u, 0x4001u)                     \
    MID_TRIM(cf32, c, 8, 6, 11, 8, 0x2021u, 0x20201u) MID_TRIM(cf32, c, 8, 6, 12, 8, 0x1021u, 0x81001u)             \
    MID_TRIM(cf32, c, 8, 5, 13, 11, 0x20211u, 0x420201u) MID_TRIM(cf32, c, 8, 5, 14, 12, 0x10211u, 0x1081001u)      \
    MID_TRIM(cf32, c, 8, 4, 15, 15, 0x81089u, 0x8840801u) MID_TRIM(cf32, c, 8, 4, 16, 16, 0x20020889u, 0x22208009u)
#define MID_Z                                                                                               \
    MID_HS(cf64, z, 4, 5, 3) MID_HS(cf64, z, 4, 6, 3) MID_HS(cf64, z, 4, 7, 4) MID_HS(cf64, z, 8, 4, 4)    \
    MID_HS(cf64, z, 12, 4, 6) MID_HS(cf64, z, 8, 7, 7) MID_TRI_H(cf64, z, 4, 5, 5, true)                    \
    MID_TRI_H(cf64, z, 8, 4, 8, true) MID_TRI_H(cf64, z, 12, 3, 9, false) MID_TRI4(cf64, z, 12, 4, 6, 3)        \
    MID_TRI3_H(cf64, z, 8, 2, 13, 7, 2, 6, 10, 12) MID_TRI3_H(cf64, z, 8, 2, 14, 7, 2, 6, 10, 12)         \
    MID_TRI3_H(cf64, z, 8, 2, 15, 8, 2, 6, 10, 14) MID_TRI3_H(cf64, z, 8, 2, 16, 8, 2, 6, 10, 14)         \
    MID_TRIM(cf64, z, 8, 4, 9, 9, 0x4089u, 0x8811u) MID_TRIM(cf64, z, 8, 4, 10, 10, 0x10225u, 0x48811u)      \
    MID_TRIM(cf64, z, 8, 3, 11, 15, 0x40895u, 0x148811u) MID_TRIM(cf64, z, 8, 3, 12, 16, 0x102255u, 0x548811u) \
    MID_TRIM(cf64, z, 8, 3, 13, 18, 0x408955u, 0x1548811u)                                                 \
    MID_TRIM(cf64, z, 8, 3, 14, 19, 0x1022555u, 0x5548811u)                                                \
    MID_TRIM(cf64, z, 8, 2, 15, 30, 0x424aafu, 0x3aa92101u) MID_TRIM(cf64, z, 8, 2, 16, 32, 0x1092abfu, 0xfaa92101u)

// Steps per chunk of `getrf_rows` (1: every step unrolled), from the measurements in
// docs/perf-notes.md (Batched LU Version 14): chunks pay where the unrolled kernel is past
// about 140 KB of code (f32 one warp from 40, three warps; f64 from 48; c64), and lose
// 10–26 % in the smaller ones (f32 two warps at 60 gains at n = 60 and loses at 57: left
// unrolled). c64 takes chunks of 4 from 48 on, where chunks of 2 still pass 140 KB. Since
// the steps test only their chunk's columns (`chunk_bound`), f64 from 48 and f32's one-warp
// kernel at 40 are 2–3 % faster in chunks of 2 than of 4; the other f32 chunked kernels lose
// up to half in chunks of 2 (Version 24).
template <class T> __host__ __device__ constexpr int rows_chunk(int nw, int r, int nmax) {
    return sizeof(T) == 2 * sizeof(typename Real<T>::type) ? (nmax >= 48 ? 4 : 2)
           : sizeof(T) == 4 ? (r == 2 && nmax == 40 ? 2 : (r == 2 && nmax >= 40) || nw == 3 ? 4 : 1)
                            : (nmax >= 48 ? 2 : 1);
}

// The register factorization of orders up to NMAX with NW warps and R rows per thread.
#define ROWS(T, P, NW, R, NMAX)                                                                              \
    extern "C" __global__ void __launch_bounds__(NW * 32)                                                     \
        getrf_rows_w##NW##_r##R##_n##NMAX##_##P(T* a, int* ipiv, int* info, int batch, int n, i64 stride) {  \
        __shared__ __align__(16) unsigned char sm[rows_smem<T, NW, NMAX>()];                                 \
        if (blockIdx.x >= (unsigned)batch) return;                                                           \
        getrf_rows<T, NW, R, NMAX, rows_chunk<T>(NW, R, NMAX)>(a, ipiv, info, n, stride, sm);                  \
    }
// The shapes `rows_shape` in gpu.rs picks (docs/perf-notes.md, Versions 8 and 14): f32 one
// warp of two rows per lane up to 40 and at 48 and 64, two warps of one row per lane at 44,
// 52, 56 and 60, three to 96; f64 and c64 two warps to 64 (c64 37..40 on the blocked kernel's
// one-warp blocks, Version 30). NMAX is the order rounded up to 4 (c64 to 36: 2), and to 8
// past 64 (f32) and 48 (f64, c64).
#define ROWS_S ROWS(float, s, 1, 2, 36) ROWS(float, s, 1, 2, 40) ROWS(float, s, 2, 1, 44) ROWS(float, s, 1, 2, 48) \
    ROWS(float, s, 2, 1, 52) ROWS(float, s, 2, 1, 56) ROWS(float, s, 2, 1, 60) ROWS(float, s, 1, 2, 64)         \
    ROWS(float, s, 3, 1, 72) ROWS(float, s, 3, 1, 80) ROWS(float, s, 3, 1, 88) ROWS(float, s, 3, 1, 96)
#define ROWS_D ROWS(double, d, 2, 1, 36) ROWS(double, d, 2, 1, 40) ROWS(double, d, 2, 1, 44) ROWS(double, d, 2, 1, 48) \
    ROWS(double, d, 2, 1, 56) ROWS(double, d, 2, 1, 64)
#define ROWS_C ROWS(cf32, c, 2, 1, 34) ROWS(cf32, c, 2, 1, 36) ROWS(cf32, c, 2, 1, 44) \
    ROWS(cf32, c, 2, 1, 48) ROWS(cf32, c, 2, 1, 56) ROWS(cf32, c, 2, 1, 64)

// The streaming solve of orders up to 32·R, four warps per block, each warp one (matrix,
// right-hand side); `xs` and `ps` of each warp in dynamic shared memory.
#define SOLVE_WARP(T, P, R)                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                        \
        getrs_warp_r##R##_##P(const T* a, const int* ipiv, const int* info, T* x, int nrhs, int trans,        \
                              BATCH_ARGS) {                                                                  \
        T* xs = reinterpret_cast<T*>(dyn_smem) + (threadIdx.x >> 5) * 32 * R;                               \
        int* ps = reinterpret_cast<int*>(reinterpret_cast<T*>(dyn_smem) + 4 * 32 * R) + (threadIdx.x >> 5) * 32 * R; \
        if (trans == 0) getrs_warp<T, R, 0>(a, ipiv, info, x, nrhs, false, batch, BATCH, xs, ps);          \
        else getrs_warp<T, R, 1>(a, ipiv, info, x, nrhs, trans == 2, batch, BATCH, xs, ps);                \
    }
#define SOLVE_WARPS(T, P) SOLVE_WARP(T, P, 2) SOLVE_WARP(T, P, 4) SOLVE_WARP(T, P, 8)

// Tile width of `getrs_tile`: 32 for c64, 16 for f64 and c128 (measured at n = 512, H200, kernel
// only, N / T ms: f64 2.80 / 3.43 against 3.73 / 5.20 with 32; c64 1.92 / 5.91 against 2.01 /
// 6.34 with 16; c128 at 32 took 255 registers and spilled). Not instantiated for f32, whose
// blocked solve was faster per matrix at 512 (docs/perf-notes.md, Batched LU Version 25).
template <class T> __host__ __device__ constexpr int solve_tile_width() { return is_c64<T>() ? 32 : 16; }
// The tiled solve, four warps per block; `nmax` (the largest order) sizes each warp's part of
// the dynamic shared memory: nmax elements, then (after the four warps' elements) nmax ints.
#define SOLVE_TILE(T, P)                                                                                     \
    extern "C" __global__ void __launch_bounds__(128)                                                        \
        getrs_tile_##P(const T* a, const int* ipiv, const int* info, T* x, int nrhs, int trans, int nmax,    \
                       BATCH_ARGS) {                                                                         \
        T* xs = reinterpret_cast<T*>(dyn_smem) + (threadIdx.x >> 5) * nmax;                                  \
        int* ps = reinterpret_cast<int*>(reinterpret_cast<T*>(dyn_smem) + 4 * nmax) + (threadIdx.x >> 5) * nmax; \
        constexpr int TB = solve_tile_width<T>();                                                            \
        if (trans == 0) getrs_tile<T, TB, 0>(a, ipiv, info, x, nrhs, false, batch, BATCH, xs, ps);           \
        else getrs_tile<T, TB, 1>(a, ipiv, info, x, nrhs, trans == 2, batch, BATCH, xs, ps);                 \
    }

// BLOCKED_V: the three blocked kernels of one panel width, under a register cap set through
// the minimum number of resident 256-thread blocks (MINB 3: 80 registers; 4: 64; 5: 48).
// A lower cap trades spills for resident blocks (the kernels are latency-bound: without a cap
// they took 120-240 registers and ran at a quarter of the warps, twice as slow as at 64); the
// tuning table picks the variant per type and order.
#define BLOCKED_V(T, P, NB, CPT, SUF, MINB)                                                              \
    extern "C" __global__ void __launch_bounds__(256, MINB)                                               \
        getrf_blocked_nb##NB##SUF##_##P(T* a, int* ipiv, int* info, BATCH_ARGS) {                        \
        if (blockIdx.x < (unsigned)batch) getrf_blocked<T, NB, CPT>(a, ipiv, info, BATCH);              \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(256, MINB)                                               \
        getrs_blocked_nb##NB##SUF##_##P(const T* a, const int* ipiv, const int* info, T* x, int nrhs,    \
                                        int chunks, int trans, BATCH_ARGS) {                             \
        if (trans == 0) solve_blocked<T, NB, CPT, 0>(a, ipiv, info, x, nrhs, chunks, BATCH);             \
        else if (trans == 1) solve_blocked<T, NB, CPT, 1>(a, ipiv, info, x, nrhs, chunks, BATCH);        \
        else solve_blocked<T, NB, CPT, 2>(a, ipiv, info, x, nrhs, chunks, BATCH);                        \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(256, MINB)                                               \
        getri_blocked_nb##NB##SUF##_##P(const T* a, const int* ipiv, const int* info, T* x, int chunks,  \
                                        BATCH_ARGS) {                                                    \
        solve_blocked<T, NB, CPT, 3>(a, ipiv, info, x, 0, chunks, BATCH);                                \
    }

#define BLOCKED(T, P, NB, CPT)                                                                           \
    BLOCKED_V(T, P, NB, CPT, _r80, 3)                                                                    \
    BLOCKED_V(T, P, NB, CPT, _r64, 4)                                                                    \
    BLOCKED_V(T, P, NB, CPT, _r48, 5)

#define COMMON(T, P)                                                                                         \
    extern "C" __global__ void nonfinite_info_scan_##P(const T* a, int* ipiv, int* info, BATCH_ARGS) {       \
        nonfinite_info_scan(a, ipiv, info, BATCH, batch);                                                    \
    }                                                                                                        \
    SMALL(T, P, 4)                                                                                           \
    SMALL(T, P, 8)                                                                                           \
    SMALL(T, P, 16)                                                                                          \
    SMALL(T, P, 32)                                                                                          \
    BLOCKED(T, P, 8, 8)                                                                                      \
    BLOCKED(T, P, 16, 16)                                                                                    \
    SOLVE_WARPS(T, P)

// Panel widths: 8 and 16 for every type, 32 where a 32-wide register tile fits (not c128).
// CPT = NB: one column group, so each block reads every element of L once per panel step
// (with NB / CPT groups each group read it again).
COMMON(float, s)
SMALL_FULL(float, s, 4)
SMALL_FULL(float, s, 8)
SMALL_FULL(float, s, 16)
SMALL_FULL(float, s, 32)
BLOCKED(float, s, 32, 32)
MID_S
ROWS_S
COMMON(double, d)
SMALL_FULL(double, d, 4)
SMALL_FULL(double, d, 8)
SMALL_FULL(double, d, 16)
SMALL_FULL(double, d, 32)
BLOCKED(double, d, 32, 32)
// f64's factorization with the look-ahead, at the configuration its table gives 65..256 (16-wide
// panels, 64 registers): 4–15 % faster than `getrf_blocked` there (docs/perf-notes.md, Batched
// LU Version 21).
extern "C" __global__ void __launch_bounds__(256, 4)
    getrf_lookahead_nb16_r64_d(double* a, int* ipiv, int* info, BATCH_ARGS) {
    if (blockIdx.x < (unsigned)batch) getrf_lookahead<double, 16, 16>(a, ipiv, info, BATCH);
}
MID_D
ROWS_D
SOLVE_TILE(double, d)
COMMON(cf32, c)
SMALL_FULL(cf32, c, 4)
SMALL_FULL(cf32, c, 8)
SMALL_FULL(cf32, c, 16)
SMALL_FULL(cf32, c, 32)
BLOCKED(cf32, c, 32, 32)
MID_C
ROWS_C
SOLVE_TILE(cf32, c)
COMMON(cf64, z)
// Not at W = 16: 1.03 of the general kernel's time there, spilling (Version 24).
SMALL_FULL(cf64, z, 4)
SMALL_FULL(cf64, z, 8)
SMALL_FULL(cf64, z, 32)
MID_Z
SOLVE_TILE(cf64, z)
