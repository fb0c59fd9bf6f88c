/*
 * The rdma validation stage: ib_write_bw between nodes on every compute
 * HCA port, judged against the port's link rate, with the fault attributed
 * to the node and port that cause it rather than to their partners.
 *
 * Shape: the nodes meet in rounds of disjoint pairs (validate_schedule), all
 * pairs of a round at once. A pair is one coordinated task on two hosts:
 * the server side finds free TCP ports, starts one ib_write_bw server per
 * port, the client side one client per port; both commands are in flight
 * at once (task_exec_start) and both are killed when they overrun the test
 * duration plus a slack. A port below pass_pct of its link rate fails,
 * below warn_pct warns; a failing measurement is tried again (cfg->tries in
 * all), and every try is kept in the report.
 *
 * Attribution: a port that fails against every peer it met is that port's
 * fault. A pair that failed with neither end so condemned is retested: each
 * end against a node whose same port passed every test; the end that fails
 * again is named, the other cleared.
 */
#include "validate.h"
#include "validate-int.h"
#include "../inventory/inventory.h"
#include "../facts/parse.h"
#include "../ssh/runner.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One HCA port measured in one pair. */
struct meas {
	const char *hca;          /* the inventory's, not owned */
	unsigned port;
	unsigned link_gbps;       /* the slower end's expected rate */
	double gbps;              /* client's BW average; -1: none */
	enum vstatus st;
	char *error;              /* the tool's words when it failed; owned */
	json_t *tries;            /* every try, owned */
};

/* Rounding for the report, without libm (values are never negative). */
static double r2(double x)
{
	return (double)(long long)(x * 100 + 0.5) / 100;
}

static double r1(double x)
{
	return (double)(long long)(x * 10 + 0.5) / 10;
}

struct pair_job {
	const struct validate_rdma_cfg *cfg;
	const struct inventory *inv;
	unsigned tries;
	size_t hosts[2];          /* inv indexes: [0] server, [1] client */
	size_t round;             /* 0-based; SIZE_MAX for a retest */
	struct meas *m;
	size_t nm;
};

/* The compute ports of a host: InfiniBand HCAs, narrowed to the
 * `compute_hcas` var when the inventory gives one (storage HCAs stay out). */
static bool is_compute(const struct host *h, const struct hca_expect *x)
{
	json_t *list = json_object_get(h->vars, "compute_hcas"), *v;
	size_t i;

	if (x->link_layer != LINK_IB)
		return false;
	if (!json_is_array(list))
		return true;
	json_array_foreach(list, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), x->name))
			return true;
	return false;
}

static const struct hca_expect *find_hca(const struct host *h, const char *name, unsigned port)
{
	for (size_t i = 0; i < h->nhcas; i++)
		if (!strcmp(h->hcas[i].name, name) && h->hcas[i].port == port && is_compute(h, &h->hcas[i]))
			return &h->hcas[i];
	return NULL;
}

/* The ports both ends have, each at the slower end's rate. */
static void job_ports(struct pair_job *j)
{
	const struct host *a = &j->inv->hosts[j->hosts[0]], *b = &j->inv->hosts[j->hosts[1]];

	j->m = xcalloc(a->nhcas ? a->nhcas : 1, sizeof(*j->m));
	for (size_t i = 0; i < a->nhcas; i++) {
		const struct hca_expect *x = &a->hcas[i], *y;

		if (!is_compute(a, x) || !(y = find_hca(b, x->name, x->port)))
			continue;
		j->m[j->nm].hca = x->name;
		j->m[j->nm].port = x->port;
		j->m[j->nm].link_gbps = x->rate_gbps < y->rate_gbps ? x->rate_gbps : y->rate_gbps;
		j->m[j->nm].gbps = -1;
		j->m[j->nm].st = VS_FAIL;
		j->m[j->nm].tries = json_array();
		j->nm++;
	}
}

static void job_release(struct pair_job *j)
{
	for (size_t i = 0; i < j->nm; i++) {
		free(j->m[i].error);
		json_decref(j->m[i].tries);
	}
	free(j->m);
}

/* Listening TCP ports of the server host, from /proc/net/tcp{,6}. */
#define LISTENING_SH "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | " \
	"awk 'NR > 1 && $4 == \"0A\" { split($2, a, \":\"); print a[2] }'"

/* The test line for one port: CMD -d HCA -i PORT -p TCP -D SECS -s SIZE
 * --report_gbits [--use_cuda=0] [SERVER]. */
