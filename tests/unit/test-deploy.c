/*
 * engine/deploy/deploy.c with a module of our own that never touches a host (so
 * no SSH is needed): stage order, a failed host stopping only itself,
 * serial batches, max_fail_percent, depends, run_once, local stages, tags
 * and --start-at, --check applying nothing, --resume skipping what the
 * journal says is done, and a cancelled run starting nothing new.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/deploy/deploy.h"
#include "../../engine/deploy/modctx.h"
#include "../../engine/base/xalloc.h"
#include "../../engine/deploy/module.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct strlist calls;     /* "phase stage host" */
static struct deploy *to_cancel; /* cancelled by the first apply */
static bool mended;              /* "fail" no longer fails: the admin fixed it */
static struct deploy *to_retry;  /* its host n3 is retried by the first apply of stage mid */

static void record(struct mod_ctx *mc, const char *phase)
{
	char *s;

	/* deploy's prefetch planning runs each check up to its first command
	 * (capture mode); that is not a check on a host. */
	if (mc->capture)
		return;
	s = xasprintf("%s %s %s", phase, mc->stage, mod_host(mc));

	pthread_mutex_lock(&lock);
	strlist_push_owned(&calls, s);
	pthread_mutex_unlock(&lock);
}

static bool listed(const char *list, const char *host)
{
	size_t n = strlen(host);

	for (const char *p = list; (p = strstr(p, host)); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

static int fake_check(struct mod_ctx *mc)
{
	record(mc, mc->phase == PHASE_VERIFY ? "verify" : "check");
	if (listed(mod_param_str(mc, "skip"), mod_host(mc)))
		return mod_skip(mc, "not for this host");
	if (mc->phase == PHASE_CHECK && mod_param_bool(mc, "change"))
		mod_change(mc, NULL, "make it so");
	return 0;
}

static int fake_apply(struct mod_ctx *mc)
{
	record(mc, "apply");
	if (to_cancel) {
		deploy_cancel(to_cancel);
		to_cancel = NULL;
	}
	if (to_retry && !strcmp(mc->stage, "mid")) {
		mended = true;
		deploy_retry_host(to_retry, 2, "carol (tui)");
		to_retry = NULL;
	}
	if (listed(mod_param_str(mc, "fail"), mod_host(mc)) && !mended)
		return mod_fail(mc, ERR_REMOTE, "it broke");
	return 0;
}

static const struct param_spec fake_params[] = {
	{ "change", PARAM_BOOL, "true", NULL, "check finds a change", NULL },
	{ "fail", PARAM_STRING, "", NULL, "hosts whose apply fails", NULL },
	{ "skip", PARAM_STRING, "", NULL, "hosts the module skips", NULL },
	{ NULL },
};

static const struct stage_module fake = {
	.name = "fake", .summary = "test", .version = 1, .flags = MOD_PER_HOST,
	.params = fake_params, .check = fake_check, .apply = fake_apply,
};
static const struct stage_module *const mods[] = { &fake };

static const char inv_yaml[] =
	"cluster: { name: t }\n"
	"hosts:\n"
	"  n[1-4]: { address: \"127.0.0.[1-4]\" }\n"
	"groups:\n"
	"  gpu_worker: { hosts: \"n[1-4]\" }\n";

struct run {
	struct inventory *inv;
	struct playbook *pb;
	struct deploy *d;
	struct strlist events; /* "stage host result[: reason]" */
};

static void on_event(const struct dep_event *ev, void *arg)
{
	struct run *r = arg;

	if (ev->kind == DEV_CONTROL)
		strlist_push_owned(&r->events, xasprintf("control %s %s: %s", ev->stage_name,
							 ev->host, ev->msg));
	if (ev->kind == DEV_HOST_DONE)
		strlist_push_owned(&r->events, xasprintf("%s %s %s%s%s", ev->stage_name, ev->host,
					host_result_name(ev->result), ev->reason ? ": " : "",
					ev->reason ? ev->reason : ""));
}

static void setup(struct run *r, const char *playbook, struct deploy_opts *o, struct journal *j)
{
	struct err e = ERR_INIT;

	memset(r, 0, sizeof(*r));
	strlist_clear(&calls);
	if (inventory_load_buf("inv.yaml", inv_yaml, strlen(inv_yaml), &r->inv, &e) ||
	    playbook_load_buf("p.yaml", playbook, strlen(playbook), mods, 1, &r->pb, &e) ||
	    playbook_resolve(r->pb, r->inv, &e) ||
	    deploy_new(r->inv, r->pb, o, j, NULL, &r->d, &e))
		fail_msg("%s", err_msg(&e));
	if (o->forks == 99)
		to_cancel = r->d;
}

static void run(struct run *r, const char *playbook, struct deploy_opts *o, struct journal *j)
{
	struct err e = ERR_INIT;

	setup(r, playbook, o, j);
	assert_int_equal(deploy_run(r->d, on_event, r, &e), 0);
}

static void done(struct run *r)
{
	deploy_free(r->d);
	playbook_free(r->pb);
	inventory_free(r->inv);
	strlist_clear(&r->events);
}

static bool saw(const struct strlist *l, const char *s)
{
	return strlist_index(l, s) >= 0;
}

static size_t count_prefix(const struct strlist *l, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += !strncmp(l->v[i], prefix, strlen(prefix));
	return n;
}

static void test_failed_host_stops_only_itself(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: a, module: fake, hosts: gpu_worker, params: { fail: n2 } }\n"
		"  - { name: b, module: fake, hosts: gpu_worker, params: { change: false, skip: n4 } }\n";
	struct deploy_opts o = { .forks = 4 };
	struct run r;

	(void)state;
	run(&r, pb, &o, NULL);
	assert_true(saw(&r.events, "a n1 changed"));
	assert_true(saw(&r.events, "a n2 failed: apply: it broke"));
	assert_true(saw(&r.events, "b n1 ok"));
	assert_true(saw(&r.events, "b n2 skipped: failed at stage a"));
	assert_true(saw(&r.events, "b n4 skipped: not for this host"));
	assert_int_equal(count_prefix(&calls, "apply a"), 4);
	assert_int_equal(count_prefix(&calls, "verify a"), 3); /* not after the failed apply */
	assert_int_equal(count_prefix(&calls, "check b"), 3);
	assert_int_equal(count_prefix(&calls, "apply b"), 0);
	assert_int_equal(deploy_cell(r.d, 0, 1)->result, RES_FAILED);
	assert_int_equal(deploy_cell(r.d, 0, 1)->err_code, ERR_REMOTE);
	done(&r);
}

static void test_serial_and_max_fail_percent(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: a, module: fake, hosts: gpu_worker, serial: 50%, max_fail_percent: 20,"
		" params: { fail: n1 } }\n"
		"  - { name: b, module: fake, hosts: gpu_worker }\n";
	struct deploy_opts o = { .forks = 4 };
	struct run r;

	(void)state;
	run(&r, pb, &o, NULL);
	/* The first batch (n1, n2) ran; 1 of its 2 failed > 20%: the rest never start. */
	assert_true(saw(&r.events, "a n1 failed: apply: it broke"));
	assert_true(saw(&r.events, "a n2 changed"));
	assert_true(saw(&r.events, "a n3 skipped: stage a: 1 of 2 hosts of a batch failed, "
			"more than max_fail_percent 20%"));
	assert_true(saw(&r.events, "b n2 skipped: stage a: 1 of 2 hosts of a batch failed, "
			"more than max_fail_percent 20%"));
	assert_int_equal(count_prefix(&calls, "check a n3"), 0);
	assert_int_equal(count_prefix(&calls, "check b"), 0);
	done(&r);
}

/* A host that failed an earlier stage counts against a later stage's
 * max_fail_percent (Ansible's count): the rolling upgrade's gate. */
static void test_max_fail_counts_earlier_failures(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: a, module: fake, hosts: 'n[1-2]', params: { fail: n1 } }\n"
		"  - { name: gate, module: fake, hosts: 'n[1-2]', max_fail_percent: 0 }\n"
		"  - { name: b, module: fake, hosts: 'n[3-4]' }\n";
	struct deploy_opts o = { .forks = 4 };
	struct run r;

	(void)state;
	run(&r, pb, &o, NULL);
	assert_true(saw(&r.events, "a n1 failed: apply: it broke"));
	/* the batch's other host finishes its own stages */
	assert_true(saw(&r.events, "gate n2 changed"));
	assert_true(saw(&r.events, "b n3 skipped: stage gate: 1 of 2 hosts of a batch failed, "
			"more than max_fail_percent 0%"));
	assert_int_equal(count_prefix(&calls, "check b"), 0);
	done(&r);
}

