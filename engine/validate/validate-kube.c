/*
 * `bringup validate --via kubernetes` (validate-kube.h): the nccl stage as
 * one MPIJob per node and run, the resnet stage as one per node and GPU
 * count (1, 2, 4, 8), all of a stage created at once through server-side
 * apply (kube-apply.c, so a missing CRD or a 403 reads as in `apply`),
 * each awaited with a watch on its name, its launcher pod's log judged by
 * the stage file's own reader and thresholds (validate-nccl.c,
 * validate-resnet.c).
 */
#include "validate-kube.h"
#include "validate-int.h"
#include "../precheck/check.h"
#include "../facts/facts.h"
#include "../inventory/inventory.h"
#include "../kube/kube-apply.h"
#include "../kube/kube-client.h"
#include "../kube/kube-objects.h"
#include "../ssh/ssh.h"
#include "../base/strbuf.h"
#include "../base/template.h"
#include "../kube/tmpl-render.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A kind of job: where it lives, and how its pod (the MPIJob's launcher) is found. */
struct kkind {
	const char *api_version, *kind, *plural;
	const char *pod_selector; /* URL-encoded label selector, before the job's name */
	const char *pod_selector_tail;
};
/* MPI Operator v0.4+ (kubeflow.org/v2beta1): the launcher pod's labels are
 * training.kubeflow.org/job-name and job-role (github.com/kubeflow/mpi-operator
 * v0.8.0, pkg/apis/kubeflow/v2beta1/constants.go, defaultLabels()). */
static const struct kkind mpijob_v2 = { "kubeflow.org/v2beta1", "MPIJob", "mpijobs",
					"training.kubeflow.org%2Fjob-name%3D",
					"%2Ctraining.kubeflow.org%2Fjob-role%3Dlauncher" };
/* The legacy v0.2.x operator (v1alpha2), only when the inventory asks. */
static const struct kkind mpijob_v1alpha2 = { "kubeflow.org/v1alpha2", "MPIJob", "mpijobs",
					      "mpi_job_name%3D", "%2Cmpi_role_type%3Dlauncher" };

/* The jobs' collection in namespace ns; caller frees. */
static char *coll_path(const struct kkind *k, const char *ns)
{
	return xasprintf("/apis/%s/namespaces/%s/%s", k->api_version, ns, k->plural);
}
#define NRUNS 2
static const char *const run_names[NRUNS] = { "nvlink", "net" };

bool validate_kube_supports(enum validate_stage s)
{
	return s == VSTAGE_NCCL || s == VSTAGE_RESNET;
}

/* One MPIJob: which host and run (nccl) or GPU count (resnet) it measures, and what became of it. */
struct kjob {
	const struct host *h;
	int run;
	char *name;
	json_t *row;              /* the judged result; owned */
	unsigned gpus;
	int done;                 /* wait_job's answer */
	char *log;                /* the launcher's log; owned */
	size_t len;
	char *error;              /* why there is no log to judge; owned */
};

