// BLAS level 1 for float (s), double (d), complex float (c) and complex double (z).
//
// Vectors follow BLAS conventions: the pointer is the lowest-addressed element and logical
// element i sits at i*inc (inc > 0) or (n-1-i)*|inc| (inc < 0). When every operand is
// contiguous and 16-byte aligned the kernels move 16-byte packs; otherwise they use a strided
// grid-stride loop. Reductions finish in a single launch (see grid_finish in common.cuh).

#include "common.cuh"

#define UNROLL 4

// ---------------------------------------------------------------------------------------------
// Accumulators. Each has identity(), combine(a, b), finish() and per-element update methods.

template <class T> struct SumAcc {
    T s;
    static __device__ __forceinline__ SumAcc identity() { return {zero<T>()}; }
    static __device__ __forceinline__ SumAcc combine(SumAcc a, SumAcc b) { return {add(a.s, b.s)}; }
    __device__ __forceinline__ T finish() const { return s; }
};

// Error-free transformations (rounding-to-nearest intrinsics keep the compiler from contracting
// or reassociating them).
__device__ __forceinline__ void two_sum(float a, float b, float& s, float& e) {
    s = __fadd_rn(a, b);
    float bb = __fsub_rn(s, a);
    e = __fadd_rn(__fsub_rn(a, __fsub_rn(s, bb)), __fsub_rn(b, bb));
}
__device__ __forceinline__ void two_sum(double a, double b, double& s, double& e) {
    s = __dadd_rn(a, b);
    double bb = __dsub_rn(s, a);
    e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}
__device__ __forceinline__ void two_prod(float a, float b, float& p, float& e) {
    p = __fmul_rn(a, b);
    e = fmaf(a, b, -p);
}
__device__ __forceinline__ void two_prod(double a, double b, double& p, double& e) {
    p = __dmul_rn(a, b);
    e = fma(a, b, -p);
}

// One compensated real sum (Ogita-Rump-Oishi Sum2/Dot2): s + c carries about twice the working
// precision.
template <class R> struct Comp {
    R s, c;
    __device__ __forceinline__ void add_prod(R a, R b) {
        R p, ep, t, q;
        two_prod(a, b, p, ep);
        two_sum(s, p, t, q);
        s = t;
        c += q + ep;
    }
    static __device__ __forceinline__ Comp merge(Comp a, Comp b) {
        R t, q;
        two_sum(a.s, b.s, t, q);
        return {t, a.c + b.c + q};
    }
};

template <class T> struct Dot2Acc;
template <> struct Dot2Acc<float> {
    Comp<float> r;
    static __device__ __forceinline__ Dot2Acc identity() { return {{0.0f, 0.0f}}; }
    static __device__ __forceinline__ Dot2Acc combine(Dot2Acc a, Dot2Acc b) { return {Comp<float>::merge(a.r, b.r)}; }
    __device__ __forceinline__ void add(float x, float y) { r.add_prod(x, y); }
    __device__ __forceinline__ float finish() const { return r.s + r.c; }
};
template <> struct Dot2Acc<double> {
    Comp<double> r;
    static __device__ __forceinline__ Dot2Acc identity() { return {{0.0, 0.0}}; }
    static __device__ __forceinline__ Dot2Acc combine(Dot2Acc a, Dot2Acc b) { return {Comp<double>::merge(a.r, b.r)}; }
    __device__ __forceinline__ void add(double x, double y) { r.add_prod(x, y); }
    __device__ __forceinline__ double finish() const { return r.s + r.c; }
};
template <class C, class R> struct Dot2AccC {
    Comp<R> re, im;
    static __device__ __forceinline__ Dot2AccC identity() { return {{0, 0}, {0, 0}}; }
    static __device__ __forceinline__ Dot2AccC combine(Dot2AccC a, Dot2AccC b) {
        return {Comp<R>::merge(a.re, b.re), Comp<R>::merge(a.im, b.im)};
    }
    __device__ __forceinline__ void add(C x, C y) {
        re.add_prod(x.re, y.re);
        re.add_prod(-x.im, y.im);
        im.add_prod(x.re, y.im);
        im.add_prod(x.im, y.re);
    }
    __device__ __forceinline__ C finish() const { return {re.s + re.c, im.s + im.c}; }
};
template <> struct Dot2Acc<cf32> : Dot2AccC<cf32, float> {
    static __device__ __forceinline__ Dot2Acc identity() { return {Dot2AccC<cf32, float>::identity()}; }
    static __device__ __forceinline__ Dot2Acc combine(Dot2Acc a, Dot2Acc b) { return {Dot2AccC<cf32, float>::combine(a, b)}; }
};
template <> struct Dot2Acc<cf64> : Dot2AccC<cf64, double> {
    static __device__ __forceinline__ Dot2Acc identity() { return {Dot2AccC<cf64, double>::identity()}; }
    static __device__ __forceinline__ Dot2Acc combine(Dot2Acc a, Dot2Acc b) { return {Dot2AccC<cf64, double>::combine(a, b)}; }
};

