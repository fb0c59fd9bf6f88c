/*
 * The simulated cluster: N nodes on one machine, each a real OpenSSH sshd on
 * its own loopback address whose ForceCommand (sim/tools/sim-shell) runs every
 * command in the node's own mount and UTS namespaces. See sim/README.md for
 * the directory layout and the contract with the stand-in tools.
 *
 * This is library code: nothing here prints or exits; every failure comes
 * back as an error code with a message in `struct err`.
 */
#ifndef BRINGUP_SIM_H
#define BRINGUP_SIM_H

#include <stdbool.h>
#include <sys/types.h>

#include "../engine/base/err.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/strlist.h"

#define SIM_DEFAULT_NODES 4
#define SIM_DEFAULT_PORT 2222
#define SIM_DEFAULT_PROFILE "dgx1-edr"
/* Addresses run 127.0.1.1 .. 127.0.1.250, 127.0.2.1 ...; a bound keeps
 * a typo such as -n 100000 from spawning a machine's worth of sshds. */
#define SIM_MAX_NODES 1024
/* host ports of one leaf in a two-level fabric: half of a 128-port switch */
#define SIM_MAX_LEAF_PORTS 64
#define SIM_ADDRS_PER_NET 250
/* Spectrum Scale of the simulated cluster (sim/tools/sim-gpfs-lib.sh and
 * sim-init-gpfs hold the same values): the release the installer in
 * D/cluster/scale carries, and the remote storage cluster that owns the
 * file system the client cluster mounts. */
#define SIM_GPFS_VERSION "5.0.4.3"
#define SIM_GPFS_REMOTE "ess3000.bda.scale.ibm.com"
#define SIM_GPFS_CONTACTS "fscc-fab3-3-a-priv.bda.scale.com, fscc-fab3-3-b-priv.bda.scale.com"
#define SIM_GPFS_FS "ess3000_4M"

/* The managed InfiniBand switch `sim up --switch` adds after the nodes. */
#define SIM_SWITCH_NAME "ibsw01"

/* One HCA port of a profile, as node.conf's HCA_<name> describes it. */
struct sim_hca {
	const char *name;       /* "mlx5_0" */
	const char *link_layer; /* "InfiniBand" | "Ethernet" */
	unsigned rate_gbps;     /* 100 */
	const char *width;      /* "4X" */
	const char *speed;      /* "EDR", "HDR", "NDR" */
	const char *use;        /* "compute" | "storage" */
};

/* A kind of machine the simulator can pretend to be. */
struct sim_profile {
	const char *name;          /* "dgx1-edr": --profile and the inventory's hardware key */
	const char *summary;       /* one line for --help */
	const char *host_prefix;   /* node names are prefix + zero-padded number */
	const char *system;        /* "DGX-1" */
	const char *os_id;         /* os-release ID */
	const char *os_version_id;
	const char *os_pretty_name;
	const char *kernel;        /* uname -r */
	unsigned gpu_count;
	const char *gpu_model;     /* as nvidia-smi names it */
	const char *gpu_driver;
	const char *cuda_version;
	unsigned long long mem_total_kb; /* MemTotal of /proc/meminfo */
	const struct sim_hca *hcas;
	unsigned nhcas;
	const char *ofed_version;  /* what a `ready` node has installed */
	const char *peermem_module;
};

extern const struct sim_profile sim_profiles[];
extern const unsigned sim_nprofiles;

/* NULL when no profile has that name. */
const struct sim_profile *sim_profile_find(const char *name);

enum sim_state { SIM_STATE_BARE, SIM_STATE_READY };

const char *sim_state_name(enum sim_state st);
int sim_state_from_name(const char *s); /* -1 when unknown */

struct sim_node {
	char *name; /* "dgx01" */
	char *addr; /* "127.0.1.1" */
	char *dir;  /* D/nodes/NAME */
};

/* A simulated cluster: what `sim up` creates, or what sim_load() reads back. */
struct sim {
	char *dir;             /* D, absolute */
	char *user;            /* who logs in: the user that ran sim up */
	char *token;           /* D/token; NULL until sim_up or sim_load */
	const struct sim_profile *profile;
	enum sim_state state;
	unsigned port;
	unsigned n;             /* compute nodes */
	bool with_switch;       /* nodes[n] is the managed switch SIM_SWITCH_NAME */
	unsigned leaf_ports;    /* host ports per leaf of a two-level fabric (spines
				 * above the leaves); 0: one leaf while the ports fit */
	struct sim_node *nodes; /* sim_nnodes() of them */
	bool rootless;          /* not run as root: nodes get a user namespace too */
};

