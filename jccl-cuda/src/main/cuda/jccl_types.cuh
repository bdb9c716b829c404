// Element types and reductions of JCCL's kernels, and the block-wide reduceCopy loop every algorithm moves data
// with. Floating-point types narrower than fp32 (fp16, bf16, fp8 e4m3/e5m2) are reduced in fp32 and rounded once
// per store (fp8 saturates to the largest finite value, as cuda_fp8.h's __NV_SATFINITE); fp64 in fp64; integers
// exactly in their own width (wrapping, computed in unsigned arithmetic). avg is a sum divided once by nRanks at
// the end; preMulSum multiplies this rank's input by a scalar when it is first read.
// Mirrors NCCL's src/device/reduce_kernel.h and common_kernel.h (written from our notes, not from NCCL's code).
#pragma once

#include "jccl_device.cuh"

namespace jccl {

// fp8 storage types, distinct from uint8_t so that each gets its own conversions.
struct fp8e4m3 {
    uint8_t x;
};
struct fp8e5m2 {
    uint8_t x;
};

// Elem<T>: the type reductions are computed in (Acc), the raw bits type (for tail loads), conversions.
template <typename T>
struct Elem;
#define JCCL_ELEM_SAME(T, BITS)                                  \
    template <>                                                 \
    struct Elem<T> {                                            \
        typedef T Acc;                                          \
        typedef BITS Bits;                                      \
        static JCCL_DEV Acc toAcc(T x) { return x; }            \
        static JCCL_DEV T fromAcc(Acc x) { return x; }          \
    };
JCCL_ELEM_SAME(float, uint32_t)
JCCL_ELEM_SAME(double, uint64_t)
JCCL_ELEM_SAME(int32_t, uint32_t)
JCCL_ELEM_SAME(uint32_t, uint32_t)
JCCL_ELEM_SAME(int64_t, uint64_t)
JCCL_ELEM_SAME(uint64_t, uint64_t)
#undef JCCL_ELEM_SAME
template <>
struct Elem<int8_t> {
    typedef int32_t Acc;
    typedef uint8_t Bits;
    static JCCL_DEV Acc toAcc(int8_t x) { return x; }
    static JCCL_DEV int8_t fromAcc(Acc x) { return (int8_t)(uint8_t)(uint32_t)x; }
};
template <>
struct Elem<uint8_t> {
    typedef uint32_t Acc;
    typedef uint8_t Bits;
    static JCCL_DEV Acc toAcc(uint8_t x) { return x; }
    static JCCL_DEV uint8_t fromAcc(Acc x) { return (uint8_t)x; }
};
template <>
struct Elem<__half> {
    typedef float Acc;
    typedef unsigned short Bits;
    static JCCL_DEV Acc toAcc(__half x) { return __half2float(x); }
    static JCCL_DEV __half fromAcc(Acc x) { return __float2half_rn(x); }
};
template <>
struct Elem<__nv_bfloat16> {
    typedef float Acc;
    typedef unsigned short Bits;
    static JCCL_DEV Acc toAcc(__nv_bfloat16 x) { return __bfloat162float(x); }
    static JCCL_DEV __nv_bfloat16 fromAcc(Acc x) { return __float2bfloat16_rn(x); }
};
template <>
struct Elem<fp8e4m3> {
    typedef float Acc;
    typedef uint8_t Bits;
    static JCCL_DEV Acc toAcc(fp8e4m3 x) { return __half2float(__half(__nv_cvt_fp8_to_halfraw(x.x, __NV_E4M3))); }
    static JCCL_DEV fp8e4m3 fromAcc(Acc x) {
        fp8e4m3 r;
        r.x = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
        return r;
    }
};
template <>
struct Elem<fp8e5m2> {
    typedef float Acc;
    typedef uint8_t Bits;
    static JCCL_DEV Acc toAcc(fp8e5m2 x) { return __half2float(__half(__nv_cvt_fp8_to_halfraw(x.x, __NV_E5M2))); }
    static JCCL_DEV fp8e5m2 fromAcc(Acc x) {
        fp8e5m2 r;
        r.x = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
        return r;
    }
};

// Arithmetic on accumulators: sum, product, min, max, the preMulSum scaling and the avg division.
template <typename A>
struct Arith;
template <>
struct Arith<float> {
    static JCCL_DEV float add(float a, float b) { return a + b; }
    static JCCL_DEV float mul(float a, float b) { return a * b; }
    static JCCL_DEV float mn(float a, float b) { return fminf(a, b); }
    static JCCL_DEV float mx(float a, float b) { return fmaxf(a, b); }
    static JCCL_DEV float scale(float a, double f, int64_t) { return a * (float)f; }
    static JCCL_DEV float div(float a, int n) { return a / (float)n; }
};
template <>
struct Arith<double> {
    static JCCL_DEV double add(double a, double b) { return a + b; }
    static JCCL_DEV double mul(double a, double b) { return a * b; }
    static JCCL_DEV double mn(double a, double b) { return fmin(a, b); }
    static JCCL_DEV double mx(double a, double b) { return fmax(a, b); }
    static JCCL_DEV double scale(double a, double f, int64_t) { return a * f; }
    static JCCL_DEV double div(double a, int n) { return a / (double)n; }
};
#define JCCL_ARITH_INT(S, U)                                                                   \
    template <>                                                                               \
    struct Arith<S> {                                                                         \
        static JCCL_DEV S add(S a, S b) { return (S)((U)a + (U)b); }                          \
        static JCCL_DEV S mul(S a, S b) { return (S)((U)a * (U)b); }                          \
        static JCCL_DEV S mn(S a, S b) { return a < b ? a : b; }                              \
        static JCCL_DEV S mx(S a, S b) { return a < b ? b : a; }                              \
        static JCCL_DEV S scale(S a, double, int64_t i) { return (S)((U)a * (U)i); }          \
        static JCCL_DEV S div(S a, int n) { return (S)(a / (S)n); }                           \
    };
JCCL_ARITH_INT(int32_t, uint32_t)
JCCL_ARITH_INT(uint32_t, uint32_t)
JCCL_ARITH_INT(int64_t, uint64_t)
JCCL_ARITH_INT(uint64_t, uint64_t)
#undef JCCL_ARITH_INT

// The reduction of one call: which operation, and the preMulSum / avg parameters.
struct Red {
    int op;
    int flags;
    int nRanks;
    double scaleF;
    int64_t scaleI;
};
JCCL_DEV Red makeRed(const KernelArgs& a) {
    Red r;
    r.op = a.op;
    r.flags = a.flags;
    r.nRanks = a.nRanks;
    r.scaleF = a.scaleF;
    r.scaleI = a.scaleI;
    return r;
}

// a op b; SUMONLY kernels are compiled for sum (and avg, preMulSum) alone, the others switch at run time.
template <typename A, bool SUMONLY>
JCCL_DEV A reduceOp(const Red& r, A a, A b) {
    if (SUMONLY) return Arith<A>::add(a, b);
    switch (r.op) {
        case kOpProd: return Arith<A>::mul(a, b);
        case kOpMax: return Arith<A>::mx(a, b);
        case kOpMin: return Arith<A>::mn(a, b);
        default: return Arith<A>::add(a, b);
    }
}
template <typename A>
JCCL_DEV A preOp(const Red& r, A x) { return Arith<A>::scale(x, r.scaleF, r.scaleI); }
template <typename A>
JCCL_DEV A postOp(const Red& r, A x) { return Arith<A>::div(x, r.nRanks); }

// ---------------------------------------------------------------------------------------------------------
// dst[d][i] = post(op over s of pre_s(src[s][i])) for i in [0, n) and every d < nDst (a null dst is skipped).
// Sources are combined in index order (every rank computes bitwise the same value from the same inputs).
// preSrc: index of the source that gets the preMulSum scaling (-1: none); post: divide by nRanks (avg).
// With one source and neither pre nor post the data is copied bit for bit (no conversion). Work is spread over
// nThreads threads numbered tid; 16-byte packs when every pointer is 16-byte aligned, scalars for the rest.
// UNROLL packs per thread are loaded before any is used, to keep loads in flight.
template <typename T, bool SUMONLY, int MAXSRC, int MAXDST, int UNROLL>
JCCL_DEV void reduceCopy(const T* const* src, int nSrc, T* const* dst, int nDst, uint64_t n, uint64_t tid,
                         uint64_t nThreads, const Red& red, int preSrc, bool post) {
    typedef typename Elem<T>::Acc A;
    typedef typename Elem<T>::Bits Bits;
    constexpr int PE = 16 / sizeof(T);
    const bool raw = nSrc == 1 && preSrc < 0 && !post;
    uintptr_t bits = 0;
#pragma unroll
    for (int s = 0; s < MAXSRC; s++)
        if (s < nSrc) bits |= reinterpret_cast<uintptr_t>(src[s]);
#pragma unroll
    for (int d = 0; d < MAXDST; d++)
        if (d < nDst) bits |= reinterpret_cast<uintptr_t>(dst[d]);
    const uint64_t nPacks = (bits & 15) == 0 ? n / PE : 0;

    for (uint64_t base = tid; base < nPacks; base += nThreads * UNROLL) {
        uint4 v[MAXSRC][UNROLL];
#pragma unroll
        for (int s = 0; s < MAXSRC; s++) {
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const uint64_t i = base + u * nThreads;
                v[s][u] = (s < nSrc && i < nPacks) ? loadPack(src[s] + i * PE) : make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const uint64_t i = base + u * nThreads;
            if (i >= nPacks) continue;
            uint4 r;
            if (raw) {
                r = v[0][u];
            } else {
                A acc[PE];
#pragma unroll
                for (int s = 0; s < MAXSRC; s++) {
                    if (s < nSrc) {
                        const T* e = reinterpret_cast<const T*>(&v[s][u]);
#pragma unroll
                        for (int k = 0; k < PE; k++) {
                            A x = Elem<T>::toAcc(e[k]);
                            if (s == preSrc) x = preOp(red, x);
                            acc[k] = s == 0 ? x : reduceOp<A, SUMONLY>(red, acc[k], x);
                        }
                    }
                }
                T* e = reinterpret_cast<T*>(&r);
#pragma unroll
                for (int k = 0; k < PE; k++) e[k] = Elem<T>::fromAcc(post ? postOp(red, acc[k]) : acc[k]);
            }
#pragma unroll
            for (int d = 0; d < MAXDST; d++)
                if (d < nDst && dst[d] != nullptr) storePack(dst[d] + i * PE, r);
        }
    }
    for (uint64_t i = nPacks * PE + tid; i < n; i += nThreads) {
        if (raw) {
            const Bits b = loadBits(reinterpret_cast<const Bits*>(src[0] + i));
#pragma unroll
            for (int d = 0; d < MAXDST; d++)
                if (d < nDst && dst[d] != nullptr) *reinterpret_cast<Bits*>(dst[d] + i) = b;
            continue;
        }
        A acc = A();
#pragma unroll
        for (int s = 0; s < MAXSRC; s++) {
            if (s < nSrc) {
                const Bits b = loadBits(reinterpret_cast<const Bits*>(src[s] + i));
                A x = Elem<T>::toAcc(*reinterpret_cast<const T*>(&b));
                if (s == preSrc) x = preOp(red, x);
                acc = s == 0 ? x : reduceOp<A, SUMONLY>(red, acc, x);
            }
        }
        const T r = Elem<T>::fromAcc(post ? postOp(red, acc) : acc);
#pragma unroll
        for (int d = 0; d < MAXDST; d++)
            if (d < nDst && dst[d] != nullptr) dst[d][i] = r;
    }
}

// One 8-byte word holding 8 / sizeof(T) elements: combine `vals[0..nVals)` element-wise as reduceCopy does.
template <typename T, bool SUMONLY>
JCCL_DEV uint64_t reduceWord(const uint64_t* vals, int nVals, const Red& red, int preIdx, bool post) {
    typedef typename Elem<T>::Acc A;
    constexpr int EW = 8 / sizeof(T);
    A acc[EW];
#pragma unroll
    for (int p = 0; p < kMaxRanks; p++) {
        if (p < nVals) {
            const T* e = reinterpret_cast<const T*>(&vals[p]);
#pragma unroll
            for (int k = 0; k < EW; k++) {
                A x = Elem<T>::toAcc(e[k]);
                if (p == preIdx) x = preOp(red, x);
                acc[k] = p == 0 ? x : reduceOp<A, SUMONLY>(red, acc[k], x);
            }
        }
    }
    uint64_t res = 0;
    T* e = reinterpret_cast<T*>(&res);
#pragma unroll
    for (int k = 0; k < EW; k++) e[k] = Elem<T>::fromAcc(post ? postOp(red, acc[k]) : acc[k]);
    return res;
}

// Word w of an array of `count` elements of T (8 / sizeof(T) elements per word; the last word zero-padded).
template <typename T>
JCCL_DEV uint64_t loadWord(const T* p, uint64_t w, uint64_t count) {
    constexpr int EW = 8 / sizeof(T);
    if ((reinterpret_cast<uintptr_t>(p) & 7) == 0 && (w + 1) * EW <= count)
        return loadBits(reinterpret_cast<const uint64_t*>(p) + w);
    uint64_t v = 0;
    T* e = reinterpret_cast<T*>(&v);
#pragma unroll
    for (int k = 0; k < EW; k++)
        if (w * EW + k < count) {
            typedef typename Elem<T>::Bits Bits;
            const Bits b = loadBits(reinterpret_cast<const Bits*>(p + w * EW + k));
            e[k] = *reinterpret_cast<const T*>(&b);
        }
    return v;
}

// Stores word w of an array of `count` elements of T (only the elements that exist).
template <typename T>
JCCL_DEV void storeWord(T* p, uint64_t w, uint64_t count, uint64_t v) {
    constexpr int EW = 8 / sizeof(T);
    if ((reinterpret_cast<uintptr_t>(p) & 7) == 0 && (w + 1) * EW <= count) {
        *reinterpret_cast<uint64_t*>(p + w * EW) = v;
        return;
    }
    const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int k = 0; k < EW; k++)
        if (w * EW + k < count) p[w * EW + k] = e[k];
}

}  // namespace jccl
