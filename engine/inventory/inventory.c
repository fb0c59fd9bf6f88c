/*
 * The inventory: loading and validating inventory YAML into struct inventory,
 * host lookup, --limit selection and the JSON view. See inventory.h and
 * inventory/README.md for the schema.
 *
 * Loading reads the sections in a fixed order whatever their order in the
 * file (cluster, hardware, hosts, groups), because each needs the previous
 * ones; then every host is resolved: roles, hardware, and variables merged
 * cluster < groups (file order) < host.
 */
#include "inventory.h"
#include "../base/nodeset.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"
#include "../base/yamltree.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_SSH_PORT 22
#define DEFAULT_CONNECT_TIMEOUT 10
#define DEFAULT_COMMAND_TIMEOUT 600
#define DEFAULT_KNOWN_HOSTS "~/.ssh/known_hosts"
/* Largest inventory file we read: a typo'd path to a disk image must not
 * be slurped. */
#define MAX_INVENTORY_BYTES (64u << 20)

static const char *const role_names[ROLE__COUNT] = {
	[ROLE_GPU_WORKER] = "gpu_worker",
	[ROLE_SCALE_CLIENT] = "scale_client",
	[ROLE_SCALE_QUORUM] = "scale_quorum",
	[ROLE_SCALE_MANAGER] = "scale_manager",
	[ROLE_NSD_SERVER] = "nsd_server",
	[ROLE_SM_HOST] = "sm_host",
	[ROLE_IB_SWITCH] = "ib_switch",
	[ROLE_OCP_MASTER] = "ocp_master",
	[ROLE_BASTION] = "bastion",
};

const char *role_name(enum role r)
{
	return (unsigned)r < ROLE__COUNT ? role_names[r] : "?";
}

int role_from_name(const char *s)
{
	for (int r = 0; r < ROLE__COUNT; r++)
		if (!strcmp(role_names[r], s))
			return r;
	return -1;
}

/* The key tables: one per mapping level, indexed by the enums beside them. */
enum { T_CLUSTER, T_HARDWARE, T_HOSTS, T_GROUPS, T_VALIDATE, T_FABRIC, T__N };
static const struct ykey top_keys[] = {
	[T_CLUSTER] = { "cluster", Y_MAP, true },
	[T_HARDWARE] = { "hardware", Y_MAP, false },
	[T_HOSTS] = { "hosts", Y_MAP, true },
	[T_GROUPS] = { "groups", Y_MAP, false },
	[T_VALIDATE] = { "validate", Y_MAP, false },
	[T_FABRIC] = { "fabric", Y_MAP, false },
	[T__N] = { NULL, 0, false },
};

enum { C_NAME, C_SSH, C_VARS, C__N };
static const struct ykey cluster_keys[] = {
	[C_NAME] = { "name", Y_SCALAR, true },
	[C_SSH] = { "ssh", Y_MAP, false },
	[C_VARS] = { "vars", Y_MAP, false },
	[C__N] = { NULL, 0, false },
};

/* A host's ssh keys are the first S_HOST__N of the cluster's. */
enum { S_USER, S_PORT, S_KEY, S_PROXY_JUMP, S_HOST__N = S_PROXY_JUMP + 1,
       S_KNOWN_HOSTS = S_HOST__N, S_CONNECT_TIMEOUT, S_COMMAND_TIMEOUT, S_JUMP_SESSIONS,
       S__N };
#define SSH_KEY_ROWS                                        \
	[S_USER] = { "user", Y_SCALAR, false },             \
	[S_PORT] = { "port", Y_SCALAR, false },             \
	[S_KEY] = { "key", Y_SCALAR, false },               \
	[S_PROXY_JUMP] = { "proxy_jump", Y_SCALAR, false }
static const struct ykey cluster_ssh_keys[] = {
	SSH_KEY_ROWS,
	[S_KNOWN_HOSTS] = { "known_hosts", Y_SCALAR, false },
	[S_CONNECT_TIMEOUT] = { "connect_timeout", Y_SCALAR, false },
	[S_COMMAND_TIMEOUT] = { "command_timeout", Y_SCALAR, false },
	[S_JUMP_SESSIONS] = { "jump_sessions", Y_SCALAR, false },
	[S__N] = { NULL, 0, false },
};
static const struct ykey host_ssh_keys[] = {
	SSH_KEY_ROWS,
	[S_HOST__N] = { NULL, 0, false },
};

enum { HW_HCAS, HW_GPUS, HW__N };
static const struct ykey hw_keys[] = {
	[HW_HCAS] = { "hcas", Y_SEQ, false },
	[HW_GPUS] = { "gpus", Y_MAP, false },
	[HW__N] = { NULL, 0, false },
};

enum { HCA_NAME, HCA_NAMES, HCA_PORT, HCA_RATE, HCA_LINK_LAYER, HCA__N };
static const struct ykey hca_keys[] = {
	[HCA_NAME] = { "name", Y_SCALAR, false },
	[HCA_NAMES] = { "names", Y_SCALAR, false },
	[HCA_PORT] = { "port", Y_SCALAR, false },
	[HCA_RATE] = { "rate", Y_SCALAR, false },
	[HCA_LINK_LAYER] = { "link_layer", Y_SCALAR, false },
	[HCA__N] = { NULL, 0, false },
};

enum { GPU_COUNT, GPU_MODEL, GPU__N };
static const struct ykey gpu_keys[] = {
	[GPU_COUNT] = { "count", Y_SCALAR, false },
	[GPU_MODEL] = { "model", Y_SCALAR, false },
	[GPU__N] = { NULL, 0, false },
};

enum { H_ADDRESS, H_SSH, H_HARDWARE, H_VARS, H_SAME_MACHINE, H__N };
static const struct ykey host_keys[] = {
	[H_ADDRESS] = { "address", Y_SCALAR, false },
	[H_SSH] = { "ssh", Y_MAP, false },
	[H_HARDWARE] = { "hardware", Y_SCALAR, false },
	[H_VARS] = { "vars", Y_MAP, false },
	[H_SAME_MACHINE] = { "same_machine", Y_SCALAR, false },
	[H__N] = { NULL, 0, false },
};

enum { G_HOSTS, G_HARDWARE, G_VARS, G__N };
static const struct ykey group_keys[] = {
	[G_HOSTS] = { "hosts", Y_SCALAR_OR_SEQ, true },
	[G_HARDWARE] = { "hardware", Y_SCALAR, false },
	[G_VARS] = { "vars", Y_MAP, false },
	[G__N] = { NULL, 0, false },
};

enum { F_LEAVES, F_SPINES, F_HOST_PORTS, F_UPLINKS, F_ISL_RATE, F__N };
static const struct ykey fabric_keys[] = {
	[F_LEAVES] = { "leaf_switches", Y_SCALAR, false },
	[F_SPINES] = { "spine_switches", Y_SCALAR, false },
	[F_HOST_PORTS] = { "host_ports_per_leaf", Y_SCALAR, false },
	[F_UPLINKS] = { "uplinks_per_leaf", Y_SCALAR, false },
	[F_ISL_RATE] = { "isl_rate", Y_SCALAR, false },
	[F__N] = { NULL, 0, false },
};

static const char *const link_layer_names[] = { "infiniband", "ethernet" };

static const char *const ib_speeds[] = {
	"SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR", NULL
};

struct hw_profile {
	char *name;
	struct hca_expect *hcas;
	size_t nhcas, alloc;
	struct gpu_expect gpus;
};

/* SSH settings as written at one level; NULL/0 where not given. */
struct ssh_opts {
	char *user;
	unsigned port;
	char *key;
	char *proxy_jump;
};

/* What loading needs to know about a host beyond struct host. */
struct host_src {
	yaml_node_t *key;        /* the `hosts:` key that declared it */
	yaml_node_t *addr;       /* its `address:` value; NULL when none */
	yaml_node_t *same;       /* its `same_machine:` value; NULL when none */
	int hw;                  /* profile index, -1 when none named */
	json_t *vars;            /* its own vars (shared by its key's hosts) */
};

