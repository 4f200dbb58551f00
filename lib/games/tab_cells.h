/* At-Tab wa-d-Dukk's cells and its row-at-once reading of the board (games/tab.c): one byte
 * holds a whole unit, and a row of the board becomes a bit mask of the cells holding the
 * mover's units or locked pieces, a chunk of cells at a time where the target allows (SSE2,
 * WebAssembly SIMD128, or 64-bit words). Only tab.c includes it. */
#ifndef TG_GAMES_TAB_CELLS_H
#define TG_GAMES_TAB_CELLS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- cells: one byte holds a whole unit ------------------------------------------------- */

/* The size of the unit (1 .. 29 pieces) in the low bits, then the locked flag and the owner:
 * a cell is 0 when empty. */
enum { SIZE_MASK = 0x3F, LOCKED_BIT = 0x40, OWNER_SHIFT = 7 };

static inline unsigned unit_size(uint8_t c)
{
    return c & SIZE_MASK;
}

static inline int unit_owner(uint8_t c)
{
    return c >> OWNER_SHIFT;
}

static inline bool is_mine(uint8_t c, int me)
{
    return c != 0 && unit_owner(c) == me;
}

static inline uint8_t make_unit(int owner, unsigned size, bool locked)
{
    return (uint8_t)((unsigned)owner << OWNER_SHIFT | (locked ? LOCKED_BIT : 0u) | size);
}

/* Move generation and the end checks read the board a row at a time, each cell of the row
 * becoming one bit of a mask (a row has at most 29 cells), a chunk of cells at once where the
 * target allows. A row's last chunk may reach past the row, at most to cell 3 * 29 + 31, still
 * on the board array; those bits are cut off. */
#if defined(__SSE2__)
#define TAB_CHUNK 16 /* comparing bytes and gathering their high bits are one instruction each */

static inline __m128i load_chunk(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

static inline uint32_t chunk_units(const uint8_t *p, int player)
{
    /* Player 1's units are the bytes with the high bit set, player 0's the other nonzero
     * ones: those positive as signed bytes. */
    __m128i x = load_chunk(p);
    if (player)
        return (uint32_t)_mm_movemask_epi8(x);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(x, _mm_setzero_si128()));
}

static inline uint32_t chunk_locked(const uint8_t *p)
{
    /* The locked bit sits just below the high bit. */
    return (uint32_t)_mm_movemask_epi8(_mm_slli_epi16(load_chunk(p), 1));
}

static inline uint32_t chunk_nonzero(const uint8_t *p)
{
    return ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(load_chunk(p), _mm_setzero_si128()));
}
#elif defined(__wasm_simd128__)
/* WebAssembly SIMD128 (clang -msimd128): the same three chunk operations as with SSE2, lane
 * for lane (bitmask gathers the high bits as movemask does). */
#include <wasm_simd128.h>
#define TAB_CHUNK 16

static inline v128_t load_chunk(const uint8_t *p)
{
    return wasm_v128_load(p);
}

static inline uint32_t chunk_units(const uint8_t *p, int player)
{
    v128_t x = load_chunk(p);
    if (player)
        return (uint32_t)wasm_i8x16_bitmask(x);
    return (uint32_t)wasm_i8x16_bitmask(wasm_i8x16_gt(x, wasm_i8x16_splat(0)));
}

static inline uint32_t chunk_locked(const uint8_t *p)
{
    return (uint32_t)wasm_i8x16_bitmask(wasm_i16x8_shl(load_chunk(p), 1));
}

static inline uint32_t chunk_nonzero(const uint8_t *p)
{
    return ~(uint32_t)wasm_i8x16_bitmask(wasm_i8x16_eq(load_chunk(p), wasm_i8x16_splat(0)));
}
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TAB_CHUNK 8 /* a word, each byte's verdict in its high bit (little-endian lanes) */

static inline uint64_t load_word(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    return x;
}

static const uint64_t high_bits = UINT64_C(0x8080808080808080);

/* Bit 8i+7 set for each byte i of x that is not zero. */
static inline uint64_t nonzero_lanes(uint64_t x)
{
    const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F);
    return (((x & low7) + low7) | x) & high_bits;
}

/* The lanes gathered into eight bits, byte i giving bit i: no two partial products of the
 * multiplication meet, so nothing carries. */
static inline uint32_t gather(uint64_t lanes)
{
    return (uint32_t)((lanes * UINT64_C(0x0002040810204081)) >> 56);
}

static inline uint32_t chunk_units(const uint8_t *p, int player)
{
    uint64_t x = load_word(p), owner1 = x & high_bits;
    return gather(player ? owner1 : nonzero_lanes(x) & ~owner1);
}

static inline uint32_t chunk_locked(const uint8_t *p)
{
    /* The locked bit sits just below the owner bit. */
    return gather((load_word(p) & UINT64_C(0x0101010101010101) * LOCKED_BIT) << 1);
}

static inline uint32_t chunk_nonzero(const uint8_t *p)
{
    return gather(nonzero_lanes(load_word(p)));
}
#endif

/* The columns of the n cells from `row` that hold a unit of `player`. */
static inline uint32_t row_units(const uint8_t *row, unsigned n, int player)
{
#ifdef TAB_CHUNK
    uint32_t units = chunk_units(row, player);
    for (unsigned k = TAB_CHUNK; k < n; k += TAB_CHUNK)
        units |= chunk_units(row + k, player) << k;
    return units & ((UINT32_C(1) << n) - 1);
#else
    uint32_t units = 0;
    for (unsigned c = 0; c < n; c++)
        units |= (uint32_t)is_mine(row[c], player) << c;
    return units;
#endif
}

/* The columns of the n cells from `row` that hold a locked piece. */
static inline uint32_t row_locked(const uint8_t *row, unsigned n)
{
#ifdef TAB_CHUNK
    uint32_t locked = chunk_locked(row);
    for (unsigned k = TAB_CHUNK; k < n; k += TAB_CHUNK)
        locked |= chunk_locked(row + k) << k;
    return locked & ((UINT32_C(1) << n) - 1);
#else
    uint32_t locked = 0;
    for (unsigned c = 0; c < n; c++)
        locked |= (uint32_t)((row[c] & LOCKED_BIT) != 0) << c;
    return locked;
#endif
}

#endif