static json_t *str_list(const char *const *v)
{
	json_t *a = json_array();

	for (; *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

/* Appends the items of `more` (a new reference, released) to `a`. */
static void extend_new(json_t *a, json_t *more)
{
	json_array_extend(a, more);
	json_decref(more);
}

/* The launcher's mpirun: the SSH path's environment and arguments (validate-nccl.c). */
static json_t *nccl_command(const struct validate_cfg *cfg, const char *program,
			    const struct host *h, int run)
{
	static const char *const head[] = { "mpirun", "-np", "1", "-bind-to", "none", "-map-by",
					    "slot", "-x", "NCCL_DEBUG=INFO", NULL };
	json_t *c = str_list(head);
	char *g = xasprintf("%u", h->gpus.count);

	if (run == 1)
		extend_new(c, json_pack("[s,s,s,s]", "-x", "NCCL_P2P_DISABLE=1", "-x",
					       "NCCL_SHM_DISABLE=1"));
	if (!cfg->nccl.expect_ib)
		extend_new(c, json_pack("[s,s]", "-x", "NCCL_IB_DISABLE=1"));
	extend_new(c, json_pack("[s,s,s,s, s,s,s,s,s,s,s,s,s]", "-x", "LD_LIBRARY_PATH", "-x",
				       "PATH", program, "-b", cfg->nccl.min_bytes, "-e",
				       cfg->nccl.max_bytes, "-f", "2", "-g", g));
	free(g);
	return c;
}

static int render_job(struct kube_objects *objs, json_t *item, const struct kkind *k,
		      const char *tname, struct err *err)
{
	const char *ver = strchr(k->api_version, '/');
	json_t *ctx = json_pack("{s:O, s:{s:s, s:b}}", "item", item, "mpi", "api_version",
				ver ? ver + 1 : k->api_version, "legacy",
				!strcmp(k->api_version, "kubeflow.org/v1alpha2")), *obj = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	const char *src = template_get(tname, &len);
	int rc;

	if (!src) {
		json_decref(ctx);
		return err_set(err, ERR_INTERNAL, "template %s is not built in", tname);
	}
	rc = tmpl_render_yaml(tname, src, len, ctx, &sb, &obj, err);
	json_decref(ctx);
	if (rc) {
		strbuf_release(&sb);
		return rc;
	}
	objs->v = xrealloc(objs->v, (objs->n + 1) * sizeof(*objs->v));
	objs->v[objs->n++] = (struct kube_object){
		.api_version = xstrdup(k->api_version), .kind = xstrdup(k->kind),
		.name = xstrdup(json_string_value(json_object_get(item, "name"))),
		.ns = xstrdup(json_string_value(json_object_get(item, "namespace"))),
		.template = xstrdup(tname),
		.file = xasprintf("validate/%s", json_string_value(json_object_get(item, "name"))),
		.yaml = strbuf_detach(&sb, NULL), .obj = obj };
	return 0;
}

/* 1 Succeeded, 2 Failed (a condition of that type is True), else 0. */
static int job_done(json_t *job)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(job, "status"), "conditions"), i, c) {
		const char *type = json_string_value(json_object_get(c, "type"));
		const char *st = json_string_value(json_object_get(c, "status"));

		if (type && st && !strcmp(st, "True")) {
			if (!strcmp(type, "Succeeded") || !strcmp(type, "Complete"))
				return 1;
			if (!strcmp(type, "Failed"))
				return 2;
		}
	}
	return 0;
}

static int on_job_event(void *arg, const char *type, json_t *obj)
{
	(void)arg;
	if (!strcmp(type, "DELETED"))
		return 3;
	return job_done(obj);
}

/*
 * Waits until `end` (a now_ms() time) for the job to finish: a GET for its
 * state and resourceVersion, then watches from there (each watch asks the server to close after at
 * most 60 s; a closed watch is started again from the last state).
 * Returns 1 Succeeded, 2 Failed, 3 deleted by someone else, 0 timed out,
 * an ERR_* code (negative, err filled) when the server could not be asked.
 */
static int wait_job(struct kube_client *kc, const struct kkind *k, const char *ns,
		    const char *name, long long end, struct err *err)
{
	char *coll = coll_path(k, ns);

	for (;;) {
		char *path = xasprintf("%s/%s", coll, name);
		struct kube_response r;
		int rc = kube_request(kc, "GET", path, NULL, NULL, 0, &r, err), done;

		free(path);
		if (rc) {
			free(coll);
			return rc;
		}
		if (r.status == 404) {
			kube_response_release(&r);
			free(coll);
			return 3;
		}
		done = r.status == 200 ? job_done(r.json) : 0;
		const char *rv = json_string_value(json_object_get(json_object_get(r.json, "metadata"),
								    "resourceVersion"));
		long long left = (end - now_ms()) / 1000;

		if (done || left <= 0 || r.status != 200) {
			if (r.status != 200 && !done)
				err_set(err, ERR_REMOTE, "GET %s %s/%s: HTTP %ld", k->plural, ns, name,
					r.status);
			kube_response_release(&r);
			free(coll);
			return r.status != 200 && !done ? ERR_REMOTE : done;
		}
		path = xasprintf("%s?watch=1&fieldSelector=metadata.name%%3D%s&resourceVersion=%s"
				 "&timeoutSeconds=%lld", coll, name, rv ? rv : "0", left < 60 ? left : 60);
		kube_response_release(&r);
		rc = kube_watch(kc, path, (unsigned)(left < 60 ? left : 60), on_job_event, NULL, &r, err);
		free(path);
		kube_response_release(&r);
		if (rc > 0 || (rc < 0 && rc != ERR_TIMEOUT)) {
			free(coll);
			return rc;
		}
		err_clear(err); /* the watch's own time ran out: look again */
	}
}