static void perftest_argv(const struct pair_job *j, const struct meas *m, const char *tcp,
			  const char *server, struct strbuf *sb)
{
	strbuf_addstr(sb, j->cfg->command);
	strbuf_addstr(sb, " -d ");
	strbuf_addshquoted(sb, m->hca);
	strbuf_addf(sb, " -i %u -p %s -D %u -s %u -F --report_gbits", m->port, tcp,
		    j->cfg->duration_s, j->cfg->size);
	if (j->cfg->use_cuda)
		strbuf_addstr(sb, " --use_cuda=0");
	if (server) {
		strbuf_addch(sb, ' ');
		strbuf_addshquoted(sb, server);
	}
}

/*
 * Sets $pin to "numactl --cpunodebind=N --membind=N" for the HCA's NUMA
 * node as this host's sysfs gives it, empty where it gives none or -1 (no
 * NUMA, a VM): the test's buffers and polling thread stay on the HCA's
 * socket, as a training job's would, not on whichever the scheduler picks
 * (a cross-socket run loses bandwidth to the inter-socket link). "$pin"
 * then goes unquoted before the shell that runs the test.
 */
static void numa_prefix(const char *hca, struct strbuf *sb)
{
	strbuf_addstr(sb, "pin=; nn=$(cat /sys/class/infiniband/");
	strbuf_addshquoted(sb, hca);
	strbuf_addstr(sb, "/device/numa_node 2>/dev/null); case $nn in [0-9]*) "
			  "pin=\"numactl --cpunodebind=$nn --membind=$nn\";; esac; $pin ");
}

#define READY_MARK "@@bringup-ready"
#define SERVER_GRACE_MS 10000

/* Where each port's test writes, its pid, and its collected sections. */
static void side_start(const struct pair_job *j, const size_t *todo, size_t n, const unsigned *tcp,
		       const char *server, struct strbuf *sb)
{
	for (size_t k = 0; k < n; k++) {
		char port[32];

		if (tcp)
			snprintf(port, sizeof(port), "%u", tcp[k]);
		else
			snprintf(port, sizeof(port), "$t%zu", k);
		if (j->cfg->numa) {
			/* The command may be a shell snippet of the user's (a
			 * function, a pipeline): numactl runs a shell on it,
			 * the port its argument (the server's is a variable). */
			struct strbuf t = STRBUF_INIT;

			perftest_argv(j, &j->m[todo[k]], "\"$1\"", server, &t);
			numa_prefix(j->m[todo[k]].hca, sb);
			strbuf_addstr(sb, "sh -c ");
			strbuf_addshquoted(sb, t.buf);
			strbuf_addf(sb, " sh %s", port);
			strbuf_release(&t);
		} else {
			perftest_argv(j, &j->m[todo[k]], port, server, sb);
		}
		strbuf_addf(sb, " >\"$d/%zu\" 2>&1 & p%zu=$!; ", k, k);
	}
}

static void side_collect(size_t n, struct strbuf *sb)
{
	for (size_t k = 0; k < n; k++)
		strbuf_addf(sb, "wait $p%zu; r%zu=$?; ", k, k);
	for (size_t k = 0; k < n; k++)
		strbuf_addf(sb, "echo \"@@bringup-port %zu $r%zu\"; cat \"$d/%zu\"; ", k, k, k);
	strbuf_addstr(sb, "rm -rf \"$d\"");
}

#define SIDE_PROLOGUE "d=$(mktemp -d) || exit 1; trap 'rm -rf \"$d\"; exit 143' TERM INT HUP; "

/*
 * The server side's shell line: every port's server at once, each into its
 * own file, then "@@bringup-port I RC" sections; a stopped run takes its
 * files with it.
 *
 * It picks its TCP ports itself (the first free ones from base_port on)
 * and prints them in its READY_MARK line once each server can take a
 * client: its port listens, or it said "Waiting for client to connect" (a
 * banner that may sit in a block-buffered file), or it has ended.
 * perftest's client tries its connect once and gives up, so the client
 * side starts only then, and never against a server still loading.
 */
