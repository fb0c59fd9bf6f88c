/*
 * The inventory model: what `-i inventory.yaml` resolves to.
 *
 * Parsing turns every string into typed fields at the boundary and keeps the
 * file:line:column of what it read, so that later errors (a stage that uses
 * an empty group, say) can still point into the file. See inventory/README.md
 * for the YAML schema.
 */
#ifndef BRINGUP_INVENTORY_H
#define BRINGUP_INVENTORY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../base/strlist.h"
#include "../base/yamltree.h"

struct src_loc {
	const char *file; /* points at inventory->path */
	unsigned line, col; /* 1-based; 0 when not from a file */
};

/* Roles a group can have; a host's roles are the union of its groups'. */
enum role {
	ROLE_GPU_WORKER,
	ROLE_SCALE_CLIENT,
	ROLE_SCALE_QUORUM,
	ROLE_SCALE_MANAGER,
	ROLE_NSD_SERVER,
	ROLE_SM_HOST,
	ROLE_IB_SWITCH,
	ROLE_OCP_MASTER,
	ROLE_BASTION,
	ROLE__COUNT
};

const char *role_name(enum role r);
int role_from_name(const char *s); /* -1 when unknown */

enum link_layer { LINK_IB = 0, LINK_ETH };

/* One expected HCA port, e.g. mlx5_0 port 1 at "100 Gb/s 4X EDR". */
struct hca_expect {
	char *name;              /* "mlx5_0" */
	unsigned port;           /* 1-based, default 1 */
	unsigned rate_gbps;      /* 100 */
	char *width;             /* "4X"; NULL when not given */
	char *speed;             /* "EDR", "HDR", "NDR"; NULL when not given */
	enum link_layer link_layer;
	struct src_loc loc;
};

struct gpu_expect {
	unsigned count;          /* 0 when no GPUs are expected */
	char *model;             /* substring of the nvidia-smi name; may be NULL */
};

/* How to reach a host; every field resolved (defaults filled in). */
struct ssh_target {
	char *address;           /* name or IP to connect to */
	unsigned port;           /* default 22 */
	char *user;              /* default: the local user */
	char *key_file;          /* NULL: ssh-agent and ~/.ssh defaults */
	char *proxy_jump;        /* NULL or "[user@]host[:port]" of a jump host */
};

struct host {
	char *name;
	struct ssh_target ssh;
	unsigned roles;          /* bit (1u << enum role) */
	struct hca_expect *hcas;
	size_t nhcas;
	struct gpu_expect gpus;
	json_t *vars;            /* resolved: cluster < group < host; owned */
	struct src_loc loc;      /* where the host was declared */
};

struct group {
	enum role role;
	struct strlist hosts;    /* host names, in declaration order */
	json_t *vars;            /* the group's own vars (not merged); owned */
	struct src_loc loc;
};

/*
 * The optional `fabric:` section: the InfiniBand cabling the site planned,
 * judged against the one iblinkinfo reading of a precheck (ib.fabric_size,
 * ib.fabric_cabling, ib.fabric_isl). A count of -1 was not given.
 */
struct fabric_expect {
	bool present;
	int leaf_switches;       /* switches with hosts cabled to them */
	int spine_switches;      /* switches cabled only to other switches */
	int host_ports_per_leaf; /* at most this many host ports on one leaf */
	int uplinks_per_leaf;    /* cables from each leaf to the spines, spread evenly */
	char *isl_width;         /* "4X": every switch-to-switch link; NULL: as the hosts' ports */
	char *isl_speed;         /* "EDR" */
	struct src_loc loc;      /* the section's mapping */
};

struct inventory {
	char *path;
	char *cluster_name;
	/* Cluster-wide SSH settings. */
	char *known_hosts;       /* default ~/.ssh/known_hosts */
	unsigned connect_timeout_s;  /* default 10 */
	unsigned command_timeout_s;  /* default 600 */
	unsigned jump_sessions;      /* sessions to each jump host; default 1 */
	json_t *vars;            /* cluster vars; owned */
	struct host *hosts;      /* in declaration order */
	size_t nhosts;
	struct group groups[ROLE__COUNT]; /* indexed by role; empty if absent */
	size_t *by_name;         /* indexes into hosts, sorted by name (lookups) */
	/* The `validate:` section as written (not loaded when absent), for
	 * engine/validate to read (validate_config_load): the inventory does
	 * not know what validation wants, only where its section is. */
	struct ytree validate_section;
	struct fabric_expect fabric;  /* the `fabric:` section; .present false when absent */
};

/*
 * Loads and validates an inventory. On error returns ERR_PARSE (malformed
 * YAML) or ERR_INVENTORY (valid YAML, invalid content) with a message
 * "FILE:LINE:COL: what was found, what was expected". The returned
 * inventory is owned by the caller (inventory_free).
 */
int inventory_load(const char *path, struct inventory **ret, struct err *err);
/* Same, from a buffer; `name` is used in messages. */
int inventory_load_buf(const char *name, const char *buf, size_t len,
		       struct inventory **ret, struct err *err);
void inventory_free(struct inventory *inv);

/* NULL when there is no such host. */
const struct host *inventory_host(const struct inventory *inv, const char *name);

/*
 * Resolves an Ansible-style --limit: comma-separated node sets and/or group
 * (role) names; NULL or "all" selects every host. Fills `ret_idx` (owned by
 * caller, free()) with indexes into inv->hosts in inventory order, no
 * duplicates. A name that matches neither a host nor a group is an error.
 */
int inventory_select(const struct inventory *inv, const char *limit,
		     size_t **ret_idx, size_t *ret_n, struct err *err);

/*
 * Where host's variable `var` (its `key` inside it when key is not NULL:
 * gpfs_config's pagepool) was written: the layer that set it for the host
 * (host over group over cluster, as vars merge), read again from
 * inv->path, so that an error found later, on the host, can point into the
 * file. 0 with *ret filled; -1 when it cannot tell (not set, no file, the
 * file changed), ret->line 0.
 */
int inventory_var_loc(const struct inventory *inv, const char *host, const char *var,
		      const char *key, struct src_loc *ret);

/* The resolved view (as `inventory show -o json` prints); caller decrefs. */
json_t *inventory_to_json(const struct inventory *inv, const struct host *only);

#endif
