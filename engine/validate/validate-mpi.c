/*
 * The nccl stage across nodes: all_reduce_perf under the real Open MPI
 * launcher, as the Redpaper runs it (2x8, 16x1).
 *
 * mpirun runs on one node, the launcher (the first GPU host), with a
 * hostfile of the inventory's names ("dgx01 slots=8"), one rank a GPU
 * (-g 1), and reaches the other nodes itself over SSH (plm_rsh_agent ssh,
 * BatchMode, the inventory's SSH port): the node-to-node trust that needs is
 * tried first, with precheck's own probe (ssh.peer), and a refused pair
 * stops the runs with a finding that names it. NCCL's environment goes to
 * every rank with -x: NCCL_DEBUG=INFO, and the IB/GDR mode switches.
 *
 * Judged: bus bandwidth at the largest size >= net_pct of the NICs the
 * ranks use on a node (min(GPUs, IB ports) of the node's IB ports; the
 * slowest node's), small-message latency <= max_latency_us, and every
 * node's ranks on NET/IB (with GDRDMA when expected). A failed run is
 * blamed on the nodes whose own NCCL INFO lines show the fault, else on the
 * nodes whose single-node runs failed, else on no node (the launcher
 * carries the finding, saying so).
 */
#include "validate.h"
#include "validate-int.h"
#include "../inventory/inventory.h"
#include "../facts/parse.h"
#include "../ssh/runner.h"
#include "../base/strbuf.h"
#include "../base/template.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run's NCCL_DEBUG reading, with or without a results table; shared by the
 * per-node runs (validate-nccl.c) and mpirun's. Here, below validate-nccl.c,
 * so that the two files do not call each other. */
json_t *validate_nccl_info(const char *out, size_t len)
{
	json_t *j = NULL, *info = NULL;
	struct err e = ERR_INIT;

	if (!parse_nccl_tests(out, len, &j, &e)) {
		info = json_incref(json_object_get(j, "nccl_info"));
		json_decref(j);
	} else {
		err_clear(&e);
		if (parse_nccl_debug(out, len, &info, &e))
			info = NULL;
	}
	err_clear(&e);
	return info;
}

/* all_reduce_perf's arguments, the same for the per-node runs (validate-nccl.c)
 * and mpirun's ranks. */
void validate_nccl_args(struct strbuf *sb, const struct validate_nccl_cfg *c, unsigned gpus)
{
	strbuf_addstr(sb, c->command);
	strbuf_addstr(sb, " -b ");
	strbuf_addshquoted(sb, c->min_bytes);
	strbuf_addstr(sb, " -e ");
	strbuf_addshquoted(sb, c->max_bytes);
	strbuf_addf(sb, " -f 2 -g %u", gpus);
}


void validate_mpi_variant_name(const struct mpi_variant *v, char (*out)[32])
{
	char a[12], b[12];

	snprintf(a, sizeof(a), "%u", v->nodes);
	snprintf(b, sizeof(b), "%u", v->gpus);
	snprintf(*out, sizeof(*out), "%sx%s", v->nodes ? a : "N", v->gpus ? b : "G");
}

void validate_mpi_hostfile(struct strbuf *out, const char *const *names, size_t n, unsigned slots)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s slots=%u\n", names[i], slots);
}

/*
 * One shell line for the launcher, in two halves around the program and
 * its options: the hostfile in a temporary file, mpirun reaching the nodes
 * over SSH (BatchMode: a prompt would hang it), the file removed. Open MPI
 * refuses to run as root unless told (a root login is common on these
 * clusters): the caller puts "$rootx", set here, among mpirun's options to
 * forward that consent to every rank.
 */
void validate_mpi_begin(struct strbuf *out, const char *mpirun_command, const char *hostfile,
			size_t np, unsigned ssh_port)
{
	struct strbuf rsh = STRBUF_INIT;

	strbuf_addstr(&rsh, "-o BatchMode=yes");
	if (ssh_port && ssh_port != 22)
		strbuf_addf(&rsh, " -p %u", ssh_port);
	strbuf_addstr(out, "rootx=; [ \"$(id -u)\" = 0 ] && { export OMPI_ALLOW_RUN_AS_ROOT=1 "
			   "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; rootx='-x OMPI_ALLOW_RUN_AS_ROOT "
			   "-x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM'; }; "
			   "hf=$(mktemp \"${TMPDIR:-/tmp}/bringup-hostfile.XXXXXX\") || exit 1; printf %s ");
	strbuf_addshquoted(out, hostfile);
	strbuf_addstr(out, " >\"$hf\"; ");
	strbuf_addstr(out, mpirun_command);
	strbuf_addf(out, " --hostfile \"$hf\" -np %zu --mca plm_rsh_agent ssh --mca plm_rsh_args ", np);
	strbuf_addshquoted(out, rsh.buf);
	strbuf_release(&rsh);
}

