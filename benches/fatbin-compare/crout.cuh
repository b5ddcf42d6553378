// A blocked factorization in Crout's order (`getrf_crout`), measured against the library's
// `getrf_blocked` / `getrf_lookahead` and not kept (docs/perf-notes.md, Batched LU Version 29:
// 1.13–1.95 times their time on the harness's matrices, every type). Not part of the library;
// built as an experimental cubin for `cmp_fac` (README.md, "crout"): append `#include
// "crout.cuh"` and its CROUT instantiations to a copy of kernels/batched_lu.cu cut before its
// instantiations. Its shared memory is `blocked_smem`'s plus, for c128, the swap list (4·NB ints).

// The row block's update in `getrf_crout`: M(i, kb + k) = U(k, jc + i), read from A through
// `a` = A + jc·n (column jc + i of U is row i of M, so a thread's run of k is contiguous).
template <class T> struct RowBlockAcc {
    const T* a;
    int ld, kb;
    __device__ __forceinline__ T operator()(int i, int k) const { return a[(k - kb) + (i64)i * ld]; }
};

// `getrf_crout`'s interchanges of the panel j0..j1 (the list of `swap_list`) applied to every
// column but the panel's: the columns 0..j0 (L) in A, and where `stage`, the columns j1..n,
// whose rows j0..j1 go to P as the row block (P(c, r) = A(j0 + r, j1 + c), rows 0..m) instead of
// back to A, and the same rows of the columns 0..j0 go to P too, transposed below the row block
// (P(m + k, r) = L(j0 + r, k): the B operand of its update). A warp per UC columns, every load of
// a column before its stores.
template <class T, int NB>
__device__ __forceinline__ void crout_swaps(T* a, int n, int j0, int j1, const int* swp, T* P, int ldp, int m,
                                            bool stage) {
    constexpr int E = (2 * NB + 31) / 32, UC = 4;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int dst[E], src[E];
    bool use[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const int t = lane + 32 * e;
        dst[e] = t < 2 * NB ? swp[t] : -1;
        src[e] = t < 2 * NB ? swp[2 * NB + t] : -1;
        use[e] = dst[e] >= 0 && (dst[e] != src[e] || (stage && dst[e] < j1));
    }
    const int total = stage ? j0 + (n - j1) : j0;
    for (int q0 = wid * UC; q0 < total; q0 += nw * UC) {
        T v[UC][E];
#pragma unroll
        for (int u = 0; u < UC; ++u) {
            const int q = q0 + u, col = q < j0 ? q : q + (j1 - j0);
#pragma unroll
            for (int e = 0; e < E; ++e)
                if (q < total && use[e]) v[u][e] = a[src[e] + (i64)col * n];
        }
        __syncwarp();
#pragma unroll
        for (int u = 0; u < UC; ++u) {
            const int q = q0 + u, col = q < j0 ? q : q + (j1 - j0);
#pragma unroll
            for (int e = 0; e < E; ++e) {
                if (!(q < total && use[e])) continue;
                if (stage && dst[e] < j1) {
                    const int r = dst[e] - j0;
                    if (q < j0) P[m + q + r * ldp] = v[u][e];
                    else P[(col - j1) + r * ldp] = v[u][e];
                    if (q < j0 && dst[e] != src[e]) a[dst[e] + (i64)col * n] = v[u][e];
                } else {
                    a[dst[e] + (i64)col * n] = v[u][e];
                }
            }
        }
    }
}

