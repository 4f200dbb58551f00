/* The learning interface (docs/learning.md): observations, the action space and its mask, the
 * mappings between actions and moves, and tg_batch. Over random games of every rule set of the
 * conformance battery (rule_sets.h), at every ply: the mask is exactly the legal moves, the
 * mappings round-trip, and observations tell apart every two positions whose strings differ.
 * A batch plays exactly what single states play with the same seeds, refuses bad actions per
 * state without changing them, and allocates nothing per step. Worked examples pin the
 * layouts. Linked with the library's sources built with -DTG_ALLOC_FAIL_INJECTION (see
 * tests/meson.build) to count allocations; otherwise public API only. */
#include "rule_sets.h"

#include "internal.h" /* the test-only hooks tg__alloc_fail_arm() and tg__alloc_calls() */

#include <inttypes.h>

#ifndef TG_ALLOC_FAIL_INJECTION
#error "build this test with -DTG_ALLOC_FAIL_INJECTION"
#endif

enum { GAMES = 12, MAX_PLIES = 400, BATCH_N = 6, BATCH_STEPS = 400, SWEEP_MAX = 64 };

static struct rule_set sets[MAX_RULE_SETS];

/* The documented generator, to pick actions and to derive a batch's seeds as it does. */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint64_t batch_seed(uint64_t seed, size_t i)
{
    uint64_t s = seed;
    uint64_t out = 0;
    for (size_t k = 0; k <= i; k++)
        out = splitmix(&s);
    return out;
}

/* ---- masks and mappings at every ply --------------------------------------------------- */

struct seen {
    char *text;
    unsigned char *obs; /* both players' observations, one after the other */
};

static size_t obs_bytes;

static int by_obs(const void *a, const void *b)
{
    return memcmp(((const struct seen *)a)->obs, ((const struct seen *)b)->obs, obs_bytes);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(((const struct seen *)a)->text, ((const struct seen *)b)->text);
}

static void check_ply(const tg_state *s, size_t actions, uint8_t *mask, tg_move *moves,
                      size_t max_moves, uint64_t *pick)
{
    size_t n;
    TU_OK(tg_state_moves(s, moves, max_moves, &n));
    TU_OK(tg_state_action_mask(s, mask, actions));
    size_t ones = 0;
    for (size_t a = 0; a < actions; a++) {
        assert_true(mask[a] <= 1);
        ones += mask[a];
    }
    assert_int_equal(ones, n);
    /* Every legal move has an action whose mask entry is set, and maps back to itself. */
    for (size_t i = 0; i < n; i++) {
        uint32_t a = UINT32_MAX;
        tg_move back = 0;
        TU_OK(tg_state_move_to_action(s, moves[i], &a));
        assert_true(a < actions);
        assert_int_equal(mask[a], 1);
        TU_OK(tg_state_action_to_move(s, a, &back));
        assert_int_equal(back, moves[i]);
    }
    /* Actions off the mask stand for no legal move (all of them, or a sample of a large
     * space). */
    int refusal = tg_state_is_terminal(s) ? TG_ERR_GAME_OVER : TG_ERR_ILLEGAL_MOVE;
    for (size_t k = 0; k < (actions <= SWEEP_MAX ? actions : SWEEP_MAX); k++) {
        size_t a = actions <= SWEEP_MAX ? k : (size_t)(splitmix(pick) % actions);
        tg_move m = 0x12345678u;
        if (mask[a])
            continue;
        TU_STATUS(refusal, tg_state_action_to_move(s, (uint32_t)a, &m));
        assert_int_equal(m, 0x12345678u);
    }
    if (tg_state_player(s) == TG_CHANCE) {
        double probs[TG__MAX_MOVES];
        TU_OK(tg_state_chance(s, moves, probs, max_moves, &n));
        for (size_t i = 0; i < n; i++) {
            uint32_t a = 77;
            TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_move_to_action(s, moves[i], &a));
            assert_int_equal(a, 77);
        }
    }
}

