/* Importing the match logs of the file-log tg-server (DIR/match-ID.log) into the database. */
#ifndef TG_SERVER_MIGRATE_H
#define TG_SERVER_MIGRATE_H

#include "store.h"

#include <stdio.h>

/* Imports every match-ID.log in dir, keeping the ids; reports each match (with its new seat
 * tokens) and each log it skips, and why, on out. Returns 0 if every log was imported, 1 if
 * any was skipped or the database refused the import. */
int migrate_logs(struct store *st, const char *dir, FILE *out);

#endif
