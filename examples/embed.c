/* The smallest useful program: play one random game of Halusa and print how it ended.
 *
 *   cc embed.c $(pkg-config --cflags --libs traditional-games) -o embed && ./embed [SEED]
 */
#include <traditional-games.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    uint64_t rng = argc > 1 ? strtoull(argv[1], NULL, 10) : 42;
    tg_rules *rules = NULL;
    tg_state *game = NULL;

    tg_status st = tg_rules_new("halusa", &rules);
    if (st == TG_OK)
        st = tg_state_new(rules, &game);
    tg_rules_free(rules); /* the state keeps its own copy of the rules */
    if (st != TG_OK) {
        fprintf(stderr, "embed: %s\n", tg_status_string(st));
        return 1;
    }

    while (st == TG_OK && !tg_state_is_terminal(game))
        st = tg_state_apply_random(game, &rng);

    /* Measure, allocate, write: the library never allocates memory for the caller. */
    size_t len = 0;
    char *text = NULL;
    if (st == TG_OK)
        st = tg_state_to_string(game, NULL, 0, &len);
    if (st == TG_OK && (text = malloc(len + 1)) == NULL)
        st = TG_ERR_NO_MEMORY;
    if (st == TG_OK)
        st = tg_state_to_string(game, text, len + 1, NULL);
    if (st != TG_OK) {
        fprintf(stderr, "embed: %s\n", tg_status_string(st));
        free(text);
        tg_state_free(game);
        return 1;
    }

    printf("%s\n", text);
    int winner = tg_state_winner(game);
    if (winner == TG_DRAW)
        printf("draw after %zu plies\n", tg_state_ply(game));
    else
        printf("player %d wins after %zu plies\n", winner, tg_state_ply(game));

    free(text);
    tg_state_free(game);
    return 0;
}