/* The launcher pod's log (mpi_job_name / mpi_role_type, as the operator labels it). */
static char *launcher_log(struct kube_client *kc, const struct kkind *k, const char *ns,
			  const char *name, size_t *ret_len, char **ret_error)
{
	char *path = xasprintf("/api/v1/namespaces/%s/pods?labelSelector=%s%s%s", ns,
			       k->pod_selector, name, k->pod_selector_tail);
	struct kube_response r;
	struct err e = ERR_INIT;
	const char *pod;
	char *out = NULL;

	*ret_error = NULL;
	if (kube_request(kc, "GET", path, NULL, NULL, 0, &r, &e)) {
		*ret_error = xasprintf("listing its %s pod: %s", !strcmp(k->kind, "MPIJob") ? "launcher" : "job's", err_msg(&e));
		goto done;
	}
	pod = json_string_value(json_object_get(json_object_get(json_array_get(
		json_object_get(r.json, "items"), 0), "metadata"), "name"));
	if (!pod) {
		*ret_error = xasprintf("no %s pod (HTTP %ld)", !strcmp(k->kind, "MPIJob") ? "launcher" : "job's", r.status);
		goto done;
	}
	free(path);
	path = xasprintf("/api/v1/namespaces/%s/pods/%s/log", ns, pod);
	kube_response_release(&r);
	if (kube_request(kc, "GET", path, NULL, NULL, 0, &r, &e)) {
		*ret_error = xasprintf("reading pod %s's log: %s", pod, err_msg(&e));
	} else if (r.status != 200) {
		*ret_error = xasprintf("reading pod %s's log: HTTP %ld", pod, r.status);
	} else {
		*ret_len = r.body.len;
		out = strbuf_detach(&r.body, NULL);
	}
done:
	kube_response_release(&r);
	err_clear(&e);
	free(path);
	return out;
}

/* The message of the job's Failed condition (caller frees), or NULL: why a
 * job that never got a pod failed (SCC admission refused it, say). */
static char *failed_message(struct kube_client *kc, const struct kkind *k, const char *ns,
			    const char *name)
{
	char *coll = coll_path(k, ns), *path = xasprintf("%s/%s", coll, name);
	struct kube_response r;
	struct err e = ERR_INIT;
	char *out = NULL;
	json_t *c;
	size_t i;

	free(coll);
	if (!kube_request(kc, "GET", path, NULL, NULL, 0, &r, &e) && r.status == 200)
		json_array_foreach(json_object_get(json_object_get(r.json, "status"), "conditions"), i, c)
			if (!out && !strcmp(json_string_value(json_object_get(c, "type")) ?: "", "Failed") &&
			    json_string_value(json_object_get(c, "message")))
				out = xstrdup(json_string_value(json_object_get(c, "message")));
	kube_response_release(&r);
	err_clear(&e);
	free(path);
	return out;
}

/* Deletes the jobs of this run, each only when its labels say we made it. */
#define DELETE_BODY "{\"propagationPolicy\":\"Background\"}"
static void delete_jobs(struct kube_client *kc, const struct kkind *k, const char *ns,
			const char *run_id, struct kjob *jobs, size_t n)
{
	char *coll = coll_path(k, ns);

	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", coll, jobs[i].name);
		struct kube_response r;
		struct err e = ERR_INIT;

		if (!kube_request(kc, "GET", path, NULL, NULL, 0, &r, &e) && r.status == 200) {
			json_t *l = json_object_get(json_object_get(r.json, "metadata"), "labels");
			const char *by = json_string_value(json_object_get(l, "app.kubernetes.io/managed-by"));
			const char *id = json_string_value(json_object_get(l, "bringup/validate-run"));
			bool ours = by && id && !strcmp(by, "bringup") && !strcmp(id, run_id);

			kube_response_release(&r);
			if (ours && !kube_request(kc, "DELETE", path, "application/json",
					  DELETE_BODY, strlen(DELETE_BODY), &r, &e))
				kube_response_release(&r);
		} else {
			kube_response_release(&r);
		}
		err_clear(&e);
		free(path);
	}
	free(coll);
}

/*
 * Waits for the jobs (side by side: one deadline for all, not one per job
 * in turn) and reads each one's launcher log, or says why there is none.
 */
static void collect(struct kube_client *kc, const struct kkind *k, const char *ns,
		    struct kjob *jobs, size_t nj, unsigned timeout_s, const char *stage)
{
	long long end = now_ms() + (long long)timeout_s * 1000;

	for (size_t i = 0; i < nj; i++) {
		struct kjob *j = &jobs[i];
		struct err e = ERR_INIT;

		j->done = wait_job(kc, k, ns, j->name, end, &e);
		if (j->done < 0)
			j->error = xasprintf("%s %s/%s: %s", k->kind, ns, j->name, err_msg(&e));
		else if (j->done == 0)
			j->error = xasprintf("%s %s/%s did not finish in %u s (%s.timeout_s)", k->kind,
					     ns, j->name, timeout_s, stage);
		else if (j->done == 3)
			j->error = xasprintf("%s %s/%s was deleted before it finished", k->kind, ns,
					     j->name);
		else
			j->log = launcher_log(kc, k, ns, j->name, &j->len, &j->error);
		if (j->done == 2 && !j->log) {
			char *why = failed_message(kc, k, ns, j->name);

			if (why) {
				char *both = xasprintf("%s: %s", j->error ? j->error : "failed", why);

				free(j->error);
				j->error = both;
				free(why);
			}
		}
		if (j->done == 2 && !j->error && !j->len)
			j->error = xasprintf("%s %s/%s failed with an empty %s log", k->kind, ns,
					     j->name, !strcmp(k->kind, "MPIJob") ? "launcher" : "pod");
		err_clear(&e);
	}
}

