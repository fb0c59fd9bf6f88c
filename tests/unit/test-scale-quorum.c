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

/* mmlscluster's table for dgx01..dgxN: the first q quorum (quorum-manager). */
static json_t *lscluster(unsigned n, unsigned q)
{
	struct strbuf t = STRBUF_INIT;
	struct err err = ERR_INIT;
	json_t *j = NULL;

	strbuf_addstr(&t, "\nGPFS cluster information\n========================\n"
		      "  GPFS cluster name:         dgx01.sim\n"
		      "  GPFS cluster id:           17502596657464854352\n\n"
		      " Node  Daemon node name  IP address   Admin node name  Designation\n"
		      "-------------------------------------------------------------------\n");
	for (unsigned i = 1; i <= n; i++)
		strbuf_addf(&t, "   %u   dgx%02u             127.0.1.%u    dgx%02u            %s\n",
			    i, i, i, i, i <= q ? "quorum-manager-perfmon" : "");
	if (parse_mmlscluster(t.buf, t.len, &j, &err))
		fail_msg("mmlscluster: %s", err_msg(&err));
	strbuf_release(&t);
	return j;
}

/* mmgetstate -a for dgx01..dgxN, every node active but those in `down`. */
static json_t *states(unsigned n, const char *down)
{
	struct strbuf t = STRBUF_INIT;
	json_t *j;

	strbuf_addstr(&t, HEAD);
	for (unsigned i = 1; i <= n; i++) {
		char name[8];

		snprintf(name, sizeof(name), "dgx%02u", i);
		strbuf_addf(&t, "       %u      %s            %s\n", i, name,
			    strstr(down, name) ? "down" : "active");
	}
	j = getstate(t.buf);
	strbuf_release(&t);
	return j;
}

/* GPFS's need and what bringup keeps: a spare when two quorum nodes are beyond the need. */
static void test_need_and_keep(void **state)
{
	(void)state;
	assert_int_equal(scale_quorum_need(0, false), 0);
	assert_int_equal(scale_quorum_need(1, false), 1);
	assert_int_equal(scale_quorum_need(3, false), 2);
	assert_int_equal(scale_quorum_need(5, false), 3);
	assert_int_equal(scale_quorum_need(5, true), 1);
	/* tiebreaker disks count up to eight quorum nodes only */
	assert_int_equal(scale_quorum_need(9, true), 5);
	assert_int_equal(scale_quorum_keep(1, false), 1);
	assert_int_equal(scale_quorum_keep(3, false), 2);
	assert_int_equal(scale_quorum_keep(4, false), 3);
	assert_int_equal(scale_quorum_keep(5, false), 4);
	assert_int_equal(scale_quorum_keep(7, false), 5);
	assert_int_equal(scale_quorum_keep(2, true), 1);
	assert_int_equal(scale_quorum_keep(3, true), 2);
}

static void test_tiebreaker_config(void **state)
{
	static const char *const yes[] = { "tiebreakerDisks nsd1;nsd2\n",
		"clusterName x\ntiebreakerDisks\tnsd3\n" };
	static const char *const no[] = { "", "tiebreakerDisks no\n", "tiebreakerDisks \n",
		"tiebreakerDisks (undefined)\n", "tiebreakerDisksX nsd1\n", "tiebreakerDisks DEFAULT" };

	struct strbuf real = STRBUF_INIT;

	(void)state;
	/* the real capture (SOURCES.md), and the seed's [dgx] stanza without one */
	fixture_read("mmlsconfig", "mmlsconfig_2_nodes_tiebreaker_disks.txt", &real);
	assert_true(scale_quorum_tiebreaker(real.buf, real.len));
	strbuf_reset(&real);
	fixture_read("mmlsconfig", "mmlsconfig_nodeclass_stanza_dgx_verbs_rdma_seed_excerpt.txt", &real);
	assert_false(scale_quorum_tiebreaker(real.buf, real.len));
	strbuf_release(&real);
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		assert_true(scale_quorum_tiebreaker(yes[i], strlen(yes[i])));
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		assert_false(scale_quorum_tiebreaker(no[i], strlen(no[i])));
}

/*
 * The case: 5 quorum nodes, the batch holding two of them. All
 * active, the two at once leave 3, below the 4 kept: refused as one set;
 * one of them at a time may go.
 */
