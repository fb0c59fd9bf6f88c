/*
 * Unit tests for engine/kube/kube-objects.c and engine/kube/kube-client.c's pure
 * parts: the context the OpenShift templates see (HCAs of the GPU nodes,
 * records before vars, quoting of cluster IDs), the errors for what is
 * missing, byte-identical renders, and kubeconfig loading (sources, refused
 * insecure-skip-tls-verify, base64).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/kube/kube-client.h"
#include "../../engine/kube/kube-objects.h"

static const char base[] =
	"cluster:\n"
	"  name: t\n"
	"  vars:\n"
	"    openshift:\n"
	"      user_namespaces: [ml, cv]\n"
	"      csi:\n"
	"        local: { gui_host: gui, secret: s, gui_ca_file: \"%s\" }\n"
	"      volumes:\n"
	"        - { name: data, dir: d, storage: 1Gi, labels: { team: ml } }\n"
	"%s"
	"hardware:\n"
	"  a: { hcas: [ { names: \"mlx5_[0-1]\", port: 1, rate: 100 Gb/s 4X EDR } ] }\n"
	"  b: { hcas: [ { names: \"mlx5_[0-%c]\", port: 1, rate: 100 Gb/s 4X EDR } ] }\n"
	"hosts:\n"
	"  g1: { address: 127.0.0.1, hardware: a }\n"
	"  g2: { address: 127.0.0.2, hardware: b }\n"
	"groups:\n"
	"  gpu_worker: { hosts: \"g[1-2]\" }\n";

static const char pem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

/* A PEM file for the GUI's CA (openshift.csi.local.gui_ca_file), made once. */
static const char *ca_file(void)
{
	static char path[] = "/tmp/test-kube-ca-XXXXXX";
	static int made;

	if (!made) {
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "a note\n", 7), 7);
		assert_int_equal(write(fd, pem, strlen(pem)), (ssize_t)strlen(pem));
		close(fd);
		made = 1;
	}
	return path;
}

static int build_csi(const char *ca, const char *extra, char last_hca, const json_t *records,
		 struct kube_objects *o, struct err *e)
{
	char *y = NULL;
	struct inventory *inv = NULL;
	int rc;

	assert_true(asprintf(&y, base, ca, extra, last_hca) > 0);
	rc = inventory_load_buf("inv.yaml", y, strlen(y), &inv, e);
	if (rc)
		fail_msg("%s", err_msg(e));
	rc = kube_objects_build(inv, records, o, e);
	inventory_free(inv);
	free(y);
	return rc;
}

static int build(const char *extra, char last_hca, const json_t *records,
		 struct kube_objects *o, struct err *e)
{
	return build_csi(ca_file(), extra, last_hca, records, o, e);
}

static json_t *records(void)
{
	return json_pack("{s:s, s:s, s:s}", "scale.cluster_id", "16217308676014575381",
			 "scale.filesystem_uid", "099B6A7A:5EB99743", "scale.mount_point", "/gpfs/x");
}

static const struct kube_object *find(const struct kube_objects *o, const char *file)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].file, file))
			return &o->v[i];
	fail_msg("no %s", file);
	return NULL;
}