static void run_masks(void **state)
{
    const struct rule_set *rs = *state;
    tg_rules *r = tu_rules(rs->spec);
    size_t actions = tg_rules_action_count(r), size = tg_rules_observation_size(r);
    size_t planes, scalars;
    TU_OK(tg_rules_observation_layout(r, &planes, &scalars));
    assert_int_equal(size, planes * (size_t)(tg_rules_rows(r) * tg_rules_cols(r)) + scalars);
    assert_true(actions > 0);
    size_t max_moves = tg_rules_max_moves(r);
    uint8_t *mask = malloc(actions);
    tg_move *moves = malloc(TG__MAX_MOVES * sizeof *moves);
    float *obs = malloc(2 * size * sizeof *obs);
    struct seen *all = malloc(GAMES * (MAX_PLIES + 1) * sizeof *all);
    assert_true(mask && moves && obs && all);
    size_t count = 0;
    uint64_t pick = 99;
    for (unsigned g = 0; g < GAMES; g++) {
        tg_state *s;
        TU_OK(tg_state_new(r, &s));
        uint64_t rng = UINT64_C(0x1EA5) * 1000 + g;
        for (size_t ply = 0;; ply++) {
            check_ply(s, actions, mask, moves, max_moves, &pick);
            TU_OK(tg_state_observation(s, 0, obs, size));
            TU_OK(tg_state_observation(s, 1, obs + size, size));
            all[count].text = tu_str(s);
            all[count].obs = malloc(2 * size * sizeof *obs);
            assert_non_null(all[count].obs);
            memcpy(all[count].obs, obs, 2 * size * sizeof *obs);
            count++;
            if (tg_state_is_terminal(s) || ply == MAX_PLIES)
                break;
            TU_OK(tg_state_apply_random(s, &rng));
        }
        tg_state_free(s);
    }
    /* Injective: equal observations (by player 0 and by player 1 alike), equal strings; and a
     * function of the position: equal strings, equal observations. */
    obs_bytes = 2 * size * sizeof *obs;
    qsort(all, count, sizeof *all, by_obs);
    for (size_t i = 1; i < count; i++) {
        if (memcmp(all[i - 1].obs, all[i].obs, obs_bytes) == 0 &&
            strcmp(all[i - 1].text, all[i].text) != 0)
            TU_FAIL("%s: same observations for \"%s\" and \"%s\"", rs->spec, all[i - 1].text,
                    all[i].text);
    }
    qsort(all, count, sizeof *all, by_text);
    size_t distinct = count ? 1 : 0;
    for (size_t i = 1; i < count; i++) {
        if (strcmp(all[i - 1].text, all[i].text) == 0)
            assert_memory_equal(all[i - 1].obs, all[i].obs, obs_bytes);
        else
            distinct++;
    }
    /* Each observer separately: the first half alone must also tell the positions apart. */
    obs_bytes = size * sizeof *obs;
    for (int half = 0; half < 2; half++) {
        if (half) {
            for (size_t i = 0; i < count; i++)
                memmove(all[i].obs, all[i].obs + size * sizeof *obs, size * sizeof *obs);
        }
        qsort(all, count, sizeof *all, by_obs);
        for (size_t i = 1; i < count; i++) {
            if (memcmp(all[i - 1].obs, all[i].obs, obs_bytes) == 0 &&
                strcmp(all[i - 1].text, all[i].text) != 0)
                TU_FAIL("%s: player %d sees \"%s\" and \"%s\" alike", rs->spec, half,
                        all[i - 1].text, all[i].text);
        }
    }
    print_message("# %s: %zu positions (%zu distinct), %zu actions, %zu floats\n", rs->spec, count,
                  distinct, actions, size);
    for (size_t i = 0; i < count; i++) {
        free(all[i].text);
        free(all[i].obs);
    }
    free(all);
    free(obs);
    free(moves);
    free(mask);
    tg_rules_free(r);
}

/* ---- the batch against single states --------------------------------------------------- */

static void throw_single(tg_state *s, uint64_t *rng)
{
    while (tg_state_player(s) == TG_CHANCE)
        TU_OK(tg_state_apply_random(s, rng));
}

static void assert_same_position(const tg_batch *b, size_t i, tg_state *scratch,
                                 const tg_state *single)
{
    TU_OK(tg_batch_get(b, i, scratch));
    char *x = tu_str(scratch), *y = tu_str(single);
    if (strcmp(x, y) != 0)
        TU_FAIL("batch state %zu: \"%s\", single state: \"%s\"", i, x, y);
    assert_int_equal(tg_state_ply(scratch), tg_state_ply(single));
    free(x);
    free(y);
}

/* For each of BATCH_N games, a uniform legal action from the masks a batch reported. */
static void pick_legal_actions(const uint8_t *masks, size_t A, uint64_t *pick, uint32_t *actions)
{
    for (size_t i = 0; i < BATCH_N; i++) {
        size_t legal = 0, k;
        for (size_t a = 0; a < A; a++)
            legal += masks[i * A + a];
        assert_true(legal > 0);
        k = (size_t)(splitmix(pick) % legal);
        for (size_t a = 0; a < A; a++) {
            if (masks[i * A + a] && k-- == 0) {
                actions[i] = (uint32_t)a;
                break;
            }
        }
    }
}