/*
 * $BRINGUP_SIM_DIR, or ~/.local/state/bringup/sim; made absolute.
 * Returns a new string (caller frees) or NULL with err set.
 */
char *sim_default_dir(struct err *err);

/* Node i of n ("dgx01"; numbers are 1-based, at least two digits wide). */
char *sim_node_name(const struct sim_profile *p, unsigned i, unsigned n);
/* 127.0.(1 + i / 250).(1 + i % 250); caller frees. */
char *sim_node_addr(unsigned i);
/* Names first..last (0-based, inclusive) as one node set: "dgx[01-03]" or "dgx01". */
void sim_add_nodeset(struct strbuf *out, const struct sim *s, unsigned first, unsigned last);

/*
 * A description of a cluster, with names, addresses and node dirs filled in;
 * nothing on disk is touched. Returns NULL with err set when the directory
 * holds characters the sshd and fstab files cannot carry, or n is out of range.
 * Free with sim_free().
 */
struct sim *sim_new(const char *dir, const struct sim_profile *p, enum sim_state st,
		    unsigned n, unsigned port, struct err *err);
void sim_free(struct sim *s);
/*
 * Adds the managed switch (node SIM_SWITCH_NAME on the address after the
 * last node): its sshd's ForceCommand is the switch CLI (sim-switch-cli),
 * the inventory puts it in groups ib_switch and sm_host with sm_backend
 * switch, and no compute node runs opensm. Call before sim_up.
 */
void sim_add_switch(struct sim *s);
/* Every node with an sshd: the compute nodes and the switch. */
static inline unsigned sim_nnodes(const struct sim *s)
{
	return s->n + (s->with_switch ? 1 : 0);
}
static inline bool sim_is_switch(const struct sim *s, unsigned i)
{
	return s->with_switch && i == s->n;
}
/* Index of the node called name, or -1. */
int sim_node_find(const struct sim *s, const char *name);

/* The texts sim up writes (exposed for the unit tests). */
void sim_format_node_conf(struct strbuf *out, const struct sim *s, unsigned i);
void sim_format_inventory(struct strbuf *out, const struct sim *s);
void sim_format_sshd_config(struct strbuf *out, const struct sim *s, unsigned i,
			    const char *sftp_server, bool per_source_penalties);
void sim_format_fstab(struct strbuf *out, const struct sim *s, unsigned i);
/* D/cluster/hosts: every node's name and address; nodes copy it to /etc/hosts. */
void sim_format_hosts(struct strbuf *out, const struct sim *s);

/*
 * Creates the cluster in s->dir and starts one sshd per node. Refuses
 * (ERR_STATE) while a cluster runs there. Wipes earlier node state. May move
 * s->port up when the port is taken on some address. On failure, whatever it
 * started is stopped again.
 */
int sim_up(struct sim *s, struct err *err);

/*
 * Reads back the cluster sim up created in dir. ERR_NOTFOUND when there is
 * none. *ret owned by the caller (sim_free).
 */
int sim_load(const char *dir, struct sim **ret, struct err *err);

/*
 * Whether anything sim up started in dir still runs (an sshd of a node, or any
 * process carrying the dir's token).
 */
bool sim_running(const char *dir);

/*
 * Stops exactly what sim up started in dir: every sshd in the nodes' pid files
 * and every process whose environment carries this dir's BRINGUP_SIM_TOKEN.
 * TERM first, KILL after a grace period. Nothing running is not an error.
 * *ret_stopped (may be NULL) counts the processes signalled.
 */
int sim_down(const char *dir, unsigned *ret_stopped, struct err *err);

/* The node's running sshd, or 0. */
pid_t sim_node_sshd_pid(const struct sim *s, unsigned i);
/* Appends the node's active faults ("hang", "slow=3") to out, sorted. */
void sim_node_faults(const struct sim *s, unsigned i, struct strlist *out);

/* Every fault kind (unreachable, clear and those D/bin/sim-fault --list names). */
int sim_fault_kinds(const struct sim *s, struct strlist *out, struct err *err);

/*
 * Applies fault `kind` (with optional arg) to node `name`: `unreachable`
 * stops its sshd, `clear` removes every fault and starts sshd again, the rest
 * go to D/bin/sim-fault. ERR_USAGE, naming the valid choices, for an unknown
 * node or kind.
 */
int sim_fault(const struct sim *s, const char *name, const char *kind, const char *arg,
	      struct err *err);

#endif