static void test_set_judged_at_once(void **state)
{
	json_t *cl = lscluster(8, 5), *st = states(8, "");
	const char *const both[] = { "dgx01", "dgx02", "dgx06" }, *const one[] = { "dgx01", "dgx06" };
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_false(scale_quorum_set_may_stop(st, cl, false, both, 3, &why));
	assert_non_null(strstr(why.buf, "refusing to stop GPFS on dgx[01-02,06]: 5 of 5 quorum "
				       "nodes are active and stopping dgx[01-02] (quorum nodes) "
				       "would leave 3 (dgx[03-05]), below the 4 bringup keeps"));
	assert_non_null(strstr(why.buf, "mmchnode --quorum -N dgx[07-08]"));
	strbuf_reset(&why);
	assert_true(scale_quorum_set_may_stop(st, cl, false, one, 2, &why));
	assert_int_equal(why.len, 0);
	json_decref(st);
	json_decref(cl);
	strbuf_release(&why);
}

/* A quorum node lost before the check: the next quorum node of the batch stays up. */
static void test_node_lost_mid_batch(void **state)
{
	json_t *cl = lscluster(8, 5), *st = states(8, "dgx05");
	const char *const q[] = { "dgx02" }, *const client[] = { "dgx07" }, *const lost[] = { "dgx05" };
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_false(scale_quorum_set_may_stop(st, cl, false, q, 1, &why));
	assert_non_null(strstr(why.buf, "4 of 5 quorum nodes are active and stopping dgx02 "
				       "(quorum node) would leave 3 (dgx[01,03-04]), below the 4"));
	assert_non_null(strstr(why.buf, "not active: dgx05 (down); start GPFS on dgx05 first "
				       "(mmstartup -N dgx05)"));
	/* a client, and the node already down, cost nothing */
	assert_true(scale_quorum_set_may_stop(st, cl, false, client, 1, &why));
	assert_true(scale_quorum_set_may_stop(st, cl, false, lost, 1, &why));
	json_decref(st);
	json_decref(cl);
	strbuf_release(&why);
}

/* The Redpaper's topology: one quorum node. Its clients go; it does not, with a real remedy. */
static void test_single_quorum_node(void **state)
{
	json_t *cl = lscluster(3, 1), *st = states(3, "");
	const char *const clients[] = { "dgx02", "dgx03" }, *const q[] = { "dgx01" };
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_true(scale_quorum_set_may_stop(st, cl, false, clients, 2, &why));
	assert_false(scale_quorum_set_may_stop(st, cl, false, q, 1, &why));
	assert_non_null(strstr(why.buf, "would leave 0 (none), below the 1 bringup keeps"));
	assert_non_null(strstr(why.buf, "mmchnode --quorum -N dgx[02-03]"));
	assert_null(strstr(why.buf, "mmstartup -N none"));
	json_decref(st);
	json_decref(cl);
	strbuf_release(&why);
}

/* Roles are GPFS's: a node the caller thinks is a client but mmlscluster makes quorum counts. */
static void test_roles_from_mmlscluster(void **state)
{
	json_t *cl = lscluster(4, 2), *st = states(4, "");
	const char *const q[] = { "dgx02" };
	struct strbuf why = STRBUF_INIT;

	(void)state;
	/* 2 quorum nodes: GPFS needs both */
	assert_false(scale_quorum_set_may_stop(st, cl, false, q, 1, &why));
	/* with tiebreaker disks one is enough */
	strbuf_reset(&why);
	assert_true(scale_quorum_set_may_stop(st, cl, true, q, 1, &why));
	json_decref(st);
	json_decref(cl);
	strbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed_when_all_active),
		cmocka_unit_test(test_refused_when_one_is_down),
		cmocka_unit_test(test_unreachable_is_not_active),
		cmocka_unit_test(test_arbitrating_is_not_active),
		cmocka_unit_test(test_need_and_keep),
		cmocka_unit_test(test_tiebreaker_config),
		cmocka_unit_test(test_set_judged_at_once),
		cmocka_unit_test(test_node_lost_mid_batch),
		cmocka_unit_test(test_single_quorum_node),
		cmocka_unit_test(test_roles_from_mmlscluster),
	};
	return cmocka_run_group_tests_name("scale-quorum", tests, NULL, NULL);
}