static void test_serial_batch_all_failed_stops_the_run(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: a, module: fake, hosts: gpu_worker, serial: 2, params: { fail: 'n1' } }\n"
		"  - { name: b, module: fake, hosts: gpu_worker, serial: 1, params: { fail: 'n2' } }\n";
	struct deploy_opts o = { .forks = 4 };
	struct run r;

	(void)state;
	run(&r, pb, &o, NULL);
	/* Half a batch failing is not all of it: a goes on; b's first batch is n2 alone. */
	assert_true(saw(&r.events, "a n4 changed"));
	assert_true(saw(&r.events, "b n1 skipped: failed at stage a"));
	assert_true(saw(&r.events, "b n2 failed: apply: it broke"));
	assert_true(saw(&r.events, "b n3 skipped: stage b: every host of a serial batch failed"));
	assert_int_equal(count_prefix(&calls, "check b n3"), 0);
	done(&r);
}

static void test_depends_run_once_and_local(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: once, module: fake, hosts: gpu_worker, run_once: true }\n"
		"  - { name: admin, module: fake, local: true, params: { fail: localhost } }\n"
		"  - { name: after, module: fake, hosts: gpu_worker, depends: [admin] }\n"
		"  - { name: free, module: fake, hosts: 'n[3-4]', depends: once }\n";
	struct deploy_opts o = { .forks = 4 };
	struct run r;

	(void)state;
	run(&r, pb, &o, NULL);
	assert_int_equal(count_prefix(&calls, "check once"), 1);
	assert_true(saw(&r.events, "once n1 changed"));
	assert_true(saw(&r.events, "admin localhost failed: apply: it broke"));
	assert_true(saw(&r.events, "after n1 skipped: depends on stage admin, which did not succeed"));
	assert_true(saw(&r.events, "after n4 skipped: depends on stage admin, which did not succeed"));
	assert_true(saw(&r.events, "free n3 changed"));
	assert_true(saw(&r.events, "free n4 changed"));
	assert_int_equal(r.events.n, 1 + 1 + 4 + 2);
	done(&r);
}

