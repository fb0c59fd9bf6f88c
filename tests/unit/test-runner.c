/*
 * runner.c with local tasks (no hosts): the pool honours --forks, every task
 * runs exactly once, events arrive on the caller's thread in order per task,
 * a cancelled run starts nothing new, and the idle hook runs once the
 * events so far are delivered, while a task is still running (deploy writes
 * its journal there: a host's result is not left unwritten while another
 * host's install goes on).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/ssh/runner.h"

static atomic_int running, peak, runs;

static int sleepy(struct task_ctx *t, void *arg)
{
	int now = atomic_fetch_add(&running, 1) + 1, old = atomic_load(&peak);

	(void)arg;
	while (now > old && !atomic_compare_exchange_weak(&peak, &old, now))
		;
	task_note(t, "working");
	usleep(20000);
	atomic_fetch_sub(&running, 1);
	atomic_fetch_add(&runs, 1);
	return 0;
}

static int failing(struct task_ctx *t, void *arg)
{
	(void)t;
	(void)arg;
	return ERR_REMOTE;
}

struct seen {
	pthread_t main;
	int starts, notes, dones;
	int order_ok;
	int state[16]; /* 0 none, 1 started, 2 done */
};

static void on_event(const struct event *ev, void *arg)
{
	struct seen *s = arg;

	if (!pthread_equal(pthread_self(), s->main))
		s->order_ok = 0;
	switch (ev->kind) {
	case EV_TASK_START:
		s->starts++;
		if (s->state[ev->task] != 0)
			s->order_ok = 0;
		s->state[ev->task] = 1;
		break;
	case EV_TASK_NOTE:
		s->notes++;
		if (s->state[ev->task] != 1 || strcmp(ev->msg, "working"))
			s->order_ok = 0;
		break;
	case EV_TASK_DONE:
		s->dones++;
		s->state[ev->task] = 2;
		break;
	}
}

static struct inventory empty_inv = { .command_timeout_s = 5, .connect_timeout_s = 1 };

static void test_forks_bound_parallelism_and_every_task_runs_once(void **state)
{
	struct runner_opts o = { .forks = 3 };
	struct runner *r;
	struct err err = ERR_INIT;
	struct task tasks[12];
	struct seen s = { .main = pthread_self(), .order_ok = 1 };

	(void)state;
	atomic_store(&running, 0);
	atomic_store(&peak, 0);
	atomic_store(&runs, 0);
	memset(tasks, 0, sizeof(tasks));
	for (int i = 0; i < 12; i++)
		tasks[i].fn = sleepy;
	assert_int_equal(runner_new(&empty_inv, &o, &r, &err), 0);
	assert_int_equal(runner_run(r, tasks, 12, on_event, &s), 0);
	assert_int_equal(atomic_load(&runs), 12);
	assert_int_equal(atomic_load(&peak), 3);
	assert_int_equal(s.starts, 12);
	assert_int_equal(s.notes, 12);
	assert_int_equal(s.dones, 12);
	assert_true(s.order_ok);
	for (int i = 0; i < 12; i++)
		assert_int_equal(tasks[i].rc, 0);
	runner_free(r);
}

static void test_failed_task_gets_an_error_message(void **state)
{
	struct runner_opts o = { 0 };
	struct runner *r;
	struct err err = ERR_INIT;
	struct task t = { .fn = failing };

	(void)state;
	assert_int_equal(runner_new(&empty_inv, &o, &r, &err), 0);
	runner_run(r, &t, 1, NULL, NULL);
	assert_int_equal(t.rc, ERR_REMOTE);
	assert_non_null(t.err.msg);
	task_release(&t);
	runner_free(r);
}

static void test_cancelled_run_starts_nothing(void **state)
{
	struct runner_opts o = { .forks = 2 };
	struct runner *r;
	struct err err = ERR_INIT;
	struct task tasks[4];

	(void)state;
	atomic_store(&runs, 0);
	memset(tasks, 0, sizeof(tasks));
	for (int i = 0; i < 4; i++)
		tasks[i].fn = sleepy;
	assert_int_equal(runner_new(&empty_inv, &o, &r, &err), 0);
	runner_cancel(r);
	runner_run(r, tasks, 4, NULL, NULL);
	assert_int_equal(atomic_load(&runs), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(tasks[i].rc, ERR_CANCELLED);
		task_release(&tasks[i]);
	}
	runner_free(r);
}

/* The idle hook's view: the slow task runs until the hook has seen the two
 * quick tasks' results delivered, or 10 s pass (then it fails). */
static atomic_int released;

static int quick(struct task_ctx *t, void *arg)
{
	(void)t;
	(void)arg;
	return 0;
}

static int until_released(struct task_ctx *t, void *arg)
{
	(void)t;
	(void)arg;
	for (int i = 0; i < 1000 && !atomic_load(&released); i++)
		usleep(10000);
	return atomic_load(&released) ? 0 : ERR_TIMEOUT;
}

struct idle_seen {
	struct seen s;
	int idles, dones_at_last_idle;
};

static void on_idle_event(const struct event *ev, void *arg)
{
	on_event(ev, &((struct idle_seen *)arg)->s);
}

static void on_idle(void *arg)
{
	struct idle_seen *is = arg;

	if (!pthread_equal(pthread_self(), is->s.main))
		is->s.order_ok = 0;
	is->idles++;
	is->dones_at_last_idle = is->s.dones;
	if (is->s.dones == 2)
		atomic_store(&released, 1);
}

static void test_idle_hook_runs_while_a_task_is_still_running(void **state)
{
	struct runner_opts o = { .forks = 3 };
	struct runner *r;
	struct err err = ERR_INIT;
	struct task tasks[3];
	struct idle_seen is = { .s = { .main = pthread_self(), .order_ok = 1 } };

	(void)state;
	atomic_store(&released, 0);
	memset(tasks, 0, sizeof(tasks));
	tasks[0].fn = until_released;
	tasks[1].fn = quick;
	tasks[2].fn = quick;
	assert_int_equal(runner_new(&empty_inv, &o, &r, &err), 0);
	runner_on_idle(r, on_idle, &is);
	assert_int_equal(runner_run(r, tasks, 3, on_idle_event, &is), 0);
	assert_int_equal(tasks[0].rc, 0); /* released by the hook, not by the 10 s */
	assert_int_equal(is.s.dones, 3);
	assert_int_equal(is.dones_at_last_idle, 3); /* the last result too */
	assert_true(is.s.order_ok);
	runner_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forks_bound_parallelism_and_every_task_runs_once),
		cmocka_unit_test(test_failed_task_gets_an_error_message),
		cmocka_unit_test(test_cancelled_run_starts_nothing),
		cmocka_unit_test(test_idle_hook_runs_while_a_task_is_still_running),
	};
	return cmocka_run_group_tests_name("runner", tests, NULL, NULL);
}
