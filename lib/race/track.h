/* Race tracks: the fixed path a player's pieces walk from start to finish, written once for
 * the race games. A track is a list of cells in walking order plus its inverse. */
#ifndef TG_RACE_TRACK_H
#define TG_RACE_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#define TG__TRACK_MAX 128
#define TG__NOT_ON_TRACK 0xFFu

struct tg_track {
    uint8_t len;
    uint8_t cell[TG__TRACK_MAX]; /* track position -> cell index */
    uint8_t at[TG__TRACK_MAX];   /* cell index -> track position, TG__NOT_ON_TRACK if absent */
};

/* A track that runs along every row of a rows x cols board in turn, turning back at the end of
 * each row (boustrophedon): it starts on `first_row`, moves to the next row by `row_step`
 * (+1 northwards, -1 southwards) and walks the first row eastwards if `east_first`. */
void tg__track_serpentine(struct tg_track *track, int rows, int cols, int first_row, int row_step,
                          bool east_first);

#endif