/* Calls for a host: "phase stage HOST" lines. */
static size_t calls_on(const char *host)
{
	size_t n = 0, len = strlen(host);

	for (size_t i = 0; i < calls.n; i++) {
		size_t l = strlen(calls.v[i]);

		n += l > len && calls.v[i][l - len - 1] == ' ' && !strcmp(calls.v[i] + l - len, host);
	}
	return n;
}

/*
 * One host retried (the TUI's R): n3 failed `node` before the cluster-wide
 * `join` (run_once on n1, acting for every host that had not failed), so
 * join left it out. Once mended, the retry runs node and last on n3 and
 * join again on its own host n1 for it, as --resume would; n2 and n4 see
 * nothing, and an event says who asked.
 */
static void test_retry_host_goes_through_the_run_once_stage_it_missed(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: node, module: fake, hosts: gpu_worker, params: { fail: n3 } }\n"
		"  - { name: join, module: fake, hosts: n1, run_once: true }\n"
		"  - { name: last, module: fake, hosts: gpu_worker }\n";
	struct deploy_opts o = { .forks = 4 };
	struct err e = ERR_INIT;
	struct run r;

	(void)state;
	mended = false;
	run(&r, pb, &o, NULL);
	assert_true(saw(&r.events, "node n3 failed: apply: it broke"));
	assert_true(saw(&r.events, "last n3 skipped: failed at stage node"));
	assert_int_equal(count_prefix(&calls, "check join n1"), 1);

	mended = true;
	strlist_clear(&calls);
	strlist_clear(&r.events);
	deploy_retry_host(r.d, 2, "alice (tui)");
	assert_int_equal(deploy_run(r.d, on_event, &r, &e), 0);
	assert_true(saw(&r.events, "control node n3: retry by alice (tui): runs again from "
			"stage node, with the cluster-wide stages it missed"));
	assert_true(saw(&r.events, "node n3 changed"));
	assert_true(saw(&r.events, "join n1 changed"));
	assert_true(saw(&r.events, "last n3 changed"));
	assert_int_equal(count_prefix(&calls, "check join n1"), 1);
	assert_int_equal(calls_on("n2") + calls_on("n4"), 0);
	assert_int_equal(deploy_cell(r.d, 2, 2)->result, RES_CHANGED);

	/* join covers n3 now: another retry of nothing runs nothing */
	strlist_clear(&calls);
	strlist_clear(&r.events);
	deploy_retry_host(r.d, 2, "alice (tui)");
	assert_int_equal(deploy_run(r.d, on_event, &r, &e), 0);
	assert_int_equal(calls.n, 0);
	assert_true(saw(&r.events, "control last n3: retry by alice (tui): nothing to retry "
			"(no stage failed)"));
	mended = false;
	done(&r);
}

