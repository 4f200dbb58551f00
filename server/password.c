/* Passwords and session tokens through libsodium (password.h). */
#include "password.h"

#include <sodium.h>

#include <string.h>

_Static_assert(crypto_pwhash_STRBYTES <= PASSWORD_HASH_MAX, "room for an Argon2id hash string");
_Static_assert(crypto_hash_sha256_BYTES * 2 == SESSION_HASH_HEX_LEN, "a SHA-256 in hex");

bool password_init(void)
{
    return sodium_init() >= 0;
}

bool password_hash(const char *password, char out[PASSWORD_HASH_MAX])
{
    return crypto_pwhash_str_alg(
               out, password, strlen(password), crypto_pwhash_OPSLIMIT_INTERACTIVE,
               crypto_pwhash_MEMLIMIT_INTERACTIVE, crypto_pwhash_ALG_ARGON2ID13) == 0;
}

bool password_verify(const char *hash, const char *password)
{
    return crypto_pwhash_str_verify(hash, password, strlen(password)) == 0;
}

void session_token_new(char out[SESSION_TOKEN_HEX_LEN + 1])
{
    unsigned char bytes[SESSION_TOKEN_HEX_LEN / 2];
    randombytes_buf(bytes, sizeof bytes);
    sodium_bin2hex(out, SESSION_TOKEN_HEX_LEN + 1, bytes, sizeof bytes);
    sodium_memzero(bytes, sizeof bytes);
}

void session_token_hash(const char *token, char out[SESSION_HASH_HEX_LEN + 1])
{
    unsigned char digest[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(digest, (const unsigned char *)token, strlen(token));
    sodium_bin2hex(out, SESSION_HASH_HEX_LEN + 1, digest, sizeof digest);
}

void password_wipe(void *secret, size_t len)
{
    sodium_memzero(secret, len);
}