// Sum of squares for single precision, accumulated in double: no overflow or underflow is
// possible for float inputs, so no scaling is needed.
struct SsqAccF {
    double s;
    static __device__ __forceinline__ SsqAccF identity() { return {0.0}; }
    static __device__ __forceinline__ SsqAccF combine(SsqAccF a, SsqAccF b) { return {a.s + b.s}; }
    __device__ __forceinline__ void add(float x) { s = fma((double)x, (double)x, s); }
    __device__ __forceinline__ float finish() const { return (float)sqrt(s); }
};

// Blue's scaled sum of squares for double precision (as in reference LAPACK's dnrm2): three
// accumulators for tiny, medium and huge magnitudes, combined at the end.
struct SsqAccD {
    double sml, med, big;
    static constexpr double TSML = 0x1p-511, TBIG = 0x1p486, SSML = 0x1p537, SBIG = 0x1p-538;
    static __device__ __forceinline__ SsqAccD identity() { return {0.0, 0.0, 0.0}; }
    static __device__ __forceinline__ SsqAccD combine(SsqAccD a, SsqAccD b) {
        return {a.sml + b.sml, a.med + b.med, a.big + b.big};
    }
    __device__ __forceinline__ void add(double x) {
        const double ax = fabs(x);
        if (ax > TBIG) {
            const double t = ax * SBIG;
            big = fma(t, t, big);
        } else if (ax < TSML) {
            const double t = ax * SSML;
            sml = fma(t, t, sml);
        } else {
            med = fma(ax, ax, med);  // also propagates NaN
        }
    }
    __device__ __forceinline__ double finish() const {
        double a_big = big, a_med = med, a_sml = sml, scl, sumsq;
        if (a_big > 0.0) {
            if (a_med > 0.0 || isnan(a_med)) a_big += (a_med * SBIG) * SBIG;
            scl = 1.0 / SBIG;
            sumsq = a_big;
        } else if (a_sml > 0.0) {
            if (a_med > 0.0 || isnan(a_med)) {
                a_med = sqrt(a_med);
                a_sml = sqrt(a_sml) / SSML;
                double ymin = a_sml > a_med ? a_med : a_sml;
                double ymax = a_sml > a_med ? a_sml : a_med;
                scl = 1.0;
                const double r = ymin / ymax;
                sumsq = ymax * ymax * (1.0 + r * r);
            } else {
                scl = 1.0 / SSML;
                sumsq = a_sml;
            }
        } else {
            scl = 1.0;
            sumsq = a_med;
        }
        return scl * sqrt(sumsq);
    }
};

template <class R> struct SsqAcc;
template <> struct SsqAcc<float> : SsqAccF {
    static __device__ __forceinline__ SsqAcc identity() { return {SsqAccF::identity()}; }
    static __device__ __forceinline__ SsqAcc combine(SsqAcc a, SsqAcc b) { return {SsqAccF::combine(a, b)}; }
};
template <> struct SsqAcc<double> : SsqAccD {
    static __device__ __forceinline__ SsqAcc identity() { return {SsqAccD::identity()}; }
    static __device__ __forceinline__ SsqAcc combine(SsqAcc a, SsqAcc b) { return {SsqAccD::combine(a, b)}; }
};

