/*
 * kube_node: a batch of nodes out of the Kubernetes scheduler's hands for
 * maintenance, and back (engine/kube/kube-node.c), run on the admin host. The
 * rolling upgrade (engine/deploy/upgrade.c) puts a drain before a batch goes down
 * and an uncordon after it came back.
 *
 * action drain     check: which nodes are not cordoned yet and which pods
 *                  would be evicted; apply: cordon, evict honouring
 *                  PodDisruptionBudgets, wait until the pods are gone;
 *                  verify: nothing left to evict.
 * action uncordon  the nodes that came through give their capacity back; a
 *                  node that failed an earlier stage of this run stays
 *                  cordoned, and the stage fails naming it, so that a run
 *                  with max_fail_percent 0 starts no further batch.
 * `nodes` are inventory host names; the Kubernetes names add
 * openshift.node_domain. nodes_from takes them from what an earlier stage
 * recorded instead: the run's hosts whose record PREFIX.HOST is not empty
 * (deploy's GPFS restarts: scale.restart_owed, written by scale_node owed);
 * none such, nothing to do and no API call (a first deploy, before the
 * openshift stage made the cluster). An inventory without the cluster var `openshift`
 * has no Kubernetes layer: the optional stage is left out.
 */
#include "../engine/deploy/module.h"
#include "../engine/inventory/inventory.h"
#include "../engine/kube/kube-node.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *valid_action(const char *v)
{
	return !strcmp(v, "drain") || !strcmp(v, "uncordon") ? NULL : "drain or uncordon";
}

static const struct param_spec params[] = {
	{ "action", PARAM_STRING, "drain", NULL, "drain (cordon, then evict) or uncordon",
	  valid_action },
	{ "nodes", PARAM_STRING, "", NULL, "inventory hosts, comma-separated", NULL },
	{ "nodes_from", PARAM_STRING, "", NULL,
	  "a record prefix: the hosts whose record PREFIX.HOST an earlier stage made non-empty",
	  NULL },
	{ "timeout", PARAM_UINT, "600", "drain_timeout",
	  "seconds a drain may wait for budgets and pods to end", NULL },
	{ "delete_emptydir_data", PARAM_BOOL, "false", "drain_delete_emptydir_data",
	  "evict pods with emptyDir volumes, losing that data (kubectl drain "
	  "--delete-emptydir-data); otherwise such a pod stops the drain", NULL },
	{ NULL },
};

/* Why an earlier stage of this run failed the host, or NULL. */
static const char *failed_earlier(struct mod_ctx *mc, const char *host)
{
	const json_t *h;
	size_t i;

	json_array_foreach(mod_run_hosts(mc), i, h)
		if (!strcmp(json_string_value(json_object_get(h, "name")) ?: "", host))
			return json_string_value(json_object_get(h, "failed"));
	return NULL;
}

struct job {
	struct mod_ctx *mc;
	struct kube_client *kc;
	struct strlist hosts;     /* inventory names */
	struct strlist nodes;     /* their Kubernetes names */
};

static void on_wait(void *arg, const char *what)
{
	mod_note(arg, "waiting: %s", what);
}

