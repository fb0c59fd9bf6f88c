/*
 * What the Spectrum Scale modules share: the GPFS nodes of the run (from
 * mod_run_hosts) with their designations and node classes, the desired
 * configuration of a node class, and running mm* commands by their full
 * path on the manager node.
 */
#ifndef BRINGUP_MODULES_SCALE_COMMON_H
#define BRINGUP_MODULES_SCALE_COMMON_H

#include <jansson.h>
#include <stdbool.h>

#include "../engine/deploy/module.h"

#define MMBIN "/usr/lpp/mmfs/bin/"

struct scale_node {
	const char *name;
	bool quorum, manager, client;
	const char *nodeclass;     /* gpfs_nodeclass, or NULL */
	const json_t *vars;        /* borrowed from mod_run_hosts */
	const json_t *hcas;
	const char *failed;        /* an earlier stage failed here: left out */
};

struct scale_nodes {
	struct scale_node *v;
	size_t n;
};

/* The run's GPFS nodes (scale_client, scale_quorum, scale_manager), inventory order. */
void scale_nodes_get(const struct mod_ctx *mc, struct scale_nodes *out);
void scale_nodes_release(struct scale_nodes *ns);

/* mmcrcluster/mmaddnode designation: quorum-manager, quorum, manager, client. */
const char *scale_designation(const struct scale_node *n);

/*
 * The node classes of the run, each once, in the order they first appear;
 * "common" is not among them.
 */
void scale_classes(const struct scale_nodes *ns, struct strlist *out);

/*
 * The desired configuration of `cls` (NULL: [common]) as a JSON object
 * attribute -> value string: bringup's defaults (verbs RDMA on the class's
 * storage ports, verbsRdmaCm for RoCE ones, the CSI driver's two attributes cluster-wide), then the
 * class's gpfs_config from the inventory over them. New object; decref.
 */
json_t *scale_desired_config(const struct scale_nodes *ns, const char *cls);

/*
 * verbsPorts for a node: the ports that reach the storage ("mlx5_8/1
 * mlx5_9/1"): its storage_hcas when the inventory names them, InfiniBand
 * or RoCE; else its InfiniBand compute HCAs (compute_hcas when set).
 * *ret_roce: one of them is Ethernet (RoCE), which needs verbsRdmaCm.
 */
void scale_verbs_ports(const json_t *vars, const json_t *hcas, struct strbuf *out,
		       bool *ret_roce);

/* Runs MMBIN/argv[0] with argv[1..]; like mod_exec. */
int scale_mm(struct mod_ctx *mc, const char *const *argv, struct cmd_result *res);
/* The same, failing with the command and its message unless it exits 0. */
int scale_mm_ok(struct mod_ctx *mc, const char *const *argv, struct cmd_result *res);

/* scale_mm_ok without the output. */
int scale_run(struct mod_ctx *mc, const char *const *argv);

/* True when res says the command is not there (GPFS not installed). */
bool scale_not_installed(const struct cmd_result *res);

/* GPFS may show a node with its domain: dgx01 is dgx01.cluster.local. */
bool scale_same_node(const char *gpfs_name, const char *node);

/* Runs an mm command (scale_mm_ok) and parses its output with `parse`. */
int scale_mm_parsed(struct mod_ctx *mc, const char *const *argv,
		    int (*parse)(const char *, size_t, json_t **, struct err *), json_t **ret);

/*
 * Waits until every node of `list` ("a,b") is active, polling mmgetstate
 * -N for at most limit_s seconds; arbitrating (looking for quorum) is on
 * the way there. Past the limit: with ret_down NULL the module fails naming
 * the nodes not active with their state; else *ret_down gets them as
 * [{"name", "state"}] (decref) and ERR_TIMEOUT returns, nothing failed yet.
 */
int scale_wait_active(struct mod_ctx *mc, const char *list, unsigned limit_s,
		      json_t **ret_down);

/*
 * The quorum invariant (engine/deploy/scale-quorum.h) on live state, read
 * here: mmlscluster (which nodes are quorum nodes), mmgetstate -a and
 * mmlsconfig tiebreakerDisks. Fails the module with the refusal (nodes,
 * counts, remedy) when quorum would not hold after set[0..n) stops. Call
 * it right before the stop, once per stop, so that stops serialise
 * through it.
 */
int scale_quorum_guard(struct mod_ctx *mc, const char *const *set, size_t n);

/*
 * mmaddnode carries on past a node it cannot reach: it lists it under "The
 * following nodes could not be added to the GPFS cluster:" (one name a
 * line) and still says "Command successfully completed" (exit 0; the real
 * capture in tests/fixtures/other-tools/mmaddnode/). From its output (out
 * and err together: the list goes to stderr), the nodes not added go to
 * ret_nodes and, index for index, why to ret_why ("client05 cannot be
 * reached.", mmaddnode's own line naming the node, or "" when there is
 * none).
 */
void scale_addnode_not_added(const char *out, const char *err, struct strlist *ret_nodes,
			     struct strlist *ret_why);

/* "a,b,c" of names. */
void scale_join(const struct strlist *names, const char *sep, struct strbuf *out);

#endif