static void run_batch(void **state)
{
    const struct rule_set *rs = *state;
    tg_rules *r = tu_rules(rs->spec);
    size_t A = tg_rules_action_count(r), F = tg_rules_observation_size(r);
    uint64_t seed = UINT64_C(0xBA7C4) + strlen(rs->spec);
    tg_batch *b;
    TU_OK(tg_batch_new(r, BATCH_N, seed, &b));
    assert_int_equal(tg_batch_size(b), BATCH_N);
    assert_string_equal(tg_rules_spec(tg_batch_rules(b)), rs->spec);
    tg_state *single[BATCH_N], *scratch;
    uint64_t rng[BATCH_N];
    TU_OK(tg_state_new(r, &scratch));
    float *obs = malloc(BATCH_N * F * sizeof *obs), *want = malloc(F * sizeof *want);
    uint8_t *masks = malloc(BATCH_N * A), *want_mask = malloc(A), done[BATCH_N];
    int8_t players[BATCH_N];
    float reward[BATCH_N], rewards[2 * BATCH_N];
    int32_t status[BATCH_N];
    uint32_t actions[BATCH_N];
    assert_true(obs && want && masks && want_mask);
    /* Reset starts again from the generators as they are: seeded again, they replay the games
     * tg_batch_new() began. */
    TU_OK(tg_batch_seed(b, seed));
    TU_OK(tg_batch_reset(b, obs, masks, players));
    for (size_t i = 0; i < BATCH_N; i++) {
        rng[i] = batch_seed(seed, i);
        TU_OK(tg_state_new(r, &single[i]));
        throw_single(single[i], &rng[i]);
        assert_same_position(b, i, scratch, single[i]);
    }
    uint64_t pick = seed;
    size_t finished = 0;
    for (size_t step = 0; step < BATCH_STEPS; step++) {
        pick_legal_actions(masks, A, &pick, actions);
        TU_OK(tg_batch_step(b, actions, TG_BATCH_AUTORESET, obs, masks, players, reward, rewards,
                            done, status));
        for (size_t i = 0; i < BATCH_N; i++) {
            assert_int_equal(status[i], TG_OK);
            int mover = tg_state_turn(single[i]);
            TU_OK(tg_state_apply_action(single[i], actions[i]));
            throw_single(single[i], &rng[i]);
            double ret[2];
            TU_OK(tg_state_returns(single[i], ret));
            assert_int_equal(done[i], tg_state_is_terminal(single[i]));
            assert_true(rewards[2 * i] == (float)ret[0] && rewards[2 * i + 1] == (float)ret[1]);
            assert_true(reward[i] == (float)ret[mover]);
            if (done[i]) {
                finished++;
                tg_state_free(single[i]);
                TU_OK(tg_state_new(r, &single[i]));
                throw_single(single[i], &rng[i]);
            }
            assert_same_position(b, i, scratch, single[i]);
            uint64_t batch_rng;
            TU_OK(tg_batch_rng(b, i, &batch_rng));
            assert_true(batch_rng == rng[i]);
            assert_int_equal(players[i], tg_state_turn(single[i]));
            TU_OK(tg_state_observation(single[i], players[i], want, F));
            assert_memory_equal(obs + i * F, want, F * sizeof *want);
            TU_OK(tg_state_action_mask(single[i], want_mask, A));
            assert_memory_equal(masks + i * A, want_mask, A);
        }
    }
    print_message("# %s: %d steps of %d states, %zu games finished\n", rs->spec, BATCH_STEPS,
                  BATCH_N, finished);
    for (size_t i = 0; i < BATCH_N; i++)
        tg_state_free(single[i]);
    tg_state_free(scratch);
    free(obs);
    free(want);
    free(masks);
    free(want_mask);
    tg_batch_free(b);
    tg_rules_free(r);
}

/* ---- tg_batch_restart: stepping without autoreset, then restarting what ended ------------ */

/* Everything a caller can see of game i of two batches is the same. */
static void assert_same_game(const tg_batch *a, const tg_batch *b, size_t i, tg_state *sa,
                             tg_state *sb)
{
    TU_OK(tg_batch_get(a, i, sa));
    TU_OK(tg_batch_get(b, i, sb));
    assert_true(tg_state_equal(sa, sb));
    assert_int_equal(tg_state_ply(sa), tg_state_ply(sb));
    uint64_t ra, rb;
    TU_OK(tg_batch_rng(a, i, &ra));
    TU_OK(tg_batch_rng(b, i, &rb));
    assert_true(ra == rb);
}

/* Into `out`, a decision of a random game whose action (returned) ends the game at once, with
 * no chance outcome after it: a batch given that position ends the game in its next step
 * whatever its generator, so that long games (Tab, a match of Walak-pussa) end in the test. */
static uint32_t last_move_position(const tg_rules *r, tg_state *out)
{
    size_t A = tg_rules_action_count(r);
    uint8_t *mask = malloc(A);
    assert_non_null(mask);
    uint64_t rng = 0x1A57, pick = 0x1A58;
    for (int game = 0; game < 50; game++) {
        tg_state *s;
        TU_OK(tg_state_new(r, &s));
        throw_single(s, &rng);
        while (!tg_state_is_terminal(s)) {
            TU_OK(tg_state_copy(out, s));
            TU_OK(tg_state_action_mask(s, mask, A));
            size_t legal = 0, k;
            for (size_t a = 0; a < A; a++)
                legal += mask[a];
            k = (size_t)(splitmix(&pick) % legal);
            uint32_t action = 0;
            while (!mask[action] || k-- > 0)
                action++;
            TU_OK(tg_state_apply_action(s, action));
            if (tg_state_is_terminal(s)) {
                tg_state_free(s);
                free(mask);
                return action;
            }
            throw_single(s, &rng);
        }
        tg_state_free(s);
    }
    TU_FAIL("no game of %s ended by a move", tg_rules_spec(r));
    return 0;
}