static int job_open(struct mod_ctx *mc, struct job *j, struct err *err)
{
	const struct inventory *inv = mod_inventory(mc);
	char *list, *save = NULL;

	memset(j, 0, sizeof(*j));
	j->mc = mc;
	if (!inv)
		return err_set(err, ERR_USAGE, "the kube_node module runs as a local stage");
	list = xstrdup(mod_param_str(mc, "nodes"));
	for (char *h = strtok_r(list, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		strlist_push(&j->hosts, h);
		strlist_push_owned(&j->nodes, kube_node_name(inv, h));
	}
	free(list);
	if (*mod_param_str(mc, "nodes_from")) {
		const json_t *h;
		size_t i;

		json_array_foreach(mod_run_hosts(mc), i, h) {
			const char *name = json_string_value(json_object_get(h, "name"));
			char *key = xasprintf("%s.%s", mod_param_str(mc, "nodes_from"), name);
			const char *v = json_string_value(json_object_get(mod_records(mc), key));

			if (v && *v && strlist_index(&j->hosts, name) < 0) {
				strlist_push(&j->hosts, name);
				strlist_push_owned(&j->nodes, kube_node_name(inv, name));
			}
			free(key);
		}
	}
	if (!j->hosts.n)
		return 0;
	return kube_client_for(inv, NULL, &j->kc, err);
}

static void job_close(struct job *j)
{
	kube_client_free(j->kc);
	strlist_clear(&j->hosts);
	strlist_clear(&j->nodes);
}

/* The drain's plan: a change per node not cordoned and per node with pods. */
static int drain_check(struct job *j, struct err *err)
{
	int rc = 0;

	for (size_t i = 0; i < j->nodes.n && !rc; i++) {
		struct strlist pods = STRLIST_INIT, refused = STRLIST_INIT;
		bool cordoned = false;

		if (!(rc = kube_node_cordoned(j->kc, j->nodes.v[i], &cordoned, err)) &&
		    !(rc = kube_node_pods(j->kc, j->nodes.v[i],
					   mod_param_bool(j->mc, "delete_emptydir_data"), &pods,
					   &refused, err))) {
			if (!cordoned)
				mod_change(j->mc, NULL, "cordon %s", j->nodes.v[i]);
			for (size_t k = 0; k < pods.n; k++)
				mod_change(j->mc, NULL, "evict pod %s from %s", pods.v[k], j->nodes.v[i]);
			for (size_t k = 0; k < refused.n; k++)
				mod_change(j->mc, NULL, "pod %s on %s: the drain will stop there",
					   refused.v[k], j->nodes.v[i]);
		}
		strlist_clear(&pods);
		strlist_clear(&refused);
	}
	return rc;
}

static int drain_apply(struct job *j, struct err *err)
{
	int rc = 0;

	/* All of the batch cordoned first: an evicted pod must not land on a
	 * node of the same batch. A node an admin cordoned before is left as
	 * it is; the ones bringup cordons are recorded (journal) so that only
	 * they are uncordoned, also after --resume. */
	for (size_t i = 0; i < j->nodes.n && !rc; i++) {
		char *key = xasprintf("kube.cordoned_by_bringup.%s", j->nodes.v[i]);
		const json_t *recs = mod_records(j->mc);
		bool cordoned = false;

		if (!(rc = kube_node_cordoned(j->kc, j->nodes.v[i], &cordoned, err)) && !cordoned) {
			mod_record(j->mc, key, "true");
			rc = kube_node_set_cordon(j->kc, j->nodes.v[i], true, err);
		} else if (!rc && !json_object_get(recs, key)) {
			mod_note(j->mc, "%s was cordoned before this run: it stays cordoned",
				 j->nodes.v[i]);
		}
		free(key);
	}
	for (size_t i = 0; i < j->nodes.n && !rc; i++)
		rc = kube_node_drain(j->kc, j->nodes.v[i], mod_param_uint(j->mc, "timeout"),
				     mod_param_bool(j->mc, "delete_emptydir_data"), on_wait, j->mc,
				     err);
	return rc;
}

/* Whether this run's drain cordoned the node (its record). */
static bool cordoned_by_us(struct job *j, const char *node)
{
	char *key = xasprintf("kube.cordoned_by_bringup.%s", node);
	bool r = json_is_string(json_object_get(mod_records(j->mc), key));

	free(key);
	return r;
}

/* Uncordons (with `real`) or plans to uncordon the nodes that came through;
 * *ret_failed gets the ones left cordoned, with why. */
static int uncordon(struct job *j, bool real, struct strbuf *ret_failed, struct err *err)
{
	int rc = 0;

	for (size_t i = 0; i < j->nodes.n && !rc; i++) {
		const char *why = failed_earlier(j->mc, j->hosts.v[i]);
		bool cordoned = false;

		if (why) {
			strbuf_addf(ret_failed, "%s%s (%s)", ret_failed->len ? "; " : "",
				    j->hosts.v[i], why);
			continue;
		}
		if ((rc = kube_node_cordoned(j->kc, j->nodes.v[i], &cordoned, err)) || !cordoned)
			continue;
		if (!cordoned_by_us(j, j->nodes.v[i])) {
			mod_note(j->mc, "%s: cordoned before bringup drained it, left cordoned",
				 j->nodes.v[i]);
			continue;
		}
		if (real)
			rc = kube_node_set_cordon(j->kc, j->nodes.v[i], false, err);
		else
			mod_change(j->mc, NULL, "uncordon %s", j->nodes.v[i]);
	}
	return rc;
}

static int run(struct mod_ctx *mc, bool real)
{
	struct err err = ERR_INIT;
	struct strbuf failed = STRBUF_INIT;
	struct job j;
	bool drain = !strcmp(mod_param_str(mc, "action"), "drain");
	int rc = job_open(mc, &j, &err);

	if (!rc && !j.hosts.n) {
		job_close(&j);
		return 0;
	}
	if (!rc && drain)
		rc = real ? drain_apply(&j, &err) : drain_check(&j, &err);
	else if (!rc)
		rc = uncordon(&j, real, &failed, &err);
	/* Failed nodes fail the stage once the others are back: at apply, or at
	 * check when there is nothing to apply. */
	if (!rc && failed.len && (real || !mod_nchanges(mc)))
		rc = err_set(&err, ERR_STATE, "left cordoned, failed earlier in this run: %s; "
			     "fix them and run `bringup upgrade --resume`", failed.buf);
	if (rc)
		rc = mod_fail(mc, rc, "%s", err_msg(&err));
	job_close(&j);
	strbuf_release(&failed);
	err_clear(&err);
	return rc;
}

static int check(struct mod_ctx *mc)
{
	return run(mc, false);
}

static int apply(struct mod_ctx *mc)
{
	return run(mc, true);
}

const struct stage_module mod_kube_node = {
	.name = "kube_node",
	.summary = "cordon and drain nodes (PodDisruptionBudgets honoured), or uncordon them",
	.version = 1,
	.flags = MOD_LOCAL,
	.params = params,
	.check = check,
	.apply = apply,
	.applies = kube_layer,
};