static void server_command(const struct pair_job *j, const size_t *todo, size_t n,
			   struct strbuf *sb)
{
	strbuf_addstr(sb, SIDE_PROLOGUE);
	strbuf_addf(sb, "l=\" $(" LISTENING_SH " | tr '\\n' ' ') \"; t=%u; ", j->cfg->base_port);
	for (size_t k = 0; k < n; k++)
		strbuf_addf(sb, "while case $l in *\" $(printf %%04X $t) \"*) ;; *) false;; esac; "
			    "do t=$((t+1)); done; t%zu=$t; t=$((t+1)); ", k);
	side_start(j, todo, n, NULL, NULL, sb);
	/* The listening ports are read again only when a banner is missing:
	 * a poll stays cheap while many servers start at once. */
	strbuf_addf(sb, "i=0; while [ $i -lt %u ]; do n=0 l=; ", j->cfg->slack_s * 20);
	for (size_t k = 0; k < n; k++)
		strbuf_addf(sb, "if grep -q 'Waiting for client to connect' \"$d/%zu\" || "
			    "! kill -0 $p%zu 2>/dev/null; then n=$((n+1)); else "
			    "[ -n \"$l\" ] || l=\" $(" LISTENING_SH " | tr '\\n' ' ') \"; "
			    "case $l in *\" $(printf %%04X $t%zu) \"*) n=$((n+1));; esac; fi; ",
			    k, k, k);
	strbuf_addf(sb, "[ $n -eq %zu ] && break; sleep 0.05; i=$((i+1)); done; "
		    "echo " READY_MARK, n);
	for (size_t k = 0; k < n; k++)
		strbuf_addf(sb, " $t%zu", k);
	strbuf_addstr(sb, "; ");
	side_collect(n, sb);
}

static void client_command(const struct pair_job *j, const size_t *todo, size_t n,
			   const unsigned *tcp, const char *server, struct strbuf *sb)
{
	strbuf_addstr(sb, SIDE_PROLOGUE);
	side_start(j, todo, n, tcp, server, sb);
	side_collect(n, sb);
}

/* The ports of the server's ready line; false when it has not n of them. */
static bool ready_ports(const struct strbuf *out, size_t n, unsigned *tcp)
{
	const char *p = out->buf ? strstr(out->buf, READY_MARK " ") : NULL;

	if (!p)
		return false;
	p += sizeof(READY_MARK);
	for (size_t k = 0; k < n; k++) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || v < 1 || v > 65535)
			return false;
		tcp[k] = (unsigned)v;
		p = end;
	}
	return *p == '\n';
}

/* Section k of a side's output ("" when absent); *ret_rc its exit status. */
static char *section(const struct strbuf *out, size_t k, int *ret_rc)
{
	char mark[48];
	const char *p, *end;
	int n = snprintf(mark, sizeof(mark), "@@bringup-port %zu ", k);

	*ret_rc = -1;
	if (!out->len || !(p = strstr(out->buf, mark)))
		return xstrdup("");
	*ret_rc = atoi(p + n);
	p = strchr(p, '\n');
	if (!p)
		return xstrdup("");
	p++;
	end = strstr(p, "@@bringup-port ");
	return xstrndup(p, end ? (size_t)(end - p) : strlen(p));
}

/* The BW average of the last result line, in Gb/s; -1 when none. */
static double result_gbps(const char *text, char **ret_error)
{
	json_t *j = NULL, *rows, *last, *errs;
	struct err e = ERR_INIT;
	double gbps = -1;

	*ret_error = NULL;
	if (parse_perftest(text, strlen(text), &j, &e)) {
		*ret_error = xstrdup(*text ? err_msg(&e) : "no output");
		err_clear(&e);
		return -1;
	}
	rows = json_object_get(j, "results");
	last = json_array_get(rows, json_array_size(rows) - 1);
	errs = json_object_get(j, "errors");
	if (json_array_size(errs)) {
		*ret_error = xstrdup(json_string_value(json_array_get(errs, json_array_size(errs) - 1)));
	} else if (last && json_is_number(json_object_get(last, "bw_average"))) {
		const char *unit = json_string_value(json_object_get(json_object_get(j, "units"), "bw_average"));

		gbps = json_number_value(json_object_get(last, "bw_average"));
		if (unit && !strcmp(unit, "MB/sec"))
			gbps = gbps * 1048576.0 * 8 / 1e9;
	} else {
		*ret_error = xstrdup("no result line");
	}
	json_decref(j);
	return gbps;
}

static enum vstatus judge(const struct validate_rdma_cfg *c, double gbps, unsigned link)
{
	double pct = link ? gbps * 100.0 / link : 0;

