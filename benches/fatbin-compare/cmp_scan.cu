// Times two or more builds of the non-finite scan that runs before the f32, c64 and c128 blocked
// factorizations (`nonfinite_info_scan_*`: one warp per matrix, grid-stride) on the same batch,
// in one process: each kernel's minimum time, its read bandwidth, and whether its infos and
// pivots equal the first's. The batch holds a few non-finite entries (a NaN at matrix k·97's
// position (k·31) mod n², an infinity beside it in every third) so the reports are compared too.
//
// Usage: cmp_scan TYPE N BATCH REPS A.img KERNEL_A BLOCKS_A THREADS_A [B.img KERNEL_B BLOCKS_B THREADS_B ...]
//   BLOCKS 0: the library's grid, ⌈batch / 8⌉ blocks (at most 65535) of THREADS.
#include "driver.h"
#include <cmath>
#include <cstring>
int main(int argc, char** argv) {
    if (argc < 9 || (argc - 5) % 4) { printf("usage: see the source\n"); return 2; }
    const int kernels = (argc - 5) / 4;
    const char t = argv[1][0];
    int n = atoi(argv[2]), batch = atoi(argv[3]);
    const int reps = atoi(argv[4]);
    driver_init();
    const size_t sz = (t == 's') ? 4 : (t == 'd' || t == 'c') ? 8 : 16;
    const size_t bytes = (size_t)n * n * batch * sz;
    std::vector<char> hb = random_batch(t, n, batch, true);
    const size_t nn = (size_t)n * n;
    for (size_t k = 0; k < (size_t)batch; k += 97) {
        const size_t e = (k * 31) % nn;
        char* p = hb.data() + (k * nn + e) * sz;
        if (sz == 8 && t == 'd') *(double*)p = NAN; else if (sz == 16) *(double*)p = NAN; else *(float*)p = NAN;
        if (k % 3 == 0 && e + 1 < nn) {
            char* q = p + sz;
            if (t == 'd' || t == 'z') *(double*)q = INFINITY; else *(float*)q = INFINITY;
        }
    }
    void* a; int *piv, *info;
    cudaMalloc(&a, bytes); cudaMalloc(&piv, 4ull * n * batch); cudaMalloc(&info, 4ull * batch);
    cudaMemcpy(a, hb.data(), bytes, cudaMemcpyHostToDevice);
    long long stride = nn;
    void* null = nullptr;
    std::vector<std::vector<int>> outp(kernels), outi(kernels);
    for (int which = 0; which < kernels; ++which) {
        const char* path = argv[5 + 4 * which];
        const char* name = argv[6 + 4 * which];
        int blocks = atoi(argv[7 + 4 * which]);
        const int threads = atoi(argv[8 + 4 * which]);
        if (blocks <= 0) blocks = (batch + 7) / 8 > 65535 ? 65535 : (batch + 7) / 8;
        CUfunction f = fn(path, name);
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        float best = 1e30f;
        for (int r = 0; r < reps + 1; ++r) {
            cudaMemset(info, 0x7f, 4ull * batch);
            cudaMemset(piv, 0, 4ull * n * batch);
            void* args[] = {&a, &piv, &info, &batch, &n, &stride, &stride, &null, &null, &null, &null};
            cudaEventRecord(e0);
            CUresult rc = launch(f, blocks, 1, 1, threads, 1, 1, 0, 0, args, 0);
            cudaEventRecord(e1);
            if (rc || cudaEventSynchronize(e1)) { printf("launch %s failed (%d)\n", name, rc); return 1; }
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (r > 0 && ms < best) best = ms;
        }
        outp[which].resize((size_t)n * batch); outi[which].resize(batch);
        cudaMemcpy(outp[which].data(), piv, 4ull * n * batch, cudaMemcpyDeviceToHost);
        cudaMemcpy(outi[which].data(), info, 4ull * batch, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int k = 0; k < batch; ++k) bad += outi[which][k] < 0;
        printf("%c n=%d  %-28s %5d x %4d  %.4f ms  %6.0f GB/s  %d marked  %s\n", t, n, name, blocks, threads, best,
               bytes / (best * 1e6), bad,
               which == 0 ? "" : (outi[which] == outi[0] && outp[which] == outp[0] ? "same infos and pivots" : "DIFFERENT"));
    }
    return 0;
}
