/*
 * Cordon, drain and uncordon through the Kubernetes API; see kube-node.h.
 */
#include "kube-node.h"
#include "../base/xalloc.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *message_of(const struct kube_response *r)
{
	const char *m = json_string_value(json_object_get(r->json, "message"));

	return m ? m : r->body.len ? r->body.buf : "no message";
}

/* An answer that is not what was asked for, worded for the admin. */
static int api_error(struct kube_client *kc, const char *what, const char *verb,
		     const char *resource, const struct kube_response *r, struct err *err)
{
	if (r->status == 401)
		return err_set(err, ERR_AUTH, "%s: the API server %s refused the credentials of "
			       "kubeconfig user '%s' (401 Unauthorized): log in again (oc login) or "
			       "give another kubeconfig", what, kube_client_server(kc),
			       kube_client_user(kc));
	if (r->status == 403)
		return err_set(err, ERR_REMOTE, "%s: forbidden (403): kubeconfig user '%s' may not "
			       "'%s' %s: a drain needs get/patch on nodes, list on pods and create on "
			       "pods/eviction (server: %s)", what, kube_client_user(kc), verb,
			       resource, message_of(r));
	if (r->status == 404)
		return err_set(err, ERR_NOTFOUND, "%s: not found: %s", what, message_of(r));
	return err_set(err, ERR_REMOTE, "%s: the API server answered %ld: %s", what, r->status,
		       message_of(r));
}

static char *node_path(const char *node)
{
	return xasprintf("/api/v1/nodes/%s", node);
}

int kube_node_cordoned(struct kube_client *kc, const char *node, bool *ret, struct err *err)
{
	struct kube_response r = { 0 };
	char *path = node_path(node), *what = xasprintf("Node %s", node);
	int rc = kube_request(kc, "GET", path, NULL, NULL, 0, &r, err);

	if (!rc && r.status != 200)
		rc = api_error(kc, what, "get", "nodes", &r, err);
	if (!rc)
		*ret = json_is_true(json_object_get(json_object_get(r.json, "spec"), "unschedulable"));
	kube_response_release(&r);
	free(path);
	free(what);
	return rc;
}

int kube_node_set_cordon(struct kube_client *kc, const char *node, bool cordon, struct err *err)
{
	/* A merge patch: null removes the field, which is what uncordon leaves. */
	const char *body = cordon ? "{\"spec\":{\"unschedulable\":true}}" :
				    "{\"spec\":{\"unschedulable\":null}}";
	struct kube_response r = { 0 };
	char *path = node_path(node), *what = xasprintf("%s Node %s",
		cordon ? "cordon" : "uncordon", node);
	int rc = kube_request(kc, "PATCH", path, "application/merge-patch+json", body,
			      strlen(body), &r, err);

	if (!rc && r.status != 200)
		rc = api_error(kc, what, "patch", "nodes", &r, err);
	kube_response_release(&r);
	free(path);
	free(what);
	return rc;
}

enum pod_kind { POD_EVICT, POD_LEAVE, POD_REFUSE };

/* Whether DaemonSet NAME in namespace ns exists (ERR_* when it cannot be told). */
static int daemonset_exists(struct kube_client *kc, const char *ns, const char *name, bool *ret,
			    struct err *err)
{
	char *path = xasprintf("/apis/apps/v1/namespaces/%s/daemonsets/%s", ns, name);
	char *what = xasprintf("DaemonSet %s/%s", ns, name);
	struct kube_response r = { 0 };
	int rc = kube_request(kc, "GET", path, NULL, NULL, 0, &r, err);

	if (!rc && r.status != 200 && r.status != 404)
		rc = api_error(kc, what, "get", "daemonsets.apps", &r, err);
	*ret = !rc && r.status == 200;
	kube_response_release(&r);
	free(what);
	free(path);
	return rc;
}

/*
 * What a drain does with this pod (kubectl drain's filters); *ret_why says
 * why a refused pod is refused.
 */