static void run_restart(void **state)
{
    const struct rule_set *rs = *state;
    tg_rules *r = tu_rules(rs->spec);
    size_t A = tg_rules_action_count(r), F = tg_rules_observation_size(r);
    uint64_t seed = UINT64_C(0x5E57A27) + strlen(rs->spec);
    tg_batch *with_autoreset, *restarted;
    TU_OK(tg_batch_new(r, BATCH_N, seed, &with_autoreset));
    TU_OK(tg_batch_new(r, BATCH_N, seed, &restarted));
    tg_state *sa, *sb;
    TU_OK(tg_state_new(r, &sa));
    TU_OK(tg_state_new(r, &sb));
    float *obs_a = malloc(BATCH_N * F * sizeof(float)), *obs_b = malloc(BATCH_N * F * sizeof(float));
    float *obs_before = malloc(BATCH_N * F * sizeof(float));
    uint8_t *masks_a = malloc(BATCH_N * A), *masks_b = malloc(BATCH_N * A);
    uint8_t *masks_before = malloc(BATCH_N * A), done_a[BATCH_N], done_b[BATCH_N];
    uint8_t none[BATCH_N] = {0};
    int8_t players_a[BATCH_N], players_b[BATCH_N], players_before[BATCH_N];
    float rewards_a[2 * BATCH_N], rewards_b[2 * BATCH_N];
    uint32_t actions[BATCH_N];
    assert_true(obs_a && obs_b && obs_before && masks_a && masks_b && masks_before);
    TU_OK(tg_batch_reset(with_autoreset, obs_a, masks_a, players_a));
    TU_OK(tg_batch_reset(restarted, obs_b, masks_b, players_b));
    uint32_t ending = last_move_position(r, sa);
    TU_OK(tg_batch_set(with_autoreset, 0, sa));
    TU_OK(tg_batch_set(restarted, 0, sa));
    uint64_t pick = seed;
    size_t finished = 0;
    for (size_t step = 0; step < BATCH_STEPS; step++) {
        pick_legal_actions(masks_a, A, &pick, actions);
        if (step == 0)
            actions[0] = ending;
        TU_OK(tg_batch_step(with_autoreset, actions, TG_BATCH_AUTORESET, obs_a, masks_a,
                            players_a, NULL, rewards_a, done_a, NULL));
        TU_OK(tg_batch_step(restarted, actions, 0, obs_b, masks_b, players_b, NULL, rewards_b,
                            done_b, NULL));
        assert_memory_equal(done_a, done_b, sizeof done_a);
        assert_memory_equal(rewards_a, rewards_b, sizeof rewards_a);
        /* Restarting no game changes nothing. */
        TU_OK(tg_batch_restart(restarted, none, obs_b, masks_b, players_b));
        memcpy(obs_before, obs_b, BATCH_N * F * sizeof(float));
        memcpy(masks_before, masks_b, BATCH_N * A);
        memcpy(players_before, players_b, sizeof players_b);
        TU_OK(tg_batch_restart(restarted, done_b, obs_b, masks_b, players_b));
        for (size_t i = 0; i < BATCH_N; i++) {
            assert_same_game(with_autoreset, restarted, i, sa, sb);
            if (!done_b[i]) {
                /* Only the restarted games' rows are written. */
                assert_memory_equal(obs_b + i * F, obs_before + i * F, F * sizeof(float));
                assert_memory_equal(masks_b + i * A, masks_before + i * A, A);
                assert_int_equal(players_b[i], players_before[i]);
            } else {
                finished++;
                assert_false(tg_state_is_terminal(sb));
            }
        }
        assert_memory_equal(obs_a, obs_b, BATCH_N * F * sizeof(float));
        assert_memory_equal(masks_a, masks_b, BATCH_N * A);
        assert_memory_equal(players_a, players_b, sizeof players_a);
    }
    /* A game restarted in the middle of play is a new game from its generator, as at the end
     * of one, and NULL outputs are allowed. */
    uint8_t first[BATCH_N] = {1};
    uint64_t rng0;
    TU_OK(tg_batch_rng(restarted, 0, &rng0));
    TU_OK(tg_batch_restart(restarted, first, NULL, NULL, NULL));
    TU_OK(tg_batch_get(restarted, 0, sb));
    tg_state *fresh;
    TU_OK(tg_state_new(r, &fresh));
    throw_single(fresh, &rng0);
    assert_true(tg_state_equal(sb, fresh));
    assert_int_equal(tg_state_ply(sb), tg_state_ply(fresh));
    tg_state_free(fresh);
    /* Bad input: refused, nothing changed. */
    TU_OK(tg_batch_get(restarted, 1, sa));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_restart(NULL, done_b, NULL, NULL, NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_restart(restarted, NULL, obs_b, masks_b, players_b));
    TU_OK(tg_batch_get(restarted, 1, sb));
    assert_true(tg_state_equal(sa, sb));
    print_message("# %s: %d steps of %d states, %zu games restarted\n", rs->spec, BATCH_STEPS,
                  BATCH_N, finished);
    assert_true(finished > 0);
    tg_state_free(sa);
    tg_state_free(sb);
    free(obs_a);
    free(obs_b);
    free(obs_before);
    free(masks_a);
    free(masks_b);
    free(masks_before);
    tg_batch_free(with_autoreset);
    tg_batch_free(restarted);
    tg_rules_free(r);
}

