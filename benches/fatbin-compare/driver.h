// What the tools share: the CUDA driver entry points they call (through dlopen, so the tools
// need no driver library at link time), the loading of one kernel of a cubin or fatbin image,
// and the batch of random matrices the factorization tools time.
#pragma once
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef int CUresult; typedef void* CUmodule; typedef void* CUfunction; typedef void* CUstream;
typedef CUresult (*LoadData)(CUmodule*, const void*);
typedef CUresult (*GetFn)(CUfunction*, CUmodule, const char*);
typedef CUresult (*SetAttr)(CUfunction, int, int);
typedef CUresult (*Launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
static LoadData load; static GetFn getfn; static Launch launch; static SetAttr setattr;
// Resolves the entry points and creates the runtime's context (the modules load into it).
static void driver_init() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) { printf("cannot open libcuda.so.1\n"); exit(1); }
    load = (LoadData)dlsym(h, "cuModuleLoadData"); getfn = (GetFn)dlsym(h, "cuModuleGetFunction");
    launch = (Launch)dlsym(h, "cuLaunchKernel"); setattr = (SetAttr)dlsym(h, "cuFuncSetAttribute");
    cudaFree(0);
}
static std::vector<char> slurp(const char* p) {
    FILE* f = fopen(p, "rb");
    if (!f) { printf("cannot open %s\n", p); exit(1); }
    std::vector<char> v; fseek(f, 0, SEEK_END); v.resize(ftell(f)); fseek(f, 0, SEEK_SET);
    if (fread(v.data(), 1, v.size(), f) != v.size()) exit(1);
    fclose(f); return v;
}
// Kernel `name` of the image at `path` (the image stays loaded for the process).
static CUfunction fn(const char* path, const char* name) {
    static std::vector<std::vector<char>> keep;
    keep.push_back(slurp(path));
    CUmodule m; if (load(&m, keep.back().data())) { printf("load %s failed\n", path); exit(1); }
    CUfunction f; if (getfn(&f, m, name)) { printf("no %s in %s\n", name, path); exit(1); }
    return f;
}
// A batch of `batch` random n × n matrices of type t (s, d, c, z), entries uniform in [-1, 1)
// from a fixed seed, with n added to each diagonal entry's real part when dd is set.
static std::vector<char> random_batch(char t, int n, int batch, bool dd) {
    const bool cplx = t == 'c' || t == 'z', dbl = t == 'd' || t == 'z';
    const size_t sz = (t == 's') ? 4 : (t == 'd' || t == 'c') ? 8 : 16;
    const size_t bytes = (size_t)n * n * batch * sz, reals = bytes / (dbl ? 8 : 4);
    std::vector<char> hb(bytes);
    unsigned long long s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < reals; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (dbl) ((double*)hb.data())[i] = u; else ((float*)hb.data())[i] = (float)u;
    }
    if (dd)
        for (size_t k = 0; k < (size_t)batch; ++k)
            for (int i = 0; i < n; ++i) {
                const size_t at = (k * n * n + (size_t)i * n + i) * (cplx ? 2 : 1);
                if (dbl) ((double*)hb.data())[at] += n; else ((float*)hb.data())[at] += n;
            }
    return hb;
}