static void test_objects_per_namespace_in_apply_order(void **state)
{
	struct kube_objects o, o2;
	struct err e = ERR_INIT;
	json_t *r = records();

	(void)state;
	assert_int_equal(build("", '1', r, &o, &e), 0);
	/* SCC, 2 x (ns, sa, role, binding), cm, ds, the GUI's CA, csi, 2 x pv,
	 * 2 x pvc, the ApplySet parent; no scale nodes */
	assert_int_equal(o.n, 1 + 8 + 2 + 1 + 1 + 4 + 1);
	assert_string_equal(o.v[0].file, "01-securitycontextconstraints-scc-for-mpi.yaml");
	assert_string_equal(o.v[1].file, "02-namespace-ml.yaml");
	assert_string_equal(o.v[2].file, "03-namespace-cv.yaml");
	const struct kube_object *pv = find(&o, "15-persistentvolume-data-pv02.yaml");

	/* CSI 2.5+'s layout: type 0 (static), 0 (a directory), no group or fileset */
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		pv->obj, "spec"), "csi"), "volumeHandle")),
		"0;0;16217308676014575381;099B6A7A:5EB99743;;;/gpfs/x/d");
	/* the cluster ID stays a string, every digit kept */
	const struct kube_object *csi = find(&o, "13-csiscaleoperator-ibm-spectrum-scale-csi.yaml");

	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_object_get(csi->obj, "spec"), "clusters"), 0), "id")), "16217308676014575381");
	/* The SCC names no user and no group: only the Roles grant it (issue 25;
	 * it used to list every namespace's service account and
	 * system:authenticated). */
	const struct kube_object *scc = find(&o, "01-securitycontextconstraints-scc-for-mpi.yaml");

	assert_int_equal(json_array_size(json_object_get(scc->obj, "users")), 0);
	assert_true(json_is_array(json_object_get(scc->obj, "users")));
	assert_int_equal(json_array_size(json_object_get(scc->obj, "groups")), 0);
	assert_true(json_is_array(json_object_get(scc->obj, "groups")));
	assert_null(strstr(scc->yaml, "system:serviceaccount"));
	assert_null(strstr(scc->yaml, "system:authenticated"));
	/* Everything applied but Namespaces and Nodes carries the ApplySet label
	 * (kubectl's id for ConfigMap kube-system/bringup-applyset, computed by
	 * Python's hashlib: an independent SHA-256 and base64url). */
	static const char id[] = "applyset-p1ycAcwFQqF2qX5SS-_cKAp1z5UjkUSJp_jUnKd-Qis-v1";

	for (size_t i = 0; i < o.n; i++) {
		json_t *l = json_object_get(json_object_get(o.v[i].obj, "metadata"), "labels");
		const char *part = json_string_value(json_object_get(l, "applyset.kubernetes.io/part-of"));

		if (!strcmp(o.v[i].kind, "Namespace") || !strcmp(o.v[i].kind, "Node"))
			assert_null(part);
		else if (!strcmp(o.v[i].name, "bringup-applyset"))
			assert_string_equal(json_string_value(json_object_get(l,
				"applyset.kubernetes.io/id")), id);
		else
			assert_string_equal(part ? part : o.v[i].file, id);
	}
	const struct kube_object *parent = find(&o, "18-configmap-bringup-applyset.yaml");

	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		parent->obj, "metadata"), "annotations"), "applyset.kubernetes.io/additional-namespaces")),
		"cv,ibm-spectrum-scale-csi-driver,ml");
	assert_int_equal(build("", '1', r, &o2, &e), 0);
	for (size_t i = 0; i < o.n; i++)
		assert_string_equal(o.v[i].yaml, o2.v[i].yaml);
	kube_objects_release(&o);
	kube_objects_release(&o2);
	json_decref(r);
}

static void test_gpu_nodes_must_agree_on_hcas(void **state)
{
	struct kube_objects o;
	struct err e = ERR_INIT;
	json_t *r = records();

	(void)state;
	assert_int_equal(build("", '3', r, &o, &e), ERR_INVENTORY);
	assert_string_equal(err_msg(&e), "inventory: gpu_worker hosts differ in InfiniBand ports "
			    "(g1: 2, g2: 4): the RDMA shared device plugin's one ConfigMap serves them all");
	assert_int_equal(o.n, 0);
	err_clear(&e);
	json_decref(r);
}

static void test_missing_records_and_vars(void **state)
{
	struct kube_objects o;
	struct err e = ERR_INIT;
	json_t *r = json_object();

	(void)state;
	assert_int_equal(build("", '1', r, &o, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "no recorded scale.cluster_id: run `bringup deploy`"));
	err_clear(&e);
	/* the var stands in for the records; a number is refused (digits would be lost) */
	assert_int_equal(build("      scale: { cluster_id: 1621730867601457538, filesystem_uid: u, "
			       "mount_point: /m }\n", '1', r, &o, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "must be a string: quote it"));
	err_clear(&e);
	assert_int_equal(build("      scale: { cluster_id: \"1\", filesystem_uid: u, mount_point: /m }\n",
			       '1', r, &o, &e), 0);
	kube_objects_release(&o);
	json_decref(r);
}

/*
 * The Scale CSI 3.0.0 resource: localScaleCluster, verified TLS to the GUI
 * with its CA in a ConfigMap named as its key, the driver image pinned; the
 * fields CSI removed are refused with what replaced them.
 */