/* ---- bad input ------------------------------------------------------------------------- */

static void snapshot(const tg_batch *b, size_t n, tg_state *scratch, char **texts, uint64_t *rngs)
{
    for (size_t i = 0; i < n; i++) {
        TU_OK(tg_batch_get(b, i, scratch));
        texts[i] = tu_str(scratch);
        TU_OK(tg_batch_rng(b, i, &rngs[i]));
    }
}

static void assert_unchanged(const tg_batch *b, size_t i, tg_state *scratch, char **texts,
                             const uint64_t *rngs)
{
    TU_OK(tg_batch_get(b, i, scratch));
    char *now = tu_str(scratch);
    assert_string_equal(now, texts[i]);
    free(now);
    uint64_t rng;
    TU_OK(tg_batch_rng(b, i, &rng));
    assert_true(rng == rngs[i]);
}

static void test_bad_actions(void **state)
{
    (void)state;
    static const char *const specs[] = {"halusa", "tab", "walak-pussa:rounds=match"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        tg_rules *r = tu_rules(specs[k]);
        size_t A = tg_rules_action_count(r);
        tg_batch *b;
        TU_OK(tg_batch_new(r, 5, 7, &b));
        tg_state *scratch, *over;
        TU_OK(tg_state_new(r, &scratch));
        /* A finished game in slot 4: a random game played to the end. */
        TU_OK(tg_state_new(r, &over));
        uint64_t rng = 3;
        size_t plies;
        TU_OK(tg_state_playout(over, &rng, SIZE_MAX, &plies));
        assert_true(tg_state_is_terminal(over));
        /* Slot 2: a position where some action is not legal (random play until one). */
        tg_state *narrow;
        TU_OK(tg_state_new(r, &narrow));
        uint8_t *masks = malloc(5 * A);
        assert_non_null(masks);
        for (;;) {
            TU_OK(tg_state_action_mask(narrow, masks, A));
            if (tg_state_player(narrow) >= 0 && memchr(masks, 0, A))
                break;
            TU_OK(tg_state_apply_random(narrow, &rng));
        }
        /* Slot 0 legal, 1 out of range, 2 not legal now, 3 legal, 4 at a finished game. */
        TU_OK(tg_batch_reset(b, NULL, NULL, NULL));
        TU_OK(tg_batch_set(b, 2, narrow));
        TU_OK(tg_batch_set(b, 4, over));
        /* The masks as the batch holds them: one step refused as a whole reports nothing. */
        for (size_t i = 0; i < 5; i++) {
            TU_OK(tg_batch_get(b, i, scratch));
            TU_OK(tg_state_action_mask(scratch, masks + i * A, A));
        }
        uint32_t actions[5];
        for (size_t i = 0; i < 5; i++) {
            size_t legal = 0, illegal = A;
            for (size_t a = A; a-- > 0;) {
                if (masks[i * A + a])
                    legal = a;
                else
                    illegal = a;
            }
            actions[i] = (uint32_t)(i == 2 ? illegal : legal);
        }
        assert_true(actions[2] < A);
        actions[1] = (uint32_t)A;
        char *texts[5];
        uint64_t rngs[5];
        snapshot(b, 5, scratch, texts, rngs);
        int32_t status[5];
        float reward[5] = {9, 9, 9, 9, 9};
        uint8_t done[5];
        TU_STATUS(TG_ERR_INVALID_ARGUMENT,
                  tg_batch_step(b, actions, 0, NULL, NULL, NULL, reward, NULL, done, status));
        assert_int_equal(status[0], TG_OK);
        assert_int_equal(status[1], TG_ERR_INVALID_ARGUMENT);
        assert_int_equal(status[2], TG_ERR_ILLEGAL_MOVE);
        assert_int_equal(status[3], TG_OK);
        assert_int_equal(status[4], TG_ERR_GAME_OVER);
        assert_true(reward[1] == 0.0f && reward[2] == 0.0f && reward[4] == 0.0f);
        assert_int_equal(done[4], 1);
        assert_int_equal(done[1], 0);
        for (size_t i = 1; i < 5; i++) {
            if (i != 3)
                assert_unchanged(b, i, scratch, texts, rngs);
        }
        TU_OK(tg_batch_get(b, 0, scratch));
        char *moved = tu_str(scratch);
        assert_string_not_equal(moved, texts[0]);
        free(moved);
        for (size_t i = 0; i < 5; i++)
            free(texts[i]);
        /* Calls refused as a whole change nothing at all. */
        snapshot(b, 5, scratch, texts, rngs);
        TU_STATUS(TG_ERR_INVALID_ARGUMENT,
                  tg_batch_step(NULL, actions, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        TU_STATUS(TG_ERR_INVALID_ARGUMENT,
                  tg_batch_step(b, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        actions[1] = actions[3];
        TU_STATUS(TG_ERR_INVALID_ARGUMENT,
                  tg_batch_step(b, actions, 2u, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        for (size_t i = 0; i < 5; i++) {
            assert_unchanged(b, i, scratch, texts, rngs);
            free(texts[i]);
        }
        /* A chance state cannot be put into a batch; other rules neither; indices checked. */
        tg_state *other = tu_new(k == 0 ? "hus" : "halusa");
        TU_STATUS(TG_ERR_RULES_MISMATCH, tg_batch_set(b, 0, other));
        TU_STATUS(TG_ERR_RULES_MISMATCH, tg_batch_get(b, 0, other));
        TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_set(b, 5, over));
        TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_get(b, 5, scratch));
        uint64_t x;
        TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_rng(b, 5, &x));
        TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_rng(b, 0, NULL));
        if (k == 1) {
            tg_state *fresh = tu_new("tab");
            TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_set(b, 0, fresh));
            tg_state_free(fresh);
        }
        tg_state_free(other);
        free(masks);
        tg_state_free(over);
        tg_state_free(narrow);
        tg_state_free(scratch);
        tg_batch_free(b);
        tg_rules_free(r);
    }
    tg_batch *b = (tg_batch *)1;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_new(NULL, 1, 0, &b));
    tg_rules *r = tu_rules("halusa");
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_new(r, 0, 0, &b));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_new(r, 1, 0, NULL));
    assert_true(b == (tg_batch *)1);
    assert_int_equal(tg_batch_size(NULL), 0);
    assert_null(tg_batch_rules(NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_seed(NULL, 0));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_batch_reset(NULL, NULL, NULL, NULL));
    tg_batch_free(NULL);
    tg_rules_free(r);
}

