// A variant of `getrf_rows` (kernels/batched_lu.cu) measured and not kept (docs/perf-notes.md,
// Batched LU Version 23: 1.01–3.6 times the library's row kernels' time): G lanes per row.
// Not part of the library; built as an experimental cubin for `cmp_small` (README.md, "rows_lanes"):
// append `#include "rows_lanes.cuh"` and its ROWSG instantiations to a copy of
// kernels/batched_lu.cu cut before its instantiations.
//
// The register factorization with G lanes per row: lane g of a row's group of G consecutive lanes
// holds the row's columns g, g + G, g + 2G, ... (L = NMAX / G of them), so a step's update is
// (n − k) / G FMAs per lane instead of n − k. NW warps of 32 / G rows. Steps in chunks of LC
// local columns (LC·G steps), the chunk's first local column a compile-time constant.
template <class T, int NW, int G, int NMAX, int LC, bool FENCE> struct RowsG {
    typedef typename Real<T>::type RT;
    typedef typename std::conditional<sizeof(RT) == 8, unsigned long long, unsigned>::type KT;
    typedef Pack<T> PK;
    static constexpr int E = PK::N, L = NMAX / G, CPL = L / E, RPW = 32 / G;
    static_assert(G == 1 || G == 2 || G == 4 || G == 8, "G a power of two");
    static_assert(NMAX % G == 0 && L % E == 0 && L % LC == 0, "whole packs and chunks");
    T v[L];
    int pos, mypiv;
    bool live;
    int inf, n, lane, w, g, row;
    PK* rows;       // [2][NW][G][CPL]
    RowCand* cand;  // [2][NW]

    template <int t0> __device__ __forceinline__ void step(const int k) {
        if (k >= n) return;
        const int j = k & (G - 1), t = k / G;
        const bool holder = g == j;
        const T vk = chunk_get<LC>(v, t0, t);
        const KT key = holder ? row_key(abs1(vk), live && pos >= k) : (KT)0;
        KT kmax;
        const int p = warp_argmax(key, pos, kmax);
        const int b = k & 1;
        if (pos == p) {
            PK* rb = rows + ((b * NW + w) * G + g) * CPL;
#pragma unroll
            for (int q = t0 / E; q < CPL; ++q) {
                PK pk;
#pragma unroll
                for (int e = 0; e < E; ++e) pk.v[e] = v[q * E + e];
                rb[q] = pk;
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
        const PK* ub = rows + ((b * NW + W) * G + g) * CPL;
        const T pv = reinterpret_cast<const T*>(rows + ((b * NW + W) * G + j) * CPL)[t];
        if (K == 2ull && inf == 0) inf = k + 1;
        if (row == k) mypiv = P + 1;
        pos = swapped(pos, P, k);
        const bool below = live && pos > k;
        T l = vk;
        if (holder && below && !is_zero_v(pv)) l = div_s(l, pv);
        if (holder && below) chunk_set<LC>(v, t0, t, l);
        const T nl = G == 1 ? neg(l) : shfl_idx(neg(l), j, G);
        // Local column tt is global column tt·G + g, past k from tt = first on (a compare with a
        // constant per column, not a register of column numbers).
        const int first = (k + G - g) / G;
#pragma unroll
        for (int q = t0 / E; q < CPL; ++q) {
            const PK u = ub[q];
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const int tt = q * E + e;
                if (tt < t0) continue;
                if (below && tt >= first) v[tt] = madd(nl, u.v[e], v[tt]);
            }
            // One pack of the pivot row at a time: left alone, the compiler loads the whole row
            // into registers first (twice the row's registers).
            if constexpr (FENCE) asm volatile("" ::: "memory");
        }
    }
    template <int... C> __device__ __forceinline__ void steps(std::integer_sequence<int, C...>) {
        (chunk<C * LC>(), ...);
    }
    template <int t0> __device__ __forceinline__ void chunk() {
        const int end = min((t0 + LC) * G, n);
#pragma unroll 1
        for (int k = t0 * G; k < end; ++k) step<t0>(k);
    }
};

template <class T, int NW, int G, int NMAX, int LC, bool FENCE>
__device__ __forceinline__ void getrf_rowsg(T* __restrict__ a, int* __restrict__ ipiv, int* __restrict__ info, int n,
                                            i64 stride, unsigned char* smem) {
    typedef RowsG<T, NW, G, NMAX, LC, FENCE> S;
    S s;
    s.n = n;
    s.lane = threadIdx.x & 31;
    s.w = threadIdx.x >> 5;
    s.g = s.lane & (G - 1);
    s.row = s.w * S::RPW + s.lane / G;
    s.rows = reinterpret_cast<typename S::PK*>(smem);
    s.cand = reinterpret_cast<RowCand*>(s.rows + 2 * NW * G * S::CPL);
    const i64 mk = blockIdx.x;
    T* A = a + mk * stride;
    s.live = s.row < n;
    s.pos = s.row;
    s.mypiv = 0;
#pragma unroll
    for (int tt = 0; tt < S::L; ++tt) {
        const int col = tt * G + s.g;
        s.v[tt] = (s.live && col < n) ? A[s.row + (i64)col * n] : zero<T>();
    }
    s.inf = 0;
    s.steps(std::make_integer_sequence<int, S::L / LC>{});
    bool nf = false;
#pragma unroll
    for (int tt = 0; tt < S::L; ++tt) nf |= s.live && tt * G + s.g < n && !finite_t(s.v[tt]);
    if (__syncthreads_or(nf)) {
        int bad = NO_BAD;
        for (int tt = 0; s.live && tt < S::L; ++tt) {
            const int col = tt * G + s.g;
            if (col < n && !finite_t(A[s.row + (i64)col * n])) bad = min(bad, s.row + col * n);
        }
        __syncthreads();
        const int e = block_min_bad(bad, reinterpret_cast<int*>(smem));
        if (e != NO_BAD) {
            for (int i = threadIdx.x; i < n; i += NW * 32) ipiv[mk * n + i] = i + 1;
            if (threadIdx.x == 0) info[mk] = nonfinite_info(e);
            return;
        }
    }
    if (s.live) {
#pragma unroll
        for (int tt = 0; tt < S::L; ++tt) {
            const int col = tt * G + s.g;
            if (col < n) A[s.pos + (i64)col * n] = s.v[tt];
        }
        if (s.g == 0) ipiv[mk * n + s.row] = s.mypiv;
    }
    if (threadIdx.x == 0) info[mk] = s.inf;
}

#define ROWSG(T, P, NW, G, NMAX, LC, MINB, F)                                                                           \
    extern "C" __global__ void __launch_bounds__(NW * 32, MINB)                                                       \
        getrf_rowsg_w##NW##_g##G##_n##NMAX##_l##LC##_m##MINB##_f##F##_##P(T* a, int* ipiv, int* info, int batch, int n, i64 stride) { \
        __shared__ __align__(16) unsigned char sm[rows_smem<T, NW, NMAX>()];                                   \
        if (blockIdx.x >= (unsigned)batch) return;                                                             \
        getrf_rowsg<T, NW, G, NMAX, LC, F>(a, ipiv, info, n, stride, sm);                                         \
    }
