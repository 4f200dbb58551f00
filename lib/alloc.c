#include "internal.h"

#include <stdlib.h>

#ifdef TG_ALLOC_FAIL_INJECTION
/* Test builds only (tests/test_alloc_fail.c compiles the library's sources with
 * -DTG_ALLOC_FAIL_INJECTION). The shipped library has none of this: no global mutable state. */
static size_t fail_countdown; /* 0: disarmed; else the allocations left until the failing one */
static size_t alloc_calls;    /* allocations (size > 0) since the last tg__alloc_fail_arm() */
static bool fail_hit;         /* the armed allocation was reached and failed */

void tg__alloc_fail_arm(size_t n)
{
    fail_countdown = n;
    alloc_calls = 0;
    fail_hit = false;
}

size_t tg__alloc_calls(void)
{
    return alloc_calls;
}

bool tg__alloc_fail_hit(void)
{
    return fail_hit;
}

/* Counts one allocation; true if it is the armed one, which must fail. */
static bool injected_failure(void)
{
    alloc_calls++;
    if (fail_countdown && --fail_countdown == 0) {
        fail_hit = true;
        return true;
    }
    return false;
}
#endif

/* Every allocation of the library goes through here, so a test build can make any chosen
 * allocation fail and check that the caller sees TG_ERR_NO_MEMORY and nothing else. */
void *tg__realloc(void *p, size_t size)
{
    if (size == 0) {
        free(p);
        return NULL;
    }
#ifdef TG_ALLOC_FAIL_INJECTION
    if (injected_failure())
        return NULL;
#endif
    return realloc(p, size);
}

/* Zeroed memory for the search's table: fresh pages from the system come zeroed, so a large
 * table costs its page faults only as the search touches it, not all at once before it. */
void *tg__calloc(size_t size)
{
    if (size == 0)
        return NULL;
#ifdef TG_ALLOC_FAIL_INJECTION
    if (injected_failure())
        return NULL;
#endif
    return calloc(1, size);
}