static void test_single_errors(void **state)
{
    (void)state;
    tg_state *s = tu_new("halusa");
    float obs[32];
    uint8_t mask[8];
    for (size_t i = 0; i < 32; i++)
        obs[i] = -5.0f;
    memset(mask, 7, sizeof mask);
    size_t F = tg_rules_observation_size(tg_state_rules(s));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_observation(NULL, 0, obs, 32));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_observation(s, 0, NULL, 32));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_observation(s, 2, obs, 32));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_observation(s, -1, obs, 32));
    TU_STATUS(TG_ERR_BUFFER_TOO_SMALL, tg_state_observation(s, 0, obs, F - 1));
    for (size_t i = 0; i < 32; i++)
        assert_true(obs[i] == -5.0f);
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_action_mask(NULL, mask, 8));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_action_mask(s, NULL, 8));
    TU_STATUS(TG_ERR_BUFFER_TOO_SMALL, tg_state_action_mask(s, mask, 5));
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(mask[i], 7);
    tg_move m = 42;
    uint32_t a = 42;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_action_to_move(NULL, 0, &m));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_action_to_move(s, 0, NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_action_to_move(s, 6, &m));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_move_to_action(NULL, 0, &a));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_move_to_action(s, 0, NULL));
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_move_to_action(s, 6, &a)); /* a2: not player 0's */
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_move_to_action(s, TG_MOVE_PASS, &a));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_apply_action(NULL, 0));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_apply_action(s, 6));
    assert_int_equal(m, 42);
    assert_int_equal(a, 42);
    assert_int_equal(tg_state_ply(s), 0);
    size_t planes = 9, scalars = 9;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_rules_observation_layout(NULL, &planes, &scalars));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT,
              tg_rules_observation_layout(tg_state_rules(s), NULL, &scalars));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT,
              tg_rules_observation_layout(tg_state_rules(s), &planes, NULL));
    assert_int_equal(planes, 9);
    assert_int_equal(tg_rules_observation_size(NULL), 0);
    assert_int_equal(tg_rules_action_count(NULL), 0);
    /* A finished game: no action, and each call says so. */
    tg_state *over = tu_from("halusa", "halusa:remainder=last-mover,quiet=100 "
                                       "0,0,0,0,0,0/0,0,0,0,0,0 - 33,39 quiet=100 winner=1");
    TU_STATUS(TG_ERR_GAME_OVER, tg_state_action_to_move(over, 0, &m));
    TU_STATUS(TG_ERR_GAME_OVER, tg_state_move_to_action(over, 0, &a));
    TU_STATUS(TG_ERR_GAME_OVER, tg_state_apply_action(over, 0));
    TU_OK(tg_state_action_mask(over, mask, 8));
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(mask[i], 0);
    tg_state_free(over);
    tg_state_free(s);
}

/* ---- worked examples ------------------------------------------------------------------- */

static void expect_obs(const tg_state *s, int player, const float *want, size_t n)
{
    float got[1200];
    assert_int_equal(tg_rules_observation_size(tg_state_rules(s)), n);
    TU_OK(tg_state_observation(s, player, got, sizeof got / sizeof got[0]));
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i])
            TU_FAIL("player %d, observation[%zu] = %g, expected %g", player, i, (double)got[i],
                    (double)want[i]);
    }
}