static void kjobs_release(struct kjob *jobs, size_t nj)
{
	for (size_t i = 0; i < nj; i++) {
		free(jobs[i].name);
		free(jobs[i].log);
		free(jobs[i].error);
		json_decref(jobs[i].row);
	}
	free(jobs);
}

/* What every validation MPIJob of one run shares (cluster var openshift). */
struct kstage {
	const char *ns, *sa, *domain, *image;
	const struct kkind *mpijob;     /* v2beta1, or the legacy v1alpha2 */
	char run_id[16];
};

static int kstage_init(struct kstage *ks, const struct inventory *inv, struct err *err)
{
	json_t *os = json_object_get(inv->vars, "openshift");

	const char *api = kube_mpi_api(inv, err);

	if (!api)
		return ERR_INVENTORY;
	ks->mpijob = !strcmp(api, "v1alpha2") ? &mpijob_v1alpha2 : &mpijob_v2;
	ks->ns = json_string_value(json_array_get(json_object_get(os, "user_namespaces"), 0));
	ks->sa = json_string_value(json_object_get(os, "service_account"));
	ks->domain = json_string_value(json_object_get(os, "node_domain"));
	ks->image = json_string_value(json_object_get(json_object_get(os, "jobs"), "image"));
	snprintf(ks->run_id, sizeof(ks->run_id), "%06llx%04x",
		 (unsigned long long)time(NULL) & 0xffffff, (unsigned)getpid() & 0xffff);
	if (!ks->ns)
		return err_set(err, ERR_INVENTORY, "inventory: --via kubernetes runs the jobs in the "
			       "first of cluster var openshift.user_namespaces, and there is none");
	return 0;
}

static int add_job_kind(const struct kstage *ks, struct kube_objects *objs, const struct kjob *j,
			const struct kkind *k, const char *tname, const char *stage,
			const char *run, json_t *extra, json_t *rdma, struct err *err);

/* Renders MPIJob j (its name, host and GPU count set) into objs; takes command. */
static int add_job(const struct kstage *ks, struct kube_objects *objs, const struct kjob *j,
		   const char *stage, const char *run, json_t *command, json_t *rdma,
		   struct err *err)
{
	return add_job_kind(ks, objs, j, ks->mpijob, "openshift/validate-mpijob.yaml", stage, run,
			    json_pack("{s:o}", "command", command), rdma, err);
}

/* The same for job kind k and template tname; the keys of extra (taken) join the item. */
static int add_job_kind(const struct kstage *ks, struct kube_objects *objs, const struct kjob *j,
			const struct kkind *k, const char *tname, const char *stage,
			const char *run, json_t *extra, json_t *rdma, struct err *err)
{
	char *node = ks->domain ? xasprintf("%s.%s", j->h->name, ks->domain) : xstrdup(j->h->name);
	json_t *item = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:O}",
		"name", j->name, "namespace", ks->ns, "node", node, "run", run,
		"run_id", ks->run_id, "stage", stage, "gpus", (json_int_t)j->gpus,
		"image", ks->image ? ks->image : "nvcr.io/nvidia/tensorflow:20.03-tf2-py3",
		"service_account", ks->sa ? ks->sa : "mpi", "rdma", rdma);
	int rc;

	json_object_update(item, extra);
	json_decref(extra);
	rc = render_job(objs, item, k, tname, err);

	free(node);
	json_decref(item);
	return rc;
}

/* Creates the jobs all at once (the scheduler runs them side by side), then collects them. */
static int start_and_collect(struct kube_client *kc, const struct kkind *k,
			     const struct kube_objects *objs, const char *ns, struct kjob *jobs, size_t nj, unsigned timeout_s,
			     const char *stage, struct err *err)
{
	struct kube_apply_opts ao = { .crd_wait_s = 30 };
	int rc = kube_apply(kc, objs, &ao, err);

	if (rc) {
		err_prefix(err, "validate --via kubernetes: ");
		return rc;
	}
	collect(kc, k, ns, jobs, nj, timeout_s, stage);
	return 0;
}

