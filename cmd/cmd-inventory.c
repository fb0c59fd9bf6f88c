/*
 * bringup inventory show|check: validates an inventory and prints what it
 * resolves to, as text a person reads or as JSON (inventory_to_json).
 */
#include "cmd.h"
#include "../engine/inventory/inventory.h"
#include "../engine/base/nodeset.h"
#include "../engine/base/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: bringup inventory show -i INVENTORY [--host H] [-o text|json]\n"
	"       bringup inventory check -i INVENTORY\n"
	"\n"
	"  show     print the resolved inventory: cluster, ssh defaults, groups\n"
	"           as node sets, then every host with its address, ssh target,\n"
	"           roles, expected HCAs and GPUs and merged variables\n"
	"  check    validate only; prints \"FILE: ok, N hosts\"\n"
	"\n";

const struct cmd_option cmd_inventory_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE",
	  "the inventory YAML (see inventory/README.md)" },
	{ "host", 'H', OPT_HOSTS, "H", "show only host H" },
	{ "output", 'o', OPT_SHORT, "text|json", "text (default) or json" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fputs(usage_text, f);
	cmd_print_options(f, cmd_inventory_options);
	fputs("\nExit status 2 on any inventory error, with FILE:LINE:COL on stderr.\n", f);
}

struct inv_opts {
	const char *action;
	const char *path;
	const char *host;
	bool json;
};

static int parse_args(const struct cmd_ctx *ctx, int argc, char **argv, struct inv_opts *o)
{
	struct cmd_getopt g;
	int c;

	o->action = "show";
	if (argc > 1 && argv[1][0] != '-') {
		/* Drop the action, keeping "inventory" first for getopt's messages. */
		o->action = argv[1];
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	cmd_getopt_init(&g, cmd_inventory_options, false);
	optind = 0; /* glibc: start afresh, commands may run more than once */
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			o->path = optarg;
			break;
		case 'H':
			o->host = optarg;
			break;
		case 'o':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "bringup: inventory: unknown output "
					"format '%s' (expected text or json)\n", optarg);
				return EXIT_USAGE;
			}
			o->json = !strcmp(optarg, "json");
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return cmd_usage(ctx);
		}
	}
	if (optind < argc || !o->path ||
	    (strcmp(o->action, "show") && strcmp(o->action, "check"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

static void print_json_value(const char *label, const char *key, json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

	printf("  %-9s %s: %s\n", label, key, s ? s : "?");
	free(s);
}

static void print_vars(json_t *vars)
{
	const char *key;
	json_t *v;
	bool first = true;

	if (!json_object_size(vars)) {
		printf("  %-9s (none)\n", "vars");
		return;
	}
	json_object_foreach(vars, key, v) {
		print_json_value(first ? "vars" : "", key, v);
		first = false;
	}
}

static void print_roles(unsigned roles)
{
	const char *sep = "";

	printf("  %-9s ", "roles");
	if (!roles)
		printf("(none)");
	for (int r = 0; r < ROLE__COUNT; r++)
		if (roles & (1u << r)) {
			printf("%s%s", sep, role_name((enum role)r));
			sep = ", ";
		}
	putchar('\n');
}

static void print_hardware(const struct host *h)
{
	if (!h->nhcas)
		printf("  %-9s (none expected)\n", "hcas");
	for (size_t i = 0; i < h->nhcas; i++) {
		const struct hca_expect *x = &h->hcas[i];

		printf("  %-9s %s port %u", i ? "" : "hcas", x->name, x->port);
		if (x->rate_gbps)
			printf(", %u Gb/s%s%s%s%s", x->rate_gbps, x->width ? " " : "",
			       x->width ? x->width : "", x->speed ? " " : "",
			       x->speed ? x->speed : "");
		printf(", %s\n", x->link_layer == LINK_ETH ? "ethernet" : "infiniband");
	}
	if (h->gpus.count)
		printf("  %-9s %u x %s\n", "gpus", h->gpus.count,
		       h->gpus.model ? h->gpus.model : "(any model)");
	else
		printf("  %-9s (none expected)\n", "gpus");
}

static void print_host(const struct host *h)
{
	printf("%s\n", h->name);
	printf("  %-9s %s\n", "address", h->ssh.address);
	printf("  %-9s %s@%s:%u\n", "ssh", h->ssh.user, h->ssh.address, h->ssh.port);
	printf("  %-9s %s\n", "key", h->ssh.key_file ? h->ssh.key_file
						     : "(ssh-agent, ~/.ssh defaults)");
	printf("  %-9s %s\n", "jump", h->ssh.proxy_jump ? h->ssh.proxy_jump : "(direct)");
	print_roles(h->roles);
	print_hardware(h);
	print_vars(h->vars);
	printf("  %-9s %s:%u:%u\n", "declared", h->loc.file, h->loc.line, h->loc.col);
}

static void print_header(const struct inventory *inv)
{
	char **names = xmalloc((inv->nhosts ? inv->nhosts : 1) * sizeof(*names));
	char *all;

	printf("cluster %s (%s)\n", inv->cluster_name, inv->path);
	printf("  %-9s known_hosts %s, connect timeout %us, command timeout %us\n",
	       "ssh", inv->known_hosts, inv->connect_timeout_s, inv->command_timeout_s);
	print_vars(inv->vars);
	printf("groups\n");
	for (int r = 0; r < ROLE__COUNT; r++) {
		const struct group *g = &inv->groups[r];
		char *set;

		if (!g->loc.line)
			continue;
		set = nodeset_fold(g->hosts.v, g->hosts.n);
		printf("  %-14s %s\n", role_name((enum role)r), *set ? set : "(empty)");
		free(set);
	}
	for (size_t i = 0; i < inv->nhosts; i++)
		names[i] = inv->hosts[i].name;
	all = nodeset_fold(names, inv->nhosts);
	printf("hosts (%zu) %s\n", inv->nhosts, all);
	free(all);
	free(names);
}

static int show(const struct inventory *inv, const struct inv_opts *o)
{
	const struct host *only = NULL;
	struct err e = ERR_INIT;

	int rc;

	if (o->host && !(only = inventory_host(inv, o->host))) {
		err_set(&e, ERR_INVENTORY, "%s: no host '%s' in the inventory",
			inv->path, o->host);
		rc = cmd_fail(&e);
		err_clear(&e);
		return rc;
	}
	if (o->json) {
		json_t *j = inventory_to_json(inv, only);

		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(j);
		return EXIT_OK;
	}
	if (!only)
		print_header(inv);
	for (size_t i = 0; i < inv->nhosts; i++) {
		if (only && only != &inv->hosts[i])
			continue;
		if (!only)
			putchar('\n');
		print_host(&inv->hosts[i]);
	}
	return EXIT_OK;
}

int cmd_inventory(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct inv_opts o = { 0 };
	struct inventory *inv = NULL;
	struct err e = ERR_INIT;
	int rc = parse_args(ctx, argc, argv, &o);

	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (cmd_inventory_load(o.path, &inv, &e)) {
		/* a refused validate: section leaves inv set: ours to free */
		rc = cmd_fail_inv(inv, &e);
		err_clear(&e);
		inventory_free(inv);
		return rc;
	}
	if (!strcmp(o.action, "check"))
		printf("%s: ok, %zu host%s\n", o.path, inv->nhosts,
		       inv->nhosts == 1 ? "" : "s");
	else
		rc = show(inv, &o);
	inventory_free(inv);
	return rc;
}
