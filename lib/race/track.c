#include "track.h"

#include <string.h>

void tg__track_serpentine(struct tg_track *track, int rows, int cols, int first_row, int row_step,
                          bool east_first)
{
    memset(track, 0, sizeof *track);
    memset(track->at, TG__NOT_ON_TRACK, sizeof track->at);
    unsigned p = 0;
    for (int i = 0; i < rows; i++) {
        int row = first_row + i * row_step;
        bool east = east_first == (i % 2 == 0);
        for (int j = 0; j < cols; j++) {
            int cell = row * cols + (east ? j : cols - 1 - j);
            track->cell[p] = (uint8_t)cell;
            track->at[cell] = (uint8_t)p;
            p++;
        }
    }
    track->len = (uint8_t)p;
}