/* Completes a stage object (takes stage, results and findings) and appends it to report. */
static void finish_stage(json_t *report, json_t *stage, json_t *results, json_t *findings,
			 long long t0)
{
	json_object_set_new(stage, "via", json_string("kubernetes"));
	json_object_set_new(stage, "results", results);
	json_object_set_new(stage, "findings", findings);
	json_object_set_new(stage, "status", json_string(vstatus_name(validate_findings_status(findings))));
	json_object_set_new(stage, "wall_s", json_real((double)(now_ms() - t0) / 1000.0));
	json_array_append_new(json_object_get(report, "stages"), stage);
}

/* The RDMA shared device plugin's resources for the node's IB HCAs (shared_ib0..). */
static json_t *rdma_list(const struct host *h)
{
	json_t *rdma = json_array();
	size_t nib = 0;

	for (size_t k = 0; k < h->nhcas; k++)
		if (h->hcas[k].link_layer == LINK_IB) {
			char *r = xasprintf("shared_ib%zu", nib++);

			json_array_append_new(rdma, json_string(r));
			free(r);
		}
	return rdma;
}

static int nccl_stage(struct kube_client *kc, const struct inventory *inv,
		      const struct validate_opts *o, json_t *report, struct err *err)
{
	struct kstage ks;
	const char *program = json_string_value(json_object_get(json_object_get(json_object_get(
		inv->vars, "openshift"), "jobs"), "nccl_test"));
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	struct kube_objects objs = { NULL, 0 };
	struct kjob *jobs = xcalloc(o->nhosts * NRUNS + 1, sizeof(*jobs));
	long long t0 = now_ms();
	size_t nj = 0;
	int rc = kstage_init(&ks, inv, err);
	const char *ns = ks.ns;

	if (rc)
		goto out;
	for (size_t i = 0; i < o->nhosts; i++) {
		const struct host *h = &inv->hosts[o->hosts[i]];
		json_t *rdma;

		if (!h->gpus.count)
			continue;
		rdma = rdma_list(h);
		for (int run = 0; run < NRUNS && !rc; run++) {
			jobs[nj] = (struct kjob){ .h = h, .run = run, .gpus = h->gpus.count,
				.name = xasprintf("bringup-nccl-%s-%s-%s", h->name, run_names[run], ks.run_id) };
			rc = add_job(&ks, &objs, &jobs[nj++], "nccl", run_names[run],
				     nccl_command(o->cfg, program ? program :
						  "/workspace/other/nccl/all_reduce_perf", h, run), rdma, err);
		}
		json_decref(rdma);
		if (rc)
			goto out;
	}
	if ((rc = start_and_collect(kc, ks.mpijob, &objs, ns, jobs, nj, o->cfg->nccl.timeout_s, "nccl", err)))
		goto out;
	for (size_t i = 0; i < nj; i++) {
		struct kjob *j = &jobs[i];
		int done = j->done;

		j->row = validate_nccl_judge_output(o->cfg, j->h, j->run, j->log, j->len, j->error);
		json_object_set_new(j->row, "mpijob", json_string(j->name));
		if (done == 2 && !strcmp(json_string_value(json_object_get(j->row, "status")), "pass")) {
			/* the figures looked right but the job says it failed */
			json_object_set_new(j->row, "status", json_string("fail"));
			json_object_set_new(j->row, "error", json_string("the MPIJob's launcher failed"));
		}
		/* one try, shaped as the SSH path's tries */
		json_object_set_new(j->row, "tries", json_pack("[{s:i, s:O, s:O, s:O}]", "try", 1,
			"busbw_gbps", json_object_get(j->row, "busbw_gbps"),
			"latency_us", json_object_get(j->row, "latency_us"),
			"status", json_object_get(j->row, "status")));
		json_array_append(results, j->row);
		if (!strcmp(json_string_value(json_object_get(j->row, "status")), "fail"))
			validate_finding(findings, VS_FAIL, j->h->name, NULL,
					 "all_reduce_perf (%s, %u GPUs, MPIJob %s): %s", run_names[j->run],
					 j->h->gpus.count, j->name,
					 json_string_value(json_object_get(j->row, "error")) ?: "failed");
	}
	/* The fleet: a node far below its peers' median, though it passed (as over SSH). */
	for (int run = 0; run < NRUNS; run++) {
		double *v = xcalloc(nj + 1, sizeof(*v)), med;
		bool *low = xcalloc(nj + 1, sizeof(*low));
		size_t *who = xcalloc(nj + 1, sizeof(*who)), n = 0;

		for (size_t i = 0; i < nj; i++) {
			json_t *bw = json_object_get(jobs[i].row, "busbw_gbps");

			if (jobs[i].run == run && json_is_number(bw) &&
			    strcmp(json_string_value(json_object_get(jobs[i].row, "status")), "fail")) {
				who[n] = i;
				v[n++] = json_number_value(bw);
			}
		}
		med = validate_outliers_low(v, n, 5, low);
		for (size_t i = 0; i < n; i++)
			if (low[i])
				validate_finding(findings, VS_WARN, jobs[who[i]].h->name, NULL,
						 "all_reduce_perf (%s): bus bandwidth %.1f GB/s, the fleet's "
						 "median is %.1f (outlier by median and MAD)",
						 run_names[run], v[i], med);
		free(v);
		free(low);
		free(who);
	}
	json_object_set_new(stage, "stage", json_string("nccl"));
	json_object_set_new(stage, "scope", json_string(
		"per node, as MPIJobs (one worker pod with the node's GPUs, pinned by "
		"kubernetes.io/hostname; nvlink, then net with P2P and SHM off); one try each"));
	finish_stage(report, stage, results, findings, t0);
	stage = findings = results = NULL;
out:
	if (ns)
		delete_jobs(kc, ks.mpijob, ns, ks.run_id, jobs, nj);
	kjobs_release(jobs, nj);
	kube_objects_release(&objs);
	json_decref(stage);
	json_decref(findings);
	json_decref(results);
	return rc;
}