	if (gbps < 0 || pct < c->pass_pct)
		return VS_FAIL;
	return pct < c->warn_pct ? VS_WARN : VS_PASS;
}

/* One try of the ports todo[0..n): both sides in flight, then judged. */
static int run_try(struct task_ctx *t, struct pair_job *j, const size_t *todo, size_t n,
		   unsigned attempt)
{
	const struct host *srv = task_host(t, 0);
	struct remote_cmd cmd[2] = { { 0 } };
	struct strbuf line[2] = { STRBUF_INIT, STRBUF_INIT };
	struct cmd_result res[2];
	struct remote_proc *proc[2] = { NULL, NULL };
	unsigned *tcp = xcalloc(n, sizeof(*tcp));
	bool ready;
	int rc;

	cmd_result_init(&res[0]);
	cmd_result_init(&res[1]);
	server_command(j, todo, n, &line[0]);
	for (int s = 0; s < 2; s++) {
		cmd[s].timeout_ms = (j->cfg->duration_s + j->cfg->slack_s) * 1000u;
		cmd[s].max_output = 1u << 20;
	}
	cmd[0].command = line[0].buf;
	if ((rc = task_exec_start(t, 0, &cmd[0], &proc[0], task_err(t))))
		goto out;
	/* The ready line is the server side's first line of output. */
	ready = conn_exec_wait_output(proc[0], &res[0], "\n", (long long)j->cfg->slack_s * 1000) &&
		ready_ports(&res[0].out, n, tcp);
	if (ready) {
		client_command(j, todo, n, tcp, srv->ssh.address, &line[1]);
		cmd[1].command = line[1].buf;
		if ((rc = task_exec_start(t, 1, &cmd[1], &proc[1], task_err(t))))
			goto out;
		/* The client first: it ends first, and the server's channel
		 * keeps what it prints meanwhile. A perftest server whose
		 * client never came waits for it forever: once the client is
		 * done, the server has SERVER_GRACE_MS to finish its report. */
		conn_exec_wait(proc[1], &res[1]);
		proc[1] = NULL;
		if (!conn_exec_wait_output(proc[0], &res[0], NULL, SERVER_GRACE_MS))
			conn_exec_stop(proc[0]);
	} else {
		conn_exec_stop(proc[0]);
	}
	conn_exec_wait(proc[0], &res[0]);
	proc[0] = NULL;
	for (size_t k = 0; k < n; k++) {
		struct meas *m = &j->m[todo[k]];
		int crc, src;
		char *ctext = section(&res[1].out, k, &crc), *stext = section(&res[0].out, k, &src);
		char *cerr = NULL, *serr = NULL;
		double gbps = result_gbps(ctext, &cerr);
		json_t *try = json_object();

		result_gbps(stext, &serr);
		free(m->error);
		m->error = NULL;
		if (!ready) {
			gbps = -1;
			m->error = xasprintf("the server side was not ready in %u s%s%s",
					     j->cfg->slack_s, serr ? ": " : "", serr ? serr : "");
		} else if (res[1].outcome == CMD_TIMED_OUT || res[0].outcome == CMD_TIMED_OUT) {
			gbps = -1;
			m->error = xasprintf("timed out after %u s (both ends killed)",
					     j->cfg->duration_s + j->cfg->slack_s);
		} else if (gbps < 0) {
			m->error = xasprintf("%s", cerr ? cerr : serr ? serr : "no result");
		}
		m->gbps = gbps;
		m->st = judge(j->cfg, gbps, m->link_gbps);
		json_object_set_new(try, "try", json_integer(attempt));
		json_object_set_new(try, "tcp_port", tcp[k] ? json_integer(tcp[k]) : json_null());
		json_object_set_new(try, "gbps", gbps < 0 ? json_null() : json_real(r2(gbps)));
		json_object_set_new(try, "status", json_string(vstatus_name(m->st)));
		if (m->error)
			json_object_set_new(try, "error", json_string(m->error));
		json_array_append_new(m->tries, try);
		free(cerr);
		free(serr);
		free(ctext);
		free(stext);
	}
out:
	remote_proc_free(proc[0]);
	remote_proc_free(proc[1]);
	cmd_result_release(&res[0]);
	cmd_result_release(&res[1]);
	strbuf_release(&line[0]);
	strbuf_release(&line[1]);
	free(tcp);
	return rc;
}