static void test_csi_current(void **state)
{
	struct kube_objects o;
	struct err e = ERR_INIT;
	json_t *r = records(), *spec, *cl;

	(void)state;
	assert_int_equal(build("", '1', r, &o, &e), 0);
	spec = json_object_get(find(&o, "13-csiscaleoperator-ibm-spectrum-scale-csi.yaml")->obj,
			       "spec");
	cl = json_array_get(json_object_get(spec, "clusters"), 0);
	assert_string_equal(json_string_value(json_object_get(spec, "localScaleCluster")),
			    "16217308676014575381");
	assert_null(json_object_get(spec, "scaleHostpath"));
	assert_null(json_object_get(cl, "primary"));
	assert_true(json_is_true(json_object_get(cl, "secureSslMode")));
	assert_string_equal(json_string_value(json_object_get(cl, "cacert")),
			    "cacert-16217308676014575381");
	assert_string_equal(json_string_value(json_object_get(spec, "spectrumScale")),
			    KUBE_CSI_DRIVER_IMAGE);
	const struct kube_object *cm = find(&o, "12-configmap-cacert-16217308676014575381.yaml");

	assert_string_equal(json_string_value(json_object_get(json_object_get(cm->obj, "data"),
		"cacert-16217308676014575381")), pem);
	kube_objects_release(&o);

	assert_int_equal(build_csi("/nonexistent/ca.pem", "", '1', r, &o, &e), ERR_INVENTORY);
	assert_string_equal(err_msg(&e), "inventory: openshift.csi.local.gui_ca_file: cannot read "
			    "/nonexistent/ca.pem: No such file or directory");
	err_clear(&e);
	assert_int_equal(build_csi("/dev/null", "", '1', r, &o, &e), ERR_INVENTORY);
	assert_string_equal(err_msg(&e), "inventory: openshift.csi.local.gui_ca_file: /dev/null "
			    "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
	err_clear(&e);
	json_decref(r);
}

static void test_base64(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_true(kube_base64_decode("aGVs\nbG8=", &sb));
	assert_string_equal(sb.buf, "hello");
	strbuf_reset(&sb);
	assert_false(kube_base64_decode("aGVs*G8=", &sb));
	strbuf_reset(&sb);
	assert_false(kube_base64_decode("aG=Vs", &sb));
	strbuf_release(&sb);
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/test-kube-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_kubeconfig(void **state)
{
	const char *ok = "current-context: c\n"
		"clusters: [ { name: k, cluster: { server: \"https://127.0.0.1:6443/\", "
		"certificate-authority-data: aGVsbG8= } } ]\n"
		"users: [ { name: u, user: { token: abc } } ]\n"
		"contexts: [ { name: c, context: { cluster: k, user: u } } ]\n";
	const char *skip = "current-context: c\n"
		"clusters: [ { name: k, cluster: { server: \"https://h\", insecure-skip-tls-verify: true } } ]\n"
		"users: [ { name: u, user: { token: abc } } ]\n"
		"contexts: [ { name: c, context: { cluster: k, user: u } } ]\n";
	const char *nocred = "current-context: c\n"
		"clusters: [ { name: k, cluster: { server: \"https://h\" } } ]\n"
		"users: [ { name: u, user: { exec: { command: oc } } } ]\n"
		"contexts: [ { name: c, context: { cluster: k, user: u } } ]\n";
	struct kube_client *kc = NULL;
	struct err e = ERR_INIT;
	const char *src;
	char *p = write_tmp(ok), *q;

	(void)state;
	assert_int_equal(kube_client_new(p, &kc, &e), 0);
	assert_string_equal(kube_client_server(kc), "https://127.0.0.1:6443");
	assert_string_equal(kube_client_user(kc), "u");
	kube_client_free(kc);
	unlink(p);
	free(p);
	p = write_tmp(skip);
	assert_int_equal(kube_client_new(p, &kc, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "insecure-skip-tls-verify: bringup always verifies"));
	err_clear(&e);
	unlink(p);
	free(p);
	p = write_tmp(nocred);
	assert_int_equal(kube_client_new(p, &kc, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "exec or auth-provider plugin"));
	err_clear(&e);
	unlink(p);
	free(p);

	setenv("KUBECONFIG", "/a:/b", 1);
	q = kube_config_path("/x", "/inv", &src);
	assert_string_equal(q, "/x");
	assert_string_equal(src, "--kubeconfig");
	free(q);
	/* the inventory's names its cluster: a $KUBECONFIG does not redirect it */
	q = kube_config_path(NULL, "/inv", &src);
	assert_string_equal(q, "/inv");
	assert_string_equal(src, "the inventory's openshift.kubeconfig");
	free(q);
	q = kube_config_path(NULL, NULL, &src);
	assert_string_equal(q, "/a");
	assert_string_equal(src, "KUBECONFIG");
	free(q);
	unsetenv("KUBECONFIG");
	q = kube_config_path(NULL, "/inv", &src);
	assert_string_equal(q, "/inv");
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_objects_per_namespace_in_apply_order),
		cmocka_unit_test(test_gpu_nodes_must_agree_on_hcas),
		cmocka_unit_test(test_missing_records_and_vars),
		cmocka_unit_test(test_csi_current),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_kubeconfig),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	unlink(ca_file());
	return rc;
}