#define RESNET_STEPS 4 /* 1, 2, 4, 8 GPUs, as validate-resnet.c */

/* The launcher's command: the benchmark script of the image in one process on G GPUs, with the SSH path's arguments. */
static json_t *resnet_command(const struct validate_cfg *cfg, const char *script, unsigned g)
{
	static const char *const head[] = { "mpirun", "-np", "1", "-bind-to", "none", "-map-by",
					    "slot", "-x", "NCCL_DEBUG=INFO", "-x", "LD_LIBRARY_PATH",
					    "-x", "PATH", "python", NULL };
	/* The MPIJobs run the Redpaper's tf_cnn_benchmarks script, whatever
	 * validate.resnet.benchmark says for the SSH path. */
	struct validate_resnet_cfg tf = cfg->resnet;
	json_t *c = str_list(head);
	char *a[3];

	tf.benchmark = RESNET_TF_CNN;
	a[0] = xasprintf("--batch_size=%u", validate_resnet_batch(&tf));
	a[1] = xasprintf("--num_gpus=%u", g);
	a[2] = xasprintf("--num_batches=%u", cfg->resnet.num_batches);

	extend_new(c, json_pack("[s,s,s,s,s,s]", script, "--model=resnet50", a[0], a[1], a[2],
				"--variable_update=replicated"));
	for (size_t i = 0; i < 3; i++)
		free(a[i]);
	return c;
}

