/*
 * The rolling upgrade (`bringup upgrade`): what it reads before it plans
 * (which nodes are down already), and the playbook it runs. An upgrade is a
 * generated playbook run by deploy.c: per batch, in order, the stages
 * kube_node drain (with a Kubernetes layer: cordon, evictions that honour
 * PodDisruptionBudgets), scale_node stop (cluster manager role moved away,
 * quorum guard, mmshutdown), ofed (the new release, a reboot when the
 * install needs one), scale_install (--to scale=: the new release's
 * packages, rpm -U), gpu_driver (--to driver=: the runfile, a reboot),
 * peermem (loaded against the new OFED and driver), scale_node
 * start (mmbuildgpl, mmstartup, wait active, mount), scale_rdma (verbs
 * RDMA on the configured ports again), kube_node uncordon; the last with
 * max_fail_percent 0: a node that failed stops the run at the end of its
 * batch (left cordoned), and no later batch starts. The journal gives --resume.
 */
#ifndef BRINGUP_UPGRADE_H
#define BRINGUP_UPGRADE_H

#include <stdbool.h>

#include "../base/err.h"
#include "../inventory/inventory.h"
#include "../ssh/runner.h"
#include "../base/strbuf.h"
#include "upgrade-plan.h"

/* --to ofed=VER[,scale=VER][,driver=VER]; the strings are owned. */
struct upgrade_to {
	char *ofed, *scale, *driver;
};

/* Parses `spec`; ERR_USAGE naming the part at fault. */
int upgrade_to_parse(const char *spec, struct upgrade_to *ret, struct err *err);
void upgrade_to_release(struct upgrade_to *t);

/*
 * What each host is now (one mmgetstate on each, in parallel over r):
 * down[i] true when host i cannot be reached or its GPFS daemon is not
 * active; state[i] (owned strings, caller frees each and the array) says
 * "active", "down", "arbitrating", "unreachable: ..." or "no GPFS".
 */
int upgrade_probe(struct runner *r, const struct inventory *inv, bool *down,
		  char **state, struct err *err);

/* The planner's nodes for every host of inv (names and states borrowed;
 * state may be NULL). Caller frees. */
struct upg_node *upgrade_nodes(const struct inventory *inv, const bool *down,
			       char *const *state);

/*
 * Quorum and manager roles from GPFS itself: runs mmlscluster and mmlsconfig
 * tiebreakerDisks on the first node whose state[] is "active" and sets the
 * ROLE_SCALE_QUORUM / ROLE_SCALE_MANAGER bits of nodes[] from mmlscluster's
 * designations (a node mmlscluster does not list has neither), whatever the
 * inventory's groups say. *ret_tiebreaker: tiebreaker disks configured.
 * Appends to `notes` one line per node whose designation differs from the
 * inventory's (drift), or why the inventory's roles stand (no active node).
 * Returns 0, or an error when mmlscluster fails or cannot be parsed.
 */
int upgrade_scale_roles(struct runner *r, const struct inventory *inv, char *const *state,
			struct upg_node *nodes, bool *ret_tiebreaker, struct strbuf *notes,
			struct err *err);

/* What the command line gave for the new releases (NULL: the inventory's
 * variables supply them through the stages' parameters); borrowed. */
struct upgrade_files {
	const char *ofed_tarball;     /* --ofed-tarball */
	const char *scale_installer;  /* --scale-installer */
	const char *driver_installer; /* --driver-installer */
};

/* The playbook of the plan (YAML, appended to out). With a Kubernetes
 * layer (kube_layer()) each batch is cordoned and drained before it goes
 * down, and uncordoned once back (modules/mod-kube-node.c). */
void upgrade_playbook(const struct inventory *inv, const struct upg_plan *p,
		      const struct upgrade_to *to, const struct upgrade_files *files,
		      struct strbuf *out);

/*
 * --to scale=VER: the Spectrum Scale installer directory `dir` (the
 * extracted installer, with gpfs_rpms/ or gpfs_debs/) holds gpfs.base of
 * release VER (5.1.2.1 is the package version 5.1.2-1). ERR_USAGE naming
 * what it holds otherwise.
 */
int upgrade_scale_installer_check(const char *dir, const char *version, struct err *err);

/* "ofed=X,scale=Y" of what `to` names (caller frees). */
char *upgrade_to_str(const struct upgrade_to *to);

/*
 * STATE/upgrade/in-progress: the releases an unfinished upgrade moves to
 * (as --to names them), so that precheck reports the mixed-version window
 * as such, not as drift. upgrade_mark writes it (before the first node goes
 * down), upgrade_unmark removes it (the upgrade completed);
 * upgrade_in_progress reads it into *ret (upgrade_to_release it) and says
 * whether there is one.
 */
int upgrade_mark(const char *state_dir, const struct upgrade_to *to, struct err *err);
void upgrade_unmark(const char *state_dir);
bool upgrade_in_progress(const char *state_dir, struct upgrade_to *ret);

/*
 * STATE/upgrade/run: the run (deploy's journal, STATE/runs/ID) that carries
 * out the planned upgrade, and how many nodes its plan left out (such an
 * upgrade never finishes). Written after the playbook and the in-progress
 * mark, and removed before a new plan replaces them, so that `upgrade
 * --resume` never continues another plan's journal: no record means no
 * upgrade got as far as its first stage. upgrade_run_record writes it
 * whole (a new file renamed over); upgrade_run_read gives the id (caller
 * frees) and says whether there is one.
 */
int upgrade_run_record(const char *state_dir, const char *run_id, size_t nleft,
		       struct err *err);
void upgrade_run_forget(const char *state_dir);
bool upgrade_run_read(const char *state_dir, char **ret_id, size_t *ret_nleft);

/*
 * STATE/upgrade/releases: the releases finished upgrades installed
 * ("ofed=X,scale=Y,driver=Z", the latest of each), which deploy takes as
 * the desired ones where the cluster runs them and the inventory still
 * names the old (modules' `upgraded` parameter), saying which keys to
 * change. upgrade_finish adds what the in-progress mark names (*ret_done
 * gets it: upgrade_to_release it; all NULL when there was no mark) and
 * then removes the mark; upgrade_releases reads the record.
 */
int upgrade_finish(const char *state_dir, struct upgrade_to *ret_done, struct err *err);
bool upgrade_releases(const char *state_dir, struct upgrade_to *ret);

/*
 * The inventory keys that still name another release than `rel` (one line
 * each, "set ofed_version: X in the inventory (it says Y), ..."), appended
 * to out; nothing when the inventory already names them.
 */
void upgrade_inventory_keys(const struct inventory *inv, const struct upgrade_to *rel,
			    struct strbuf *out);

/* A batch's nodes folded ("dgx[01,04-06]"); caller frees. */
char *upgrade_batch_set(const struct inventory *inv, const struct upg_batch *b);

#endif
