/*
 * bringup precheck: is the cluster ready for bring-up, and if not, what
 * and where. One round trip per host (facts), then every check, then one
 * report in the format asked for. The CI gate: exit 0 all pass, 1 a check
 * failed, 2 usage or inventory error, 3 hosts unreachable.
 */
#include "cmd.h"
#include "../engine/check.h"
#include "../engine/facts.h"
#include "../engine/inventory.h"
#include "../engine/nodeset.h"
#include "../engine/report.h"
#include "../engine/runner.h"
#include "../engine/ssh.h"
#include "../engine/strlist.h"
#include "../engine/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct runner *active_runner;

static void on_sigint(int sig)
{
	(void)sig;
	if (active_runner)
		runner_cancel(active_runner);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup precheck -i INVENTORY [options]\n"
		"\n"
		"Gathers facts from every host in one round trip and checks that the cluster\n"
		"is ready for bring-up: SSH, OS and kernel, HCAs and ports, OFED, peer memory,\n"
		"memlock, SELinux, GPUs (count, model, row remapping, XIDs, power brake), PCIe\n"
		"links, GPUDirect RDMA, Spectrum Scale, clocks, the subnet manager.\n"
		"\n"
		"  -i, --inventory FILE       inventory (YAML)\n"
		"  -l, --limit HOSTS          node sets and/or group names, comma-separated\n"
		"      --checks LIST          only these checks (ids or globs: 'ib.*,gpu.count')\n"
		"      --skip-checks LIST     all but these\n"
		"      --list-checks          print every check id with its severity and title\n"
		"      --print-probe          print the script precheck runs on every host (sh -s)\n"
		"  -o, --output-format FMT    text (default), json, junit, prom\n"
		"      --output FILE          write the report to FILE instead of stdout\n"
		"      --facts FILE           also write the gathered facts as JSON\n"
		"  -f, --forks N              hosts worked on at once (default %d)\n"
		"  -t, --timeout S            time limit for one host's facts (default 60)\n"
		"      --accept-new-host-keys record unknown host keys (changed keys are refused)\n"
		"\n"
		"Severities can be changed per check in the inventory:\n"
		"  vars: { precheck_severity: { gpu.throttle: warn } }\n"
		"Colour when stdout is a terminal, never with NO_COLOR set.\n"
		"\n"
		"Exit status: 0 every check passed (warnings allowed); 1 a check failed;\n"
		"2 usage or inventory error; 3 a host was unreachable.\n",
		RUNNER_DEFAULT_FORKS);
}

static void split_list(const char *s, struct strlist *out)
{
	char *copy = xstrdup(s), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (*t)
			strlist_push(out, t);
	free(copy);
}

static void list_checks(void)
{
	for (size_t i = 0; i < check_ndefs; i++)
		printf("%-18s %-4s %s\n", check_defs[i].id,
		       check_defs[i].severity == SEV_FAIL ? "fail" : "warn", check_defs[i].title);
}

static int write_out(const char *path, const char *buf, size_t len)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f) {
		perror(path);
		return -1;
	}
	fwrite(buf, 1, len, f);
	if (path && fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Managed switches speak a CLI, not a shell: the probe cannot run there.
 * Their SM shows in every node's sminfo, and deploy's subnet_manager stage
 * reads their configuration. Returns how many of idx[0..n) remain.
 */
static size_t drop_switches(const struct inventory *inv, size_t *idx, size_t n)
{
	struct strlist names = STRLIST_INIT;
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		if (host_has_role(&inv->hosts[idx[i]], ROLE_IB_SWITCH))
			strlist_push(&names, inv->hosts[idx[i]].name);
		else
			idx[kept++] = idx[i];
	}
	if (names.n) {
		char *set = nodeset_fold(names.v, names.n);

		fprintf(stderr, "bringup precheck: not probed: %s (ib_switch: a switch CLI, not a "
			"shell; deploy's subnet_manager stage reads it)\n", set);
		free(set);
	}
	strlist_clear(&names);
	return kept;
}