// Index of the first entry of largest |re|+|im|; a NaN entry outranks every number, and the
// first NaN wins. idx = -1 for an empty vector.
template <class R> struct MaxAcc {
    R val;
    int nan;
    int pad;
    i64 idx;
    static __device__ __forceinline__ MaxAcc identity() { return {(R)-1, 0, 0, -1}; }
    // Whether a ranks strictly before b.
    static __device__ __forceinline__ bool before(const MaxAcc& a, const MaxAcc& b) {
        if (a.idx < 0) return false;
        if (b.idx < 0) return true;
        if (a.nan != b.nan) return a.nan > b.nan;
        if (!a.nan && a.val != b.val) return a.val > b.val;
        return a.idx < b.idx;
    }
    static __device__ __forceinline__ MaxAcc combine(MaxAcc a, MaxAcc b) { return before(b, a) ? b : a; }
    template <class T> __device__ __forceinline__ void add(T x, i64 i) {
        // Elements arrive in increasing index order within a thread.
        const bool xn = isnan_any(x);
        const R v = abs1(x);
        if (idx < 0 || (xn && !nan) || (!xn && !nan && v > val)) {
            val = v;
            nan = xn;
            idx = i;
        }
    }
    __device__ __forceinline__ i64 finish() const { return idx; }
};

// ---------------------------------------------------------------------------------------------
// Reductions over one or two vectors. `Elem` is a functor applied to each (logical index, x, y).

template <class T, class A, class F>
__device__ __forceinline__ void reduce_two(A& acc, F f, const T* __restrict__ x, i64 incx,
                                           const T* __restrict__ y, i64 incy, i64 n) {
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    if (incx == 1 && incy == 1 && aligned16(x) && aligned16(y)) {
        constexpr int N = Pack<T>::N;
        const Pack<T>* __restrict__ xv = reinterpret_cast<const Pack<T>*>(x);
        const Pack<T>* __restrict__ yv = reinterpret_cast<const Pack<T>*>(y);
        const i64 nv = n / N;
        i64 k = tid;
        for (; k + (UNROLL - 1) * stride < nv; k += UNROLL * stride) {
            Pack<T> a[UNROLL], b[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                a[u] = xv[k + u * stride];
                b[u] = yv[k + u * stride];
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int e = 0; e < N; ++e) f(acc, (k + u * stride) * N + e, a[u].v[e], b[u].v[e]);
        }
        for (; k < nv; k += stride) {
            const Pack<T> a = xv[k], b = yv[k];
#pragma unroll
            for (int e = 0; e < N; ++e) f(acc, k * N + e, a.v[e], b.v[e]);
        }
        const i64 t = nv * N + tid;
        if (t < n) f(acc, t, x[t], y[t]);
    } else {
        const i64 sx = start_of(n, incx), sy = start_of(n, incy);
        for (i64 i = tid; i < n; i += stride) f(acc, i, x[sx + i * incx], y[sy + i * incy]);
    }
}

template <class T, class A, class F>
__device__ __forceinline__ void reduce_one(A& acc, F f, const T* __restrict__ x, i64 incx, i64 n) {
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    if (incx == 1 && aligned16(x)) {
        constexpr int N = Pack<T>::N;
        const Pack<T>* __restrict__ xv = reinterpret_cast<const Pack<T>*>(x);
        const i64 nv = n / N;
        i64 k = tid;
        for (; k + (UNROLL - 1) * stride < nv; k += UNROLL * stride) {
            Pack<T> a[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) a[u] = xv[k + u * stride];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int e = 0; e < N; ++e) f(acc, (k + u * stride) * N + e, a[u].v[e]);
        }
        for (; k < nv; k += stride) {
            const Pack<T> a = xv[k];
#pragma unroll
            for (int e = 0; e < N; ++e) f(acc, k * N + e, a.v[e]);
        }
        const i64 t = nv * N + tid;
        if (t < n) f(acc, t, x[t]);
    } else {
        const i64 sx = start_of(n, incx);
        for (i64 i = tid; i < n; i += stride) f(acc, i, x[sx + i * incx]);
    }
}