void validate_mpi_end(struct strbuf *out)
{
	strbuf_addstr(out, " 2>&1; rc=$?; rm -f \"$hf\"; exit $rc");
}

void validate_mpi_command(struct strbuf *out, const struct validate_nccl_cfg *c,
			  const char *hostfile, size_t np, unsigned ssh_port)
{
	validate_mpi_begin(out, c->mpirun_command, hostfile, np, ssh_port);
	strbuf_addstr(out, " -x NCCL_DEBUG=INFO");
	if (!c->expect_ib)
		strbuf_addstr(out, " -x NCCL_IB_DISABLE=1");
	else if (!c->expect_gdr)
		strbuf_addstr(out, " -x NCCL_NET_GDR_LEVEL=0");
	strbuf_addstr(out, " $rootx ");
	validate_nccl_args(out, c, 1);
	validate_mpi_end(out);
}

/* Gb/s of the IB ports `gpus` ranks of a node use: min(gpus, ports) of them. */
double validate_mpi_nic_gbps(const struct host *h, unsigned gpus)
{
	double sum = 0;
	unsigned used = 0;

	for (size_t i = 0; i < h->nhcas && used < gpus; i++)
		if (h->hcas[i].link_layer == LINK_IB) {
			sum += h->hcas[i].rate_gbps;
			used++;
		}
	return sum;
}

/*
 * What the run's NCCL INFO lines say against a host: sockets where IB was
 * expected, network channels without GDRDMA where it was. Caller frees;
 * NULL when nothing.
 */
char *validate_mpi_host_fault(const json_t *hinfo, bool expect_ib, bool expect_gdr)
{
	const char *net = json_string_value(json_object_get(hinfo, "network")), *k;
	json_t *v;
	size_t nnet = 0, gdr = 0;

	if (expect_ib && net && strcmp(net, "IB"))
		return xasprintf("NCCL used NET/%s, not NET/IB (libibverbs or the IB devices "
				 "not found)", net);
	json_object_foreach((json_t *)json_object_get(hinfo, "transports"), k, v) {
		if (!strncmp(k, "NET/", 4))
			nnet += (size_t)json_integer_value(v);
		if (strstr(k, "/GDRDMA"))
			gdr += (size_t)json_integer_value(v);
	}
	if (expect_ib && expect_gdr && nnet && gdr < nnet)
		return xasprintf("%zu of %zu network channels of its ranks without GDRDMA "
				 "(GPUDirect RDMA off: peer memory module?)", nnet - gdr, nnet);
	return NULL;
}

struct mpi_job {
	const struct validate_cfg *cfg;
	const struct inventory *inv;
	const size_t *hosts;          /* inventory indexes, launcher first */
	size_t n;
	struct mpi_variant v[VALIDATE_MAX_VARIANTS];
	int nv;
	json_t *results;              /* one object a variant; the stage's */
	char *peer_error;             /* set when node-to-node SSH is refused */
};