// The blocked factorization in Crout's order: at the panel j0..j1, the columns j0..j1 take their
// whole update L(j0..n, 0..j0)·U(0..j0, j0..j1) in one pass (U's rows 0..j0 of them are final,
// stored by the earlier panels' row blocks), the panel is factored (warp 0 or the block, as in
// `getrf_blocked`), and then the row block U(j0..j1, j1..n) is finished: its rows gathered through
// the panel's interchanges, updated by L(j0..j1, 0..j0)·U(0..j0, j1..n) in one pass, solved with
// the panel's unit lower triangle and stored. Every interchange reaches the whole matrix at once
// (`crout_swaps`), so no permutation is carried. Against `getrf_blocked`, the forward substitution
// of each panel's rows 0..j0 (a chain of j0 / NB diagonal solves and updates, each between
// barriers) becomes one update of the row block and one solve of NB rows.
template <class T, int NB, int CPT>
__device__ void getrf_crout(T* __restrict__ abase, int* __restrict__ pivbase, int* __restrict__ info, Batch b) {
    const int k = blockIdx.x;
    const int n = b.order(k);
    if (factor_skipped<T>(info, k, n)) return;
    T* a = abase + b.a_at(k);
    int* ipiv = pivbase + b.p_at(k);
    Smem<T, NB> sm(dyn_smem, n);
    T* P = sm.P;
    T* D = sm.D;
    const int ldp = sm.ld;
    identity_perm(sm.perm, n);
    int inf = 0;
    for (int j0 = 0; j0 < n; j0 += NB) {
        const int w = min(NB, n - j0), j1 = j0 + NB, m = n - j1;
        const bool last = j1 >= n;
        for (int c = 0; c < NB; ++c)
            for (int i = threadIdx.x; i < ldp; i += blockDim.x) {
                if (i < n && c < w)
                    cp_async_elem(P + i + c * ldp, a + i + (i64)(j0 + c) * n);
                else
                    P[i + c * ldp] = zero<T>();
            }
        cp_async_wait();
        __syncthreads();
        if (j0 > 0) {
            panel_gemm<T, NB, CPT, true>(P, ldp, j0, n, 0, j0, FacAcc<T, 0>{a, n});
            __syncthreads();
        }
        int piv_c = 0;
        int bad = NO_BAD;
        if constexpr (block_panel<T>()) {
            inf = panel_block<T, NB>(P, ldp, n, j0, w, ipiv, sm, inf, piv_c);
            // Where `panel_block` does not keep the pivot rows (c128), from ipiv (written by
            // thread 0 before the panel's last barrier).
            if (!list_swaps<T>() && threadIdx.x < (unsigned)w) piv_c = ipiv[j0 + threadIdx.x] - 1;
            if (threadIdx.x < 32) swap_list<NB>(piv_c, j0, w, sm.swp);
            __syncthreads();
        } else {
            if (threadIdx.x < 32) {
                inf = panel_warp<T>(P, ldp, n, j0, w, ipiv, sm.perm, inf, piv_c);
                swap_list<NB>(piv_c, j0, w, sm.swp);
                if (validate_inside<T>() && j0 == 0 && blockDim.x == 32)
                    bad = first_nonfinite(a, n * n, threadIdx.x, 32);
            } else if (validate_inside<T>() && j0 == 0) {
                bad = first_nonfinite(a, n * n, threadIdx.x - 32, blockDim.x - 32);
            }
            if (!validate_inside<T>() || j0 > 0) __syncthreads();
        }
        if (validate_inside<T>() && j0 == 0 && __syncthreads_or(bad != NO_BAD)) {
            const int e = block_min_bad(bad, reinterpret_cast<int*>(D));
            for (int i = threadIdx.x; i < n; i += blockDim.x) ipiv[i] = i + 1;
            if (threadIdx.x == 0) info[k] = nonfinite_info(e);
            return;
        }
        // The panel's rows j0..n back to A (its rows 0..j0 are there already); its diagonal
        // block's unit lower triangle to D for the row block's solve.
        copy_tile<4, T>(
            n - j0, w, [&](int i, int c) { return P[j0 + i + c * ldp]; },
            [&](int i, int c, T v) { a[j0 + i + (i64)(j0 + c) * n] = v; });
        if (!last)
            for (int e = threadIdx.x; e < NB * NB; e += blockDim.x) D[e] = P[j0 + e % NB + (e / NB) * ldp];
        __syncthreads();
        crout_swaps<T, NB>(a, n, j0, j1, sm.swp, P, ldp, m, !last);
        __syncthreads();
        if (last) break;
        if (j0 > 0) {
            panel_gemm<T, NB, CPT, true>(P, ldp, 0, m, m, j0, RowBlockAcc<T>{a + (i64)j1 * n, n, m});
            __syncthreads();
        }
        // The row block's NB rows solved with the unit lower triangle, a column per thread.
        for (int c = threadIdx.x; c < m; c += blockDim.x) {
            // D laundered per column: its NB² reads are the same for every column, and hoisted
            // out of the loop they would take NB² registers.
            const T* Dc = D;
            asm volatile("" : "+l"(Dc));
            T x[NB];
#pragma unroll
            for (int r = 0; r < NB; ++r) x[r] = P[c + r * ldp];
#pragma unroll
            for (int r = 1; r < NB; ++r)
#pragma unroll
                for (int s = 0; s < r; ++s) x[r] = madd(neg(Dc[r + s * NB]), x[s], x[r]);
            T* out = a + j0 + (i64)(j1 + c) * n;
#pragma unroll
            for (int r = 0; r < NB; ++r) out[r] = x[r];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) info[k] = inf;
}

#define CROUT(T, P, NB, CPT, SUF, MINB)                                                          \
    extern "C" __global__ void __launch_bounds__(256, MINB)                                       \
        getrf_crout_nb##NB##SUF##_##P(T* a, int* ipiv, int* info, BATCH_ARGS) {                   \
        if (blockIdx.x < (unsigned)batch) getrf_crout<T, NB, CPT>(a, ipiv, info, BATCH);          \
    }