static int pair_task(struct task_ctx *t, void *arg)
{
	struct pair_job *j = arg;
	size_t *todo = xcalloc(j->nm ? j->nm : 1, sizeof(*todo)), n = j->nm;
	int rc = 0;

	for (size_t k = 0; k < n; k++)
		todo[k] = k;
	for (unsigned attempt = 1; n && attempt <= j->tries; attempt++) {
		size_t left = 0;

		if ((rc = run_try(t, j, todo, n, attempt)))
			break;
		for (size_t k = 0; k < n; k++)
			if (j->m[todo[k]].st == VS_FAIL)
				todo[left++] = todo[k];
		n = left;
	}
	free(todo);
	return rc;
}

static const char *hname(const struct inventory *inv, size_t i)
{
	return inv->hosts[i].name;
}

/* Runs jobs[0..n) at once (the runner serialises those sharing a host). */
static void run_jobs(struct runner *r, struct pair_job *jobs, size_t n, json_t *findings)
{
	struct task *tasks = xcalloc(n ? n : 1, sizeof(*tasks));

	for (size_t i = 0; i < n; i++) {
		tasks[i].hosts = jobs[i].hosts;
		tasks[i].nhosts = 2;
		tasks[i].fn = pair_task;
		tasks[i].arg = &jobs[i];
	}
	runner_run(r, tasks, n, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		if (tasks[i].rc) {
			enum vstatus st = tasks[i].rc == ERR_CONNECT ? VS_UNREACHABLE : VS_FAIL;

			validate_finding(findings, st, NULL, NULL, "pair %s-%s: %s",
					 hname(jobs[i].inv, jobs[i].hosts[0]),
					 hname(jobs[i].inv, jobs[i].hosts[1]), err_msg(&tasks[i].err));
			for (size_t k = 0; k < jobs[i].nm; k++)
				if (!jobs[i].m[k].error)
					jobs[i].m[k].error = xstrdup(err_msg(&tasks[i].err));
		}
		task_release(&tasks[i]);
	}
	free(tasks);
}

static json_t *meas_json(const struct pair_job *j, const struct meas *m)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:o, s:s, s:o, s:O}",
			 "server", hname(j->inv, j->hosts[0]), "client", hname(j->inv, j->hosts[1]),
			 "hca", m->hca, "port", (json_int_t)m->port, "link_gbps", (json_int_t)m->link_gbps,
			 "gbps", m->gbps < 0 ? json_null() : json_real(r2(m->gbps)),
			 "pct", m->gbps < 0 ? json_null() : json_real(r1(m->gbps * 100.0 / m->link_gbps)),
			 "status", vstatus_name(m->st),
			 "error", m->error ? json_string(m->error) : json_null(),
			 "tries", m->tries);
}

/* Per host and port: how the tests it took part in went. */
struct tally {
	size_t host;
	const char *hca;
	unsigned port;
	size_t tests, fails, weak; /* weak: fail or warn */
};

static struct tally *tally_get(struct tally **v, size_t *n, size_t host, const char *hca, unsigned port)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].host == host && (*v)[i].port == port && !strcmp((*v)[i].hca, hca))
			return &(*v)[i];
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n] = (struct tally){ host, hca, port, 0, 0, 0 };
	return &(*v)[(*n)++];
}

static bool condemned(const struct tally *t)
{
	return t->tests >= 2 && t->fails == t->tests;
}

/* A host other than a and b whose port passed every test: a reference. */
static const struct tally *reference(const struct tally *v, size_t n, size_t a, size_t b,
				     const char *hca, unsigned port)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].host != a && v[i].host != b && v[i].port == port &&
		    !strcmp(v[i].hca, hca) && v[i].tests && !v[i].weak)
			return &v[i];
	return NULL;
}

