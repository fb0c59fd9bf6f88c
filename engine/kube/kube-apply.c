/*
 * Server-side apply of the rendered objects: discovery (kind -> resource),
 * the wait for a CRD, the PATCH, and the API server's errors turned into
 * what an admin can act on. See kube-apply.h.
 */
#include "kube-apply.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/diff.h"
#include "../base/xalloc.h"
#include "kube-prune.h"

/* Custom kinds of ours: their CRD and who installs it. */
static const struct crd_hint {
	const char *group, *kind, *plural, *installer;
} crd_hints[] = {
	{ "csi.ibm.com", "CSIScaleOperator", "csiscaleoperators",
	  "the IBM Spectrum Scale CSI operator (OperatorHub, or "
	  "github.com/IBM/ibm-spectrum-scale-csi operator manifests)" },
	{ "kubeflow.org", "MPIJob", "mpijobs",
	  "the MPI Operator (github.com/kubeflow/mpi-operator v0.8.0, "
	  "deploy/v2beta1/mpi-operator.yaml; or, with openshift.mpi_operator.api "
	  "v1alpha2, `bringup render --with-operators`, DIR/operators/)" },
	{ "security.openshift.io", "SecurityContextConstraints", "securitycontextconstraints",
	  "OpenShift (SecurityContextConstraints exist only there)" },
};

const char *kube_outcome_str(enum kube_outcome o)
{
	switch (o) {
	case KUBE_CREATED: return "created";
	case KUBE_CONFIGURED: return "configured";
	case KUBE_UNCHANGED: return "unchanged";
	case KUBE_WOULD_CREATE: return "would create";
	case KUBE_WOULD_CHANGE: return "would change";
	case KUBE_DELETED: return "deleted";
	case KUBE_WOULD_DELETE: return "would delete";
	}
	return "?";
}

struct resolved {
	char *prefix;      /* "/api/v1", "/apis/rbac.authorization.k8s.io/v1" */
	char *plural;
	bool namespaced;
};

static void resolved_release(struct resolved *r)
{
	free(r->prefix);
	free(r->plural);
}

static const struct crd_hint *hint_for(const char *kind)
{
	for (size_t i = 0; i < sizeof(crd_hints) / sizeof(crd_hints[0]); i++)
		if (!strcmp(crd_hints[i].kind, kind))
			return &crd_hints[i];
	return NULL;
}

static const char *status_message(const struct kube_response *r)
{
	const char *m = json_string_value(json_object_get(r->json, "message"));

	return m ? m : r->status ? "(no message)" : "(no answer)";
}

