/* Passwords and session tokens, through Debian's libsodium: Argon2id hashes of passwords
 * (slow on purpose: only ever called on a worker thread), and session tokens whose SHA-256 is
 * all the database holds (docs/server.md, "Accounts"). */
#ifndef TG_SERVER_PASSWORD_H
#define TG_SERVER_PASSWORD_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>

/**
 * @brief Makes libsodium ready; once, before any other function here, on the main thread.
 * @return false if it cannot be (no random source).
 */
bool password_init(void);

/**
 * @brief The Argon2id hash string of a password (libsodium's interactive limits: 64 MiB, two
 * passes), salted at random. Takes about a tenth of a second: a worker's job.
 * @param password the password, NUL-terminated.
 * @param out where the hash string goes, NUL-terminated.
 * @return false if there was no memory for it.
 */
bool password_hash(const char *password, char out[PASSWORD_HASH_MAX]);

/**
 * @brief Whether a password is the one a hash string was made from. As slow as
 * password_hash: a worker's job.
 * @param hash a hash string made by password_hash.
 * @param password the password tried.
 * @return true if it is.
 */
bool password_verify(const char *hash, const char *password);

/**
 * @brief A fresh session token: 256 bits from the OS's random source, in lower-case hex.
 * @param out where it goes, NUL-terminated.
 */
void session_token_new(char out[SESSION_TOKEN_HEX_LEN + 1]);

/**
 * @brief The SHA-256 of a session token, in lower-case hex: what the database keeps, so that
 * whoever reads the database cannot sign in with what they read.
 * @param token the token as the client holds it.
 * @param out where the hash goes, NUL-terminated.
 */
void session_token_hash(const char *token, char out[SESSION_HASH_HEX_LEN + 1]);

/**
 * @brief Wipes a password from memory once it is no longer needed (never optimised away).
 * @param secret the bytes to wipe.
 * @param len how many.
 */
void password_wipe(void *secret, size_t len);

#endif
