// Shared device-side helpers: scalar types, complex arithmetic, 16-byte packs, reductions.
#pragma once

typedef long long i64;

// Complex types laid out as num_complex::Complex<f32> / Complex<f64> (re, im), aligned for
// single 8- and 16-byte accesses.
struct __align__(8) cf32 { float re, im; };
struct __align__(16) cf64 { double re, im; };

template <class T> struct Real;
template <> struct Real<float> { typedef float type; };
template <> struct Real<double> { typedef double type; };
template <> struct Real<cf32> { typedef float type; };
template <> struct Real<cf64> { typedef double type; };

template <class T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ float zero<float>() { return 0.0f; }
template <> __device__ __forceinline__ double zero<double>() { return 0.0; }
template <> __device__ __forceinline__ cf32 zero<cf32>() { return {0.0f, 0.0f}; }
template <> __device__ __forceinline__ cf64 zero<cf64>() { return {0.0, 0.0}; }

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ cf32 add(cf32 a, cf32 b) { return {a.re + b.re, a.im + b.im}; }
__device__ __forceinline__ cf64 add(cf64 a, cf64 b) { return {a.re + b.re, a.im + b.im}; }

__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ cf32 mul(cf32 a, cf32 b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
__device__ __forceinline__ cf64 mul(cf64 a, cf64 b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// a * b + c
__device__ __forceinline__ float madd(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double madd(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ cf32 madd(cf32 a, cf32 b, cf32 c) {
    return {fmaf(a.re, b.re, fmaf(-a.im, b.im, c.re)), fmaf(a.re, b.im, fmaf(a.im, b.re, c.im))};
}
__device__ __forceinline__ cf64 madd(cf64 a, cf64 b, cf64 c) {
    return {fma(a.re, b.re, fma(-a.im, b.im, c.re)), fma(a.re, b.im, fma(a.im, b.re, c.im))};
}

// c - a * b, rounded as madd(neg(a), b, c) (the negations fold into the FMAs)
__device__ __forceinline__ float msub(float a, float b, float c) { return fmaf(-a, b, c); }
__device__ __forceinline__ double msub(double a, double b, double c) { return fma(-a, b, c); }
__device__ __forceinline__ cf32 msub(cf32 a, cf32 b, cf32 c) {
    return {fmaf(-a.re, b.re, fmaf(a.im, b.im, c.re)), fmaf(-a.re, b.im, fmaf(-a.im, b.re, c.im))};
}
__device__ __forceinline__ cf64 msub(cf64 a, cf64 b, cf64 c) {
    return {fma(-a.re, b.re, fma(a.im, b.im, c.re)), fma(-a.re, b.im, fma(-a.im, b.re, c.im))};
}

__device__ __forceinline__ float conj(float a) { return a; }
__device__ __forceinline__ double conj(double a) { return a; }
__device__ __forceinline__ cf32 conj(cf32 a) { return {a.re, -a.im}; }
__device__ __forceinline__ cf64 conj(cf64 a) { return {a.re, -a.im}; }

__device__ __forceinline__ float neg(float a) { return -a; }
__device__ __forceinline__ double neg(double a) { return -a; }
__device__ __forceinline__ cf32 neg(cf32 a) { return {-a.re, -a.im}; }
__device__ __forceinline__ cf64 neg(cf64 a) { return {-a.re, -a.im}; }

// a / b (complex division scaled by the larger part of b, Smith's method)
__device__ __forceinline__ float div_s(float a, float b) { return a / b; }
__device__ __forceinline__ double div_s(double a, double b) { return a / b; }
template <class C, class R> __device__ __forceinline__ C cdiv(C a, C b) {
    if (fabs(b.re) >= fabs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}
__device__ __forceinline__ cf32 div_s(cf32 a, cf32 b) { return cdiv<cf32, float>(a, b); }
__device__ __forceinline__ cf64 div_s(cf64 a, cf64 b) { return cdiv<cf64, double>(a, b); }

// |re| + |im|
__device__ __forceinline__ float abs1(float a) { return fabsf(a); }
__device__ __forceinline__ double abs1(double a) { return fabs(a); }
__device__ __forceinline__ float abs1(cf32 a) { return fabsf(a.re) + fabsf(a.im); }
__device__ __forceinline__ double abs1(cf64 a) { return fabs(a.re) + fabs(a.im); }

__device__ __forceinline__ bool isnan_any(float a) { return isnan(a); }
__device__ __forceinline__ bool isnan_any(double a) { return isnan(a); }
__device__ __forceinline__ bool isnan_any(cf32 a) { return isnan(a.re) || isnan(a.im); }
__device__ __forceinline__ bool isnan_any(cf64 a) { return isnan(a.re) || isnan(a.im); }

// One, NaN (every part), finiteness (every part), exact zero.
template <class T> __device__ __forceinline__ T one_t();
template <> __device__ __forceinline__ float one_t<float>() { return 1.0f; }
template <> __device__ __forceinline__ double one_t<double>() { return 1.0; }
template <> __device__ __forceinline__ cf32 one_t<cf32>() { return {1.0f, 0.0f}; }
template <> __device__ __forceinline__ cf64 one_t<cf64>() { return {1.0, 0.0}; }

template <class T> __device__ __forceinline__ T nan_t();
template <> __device__ __forceinline__ float nan_t<float>() { return __int_as_float(0x7fc00000); }
template <> __device__ __forceinline__ double nan_t<double>() {
    return __longlong_as_double(0x7ff8000000000000ll);
}
template <> __device__ __forceinline__ cf32 nan_t<cf32>() { return {nan_t<float>(), nan_t<float>()}; }
template <> __device__ __forceinline__ cf64 nan_t<cf64>() { return {nan_t<double>(), nan_t<double>()}; }

__device__ __forceinline__ bool finite_t(float v) { return isfinite(v); }
__device__ __forceinline__ bool finite_t(double v) { return isfinite(v); }
__device__ __forceinline__ bool finite_t(cf32 v) { return isfinite(v.re) && isfinite(v.im); }
__device__ __forceinline__ bool finite_t(cf64 v) { return isfinite(v.re) && isfinite(v.im); }

template <class T> __device__ __forceinline__ bool is_zero_v(T v) { return abs1(v) == 0; }

// Sixteen bytes of T: the widest single load a thread issues.
template <class T> struct __align__(16) Pack {
    static constexpr int N = 16 / sizeof(T);
    T v[N];
};

__device__ __forceinline__ bool aligned16(const void* p) {
    return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0;
}

// Offset of logical element 0 of a BLAS-strided vector (inc < 0 walks backwards).
__device__ __forceinline__ i64 start_of(i64 n, i64 inc) { return inc >= 0 ? 0 : (n - 1) * (-inc); }

// Shuffles a plain-old-data value down a warp, four bytes at a time.
template <class A> __device__ __forceinline__ A shfl_down(A v, int delta) {
    static_assert(sizeof(A) % 4 == 0, "accumulator size must be a multiple of 4 bytes");
    union U { A a; int w[sizeof(A) / 4]; } u;
    u.a = v;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 4); ++k) u.w[k] = __shfl_down_sync(0xffffffffu, u.w[k], delta);
    return u.a;
}

// Shuffles a plain-old-data value from lane `src` of its group of `width` lanes, four bytes at a
// time.
// As `shfl_idx`, among the lanes of `mask` only (each of which must execute it).
template <class A> __device__ __forceinline__ A shfl_idx_m(A v, int src, int width, unsigned mask) {
    static_assert(sizeof(A) % 4 == 0, "value size must be a multiple of 4 bytes");
    union U { A a; int w[sizeof(A) / 4]; } u;
    u.a = v;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 4); ++k) u.w[k] = __shfl_sync(mask, u.w[k], src, width);
    return u.a;
}
template <class A> __device__ __forceinline__ A shfl_idx(A v, int src, int width = 32) {
    static_assert(sizeof(A) % 4 == 0, "value size must be a multiple of 4 bytes");
    union U { A a; int w[sizeof(A) / 4]; } u;
    u.a = v;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 4); ++k) u.w[k] = __shfl_sync(0xffffffffu, u.w[k], src, width);
    return u.a;
}