static void test_halusa_example(void **state)
{
    (void)state;
    /* Hyde's opening (rules/halusa.md, example 1): player 0 plays b1, action 1. */
    tg_state *s = tu_new("halusa");
    size_t planes, scalars;
    TU_OK(tg_rules_observation_layout(tg_state_rules(s), &planes, &scalars));
    assert_int_equal(planes, 1);
    assert_int_equal(scalars, 8);
    assert_int_equal(tg_rules_action_count(tg_state_rules(s)), 6);
    tg_move m;
    TU_OK(tg_state_action_to_move(s, 1, &m));
    assert_int_equal(m, 1);
    TU_OK(tg_state_apply_action(s, 1));
    /* Row 1 6,0,7,7,7,7 and row 2 6,6,6,6,7,7; player 1 to move. */
    const float p0[20] = {6, 0, 7, 7, 7, 7, 6, 6, 6, 6, 7, 7, 0, 0, 0, 0, 0, 0, 0, 1};
    /* Player 1 sees the board turned: f2 e2 d2 c2 b2 a2, then f1 .. a1. */
    const float p1[20] = {7, 7, 6, 6, 6, 6, 7, 7, 7, 7, 0, 6, 0, 0, 1, 0, 0, 0, 0, 1};
    expect_obs(s, 0, p0, 20);
    expect_obs(s, 1, p1, 20);
    /* Player 1's action 4 is their fifth hole from their left: b2 (cell 7), Hyde's reply. */
    TU_OK(tg_state_action_to_move(s, 4, &m));
    assert_int_equal(m, 7);
    uint32_t a;
    TU_OK(tg_state_move_to_action(s, 7, &a));
    assert_int_equal(a, 4);
    TU_OK(tg_state_apply_action(s, 4));
    char *text = tu_str(s);
    assert_string_equal(text, "halusa:remainder=last-mover,quiet=100 7,0,6,6,7,7/7,1,8,8,8,7 0 0,0 "
                              "quiet=2");
    free(text);
    tg_state_free(s);
}

static void test_tab_example(void **state)
{
    (void)state;
    /* rules/tab.md example 2: throws 1, 2, 4 stored; only m1+1 (cell 12, value 1) is legal. */
    const char *start = "tab:width=13 O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,./"
                        ".,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X 0 0,0 throws=1,2,4";
    tg_state *s = tu_from("tab", start);
    size_t planes, scalars;
    TU_OK(tg_rules_observation_layout(tg_state_rules(s), &planes, &scalars));
    assert_int_equal(planes, 4);
    assert_int_equal(scalars, 13);
    assert_int_equal(tg_rules_action_count(tg_state_rules(s)), 520);
    float want[4 * 52 + 13];
    memset(want, 0, sizeof want);
    for (int c = 0; c < 13; c++) {
        want[c] = 1;           /* mine */
        want[52 + 39 + c] = 1; /* theirs: row 3 */
        want[104 + c] = 1;     /* my locked pieces */
        want[156 + 39 + c] = 1;
    }
    float *sc = want + 208;
    sc[2] = 1;                        /* my turn */
    sc[8] = 1, sc[9] = 1, sc[11] = 1; /* throws: one 1, one 2, one 4 */
    expect_obs(s, 0, want, 221);
    /* Player 1 sees the same picture of the pieces, but it is not their turn. */
    sc[2] = 0;
    expect_obs(s, 1, want, 221);
    uint8_t mask[520];
    TU_OK(tg_state_action_mask(s, mask, sizeof mask));
    for (size_t a = 0; a < 520; a++)
        assert_int_equal(mask[a], a == (12 * 5 + 0) * 2);
    tg_move m;
    TU_OK(tg_state_action_to_move(s, 120, &m));
    assert_int_equal(m, 12 | 1 << 8 | 1 << 16);
    tg_state_free(s);
    /* Example 4: a king of 3 on d3 (cell 29) with a stored 2: whole (292) or split (293). */
    s = tu_from("tab", "tab:width=13 O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,x3,.,.,.,.,.,.,.,.,./"
                       ".,.,.,.,.,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,.,.,. 0 0,0 throws=2");
    TU_OK(tg_state_action_mask(s, mask, sizeof mask));
    for (size_t a = 0; a < 520; a++)
        assert_int_equal(mask[a], a == 292 || a == 293);
    TU_OK(tg_state_action_to_move(s, 292, &m));
    assert_int_equal(m, 29 | 2 << 8 | 3 << 16);
    TU_OK(tg_state_action_to_move(s, 293, &m));
    assert_int_equal(m, 29 | 2 << 8 | 2 << 16);
    float obs[221];
    TU_OK(tg_state_observation(s, 0, obs, 221));
    assert_true(obs[29] == 3.0f && obs[52 + 29] == 0.0f && obs[104 + 29] == 0.0f);
    /* Player 1 sees d3 turned half round: cell 51 - 29 = 22, in the opponent's plane. */
    TU_OK(tg_state_observation(s, 1, obs, 221));
    assert_true(obs[22] == 0.0f && obs[52 + 22] == 3.0f);
    tg_state_free(s);
}