struct DotF {
    template <class A, class T> __device__ __forceinline__ void operator()(A& a, i64, T x, T y) const {
        a.s = madd(x, y, a.s);
    }
};
struct DotcF {
    template <class A, class T> __device__ __forceinline__ void operator()(A& a, i64, T x, T y) const {
        a.s = madd(conj(x), y, a.s);
    }
};
struct Dot2F {
    template <class A, class T> __device__ __forceinline__ void operator()(A& a, i64, T x, T y) const { a.add(x, y); }
};
struct Dot2cF {
    template <class A, class T> __device__ __forceinline__ void operator()(A& a, i64, T x, T y) const { a.add(conj(x), y); }
};
struct SsqF {
    template <class A> __device__ __forceinline__ void operator()(A& a, i64, float x) const { a.add(x); }
    template <class A> __device__ __forceinline__ void operator()(A& a, i64, double x) const { a.add(x); }
    template <class A> __device__ __forceinline__ void operator()(A& a, i64, cf32 x) const { a.add(x.re); a.add(x.im); }
    template <class A> __device__ __forceinline__ void operator()(A& a, i64, cf64 x) const { a.add(x.re); a.add(x.im); }
};
struct AsumF {
    template <class A, class T> __device__ __forceinline__ void operator()(A& a, i64, T x) const { a.s += abs1(x); }
};
struct MaxF {
    template <class A, class T> __device__ __forceinline__ void operator()(A& a, i64 i, T x) const { a.add(x, i); }
};

#define REDUCE_TWO(NAME, T, ACC, F, OUT)                                                              \
    extern "C" __global__ void __launch_bounds__(256) NAME(const T* __restrict__ x, i64 incx,       \
                                                           const T* __restrict__ y, i64 incy, i64 n, \
                                                           OUT* out, ACC* partials, unsigned* counter) { \
        ACC acc = ACC::identity();                                                                    \
        reduce_two<T>(acc, F(), x, incx, y, incy, n);                                                 \
        grid_finish<ACC, OUT>(acc, out, partials, counter);                                           \
    }

#define REDUCE_ONE(NAME, T, ACC, F, OUT)                                                              \
    extern "C" __global__ void __launch_bounds__(256) NAME(const T* __restrict__ x, i64 incx, i64 n,  \
                                                           OUT* out, ACC* partials, unsigned* counter) { \
        ACC acc = ACC::identity();                                                                    \
        reduce_one<T>(acc, F(), x, incx, n);                                                          \
        grid_finish<ACC, OUT>(acc, out, partials, counter);                                           \
    }