static int resnet_stage(struct kube_client *kc, const struct inventory *inv,
			const struct validate_opts *o, json_t *report, struct err *err)
{
	struct kstage ks;
	const char *script = json_string_value(json_object_get(json_object_get(json_object_get(
		inv->vars, "openshift"), "jobs"), "resnet_script"));
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	struct kube_objects objs = { NULL, 0 };
	struct kjob *jobs = xcalloc(o->nhosts * RESNET_STEPS + 1, sizeof(*jobs));
	const struct host **hs = xcalloc(o->nhosts + 1, sizeof(*hs));
	double *top = xcalloc(o->nhosts + 1, sizeof(*top)), cluster = 0;
	long long t0 = now_ms();
	size_t nj = 0, nh = 0;
	int rc = kstage_init(&ks, inv, err);
	json_t *none = json_array();

	if (rc)
		goto out;
	for (size_t i = 0; i < o->nhosts && !rc; i++) {
		const struct host *h = &inv->hosts[o->hosts[i]];
		size_t n = 0;

		for (unsigned g = 1; g <= h->gpus.count && n < RESNET_STEPS && !rc; g *= 2, n++) {
			char run[16];

			snprintf(run, sizeof(run), "g%u", g);
			jobs[nj] = (struct kjob){ .h = h, .gpus = g,
				.name = xasprintf("bringup-resnet-%s-%s-%s", h->name, run, ks.run_id) };
			rc = add_job(&ks, &objs, &jobs[nj++], "resnet", run, resnet_command(o->cfg,
				     script ? script : "/workspace/other/benchmarks/scripts/"
				     "tf_cnn_benchmarks/tf_cnn_benchmarks.py", g), none, err);
		}
	}
	if (rc || (rc = start_and_collect(kc, ks.mpijob, &objs, ks.ns, jobs, nj, o->cfg->resnet.timeout_s,
					  "resnet", err)))
		goto out;
	/* Each node's steps (consecutive in jobs) judged as over SSH. */
	for (size_t i = 0; i < nj; nh++) {
		unsigned gpus[RESNET_STEPS];
		double ips[RESNET_STEPS];
		json_t *tries = json_array();
		char *error = NULL;
		size_t n = 0;

		hs[nh] = jobs[i].h;
		for (; i < nj && jobs[i].h == hs[nh]; i++, n++) {
			struct kjob *j = &jobs[i];

			gpus[n] = j->gpus;
			free(error);
			error = NULL;
			ips[n] = j->error ? -1 : validate_resnet_parse(j->log, j->len, NULL, &error);
			if (j->error)
				error = xstrdup(j->error);
			else if (j->done == 2 && !error) {
				ips[n] = -1;
				error = xasprintf("the launcher of MPIJob %s failed", j->name);
			}
			if (error && !strstr(error, "MPIJob")) {
				char *e = xasprintf("%s (MPIJob %s)", error, j->name);

				free(error);
				error = e;
			}
			validate_resnet_try(tries, j->gpus, 1, ips[n], error);
		}
		top[nh] = validate_resnet_judge_node(o->cfg, hs[nh], gpus, ips, n, tries, error,
						     NULL, results, findings);
		if (top[nh] >= 0)
			cluster += top[nh];
		json_decref(tries);
		free(error);
	}
	validate_resnet_fleet(hs, top, nh, findings);
	json_object_set_new(stage, "stage", json_string("resnet"));
	json_object_set_new(stage, "scope", json_string(
		"per node, 1-2-4-8 GPUs, as MPIJobs (one worker pod with that many of the node's "
		"GPUs, pinned by kubernetes.io/hostname); one try each; the cluster figure is the "
		"sum of the nodes' (no multi-node run)"));
	json_object_set_new(stage, "cluster_images_per_sec", json_real(cluster));
	finish_stage(report, stage, results, findings, t0);
	stage = findings = results = NULL;
out:
	if (ks.ns)
		delete_jobs(kc, ks.mpijob, ks.ns, ks.run_id, jobs, nj);
	kjobs_release(jobs, nj);
	kube_objects_release(&objs);
	json_decref(none);
	json_decref(stage);
	json_decref(findings);
	json_decref(results);
	free(hs);
	free(top);
	return rc;
}

static const struct kkind batchjob = { "batch/v1", "Job", "jobs", "job-name%3D", "" };

/* The health pod's script: precheck's fact framing (facts.sh) over read-only tools. */
static const char health_script[] =
	"f() { n=$1; shift; printf '\\n::bringup-fact:: %s\\n' \"$n\"; \"$@\" 2>&1; "
	"printf '\\n::bringup-rc:: %s %d\\n' \"$n\" \"$?\"; }\n"
	"f nvidia-smi-q nvidia-smi -q\n"
	"f ibstat ibstat\n"
	"f ibstatus ibstatus\n";
/* The precheck checks judged from it: those that read only these facts. */
static const char *const health_checks[] = { "gpu.row_remap", "gpu.throttle", "ib.hca_present",
					      "ib.port_state", "ib.port_rate", "ib.link_layer" };
#define HEALTH_TIMEOUT_S 300

/*
 * The node health pods' logs as precheck facts (one host_facts per job;
 * a job without a log is a host without facts), judged by precheck's own
 * checks; their failures and warnings become findings, subject and all.
 */