static void test_walak_pussa_match(void **state)
{
    (void)state;
    tg_rules *r = tu_rules("walak-pussa:rounds=match");
    size_t planes, scalars;
    TU_OK(tg_rules_observation_layout(r, &planes, &scalars));
    assert_int_equal(planes, 2);
    assert_int_equal(scalars, 12);
    assert_int_equal(tg_rules_action_count(r), 7);
    tg_rules_free(r);
    /* A second round after stores of 23 and 33: player 0 fills five holes (f1 and g1 dead)
     * and keeps 3 in reserve, player 1 fills all seven and keeps 5; player 0 starts. */
    tg_state *s = tu_from("walak-pussa:rounds=match",
                          "walak-pussa:rounds=match,laps=10000,quiet=100 4,4,4,4,4,4,4/"
                          "4,4,4,4,4,0,0 0 3,5 round=2 dead=f1+g1 reserve=3,5 starter=0 quiet=0");
    float obs[2 * 14 + 12];
    TU_OK(tg_state_observation(s, 0, obs, 40));
    assert_true(obs[14 + 5] == 1.0f && obs[14 + 6] == 1.0f && obs[14 + 4] == 0.0f);
    assert_true(obs[28] == 3.0f && obs[29] == 5.0f && obs[30] == 1.0f);
    assert_true(obs[36] == 2.0f && obs[37] == 3.0f && obs[38] == 5.0f && obs[39] == 1.0f);
    TU_OK(tg_state_observation(s, 1, obs, 40));
    /* Turned: f1 (cell 5) is observed cell 8, g1 (cell 6) observed cell 7. */
    assert_true(obs[14 + 8] == 1.0f && obs[14 + 7] == 1.0f && obs[14 + 9] == 0.0f);
    assert_true(obs[37] == 5.0f && obs[38] == 3.0f && obs[39] == 0.0f);
    tg_state_free(s);
}

/* ---- memory ---------------------------------------------------------------------------- */

static void test_no_allocation(void **state)
{
    (void)state;
    static const char *const specs[] = {"halusa", "tab:width=29", "walak-pussa:rounds=match",
                                        "hus"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        tg_rules *r = tu_rules(specs[k]);
        size_t A = tg_rules_action_count(r), F = tg_rules_observation_size(r), n = 16;
        tg_batch *b;
        TU_OK(tg_batch_new(r, n, 5, &b));
        float *obs = malloc(n * F * sizeof *obs), reward[16], rewards[32];
        uint8_t *masks = malloc(n * A), done[16];
        int8_t players[16];
        int32_t status[16];
        uint32_t actions[16];
        assert_true(obs && masks);
        uint64_t pick = 1;
        tg__alloc_fail_arm(0);
        TU_OK(tg_batch_reset(b, obs, masks, players));
        for (int step = 0; step < 300; step++) {
            for (size_t i = 0; i < n; i++) {
                uint32_t a;
                do
                    a = (uint32_t)(splitmix(&pick) % A);
                while (!masks[i * A + a]);
                actions[i] = a;
            }
            /* Every other step restarts its ended games by tg_batch_restart(). */
            TU_OK(tg_batch_step(b, actions, step % 2 ? 0 : TG_BATCH_AUTORESET, obs, masks,
                                players, reward, rewards, done, status));
            if (step % 2)
                TU_OK(tg_batch_restart(b, done, obs, masks, players));
        }
        assert_int_equal(tg__alloc_calls(), 0);
        free(obs);
        free(masks);
        tg_batch_free(b);
        /* Each allocation of tg_batch_new failing in turn: NO_MEMORY and nothing leaked
         * (valgrind and ASan runs check the leak). */
        for (size_t fail = 1;; fail++) {
            tg_batch *made = NULL;
            tg__alloc_fail_arm(fail);
            tg_status st = tg_batch_new(r, n, 5, &made);
            bool hit = tg__alloc_fail_hit();
            tg__alloc_fail_arm(0);
            if (!hit) {
                TU_OK(st);
                tg_batch_free(made);
                assert_true(fail > 5);
                break;
            }
            TU_STATUS(TG_ERR_NO_MEMORY, st);
            assert_null(made);
        }
        tg_rules_free(r);
    }
}

int main(void)
{
    size_t n = build_rule_sets(sets, MAX_RULE_SETS);
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_single_errors),     cmocka_unit_test(test_bad_actions),
        cmocka_unit_test(test_halusa_example),    cmocka_unit_test(test_tab_example),
        cmocka_unit_test(test_walak_pussa_match), cmocka_unit_test(test_no_allocation),
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    struct CMUnitTest *tests = calloc(nfixed + 3 * n, sizeof *tests);
    static char names[3 * MAX_RULE_SETS][RULE_SPEC_MAX + 16];
    if (!tests || n == 0)
        return 1;
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[3 * i], sizeof names[0], "masks %.500s", sets[i].spec);
        snprintf(names[3 * i + 1], sizeof names[0], "batch %.500s", sets[i].spec);
        snprintf(names[3 * i + 2], sizeof names[0], "restart %.500s", sets[i].spec);
        tests[nfixed + 3 * i] = (struct CMUnitTest){names[3 * i], run_masks, NULL, NULL, &sets[i]};
        tests[nfixed + 3 * i + 1] =
            (struct CMUnitTest){names[3 * i + 1], run_batch, NULL, NULL, &sets[i]};
        tests[nfixed + 3 * i + 2] =
            (struct CMUnitTest){names[3 * i + 2], run_restart, NULL, NULL, &sets[i]};
    }
    int failed = _cmocka_run_group_tests("learning", tests, nfixed + 3 * n, NULL, NULL);
    free(tests);
    return failed;
}
