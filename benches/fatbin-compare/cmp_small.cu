// Times two builds of one register kernel of kernels/batched_lu.cu (`getrf_small_*`,
// `getrf_rows_*` or `getri_small_*`; two cubins or fatbins, or one with two kernel names) on the
// same matrices in one process, and says whether their outputs are identical. See README.md.
//
// Usage: cmp_small OP TYPE N BATCH REPS DD LANES THREADS A.cubin KERNEL_A B.cubin KERNEL_B
//   OP f (getrf) or i (getri: the matrices are first factored by KERNEL_F, given as
//   FACTOR.cubin:KERNEL_F in a 13th argument, with the same LANES and THREADS 128);
//   TYPE s|d|c|z; DD 1: n added to the diagonal (no interchanges), 0: general matrices;
//   LANES: lanes per matrix (getrf_small / getri_small: W), 0 for one block of THREADS per
//   matrix (getrf_rows). OP f takes an optional 13th argument THREADS_B, B's own thread count
//   (kernels of one block per matrix with another block size), and a 14th, LANES_B, B's own
//   lanes per matrix (a register kernel holding several rows per lane).
#include "driver.h"
#include <cstring>
#include <string>
#include <cmath>
int main(int argc, char** argv) {
    if (argc < 13) { printf("usage: see the source\n"); return 2; }
    const char op = argv[1][0], t = argv[2][0];
    int n = atoi(argv[3]), batch = atoi(argv[4]), reps = atoi(argv[5]), dd = atoi(argv[6]);
    const int lanes = atoi(argv[7]), threads = atoi(argv[8]);
    driver_init();
    const bool dbl = t == 'd' || t == 'z';
    const size_t sz = (t == 's') ? 4 : (t == 'd' || t == 'c') ? 8 : 16;
    const size_t elems = (size_t)n * n * batch, bytes = elems * sz, reals = bytes / (dbl ? 8 : 4);
    std::vector<char> hb = random_batch(t, n, batch, dd);
    void *a0, *a, *x; int *piv, *info;
    cudaMalloc(&a0, bytes); cudaMalloc(&a, bytes); cudaMalloc(&x, bytes);
    cudaMalloc(&piv, 4ull * n * batch); cudaMalloc(&info, 4ull * batch);
    cudaMemcpy(a0, hb.data(), bytes, cudaMemcpyHostToDevice);
    long long stride = (long long)n * n;
    auto grid_of_l = [&](int per_block_threads, int ln) {
        return ln ? (unsigned)((batch + per_block_threads / ln - 1) / (per_block_threads / ln)) : (unsigned)batch;
    };
    auto grid_of = [&](int per_block_threads) { return grid_of_l(per_block_threads, lanes); };
    if (op == 'i') {
        // Factor once with the given kernel.
        std::string fk = argv[13];
        const size_t colon = fk.find(':');
        CUfunction f = fn(fk.substr(0, colon).c_str(), fk.substr(colon + 1).c_str());
        cudaMemcpy(a, a0, bytes, cudaMemcpyDeviceToDevice);
        void* args[] = {&a, &piv, &info, &batch, &n, &stride};
        if (launch(f, grid_of(128), 1, 1, 128, 1, 1, 0, 0, args, 0)) { printf("factor launch failed\n"); return 1; }
        if (cudaDeviceSynchronize()) { printf("factor failed\n"); return 1; }
    }
    std::vector<char> out[2]; std::vector<int> outp[2], outi[2];
    double best[2];
    for (int which = 0; which < 2; ++which) {
        CUfunction f = fn(argv[9 + 2 * which], argv[10 + 2 * which]);
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        best[which] = 1e30;
        for (int r = 0; r < reps + 1; ++r) {
            CUresult rc;
            if (op == 'f') {
                cudaMemcpy(a, a0, bytes, cudaMemcpyDeviceToDevice);
                void* args[] = {&a, &piv, &info, &batch, &n, &stride};
                cudaEventRecord(e0);
                const int th = which == 1 && argc > 13 ? atoi(argv[13]) : threads;
                const int ln = which == 1 && argc > 14 ? atoi(argv[14]) : lanes;
                rc = launch(f, grid_of_l(th, ln), 1, 1, th, 1, 1, 0, 0, args, 0);
            } else {
                cudaMemset(x, 0, bytes);
                const unsigned smem = (unsigned)(threads * (lanes + 1) * sz);
                void* args[] = {&a, &piv, &info, &x, &batch, &n, &stride, &stride};
                cudaEventRecord(e0);
                rc = launch(f, grid_of(threads), 1, 1, threads, 1, 1, smem, 0, args, 0);
            }
            cudaEventRecord(e1);
            if (rc || cudaEventSynchronize(e1)) { printf("launch %s failed (%d)\n", argv[10 + 2 * which], rc); return 1; }
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (r > 0 && ms < best[which]) best[which] = ms;
        }
        out[which].resize(bytes); outp[which].resize((size_t)n * batch); outi[which].resize(batch);
        cudaMemcpy(out[which].data(), op == 'f' ? a : x, bytes, cudaMemcpyDeviceToHost);
        if (op == 'f') {
            cudaMemcpy(outp[which].data(), piv, 4ull * n * batch, cudaMemcpyDeviceToHost);
            cudaMemcpy(outi[which].data(), info, 4ull * batch, cudaMemcpyDeviceToHost);
        }
    }
    double maxdiff = 0;
    for (size_t i = 0; i < reals; ++i) {
        const double u = dbl ? ((double*)out[0].data())[i] : ((float*)out[0].data())[i];
        const double v = dbl ? ((double*)out[1].data())[i] : ((float*)out[1].data())[i];
        const double d = fabs(u - v) / (1.0 + fabs(u));
        if (!(d <= maxdiff)) maxdiff = d;
    }
    const bool same = memcmp(out[0].data(), out[1].data(), bytes) == 0 && outp[0] == outp[1] && outi[0] == outi[1];
    printf("%c %c n=%d dd=%d  %s %.4f ms  %s %.4f ms  ratio %.3f  %s (max rel diff %.2e)\n", op, t, n, dd, argv[10],
           best[0], argv[12], best[1], best[1] / best[0], same ? "identical" : "DIFFERENT", maxdiff);
    return 0;
}