/* What a failed answer means, for object `o` and the verb we tried. */
static int fail_status(struct kube_client *kc, const struct kube_object *o, const char *verb,
		       const char *resource, const struct kube_response *r, struct err *err)
{
	const char *ns = o->ns ? o->ns : "";

	switch (r->status) {
	case 401:
		return err_set(err, ERR_AUTH, "%s %s: the API server %s refused the credentials of "
			       "kubeconfig user '%s' (401 Unauthorized): the token or client "
			       "certificate is wrong or expired; log in again (oc login) or give "
			       "another --kubeconfig", o->kind, o->name, kube_client_server(kc),
			       kube_client_user(kc));
	case 403:
		return err_set(err, ERR_REMOTE, "%s %s: forbidden (403): kubeconfig user '%s' may not "
			       "'%s' %s%s%s: bind that user a Role or ClusterRole with verb '%s' on "
			       "'%s', or apply as a cluster admin (server: %s)", o->kind, o->name,
			       kube_client_user(kc), verb, resource, *ns ? " in namespace " : "", ns,
			       verb, resource, status_message(r));
	case 409: {
		json_t *causes = json_object_get(json_object_get(r->json, "details"), "causes"), *c;
		struct strbuf sb = STRBUF_INIT;
		size_t i;
		int rc;

		json_array_foreach(causes, i, c) {
			const char *m = json_string_value(json_object_get(c, "message"));
			const char *f = json_string_value(json_object_get(c, "field"));

			if (m)
				strbuf_addf(&sb, "%s%s%s%s", sb.len ? "; " : "", m,
					    f ? " at " : "", f ? f : "");
		}
		rc = err_set(err, ERR_STATE, "%s %s: conflict (409): %s. bringup applies with "
			     "force=false and never takes a field another field manager owns: change "
			     "it through that manager, or have an admin hand it over "
			     "(oc apply --server-side --force-conflicts --field-manager=bringup)",
			     o->kind, o->name, sb.len ? sb.buf : status_message(r));
		strbuf_release(&sb);
		return rc;
	}
	case 422:
		return err_set(err, ERR_REMOTE, "%s %s is invalid (422): %s (from %s)", o->kind,
			       o->name, status_message(r), o->template);
	case 404:
		return err_set(err, ERR_NOTFOUND, "%s %s: not found (404): %s%s", o->kind, o->name,
			       status_message(r), *ns ? " (is the namespace there? it is rendered "
			       "before what lives in it)" : "");
	default:
		return err_set(err, ERR_REMOTE, "%s %s: %s answered %ld: %s", o->kind, o->name,
			       kube_client_server(kc), r->status, status_message(r));
	}
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits until the CRD of `h` is Established; actionable when it is missing. */
static int wait_crd(struct kube_client *kc, const struct kube_object *o,
		    const struct crd_hint *h, unsigned wait_s, struct err *err)
{
	char *path = xasprintf("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/%s.%s",
			       h->plural, h->group);
	double end = now_s() + wait_s;
	int rc = 0;

	for (;;) {
		struct kube_response r;
		bool established = false;

		if ((rc = kube_request(kc, "GET", path, NULL, NULL, 0, &r, err)))
			break;
		if (r.status == 404) {
			rc = err_set(err, ERR_NOTFOUND, "%s %s: the API server does not know kind %s "
				     "(%s): its CustomResourceDefinition %s.%s is missing: install %s "
				     "first, then apply again", o->kind, o->name, o->kind,
				     o->api_version, h->plural, h->group, h->installer);
		} else if (r.status != 200) {
			rc = fail_status(kc, o, "get", "customresourcedefinitions."
					 "apiextensions.k8s.io", &r, err);
		} else {
			json_t *conds = json_object_get(json_object_get(r.json, "status"), "conditions"), *c;
			size_t i;

			json_array_foreach(conds, i, c)
				if (!strcmp(json_string_value(json_object_get(c, "type")) ?: "", "Established") &&
				    !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True"))
					established = true;
		}
		kube_response_release(&r);
		if (rc || established)
			break;
		if (now_s() >= end) {
			rc = err_set(err, ERR_TIMEOUT, "%s %s: CustomResourceDefinition %s.%s is not "
				     "Established after %u s (is %s running?)", o->kind, o->name,
				     h->plural, h->group, wait_s, h->installer);
			break;
		}
		sleep_ms(250);
	}
	free(path);
	return rc;
}

/* The resource of o's kind, by discovery of its group version. */
static int resolve(struct kube_client *kc, const struct kube_object *o, unsigned wait_s,
		   struct resolved *ret, struct err *err)
{
	const struct crd_hint *h = hint_for(o->kind);
	bool core = !strchr(o->api_version, '/');
	char *prefix = xasprintf(core ? "/api/%s" : "/apis/%s", o->api_version);
	struct kube_response r;
	json_t *v;
	size_t i;
	int rc;

	*ret = (struct resolved){ NULL, NULL, false };
	if (h && (rc = wait_crd(kc, o, h, wait_s, err))) {
		free(prefix);
		return rc;
	}
	if ((rc = kube_request(kc, "GET", prefix, NULL, NULL, 0, &r, err))) {
		free(prefix);
		return rc;
	}
	if (r.status == 200) {
		json_array_foreach(json_object_get(r.json, "resources"), i, v) {
			const char *name = json_string_value(json_object_get(v, "name"));

			if (name && !strchr(name, '/') &&
			    !strcmp(json_string_value(json_object_get(v, "kind")) ?: "", o->kind)) {
				*ret = (struct resolved){ prefix, xstrdup(name),
					json_is_true(json_object_get(v, "namespaced")) };
				kube_response_release(&r);
				return 0;
			}
		}
	}
	if (r.status == 200 || r.status == 404)
		rc = err_set(err, ERR_NOTFOUND, "%s %s: the API server does not serve kind %s in %s%s%s",
			     o->kind, o->name, o->kind, o->api_version, h ? ": install " : "",
			     h ? h->installer : "");
	else
		rc = fail_status(kc, o, "get", prefix, &r, err);
	kube_response_release(&r);
	free(prefix);
	return rc;
}

/* The object as a diff shows it: without what the server keeps for itself. */
static char *diff_text(json_t *obj)
{
	json_t *c = obj ? json_deep_copy(obj) : json_object();
	json_t *m = json_object_get(c, "metadata");
	static const char *const drop[] = { "managedFields", "resourceVersion", "uid",
					    "creationTimestamp", "generation" };
	char *s;

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		json_object_del(m, drop[i]);
	json_object_del(c, "status");
	s = json_dumps(c, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(c);
	if (s) {
		char *t = xasprintf("%s\n", s);

		free(s);
		return t;
	}
	return xstrdup("");
}

static int apply_one(struct kube_client *kc, const struct kube_object *o,
		     const struct kube_apply_opts *opts, struct err *err)
{
	struct resolved res;
	struct kube_response live = { 0 }, r = { 0 };
	char *path = NULL, *resource = NULL, *q = NULL;
	int rc = resolve(kc, o, opts->crd_wait_s, &res, err);

	if (rc)
		return rc;
	resource = strchr(o->api_version, '/') ?
		xasprintf("%s.%.*s", res.plural, (int)(strchr(o->api_version, '/') - o->api_version),
			  o->api_version) : xstrdup(res.plural);
	path = res.namespaced && o->ns ?
		xasprintf("%s/namespaces/%s/%s/%s", res.prefix, o->ns, res.plural, o->name) :
		xasprintf("%s/%s/%s", res.prefix, res.plural, o->name);
	if ((rc = kube_request(kc, "GET", path, NULL, NULL, 0, &live, err)))
		goto out;
	if (live.status != 200 && live.status != 404) {
		rc = fail_status(kc, o, "get", resource, &live, err);
		goto out;
	}
	if (live.status == 404 && !strcmp(o->kind, "Node")) {
		rc = err_set(err, ERR_NOTFOUND, "Node %s does not exist: bringup labels nodes, it "
			     "never creates one (node names are host names plus "
			     "openshift.node_domain; `oc get nodes` lists them)", o->name);
		goto out;
	}
	/* Strict: a field the server's schema does not know is refused (422),
	 * not silently pruned (the default, Warn, prunes it and warns). */
	q = xasprintf("%s?fieldManager=bringup&force=false&fieldValidation=Strict%s", path,
		      opts->check ? "&dryRun=All" : "");
	if ((rc = kube_request(kc, "PATCH", q, "application/apply-patch+yaml", o->yaml,
			       strlen(o->yaml), &r, err)))
		goto out;
	if (opts->check && r.status == 404 && o->ns && !strcmp(json_string_value(json_object_get(
		    json_object_get(r.json, "details"), "kind")) ?: "", "namespaces")) {
		/*
		 * Its namespace is itself only in this dry run: a server cannot
		 * dry-run what lives in it (kubectl has the same limit); show the
		 * object as rendered.
		 */
		kube_response_release(&r);
		r.status = 201;
		r.json = json_incref(o->obj);
	}
	if (r.status != 200 && r.status != 201) {
		rc = fail_status(kc, o, "patch", resource, &r, err);
		goto out;
	}
	if (opts->check) {
		char *a = diff_text(live.status == 200 ? live.json : NULL), *b = diff_text(r.json);
		struct strbuf d = STRBUF_INIT;
		char *an = xasprintf("live/%s", o->file), *bn = xasprintf("bringup/%s", o->file);

		diff_unified(an, a, bn, b, &d);
		if (opts->report)
			opts->report(opts->arg, o, live.status == 404 ? KUBE_WOULD_CREATE :
				     d.len ? KUBE_WOULD_CHANGE : KUBE_UNCHANGED, d.buf);
		strbuf_release(&d);
		free(a);
		free(b);
		free(an);
		free(bn);
	} else if (opts->report) {
		const char *before = json_string_value(json_object_get(json_object_get(live.json,
			"metadata"), "resourceVersion"));
		const char *after = json_string_value(json_object_get(json_object_get(r.json,
			"metadata"), "resourceVersion"));

		opts->report(opts->arg, o, live.status == 404 ? KUBE_CREATED :
			     before && after && !strcmp(before, after) ? KUBE_UNCHANGED :
			     KUBE_CONFIGURED, "");
	}
out:
	kube_response_release(&live);
	kube_response_release(&r);
	resolved_release(&res);
	free(resource);
	free(path);
	free(q);
	return rc;
}

static int kube_apply_objects(struct kube_client *kc, const struct kube_objects *objs,
			      const struct kube_apply_opts *opts, struct err *err);

/* GET of one object's JSON (a new reference) or NULL with err set. */
static json_t *get_json(struct kube_client *kc, const struct kube_object *o, const char *path,
			struct err *err)
{
	struct kube_response r;
	json_t *j = NULL;

	if (kube_request(kc, "GET", path, NULL, NULL, 0, &r, err))
		return NULL;
	if (r.status == 200 && r.json)
		j = json_incref(r.json);
	else
		fail_status(kc, o, "get", path, &r, err);
	kube_response_release(&r);
	return j;
}

/* An allocatable count ("8", a plain integer quantity); -1 when absent or
 * not a whole number. A resource at 0 is registered but offers nothing: a
 * device plugin that found no device, or a kubelet that lost it. */
static long long quantity(json_t *v)
{
	const char *s = json_string_value(v);
	char *end;
	long long n;

	if (json_is_integer(v))
		return json_integer_value(v);
	if (!s || !*s)
		return -1;
	n = strtoll(s, &end, 10);
	return *end ? -1 : n;
}

/*
 * After the apply: the device plugin's DaemonSet has every pod ready, and
 * every labelled GPU node offers each rdma/shared_ibN and nvidia.com/gpu, at more than 0
 * (Redpaper 3.4.1-3.4.2: what the scheduler needs before MPI jobs run).
 */
static int wait_ready(struct kube_client *kc, const struct kube_objects *objs, unsigned wait_s,
		      void (*note)(void *, const char *), void *arg, struct err *err)
{
	const struct kube_object *ds = NULL, *cm = NULL;
	double end = now_s() + wait_s;
	int rc = 0;

	for (size_t i = 0; i < objs->n; i++) {
		if (!strcmp(objs->v[i].kind, "DaemonSet"))
			ds = &objs->v[i];
		if (!strcmp(objs->v[i].kind, "ConfigMap") && !strcmp(objs->v[i].name, "rdma-devices"))
			cm = &objs->v[i];
	}
	if (!ds || !cm)
		return 0;
	json_t *conf = json_loads(json_string_value(json_object_get(json_object_get(cm->obj, "data"),
						    "config.json")) ?: "{}", 0, NULL);
	char *dspath = xasprintf("/apis/apps/v1/namespaces/%s/daemonsets/%s", ds->ns, ds->name);
	struct strbuf missing = STRBUF_INIT;

	for (;;) {
		json_t *d = get_json(kc, ds, dspath, err), *st;
		json_int_t want, ready;

		if (!d) {
			rc = err->code;
			break;
		}
		st = json_object_get(d, "status");
		want = json_integer_value(json_object_get(st, "desiredNumberScheduled"));
		ready = json_integer_value(json_object_get(st, "numberReady"));
		json_decref(d);
		strbuf_reset(&missing);
		if (want <= 0)
			strbuf_addf(&missing, "DaemonSet %s/%s has no pod scheduled yet", ds->ns, ds->name);
		else if (ready < want)
			strbuf_addf(&missing, "DaemonSet %s/%s has %lld of %lld pods ready", ds->ns,
				    ds->name, (long long)ready, (long long)want);
		for (size_t i = 0; i < objs->n && !missing.len; i++) {
			const struct kube_object *n = &objs->v[i];
			json_t *node, *alloc, *c;
			size_t k;

			if (strcmp(n->kind, "Node"))
				continue;
			char *np = xasprintf("/api/v1/nodes/%s", n->name);

			node = get_json(kc, n, np, err);
			free(np);
			if (!node) {
				rc = err->code;
				break;
			}
			alloc = json_object_get(json_object_get(node, "status"), "allocatable");
			if (quantity(json_object_get(alloc, "nvidia.com/gpu")) <= 0)
				strbuf_addf(&missing, "node %s offers no nvidia.com/gpu (is the GPU "
					    "operator / SRO running?)", n->name);
			json_array_foreach(json_object_get(conf, "configList"), k, c) {
				const char *res = json_string_value(json_object_get(c, "resourceName"));
				char *key = xasprintf("rdma/%s", res ? res : "");

				if (!missing.len && quantity(json_object_get(alloc, key)) <= 0)
					strbuf_addf(&missing, "node %s offers no %s (allocatable %s)",
						    n->name, key, json_string_value(json_object_get(alloc,
						    key)) ?: "missing");
				free(key);
			}
			json_decref(node);
		}
		if (rc || !missing.len)
			break;
		if (now_s() >= end) {
			rc = err_set(err, ERR_TIMEOUT, "not ready after %u s: %s", wait_s, missing.buf);
			break;
		}
		if (note)
			note(arg, missing.buf);
		sleep_ms(500);
	}
	strbuf_release(&missing);
	free(dspath);
	json_decref(conf);
	return rc;
}

int kube_apply(struct kube_client *kc, const struct kube_objects *objs,
	       const struct kube_apply_opts *opts, struct err *err)
{
	int rc = kube_apply_objects(kc, objs, opts, err);

	if (rc || opts->check || !opts->ready_wait_s)
		return rc;
	return wait_ready(kc, objs, opts->ready_wait_s, opts->note, opts->arg, err);
}

static bool is_parent(const struct kube_object *o)
{
	return !strcmp(o->kind, "ConfigMap") && !strcmp(o->name, KUBE_APPLYSET_PARENT) &&
	       o->ns && !strcmp(o->ns, KUBE_APPLYSET_NAMESPACE);
}

static int apply_some(struct kube_client *kc, const struct kube_objects *objs, bool parent,
		      const struct kube_apply_opts *opts, struct err *err)
{
	for (size_t i = 0; i < objs->n; i++) {
		if (objs->v[i].workload || is_parent(&objs->v[i]) != parent)
			continue; /* validation jobs are run, not part of the bring-up */
		int rc = apply_one(kc, &objs->v[i], opts, err);

		if (rc) {
			err_prefix(err, "%s: ", objs->v[i].file);
			return rc;
		}
	}
	return 0;
}

/*
 * What bringup applied before and the render no longer holds is found
 * first (the live ApplySet parent still names the namespaces of the last
 * apply); --check reports it before anything else. A real apply applies
 * the objects, deletes the stale ones, and only then the parent with the
 * new namespaces: a run cut short before that finds them again.
 */
static int kube_apply_objects(struct kube_client *kc, const struct kube_objects *objs,
			      const struct kube_apply_opts *opts, struct err *err)
{
	struct kube_stale_list stale = { NULL, 0 };
	int rc = opts->prune ? kube_prune_find(kc, objs, &stale, err) : 0;

	if (rc)
		return rc;
	for (size_t i = 0; i < stale.n && opts->check; i++)
		if (opts->report)
			opts->report(opts->arg, &stale.v[i].o, KUBE_WOULD_DELETE, "");
	rc = apply_some(kc, objs, false, opts, err);
	for (size_t i = 0; i < stale.n && !rc && !opts->check; i++) {
		if ((rc = kube_prune_delete(kc, &stale.v[i], err)))
			break;
		if (opts->report)
			opts->report(opts->arg, &stale.v[i].o, KUBE_DELETED, "");
	}
	if (!rc)
		rc = apply_some(kc, objs, true, opts, err);
	kube_stale_release(&stale);
	return rc;
}