char *validate_mpi_peer_probe(struct task_ctx *t, const struct inventory *inv,
			      const size_t *hosts, size_t n)
{
	const struct host *l = &inv->hosts[hosts[0]];
	struct strbuf line = STRBUF_INIT, why = STRBUF_INIT;
	struct remote_cmd cmd = { .timeout_ms = 60000, .max_output = 1u << 20 };
	struct cmd_result res;
	struct err e = ERR_INIT;
	json_t *peers = NULL, *p;
	size_t k;

	strbuf_addstr(&line, template_get("precheck/ssh-peer.sh", NULL));
	strbuf_addstr(&line, "\nssh_peer");
	for (size_t i = 1; i < n; i++) {
		const struct host *h = &inv->hosts[hosts[i]];

		strbuf_addch(&line, ' ');
		strbuf_addshquoted(&line, h->name);
		strbuf_addf(&line, ":%u", h->ssh.port);
	}
	cmd.command = line.buf;
	cmd_result_init(&res);
	if (task_exec(t, 0, &cmd, &res, &e))
		strbuf_addf(&why, "cannot run the probe on %s: %s", l->name, err_msg(&e));
	else if (res.outcome != CMD_EXITED)
		strbuf_addf(&why, "the probe on %s did not finish", l->name);
	else if (parse_ssh_peer(res.out.buf ? res.out.buf : "", res.out.len, &peers, &e))
		strbuf_addf(&why, "unreadable probe answer from %s: %s", l->name, err_msg(&e));
	/* Refusals stop mpirun for sure; a peer slow to answer may still take it. */
	json_array_foreach(json_object_get(peers, "peers"), k, p)
		if (!json_is_true(json_object_get(p, "ok")) &&
		    json_integer_value(json_object_get(p, "rc")) != 124 &&
		    !strstr(json_string_value(json_object_get(p, "error")), "timed out"))
			strbuf_addf(&why, "%s%s -> %s refused: %s", why.len ? "; " : "", l->name,
				    json_string_value(json_object_get(p, "host")),
				    json_string_value(json_object_get(p, "error")));
	json_decref(peers);
	err_clear(&e);
	cmd_result_release(&res);
	strbuf_release(&line);
	if (!why.len) {
		strbuf_release(&why);
		return NULL;
	}
	return strbuf_detach(&why, NULL);
}

/* Bus bandwidth and latency from one run; NULL or the reason it has none. */
static char *read_result(const char *out, size_t len, json_t **ret_parsed, double *ret_busbw,
			 double *ret_lat)
{
	struct err e = ERR_INIT;
	json_t *rows, *last;
	char *why;

	*ret_busbw = *ret_lat = -1;
	*ret_parsed = NULL;
	if (parse_nccl_tests(out, len, ret_parsed, &e)) {
		/* mpirun's own complaint is its last line: show it. */
		const char *end = out + len, *p;
		json_t *dbg = validate_nccl_info(out, len);

		/* no table, but the ranks' NCCL_DEBUG lines still say which
		 * node went over sockets or without GDRDMA */
		if (dbg)
			*ret_parsed = json_pack("{s:o}", "nccl_info", dbg);

		while (end > out && (end[-1] == '\n' || end[-1] == '\r'))
			end--;
		for (p = end; p > out && p[-1] != '\n'; p--)
			;
		why = xasprintf("%s%s%.*s", err_msg(&e), p < end ? "; output ends: " : "",
				(int)(end - p > 300 ? 300 : end - p), p);
		err_clear(&e);
		return why;
	}
	rows = json_object_get(*ret_parsed, "rows");
	last = json_array_get(rows, json_array_size(rows) - 1);
	if (!last)
		return xstrdup("no result rows");
	*ret_busbw = json_number_value(json_object_get(json_object_get(last, "out_of_place"), "busbw"));
	*ret_lat = json_number_value(json_object_get(json_object_get(json_array_get(rows, 0),
								     "out_of_place"), "time_us"));
	return NULL;
}

