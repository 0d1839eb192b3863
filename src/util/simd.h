/* simd.h — 16 bytes at a time with GCC's vector extensions (SSE2 on x86-64,
 * NEON on arm64, plain code elsewhere), shared by the byte loops that read
 * the most text (store/tokenize.c, util/json_dump.c). */
#ifndef MG_SIMD_H
#define MG_SIMD_H

#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef unsigned char mg_v16 __attribute__((vector_size(16)));

/* Bit j set when byte j of m (a comparison's result: 0 or 0xff) is 0xff. */
static inline unsigned mg_v16_bits(mg_v16 m)
{
#ifdef __SSE2__
    return (unsigned)_mm_movemask_epi8((__m128i)m);
#else
    unsigned bits = 0;
    for (int j = 0; j < 16; j++) bits |= (unsigned)(m[j] & 1) << j;
    return bits;
#endif
}

#endif