struct loader {
	struct ytree t;
	struct inventory *inv;
	struct hw_profile *hw;
	size_t nhw, hw_alloc;
	struct ssh_opts defaults;
	struct host_src *src;    /* parallel to inv->hosts */
	size_t hosts_alloc, src_alloc;
	char *local_user;        /* looked up once: getpwuid reads /etc/passwd */
	int group_order[ROLE__COUNT]; /* roles in file order */
	int ngroups;
	int group_hw[ROLE__COUNT];
};

static void free_hcas(struct hca_expect *hcas, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(hcas[i].name);
		free(hcas[i].width);
		free(hcas[i].speed);
	}
	free(hcas);
}

static void ssh_opts_release(struct ssh_opts *o)
{
	free(o->user);
	free(o->key);
	free(o->proxy_jump);
	memset(o, 0, sizeof(*o));
}

static void loader_release(struct loader *ld)
{
	for (size_t i = 0; i < ld->nhw; i++) {
		free(ld->hw[i].name);
		free_hcas(ld->hw[i].hcas, ld->hw[i].nhcas);
		free(ld->hw[i].gpus.model);
	}
	free(ld->hw);
	if (ld->inv)
		for (size_t i = 0; i < ld->inv->nhosts; i++)
			json_decref(ld->src[i].vars);
	free(ld->src);
	free(ld->local_user);
	ssh_opts_release(&ld->defaults);
	ytree_release(&ld->t);
}

/* Expands a node-set scalar; errors point inside the pattern. */
static int expand_node(struct loader *ld, yaml_node_t *n, const char *what,
		       struct strlist *out)
{
	struct err e = ERR_INIT;
	size_t pos = 0;
	int ret;

	if (!nodeset_expand_at(ytree_str(n), out, &pos, &e))
		return 0;
	ret = ytree_fail(&ld->t, n, ytree_text_col(n) + (unsigned)pos,
			 "bad node set '%s' for %s: %s", ytree_str(n), what,
			 err_msg(&e));
	err_clear(&e);
	return ret;
}

static char *home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home && *home)
		return xstrdup(home);
	pw = getpwuid(getuid());
	return xstrdup(pw && pw->pw_dir ? pw->pw_dir : "/");
}

/* "~/x" -> "$HOME/x"; other paths unchanged. Returns a new string. */
static char *expand_tilde(const char *path)
{
	char *home, *ret;

	if (path[0] != '~' || (path[1] && path[1] != '/'))
		return xstrdup(path);
	home = home_dir();
	ret = xasprintf("%s%s", home, path + 1);
	free(home);
	return ret;
}

static char *local_user(void)
{
	struct passwd *pw = getpwuid(getuid());
	const char *env = getenv("USER");

	if (pw && pw->pw_name)
		return xstrdup(pw->pw_name);
	return xstrdup(env && *env ? env : "root");
}

static int read_opt_string(struct loader *ld, yaml_node_t *n, const char *key,
			   const char *where, char **ret)
{
	char *what;
	int r;

	if (!n)
		return 0;
	what = xasprintf("'%s' in %s", key, where);
	r = ytree_string(&ld->t, n, what, ret);
	free(what);
	return r;
}

static int read_opt_uint(struct loader *ld, yaml_node_t *n, const char *key,
			 const char *where, unsigned min, unsigned max, unsigned *ret)
{
	char *what;
	int r;

	if (!n)
		return 0;
	what = xasprintf("'%s' in %s", key, where);
	r = ytree_uint(&ld->t, n, min, max, what, ret);
	free(what);
	return r;
}

/* Reads the keys cluster.ssh and hosts.X.ssh share. */
static int read_ssh_opts(struct loader *ld, yaml_node_t **v, const char *where,
			 struct ssh_opts *o)
{
	if (read_opt_string(ld, v[S_USER], "user", where, &o->user) ||
	    read_opt_uint(ld, v[S_PORT], "port", where, 1, 65535, &o->port) ||
	    read_opt_string(ld, v[S_KEY], "key", where, &o->key) ||
	    read_opt_string(ld, v[S_PROXY_JUMP], "proxy_jump", where, &o->proxy_jump))
		return ERR_INVENTORY;
	return 0;
}

static int read_cluster_ssh(struct loader *ld, yaml_node_t *n)
{
	struct inventory *inv = ld->inv;
	yaml_node_t *v[S__N];
	char *known_hosts = NULL;
	const char *where = "cluster.ssh";

	inv->connect_timeout_s = DEFAULT_CONNECT_TIMEOUT;
	inv->command_timeout_s = DEFAULT_COMMAND_TIMEOUT;
	inv->jump_sessions = 1;
	if (!n) {
		inv->known_hosts = expand_tilde(DEFAULT_KNOWN_HOSTS);
		return 0;
	}
	if (ytree_check_map(&ld->t, n, cluster_ssh_keys, where, v) ||
	    read_ssh_opts(ld, v, where, &ld->defaults) ||
	    read_opt_string(ld, v[S_KNOWN_HOSTS], "known_hosts", where, &known_hosts) ||
	    read_opt_uint(ld, v[S_CONNECT_TIMEOUT], "connect_timeout", where,
			  1, 3600, &inv->connect_timeout_s) ||
	    read_opt_uint(ld, v[S_COMMAND_TIMEOUT], "command_timeout", where,
			  1, 7 * 24 * 3600, &inv->command_timeout_s) ||
	    read_opt_uint(ld, v[S_JUMP_SESSIONS], "jump_sessions", where,
			  1, 64, &inv->jump_sessions)) {
		free(known_hosts);
		return ERR_INVENTORY;
	}
	inv->known_hosts = expand_tilde(known_hosts ? known_hosts : DEFAULT_KNOWN_HOSTS);
	free(known_hosts);
	return 0;
}

static bool valid_name(const char *s)
{
	return *s && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.-") == strlen(s);
}

static int read_vars(struct loader *ld, yaml_node_t *n, const char *where,
		     json_t **ret)
{
	char *what;

	if (!n) {
		*ret = json_object();
		return *ret ? 0 : err_set(ld->t.err, ERR_INVENTORY, "%s: out of memory "
					  "reading vars of %s", ld->inv->path, where);
	}
	what = xasprintf("vars of %s", where);
	/* NULL always comes with the error filled in, out of memory included */
	*ret = ytree_to_json(&ld->t, n, what);
	free(what);
	return *ret ? 0 : ERR_INVENTORY;
}

static int read_cluster(struct loader *ld, yaml_node_t *n)
{
	yaml_node_t *v[C__N];

	if (ytree_check_map(&ld->t, n, cluster_keys, "cluster", v) ||
	    ytree_string(&ld->t, v[C_NAME], "'name' in cluster", &ld->inv->cluster_name))
		return ERR_INVENTORY;
	if (!valid_name(ld->inv->cluster_name))
		return ytree_fail(&ld->t, v[C_NAME], ytree_text_col(v[C_NAME]),
				  "found cluster name '%s', expected letters, "
				  "digits, '_', '.' and '-' only",
				  ld->inv->cluster_name);
	if (read_cluster_ssh(ld, v[C_SSH]))
		return ERR_INVENTORY;
	return read_vars(ld, v[C_VARS], "cluster", &ld->inv->vars);
}

/* Reads "<N> Gb/s [<width>] [<speed>]", as ibstatus prints it ("(4X EDR)"
 * accepted too). */
static bool parse_rate(const char *s, struct hca_expect *h)
{
	char *copy = xstrdup(s), *save = NULL, *tok, *end;
	unsigned long gbps;
	bool ok = false;

	for (char *p = copy; *p; p++)
		if (*p == '(' || *p == ')')
			*p = ' ';
	tok = strtok_r(copy, " \t", &save);
	if (!tok || *tok < '0' || *tok > '9')
		goto out;
	errno = 0;
	gbps = strtoul(tok, &end, 10);
	if (*end || errno || !gbps || gbps > 100000)
		goto out;
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || (strcmp(tok, "Gb/s") && strcmp(tok, "Gb/sec")))
		goto out;
	h->rate_gbps = (unsigned)gbps;
	tok = strtok_r(NULL, " \t", &save);
	if (tok && strspn(tok, "0123456789") && tok[strspn(tok, "0123456789")] == 'X' &&
	    !tok[strspn(tok, "0123456789") + 1]) {
		h->width = xstrdup(tok);
		tok = strtok_r(NULL, " \t", &save);
	}
	if (tok) {
		for (const char *const *sp = ib_speeds; *sp; sp++)
			if (!strcmp(tok, *sp))
				h->speed = xstrdup(tok);
		if (!h->speed)
			goto out;
		tok = strtok_r(NULL, " \t", &save);
	}
	ok = !tok;
