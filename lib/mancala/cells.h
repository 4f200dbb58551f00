/* Scans of a run of holes, the hot part of the mancala games' move generation, end checks and
 * scores: a side is at most 32 holes, so these are a few vector (SSE2, WebAssembly SIMD128) or
 * word operations instead of a loop per hole. Each reads `n` holes from p[0]; the board array
 * is large enough (TG__MAX_CELLS) that reading a whole chunk (16 bytes, or a word without
 * SIMD) past the run's end stays inside it, and the bytes past the end are masked off. */
#ifndef TG_MANCALA_CELLS_H
#define TG_MANCALA_CELLS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) || defined(__wasm_simd128__)
#if defined(__SSE2__)
#include <emmintrin.h>
#else
#include <wasm_simd128.h>
#endif

/* Bit i set for each byte i of p[0..16) with a bit of `mask` set: a compare, then each byte's
 * high bit gathered (movemask, or bitmask, which is the same lane for lane). */
static inline uint32_t tg__chunk_hits(const uint8_t *p, uint8_t mask)
{
#if defined(__SSE2__)
    __m128i x =
        _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8((char)mask));
    return ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) & 0xFFFFu;
#else
    v128_t x = wasm_v128_and(wasm_v128_load(p), wasm_i8x16_splat((int8_t)mask));
    return (uint32_t)wasm_i8x16_bitmask(wasm_i8x16_ne(x, wasm_i8x16_splat(0)));
#endif
}

/* The low n bits (n <= 64). */
static inline uint64_t tg__low_bits(unsigned n)
{
    return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

/* The sum of n holes. */
static inline unsigned tg__cells_sum(const uint8_t *p, unsigned n)
{
#if defined(__SSE2__)
    /* A sum of absolute differences from zero adds each half of a chunk into a 64-bit lane. */
    const __m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m128i sums = _mm_setzero_si128();
    for (unsigned i = 0; i < n; i += 16) {
        __m128i keep = _mm_cmpgt_epi8(_mm_set1_epi8((char)(n - i > 16 ? 16 : n - i)), lane);
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        sums = _mm_add_epi64(sums, _mm_sad_epu8(_mm_and_si128(x, keep), _mm_setzero_si128()));
    }
    return (unsigned)_mm_cvtsi128_si32(sums) + (unsigned)_mm_extract_epi16(sums, 4);
#else
    /* Bytes added pairwise into 16-bit lanes, those into 32-bit ones. */
    const v128_t lane = wasm_i8x16_const(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    v128_t sums = wasm_i32x4_splat(0);
    for (unsigned i = 0; i < n; i += 16) {
        v128_t keep = wasm_i8x16_gt(wasm_i8x16_splat((int8_t)(n - i > 16 ? 16 : n - i)), lane);
        v128_t x = wasm_v128_and(wasm_v128_load(p + i), keep);
        sums = wasm_i32x4_add(
            sums, wasm_u32x4_extadd_pairwise_u16x8(wasm_u16x8_extadd_pairwise_u8x16(x)));
    }
    return (unsigned)(wasm_i32x4_extract_lane(sums, 0) + wasm_i32x4_extract_lane(sums, 1) +
                      wasm_i32x4_extract_lane(sums, 2) + wasm_i32x4_extract_lane(sums, 3));
#endif
}

/* Whether any of n holes has a bit of `mask` set: 0xFF asks for any counter, 0xFE for a hole
 * of two or more. */
static inline bool tg__cells_any(const uint8_t *p, unsigned n, uint8_t mask)
{
    for (unsigned i = 0; i < n; i += 16)
        if (tg__chunk_hits(p + i, mask) & tg__low_bits(n - i))
            return true;
    return false;
}

/* The holes among n (at most 64) from cell[first] with a bit of `mask` set (see
 * tg__cells_any), as a move set: bit i stands for the hole first + i. */
static inline uint64_t tg__cells_set(const uint8_t *cell, unsigned first, unsigned n, uint8_t mask)
{
    uint64_t set = 0;
    for (unsigned i = 0; i < n; i += 16)
        set |= (uint64_t)tg__chunk_hits(cell + first + i, mask) << i;
    return set & tg__low_bits(n);
}

#else /* a 64-bit word at a time */

static inline uint64_t tg__cells_word(const uint8_t *p, unsigned n)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    if (n >= 8)
        return x;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return x & ~(~UINT64_C(0) >> (8 * n));
#else
    return x & ((UINT64_C(1) << (8 * n)) - 1);
#endif
}

/* The sum of n holes (bytes added in 16-bit lanes, so no count limit). */
static inline unsigned tg__cells_sum(const uint8_t *p, unsigned n)
{
    uint64_t lanes = 0;
    for (unsigned i = 0; i < n; i += 8) {
        uint64_t x = tg__cells_word(p + i, n - i);
        lanes += (x & UINT64_C(0x00FF00FF00FF00FF)) + ((x >> 8) & UINT64_C(0x00FF00FF00FF00FF));
    }
    /* A board has at most 128 holes: each lane holds at most 32 * 255, all four under 2^16. */
    return (unsigned)((lanes * UINT64_C(0x0001000100010001)) >> 48);
}

/* Whether any of n holes has a bit of `mask` set: 0xFF asks for any counter, 0xFE for a hole
 * of two or more. */
static inline bool tg__cells_any(const uint8_t *p, unsigned n, uint8_t mask)
{
    uint64_t m = UINT64_C(0x0101010101010101) * mask;
    for (unsigned i = 0; i < n; i += 8)
        if (tg__cells_word(p + i, n - i) & m)
            return true;
    return false;
}

/* The holes among n (at most 64) from cell[first] with a bit of `mask` set (see
 * tg__cells_any), as a move set: bit i stands for the hole first + i. */
static inline uint64_t tg__cells_set(const uint8_t *cell, unsigned first, unsigned n, uint8_t mask)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F), high = UINT64_C(0x8080808080808080);
    uint64_t m = UINT64_C(0x0101010101010101) * mask, set = 0;
    for (unsigned i = 0; i < n; i += 8) {
        uint64_t t = tg__cells_word(cell + first + i, n - i) & m;
        /* The high bit of each byte that is not zero, then those eight bits gathered into the
         * top byte by one multiplication (no two partial products meet, so nothing carries). */
        uint64_t hit = (((t & low7) + low7) | t) & high;
        set |= ((hit >> 7) * UINT64_C(0x0102040810204080)) >> 56 << i;
    }
    return set;
#else
    uint64_t set = 0;
    for (unsigned i = 0; i < n; i++)
        if (cell[first + i] & mask)
            set |= UINT64_C(1) << i;
    return set;
#endif
}
#endif

#endif