static void add_matrix(json_t *stage, const struct inventory *inv, const size_t *hosts, size_t nh,
		       const struct pair_job *jobs, size_t nj)
{
	json_t *mx = json_object(), *names = json_array();

	for (size_t i = 0; i < nh; i++)
		json_array_append_new(names, json_string(hname(inv, hosts[i])));
	for (size_t i = 0; i < nj; i++) {
		for (size_t k = 0; k < jobs[i].nm; k++) {
			const struct meas *m = &jobs[i].m[k];
			char key[96];
			json_t *grid;
			size_t a = SIZE_MAX, b = SIZE_MAX;

			snprintf(key, sizeof(key), "%s/%u", m->hca, m->port);
			if (!(grid = json_object_get(mx, key))) {
				grid = json_array();
				for (size_t x = 0; x < nh; x++) {
					json_t *row = json_array();

					for (size_t y = 0; y < nh; y++)
						json_array_append_new(row, json_null());
					json_array_append_new(grid, row);
				}
				json_object_set_new(mx, key, grid);
			}
			for (size_t x = 0; x < nh; x++) {
				if (hosts[x] == jobs[i].hosts[0])
					a = x;
				if (hosts[x] == jobs[i].hosts[1])
					b = x;
			}
			if (a == SIZE_MAX || b == SIZE_MAX)
				continue;
			json_array_set_new(json_array_get(grid, a), b,
					   m->gbps < 0 ? json_real(0) : json_real(r2(m->gbps)));
			json_array_set_new(json_array_get(grid, b), a,
					   m->gbps < 0 ? json_real(0) : json_real(r2(m->gbps)));
		}
	}
	json_object_set_new(stage, "matrix", json_pack("{s:o, s:o}", "hosts", names, "gbps", mx));
}

static double mono_s(void)
{
	return (double)now_ms() / 1000.0;
}

