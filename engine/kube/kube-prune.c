/*
 * ApplySet membership and pruning of what the inventory no longer names.
 * See kube-prune.h.
 */
#include "kube-prune.h"

#include <stdlib.h>
#include <string.h>

#include "../base/jsontext.h"
#include "../base/sha256.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#define PART_OF "applyset.kubernetes.io/part-of"
#define ADDITIONAL_NS "applyset.kubernetes.io/additional-namespaces"

/*
 * The kinds bringup renders and may delete, in deletion order (the reverse
 * of kube-objects.c's apply order: a claim before its volume, a binding
 * before its role, the SCC last).
 */
static const struct prune_kind {
	const char *kind, *group, *prefix, *plural;
	bool namespaced;
} kinds[] = {
	{ "PersistentVolumeClaim", "", "/api/v1", "persistentvolumeclaims", true },
	{ "PersistentVolume", "", "/api/v1", "persistentvolumes", false },
	{ "CSIScaleOperator", "csi.ibm.com", "/apis/csi.ibm.com/v1", "csiscaleoperators", true },
	{ "DaemonSet", "apps", "/apis/apps/v1", "daemonsets", true },
	{ "ConfigMap", "", "/api/v1", "configmaps", true },
	{ "RoleBinding", "rbac.authorization.k8s.io", "/apis/rbac.authorization.k8s.io/v1",
	  "rolebindings", true },
	{ "Role", "rbac.authorization.k8s.io", "/apis/rbac.authorization.k8s.io/v1", "roles", true },
	{ "ServiceAccount", "", "/api/v1", "serviceaccounts", true },
	{ "SecurityContextConstraints", "security.openshift.io", "/apis/security.openshift.io/v1",
	  "securitycontextconstraints", false },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

char *kube_applyset_id(void)
{
	static const char key[] = KUBE_APPLYSET_PARENT "." KUBE_APPLYSET_NAMESPACE ".ConfigMap.";
	uint8_t d[32];
	struct strbuf b = STRBUF_INIT, out = STRBUF_INIT;

	sha256(key, sizeof(key) - 1, d);
	base64_encode((const char *)d, sizeof(d), &b);
	strbuf_addstr(&out, "applyset-");
	for (size_t i = 0; i < b.len; i++) /* RFC 4648 section 5, no padding */
		if (b.buf[i] != '=')
			strbuf_addch(&out, b.buf[i] == '+' ? '-' : b.buf[i] == '/' ? '_' : b.buf[i]);
	strbuf_addstr(&out, "-v1");
	strbuf_release(&b);
	return strbuf_detach(&out, NULL);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *kube_prune_group_kinds(void)
{
	char *gk[NKINDS];
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < NKINDS; i++)
		gk[i] = *kinds[i].group ? xasprintf("%s.%s", kinds[i].kind, kinds[i].group) :
			xstrdup(kinds[i].kind);
	qsort(gk, NKINDS, sizeof(gk[0]), cmp_str);
	for (size_t i = 0; i < NKINDS; i++) {
		strbuf_addf(&sb, "%s%s", i ? "," : "", gk[i]);
		free(gk[i]);
	}
	return strbuf_detach(&sb, NULL);
}

void kube_stale_release(struct kube_stale_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].o.api_version);
		free(l->v[i].o.kind);
		free(l->v[i].o.name);
		free(l->v[i].o.ns);
		free(l->v[i].o.file);
		free(l->v[i].path);
	}
	free(l->v);
	*l = (struct kube_stale_list){ NULL, 0 };
}

/* A 401 in kube-apply.c's words (the credentials, not the prune, are wrong). */
static int unauthorized(struct kube_client *kc, struct err *err)
{
	return err_set(err, ERR_AUTH, "the API server %s refused the credentials of kubeconfig "
		       "user '%s' (401 Unauthorized): the token or client certificate is wrong or "
		       "expired; log in again (oc login) or give another --kubeconfig",
		       kube_client_server(kc), kube_client_user(kc));
}

static char *obj_key(const char *kind, const char *ns, const char *name)
{
	return xasprintf("%s/%s/%s", kind, ns ? ns : "", name);
}

/* The namespaces to look in: the live parent's, the parent's own, the render's. */
static int namespaces(struct kube_client *kc, const struct kube_objects *objs, json_t *set,
		      struct err *err)
{
	struct kube_response r;
	int rc = kube_request(kc, "GET", "/api/v1/namespaces/" KUBE_APPLYSET_NAMESPACE
			      "/configmaps/" KUBE_APPLYSET_PARENT, NULL, NULL, 0, &r, err);