out:
	free(copy);
	return ok;
}

/* Fills the port, rate and link layer that `names` share. */
static int read_hca_common(struct loader *ld, yaml_node_t **v, const char *where,
			   struct hca_expect *h)
{
	h->port = 1;
	if (read_opt_uint(ld, v[HCA_PORT], "port", where, 1, 255, &h->port))
		return ERR_INVENTORY;
	if (v[HCA_RATE] && !parse_rate(ytree_str(v[HCA_RATE]), h)) {
		char *found = ytree_describe(v[HCA_RATE]);

		ytree_fail(&ld->t, v[HCA_RATE], 0, "found rate %s in %s, expected "
			   "'<N> Gb/s [<width>] [<speed>]' such as '100 Gb/s 4X EDR'",
			   found, where);
		free(found);
		return ERR_INVENTORY;
	}
	if (v[HCA_LINK_LAYER]) {
		const char *s = ytree_str(v[HCA_LINK_LAYER]);

		if (!strcmp(s, "ethernet"))
			h->link_layer = LINK_ETH;
		else if (strcmp(s, "infiniband"))
			return ytree_fail_choice(&ld->t, v[HCA_LINK_LAYER],
						 "link_layer", where, link_layer_names, 2);
	}
	return 0;
}

/* "4X EDR": a width and an IB speed name, nothing else. */
static bool parse_isl_rate(const char *s, struct fabric_expect *f)
{
	char width[8], speed[8];
	int used = 0;
	size_t digits;

	if (sscanf(s, " %7s %7s %n", width, speed, &used) != 2 || s[used])
		return false;
	digits = strspn(width, "0123456789");
	if (!digits || width[digits] != 'X' || width[digits + 1])
		return false;
	for (const char *const *sp = ib_speeds; *sp; sp++)
		if (!strcmp(speed, *sp)) {
			f->isl_width = xstrdup(width);
			f->isl_speed = xstrdup(speed);
			return true;
		}
	return false;
}

static int read_fabric_count(struct loader *ld, yaml_node_t *n, const char *key,
			     unsigned min, int *ret)
{
	unsigned v;

	*ret = -1;
	if (!n)
		return 0;
	if (read_opt_uint(ld, n, key, "fabric", min, 4096, &v))
		return ERR_INVENTORY;
	*ret = (int)v;
	return 0;
}

/* The optional `fabric:` section (see struct fabric_expect). */
static int read_fabric(struct loader *ld, yaml_node_t *n)
{
	struct fabric_expect *f = &ld->inv->fabric;
	yaml_node_t *v[F__N];

	f->leaf_switches = f->spine_switches = f->host_ports_per_leaf = f->uplinks_per_leaf = -1;
	if (!n)
		return 0;
	if (ytree_check_map(&ld->t, n, fabric_keys, "fabric", v) ||
	    read_fabric_count(ld, v[F_LEAVES], "leaf_switches", 1, &f->leaf_switches) ||
	    read_fabric_count(ld, v[F_SPINES], "spine_switches", 0, &f->spine_switches) ||
	    read_fabric_count(ld, v[F_HOST_PORTS], "host_ports_per_leaf", 1, &f->host_ports_per_leaf) ||
	    read_fabric_count(ld, v[F_UPLINKS], "uplinks_per_leaf", 0, &f->uplinks_per_leaf))
		return ERR_INVENTORY;
	if (v[F_ISL_RATE] && !parse_isl_rate(ytree_str(v[F_ISL_RATE]), f)) {
		char *found = ytree_describe(v[F_ISL_RATE]);

		ytree_fail(&ld->t, v[F_ISL_RATE], 0, "found isl_rate %s in fabric, expected "
			   "'<width> <speed>' such as '4X EDR'", found);
		free(found);
		return ERR_INVENTORY;
	}
	/* each leaf is cabled to every spine with the same number of cables */
	if (f->uplinks_per_leaf >= 0 && f->spine_switches > 0 &&
	    f->uplinks_per_leaf % f->spine_switches)
		return ytree_fail(&ld->t, v[F_UPLINKS], 0, "found uplinks_per_leaf %d in fabric, "
				  "expected a multiple of spine_switches (%d): each leaf is "
				  "cabled evenly to every spine", f->uplinks_per_leaf,
				  f->spine_switches);
	if (f->uplinks_per_leaf > 0 && f->spine_switches == 0)
		return ytree_fail(&ld->t, v[F_UPLINKS], 0, "found uplinks_per_leaf %d in fabric "
				  "with spine_switches 0, expected 0: with no spine a leaf has "
				  "nothing to cable up to", f->uplinks_per_leaf);
	f->present = true;
	f->loc = (struct src_loc){ ld->inv->path, ytree_line(n), ytree_col(n) };
	return 0;
}

static int read_hca(struct loader *ld, struct hw_profile *p, yaml_node_t *n,
		    size_t idx)
{
	char *where = xasprintf("HCA entry %zu of hardware profile '%s'", idx + 1, p->name);
	struct hca_expect proto = { 0 };
	struct strlist names = STRLIST_INIT;
	yaml_node_t *v[HCA__N];
	int ret = ERR_INVENTORY;

	if (ytree_check_map(&ld->t, n, hca_keys, where, v) ||
	    read_hca_common(ld, v, where, &proto))
		goto out;
	if (!v[HCA_NAME] == !v[HCA_NAMES]) {
		ytree_fail(&ld->t, n, 0, "found %s in %s, expected exactly one of them",
			   v[HCA_NAME] ? "both 'name' and 'names'"
				       : "neither 'name' nor 'names'", where);
		goto out;
	}
	if (v[HCA_NAME])
		strlist_push(&names, ytree_str(v[HCA_NAME]));
	else if (expand_node(ld, v[HCA_NAMES], where, &names))
		goto out;
	for (size_t i = 0; i < names.n; i++) {
		struct hca_expect *h;

		ALLOC_GROW(p->hcas, p->nhcas + 1, p->alloc);
		h = &p->hcas[p->nhcas++];
		*h = proto;
		h->name = xstrdup(names.v[i]);
		h->width = proto.width ? xstrdup(proto.width) : NULL;
		h->speed = proto.speed ? xstrdup(proto.speed) : NULL;
		h->loc = (struct src_loc){ ld->inv->path, ytree_line(n), ytree_col(n) };
	}
	ret = 0;
out:
	free(proto.width);
	free(proto.speed);
	strlist_clear(&names);
	free(where);
	return ret;
}

static int read_gpus(struct loader *ld, struct hw_profile *p, yaml_node_t *n,
		     const char *where)
{
	yaml_node_t *v[GPU__N];
	char *what = xasprintf("'gpus' of %s", where);
	int ret;

	ret = ytree_check_map(&ld->t, n, gpu_keys, what, v) ||
	      read_opt_uint(ld, v[GPU_COUNT], "count", what, 0, 1024, &p->gpus.count) ||
	      read_opt_string(ld, v[GPU_MODEL], "model", what, &p->gpus.model);
	free(what);
	return ret ? ERR_INVENTORY : 0;
}

