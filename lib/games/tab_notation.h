/* At-Tab wa-d-Dukk's notation hooks (games/tab_notation.c) for its game table (games/tab.c). */
#ifndef TG_GAMES_TAB_NOTATION_H
#define TG_GAMES_TAB_NOTATION_H

#include "../game.h"

void tg__tab_write_cell(const struct tg_config *cfg, const struct tg_pos *pos, int cell,
                        struct tg_out *o);
bool tg__tab_read_cell(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos,
                       int cell);
void tg__tab_write_field(const struct tg_config *cfg, const struct tg_pos *pos, size_t field,
                         struct tg_out *o);
bool tg__tab_read_field(const struct tg_config *cfg, size_t field, const char *s, size_t n,
                        struct tg_pos *pos);
/* The throws stored and not yet spent, a line for tg_state_render. */
void tg__tab_describe(const struct tg_config *cfg, const struct tg_pos *pos, struct tg_out *o);
bool tg__tab_move_to_string(const struct tg_config *cfg, const struct tg_pos *pos, tg_move m,
                            struct tg_out *o);
bool tg__tab_move_from_string(const struct tg_config *cfg, const struct tg_pos *pos, const char *s,
                              size_t n, tg_move *m);

#endif