static void run_variant(struct task_ctx *t, struct mpi_job *j, const struct mpi_variant *v)
{
	const struct validate_nccl_cfg *c = &j->cfg->nccl;
	json_t *res = json_object(), *tries = json_array(), *names = json_array();
	size_t nodes = v->nodes ? v->nodes : j->n;
	unsigned gpus = v->gpus;
	char vname[32];
	const char **nm;
	double min_busbw = -1;

	validate_mpi_variant_name(v, &vname);
	json_object_set_new(res, "variant", json_string(vname));
	json_object_set_new(res, "launcher", json_string(j->inv->hosts[j->hosts[0]].name));
	json_array_append_new(j->results, res);
	if (nodes > j->n) {
		json_object_set_new(res, "status", json_string("skipped"));
		json_object_set_new(res, "why", json_string("fewer GPU nodes answered than the variant needs"));
		json_decref(tries);
		json_decref(names);
		return;
	}
	nm = xcalloc(nodes, sizeof(*nm));
	for (size_t i = 0; i < nodes; i++) {
		const struct host *h = &j->inv->hosts[j->hosts[i]];

		if (!v->gpus && (!gpus || h->gpus.count < gpus))
			gpus = h->gpus.count;
		nm[i] = h->name;
		json_array_append_new(names, json_string(h->name));
	}
	for (size_t i = 0; i < nodes; i++) {
		const struct host *h = &j->inv->hosts[j->hosts[i]];
		double m = (double)c->net_pct / 100.0 * validate_mpi_nic_gbps(h, gpus) / 8.0;

		if (h->gpus.count < gpus)
			gpus = 0;
		if (min_busbw < 0 || m < min_busbw)
			min_busbw = m;
	}
	json_object_set_new(res, "nodes", names);
	if (!gpus) {
		json_object_set_new(res, "status", json_string("skipped"));
		json_object_set_new(res, "why", json_string("a node has fewer GPUs than the variant needs"));
		json_decref(tries);
		free(nm);
		return;
	}
	json_object_set_new(res, "gpus_per_node", json_integer(gpus));
	json_object_set_new(res, "ranks", json_integer((json_int_t)(nodes * gpus)));
	json_object_set_new(res, "min_busbw_gbps", json_real(min_busbw));
	json_object_set_new(res, "tries", tries);
	for (unsigned attempt = 1; attempt <= j->cfg->tries; attempt++) {
		struct strbuf hf = STRBUF_INIT, line = STRBUF_INIT, why = STRBUF_INIT;
		struct remote_cmd cmd = { .timeout_ms = c->timeout_s * 1000u, .max_output = 8u << 20 };
		struct cmd_result cr;
		struct err e = ERR_INIT;
		json_t *parsed = NULL, *hinfo, *blame = json_object(), *hv;
		double busbw = -1, lat = -1;
		char *error = NULL;
		const char *hn;
		bool fail;

		validate_mpi_hostfile(&hf, nm, nodes, gpus);
		validate_mpi_command(&line, c, hf.buf, nodes * gpus,
				     j->inv->hosts[j->hosts[0]].ssh.port);
		cmd.command = line.buf;
		cmd_result_init(&cr);
		if (task_exec(t, 0, &cmd, &cr, &e))
			error = xstrdup(err_msg(&e));
		else if (cr.outcome == CMD_TIMED_OUT) {
			json_t *dbg = validate_nccl_info(cr.out.buf ? cr.out.buf : "", cr.out.len);

			error = xasprintf("timed out after %u s (mpirun killed)", c->timeout_s);
			/* a hung run's NCCL_DEBUG lines may still name the node */
			if (dbg)
				parsed = json_pack("{s:o}", "nccl_info", dbg);
		} else if (cr.outcome == CMD_EXITED && cr.exit_status == 127)
			error = xasprintf("%s not found on %s (install Open MPI: openmpi-bin)",
					  c->mpirun_command, j->inv->hosts[j->hosts[0]].name);
		else
			error = read_result(cr.out.buf ? cr.out.buf : "", cr.out.len, &parsed,
					    &busbw, &lat);
		if (error)
			strbuf_addstr(&why, error);
		if (busbw >= 0 && busbw < min_busbw)
			strbuf_addf(&why, "%sbus bandwidth %.1f GB/s below %.1f (%u%% of the NICs' "
				    "aggregate)", why.len ? "; " : "", busbw, min_busbw, c->net_pct);
		if (lat > c->max_latency_us)
			strbuf_addf(&why, "%ssmall-message latency %.0f us above %u (thousands: the "
				    "traffic went over Ethernet)", why.len ? "; " : "", lat,
				    c->max_latency_us);
		hinfo = json_object_get(json_object_get(parsed, "nccl_info"), "hosts");
		json_object_foreach(hinfo, hn, hv) {
			char *f = validate_mpi_host_fault(hv, c->expect_ib, c->expect_gdr);

			if (f)
				json_object_set_new(blame, hn, json_string(f));
			free(f);
		}
		fail = why.len || json_object_size(blame);
		{
			json_t *try = json_pack("{s:i, s:o, s:o, s:s}", "try", (json_int_t)attempt,
				"busbw_gbps", busbw < 0 ? json_null() : json_real(busbw),
				"latency_us", lat < 0 ? json_null() : json_real(lat),
				"status", fail ? "fail" : "pass");

			if (why.len)
				json_object_set_new(try, "error", json_string(why.buf));
			if (json_object_size(blame))
				json_object_set(try, "nodes_at_fault", blame);
			json_array_append_new(tries, try);
		}
		json_object_set_new(res, "busbw_gbps", busbw < 0 ? json_null() : json_real(busbw));
		json_object_set_new(res, "latency_us", lat < 0 ? json_null() : json_real(lat));
		json_object_set_new(res, "status", json_string(fail ? "fail" : "pass"));
		json_object_set_new(res, "why", why.len ? json_string(why.buf) : json_null());
		json_object_set_new(res, "nodes_at_fault", blame);
		json_object_set(res, "hosts", hinfo ? hinfo : json_null());
		{
			json_t *curve = json_array(), *row;
			size_t i;

			json_array_foreach(json_object_get(parsed, "rows"), i, row)
				json_array_append_new(curve, json_pack("[O,O]", json_object_get(row, "size"),
					json_object_get(json_object_get(row, "out_of_place"), "busbw")));
			json_object_set_new(res, "curve", curve);
		}
		json_decref(parsed);
		free(error);
		err_clear(&e);
		cmd_result_release(&cr);
		strbuf_release(&hf);
		strbuf_release(&line);
		strbuf_release(&why);
		if (!fail)
			break;
	}
	free(nm);
}

