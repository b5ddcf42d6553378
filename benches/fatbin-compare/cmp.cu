// Times one `getrf_blocked_*` kernel of two builds of kernels/batched_lu.cu (two fatbins, e.g. the
// committed one and a new one) on the same matrices in one process, with the library's launch
// parameters, and says whether the new build's factors and pivots are identical. See README.md.
//
// Usage: cmp OLD.fatbin NEW.fatbin TYPE N BATCH REPS DD SUFFIX THREADS LIST [NEW_SUFFIX NEW_THREADS]
//   TYPE s|d|c|z; DD 1: n added to the diagonal (no interchanges), 0: general matrices;
//   SUFFIX e.g. nb16_r80 (the kernel getrf_blocked_<SUFFIX>_<TYPE>); LIST: which builds'
//   factorizations take the interchange list's 4·NB ints of shared memory (not for z): 0 neither,
//   1 the new build only (old from before Version 12), 2 both.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cmath>
#include <string>
typedef int CUresult; typedef void* CUmodule; typedef void* CUfunction; typedef void* CUstream;
typedef CUresult (*LoadData)(CUmodule*, const void*);
typedef CUresult (*GetFn)(CUfunction*, CUmodule, const char*);
typedef CUresult (*SetAttr)(CUfunction, int, int);
typedef CUresult (*Launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
typedef CUresult (*Occ)(int*, CUfunction, int, size_t);
typedef CUresult (*GetAttr)(int*, int, CUfunction);
static std::vector<char> slurp(const char* p) { FILE* f = fopen(p, "rb"); std::vector<char> v; fseek(f, 0, SEEK_END); v.resize(ftell(f)); fseek(f, 0, SEEK_SET); fread(v.data(), 1, v.size(), f); fclose(f); return v; }
int main(int argc, char** argv) {
    const char t = argv[3][0]; const int n = atoi(argv[4]), batch = atoi(argv[5]), reps = atoi(argv[6]), dd = atoi(argv[7]);
    const std::string sufs[2] = {argv[8], argc > 11 ? argv[11] : argv[8]};
    const int thr[2] = {atoi(argv[9]), argc > 12 ? atoi(argv[12]) : atoi(argv[9])};
    const int extra = atoi(argv[10]);
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    auto load = (LoadData)dlsym(h, "cuModuleLoadData"); auto getfn = (GetFn)dlsym(h, "cuModuleGetFunction");
    auto setattr = (SetAttr)dlsym(h, "cuFuncSetAttribute"); auto launch = (Launch)dlsym(h, "cuLaunchKernel");
    auto occ = (Occ)dlsym(h, "cuOccupancyMaxActiveBlocksPerMultiprocessor"); auto gattr = (GetAttr)dlsym(h, "cuFuncGetAttribute");
    cudaFree(0);
    const bool cplx = t == 'c' || t == 'z', dbl = t == 'd' || t == 'z';
    const size_t sz = (t == 's') ? 4 : (t == 'd' || t == 'c') ? 8 : 16;
    auto smem_of = [&](int nb) {
        const int np = (n + nb - 1) / nb * nb;
        const int ld = t == 'd' ? np + ((4 - np % 16) + 16) % 16 : np;
        return (size_t)ld * nb * sz + nb * nb * sz + ((n + 3) & ~3) * 4 + (cplx ? 32 * sz / 2 + 32 * 4 : 0);
    };
    const size_t elems = (size_t)n * n * batch, bytes = elems * sz, reals = bytes / (dbl ? 8 : 4);
    std::vector<char> hb(bytes);
    unsigned long long s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < reals; ++i) { s = s * 6364136223846793005ull + 1442695040888963407ull; const double u = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0; if (dbl) ((double*)hb.data())[i] = u; else ((float*)hb.data())[i] = (float)u; }
    if (dd) for (size_t k = 0; k < (size_t)batch; ++k) for (int i = 0; i < n; ++i) { const size_t at = (k * n * n + (size_t)i * n + i) * (cplx ? 2 : 1); if (dbl) ((double*)hb.data())[at] += n; else ((float*)hb.data())[at] += n; }
    void *a0, *a; int *piv, *info;
    cudaMalloc(&a0, bytes); cudaMalloc(&a, bytes); cudaMalloc(&piv, 4ull * n * batch); cudaMalloc(&info, 4ull * batch);
    cudaMemcpy(a0, hb.data(), bytes, cudaMemcpyHostToDevice);
    std::vector<char> ref(bytes), out(bytes); std::vector<int> refp((size_t)n * batch), outp((size_t)n * batch);
    for (int which = 0; which < 2; ++which) {
        const std::string suf = sufs[which];
        const int threads = thr[which];
        const int nb = atoi(suf.c_str() + 2);
        const size_t smem = smem_of(nb);
        const std::string name = std::string("getrf_blocked_") + suf + "_" + t;
        std::vector<char> img = slurp(argv[1 + which]);
        CUmodule m; if (load(&m, img.data())) { printf("load failed\n"); return 1; }
        CUfunction f; if (getfn(&f, m, name.c_str())) { printf("no %s\n", name.c_str()); return 1; }
        const bool list = t != 'z' && (extra == 2 || (extra == 1 && which == 1));
        // CMP_SMEM_PAD (bytes, optional) enlarges both builds' allocations: fewer resident
        // blocks per multiprocessor, so fewer matrices sharing L2.
        const char* pad = getenv("CMP_SMEM_PAD");
        const size_t sm = smem + (list ? 16 * nb : 0) + (pad ? (size_t)atol(pad) : 0);
        setattr(f, 8 /*MAX_DYNAMIC_SHARED_SIZE_BYTES*/, (int)sm);
        setattr(f, 9 /*PREFERRED_SHARED_MEMORY_CARVEOUT*/, 100);
        int blocks = 0, regs = 0; occ(&blocks, f, threads, sm); gattr(&regs, 4 /*NUM_REGS*/, f);
        int bt = batch, nn = n; long long as = (long long)n * n, xs = 0; void* nul = nullptr;
        void* args[] = {&a, &piv, &info, &bt, &nn, &as, &xs, &nul, &nul, &nul, &nul, &nul};
        std::vector<float> ts;
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        for (int r = 0; r <= reps; ++r) {
            cudaMemcpy(a, a0, bytes, cudaMemcpyDeviceToDevice); cudaDeviceSynchronize();
            cudaEventRecord(e0);
            if (launch(f, batch, 1, 1, threads, 1, 1, (unsigned)sm, 0, args, nullptr)) { printf("launch failed\n"); return 1; }
            cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1); if (r) ts.push_back(ms);
        }
        if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess) { printf("error\n"); return 1; }
        std::sort(ts.begin(), ts.end());
        cudaMemcpy(which ? out.data() : ref.data(), a, bytes, cudaMemcpyDeviceToHost);
        cudaMemcpy(which ? outp.data() : refp.data(), piv, 4ull * n * batch, cudaMemcpyDeviceToHost);
        long diff = 0, pm = 0;
        if (which) { diff = memcmp(ref.data(), out.data(), bytes) != 0; for (size_t i = 0; i < refp.size(); ++i) pm += refp[i] != outp[i]; }
        printf("%s %-4s %c n=%d dd=%d %s thr=%d: %d blocks/SM regs %d smem %zu  min %.3f med %.3f ms%s\n", which ? "new" : "old", "", t, n, dd, suf.c_str(), threads, blocks, regs, sm, ts[0], ts[ts.size() / 2],
               which ? (diff ? (pm ? " (factors differ, pivots differ)" : " (factors differ)") : " (identical)") : "");
    }
    return 0;
}
