// What cmp_small.cu and cmp_mid.cu share: the CUDA driver entry points they call (through
// dlopen, so the tools need no driver library at link time) and the loading of one kernel of
// a cubin or fatbin image.
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