static int launcher_task(struct task_ctx *t, void *arg)
{
	struct mpi_job *j = arg;

	j->peer_error = validate_mpi_peer_probe(t, j->inv, j->hosts, j->n);
	if (j->peer_error)
		return 0;
	for (int k = 0; k < j->nv; k++)
		run_variant(t, j, &j->v[k]);
	return 0;
}

static bool in_list(const char *const *l, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}

/* One finding a failed variant: on the nodes at fault, or on the launcher. */
static void blame(json_t *findings, const json_t *res, const char *const *suspects,
		  size_t nsuspects)
{
	const char *variant = json_string_value(json_object_get(res, "variant"));
	const char *why = json_string_value(json_object_get(res, "why"));
	json_t *at = json_object_get(res, "nodes_at_fault"), *v, *n;
	const char *h;
	char *subject = xasprintf("mpirun %s", variant);
	json_int_t ranks = json_integer_value(json_object_get(res, "ranks"));
	size_t k, hit = 0;

	json_object_foreach(at, h, v) {
		validate_finding(findings, VS_FAIL, h, subject, "all_reduce_perf across nodes (%s, "
				 "%lld ranks): %s%sthis node's ranks: %s", variant, (long long)ranks,
				 why ? why : "", why ? "; " : "", json_string_value(v));
		hit++;
	}
	if (hit)
		goto out;
	json_array_foreach(json_object_get(res, "nodes"), k, n)
		if (in_list(suspects, nsuspects, json_string_value(n))) {
			validate_finding(findings, VS_FAIL, json_string_value(n), subject,
					 "all_reduce_perf across nodes (%s, %lld ranks): %s; this "
					 "node also failed its single-node runs", variant,
					 (long long)ranks, why ? why : "failed");
			hit++;
		}
	if (!hit)
		validate_finding(findings, VS_FAIL, json_string_value(json_object_get(res, "launcher")),
				 subject, "all_reduce_perf across nodes (%s, %lld ranks): %s; no single "
				 "node to blame (every node passed alone): the fabric between them?",
				 variant, (long long)ranks, why ? why : "failed");
out:
	free(subject);
}

void validate_nccl_mpi(struct runner *r, const struct inventory *inv,
		       const struct validate_cfg *cfg, const size_t *hosts, size_t n,
		       const char *const *suspects, size_t nsuspects, json_t *stage,
		       json_t *findings)
{
	struct mpi_job j = { .cfg = cfg, .inv = inv, .hosts = hosts, .n = n,
			     .results = json_array() };
	struct task task = { .hosts = hosts, .nhosts = 1, .fn = launcher_task, .arg = &j };
	char why[128];
	json_t *res;
	size_t k;

	json_object_set_new(stage, "multi_node", j.results);
	if (n < 2)
		return;
	j.nv = validate_mpi_variants_parse(cfg->nccl.variants, j.v, &why);
	if (j.nv < 0)
		return; /* the config reader refused it already */
	runner_run(r, &task, 1, NULL, NULL);
	if (task.rc) {
		validate_finding(findings, VS_FAIL, inv->hosts[hosts[0]].name, "mpirun",
				 "cannot run mpirun across nodes: %s", err_msg(&task.err));
	} else if (j.peer_error) {
		validate_finding(findings, VS_FAIL, inv->hosts[hosts[0]].name, "mpirun",
				 "cannot run mpirun across nodes: node-to-node SSH: %s (precheck "
				 "ssh.peer; mpirun starts its ranks over SSH without a prompt)",
				 j.peer_error);
		json_object_set_new(stage, "multi_node_error", json_string(j.peer_error));
	}
	json_array_foreach(j.results, k, res)
		if (!strcmp(json_string_value(json_object_get(res, "status")), "fail"))
			blame(findings, res, suspects, nsuspects);
	free(j.peer_error);
	task_release(&task);
}