/*
 * R during the pass: asked while stage mid runs, the retry starts when mid
 * ends, before the pass goes on to last: n3 runs node, then join again on
 * n1 for it, then mid; the pass then takes it through last with the others.
 */
static void test_retry_host_during_the_pass(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: node, module: fake, hosts: gpu_worker, params: { fail: n3 } }\n"
		"  - { name: join, module: fake, hosts: n1, run_once: true }\n"
		"  - { name: mid, module: fake, hosts: gpu_worker }\n"
		"  - { name: last, module: fake, hosts: gpu_worker }\n";
	struct deploy_opts o = { .forks = 4 };
	struct err e = ERR_INIT;
	struct run r;

	(void)state;
	mended = false;
	setup(&r, pb, &o, NULL);
	to_retry = r.d;
	assert_int_equal(deploy_run(r.d, on_event, &r, &e), 0);
	assert_true(saw(&r.events, "node n3 failed: apply: it broke"));
	assert_true(saw(&r.events, "mid n3 skipped: failed at stage node"));
	assert_true(saw(&r.events, "control node n3: retry by carol (tui): runs again from "
			"stage node, with the cluster-wide stages it missed"));
	assert_true(saw(&r.events, "node n3 changed"));
	assert_int_equal(count_prefix(&calls, "check join n1"), 2);
	assert_true(saw(&r.events, "mid n3 changed"));
	assert_true(saw(&r.events, "last n3 changed"));
	/* last ran once on each host: n3 with the pass, not on its own */
	assert_int_equal(count_prefix(&calls, "check last"), 4);
	assert_int_equal(deploy_cell(r.d, 3, 2)->result, RES_CHANGED);
	mended = false;
	done(&r);
}

/*
 * S on a host before its stages: each is skipped, saying who asked, and a
 * cluster-wide stage leaves it out (mod_run_hosts marks it), as it does a
 * failed host.
 */
