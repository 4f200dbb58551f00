/* The one platform service a search needs: a monotonic clock for `time=` limits
 * (clock_gettime; in the WebAssembly build, wasi-libc turns it into the module's one import,
 * wasi_snapshot_preview1.clock_time_get). Windows has no clock_gettime in its C library
 * (mingw-w64 has one only in winpthreads, which the library does not otherwise need), and
 * C11's timespec_get reads the wall clock, which jumps; QueryPerformanceCounter is Windows'
 * own monotonic clock. */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L
#endif

#include "bot.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <time.h>
#endif

#ifdef _WIN32
static bool now_ns(uint64_t *out)
{
    LARGE_INTEGER count, frequency;
    if (!QueryPerformanceCounter(&count) || !QueryPerformanceFrequency(&frequency) ||
        count.QuadPart < 0 || frequency.QuadPart <= 0)
        return false;
    /* Seconds and the remainder apart: count * 1e9 alone overflows 64 bits after a few
     * days of uptime at a 10 MHz counter. */
    uint64_t ticks = (uint64_t)count.QuadPart, hz = (uint64_t)frequency.QuadPart;
    *out = ticks / hz * 1000000000u + ticks % hz * 1000000000u / hz;
    return true;
}
#else
static bool now_ns(uint64_t *out)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return false;
    *out = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return true;
}
#endif

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
