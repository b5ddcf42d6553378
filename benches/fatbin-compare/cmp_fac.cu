// Times two or more factorization kernels of kernels/batched_lu.cu (or experimental builds of
// it) that take the blocked kernels' arguments (`getrf_blocked_*`: one block per matrix,
// dynamic shared memory) on the same matrices in one process, and says whether each one's
// factors, pivots and infos are identical to the first one's. See README.md.
//
// Usage: cmp_fac TYPE N BATCH REPS DD A.img KERNEL_A THREADS_A SMEM_A B.img KERNEL_B THREADS_B SMEM_B [C.img ...]
//   (each further group of four: one more kernel, compared with A)
//   TYPE s|d|c|z; DD 1: n added to the diagonal (no interchanges), 0: general random matrices;
//   SMEM the dynamic shared memory (`blocked_smem` in gpu.rs for the kernel's panel width).
// Kernel time only: the f32, c64 and c128 blocked kernels' non-finite scan is not run (info is
// zeroed before each launch).
#include "driver.h"
#include <cstring>
#include <string>
#include <cmath>
int main(int argc, char** argv) {
    if (argc < 14 || (argc - 6) % 4) { printf("usage: see the source\n"); return 2; }
    const int kernels = (argc - 6) / 4;
    const char t = argv[1][0];
    int n = atoi(argv[2]), batch = atoi(argv[3]);
    const int reps = atoi(argv[4]), dd = atoi(argv[5]);
    driver_init();
    const bool dbl = t == 'd' || t == 'z';
    const size_t sz = (t == 's') ? 4 : (t == 'd' || t == 'c') ? 8 : 16;
    const size_t bytes = (size_t)n * n * batch * sz, reals = bytes / (dbl ? 8 : 4);
    std::vector<char> hb = random_batch(t, n, batch, dd);
    void *a0, *a; int *piv, *info;
    cudaMalloc(&a0, bytes); cudaMalloc(&a, bytes);
    cudaMalloc(&piv, 4ull * n * batch); cudaMalloc(&info, 4ull * batch);
    cudaMemcpy(a0, hb.data(), bytes, cudaMemcpyHostToDevice);
    long long stride = (long long)n * n;
    void* null = nullptr;
    std::vector<std::vector<char>> out(kernels);
    std::vector<std::vector<int>> outp(kernels), outi(kernels);
    std::vector<double> best(kernels);
    for (int which = 0; which < kernels; ++which) {
        const char* path = argv[6 + 4 * which];
        const char* name = argv[7 + 4 * which];
        const int threads = atoi(argv[8 + 4 * which]), smem = atoi(argv[9 + 4 * which]);
        CUfunction f = fn(path, name);
        if (setattr(f, 8, smem) || setattr(f, 9, 100)) { printf("attributes of %s failed\n", name); return 1; }
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        best[which] = 1e30;
        for (int r = 0; r < reps + 1; ++r) {
            cudaMemcpy(a, a0, bytes, cudaMemcpyDeviceToDevice);
            cudaMemset(info, 0, 4ull * batch);
            cudaMemset(piv, 0, 4ull * n * batch);
            void* args[] = {&a, &piv, &info, &batch, &n, &stride, &stride, &null, &null, &null, &null};
            cudaEventRecord(e0);
            CUresult rc = launch(f, batch, 1, 1, threads, 1, 1, smem, 0, args, 0);
            cudaEventRecord(e1);
            if (rc || cudaEventSynchronize(e1)) { printf("launch %s failed (%d)\n", name, rc); return 1; }
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (r > 0 && ms < best[which]) best[which] = ms;
        }
        out[which].resize(bytes); outp[which].resize((size_t)n * batch); outi[which].resize(batch);
        cudaMemcpy(out[which].data(), a, bytes, cudaMemcpyDeviceToHost);
        cudaMemcpy(outp[which].data(), piv, 4ull * n * batch, cudaMemcpyDeviceToHost);
        cudaMemcpy(outi[which].data(), info, 4ull * batch, cudaMemcpyDeviceToHost);
    }
    for (int which = 1; which < kernels; ++which) {
        double maxdiff = 0;
        for (size_t i = 0; i < reals; ++i) {
            const double u = dbl ? ((double*)out[0].data())[i] : ((float*)out[0].data())[i];
            const double v = dbl ? ((double*)out[which].data())[i] : ((float*)out[which].data())[i];
            const double d = fabs(u - v) / (1.0 + fabs(u));
            if (!(d <= maxdiff)) maxdiff = d;
        }
        const bool same = memcmp(out[0].data(), out[which].data(), bytes) == 0;
        const bool samep = outp[0] == outp[which], samei = outi[0] == outi[which];
        printf("%c n=%d dd=%d  %s %.4f ms  %s %.4f ms  ratio %.3f  factors %s (max rel diff %.2e), pivots %s, info %s\n",
               t, n, dd, argv[7], best[0], argv[7 + 4 * which], best[which], best[which] / best[0],
               same ? "identical" : "DIFFERENT", maxdiff, samep ? "identical" : "DIFFERENT",
               samei ? "identical" : "DIFFERENT");
    }
    return 0;
}