static void test_skip_host(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: node, module: fake, hosts: gpu_worker }\n"
		"  - { name: join, module: fake, hosts: n1, run_once: true }\n";
	struct deploy_opts o = { .forks = 4 };
	struct err e = ERR_INIT;
	struct run r;

	(void)state;
	setup(&r, pb, &o, NULL);
	deploy_skip_host(r.d, 1, "bob (tui)");
	assert_int_equal(deploy_run(r.d, on_event, &r, &e), 0);
	assert_true(saw(&r.events, "control node n2: skip by bob (tui): the stages it has not "
			"begun are skipped (one under way finishes)"));
	assert_true(saw(&r.events, "node n2 skipped: skipped by bob (tui)"));
	assert_true(saw(&r.events, "node n1 changed"));
	assert_int_equal(calls_on("n2"), 0);
	done(&r);
}

/*
 * A run_once stage covers the hosts it acted for; --resume runs it again
 * for a host it left out (here outside --limit; in issue 24 a node back from
 * an sshd kill never joined GPFS), and not again once every host is done.
 */
static void test_resume_reruns_a_run_once_stage_for_hosts_it_missed(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: once, module: fake, hosts: gpu_worker, run_once: true }\n"
		"  - { name: next, module: fake, hosts: gpu_worker, params: { fail: n4 } }\n";
	char dir[] = "/tmp/bringup-test-deploy.XXXXXX";
	struct deploy_opts o = { .forks = 4 };
	struct journal *j;
	char *path;
	struct run r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/journal.json", dir);
	j = journal_new(path, &(struct journal_meta){ "r", "t", "p", "0", "inv" });
	/* The first attempt ran `once` on n2 (n1 was left out by --limit). */
	o.limit = "n[2-4]";
	run(&r, pb, &o, j);
	assert_true(saw(&r.events, "once n2 changed"));
	assert_true(saw(&r.events, "next n4 failed: apply: it broke"));
	assert_string_equal(journal_state(j), "failed");
	done(&r);
	o.limit = NULL;
	run(&r, pb, &o, j);
	/* n1 was left out: the stage runs again, once, on it */
	assert_int_equal(count_prefix(&calls, "check once"), 1);
	assert_true(saw(&r.events, "once n1 changed"));
	assert_true(saw(&r.events, "once n2 skipped: completed in an earlier attempt (changed)"));
	assert_true(saw(&r.events, "once n3 skipped: completed in an earlier attempt (changed)"));
	assert_int_equal(count_prefix(&calls, "apply next"), 2); /* n1 and, again, n4 */
	done(&r);
	/* every host covered: a further resume does not run it */
	run(&r, pb, &o, j);
	assert_int_equal(count_prefix(&calls, "check once"), 0);
	assert_true(saw(&r.events, "once n1 skipped: completed in an earlier attempt (changed)"));
	done(&r);
	journal_free(j);
	unlink(path);
	rmdir(dir);
	free(path);
}

static void test_failed_run_once_stops_its_stage_hosts(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: once, module: fake, hosts: gpu_worker, run_once: true, params: { fail: n1 } }\n"
		"  - { name: next, module: fake, hosts: gpu_worker }\n";
	struct deploy_opts o = { .forks = 4 };
	struct run r;

	(void)state;
	run(&r, pb, &o, NULL);
	assert_true(saw(&r.events, "once n1 failed: apply: it broke"));
	assert_true(saw(&r.events, "next n1 skipped: failed at stage once"));
	assert_true(saw(&r.events, "next n3 skipped: run_once stage once failed on n1"));
	assert_int_equal(count_prefix(&calls, "check next"), 0);
	done(&r);
}

