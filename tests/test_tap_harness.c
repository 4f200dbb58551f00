/* The self-test of tests/tap_harness.c, the runner the Windows suites use in place of cmocka:
 * every kind of check passing, and each failing on purpose, run by tests/check_tap_harness.py,
 * which reads the TAP and the exit status. Tests named passes_* must pass and fails_* fail; a
 * failing test first prints the place of the check that must fail ("# expect FILE:LINE"),
 * and nothing after a failed check may run ("reached after" must never appear).
 *
 *   test_tap_harness           the group; exit status = number of fails_* tests
 *   test_tap_harness outside   a check failing outside any test: the program must stop */
#include "tap_harness.h"

#include <stdio.h>
#include <string.h>

#define EXPECT_FAILURE_ON_NEXT_LINE() print_message("# expect %s:%d\n", __FILE__, __LINE__ + 1)
#define REACHED_AFTER_FAILURE() print_message("# reached after a failed check in %s\n", __func__)

static int group_marker, test_marker;

static int group_setup(void **state)
{
    *state = &group_marker;
    return 0;
}

static int group_teardown(void **state)
{
    return *state == &group_marker ? 0 : 1;
}

static void passes_every_check(void **state)
{
    (void)state;
    const unsigned char left[4] = {1, 2, 3, 4}, right[4] = {1, 2, 3, 4};
    int x = 0;
    assert_true(1 + 1 == 2);
    assert_false(1 + 1 == 3);
    assert_null(NULL);
    assert_non_null(&x);
    assert_ptr_equal(&x, &x);
    assert_int_equal(3, 3u);
    assert_int_equal(UINT64_C(0xFFFFFFFFFFFFFFFF), UINT64_MAX);
    assert_int_not_equal(3, 4);
    assert_string_equal("abc", "abc");
    assert_string_not_equal("abc", "abd");
    assert_memory_equal(left, right, sizeof left);
}

static void passes_with_group_state(void **state)
{
    assert_ptr_equal(*state, &group_marker);
}

static void passes_with_initial_state(void **state)
{
    assert_ptr_equal(*state, &test_marker);
}

static void fails_true(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_true(2 + 2 == 5);
    REACHED_AFTER_FAILURE();
}

static void fails_false(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_false(2 + 2 == 4);
    REACHED_AFTER_FAILURE();
}

static void fails_null(void **state)
{
    int x = 0;
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_null(&x);
    REACHED_AFTER_FAILURE();
}

static void fails_non_null(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_non_null(NULL);
    REACHED_AFTER_FAILURE();
}

static void fails_ptr_equal(void **state)
{
    int x = 0, y = 0;
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_ptr_equal(&x, &y);
    REACHED_AFTER_FAILURE();
}

static void fails_int_equal(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_int_equal(2 + 2, 5);
    REACHED_AFTER_FAILURE();
}

static void fails_int_equal_negative(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_int_equal(-1, 1);
    REACHED_AFTER_FAILURE();
}

static void fails_int_not_equal(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_int_not_equal(7, 7);
    REACHED_AFTER_FAILURE();
}

static void fails_string_equal(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_string_equal("abc", "abd");
    REACHED_AFTER_FAILURE();
}

static void fails_string_equal_null(void **state)
{
    const char *none = NULL;
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_string_equal(none, "abc");
    REACHED_AFTER_FAILURE();
}

static void fails_string_not_equal(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_string_not_equal("abc", "abc");
    REACHED_AFTER_FAILURE();
}

static void fails_memory_equal(void **state)
{
    const unsigned char left[4] = {1, 2, 3, 4}, right[4] = {1, 2, 9, 4};
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_memory_equal(left, right, sizeof left);
    REACHED_AFTER_FAILURE();
}

static void fails_fail(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    fail();
    REACHED_AFTER_FAILURE();
}

static void fails_fail_msg(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    fail_msg("the reason, %d", 42);
    REACHED_AFTER_FAILURE();
}

/* A failure deep in a helper ends the test, not only the helper. */
static void check_positive(int n)
{
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_true(n > 0);
}

static void fails_in_a_helper(void **state)
{
    (void)state;
    check_positive(-3);
    REACHED_AFTER_FAILURE();
}

static int setup_refusing(void **state)
{
    (void)state;
    return -1;
}

static void fails_by_its_setup(void **state)
{
    (void)state;
    REACHED_AFTER_FAILURE();
}

static int teardown_refusing(void **state)
{
    (void)state;
    return 1;
}

static void fails_by_its_teardown(void **state)
{
    (void)state;
}

static int teardown_reporting(void **state)
{
    (void)state;
    print_message("# teardown ran\n");
    return 0;
}

static void fails_then_tears_down(void **state)
{
    (void)state;
    EXPECT_FAILURE_ON_NEXT_LINE();
    assert_int_equal(1, 2);
    REACHED_AFTER_FAILURE();
}

static void passes_after_failures(void **state)
{
    assert_ptr_equal(*state, &group_marker);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "outside") == 0) {
        EXPECT_FAILURE_ON_NEXT_LINE();
        assert_int_equal(argc, 0);
        print_message("# reached after a failed check outside any test\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(passes_every_check),
        cmocka_unit_test(passes_with_group_state),
        {"passes_with_initial_state", passes_with_initial_state, NULL, NULL, &test_marker},
        cmocka_unit_test(fails_true),
        cmocka_unit_test(fails_false),
        cmocka_unit_test(fails_null),
        cmocka_unit_test(fails_non_null),
        cmocka_unit_test(fails_ptr_equal),
        cmocka_unit_test(fails_int_equal),
        cmocka_unit_test(fails_int_equal_negative),
        cmocka_unit_test(fails_int_not_equal),
        cmocka_unit_test(fails_string_equal),
        cmocka_unit_test(fails_string_equal_null),
        cmocka_unit_test(fails_string_not_equal),
        cmocka_unit_test(fails_memory_equal),
        cmocka_unit_test(fails_fail),
        cmocka_unit_test(fails_fail_msg),
        cmocka_unit_test(fails_in_a_helper),
        {"fails_by_its_setup", fails_by_its_setup, setup_refusing, NULL, NULL},
        {"fails_by_its_teardown", fails_by_its_teardown, NULL, teardown_refusing, NULL},
        {"fails_then_tears_down", fails_then_tears_down, NULL, teardown_reporting, NULL},
        cmocka_unit_test(passes_after_failures),
    };
    return cmocka_run_group_tests_name("tap harness", tests, group_setup, group_teardown);
}