static int read_profile(struct loader *ld, yaml_node_t *key, yaml_node_t *n)
{
	char *where = xasprintf("hardware profile '%s'", ytree_str(key));
	yaml_node_t *v[HW__N];
	struct hw_profile *p;
	int ret = ERR_INVENTORY;

	ALLOC_GROW(ld->hw, ld->nhw + 1, ld->hw_alloc);
	p = &ld->hw[ld->nhw++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(ytree_str(key));
	if (ytree_check_map(&ld->t, n, hw_keys, where, v))
		goto out;
	for (size_t i = 0; v[HW_HCAS] && i < ytree_seq_len(v[HW_HCAS]); i++)
		if (read_hca(ld, p, ytree_seq_item(&ld->t, v[HW_HCAS], i), i))
			goto out;
	if (v[HW_GPUS] && read_gpus(ld, p, v[HW_GPUS], where))
		goto out;
	ret = 0;
out:
	free(where);
	return ret;
}

static int read_hardware(struct loader *ld, yaml_node_t *n)
{
	if (!n)
		return 0;
	if (ytree_check_keys(&ld->t, n, "hardware"))
		return ERR_INVENTORY;
	for (size_t i = 0; i < ytree_map_len(n); i++)
		if (read_profile(ld, ytree_map_key(&ld->t, n, i),
				 ytree_map_value(&ld->t, n, i)))
			return ERR_INVENTORY;
	return 0;
}

/* Index of the profile `n` names, or an error listing the known ones. */
static int find_profile(struct loader *ld, yaml_node_t *n, const char *where,
			int *ret)
{
	const char **names = xcalloc(ld->nhw + 1, sizeof(*names));
	int r;

	for (size_t i = 0; i < ld->nhw; i++) {
		if (!strcmp(ld->hw[i].name, ytree_str(n))) {
			*ret = (int)i;
			free(names);
			return 0;
		}
		names[i] = ld->hw[i].name;
	}
	r = ytree_fail_choice(&ld->t, n, "hardware profile", where, names, ld->nhw);
	free(names);
	return r;
}

static char *pick(const char *own, const char *dflt)
{
	return own ? xstrdup(own) : dflt ? xstrdup(dflt) : NULL;
}

/* Fills h->ssh: host settings over cluster.ssh over built-in defaults. */
static int resolve_ssh(struct loader *ld, struct host *h, const char *address,
		       const struct ssh_opts *own, yaml_node_t *own_jump)
{
	const struct ssh_opts *d = &ld->defaults;

	h->ssh.address = xstrdup(address);
	h->ssh.port = own->port ? own->port : d->port ? d->port : DEFAULT_SSH_PORT;
	if (!own->user && !d->user && !ld->local_user)
		ld->local_user = local_user();
	h->ssh.user = xstrdup(own->user ? own->user : d->user ? d->user : ld->local_user);
	h->ssh.key_file = own->key ? expand_tilde(own->key)
			  : d->key ? expand_tilde(d->key) : NULL;
	h->ssh.proxy_jump = pick(own->proxy_jump, d->proxy_jump);
	if (h->ssh.proxy_jump && !strcmp(h->ssh.proxy_jump, h->name)) {
		/* The jump host itself connects directly. */
		free(h->ssh.proxy_jump);
		h->ssh.proxy_jump = NULL;
		if (own->proxy_jump)
			return ytree_fail(&ld->t, own_jump, ytree_text_col(own_jump),
					  "found proxy_jump '%s' naming host '%s' "
					  "itself, expected another host", own->proxy_jump,
					  h->name);
	}
	return 0;
}

/*
 * A host name as RFC 1123 (2.1) and RFC 1035 (2.3.4) allow: dot-separated
 * labels of letters, digits and '-', each 1-63 characters, not starting or
 * ending with '-', at most 253 characters in all. NULL when it is one, else
 * what is wrong with it.
 */
static const char *hostname_problem(const char *s)
{
	size_t len = strlen(s), label = 0;

	if (!len)
		return "an empty name";
	if (len > 253)
		return "more than 253 characters";
	for (const char *p = s; ; p++) {
		if (*p == '.' || !*p) {
			if (!label)
				return "an empty label (two dots, or a dot at either end)";
			if (p[-1] == '-')
				return "a label ending with '-'";
			if (!*p)
				return NULL;
			label = 0;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-'))
			return "a character other than letters, digits, '-' and '.'";
		if (!label && *p == '-')
			return "a label starting with '-'";
		if (++label > 63)
			return "a label of more than 63 characters";
	}
}

static int check_host_name(struct loader *ld, yaml_node_t *key, const char *name)
{
	const char *why = hostname_problem(name);

	if (why) {
		char *found = ytree_describe(key);
		int r;

		/* a node set names many: quote the one at fault when it differs */
		if (strcmp(ytree_str(key), name))
			r = ytree_fail(&ld->t, key, ytree_text_col(key), "found host name "
				       "'%.64s%s' (from %s) with %s, expected a host name "
				       "(RFC 1123: labels of letters, digits and '-', "
				       "1-63 characters each, 253 in all)", name,
				       strlen(name) > 64 ? "..." : "", found, why);
		else
			r = ytree_fail(&ld->t, key, ytree_text_col(key), "found host name "
				       "%s with %s, expected a host name (RFC 1123: "
				       "labels of letters, digits and '-', 1-63 "
				       "characters each, 253 in all)", found, why);
		free(found);
		return r;
	}
	if (!strcmp(name, "all") || role_from_name(name) >= 0)
		return ytree_fail(&ld->t, key, ytree_text_col(key), "found host name "
				  "'%s', expected a name that is not 'all' or a "
				  "group name (--limit could not tell them apart)", name);
	return 0;
}

/* An address is an IPv4 or IPv6 address or a host name (RFC 1123). */
static int check_address(struct loader *ld, yaml_node_t *n, const char *addr,
			 const char *where)
{
	unsigned char bin[sizeof(struct in6_addr)];
	size_t len = strlen(addr);
	char *name = xstrdup(addr), *found;
	const char *why;
	int r;

	if (len > 1 && name[len - 1] == '.') /* a rooted name: "dgx01.site." */
		name[len - 1] = '\0';
	why = hostname_problem(name);
	free(name);
	if (inet_pton(AF_INET, addr, bin) == 1 || inet_pton(AF_INET6, addr, bin) == 1 ||
	    !why)
		return 0;
	found = ytree_describe(n);
	r = ytree_fail(&ld->t, n, ytree_text_col(n), "found address '%.64s%s' (from %s) "
		       "in %s with %s, expected an IPv4 or IPv6 address or a host "
		       "name (RFC 1123)", addr, strlen(addr) > 64 ? "..." : "",
		       found, where, why);
	free(found);
	return r;
}

struct host_entry {
	struct strlist names;
	struct strlist addrs;
	struct ssh_opts ssh;
	yaml_node_t *v[H__N];
	yaml_node_t *jump;       /* the host's own proxy_jump, for messages */
	int hw;
	json_t *vars;
};

static int read_host_entry(struct loader *ld, yaml_node_t *key, yaml_node_t *n,
			   const char *where, struct host_entry *e)
{
	yaml_node_t *sv[S_HOST__N];
	char *what;

	e->hw = -1;
	if (expand_node(ld, key, "hosts", &e->names))
		return ERR_INVENTORY;
	for (size_t i = 0; i < e->names.n; i++)
		if (check_host_name(ld, key, e->names.v[i]))
			return ERR_INVENTORY;
	if (ytree_check_map(&ld->t, n, host_keys, where, e->v))
		return ERR_INVENTORY;
	if (e->v[H_ADDRESS]) {
		what = xasprintf("'address' in %s", where);
		if (ytree_is_empty(e->v[H_ADDRESS]))
			ytree_fail(&ld->t, e->v[H_ADDRESS], 0, "found an empty value "
				   "for %s, expected an address", what);
		else
			expand_node(ld, e->v[H_ADDRESS], what, &e->addrs);
		free(what);
		if (!e->addrs.n)
			return ERR_INVENTORY;
		for (size_t i = 0; i < e->addrs.n; i++)
			if (check_address(ld, e->v[H_ADDRESS], e->addrs.v[i], where))
				return ERR_INVENTORY;
		if (e->addrs.n != e->names.n)
			return ytree_fail(&ld->t, e->v[H_ADDRESS], 0, "found %zu "
					  "address%s in '%s' for %zu host%s, expected "
					  "one address per host", e->addrs.n,
					  e->addrs.n == 1 ? "" : "es",
					  ytree_str(e->v[H_ADDRESS]), e->names.n,
					  e->names.n == 1 ? "" : "s");
	}
	if (e->v[H_SSH]) {
		what = xasprintf("the ssh settings of %s", where);
		if (ytree_check_map(&ld->t, e->v[H_SSH], host_ssh_keys, what, sv) ||
		    read_ssh_opts(ld, sv, what, &e->ssh)) {
			free(what);
			return ERR_INVENTORY;
		}
		free(what);
		e->jump = sv[S_PROXY_JUMP];
	}
	if (e->v[H_HARDWARE] && find_profile(ld, e->v[H_HARDWARE], where, &e->hw))
		return ERR_INVENTORY;
	return read_vars(ld, e->v[H_VARS], where, &e->vars);
}

static int add_hosts(struct loader *ld, yaml_node_t *key, struct host_entry *e)
{
	struct inventory *inv = ld->inv;

	for (size_t i = 0; i < e->names.n; i++) {
		struct host *h;

		ALLOC_GROW(inv->hosts, inv->nhosts + 1, ld->hosts_alloc);
		/* only when it grew: a realloc per host copies under ASan */
		if (ld->src_alloc < ld->hosts_alloc) {
			ld->src = xrealloc(ld->src, ld->hosts_alloc * sizeof(*ld->src));
			ld->src_alloc = ld->hosts_alloc;
		}
		h = &inv->hosts[inv->nhosts];
		memset(h, 0, sizeof(*h));
		ld->src[inv->nhosts] = (struct host_src){ key, e->v[H_ADDRESS],
							  e->v[H_SAME_MACHINE], e->hw,
							  json_incref(e->vars) };
		inv->nhosts++;
		h->name = xstrdup(e->names.v[i]);
		h->loc = (struct src_loc){ inv->path, ytree_line(key), ytree_col(key) };
		if (resolve_ssh(ld, h, e->addrs.n ? e->addrs.v[i] : h->name, &e->ssh,
				e->jump))
			return ERR_INVENTORY;
	}
	return 0;
}

static int read_hosts(struct loader *ld, yaml_node_t *n)
{
	if (ytree_check_keys(&ld->t, n, "hosts"))
		return ERR_INVENTORY;
	if (!ytree_map_len(n))
		return ytree_fail(&ld->t, n, 0, "found no hosts under 'hosts', "
				  "expected at least one");
	for (size_t i = 0; i < ytree_map_len(n); i++) {
		yaml_node_t *key = ytree_map_key(&ld->t, n, i);
		char *where = xasprintf("host '%s'", ytree_str(key));
		struct host_entry e = { STRLIST_INIT, STRLIST_INIT };
		int ret;

		ret = read_host_entry(ld, key, ytree_map_value(&ld->t, n, i), where, &e);
		if (!ret)
			ret = add_hosts(ld, key, &e);
		strlist_clear(&e.names);
		strlist_clear(&e.addrs);
		ssh_opts_release(&e.ssh);
		json_decref(e.vars);
		free(where);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_by_name(const void *a, const void *b, void *hosts)
{
	const struct host *h = hosts;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(h[x].name, h[y].name);

	return c ? c : (x > y) - (x < y);
}

static size_t *index_by_name(struct host *hosts, size_t n)
{
	size_t *idx = xmalloc((n ? n : 1) * sizeof(*idx));

	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_by_name, hosts);
	return idx;
}

/* Builds the name index and reports the first repeated host in file order. */
static int check_duplicate_hosts(struct loader *ld)
{
	struct inventory *inv = ld->inv;
	size_t worst = SIZE_MAX, first = 0;

	inv->by_name = index_by_name(inv->hosts, inv->nhosts);
	for (size_t i = 1; i < inv->nhosts; i++) {
		size_t a = inv->by_name[i - 1], b = inv->by_name[i];

		if (!strcmp(inv->hosts[a].name, inv->hosts[b].name) && b < worst) {
			worst = b;
			first = a;
		}
	}
	if (worst == SIZE_MAX)
		return 0;
	return ytree_fail(&ld->t, ld->src[worst].key, ytree_text_col(ld->src[worst].key),
			  "duplicate host '%s' from '%s' (first declared at line %u, "
			  "column %u from '%s'), expected each host once",
			  inv->hosts[worst].name, ytree_str(ld->src[worst].key),
			  inv->hosts[first].loc.line, inv->hosts[first].loc.col,
			  ytree_str(ld->src[first].key));
}

static ssize_t host_index(const struct inventory *inv, const char *name)
{
	size_t lo = 0, hi = inv->nhosts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, inv->hosts[inv->by_name[mid]].name);

		if (!c)
			return (ssize_t)inv->by_name[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

const struct host *inventory_host(const struct inventory *inv, const char *name)
{
	ssize_t i = host_index(inv, name);

	return i < 0 ? NULL : &inv->hosts[i];
}

static int add_group_members(struct loader *ld, struct group *g, yaml_node_t *n,
			     const char *where, bool *seen)
{
	for (size_t i = 0; i < ytree_seq_len(n); i++) {
		yaml_node_t *item = ytree_seq_item(&ld->t, n, i);
		struct strlist names = STRLIST_INIT;
		ssize_t h = 0;

		if (ytree_expect(&ld->t, item, Y_SCALAR, where) ||
		    expand_node(ld, item, where, &names))
			return ERR_INVENTORY;
		for (size_t k = 0; k < names.n && h >= 0; k++) {
			h = host_index(ld->inv, names.v[k]);
			if (h < 0)
				ytree_fail(&ld->t, item, ytree_text_col(item),
					   "found undeclared host '%s' in %s, "
					   "expected a host declared under 'hosts'",
					   names.v[k], where);
			else if (!seen[h]) {
				seen[h] = true;
				strlist_push(&g->hosts, names.v[k]);
			}
		}
		strlist_clear(&names);
		if (h < 0)
			return ERR_INVENTORY;
	}
	return 0;
}

static int read_group(struct loader *ld, yaml_node_t *key, yaml_node_t *n)
{
	int role = role_from_name(ytree_str(key));
	yaml_node_t *v[G__N];
	struct group *g;
	char *where, *what;
	bool *seen;
	int ret;

	if (role < 0)
		return ytree_fail_choice(&ld->t, key, "group", "groups", role_names,
					 ROLE__COUNT);
	g = &ld->inv->groups[role];
	g->loc = (struct src_loc){ ld->inv->path, ytree_line(key), ytree_col(key) };
	ld->group_order[ld->ngroups++] = role;
	where = xasprintf("group '%s'", role_names[role]);
	what = xasprintf("'hosts' of %s", where);
	seen = xcalloc(ld->inv->nhosts, sizeof(*seen));
	ret = ERR_INVENTORY;
	if (ytree_check_map(&ld->t, n, group_keys, where, v) ||
	    add_group_members(ld, g, v[G_HOSTS], what, seen) ||
	    (v[G_HARDWARE] && find_profile(ld, v[G_HARDWARE], where, &ld->group_hw[role])) ||
	    read_vars(ld, v[G_VARS], where, &g->vars))
		goto out;
	ret = 0;
out:
	free(seen);
	free(what);
	free(where);
	return ret;
}

static int read_groups(struct loader *ld, yaml_node_t *n)
{
	for (int r = 0; r < ROLE__COUNT; r++) {
		ld->group_hw[r] = -1;
		ld->inv->groups[r].role = (enum role)r;
	}
	if (!n)
		return 0;
	if (ytree_check_keys(&ld->t, n, "groups"))
		return ERR_INVENTORY;
	for (size_t i = 0; i < ytree_map_len(n); i++)
		if (read_group(ld, ytree_map_key(&ld->t, n, i),
			       ytree_map_value(&ld->t, n, i)))
			return ERR_INVENTORY;
	return 0;
}

static void apply_profile(struct host *h, const struct hw_profile *p)
{
	h->hcas = xcalloc(p->nhcas ? p->nhcas : 1, sizeof(*h->hcas));
	h->nhcas = p->nhcas;
	for (size_t i = 0; i < p->nhcas; i++) {
		h->hcas[i] = p->hcas[i];
		h->hcas[i].name = xstrdup(p->hcas[i].name);
		h->hcas[i].width = p->hcas[i].width ? xstrdup(p->hcas[i].width) : NULL;
		h->hcas[i].speed = p->hcas[i].speed ? xstrdup(p->hcas[i].speed) : NULL;
	}
	h->gpus.count = p->gpus.count;
	h->gpus.model = p->gpus.model ? xstrdup(p->gpus.model) : NULL;
}

/*
 * Roles, hardware and variables, each layer in precedence order. jansson
 * reports running out of memory by NULL or -1: a host whose vars silently
 * lack a layer would be configured wrongly, so that is an error.
 */
static int resolve_hosts(struct loader *ld)
{
	struct inventory *inv = ld->inv;
	int *hw = xmalloc((inv->nhosts ? inv->nhosts : 1) * sizeof(*hw));
	int oom = 0;

	/* A copy of the top level only, values shared, as the groups' and the
	 * host's own layers below share theirs: a value is never changed in
	 * place, only replaced, and 1,000 deep copies of the cluster's vars
	 * were some 1.6 KB a host. */
	for (size_t i = 0; i < inv->nhosts; i++) {
		inv->hosts[i].vars = json_copy(inv->vars);
		oom |= !inv->hosts[i].vars;
		hw[i] = -1;
	}
	if (oom)
		goto out;
	for (int k = 0; k < ld->ngroups; k++) {
		int role = ld->group_order[k];
		const struct group *g = &inv->groups[role];

		for (size_t m = 0; m < g->hosts.n; m++) {
			size_t i = (size_t)host_index(inv, g->hosts.v[m]);

			inv->hosts[i].roles |= 1u << role;
			oom |= json_object_update(inv->hosts[i].vars, g->vars);
			if (ld->group_hw[role] >= 0)
				hw[i] = ld->group_hw[role];
		}
	}
	for (size_t i = 0; i < inv->nhosts; i++) {
		struct host *h = &inv->hosts[i];

		oom |= json_object_update(h->vars, ld->src[i].vars);
		if (ld->src[i].hw >= 0)
			hw[i] = ld->src[i].hw;
		if (hw[i] >= 0)
			apply_profile(h, &ld->hw[hw[i]]);
	}
out:
	free(hw);
	return oom ? err_set(ld->t.err, ERR_INVENTORY, "%s: out of memory merging "
			     "the hosts' vars", inv->path) : 0;
}

/* An address as compared: an IP address in its one text form, a name
 * lower-cased without a final dot. Returns a new string. */
static char *address_key(const char *addr)
{
	unsigned char bin[sizeof(struct in6_addr)];
	char text[INET6_ADDRSTRLEN];
	int af = strchr(addr, ':') ? AF_INET6 : AF_INET;
	char *ret;
	size_t len;

	if (inet_pton(af, addr, bin) == 1 && inet_ntop(af, bin, text, sizeof(text)))
		return xstrdup(text);
	ret = xstrdup(addr);
	for (char *p = ret; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	len = strlen(ret);
	if (len > 1 && ret[len - 1] == '.')
		ret[len - 1] = '\0';
	return ret;
}

/* Where a host's address was written: its `address:`, else its key. */
static yaml_node_t *address_node(const struct loader *ld, size_t i)
{
	return ld->src[i].addr ? ld->src[i].addr : ld->src[i].key;
}

/* Orders host indexes by their address key, then by file order. */
static int cmp_addr(const void *a, const void *b, void *keys)
{
	char *const *k = keys;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(k[x], k[y]);

	return c ? c : (x > y) - (x < y);
}

/* Roles that make a host's stages change the machine (all but bastion and
 * ocp_master, which deploy only reads from or talks through). */
#define CHANGING_ROLES (((1u << ROLE__COUNT) - 1) & \
			~((1u << ROLE_BASTION) | (1u << ROLE_OCP_MASTER)))

/* `same_machine: NAME`: another host of this inventory, not itself marked
 * (no chains). *ret is the host it names, or i itself when unmarked. */
static int resolve_same_machine(struct loader *ld, size_t i, size_t *ret)
{
	struct inventory *inv = ld->inv;
	yaml_node_t *n = ld->src[i].same;
	ssize_t m;

	*ret = i;
	if (!n)
		return 0;
	m = host_index(inv, ytree_str(n));
	if (m < 0 || (size_t)m == i || ld->src[m].same)
		return ytree_fail(&ld->t, n, ytree_text_col(n), "found same_machine '%s' "
				  "in host '%s', expected %s", ytree_str(n), inv->hosts[i].name,
				  m < 0 ? "a host declared under 'hosts'"
				  : (size_t)m == i ? "another host than itself"
				  : "a host without same_machine of its own (name that one)");
	*ret = (size_t)m;
	return 0;
}

static int fail_shared_address(struct loader *ld, size_t first, size_t later,
			       bool same)
{
	const struct host *a = &ld->inv->hosts[first], *b = &ld->inv->hosts[later];
	yaml_node_t *at = address_node(ld, later), *fa = address_node(ld, first);

	if (same)
		return ytree_fail(&ld->t, at, ytree_text_col(at), "found hosts '%s' "
				  "(line %u, column %u) and '%s' at %s port %u, one "
				  "machine (same_machine), both in groups whose stages "
				  "change it, expected only one of its names outside "
				  "bastion and ocp_master", a->name, ytree_line(fa),
				  ytree_col(fa) + ytree_text_col(fa), b->name,
				  b->ssh.address, b->ssh.port);
	return ytree_fail(&ld->t, at, ytree_text_col(at), "found address %s port %u "
			  "of host '%s' already used by host '%s' (line %u, column %u), "
			  "expected one host per address and port (or 'same_machine: %s' "
			  "when both name one machine)", b->ssh.address, b->ssh.port,
			  b->name, a->name, ytree_line(fa),
			  ytree_col(fa) + ytree_text_col(fa), a->name);
}

/*
 * Two hosts at one address and port (through the same jump host, if any)
 * are one machine: planned as two, every stage would run twice on it
 * (mmaddnode of one machine under two names). An error naming both, unless
 * the later says `same_machine: <the other>`; even then only one of the
 * names may be in groups whose stages change the machine. The first
 * offender in file order is reported.
 */
static int check_duplicate_addresses(struct loader *ld)
{
	struct inventory *inv = ld->inv;
	size_t n = inv->nhosts ? inv->nhosts : 1;
	char **key = xcalloc(n, sizeof(*key));
	size_t *machine = xcalloc(n, sizeof(*machine)), *idx = xcalloc(n, sizeof(*idx));
	size_t worst = SIZE_MAX, first = 0;
	bool same = false;
	int ret = 0;

	for (size_t i = 0; i < inv->nhosts; i++) {
		const struct ssh_target *s = &inv->hosts[i].ssh;
		char *a = address_key(s->address);

		key[i] = xasprintf("%s port %u%s%s", a, s->port,
				   s->proxy_jump ? " via " : "",
				   s->proxy_jump ? s->proxy_jump : "");
		free(a);
		idx[i] = i;
		if (!ret)
			ret = resolve_same_machine(ld, i, &machine[i]);
	}
	for (size_t i = 0; !ret && i < inv->nhosts; i++) {
		yaml_node_t *sm = ld->src[i].same;
		const struct host *h = &inv->hosts[i], *m = &inv->hosts[machine[i]];

		if (sm && strcmp(key[i], key[machine[i]]))
			ret = ytree_fail(&ld->t, sm, ytree_text_col(sm), "found "
					 "same_machine '%s' in host '%s' at %s port %u, "
					 "expected a host at the same address and port ('%s' "
					 "is at %s port %u)", m->name, h->name, h->ssh.address,
					 h->ssh.port, m->name, m->ssh.address, m->ssh.port);
	}
	if (ret)
		goto out;
	qsort_r(idx, inv->nhosts, sizeof(*idx), cmp_addr, key);
	for (size_t i = 0, end; i < inv->nhosts; i = end) {
		size_t changer = SIZE_MAX;

		/* one run of hosts at one address, in file order */
		for (end = i; end < inv->nhosts && !strcmp(key[idx[i]], key[idx[end]]); end++) {
			size_t h = idx[end];

			if (end > i && machine[h] != machine[idx[i]] && h < worst) {
				worst = h;
				first = idx[i];
				same = false;
			} else if ((inv->hosts[h].roles & CHANGING_ROLES) &&
				   changer != SIZE_MAX && h < worst) {
				worst = h;
				first = changer;
				same = true;
			}
			if ((inv->hosts[h].roles & CHANGING_ROLES) && changer == SIZE_MAX)
				changer = h;
		}
	}
	if (worst != SIZE_MAX)
		ret = fail_shared_address(ld, first, worst, same);
out:
	for (size_t i = 0; i < inv->nhosts; i++)
		free(key[i]);
	free(key);
	free(machine);
	free(idx);
	return ret;
}

static int var_loc_tree(struct ytree *t, yaml_node_t *root, const struct inventory *inv,
			const char *host, const char *var, const char *key, struct src_loc *ret);

/*
 * gpfs_config is a node class's configuration (scale_tune: mmchconfig -N
 * CLASS): on a host without gpfs_nodeclass nothing would apply it, so it is
 * an error where it was written rather than a setting silently ignored.
 */
static int check_gpfs_config(struct loader *ld)
{
	struct inventory *inv = ld->inv;

	for (size_t i = 0; i < inv->nhosts; i++) {
		const struct host *h = &inv->hosts[i];
		const json_t *cfg = json_object_get(h->vars, "gpfs_config");
		const char *cls = json_string_value(json_object_get(h->vars, "gpfs_nodeclass"));
		struct src_loc loc;

		if (!json_object_size(cfg) || (cls && *cls))
			continue;
		loc = (struct src_loc){ inv->path, 0, 0 };
		if (var_loc_tree(&ld->t, ytree_root(&ld->t), inv, h->name, "gpfs_config", NULL,
				 &loc))
			loc = h->loc;
		return err_set(ld->t.err, ERR_INVENTORY, "%s:%u:%u: found gpfs_config for %s, "
			       "which has no gpfs_nodeclass; expected gpfs_nodeclass beside it "
			       "(gpfs_config is a node class's configuration, mmchconfig -N "
			       "CLASS) or the attributes in gpfs_common_config ([common])",
			       loc.file, loc.line, loc.col, h->name);
	}
	return 0;
}

static int load_tree(struct loader *ld)
{
	yaml_node_t *root = ytree_root(&ld->t), *v[T__N];

	if (!root)
		return err_set(ld->t.err, ERR_INVENTORY, "%s:1:1: found an empty "
			       "document, expected a mapping with 'cluster' and "
			       "'hosts'", ld->inv->path);
	if (ytree_check_map(&ld->t, root, top_keys, "the inventory", v) ||
	    read_cluster(ld, v[T_CLUSTER]) ||
	    read_hardware(ld, v[T_HARDWARE]) ||
	    read_hosts(ld, v[T_HOSTS]) ||
	    check_duplicate_hosts(ld) ||
	    read_groups(ld, v[T_GROUPS]) ||
	    resolve_hosts(ld) ||
	    check_duplicate_addresses(ld) ||
	    check_gpfs_config(ld) ||
	    (v[T_VALIDATE] && ytree_copy(&ld->inv->validate_section, &ld->t, v[T_VALIDATE])) ||
	    read_fabric(ld, v[T_FABRIC]))
		return ERR_INVENTORY;
	return 0;
}

int inventory_load_buf(const char *name, const char *buf, size_t len,
		       struct inventory **ret, struct err *err)
{
	struct loader ld = { 0 };
	int r;

	*ret = NULL;
	ld.inv = xcalloc(1, sizeof(*ld.inv));
	ld.inv->path = xstrdup(name);
	r = ytree_load(&ld.t, ld.inv->path, buf, len, err);
	if (!r)
		r = load_tree(&ld);
	loader_release(&ld);
	if (r) {
		inventory_free(ld.inv);
		return r;
	}
	*ret = ld.inv;
	return 0;
}

int inventory_load(const char *path, struct inventory **ret, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	char chunk[8192];
	size_t n;
	FILE *f = fopen(path, "r");
	int r;

	*ret = NULL;
	if (!f)
		return err_set(err, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 &&
	       sb.len <= MAX_INVENTORY_BYTES)
		strbuf_add(&sb, chunk, n);
	if (ferror(f) || sb.len > MAX_INVENTORY_BYTES) {
		r = ferror(f) ? err_set(err, ERR_IO, "%s: cannot read: %s", path,
					strerror(errno))
			      : err_set(err, ERR_INVENTORY, "%s: found more than %u "
					"bytes, expected an inventory file",
					path, MAX_INVENTORY_BYTES);
		fclose(f);
		strbuf_release(&sb);
		return r;
	}
	fclose(f);
	r = inventory_load_buf(path, sb.buf, sb.len, ret, err);
	strbuf_release(&sb);
	return r;
}

void inventory_free(struct inventory *inv)
{
	if (!inv)
		return;
	for (size_t i = 0; i < inv->nhosts; i++) {
		struct host *h = &inv->hosts[i];

		free(h->name);
		free(h->ssh.address);
		free(h->ssh.user);
		free(h->ssh.key_file);
		free(h->ssh.proxy_jump);
		free_hcas(h->hcas, h->nhcas);
		free(h->gpus.model);
		json_decref(h->vars);
	}
	for (int r = 0; r < ROLE__COUNT; r++) {
		strlist_clear(&inv->groups[r].hosts);
		json_decref(inv->groups[r].vars);
	}
	free(inv->hosts);
	free(inv->by_name);
	free(inv->path);
	free(inv->cluster_name);
	free(inv->known_hosts);
	json_decref(inv->vars);
	ytree_release(&inv->validate_section);
	free(inv->fabric.isl_width);
	free(inv->fabric.isl_speed);
	free(inv);
}

/* Marks the hosts one --limit item names; false when it names none. */
static int select_item(const struct inventory *inv, const char *item, bool *mark,
		       struct err *err)
{
	struct strlist names = STRLIST_INIT;
	int role = role_from_name(item), ret = 0;

	if (!strcmp(item, "all")) {
		for (size_t i = 0; i < inv->nhosts; i++)
			mark[i] = true;
		return 0;
	}
	if (role >= 0) {
		const struct group *g = &inv->groups[role];

		for (size_t m = 0; m < g->hosts.n; m++)
			mark[host_index(inv, g->hosts.v[m])] = true;
		return 0;
	}
	if (nodeset_expand(item, &names, err))
		return err_prefix(err, "--limit: ");
	for (size_t k = 0; k < names.n; k++) {
		ssize_t i = host_index(inv, names.v[k]);

		if (i < 0) {
			ret = err_set(err, ERR_INVENTORY, "no host or group matches "
				      "'%s'", names.v[k]);
			break;
		}
		mark[i] = true;
	}
	strlist_clear(&names);
	return ret;
}

/* Splits a --limit at the commas outside [..]. */
static void split_limit(const char *limit, struct strlist *items)
{
	struct strbuf sb = STRBUF_INIT;
	int depth = 0;

	for (const char *p = limit;; p++) {
		if (!*p || (*p == ',' && !depth)) {
			strbuf_rtrim(&sb);
			strlist_push(items, sb.buf + strspn(sb.buf, " \t"));
			strbuf_reset(&sb);
			if (!*p)
				break;
			continue;
		}
		depth += (*p == '[') - (*p == ']');
		strbuf_addch(&sb, *p);
	}
	strbuf_release(&sb);
}

int inventory_select(const struct inventory *inv, const char *limit,
		     size_t **ret_idx, size_t *ret_n, struct err *err)
{
	struct strlist items = STRLIST_INIT;
	bool *mark = xcalloc(inv->nhosts ? inv->nhosts : 1, sizeof(*mark));
	size_t n = 0;
	int ret = 0;

	*ret_idx = NULL;
	*ret_n = 0;
	split_limit(limit ? limit : "all", &items);
	for (size_t k = 0; k < items.n && !ret; k++)
		ret = select_item(inv, items.v[k], mark, err);
	strlist_clear(&items);
	if (ret) {
		free(mark);
		return ret;
	}
	*ret_idx = xmalloc((inv->nhosts ? inv->nhosts : 1) * sizeof(**ret_idx));
	for (size_t i = 0; i < inv->nhosts; i++)
		if (mark[i])
			(*ret_idx)[n++] = i;
	*ret_n = n;
	free(mark);
	return 0;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}


static json_t *roles_to_json(unsigned roles)
{
	json_t *arr = json_array();

	for (int r = 0; r < ROLE__COUNT; r++)
		if (roles & (1u << r))
			json_array_append_new(arr, json_string(role_names[r]));
	return arr;
}

static json_t *loc_to_json(const struct src_loc *loc)
{
	char *s = xasprintf("%s:%u:%u", loc->file, loc->line, loc->col);
	json_t *j = json_string(s);

	free(s);
	return j;
}

static json_t *hca_to_json(const struct hca_expect *h)
{
	return json_pack("{s:s, s:I, s:I, s:o, s:o, s:s, s:o}",
			 "name", h->name, "port", (json_int_t)h->port,
			 "rate_gbps", (json_int_t)h->rate_gbps,
			 "width", str_or_null(h->width), "speed", str_or_null(h->speed),
			 "link_layer", link_layer_names[h->link_layer],
			 "declared_at", loc_to_json(&h->loc));
}

static json_t *host_to_json(const struct host *h)
{
	json_t *hcas = json_array();

	for (size_t i = 0; i < h->nhcas; i++)
		json_array_append_new(hcas, hca_to_json(&h->hcas[i]));
	return json_pack("{s:s, s:{s:s, s:I, s:s, s:o, s:o}, s:o, s:o, "
			 "s:{s:I, s:o}, s:O, s:o}",
			 "name", h->name,
			 "ssh", "address", h->ssh.address, "port", (json_int_t)h->ssh.port,
			 "user", h->ssh.user, "key_file", str_or_null(h->ssh.key_file),
			 "proxy_jump", str_or_null(h->ssh.proxy_jump),
			 "roles", roles_to_json(h->roles), "hcas", hcas,
			 "gpus", "count", (json_int_t)h->gpus.count,
			 "model", str_or_null(h->gpus.model),
			 "vars", h->vars, "declared_at", loc_to_json(&h->loc));
}

static json_t *groups_to_json(const struct inventory *inv)
{
	json_t *obj = json_object();

	for (int r = 0; r < ROLE__COUNT; r++) {
		const struct group *g = &inv->groups[r];
		json_t *hosts;
		char *folded;

		if (!g->loc.line)
			continue;
		hosts = json_array();
		for (size_t m = 0; m < g->hosts.n; m++)
			json_array_append_new(hosts, json_string(g->hosts.v[m]));
		folded = nodeset_fold(g->hosts.v, g->hosts.n);
		json_object_set_new(obj, role_names[r], json_pack("{s:s, s:o, s:O}",
			"nodeset", folded, "hosts", hosts, "vars", g->vars));
		free(folded);
	}
	return obj;
}

json_t *inventory_to_json(const struct inventory *inv, const struct host *only)
{
	json_t *hosts = json_array();

	for (size_t i = 0; i < inv->nhosts; i++)
		if (!only || only == &inv->hosts[i])
			json_array_append_new(hosts, host_to_json(&inv->hosts[i]));
	return json_pack("{s:s, s:s, s:{s:s, s:I, s:I}, s:O, s:o, s:o}",
			 "path", inv->path, "cluster", inv->cluster_name,
			 "ssh", "known_hosts", inv->known_hosts,
			 "connect_timeout", (json_int_t)inv->connect_timeout_s,
			 "command_timeout", (json_int_t)inv->command_timeout_s,
			 "vars", inv->vars, "groups", groups_to_json(inv),
			 "hosts", hosts);
}

/* ---- where a variable was written (inventory_var_loc) ---- */

/* The value of `key` in mapping n, or NULL; *ret_key gets the key node. */
static yaml_node_t *map_get(struct ytree *t, yaml_node_t *n, const char *key,
			    yaml_node_t **ret_key)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return NULL;
	for (size_t i = 0; i < ytree_map_len(n); i++) {
		yaml_node_t *k = ytree_map_key(t, n, i);
		const char *s = ytree_str(k);

		if (s && !strcmp(s, key)) {
			if (ret_key)
				*ret_key = k;
			return ytree_map_value(t, n, i);
		}
	}
	return NULL;
}

/*
 * The `var` mapping of vars mapping `vars`, when it has one; then its `key`
 * (or, key NULL, the var itself) becomes the candidate, since a later layer's
 * var replaces an earlier one's whole (json_object_update in resolve_hosts).
 */
static void take_layer(struct ytree *t, yaml_node_t *vars, const char *var, const char *key,
		       yaml_node_t **best, bool *found)
{
	yaml_node_t *vk = NULL, *v = map_get(t, vars, var, &vk), *kk = NULL;

	if (!v)
		return;
	*found = true;
	*best = key ? (map_get(t, v, key, &kk) ? kk : NULL) : vk;
}

static bool nodeset_has(const char *pattern, const char *name)
{
	struct strlist names = STRLIST_INIT;
	struct err err = ERR_INIT;
	bool has = !nodeset_expand(pattern, &names, &err) && strlist_index(&names, name) >= 0;

	strlist_clear(&names);
	err_clear(&err);
	return has;
}

/* inventory_var_loc on a loaded tree (root its document); 0 when found. */
static int var_loc_tree(struct ytree *t, yaml_node_t *root, const struct inventory *inv,
			const char *host, const char *var, const char *key, struct src_loc *ret)
{
	yaml_node_t *sec, *best = NULL;
	bool found = false;

	/* The layers in the order resolve_hosts merges them, lowest first. */
	take_layer(t, map_get(t, map_get(t, root, "cluster", NULL), "vars", NULL), var, key,
		   &best, &found);
	sec = map_get(t, root, "groups", NULL);
	for (size_t i = 0; sec && sec->type == YAML_MAPPING_NODE && i < ytree_map_len(sec); i++) {
		const char *g = ytree_str(ytree_map_key(t, sec, i));
		int role = g ? role_from_name(g) : -1;

		if (role >= 0 && strlist_index(&inv->groups[role].hosts, host) >= 0)
			take_layer(t, map_get(t, ytree_map_value(t, sec, i), "vars", NULL),
				   var, key, &best, &found);
	}
	sec = map_get(t, root, "hosts", NULL);
	for (size_t i = 0; sec && sec->type == YAML_MAPPING_NODE && i < ytree_map_len(sec); i++) {
		const char *pat = ytree_str(ytree_map_key(t, sec, i));

		if (pat && nodeset_has(pat, host))
			take_layer(t, map_get(t, ytree_map_value(t, sec, i), "vars", NULL),
				   var, key, &best, &found);
	}
	if (!best)
		return -1;
	ret->line = ytree_line(best);
	ret->col = ytree_col(best);
	return 0;
}

int inventory_var_loc(const struct inventory *inv, const char *host, const char *var,
		      const char *key, struct src_loc *ret)
{
	struct strbuf sb = STRBUF_INIT;
	struct ytree t = { 0 };
	struct err err = ERR_INIT;
	yaml_node_t *root;
	char chunk[8192];
	size_t n;
	int rc = -1;
	FILE *f = inv && inv->path ? fopen(inv->path, "r") : NULL;

	*ret = (struct src_loc){ inv ? inv->path : NULL, 0, 0 };
	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && sb.len <= MAX_INVENTORY_BYTES)
		strbuf_add(&sb, chunk, n);
	fclose(f);
	if (!ytree_load(&t, inv->path, sb.buf, sb.len, &err) && (root = ytree_root(&t)))
		rc = var_loc_tree(&t, root, inv, host, var, key, ret);
	ytree_release(&t);
	err_clear(&err);
	strbuf_release(&sb);
	return rc;
}