int cmd_precheck(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "checks", required_argument, NULL, 'c' },
		{ "skip-checks", required_argument, NULL, 's' },
		{ "list-checks", no_argument, NULL, 'L' },
		{ "print-probe", no_argument, NULL, 'P' },
		{ "output-format", required_argument, NULL, 'o' },
		{ "output", required_argument, NULL, 'O' },
		{ "facts", required_argument, NULL, 'F' },
		{ "forks", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 't' },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inv_path = NULL, *limit = NULL, *format = "text", *out_path = NULL;
	const char *facts_path = NULL;
	struct runner_opts ro = { .command_timeout_s = 60 };
	struct check_opts co = { STRLIST_INIT, STRLIST_INIT };
	struct inventory *inv = NULL;
	struct runner *runner = NULL;
	struct facts *facts = NULL;
	struct check_report *rep = NULL;
	struct err err = ERR_INIT;
	struct strbuf out = STRBUF_INIT;
	struct report_counts counts;
	size_t *idx = NULL, n = 0;
	double t0 = wall_now();
	int c, status = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:l:o:f:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'l': limit = optarg; break;
		case 'c': split_list(optarg, &co.only); break;
		case 's': split_list(optarg, &co.skip); break;
		case 'L': list_checks(); status = EXIT_OK; goto out;
		case 'P': facts_script(&out); fputs(out.buf, stdout); goto out;
		case 'o': format = optarg; break;
		case 'O': out_path = optarg; break;
		case 'F': facts_path = optarg; break;
		case 'f':
		case 't':
			if (cmd_parse_uint("precheck", c == 'f' ? "--forks" : "--timeout", optarg,
					   c == 'f' ? &ro.forks : &ro.command_timeout_s)) {
				status = EXIT_USAGE;
				goto out;
			}
			break;
		case 'A': ro.accept_new_host_keys = true; break;
		case 'h': usage(stdout); goto out;
		default: usage(stderr); status = EXIT_USAGE; goto out;
		}
	}
	if (!inv_path || optind != argc ||
	    (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "junit") &&
	     strcmp(format, "prom"))) {
		usage(stderr);
		status = EXIT_USAGE;
		goto out;
	}
	if (inventory_load(inv_path, &inv, &err) ||
	    inventory_select(inv, limit, &idx, &n, &err) ||
	    runner_new(inv, &ro, &runner, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	n = drop_switches(inv, idx, n);
	active_runner = runner;
	signal(SIGINT, on_sigint);
	facts_gather_once(runner, inv, idx, n, &facts, &err);
	signal(SIGINT, SIG_DFL);
	active_runner = NULL;
	if (checks_run(inv, facts, &co, &rep, &err)) {
		status = cmd_fail(&err);
		goto out;
	}

	if (!strcmp(format, "json")) {
		report_json(rep, &out);
	} else if (!strcmp(format, "junit")) {
		report_junit(rep, wall_now() - t0, &out);
	} else if (!strcmp(format, "prom")) {
		report_prom(rep, wall_now(), &out);
	} else {
		bool colour = !out_path && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
		report_text(rep, colour, &out);
	}
	if (write_out(out_path, out.buf, out.len)) {
		status = EXIT_FAILED;
		goto out;
	}
	if (facts_path) {
		json_t *j = facts_to_json(facts);
		if (json_dump_file(j, facts_path, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			fprintf(stderr, "bringup precheck: cannot write %s\n", facts_path);
		json_decref(j);
	}
	report_count(rep, &counts);
	if (counts.unreachable)
		status = EXIT_UNREACHABLE;
	else if (counts.fail)
		status = EXIT_FAILED;
out:
	check_report_free(rep);
	facts_free(facts);
	runner_free(runner);
	inventory_free(inv);
	free(idx);
	strlist_clear(&co.only);
	strlist_clear(&co.skip);
	strbuf_release(&out);
	err_clear(&err);
	return status;
}
