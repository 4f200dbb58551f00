/**
 * @file traditional-games.h
 * @brief The public API of libtraditional-games: traditional board games as a C library.
 *
 * One header holds the whole contract. Everything here is stable ABI: functions are only
 * ever added (in a new version node of the linker script), never renamed or changed.
 *
 * @par Handles
 * Two opaque handles carry all data. A ::tg_rules is an immutable rule set (one game plus
 * its options), made by tg_rules_new() and released by tg_rules_free(). A ::tg_state is one
 * position of one game plus its undo history, made by tg_state_new(), tg_state_clone() or
 * tg_state_from_string() and released by tg_state_free().
 *
 * @par Thread safety
 * The library has no global mutable state. A ::tg_rules is never modified after creation
 * and may be shared by any number of threads. A ::tg_state must not be used by two threads
 * at once without the caller's lock; distinct states may be used from different threads at
 * the same time, including states made from one shared ::tg_rules.
 *
 * @par Errors
 * Every fallible call returns a ::tg_status. A call that returns anything but #TG_OK has
 * changed nothing (no state, no output argument other than the documented `*needed` or
 * `*count`). The library never prints, never aborts and never calls `assert()` on input.
 *
 * @par Buffers
 * The caller owns every buffer. Functions that write text or lists take a buffer and its
 * capacity and report the size needed (snprintf style): with a NULL buffer and capacity 0
 * they only measure and return #TG_OK; with a buffer too small they return
 * #TG_ERR_BUFFER_TOO_SMALL and write nothing but the size. The library never returns memory
 * for the caller to free().
 *
 * @par Hostile input
 * Anything a caller or a network peer can put in a string is handled: numbers of any size
 * or sign in specs, position strings and move strings, counts that would overflow the
 * library's internal types, strings of any length, are rejected with a status (#TG_ERR_PARSE,
 * #TG_ERR_BAD_OPTION) and change nothing. NULL where a pointer is required is
 * #TG_ERR_INVALID_ARGUMENT; a capacity of 0 is always valid; tg_rules_free() and
 * tg_state_free() accept NULL; tg_state_copy() of a state onto itself is valid (it only
 * clears the history).
 *
 * @par Undefined behaviour (out of contract)
 * What the library cannot detect is the caller's responsibility, as in the C library:
 * using or freeing a handle after it was freed, or a pointer that is not a live handle of
 * this library; an input string that is not NUL-terminated (text arguments have no
 * length: the library reads up to the NUL); a capacity larger than the buffer really is;
 * an output buffer that overlaps another argument of the same call (for example the
 * outcome and probability arrays of tg_state_chance(), or a text buffer and the text being
 * parsed); and using one ::tg_state from two threads at once without a lock.
 */
#ifndef TRADITIONAL_GAMES_H
#define TRADITIONAL_GAMES_H

/* The API is split by topic into the headers of traditional-games/, each self-contained; this
 * one includes them all, in the order of the reference manual, and is the one to include. */
#include "traditional-games/tg-core.h"
#include "traditional-games/tg-state.h"
#include "traditional-games/tg-bot.h"
#include "traditional-games/tg-story.h"
#include "traditional-games/tg-search.h"
#include "traditional-games/tg-learning.h"
#include "traditional-games/tg-egtb.h"

#endif /* TRADITIONAL_GAMES_H */
