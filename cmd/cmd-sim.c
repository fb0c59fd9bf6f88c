/*
 * bringup sim: the simulated cluster's front end (up, down, status, fault).
 * Everything it does lives in sim/; this file parses argv, prints and picks
 * the exit status.
 */
#include "cmd.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/strlist.h"
#include "../sim/sim.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The options of `sim up`, the only action that takes any. */
const struct cmd_option cmd_sim_options[] = {
	{ "nodes", 'n', OPT_SHORT, "N", "node count (default " CMD_STR(SIM_DEFAULT_NODES) ", at most " CMD_STR(SIM_MAX_NODES) ")" },
	{ "profile", 'P', 0, "P", "hardware profile (default " SIM_DEFAULT_PROFILE ", see below)" },
	{ "state", 's', 0, "bare|ready", "bare (OS only) or ready (as after a bring-up; default)" },
	{ "port", 'p', 0, "PORT", "first port to try (default " CMD_STR(SIM_DEFAULT_PORT) "; the next free one is used)" },
	{ "switch", 'S', 0, NULL, "add a managed InfiniBand switch that speaks the MLNX-OS CLI" },
	{ "leaf-ports", 'L', 0, "N", "a two-level fabric: leaves of N host ports (1-" CMD_STR(SIM_MAX_LEAF_PORTS) "), 2 spines" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void print_help(void)
{
	printf("usage: bringup sim up [-n N] [--profile P] [--state bare|ready] [--port PORT]\n"
	       "                      [--switch] [--leaf-ports N]\n"
	       "       bringup sim down\n"
	       "       bringup sim status\n"
	       "       bringup sim fault NODE KIND [ARG]\n"
	       "\n"
	       "A simulated cluster: one real sshd per node on its own loopback address\n"
	       "(127.0.1.1, 127.0.1.2, ...); every command runs in the node's own mount and\n"
	       "UTS namespaces, so nodes never change this machine. Directory:\n"
	       "$BRINGUP_SIM_DIR, default ~/.local/state/bringup/sim.\n"
	       "\n"
	       "up options:\n");
	cmd_print_options(stdout, cmd_sim_options);
	printf("\nprofiles (default %s):\n", SIM_DEFAULT_PROFILE);
	for (unsigned i = 0; i < sim_nprofiles; i++)
		printf("  %-13s %s\n", sim_profiles[i].name, sim_profiles[i].summary);
	printf("\n"
	       "--switch adds %s, which runs the fabric's SM (groups ib_switch and sm_host,\n"
	       "sm_backend: switch).\n"
	       "\n"
	       "The fabric (iblinkinfo, ibnetdiscover) is one leaf switch while the nodes' IB\n"
	       "ports fit on its 36, then leaves of 18 host ports; --leaf-ports N asks for\n"
	       "leaves of N host ports at any size. Above the leaves, 2 spines, each leaf\n"
	       "cabled to both with N/2 cables (at least one). Its faults: isl-degraded\n"
	       "SWITCH/PORT (that cable at 1X), port-moved HCA:LEAF (the node's HCA cabled\n"
	       "to another leaf), other-fabric [HCA] (cabled to another fabric: Active, but\n"
	       "not discovered; default every IB port of the node).\n"
	       "\n"
	       "fault KIND: unreachable, clear, or one of `sim-fault --list` (hang, slow\n"
	       "[SECONDS], port-down, driver-drift [VER], ...); see sim/README.md.\n"
	       "\n"
	       "status exits 0 while the cluster runs, 1 when it does not.\n",
	       SIM_SWITCH_NAME);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_uint(const char *s, unsigned max, unsigned *ret)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > max)
		return -1;
	*ret = (unsigned)v;
	return 0;
}

static int sim_up_cmd(const struct cmd_ctx *ctx, const char *dir, int argc, char **argv)
{
	struct cmd_getopt g;
	const struct sim_profile *prof = sim_profile_find(SIM_DEFAULT_PROFILE);
	unsigned n = SIM_DEFAULT_NODES, port = SIM_DEFAULT_PORT;
	int st = SIM_STATE_READY, c;
	bool with_switch = false;
	unsigned leaf_ports = 0;
	struct err err = ERR_INIT;
	struct strbuf set = STRBUF_INIT;
	struct sim *s;
	double t0 = now_s();

	cmd_getopt_init(&g, cmd_sim_options, false);
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'n':
			if (parse_uint(optarg, SIM_MAX_NODES, &n) || !n) {
				fprintf(stderr, "bringup: sim up: -n wants 1-%d\n", SIM_MAX_NODES);
				return EXIT_USAGE;
			}
			break;
		case 'P':
			prof = sim_profile_find(optarg);
			if (!prof) {
				fprintf(stderr, "bringup: sim up: unknown profile '%s' (profiles:",
					optarg);
				for (unsigned i = 0; i < sim_nprofiles; i++)
					fprintf(stderr, " %s", sim_profiles[i].name);
				fprintf(stderr, ")\n");
				return EXIT_USAGE;
			}
			break;
		case 's':
			st = sim_state_from_name(optarg);
			if (st < 0) {
				fprintf(stderr, "bringup: sim up: --state is bare or ready\n");
				return EXIT_USAGE;
			}
			break;
		case 'p':
			if (parse_uint(optarg, 65535, &port) || !port) {
				fprintf(stderr, "bringup: sim up: bad --port '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'S':
			with_switch = true;
			break;
		case 'L':
			if (parse_uint(optarg, SIM_MAX_LEAF_PORTS, &leaf_ports) || !leaf_ports) {
				fprintf(stderr, "bringup: sim up: --leaf-ports wants 1-%d\n",
					SIM_MAX_LEAF_PORTS);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			print_help();
			return EXIT_OK;
		default:
			return cmd_usage(ctx);
		}
	}
	if (optind != argc)
		return cmd_usage(ctx);
	s = sim_new(dir, prof, (enum sim_state)st, n, port, &err);
	if (s && with_switch)
		sim_add_switch(s);
	if (s)
		s->leaf_ports = leaf_ports;
	if (!s || sim_up(s, &err)) {
		int rc = cmd_fail(&err);

		err_clear(&err);
		sim_free(s);
		return rc;
	}
	sim_add_nodeset(&set, s, 0, s->n - 1);
	printf("sim: %u nodes %s (%s, %s) on %s-%s port %u, up in %.1fs\n", s->n, set.buf,
	       s->profile->name, sim_state_name(s->state), s->nodes[0].addr,
	       s->nodes[s->n - 1].addr, s->port, now_s() - t0);
	if (s->with_switch)
		printf("switch: %s on %s (MLNX-OS CLI over SSH)\n", s->nodes[s->n].name,
		       s->nodes[s->n].addr);
	printf("ssh: ssh -i %s/id_ed25519 -o UserKnownHostsFile=%s/known_hosts -p %u %s@%s\n",
	       s->dir, s->dir, s->port, s->user, s->nodes[0].addr);
	printf("inventory: %s/inventory.yaml\n", s->dir);
	strbuf_release(&set);
	sim_free(s);
	return EXIT_OK;
}

static int sim_down_cmd(const char *dir)
{
	struct err err = ERR_INIT;
	unsigned stopped = 0;

	if (sim_down(dir, &stopped, &err)) {
		int rc = cmd_fail(&err);

		err_clear(&err);
		return rc;
	}
	printf("sim: stopped %u process%s in %s\n", stopped, stopped == 1 ? "" : "es", dir);
	return EXIT_OK;
}

static int sim_status_cmd(const char *dir)
{
	struct err err = ERR_INIT;
	struct sim *s;
	unsigned up = 0, faulty = 0;

	if (sim_load(dir, &s, &err)) {
		if (err.code == ERR_NOTFOUND)
			printf("sim: no cluster in %s\n", dir);
		else
			cmd_fail(&err);
		err_clear(&err);
		return EXIT_FAILED;
	}
	for (unsigned i = 0; i < sim_nnodes(s); i++) {
		struct strlist faults = STRLIST_INIT;
		struct strbuf sb = STRBUF_INIT;
		pid_t pid = sim_node_sshd_pid(s, i);

		sim_node_faults(s, i, &faults);
		for (size_t k = 0; k < faults.n; k++)
			strbuf_addf(&sb, "%s%s", k ? "," : "", faults.v[k]);
		printf("%-8s %s:%u  sshd %-4s faults: %s\n", s->nodes[i].name, s->nodes[i].addr,
		       s->port, pid ? "up" : "down", faults.n ? sb.buf : "-");
		up += pid != 0;
		faulty += faults.n != 0;
		strlist_clear(&faults);
		strbuf_release(&sb);
	}
	bool running = sim_running(dir);

	printf("sim: %s, %u nodes (%s, %s), %u sshd up, %u with faults, port %u, dir %s\n",
	       running ? "running" : "stopped", s->n, s->profile->name,
	       sim_state_name(s->state), up, faulty, s->port, dir);
	sim_free(s);
	return running ? EXIT_OK : EXIT_FAILED;
}

static int sim_fault_cmd(const struct cmd_ctx *ctx, const char *dir, int argc, char **argv)
{
	struct err err = ERR_INIT;
	struct sim *s;
	int rc = EXIT_OK;

	if (argc < 3 || argc > 4)
		return cmd_usage(ctx);
	if (sim_load(dir, &s, &err) ||
	    sim_fault(s, argv[1], argv[2], argc == 4 ? argv[3] : NULL, &err))
		rc = cmd_fail(&err);
	else
		printf("sim: %s: %s%s%s\n", argv[1], argv[2], argc == 4 ? " " : "",
		       argc == 4 ? argv[3] : "");
	err_clear(&err);
	sim_free(s);
	return rc;
}

int cmd_sim(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct err err = ERR_INIT;
	char *dir;
	int rc;

	if (argc < 2) {
		cmd_usage(ctx);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_help();
		return EXIT_OK;
	}
	dir = sim_default_dir(&err);
	if (!dir) {
		rc = cmd_fail(&err);
		err_clear(&err);
		return rc;
	}
	if (!strcmp(argv[1], "up"))
		rc = sim_up_cmd(ctx, dir, argc - 1, argv + 1);
	else if (!strcmp(argv[1], "down") && argc == 2)
		rc = sim_down_cmd(dir);
	else if (!strcmp(argv[1], "status") && argc == 2)
		rc = sim_status_cmd(dir);
	else if (!strcmp(argv[1], "fault"))
		rc = sim_fault_cmd(ctx, dir, argc - 1, argv + 1);
	else
		rc = cmd_usage(ctx);
	free(dir);
	return rc;
}