void validate_kube_health_judge(const struct inventory *inv, const struct host *const *hosts,
				const char *const *logs, const char *const *errors, size_t n,
				json_t *results, json_t *findings)
{
	struct facts *f = xcalloc(1, sizeof(*f));
	struct check_opts co = { 0 };
	struct check_report *rep = NULL;
	struct err e = ERR_INIT;

	f->inv = inv;
	f->h = xcalloc(n + 1, sizeof(*f->h));
	/* A node whose pod gave no facts has its finding here and stays out of
	 * the facts: checks_run would report it as unreachable over SSH. */
	for (size_t i = 0; i < n; i++) {
		struct host_facts *hf = &f->h[f->n];

		hf->host = (size_t)(hosts[i] - inv->hosts);
		if (errors[i] || facts_split(logs[i] ? logs[i] : "", logs[i] ? strlen(logs[i]) : 0,
					     &hf->raw, &hf->err)) {
			validate_finding(findings, VS_FAIL, hosts[i]->name, NULL, "health pod: %s",
					 errors[i] ? errors[i] : err_msg(&hf->err));
			json_decref(hf->raw);
			hf->raw = NULL;
			err_clear(&hf->err);
			continue;
		}
		facts_parse(hf);
		f->n++;
	}
	for (size_t i = 0; i < sizeof(health_checks) / sizeof(health_checks[0]); i++)
		strlist_push(&co.only, health_checks[i]);
	if (checks_run(inv, f, &co, &rep, &e)) {
		validate_finding(findings, VS_FAIL, NULL, NULL, "health checks: %s", err_msg(&e));
	} else {
		for (size_t i = 0; i < rep->n; i++) {
			const struct check_result *r = &rep->r[i];
			const char *host = inv->hosts[r->host].name;

			json_array_append_new(results, json_pack("{s:s, s:s, s:o, s:s, s:o, s:o}",
				"host", host, "check", r->def->id,
				"subject", r->subject ? json_string(r->subject) : json_null(),
				"status", check_status_name(r->status),
				"expected", r->expected ? json_string(r->expected) : json_null(),
				"found", r->found ? json_string(r->found) : json_null()));
			if (r->status == CHECK_FAIL || r->status == CHECK_WARN)
				validate_finding(findings, r->status == CHECK_FAIL ? VS_FAIL : VS_WARN,
						 host, r->subject, "%s (health pod): %s, expected %s%s%s",
						 r->def->id, r->found ? r->found : "?",
						 r->expected ? r->expected : "?",
						 r->detail ? ": " : "", r->detail ? r->detail : "");
		}
	}
	check_report_free(rep);
	strlist_clear(&co.only);
	err_clear(&e);
	facts_free(f);
}

static int health_stage(struct kube_client *kc, const struct inventory *inv,
			const struct validate_opts *o, json_t *report, struct err *err)
{
	struct kstage ks;
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	struct kube_objects objs = { NULL, 0 };
	struct kjob *jobs = xcalloc(o->nhosts + 1, sizeof(*jobs));
	const struct host **hs = xcalloc(o->nhosts + 1, sizeof(*hs));
	const char **logs = xcalloc(o->nhosts + 1, sizeof(*logs));
	const char **errors = xcalloc(o->nhosts + 1, sizeof(*errors));
	long long t0 = now_ms();
	size_t nj = 0;
	int rc = kstage_init(&ks, inv, err);

	for (size_t i = 0; i < o->nhosts && !rc; i++) {
		const struct host *h = &inv->hosts[o->hosts[i]];
		json_t *rdma = rdma_list(h);

		jobs[nj] = (struct kjob){ .h = h, .gpus = h->gpus.count,
			.name = xasprintf("bringup-health-%s-%s", h->name, ks.run_id) };
		rc = add_job_kind(&ks, &objs, &jobs[nj++], &batchjob, "openshift/validate-health.yaml",
				  "health", "health", json_pack("{s:s, s:i}", "script", health_script,
				  "deadline", (json_int_t)HEALTH_TIMEOUT_S), rdma, err);
		json_decref(rdma);
	}
	if (rc || (rc = start_and_collect(kc, &batchjob, &objs, ks.ns, jobs, nj, HEALTH_TIMEOUT_S,
					  "health", err)))
		goto out;
	for (size_t i = 0; i < nj; i++) {
		hs[i] = jobs[i].h;
		logs[i] = jobs[i].log;
		errors[i] = jobs[i].error;
	}
	validate_kube_health_judge(inv, hs, logs, errors, nj, results, findings);
	json_object_set_new(stage, "stage", json_string("health"));
	json_object_set_new(stage, "scope", json_string(
		"per node, one Job pinned by kubernetes.io/hostname (no privilege, no capability) "
		"running nvidia-smi -q, ibstat and ibstatus; judged by precheck's checks "
		"gpu.row_remap, gpu.throttle, ib.hca_present, ib.port_state, ib.port_rate, "
		"ib.link_layer"));
	finish_stage(report, stage, results, findings, t0);
	stage = findings = results = NULL;
out:
	if (ks.ns)
		delete_jobs(kc, &batchjob, ks.ns, ks.run_id, jobs, nj);
	kjobs_release(jobs, nj);
	kube_objects_release(&objs);
	json_decref(stage);
	json_decref(findings);
	json_decref(results);
	free(hs);
	free(logs);
	free(errors);
	return rc;
}

int validate_kube(struct kube_client *kc, const struct inventory *inv,
		  const struct validate_opts *o, const bool want[VSTAGE__COUNT],
		  json_t *report, struct err *err)
{
	int rc;

	/* The node checks first, as precheck comes before validate. */
	if ((rc = health_stage(kc, inv, o, report, err)))
		return rc;
	if (want[VSTAGE_NCCL] && (rc = nccl_stage(kc, inv, o, report, err)))
		return rc;
	if (want[VSTAGE_RESNET])
		return resnet_stage(kc, inv, o, report, err);
	return 0;
}
