/*
 * Playbooks: an ordered list of stages, each naming a module, the hosts it
 * runs on and its parameters. Everything is checked when the playbook is
 * loaded and resolved against the inventory, with FILE:LINE:COL in every
 * message, so that a typo fails before any host is touched.
 *
 *   name: deploy
 *   stages:
 *     - name: memlock           # default: the module's name
 *       module: memlock
 *       hosts: gpu_worker       # groups and/or node sets, comma-separated or a list
 *       params: { limit: unlimited, crio: "{{ use_crio }}" }
 *       serial: 25%             # batch size (hosts or percent)
 *       max_fail_percent: 10    # stop the run when more fail in a stage
 *       depends: [selinux_ib]   # earlier stages that must have succeeded on the host
 *       tags: [limits]
 *       run_once: true          # on one host of `hosts` (the first that has not failed)
 *       local: true             # on the admin host instead
 *       optional: true          # an empty group in `hosts` is no error: the
 *                               # cluster has no such part (no Spectrum Scale)
 *
 * Parameters: the module's default < the inventory variable the module
 * names for it (host vars, merged as the inventory merges them) < the
 * stage's `params` (where "{{ var }}" means that inventory variable).
 */
#ifndef BRINGUP_PLAYBOOK_H
#define BRINGUP_PLAYBOOK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../inventory/inventory.h"
#include "../base/strlist.h"

struct stage_module;

struct stage_param {
	char *name;
	json_t *value;        /* as written; a string "{{ var }}" refers to a variable */
	unsigned line, col;
};

struct stage {
	char *name;
	const struct stage_module *module;
	char *hosts;          /* selector as written, ',' joined; NULL for local */
	struct stage_param *params;
	size_t nparams;
	unsigned serial;      /* 0: all at once */
	bool serial_percent;  /* serial is a percentage of the stage's hosts */
	int max_fail_percent; /* -1: not set (a failed host stops only itself) */
	size_t *depends;      /* indexes of earlier stages */
	size_t ndepends;
	struct strlist tags;
	bool run_once, local;
	bool optional;        /* empty groups in hosts are skipped, not an error */
	unsigned line, col;   /* of the stage's mapping */
	/* Filled by playbook_resolve(). */
	size_t *host_idx;     /* into inv->hosts, inventory order */
	size_t nhosts;
	bool absent;          /* optional local stage whose module does not apply */
};

struct playbook {
	char *path;           /* name used in messages */
	char *name;
	struct stage *stages;
	size_t nstages;
};

/*
 * Parses a playbook against a module table (sorted by name, as in
 * modules/modules.c). Returns 0 with *ret owned by the caller
 * (playbook_free), or ERR_PARSE / ERR_INVENTORY with "FILE:LINE:COL: ...".
 */
int playbook_load_buf(const char *name, const char *buf, size_t len,
		      const struct stage_module *const *mods, size_t nmods,
		      struct playbook **ret, struct err *err);
int playbook_load(const char *path, const struct stage_module *const *mods,
		  size_t nmods, struct playbook **ret, struct err *err);
void playbook_free(struct playbook *pb);

/*
 * Resolves every stage's hosts in `inv` (an empty group is an error) and
 * checks every parameter for every host. Returns 0 or ERR_INVENTORY with
 * FILE:LINE:COL of the stage or parameter at fault.
 */
int playbook_resolve(struct playbook *pb, const struct inventory *inv, struct err *err);

/*
 * Sets string parameter `name` of every stage of `module` that does not set
 * it itself (above the inventory's variable; see above), e.g. what the
 * state directory knows. Returns how many stages got it.
 */
size_t playbook_default_param(struct playbook *pb, const char *module, const char *name,
			      const char *value);

/* The stage named `name`, or -1. */
int playbook_stage_index(const struct playbook *pb, const char *name);

/*
 * A stage's parameters for one host, merged and typed (see above): a new
 * JSON object the caller decrefs, or NULL with err set.
 */
json_t *stage_params(const struct playbook *pb, const struct stage *s,
		     const struct host *h, struct err *err);

#endif
