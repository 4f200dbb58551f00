/* The TAP runner of tests/tap_harness.h: the suites' cmocka calls where there is no cmocka. */
#include "tap_harness.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a failed check jumps to: the runner sets it before each test or fixture. A jmp_buf
 * belongs to its thread, hence the flag, true only on the runner's thread while a test or a
 * fixture runs; a check failing anywhere else has nowhere to return to. */
static jmp_buf tap_test_exit;
static _Thread_local bool tap_in_test;

TAP_PRINTF(3, 0)
static void tap_vreport(const char *file, int line, const char *format, va_list args)
{
    printf("# %s:%d: ", file, line);
    vprintf(format, args);
    putchar('\n');
    fflush(stdout);
}

void tap_fail_at(const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    tap_vreport(file, line, format, args);
    va_end(args);
    if (!tap_in_test) {
        fprintf(stderr, "tap_harness: a check failed outside the thread running a test; "
                        "stopping every test\n");
        fflush(NULL);
        _Exit(EXIT_FAILURE);
    }
    longjmp(tap_test_exit, 1);
}

void tap_check_int_equal(uintmax_t a, uintmax_t b, bool want_equal, const char *a_text,
                         const char *b_text, const char *file, int line)
{
    if ((a == b) == want_equal)
        return;
    /* Both readings: the suites compare signed statuses and counts as well as 64-bit hashes. */
    tap_fail_at(file, line, "%s %s %s: %" PRIdMAX " (%#" PRIxMAX ") and %" PRIdMAX " (%#" PRIxMAX ")",
                a_text, want_equal ? "!=" : "==", b_text, (intmax_t)a, a, (intmax_t)b, b);
}

void tap_check_string_equal(const char *a, const char *b, bool want_equal, const char *a_text,
                            const char *b_text, const char *file, int line)
{
    if (!a || !b)
        tap_fail_at(file, line, "%s is NULL", !a ? a_text : b_text);
    if ((strcmp(a, b) == 0) == want_equal)
        return;
    tap_fail_at(file, line, "%s %s %s: \"%s\" and \"%s\"", a_text, want_equal ? "!=" : "==",
                b_text, a, b);
}

void tap_check_memory_equal(const void *a, const void *b, size_t size, const char *a_text,
                            const char *b_text, const char *file, int line)
{
    if (!a || !b)
        tap_fail_at(file, line, "%s is NULL", !a ? a_text : b_text);
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < size; i++)
        if (x[i] != y[i])
            tap_fail_at(file, line, "%s != %s: byte %zu of %zu is 0x%02x and 0x%02x", a_text,
                        b_text, i, size, (unsigned)x[i], (unsigned)y[i]);
}

void print_message(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    fflush(stdout);
}

void print_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fflush(stderr);
}

/* The test function; false if a check in it failed. */
static bool tap_call_test(CMUnitTestFunction test, void **state)
{
    tap_in_test = true;
    if (setjmp(tap_test_exit) != 0) {
        tap_in_test = false;
        return false;
    }
    test(state);
    tap_in_test = false;
    return true;
}

/* A fixture (none is a success); false if it returned non-zero or a check in it failed. */
static bool tap_call_fixture(CMFixtureFunction fixture, void **state, const char *what,
                             const char *name)
{
    if (!fixture)
        return true;
    tap_in_test = true;
    if (setjmp(tap_test_exit) != 0) {
        tap_in_test = false;
        return false;
    }
    int status = fixture(state);
    tap_in_test = false;
    if (status != 0) {
        printf("# %s of %s returned %d\n", what, name, status);
        return false;
    }
    return true;
}

int tap_run_group(const char *group, const struct CMUnitTest *tests, size_t count,
                  CMFixtureFunction group_setup, CMFixtureFunction group_teardown)
{
    const char *group_name = group ? group : "tests";
    printf("1..%zu\n# %s\n", count, group_name);
    void *group_state = NULL;
    bool group_ready = tap_call_fixture(group_setup, &group_state, "the group setup", group_name);
    size_t failed = 0;
    for (size_t i = 0; i < count; i++) {
        const struct CMUnitTest *t = &tests[i];
        bool ok = false;
        if (!group_ready) {
            printf("# not run: the group setup failed\n");
        } else if (!t->test_func) {
            printf("# no test function\n");
        } else {
            void *state = t->initial_state ? t->initial_state : group_state;
            if (tap_call_fixture(t->setup_func, &state, "the setup", t->name)) {
                ok = tap_call_test(t->test_func, &state);
                ok = tap_call_fixture(t->teardown_func, &state, "the teardown", t->name) && ok;
            }
        }
        if (!ok)
            failed++;
        printf("%s %zu - %s\n", ok ? "ok" : "not ok", i + 1, t->name ? t->name : "(unnamed)");
        fflush(stdout);
    }
    /* Every test has its line by now; a teardown that fails still fails the program. */
    if (group_ready && !tap_call_fixture(group_teardown, &group_state, "the group teardown",
                                        group_name))
        failed++;
    fflush(stdout);
    return failed > 255 ? 255 : (int)failed;
}