// The index of an argmax with no candidate: no entries, or NaN only (NaN never compares better).
#define ROW_NONE 0x7fffffff

// Walks the elements e = start, start + stride, ... of a tile with `rows` rows as (row, col) =
// (e % rows, e / rows), dividing once instead of at every element (rows > 0).
struct TileWalk {
    int row, col, dr, dc, rows;
    __device__ __forceinline__ TileWalk(int start, int stride, int rows_)
        : row(start % rows_), col(start / rows_), dr(stride % rows_), dc(stride / rows_), rows(rows_) {}
    __device__ __forceinline__ void step() {
        row += dr;
        col += dc;
        if (row >= rows) {
            row -= rows;
            ++col;
        }
    }
};

// Argmax step: (v, i) takes (v2, i2) when v2 is larger, or equal with a smaller index
// (LAPACK's i?amax rule: the first wins on ties). A NaN v2 never wins.
template <class R> __device__ __forceinline__ void better(R& v, int& i, R v2, int i2) {
    if (v2 > v || (v2 == v && i2 < i)) {
        v = v2;
        i = i2;
    }
}

// Exchanges a plain-old-data value with lane ^ mask within groups of `width` lanes (32: the
// whole warp), four bytes at a time.
template <class A> __device__ __forceinline__ A shfl_xor_w(A v, int mask, int width) {
    static_assert(sizeof(A) % 4 == 0, "value size must be a multiple of 4 bytes");
    union U { A a; int w[sizeof(A) / 4]; } u;
    u.a = v;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 4); ++k) u.w[k] = __shfl_xor_sync(0xffffffffu, u.w[k], mask, width);
    return u.a;
}