#define REDUCTIONS(P, T, R)                                                 \
    REDUCE_TWO(dot_##P, T, SumAcc<T>, DotF, T)                              \
    REDUCE_TWO(dotc_##P, T, SumAcc<T>, DotcF, T)                            \
    REDUCE_TWO(dot2_##P, T, Dot2Acc<T>, Dot2F, T)                           \
    REDUCE_TWO(dot2c_##P, T, Dot2Acc<T>, Dot2cF, T)                         \
    REDUCE_ONE(nrm2_##P, T, SsqAcc<R>, SsqF, R)                             \
    REDUCE_ONE(asum_##P, T, SumAcc<R>, AsumF, R)                            \
    REDUCE_ONE(iamax_##P, T, MaxAcc<R>, MaxF, i64)

REDUCTIONS(s, float, float)
REDUCTIONS(d, double, double)
REDUCTIONS(c, cf32, float)
REDUCTIONS(z, cf64, double)

// ---------------------------------------------------------------------------------------------
// Element-wise operations.

// 16-byte pack load/store, optionally with the streaming (evict-first) cache hint.
template <bool CS, class T> __device__ __forceinline__ Pack<T> ldp(const Pack<T>* p) {
    if (CS) {
        uint4 u = __ldcs(reinterpret_cast<const uint4*>(p));
        return *reinterpret_cast<Pack<T>*>(&u);
    }
    return *p;
}
template <bool CS, class T> __device__ __forceinline__ void stp(Pack<T>* p, const Pack<T>& v) {
    if (CS) {
        __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&v));
    } else {
        *p = v;
    }
}

// Element-wise kernels are launched with one 16-byte pack per thread (the loop only runs more
// than once for a capped grid) and use streaming cache hints: measured fastest on H100 (see
// docs/perf-notes.md).
template <class T, class F, bool CS = true>
__device__ __forceinline__ void map_two(F f, T* x, i64 incx, T* y, i64 incy, i64 n) {
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    if (incx == 1 && incy == 1 && aligned16(x) && aligned16(y)) {
        constexpr int N = Pack<T>::N;
        Pack<T>* xv = reinterpret_cast<Pack<T>*>(x);
        Pack<T>* yv = reinterpret_cast<Pack<T>*>(y);
        const i64 nv = n / N;
        i64 k = tid;
        for (; k + (UNROLL - 1) * stride < nv; k += UNROLL * stride) {
            Pack<T> a[UNROLL], b[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                if (F::READS_X) a[u] = ldp<CS>(xv + k + u * stride);
                if (F::READS_Y) b[u] = ldp<CS>(yv + k + u * stride);
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
                for (int e = 0; e < N; ++e) f(a[u].v[e], b[u].v[e]);
                if (F::WRITES_X) stp<CS>(xv + k + u * stride, a[u]);
                stp<CS>(yv + k + u * stride, b[u]);
            }
        }
        for (; k < nv; k += stride) {
            Pack<T> a, b;
            if (F::READS_X) a = ldp<CS>(xv + k);
            if (F::READS_Y) b = ldp<CS>(yv + k);
#pragma unroll
            for (int e = 0; e < N; ++e) f(a.v[e], b.v[e]);
            if (F::WRITES_X) stp<CS>(xv + k, a);
            stp<CS>(yv + k, b);
        }
        const i64 t = nv * N + tid;
        if (t < n) {
            T a, b;
            if (F::READS_X) a = x[t];
            if (F::READS_Y) b = y[t];
            f(a, b);
            if (F::WRITES_X) x[t] = a;
            y[t] = b;
        }
    } else {
        const i64 sx = start_of(n, incx), sy = start_of(n, incy);
        for (i64 i = tid; i < n; i += stride) {
            T a, b;
            if (F::READS_X) a = x[sx + i * incx];
            if (F::READS_Y) b = y[sy + i * incy];
            f(a, b);
            if (F::WRITES_X) x[sx + i * incx] = a;
            y[sy + i * incy] = b;
        }
    }
}

template <class T> struct AxpyF {
    static constexpr bool READS_X = true, READS_Y = true, WRITES_X = false;
    T alpha;
    __device__ __forceinline__ void operator()(T& x, T& y) const { y = madd(alpha, x, y); }
};
template <class T> struct CopyF {
    static constexpr bool READS_X = true, READS_Y = false, WRITES_X = false;
    __device__ __forceinline__ void operator()(T& x, T& y) const { y = x; }
};
template <class T> struct SwapF {
    static constexpr bool READS_X = true, READS_Y = true, WRITES_X = true;
    __device__ __forceinline__ void operator()(T& x, T& y) const {
        T t = x;
        x = y;
        y = t;
    }
};
// scal is a one-vector map: run it as map_two over (y, y) with x unused.
template <class T> struct ScalF {
    static constexpr bool READS_X = false, READS_Y = true, WRITES_X = false;
    T alpha;
    __device__ __forceinline__ void operator()(T&, T& y) const { y = mul(alpha, y); }
};

#define ELEMENTWISE(P, T)                                                                           \
    extern "C" __global__ void __launch_bounds__(256) axpy_##P(i64 n, T alpha, const T* alpha_ptr,   \
                                                               const T* x, i64 incx, T* y, i64 incy) { \
        AxpyF<T> f{alpha_ptr ? *alpha_ptr : alpha};                                                 \
        map_two<T>(f, const_cast<T*>(x), incx, y, incy, n);                                         \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) scal_##P(i64 n, T alpha, const T* alpha_ptr,   \
                                                               T* x, i64 incx) {                    \
        ScalF<T> f{alpha_ptr ? *alpha_ptr : alpha};                                                 \
        map_two<T>(f, x, incx, x, incx, n);                                                         \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) copy_##P(i64 n, const T* x, i64 incx, T* y,    \
                                                               i64 incy) {                          \
        map_two<T>(CopyF<T>(), const_cast<T*>(x), incx, y, incy, n);                                \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) swap_##P(i64 n, T* x, i64 incx, T* y,          \
                                                               i64 incy) {                          \
        map_two<T>(SwapF<T>(), x, incx, y, incy, n);                                                \
    }

ELEMENTWISE(s, float)
ELEMENTWISE(d, double)
ELEMENTWISE(c, cf32)
ELEMENTWISE(z, cf64)
