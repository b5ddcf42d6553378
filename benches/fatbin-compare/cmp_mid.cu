// Times two builds of one mid-size inverse kernel of kernels/batched_lu.cu (`getri_mid_*`,
// `getri_tri_*`: one block per matrix, or per column part, with dynamic shared memory) on the
// same factors in one process, and says whether their outputs are identical. See README.md.
//
// Usage: cmp_mid TYPE N BATCH REPS THREADS SMEM PARTS A.img KERNEL_A B.img KERNEL_B [THREADS_B SMEM_B [PARTS_B]]
//   TYPE s|d|c|z; THREADS 32·NW; SMEM the dynamic shared memory (`mid_smem` in gpu.rs);
//   PARTS the blocks per matrix (1, or TRI_SPLIT for `getri_tri_*`); THREADS_B, SMEM_B and
//   PARTS_B B's own, where its shape differs from A's. A negative PARTS (-P) launches P·BATCH
//   blocks in x, for kernels that take their part from the low bits of the block index.
// The "factors" are random entries in [-1, 1) with n added to the diagonal (a unit lower L and
// an upper U that are well conditioned) and random valid pivots (ipiv[j] in j + 1..n), so the
// kernels follow interchanges; no factorization runs.
#include "driver.h"
#include <cstring>
#include <string>
#include <cmath>
// Kernel `name` of `path`, allowed `smem` bytes of dynamic shared memory and the largest carveout
// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8, PREFERRED_SHARED_MEMORY_CARVEOUT = 9).
static CUfunction mid_fn(const char* path, const char* name, int smem) {
    CUfunction f = fn(path, name);
    if (setattr(f, 8, smem) || setattr(f, 9, 100)) { printf("attributes of %s failed\n", name); exit(1); }
    return f;
}
int main(int argc, char** argv) {
    if (argc < 12) { printf("usage: see the source\n"); return 2; }
    const char t = argv[1][0];
    int n = atoi(argv[2]), batch = atoi(argv[3]), reps = atoi(argv[4]);
    const int parts_of[2] = {atoi(argv[7]), argc > 14 ? atoi(argv[14]) : atoi(argv[7])};
    const int threads_of[2] = {atoi(argv[5]), argc > 13 ? atoi(argv[12]) : atoi(argv[5])};
    const int smem_of[2] = {atoi(argv[6]), argc > 13 ? atoi(argv[13]) : atoi(argv[6])};
    driver_init();
    const bool cplx = t == 'c' || t == 'z', dbl = t == 'd' || t == 'z';
    const size_t sz = (t == 's') ? 4 : (t == 'd' || t == 'c') ? 8 : 16;
    const size_t elems = (size_t)n * n * batch, bytes = elems * sz, reals = bytes / (dbl ? 8 : 4);
    std::vector<char> hb(bytes);
    std::vector<int> hp((size_t)n * batch);
    unsigned long long s = 0x9E3779B97F4A7C15ull;
    auto next = [&]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return s >> 11; };
    for (size_t i = 0; i < reals; ++i) {
        const double u = (double)next() / 9007199254740992.0 * 2.0 - 1.0;
        if (dbl) ((double*)hb.data())[i] = u; else ((float*)hb.data())[i] = (float)u;
    }
    for (size_t k = 0; k < (size_t)batch; ++k)
        for (int i = 0; i < n; ++i) {
            const size_t at = (k * n * n + (size_t)i * n + i) * (cplx ? 2 : 1);
            if (dbl) ((double*)hb.data())[at] += n; else ((float*)hb.data())[at] += n;
            hp[k * n + i] = i + 1 + (int)(next() % (unsigned long long)(n - i));
        }
    void *a, *x; int *piv, *info;
    cudaMalloc(&a, bytes); cudaMalloc(&x, bytes);
    cudaMalloc(&piv, 4ull * n * batch); cudaMalloc(&info, 4ull * batch);
    cudaMemcpy(a, hb.data(), bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(piv, hp.data(), 4ull * n * batch, cudaMemcpyHostToDevice);
    cudaMemset(info, 0, 4ull * batch);
    long long stride = (long long)n * n;
    std::vector<char> out[2];
    double best[2];
    for (int which = 0; which < 2; ++which) {
        const int threads = threads_of[which], smem = smem_of[which];
        CUfunction f = mid_fn(argv[8 + 2 * which], argv[9 + 2 * which], smem);
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        best[which] = 1e30;
        for (int r = 0; r < reps + 1; ++r) {
            cudaMemset(x, 0, bytes);
            void* args[] = {&a, &piv, &info, &x, &batch, &n, &stride, &stride};
            cudaEventRecord(e0);
            CUresult rc = launch(f, parts_of[which] < 0 ? -parts_of[which] * batch : batch,
                                 parts_of[which] < 0 ? 1 : parts_of[which], 1, threads, 1, 1, smem, 0, args, 0);
            cudaEventRecord(e1);
            if (rc || cudaEventSynchronize(e1)) { printf("launch %s failed (%d)\n", argv[9 + 2 * which], rc); return 1; }
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (r > 0 && ms < best[which]) best[which] = ms;
        }
        out[which].resize(bytes);
        cudaMemcpy(out[which].data(), x, bytes, cudaMemcpyDeviceToHost);
    }
    double maxdiff = 0;
    size_t nonfinite = 0;
    for (size_t i = 0; i < reals; ++i) {
        const double u = dbl ? ((double*)out[0].data())[i] : ((float*)out[0].data())[i];
        const double v = dbl ? ((double*)out[1].data())[i] : ((float*)out[1].data())[i];
        nonfinite += !std::isfinite(u);
        const double d = fabs(u - v) / (1.0 + fabs(u));
        if (!(d <= maxdiff)) maxdiff = d;
    }
    const bool same = memcmp(out[0].data(), out[1].data(), bytes) == 0;
    printf("%c n=%d  %s %.4f ms  %s %.4f ms  ratio %.3f  %s (max rel diff %.2e, %zu non-finite)\n", t, n, argv[9],
           best[0], argv[11], best[1], best[1] / best[0], same ? "identical" : "DIFFERENT", maxdiff, nonfinite);
    return 0;
}