	if (rc)
		return rc;
	if (r.status == 200) {
		const char *l = json_string_value(json_object_get(json_object_get(json_object_get(
			r.json, "metadata"), "annotations"), ADDITIONAL_NS));
		char *copy = xstrdup(l ? l : ""), *save = NULL;

		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			json_object_set_new(set, t, json_true());
		free(copy);
	} else if (r.status == 401) {
		rc = unauthorized(kc, err);
	} else if (r.status != 404) {
		rc = err_set(err, ERR_REMOTE, "ApplySet parent ConfigMap %s/%s: the server answered "
			     "%ld: %s", KUBE_APPLYSET_NAMESPACE, KUBE_APPLYSET_PARENT, r.status,
			     json_string_value(json_object_get(r.json, "message")) ?: "(no message)");
	}
	kube_response_release(&r);
	json_object_set_new(set, KUBE_APPLYSET_NAMESPACE, json_true());
	for (size_t i = 0; i < objs->n; i++)
		if (objs->v[i].ns && !objs->v[i].workload)
			json_object_set_new(set, objs->v[i].ns, json_true());
	return rc;
}

static int list_kind(struct kube_client *kc, const struct prune_kind *k, const char *ns,
		     const char *id, json_t *rendered, struct kube_stale_list *out, struct err *err)
{
	char *base = ns ? xasprintf("%s/namespaces/%s/%s", k->prefix, ns, k->plural) :
		xasprintf("%s/%s", k->prefix, k->plural);
	char *q = xasprintf("%s?labelSelector=applyset.kubernetes.io%%2Fpart-of%%3D%s", base, id);
	struct kube_response r;
	json_t *item;
	size_t i;
	int rc = kube_request(kc, "GET", q, NULL, NULL, 0, &r, err);

	if (rc)
		goto out;
	if (r.status == 404) /* the kind is not served (a CRD not installed) */
		goto out;
	if (r.status == 401) {
		rc = unauthorized(kc, err);
		goto out;
	}
	if (r.status != 200) {
		rc = err_set(err, ERR_REMOTE, "finding what bringup "
			     "applied before: list %s%s%s answered %ld: %s%s", k->plural,
			     ns ? " in namespace " : "", ns ? ns : "", r.status,
			     json_string_value(json_object_get(r.json, "message")) ?: "(no message)",
			     r.status == 403 ? " (pruning needs `list` and `delete` on every kind "
			     "bringup applies)" : "");
		goto out;
	}
	json_array_foreach(json_object_get(r.json, "items"), i, item) {
		json_t *m = json_object_get(item, "metadata");
		const char *name = json_string_value(json_object_get(m, "name"));
		const char *part = json_string_value(json_object_get(json_object_get(m, "labels"), PART_OF));
		char *key;

		if (!name || !part || strcmp(part, id))
			continue; /* a server that ignored the selector */
		key = obj_key(k->kind, ns, name);
		if (!json_object_get(rendered, key)) {
			out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
			struct kube_stale *s = &out->v[out->n++];

			*s = (struct kube_stale){ .path = xasprintf("%s/%s", base, name) };
			s->o.api_version = *k->group ? xasprintf("%s/%s", k->group,
				strrchr(k->prefix, '/') + 1) : xstrdup("v1");
			s->o.kind = xstrdup(k->kind);
			s->o.name = xstrdup(name);
			s->o.ns = ns ? xstrdup(ns) : NULL;
			s->o.file = xasprintf("live/%s-%s%s%s.yaml", k->plural, ns ? ns : "",
					      ns ? "-" : "", name);
		}
		free(key);
	}
out:
	kube_response_release(&r);
	free(base);
	free(q);
	return rc;
}

int kube_prune_find(struct kube_client *kc, const struct kube_objects *objs,
		    struct kube_stale_list *ret, struct err *err)
{
	json_t *nss = json_object(), *rendered = json_object(), *v;
	char *id = kube_applyset_id();
	const char *ns;
	int rc;

	*ret = (struct kube_stale_list){ NULL, 0 };
	for (size_t i = 0; i < objs->n; i++)
		if (!objs->v[i].workload) {
			char *key = obj_key(objs->v[i].kind, objs->v[i].ns, objs->v[i].name);

			json_object_set_new(rendered, key, json_true());
			free(key);
		}
	rc = namespaces(kc, objs, nss, err);
	for (size_t k = 0; k < NKINDS && !rc; k++) {
		if (!kinds[k].namespaced) {
			rc = list_kind(kc, &kinds[k], NULL, id, rendered, ret, err);
			continue;
		}
		json_object_foreach(nss, ns, v)
			if ((rc = list_kind(kc, &kinds[k], ns, id, rendered, ret, err)))
				break;
	}
	if (rc)
		kube_stale_release(ret);
	json_decref(nss);
	json_decref(rendered);
	free(id);
	return rc;
}

int kube_prune_delete(struct kube_client *kc, const struct kube_stale *s, struct err *err)
{
	struct kube_response r;
	int rc = kube_request(kc, "DELETE", s->path, NULL, NULL, 0, &r, err);

	if (!rc && r.status != 200 && r.status != 202 && r.status != 404)
		rc = err_set(err, ERR_REMOTE, "%s %s%s%s: delete answered %ld: %s%s", s->o.kind,
			     s->o.ns ? s->o.ns : "", s->o.ns ? "/" : "", s->o.name, r.status,
			     json_string_value(json_object_get(r.json, "message")) ?: "(no message)",
			     r.status == 403 ? " (bringup prunes what it applied before: give the "
			     "kubeconfig user `delete` on it, or delete it by hand)" : "");
	kube_response_release(&r);
	return rc;
}