// Block-wide reduction of one accumulator per thread; the result is valid in thread 0.
// Requires blockDim.x to be a multiple of 32 and at most 1024.
template <class A> __device__ A block_reduce(A v) {
    __shared__ A warp_part[32];
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = A::combine(v, shfl_down(v, d));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_part[warp] = v;
    __syncthreads();
    const int nwarps = blockDim.x >> 5;
    if (warp == 0) {
        v = lane < nwarps ? warp_part[lane] : A::identity();
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) v = A::combine(v, shfl_down(v, d));
    }
    __syncthreads();
    return v;
}

// Single-launch grid reduction: every block reduces its threads' accumulators and writes one
// partial; the last block to finish combines the partials in block order (deterministic for a
// given grid size), writes the final value through A::finish and resets the counter to zero.
template <class A, class Out>
__device__ void grid_finish(A v, Out* out, A* partials, unsigned* counter) {
    __shared__ bool am_last;
    v = block_reduce(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        const unsigned done = atomicAdd(counter, 1u);
        am_last = (done == gridDim.x - 1);
    }
    __syncthreads();
    if (!am_last) return;
    __threadfence();
    A acc = A::identity();
    // Each thread combines a contiguous run of partials, in order, so the reduction order
    // depends on the grid size only.
    const unsigned per = (gridDim.x + blockDim.x - 1) / blockDim.x;
    const unsigned lo = threadIdx.x * per;
    for (unsigned k = lo; k < lo + per && k < gridDim.x; ++k) {
        volatile A* p = partials + k;
        A pk;
        const volatile int* src = reinterpret_cast<const volatile int*>(p);
        int* dst = reinterpret_cast<int*>(&pk);
#pragma unroll
        for (int w = 0; w < (int)(sizeof(A) / 4); ++w) dst[w] = src[w];
        acc = A::combine(acc, pk);
    }
    acc = block_reduce(acc);
    if (threadIdx.x == 0) {
        *out = acc.finish();
        *counter = 0u;
    }
}