static int pod_kind(struct kube_client *kc, json_t *pod, bool allow_emptydir,
		    enum pod_kind *ret, const char **ret_why, struct err *err)
{
	json_t *meta = json_object_get(pod, "metadata"), *owner, *vol;
	const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"),
							      "phase"));
	const char *ns = json_string_value(json_object_get(meta, "namespace")) ?: "";
	bool controlled = false;
	size_t i;

	*ret = POD_LEAVE;
	*ret_why = NULL;
	if (json_object_get(json_object_get(meta, "annotations"), "kubernetes.io/config.mirror"))
		return 0;
	if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
		return 0;
	json_array_foreach(json_object_get(meta, "ownerReferences"), i, owner) {
		if (!json_is_true(json_object_get(owner, "controller")))
			continue;
		if (!strcmp(json_string_value(json_object_get(owner, "kind")) ?: "", "DaemonSet")) {
			bool there = false;
			int rc = daemonset_exists(kc, ns, json_string_value(json_object_get(owner,
						  "name")) ?: "", &there, err);

			if (rc)
				return rc;
			if (!there) {
				*ret = POD_REFUSE;
				*ret_why = "its DaemonSet is gone: nothing would start it again";
			}
			return 0;
		}
		controlled = true;
	}
	if (!controlled) {
		*ret = POD_REFUSE;
		*ret_why = "no controller: it would be lost, not moved";
		return 0;
	}
	json_array_foreach(json_object_get(json_object_get(pod, "spec"), "volumes"), i, vol)
		if (json_object_get(vol, "emptyDir") && !allow_emptydir) {
			*ret = POD_REFUSE;
			*ret_why = "emptyDir data would be lost (set drain_delete_emptydir_data to "
				   "allow it)";
			return 0;
		}
	*ret = POD_EVICT;
	return 0;
}

/* The node's pods as "NAMESPACE/NAME" lists, by what a drain does with them;
 * uids (may be NULL) gets each evicted pod's uid, refused "ID: why". */
static int list_pods(struct kube_client *kc, const char *node, bool allow_emptydir,
		     struct strlist *evict, struct strlist *uids, struct strlist *refuse,
		     struct err *err)
{
	struct kube_response r = { 0 };
	char *path = xasprintf("/api/v1/pods?fieldSelector=spec.nodeName%%3D%s", node);
	char *what = xasprintf("the pods of node %s", node);
	json_t *pod;
	size_t i;
	int rc = kube_request(kc, "GET", path, NULL, NULL, 0, &r, err);

	if (!rc && r.status != 200)
		rc = api_error(kc, what, "list", "pods", &r, err);
	json_array_foreach(rc ? NULL : json_object_get(r.json, "items"), i, pod) {
		json_t *meta = json_object_get(pod, "metadata");
		char *id = xasprintf("%s/%s", json_string_value(json_object_get(meta, "namespace")) ?: "",
				     json_string_value(json_object_get(meta, "name")) ?: "");
		enum pod_kind kind;
		const char *why;

		if (!(rc = pod_kind(kc, pod, allow_emptydir, &kind, &why, err))) {
			switch (kind) {
			case POD_EVICT:
				strlist_push(evict, id);
				if (uids)
					strlist_push(uids, json_string_value(json_object_get(meta,
										  "uid")) ?: "");
				break;
			case POD_REFUSE:
				if (refuse)
					strlist_push_owned(refuse, xasprintf("%s (%s)", id, why));
				break;
			case POD_LEAVE:
				break;
			}
		}
		free(id);
		if (rc)
			break;
	}
	kube_response_release(&r);
	free(path);
	free(what);
	return rc;
}

int kube_node_pods(struct kube_client *kc, const char *node, bool allow_emptydir,
		   struct strlist *out, struct strlist *refused, struct err *err)
{
	return list_pods(kc, node, allow_emptydir, out, NULL, refused, err);
}

/*
 * One eviction: 0 and *ret_blocked false when the server took it (or the
 * pod is gone already), *ret_blocked true with the budget's words in `why`
 * when a PodDisruptionBudget does not allow it yet (429).
 */
static int evict(struct kube_client *kc, const char *id, bool *ret_blocked,
		 struct strbuf *why, struct err *err)
{
	const char *slash = strchr(id, '/');
	char *ns = xstrndup(id, (size_t)(slash - id)), *name = xstrdup(slash + 1);
	char *path = xasprintf("/api/v1/namespaces/%s/pods/%s/eviction", ns, name);
	char *body = NULL, *what = xasprintf("evict pod %s", id);
	json_t *ev = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "policy/v1", "kind",
			       "Eviction", "metadata", "name", name, "namespace", ns);
	struct kube_response r = { 0 };
	int rc;

	body = json_dumps(ev, JSON_COMPACT);
	rc = kube_request(kc, "POST", path, "application/json", body, strlen(body), &r, err);
	*ret_blocked = false;
	if (!rc && r.status == 429) {
		json_t *c;
		size_t i;

		*ret_blocked = true;
		strbuf_reset(why);
		json_array_foreach(json_object_get(json_object_get(r.json, "details"), "causes"), i, c)
			if (json_string_value(json_object_get(c, "message")))
				strbuf_addf(why, "%s%s", why->len ? "; " : "",
					    json_string_value(json_object_get(c, "message")));
		if (!why->len)
			strbuf_addstr(why, message_of(&r));
	} else if (!rc && r.status != 200 && r.status != 201 && r.status != 404) {
		rc = api_error(kc, what, "create", "pods/eviction", &r, err);
	}
	kube_response_release(&r);
	json_decref(ev);
	free(body);
	free(what);
	free(path);
	free(name);
	free(ns);
	return rc;
}