int validate_rdma(struct runner *r, const struct inventory *inv,
		  const struct validate_opts *o, json_t *report, struct err *err)
{
	const struct validate_rdma_cfg *c = &o->cfg->rdma;
	enum pairs_mode mode = o->pairs >= 0 ? (enum pairs_mode)o->pairs : c->pairs;
	json_t *stage = json_object(), *findings = json_array(), *rounds = json_array();
	json_t *results = json_array(), *retests = json_array();
	size_t *ok = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*ok)), nok;
	size_t *sched = NULL, npairs = 0, nrounds;
	struct pair_job *jobs = NULL, *re = NULL;
	struct tally *tl = NULL;
	size_t ntl = 0, nre = 0;
	double t0 = mono_s();

	(void)err;
	nok = validate_reachable(r, o->hosts, o->nhosts, ok, findings, inv);
	nrounds = validate_schedule(nok, mode, &sched, &npairs);
	if (nok < 2)
		validate_finding(findings, VS_FAIL, NULL, NULL,
				 "rdma needs two reachable nodes with compute HCA ports, found %zu", nok);
	jobs = xcalloc(npairs ? npairs : 1, sizeof(*jobs));
	for (size_t i = 0; i < npairs; i++) {
		jobs[i] = (struct pair_job){ .cfg = c, .inv = inv, .tries = o->cfg->tries,
					     .round = sched[3 * i] };
		jobs[i].hosts[0] = ok[sched[3 * i + 1]];
		jobs[i].hosts[1] = ok[sched[3 * i + 2]];
		job_ports(&jobs[i]);
	}
	/* Round by round: all pairs of a round at once, the next round after
	 * (the schedule lists them round by round). */
	for (size_t rd = 0, first = 0; rd < nrounds; rd++) {
		size_t n = 0;
		double rt0 = mono_s();
		json_t *pairs = json_array();

		while (first + n < npairs && jobs[first + n].round == rd)
			n++;
		for (size_t i = first; i < first + n; i++)
			json_array_append_new(pairs, json_pack("[s,s]", hname(inv, jobs[i].hosts[0]),
							       hname(inv, jobs[i].hosts[1])));
		run_jobs(r, jobs + first, n, findings);
		json_array_append_new(rounds, json_pack("{s:i, s:o, s:f}", "round", (json_int_t)rd + 1,
							"pairs", pairs, "wall_s", r2(mono_s() - rt0)));
		first += n;
	}
	for (size_t i = 0; i < npairs; i++) {
		for (size_t k = 0; k < jobs[i].nm; k++) {
			const struct meas *m = &jobs[i].m[k];

			json_array_append_new(results, meas_json(&jobs[i], m));
			for (int e = 0; e < 2; e++) {
				struct tally *t = tally_get(&tl, &ntl, jobs[i].hosts[e], m->hca, m->port);

				t->tests++;
				t->fails += m->st == VS_FAIL;
				t->weak += m->st != VS_PASS;
			}
		}
	}
	/* Attribution, first by the rule "weak against every peer". */
	for (size_t i = 0; i < ntl; i++) {
		const struct tally *t = &tl[i];
		char subj[96];

		snprintf(subj, sizeof(subj), "%s/%u", t->hca, t->port);
		if (condemned(t))
			validate_finding(findings, VS_FAIL, hname(inv, t->host), subj,
					 "below %u%% of the link rate against every peer (%zu of %zu)",
					 c->pass_pct, t->fails, t->tests);
		else if (t->tests >= 2 && t->weak == t->tests)
			validate_finding(findings, VS_WARN, hname(inv, t->host), subj,
					 "below %u%% of the link rate against every peer (%zu of %zu)",
					 c->warn_pct, t->weak, t->tests);
	}
	/* Then a second pass for failed pairs neither of whose ends is condemned. */
	for (size_t i = 0; i < npairs; i++) {
		for (size_t k = 0; k < jobs[i].nm; k++) {
			const struct meas *m = &jobs[i].m[k];
			const struct tally *ta, *tb, *ref;

			if (m->st != VS_FAIL)
				continue;
			ta = tally_get(&tl, &ntl, jobs[i].hosts[0], m->hca, m->port);
			tb = tally_get(&tl, &ntl, jobs[i].hosts[1], m->hca, m->port);
			if (condemned(ta) || condemned(tb))
				continue;
			ref = reference(tl, ntl, jobs[i].hosts[0], jobs[i].hosts[1], m->hca, m->port);
			if (!ref) {
				char subj[96];

				snprintf(subj, sizeof(subj), "%s/%u", m->hca, m->port);
				validate_finding(findings, VS_FAIL, hname(inv, jobs[i].hosts[0]), subj,
						 "pair %s-%s failed (%s) and no node passed to retest "
						 "against: either end may be at fault",
						 hname(inv, jobs[i].hosts[0]), hname(inv, jobs[i].hosts[1]),
						 m->error ? m->error : "below threshold");
				continue;
			}
			for (int e = 0; e < 2; e++) {
				struct pair_job *q;

				re = xrealloc(re, (nre + 1) * sizeof(*re));
				q = &re[nre++];
				*q = (struct pair_job){ .cfg = c, .inv = inv, .tries = o->cfg->tries,
							.round = SIZE_MAX };
				q->hosts[0] = ref->host;
				q->hosts[1] = jobs[i].hosts[e];
				/* only this port */
				q->m = xcalloc(1, sizeof(*q->m));
				q->m[0] = (struct meas){ m->hca, m->port, m->link_gbps, -1, VS_FAIL, NULL,
							 json_array() };
				q->nm = 1;
			}
		}
	}
	if (nre) {
		run_jobs(r, re, nre, findings);
		for (size_t i = 0; i < nre; i++) {
			const struct meas *m = &re[i].m[0];
			char subj[96];

			json_array_append_new(retests, meas_json(&re[i], m));
			snprintf(subj, sizeof(subj), "%s/%u", m->hca, m->port);
			if (m->st == VS_FAIL)
				validate_finding(findings, VS_FAIL, hname(inv, re[i].hosts[1]), subj,
						 "fails again against %s, which passed every test "
						 "(%s)", hname(inv, re[i].hosts[0]),
						 m->error ? m->error : "below threshold");
		}
	}
	add_matrix(stage, inv, ok, nok, jobs, npairs);
	json_object_set_new(stage, "stage", json_string("rdma"));
	json_object_set_new(stage, "pairs_mode", json_string(mode == PAIRS_RING ? "ring" : "all"));
	json_object_set_new(stage, "nodes", json_integer((json_int_t)nok));
	json_object_set_new(stage, "duration_s", json_integer(c->duration_s));
	json_object_set_new(stage, "thresholds", json_pack("{s:i, s:i}", "pass_pct", c->pass_pct,
							   "warn_pct", c->warn_pct));
	json_object_set_new(stage, "round_count", json_integer((json_int_t)nrounds));
	json_object_set_new(stage, "rounds", rounds);
	json_object_set_new(stage, "results", results);
	json_object_set_new(stage, "retests", retests);
	json_object_set_new(stage, "findings", findings);
	json_object_set_new(stage, "status", json_string(vstatus_name(validate_findings_status(findings))));
	json_object_set_new(stage, "wall_s", json_real(r2(mono_s() - t0)));
	json_array_append_new(json_object_get(report, "stages"), stage);
	for (size_t i = 0; i < npairs; i++)
		job_release(&jobs[i]);
	for (size_t i = 0; i < nre; i++)
		job_release(&re[i]);
	free(jobs);
	free(re);
	free(tl);
	free(sched);
	free(ok);
	return 0;
}
