/* The one platform service a search needs: a monotonic clock for `time=` limits
 * (clock_gettime; in the WebAssembly build, wasi-libc turns it into the module's one import,
 * wasi_snapshot_preview1.clock_time_get). */
#define _POSIX_C_SOURCE 200809L

#include "bot.h"

#include <time.h>

static bool now_ns(uint64_t *out)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return false;
    *out = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return true;
}

bool tg__control_start(struct tg__control *c, atomic_int *life, uint32_t time_ms)
{
    c->life = life;
    c->timed = time_ms > 0;
    c->stopped = false;
    uint64_t now = 0;
    if (!now_ns(&now)) {
        c->stopped = true;
        return false;
    }
    c->deadline_ns = now + (uint64_t)time_ms * 1000000u;
    return true;
}

bool tg__control_poll(struct tg__control *c, bool with_clock)
{
    if (c->stopped)
        return true;
    if (c->life && atomic_load_explicit(c->life, memory_order_relaxed) != TG__RUNNING)
        c->stopped = true;
    else if (with_clock) {
        /* A clock that fails is the WebAssembly host's way to abort a search. */
        uint64_t now;
        if (!now_ns(&now) || (c->timed && now >= c->deadline_ns))
            c->stopped = true;
    }
    return c->stopped;
}
