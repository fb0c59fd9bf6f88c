/* engine/deploy/scale-quorum.c: the quorum guard refuses a stop that loses quorum. */
#include "parse-fixture.h"

#include "../../engine/deploy/scale-quorum.h"

static json_t *getstate(const char *text)
{
	struct err err = ERR_INIT;
	json_t *j = NULL;

	if (parse_mmgetstate(text, strlen(text), &j, &err))
		fail_msg("mmgetstate: %s", err_msg(&err));
	return j;
}

#define HEAD "\n Node number  Node name        GPFS state  \n" \
	     "-------------------------------------------\n"

/* The real capture: three quorum nodes, all active; one may go, not two. */
static void test_allowed_when_all_active(void **state)
{
	json_t *q = parse_fixture("mmgetstate", "mmgetstate_a_3_nodes_active.txt");
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_true(scale_quorum_may_stop(q, "worker02", &why));
	assert_int_equal(why.len, 0);
	assert_true(scale_quorum_all_active(q));
	/* a node that is not a quorum node never counts */
	assert_true(scale_quorum_may_stop(q, "dgx09", &why));
	json_decref(q);
	strbuf_release(&why);
}

static void test_refused_when_one_is_down(void **state)
{
	json_t *q = getstate(HEAD "       1      worker01         active\n"
				  "       2      worker02         down\n"
				  "       3      worker03         active\n");
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_false(scale_quorum_may_stop(q, "worker01", &why));
	assert_non_null(strstr(why.buf, "refusing to stop GPFS on worker01"));
	assert_non_null(strstr(why.buf, "2 of 3 quorum nodes are active"));
	assert_non_null(strstr(why.buf, "worker02 (down)"));
	assert_non_null(strstr(why.buf, "mmstartup -N worker02"));
	assert_false(scale_quorum_all_active(q));
	/* the node that is down may be stopped again: it takes nothing away */
	strbuf_reset(&why);
	assert_true(scale_quorum_may_stop(q, "worker02", &why));
	json_decref(q);
	strbuf_release(&why);
}

/* A quorum node mmgetstate could not reach counts as not active. */
static void test_unreachable_is_not_active(void **state)
{
	json_t *q = getstate(HEAD "       1      worker01         active\n"
				  "       2      worker02         active\n\n"
				  "mmgetstate: The following nodes could not be reached:\n\nworker03\n");
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_false(scale_quorum_may_stop(q, "worker01", &why));
	assert_non_null(strstr(why.buf, "2 of 3 quorum nodes are active"));
	assert_non_null(strstr(why.buf, "worker03 (unreachable)"));
	json_decref(q);
	strbuf_release(&why);
}

static void test_arbitrating_is_not_active(void **state)
{
	json_t *q = getstate(HEAD "       1      dgx01.ocp4.scale.ibm.com  active\n"
				  "       2      dgx02.ocp4.scale.ibm.com  arbitrating\n"
				  "       3      dgx03.ocp4.scale.ibm.com  active\n"
				  "       4      dgx04.ocp4.scale.ibm.com  active\n"
				  "       5      dgx05.ocp4.scale.ibm.com  active\n");
	struct strbuf why = STRBUF_INIT;

	(void)state;
	/* 4 of 5 active, majority 3: one more may go (names carry a domain) */
	assert_true(scale_quorum_may_stop(q, "dgx01", &why));
	json_decref(q);
	q = getstate(HEAD "       1      dgx01  active\n"
			  "       2      dgx02  arbitrating\n"
			  "       3      dgx03  down\n"
			  "       4      dgx04  active\n"
			  "       5      dgx05  active\n");
	assert_false(scale_quorum_may_stop(q, "dgx05", &why));
	assert_non_null(strstr(why.buf, "dgx02 (arbitrating), dgx03 (down)"));
	assert_non_null(strstr(why.buf, "start GPFS on 1 of them first (mmstartup -N dgx02,dgx03)"));
	json_decref(q);
	strbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed_when_all_active),
		cmocka_unit_test(test_refused_when_one_is_down),
		cmocka_unit_test(test_unreachable_is_not_active),
		cmocka_unit_test(test_arbitrating_is_not_active),
	};
	return cmocka_run_group_tests_name("scale-quorum", tests, NULL, NULL);
}
