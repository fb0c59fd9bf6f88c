/* The command table: sorted (help prints it in order), complete, unique. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "../../cmd/cmd.h"

static void test_table_is_sorted_and_unique(void **state)
{
	(void)state;
	for (unsigned i = 1; i < ncommands; i++)
		assert_true(strcmp(commands[i - 1].name, commands[i].name) < 0);
}

static void test_every_entry_is_complete(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ncommands; i++) {
		assert_non_null(commands[i].fn);
		assert_non_null(commands[i].usage);
		assert_true(strlen(commands[i].summary) > 0);
		assert_ptr_equal(cmd_lookup(commands[i].name), &commands[i]);
	}
	assert_null(cmd_lookup("no-such-command"));
}

static void test_errors_map_to_documented_exit_statuses(void **state)
{
	(void)state;
	assert_int_equal(cmd_exit_for(ERR_OK), EXIT_OK);
	assert_int_equal(cmd_exit_for(ERR_INVENTORY), EXIT_USAGE);
	assert_int_equal(cmd_exit_for(ERR_PARSE), EXIT_USAGE);
	assert_int_equal(cmd_exit_for(ERR_CONNECT), EXIT_UNREACHABLE);
	assert_int_equal(cmd_exit_for(ERR_HOSTKEY), EXIT_UNREACHABLE);
	assert_int_equal(cmd_exit_for(ERR_REMOTE), EXIT_FAILED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_sorted_and_unique),
		cmocka_unit_test(test_every_entry_is_complete),
		cmocka_unit_test(test_errors_map_to_documented_exit_statuses),
	};
	return cmocka_run_group_tests_name("commands", tests, NULL, NULL);
}