static void test_check_tags_start_at_limit(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: a, module: fake, hosts: gpu_worker, tags: [x] }\n"
		"  - { name: b, module: fake, hosts: gpu_worker, tags: [y] }\n"
		"  - { name: c, module: fake, hosts: gpu_worker }\n";
	struct strlist tags = STRLIST_INIT, skip = STRLIST_INIT;
	struct deploy_opts o = { .forks = 2, .check = true, .limit = "n[1-2]" };
	struct run r;

	(void)state;
	run(&r, pb, &o, NULL);
	assert_int_equal(count_prefix(&calls, "apply"), 0);
	assert_int_equal(count_prefix(&calls, "check"), 6);
	assert_true(saw(&r.events, "c n2 changed"));
	assert_int_equal(r.events.n, 6);
	done(&r);

	strlist_push(&tags, "y");
	strlist_push(&tags, "c");
	strlist_push(&skip, "c");
	o = (struct deploy_opts){ .forks = 2, .tags = &tags, .skip_tags = &skip, .limit = "n1" };
	run(&r, pb, &o, NULL);
	assert_true(saw(&r.events, "a n1 skipped: not selected by --tags"));
	assert_true(saw(&r.events, "b n1 changed"));
	assert_true(saw(&r.events, "c n1 skipped: excluded by --skip-tags"));
	done(&r);

	o = (struct deploy_opts){ .forks = 2, .start_at = "c", .limit = "n1" };
	run(&r, pb, &o, NULL);
	assert_true(saw(&r.events, "a n1 skipped: before --start-at c"));
	assert_true(saw(&r.events, "b n1 skipped: before --start-at c"));
	assert_true(saw(&r.events, "c n1 changed"));
	done(&r);
	strlist_clear(&tags);
	strlist_clear(&skip);
}

static void test_cancel_then_resume(void **state)
{
	static const char pb[] =
		"stages:\n"
		"  - { name: a, module: fake, hosts: gpu_worker, serial: 1 }\n"
		"  - { name: b, module: fake, hosts: gpu_worker }\n";
	char dir[] = "/tmp/bringup-test-deploy.XXXXXX";
	struct deploy_opts o = { .forks = 99 }; /* 99: the first apply cancels the run */
	struct journal *j;
	struct err e = ERR_INIT;
	char *path;
	struct run r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/journal.json", dir);
	j = journal_new(path, &(struct journal_meta){ "r", "t", "p", "0", "inv" });
	run(&r, pb, &o, j);
	assert_true(deploy_interrupted(r.d));
	/* n1's apply finished; nothing new started after the cancel. */
	assert_true(saw(&r.events, "a n1 changed"));
	assert_true(saw(&r.events, "a n2 skipped: interrupted: not started"));
	assert_true(saw(&r.events, "b n1 skipped: interrupted: not started"));
	assert_int_equal(count_prefix(&calls, "check"), 1);
	assert_int_equal(count_prefix(&calls, "verify"), 1);
	assert_string_equal(journal_state(j), "interrupted");
	assert_string_equal(journal_host_status(j, "a", "n2"), "interrupted");
	done(&r);
	journal_free(j);

	assert_int_equal(journal_load(path, &j, &e), 0);
	o.forks = 4;
	run(&r, pb, &o, j);
	assert_true(saw(&r.events, "a n1 skipped: completed in an earlier attempt (changed)"));
	assert_int_equal(count_prefix(&calls, "apply a n1"), 0);
	assert_int_equal(count_prefix(&calls, "apply a"), 3);
	assert_int_equal(count_prefix(&calls, "apply b"), 4);
	assert_string_equal(journal_state(j), "completed");
	done(&r);
	journal_free(j);
	unlink(path);
	rmdir(dir);
	free(path);
	strlist_clear(&calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_host_stops_only_itself),
		cmocka_unit_test(test_serial_and_max_fail_percent),
		cmocka_unit_test(test_serial_batch_all_failed_stops_the_run),
		cmocka_unit_test(test_max_fail_counts_earlier_failures),
		cmocka_unit_test(test_depends_run_once_and_local),
		cmocka_unit_test(test_failed_run_once_stops_its_stage_hosts),
		cmocka_unit_test(test_resume_reruns_a_run_once_stage_for_hosts_it_missed),
		cmocka_unit_test(test_retry_host_goes_through_the_run_once_stage_it_missed),
		cmocka_unit_test(test_retry_host_during_the_pass),
		cmocka_unit_test(test_skip_host),
		cmocka_unit_test(test_check_tags_start_at_limit),
		cmocka_unit_test(test_cancel_then_resume),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
