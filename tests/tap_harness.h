/* A small TAP test runner with the part of cmocka's interface the suites use, for builds that
 * have no cmocka: Debian builds none for mingw-w64, so the Windows cross build
 * (cross/x86_64-w64-mingw32.txt) compiles the suites against this instead (tests/meson.build,
 * docs/platforms.md). Every other build uses the real cmocka.
 *
 * What it offers, with cmocka's meaning:
 *   - struct CMUnitTest (name, test_func, setup_func, teardown_func, initial_state),
 *     cmocka_unit_test(), cmocka_run_group_tests(), cmocka_run_group_tests_name() and
 *     _cmocka_run_group_tests(); group and per-test fixtures;
 *   - assert_true, assert_false, assert_null, assert_non_null, assert_ptr_equal,
 *     assert_int_equal, assert_int_not_equal (integers compared as uintmax_t, as cmocka's
 *     LargestIntegralType), assert_string_equal, assert_string_not_equal,
 *     assert_memory_equal; fail(), fail_msg(), print_message(), print_error().
 *
 * What it does not: cmocka's mocks, allocation tracking, and its catching of signals. A crash
 * ends the program, which meson reports as a failed test all the same. A check that fails on a
 * thread other than the one running the test cannot jump back into that test: it reports
 * where it failed and ends the program with a failure status.
 *
 * The runner writes TAP to stdout: the plan, then `ok N - name` or `not ok N - name`, with
 * each failure's file, line and reason as a `#` comment before it. It returns the number of
 * failed tests (at most 255, so that an exit status cannot wrap to 0). */
#ifndef TG_TAP_HARNESS_H
#define TG_TAP_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__MINGW32__)
#define TAP_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#define TAP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TAP_PRINTF(fmt, args)
#endif

#if defined(__GNUC__)
#define TAP_NORETURN __attribute__((noreturn))
#else
#define TAP_NORETURN
#endif

typedef void (*CMUnitTestFunction)(void **state);
typedef int (*CMFixtureFunction)(void **state);

struct CMUnitTest {
    const char *name;
    CMUnitTestFunction test_func;
    CMFixtureFunction setup_func;    /* before the test; non-zero fails it unrun */
    CMFixtureFunction teardown_func; /* after it, even when it failed; non-zero fails it */
    void *initial_state;             /* *state for the test (else the group setup's state) */
};

#define cmocka_unit_test(f) {#f, f, NULL, NULL, NULL}

int tap_run_group(const char *group, const struct CMUnitTest *tests, size_t count,
                  CMFixtureFunction group_setup, CMFixtureFunction group_teardown);

#define _cmocka_run_group_tests(group, tests, count, setup, teardown)                          \
    tap_run_group((group), (tests), (count), (setup), (teardown))
#define cmocka_run_group_tests_name(group, tests, setup, teardown)                             \
    tap_run_group((group), (tests), sizeof(tests) / sizeof((tests)[0]), (setup), (teardown))
#define cmocka_run_group_tests(tests, setup, teardown)                                         \
    cmocka_run_group_tests_name(#tests, tests, setup, teardown)

/* Ends the running test as failed, after writing "file:line: reason" (reason a printf format). */
TAP_NORETURN void tap_fail_at(const char *file, int line, const char *format, ...) TAP_PRINTF(3, 4);

void tap_check_int_equal(uintmax_t a, uintmax_t b, bool want_equal, const char *a_text,
                         const char *b_text, const char *file, int line);
void tap_check_string_equal(const char *a, const char *b, bool want_equal, const char *a_text,
                            const char *b_text, const char *file, int line);
void tap_check_memory_equal(const void *a, const void *b, size_t size, const char *a_text,
                            const char *b_text, const char *file, int line);

/* What the test prints: to stdout as cmocka does (the suites start such lines with "# "). */
void print_message(const char *format, ...) TAP_PRINTF(1, 2);
void print_error(const char *format, ...) TAP_PRINTF(1, 2);

#define assert_true(c)                                                                         \
    ((c) ? (void)0 : tap_fail_at(__FILE__, __LINE__, "%s is false", #c))
#define assert_false(c)                                                                        \
    (!(c) ? (void)0 : tap_fail_at(__FILE__, __LINE__, "%s is true", #c))
#define assert_null(p)                                                                         \
    ((p) == NULL ? (void)0 : tap_fail_at(__FILE__, __LINE__, "%s is not NULL", #p))
#define assert_non_null(p)                                                                     \
    ((p) != NULL ? (void)0 : tap_fail_at(__FILE__, __LINE__, "%s is NULL", #p))
#define assert_ptr_equal(a, b)                                                                 \
    ((const void *)(a) == (const void *)(b)                                                    \
         ? (void)0                                                                             \
         : tap_fail_at(__FILE__, __LINE__, "%s (%p) != %s (%p)", #a, (const void *)(a), #b,     \
                       (const void *)(b)))
#define assert_int_equal(a, b)                                                                 \
    tap_check_int_equal((uintmax_t)(a), (uintmax_t)(b), true, #a, #b, __FILE__, __LINE__)
#define assert_int_not_equal(a, b)                                                             \
    tap_check_int_equal((uintmax_t)(a), (uintmax_t)(b), false, #a, #b, __FILE__, __LINE__)
#define assert_string_equal(a, b)                                                              \
    tap_check_string_equal((a), (b), true, #a, #b, __FILE__, __LINE__)
#define assert_string_not_equal(a, b)                                                          \
    tap_check_string_equal((a), (b), false, #a, #b, __FILE__, __LINE__)
#define assert_memory_equal(a, b, size)                                                        \
    tap_check_memory_equal((a), (b), (size), #a, #b, __FILE__, __LINE__)

#define fail() tap_fail_at(__FILE__, __LINE__, "fail()")
#define fail_msg(...) tap_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