/* Whether the pod `id` with `uid` still exists: a pod of that name with
 * another uid is its replacement (a StatefulSet's), the evicted one is gone. */
static int pod_present(struct kube_client *kc, const char *id, const char *uid, bool *ret,
		       struct err *err)
{
	const char *slash = strchr(id, '/');
	char *path = xasprintf("/api/v1/namespaces/%.*s/pods/%s", (int)(slash - id), id, slash + 1);
	char *what = xasprintf("pod %s", id);
	struct kube_response r = { 0 };
	int rc = kube_request(kc, "GET", path, NULL, NULL, 0, &r, err);

	if (!rc && r.status != 200 && r.status != 404)
		rc = api_error(kc, what, "get", "pods", &r, err);
	*ret = !rc && r.status == 200 && !strcmp(json_string_value(json_object_get(
		json_object_get(r.json, "metadata"), "uid")) ?: "", uid);
	kube_response_release(&r);
	free(what);
	free(path);
	return rc;
}

static void joined(const struct strlist *l, struct strbuf *out)
{
	for (size_t i = 0; i < l->n; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", l->v[i]);
}

int kube_node_drain(struct kube_client *kc, const char *node, unsigned timeout_s,
		    bool allow_emptydir, void (*note)(void *arg, const char *what), void *arg,
		    struct err *err)
{
	struct strlist pods = STRLIST_INIT, refused = STRLIST_INIT, left = STRLIST_INIT;
	struct strlist uids = STRLIST_INIT;
	struct strbuf why = STRBUF_INIT, msg = STRBUF_INIT;
	bool *evicted = NULL;
	double end = now_s() + timeout_s;
	int rc;

	if ((rc = kube_node_set_cordon(kc, node, true, err)) ||
	    (rc = list_pods(kc, node, allow_emptydir, &pods, &uids, &refused, err)))
		goto out;
	if (refused.n) {
		joined(&refused, &msg);
		rc = err_set(err, ERR_STATE, "drain node %s: pods a drain must not evict: %s; "
			     "delete or move them yourself, then run again (the node stays "
			     "cordoned)", node, msg.buf);
		goto out;
	}
	evicted = xcalloc(pods.n + 1, sizeof(*evicted));
	for (;;) {
		size_t waiting = 0;

		strlist_clear(&left);
		for (size_t i = 0; i < pods.n && !rc; i++) {
			bool blocked = false, present = true;

			if (!evicted[i] && !(rc = evict(kc, pods.v[i], &blocked, &why, err)))
				evicted[i] = !blocked;
			if (!rc && evicted[i] && !(rc = pod_present(kc, pods.v[i], uids.v[i], &present, err)) &&
			    !present)
				continue;
			if (!rc) {
				char *l = xasprintf("%s (%s)", pods.v[i], evicted[i] ? "ending" :
						    why.buf);

				strlist_push_owned(&left, l);
				waiting++;
			}
		}
		if (rc || !waiting)
			break;
		strbuf_reset(&msg);
		joined(&left, &msg);
		if (now_s() >= end) {
			rc = err_set(err, ERR_TIMEOUT, "drain node %s: pods still there after %u s: %s "
				     "(the node stays cordoned)", node, timeout_s, msg.buf);
			break;
		}
		if (note) {
			char *what = xasprintf("drain %s: %s", node, msg.buf);

			note(arg, what);
			free(what);
		}
		sleep(1);
	}
out:
	strlist_clear(&pods);
	strlist_clear(&uids);
	strlist_clear(&refused);
	strlist_clear(&left);
	strbuf_release(&why);
	strbuf_release(&msg);
	free(evicted);
	return rc;
}
