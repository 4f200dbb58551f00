/* The size of a position, per rule set (issue 10: it must stay small, and be reported).
 *
 * A position is one fixed-size value (struct tg_pos in lib/game.h) for every game: copying is
 * a memcpy, equality a memcmp, the undo history an array of them. This test plays random games
 * of every rule set and records which bytes of the position ever hold anything. It checks the
 * invariant that memcmp equality and hashing rest on: the cells past the board, the field
 * bytes no game uses and the reserved byte stay 0. It prints, per rule set, the bytes in use
 * next to the fixed size a state copies and each undo step stores. It also checks every
 * position's hash against the hash's definition. The library's sources are
 * compiled in (as for test_no_alloc) to read the position directly. */
#include "test_util.h"

#include "internal.h"

/* Bounds this project holds itself to: a position within three cache lines, an undo record
 * with it, and a state handle (rules copy included) within a few kilobytes. */
enum { POSITION_MAX = 3 * 64, UNDO_MAX = POSITION_MAX + 16, STATE_MAX = 4096 };

static const char *const specs[] = {
    "halusa",      "walak-pussa", "walak-pussa:rounds=match",
    "hus",         "hus:width=12", "hus:width=16",
    "hawalis",     "hawalis:variant=zanzibar",
    "tab",         "tab:width=19", "tab:width=21", "tab:width=29",
};

enum { GAMES = 60 };

static void test_position_size(void **unused)
{
    (void)unused;
    assert_true(sizeof(struct tg_pos) <= POSITION_MAX);
    assert_true(sizeof(struct tg_undo) <= UNDO_MAX);
    assert_true(sizeof(struct tg_state) <= STATE_MAX);
    printf("# sizes: position %zu bytes, undo record %zu bytes, state handle %zu bytes"
           " (plus its history)\n",
           sizeof(struct tg_pos), sizeof(struct tg_undo), sizeof(struct tg_state));
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        tg_rules *r = NULL;
        TU_OK(tg_rules_new(specs[i], &r));
        const struct tg_config *cfg = &r->cfg;
        uint8_t used[sizeof(struct tg_pos)] = {0};
        size_t positions = 0;
        for (uint64_t seed = 1; seed <= GAMES; seed++) {
            tg_state *s = NULL;
            TU_OK(tg_state_new(r, &s));
            uint64_t rng = seed;
            for (;;) {
                const struct tg_pos *pos = &s->pos;
                const uint8_t *bytes = (const uint8_t *)pos;
                for (size_t b = 0; b < sizeof *pos; b++)
                    used[b] |= bytes[b];
                for (int c = cfg->cells; c < TG__MAX_CELLS; c++)
                    if (pos->cell[c])
                        TU_FAIL("%s: cell %d past the board holds %u", specs[i], c,
                                (unsigned)pos->cell[c]);
                assert_int_equal(pos->reserved, 0);
                positions++;
                if (tg_state_is_terminal(s))
                    break;
                TU_OK(tg_state_apply_random(s, &rng));
            }
            tg_state_free(s);
        }
        size_t live = 0, live_cells = 0, live_fields = 0;
        for (size_t b = 0; b < sizeof used; b++)
            live += used[b] != 0;
        for (int c = 0; c < cfg->cells; c++)
            live_cells += used[offsetof(struct tg_pos, cell) + (size_t)c] != 0;
        for (size_t f = 0; f < TG__MAX_FIELD_BYTES; f++)
            live_fields += used[offsetof(struct tg_pos, field) + f] != 0;
        /* A game with no fields never writes one. */
        if (cfg->field_count == 0)
            assert_int_equal(live_fields, 0);
        printf("# %-26s %3d cells (%3zu ever held something), %zu field bytes: %3zu of %zu"
               " bytes in use (%zu positions seen)\n",
               specs[i], cfg->cells, live_cells, live_fields, live, sizeof(struct tg_pos),
               positions);
        tg_rules_free(r);
    }
}

/* The hash as tg_state_hash() defines it, written out whole: a key for every cell that is
 * not 0 and for every slot after the cells (scores, quiet count, side, phase, winner, each
 * field byte), 0 included. The library skips the slots holding 0 by combining their keys
 * ahead; this must not change any hash, since hashes are promised equal across versions,
 * platforms and runs. */
static uint64_t reference_key(uint64_t slot, uint64_t value)
{
    uint64_t z = (slot << 20 ^ value) + UINT64_C(0x9E3779B97F4A7C15) * (slot + 1);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t reference_hash(const struct tg_config *cfg, const struct tg_pos *pos)
{
    uint64_t h = 0;
    for (int c = 0; c < cfg->cells; c++)
        if (pos->cell[c])
            h ^= reference_key((uint64_t)c, pos->cell[c]);
    const uint64_t tail[] = {pos->score[0], pos->score[1], pos->quiet,
                             pos->side,     pos->phase,    (uint8_t)pos->winner};
    uint64_t slot = TG__MAX_CELLS;
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        h ^= reference_key(slot++, tail[i]);
    for (size_t i = 0; i < TG__MAX_FIELD_BYTES; i++)
        h ^= reference_key(slot++, pos->field[i]);
    return h;
}

static void test_hash_definition(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        tg_rules *r = NULL;
        TU_OK(tg_rules_new(specs[i], &r));
        size_t positions = 0, with_fields = 0;
        for (uint64_t seed = 1; seed <= GAMES; seed++) {
            tg_state *s = NULL;
            TU_OK(tg_state_new(r, &s));
            uint64_t rng = seed;
            for (;;) {
                if (tg_state_hash(s) != reference_hash(&r->cfg, &s->pos))
                    TU_FAIL("%s, game %llu, ply %zu: hash %016llx, by its definition %016llx",
                            specs[i], (unsigned long long)seed, tg_state_ply(s),
                            (unsigned long long)tg_state_hash(s),
                            (unsigned long long)reference_hash(&r->cfg, &s->pos));
                positions++;
                for (size_t f = 0; f < TG__MAX_FIELD_BYTES; f++)
                    if (s->pos.field[f]) {
                        with_fields++;
                        break;
                    }
                if (tg_state_is_terminal(s))
                    break;
                TU_OK(tg_state_apply_random(s, &rng));
            }
            tg_state_free(s);
        }
        /* The games with fields reach the branch that mixes them. */
        if (r->cfg.field_count)
            assert_true(with_fields > 0);
        printf("# %-26s hashes of %zu positions (%zu with a field set) as defined\n", specs[i],
               positions, with_fields);
        tg_rules_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_position_size),
        cmocka_unit_test(test_hash_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
