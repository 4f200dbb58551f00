/* The WebAssembly module's sbrk, linked in place of wasi-libc's (scripts/build-wasm.sh).
 *
 * malloc asks sbrk for 64 KiB at a time, and wasi-libc grows the linear memory by exactly
 * that. In V8 every memory.grow counts as new external memory and starts a full garbage
 * collection, so a program that allocates a million states paid a million / 58 full
 * collections, each slower as the heap grew (minutes in all). This sbrk grows the memory
 * geometrically (by a quarter of its size, at least 1 MiB) and hands it out in the pieces
 * malloc asks for, so the number of grows is logarithmic in the memory used. When the
 * larger step does not fit under the module's maximum, it grows by exactly what was asked. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#define PAGE 65536u
#define MIN_STEP_PAGES 16u

/* The break: the end of what malloc was given. Allocator state is global by nature (malloc's
 * own is too); this file is part of the wasm module only, never of lib/. */
static uintptr_t brk_end;

void *sbrk(intptr_t increment)
{
    uintptr_t end = (uintptr_t)__builtin_wasm_memory_size(0) * PAGE;
    if (brk_end == 0)
        brk_end = end;
    if (increment == 0)
        return (void *)brk_end;
    if (increment < 0 || (uintptr_t)increment > UINTPTR_MAX - brk_end) {
        errno = ENOMEM;
        return (void *)-1;
    }
    uintptr_t wanted = brk_end + (uintptr_t)increment;
    if (wanted > end) {
        uintptr_t need = (wanted - end + PAGE - 1) / PAGE;
        uintptr_t step = end / PAGE / 4;
        if (step < MIN_STEP_PAGES)
            step = MIN_STEP_PAGES;
        if (step < need || __builtin_wasm_memory_grow(0, step) == SIZE_MAX) {
            if (__builtin_wasm_memory_grow(0, need) == SIZE_MAX) {
                errno = ENOMEM;
                return (void *)-1;
            }
        }
    }
    void *old = (void *)brk_end;
    brk_end = wanted;
    return old;
}
