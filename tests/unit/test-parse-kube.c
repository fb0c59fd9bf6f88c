/* engine/facts/parse-kube.c: kubectl get nodes (plain, -o wide, -o yaml) and
 * kubectl describe node on real captures (tests/fixtures/tools/SOURCES.md). */
#include "parse-fixture.h"

static void test_get_nodes_wide(void **state)
{
	json_t *j = parse_fixture("kubectl-get-nodes", "wide_3_nodes_centos7_docker_containerd_kubeadm.txt");

	(void)state;
	assert_jstr_at(j, "format", "wide");
	assert_jsize_at(j, "nodes", 3);
	assert_jstr_at(j, "nodes/0/name", "kubernetes-master");
	assert_jstr_at(j, "nodes/0/roles/1", "master");
	assert_jsize_at(j, "nodes/1/roles", 0);
	/* a cell with blanks, cut by the header's columns */
	assert_jstr_at(j, "nodes/2/os_image", "CentOS Linux 7 (Core)");
	assert_jstr_at(j, "nodes/2/container_runtime", "containerd://1.6.4");
	assert_jstr_at(j, "nodes/2/internal_ip", "10.0.9.114");
	assert_true(json_is_null(jpath(j, "nodes/2/external_ip")));
	assert_jbool_at(j, "nodes/2/ready", 1);
	assert_null(jpath(j, "warnings"));
	json_decref(j);
	j = parse_fixture("kubectl-get-nodes", "wide_kind_control_plane_debian12.txt");
	assert_jstr_at(j, "nodes/0/os_image", "Debian GNU/Linux 12 (bookworm)");
	assert_jstr_at(j, "nodes/0/kernel_version", "6.19.10-200.fc43.x86_64");
	json_decref(j);
}

static void test_get_nodes_plain(void **state)
{
	json_t *j = parse_fixture("kubectl-get-nodes", "plain_aks_one_node_scheduling_disabled.txt");
	static const char notready[] =
		"NAME     STATUS     ROLES    AGE   VERSION\n"
		"dgx01    NotReady   <none>   3d    v1.28.2\n";
	static const char refused[] = "The connection to the server localhost:8080 was refused - "
				      "did you specify the right host or port?\n";

	(void)state;
	assert_jstr_at(j, "format", "plain");
	assert_jstr_at(j, "nodes/0/status", "Ready,SchedulingDisabled");
	assert_jbool_at(j, "nodes/0/ready", 1);
	assert_jbool_at(j, "nodes/0/schedulable", 0);
	json_decref(j);
	j = parse_fixture("kubectl-get-nodes", "plain_gke_2_gpu_nodes.txt");
	assert_jsize_at(j, "nodes", 2);
	assert_jstr_at(j, "nodes/1/version", "v1.31.5-gke.1233000");
	json_decref(j);
	/* a node not Ready is said (the row is kubectl's layout, the values
	 * made up) */
	j = parse_text("kubectl-get-nodes", notready, sizeof(notready) - 1);
	assert_jbool_at(j, "nodes/0/ready", 0);
	assert_jstr_at(j, "warnings/0", "dgx01: NotReady");
	json_decref(j);
	/* kubectl's own failure (client-go's message) */
	j = parse_text("kubectl-get-nodes", refused, strlen(refused));
	assert_tool_failure(j, "The connection to the server localhost:8080 was refused - did you specify the right host or port?");
	json_decref(j);
	expect_error("kubectl-get-nodes", "../mmgetstate/mmgetstate_a_3_nodes_active.txt",
		     "not kubectl-get-nodes output");
}

static void test_describe_node(void **state)
{
	json_t *j = parse_fixture("kubectl-describe-node", "eks_g6e_l40s_4_gpus_taint_conditions_allocated.txt");

	(void)state;
	assert_jstr_at(j, "name", "ip-10-10-3-26.ec2.internal");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "labels"),
				"role.node.cloudera.com/gpu-details")), "L40S-45776");
	assert_jstr_at(j, "taints/0/key", "nvidia.com/gpu");
	assert_jstr_at(j, "taints/0/value", "true");
	assert_jstr_at(j, "taints/0/effect", "NoSchedule");
	assert_jbool_at(j, "unschedulable", 0);
	assert_jsize_at(j, "conditions", 5);
	assert_jstr_at(j, "conditions/4/type", "Ready");
	assert_jstr_at(j, "conditions/4/status", "True");
	assert_jstr_at(j, "conditions/0/message", "Calico is running on this node");
	assert_jbool_at(j, "ready", 1);
	assert_jstr_at(j, "capacity/cpu", "48");
	assert_jstr_at(j, "allocatable/cpu", "47625m");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "allocatable"),
				"nvidia.com/gpu")), "4");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(j,
				"allocated"), "nvidia.com/gpu"), "requests")), "2");
	assert_null(jpath(j, "warnings"));
	json_decref(j);

	/* a real excerpt: 1 of 4 GPUs allocatable (the device plugin saw one) */
	j = parse_fixture("kubectl-describe-node", "describe_node_capacity_allocatable_only_1_of_4_gpus_degraded.txt");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "allocatable"),
				"nvidia.com/gpu")), "1");
	json_decref(j);
	/* NotReady and pressure are warnings (kubectl's layout, made-up values) */
	{
		static const char sick[] =
			"Name:               dgx03\n"
			"Conditions:\n"
			"  Type             Status  Reason                       Message\n"
			"  ----             ------  ------                       -------\n"
			"  MemoryPressure   True    KubeletHasInsufficientMemory kubelet has insufficient memory available\n"
			"  Ready            False   KubeletNotReady              PLEG is not healthy\n"
			"Taints:             node.kubernetes.io/not-ready:NoSchedule\n";

		j = parse_text("kubectl-describe-node", sick, sizeof(sick) - 1);
		assert_jbool_at(j, "ready", 0);
		assert_jsize_at(j, "warnings", 2);
		assert_jstr_at(j, "warnings/1", "Ready is False: PLEG is not healthy");
		assert_jstr_at(j, "taints/0/key", "node.kubernetes.io/not-ready");
		assert_null(jpath(j, "taints/0/value"));
		json_decref(j);
	}
	/* a pod's description is not a node's */
	expect_error_text("kubectl-describe-node", "Name:         p\nNamespace:    default\n", 37,
			  "not kubectl-describe-node output");
}

#define GNY_LIST "list_2_nodes_centos7_containerd_not_ready_cni_uninitialized.txt"
#define GNY_NODE "node_arm64_control_plane_ubuntu20_docker_ready.txt"

static const char *jmap_str(json_t *j, const char *path, const char *key)
{
	return json_string_value(json_object_get(jpath(j, path), key));
}

static void test_get_nodes_yaml_list(void **state)
{
	json_t *j = parse_fixture("kubectl-get-nodes-yaml", GNY_LIST);

	(void)state;
	assert_jstr_at(j, "format", "yaml");
	assert_jstr_at(j, "kind", "List");
	assert_jsize_at(j, "nodes", 2);
	assert_jstr_at(j, "nodes/0/name", "node1");
	assert_jstr_at(j, "nodes/1/name", "node2");
	/* roles from the node-role.kubernetes.io/ROLE labels, as kubectl prints them */
	assert_jsize_at(j, "nodes/0/roles", 1);
	assert_jstr_at(j, "nodes/0/roles/0", "control-plane");
	assert_jsize_at(j, "nodes/1/roles", 0);
	/* status from the Ready condition (False): what `get nodes` shows */
	assert_jstr_at(j, "nodes/0/status", "NotReady");
	assert_jbool_at(j, "nodes/0/ready", 0);
	assert_jbool_at(j, "nodes/0/schedulable", 1);
	assert_jstr_at(j, "nodes/0/version", "v1.27.2");
	assert_jstr_at(j, "nodes/1/internal_ip", "192.168.0.23");
	assert_true(json_is_null(jpath(j, "nodes/1/external_ip")));
	assert_jstr_at(j, "nodes/0/os_image", "CentOS Linux 7 (Core)");
	assert_jstr_at(j, "nodes/0/kernel_version", "4.4.0-210-generic");
	assert_jstr_at(j, "nodes/0/container_runtime", "containerd://1.6.21");
	assert_jsize_at(j, "nodes/0/taints", 2);
	assert_jstr_at(j, "nodes/0/taints/1/key", "node.kubernetes.io/not-ready");
	assert_jstr_at(j, "nodes/0/taints/1/effect", "NoSchedule");
	assert_null(jpath(j, "nodes/0/taints/1/value"));
	assert_string_equal(jmap_str(j, "nodes/0/labels", "node-role.kubernetes.io/control-plane"), "");
	assert_string_equal(jmap_str(j, "nodes/1/capacity", "memory"), "32946972Ki");
	assert_string_equal(jmap_str(j, "nodes/1/allocatable", "cpu"), "8");
	assert_jsize_at(j, "nodes/0/conditions", 4);
	assert_jstr_at(j, "nodes/0/conditions/3/type", "Ready");
	assert_jstr_at(j, "nodes/0/conditions/3/reason", "KubeletNotReady");
	/* a message kubectl folded over two lines reads as one */
	assert_jstr_at(j, "nodes/0/conditions/3/message",
		       "container runtime network not ready: NetworkReady=false "
		       "reason:NetworkPluginNotReady message:Network plugin returns error: "
		       "cni plugin not initialized");
	/* Ready not True is said per node, as describe node says it */
	assert_jsize_at(j, "warnings", 2);
	assert_jstr_at(j, "warnings/1", "node2: Ready is False: container runtime network not "
		       "ready: NetworkReady=false reason:NetworkPluginNotReady message:Network "
		       "plugin returns error: cni plugin not initialized");
	assert_jbool_at(j, "ok", 1);
	json_decref(j);
}

static void test_get_nodes_yaml_node(void **state)
{
	json_t *j = parse_fixture("kubectl-get-nodes-yaml", GNY_NODE);
	json_t *wide = parse_fixture("kubectl-get-nodes", "wide_kind_control_plane_debian12.txt");
	json_t *v;
	const char *k;

	(void)state;
	assert_jstr_at(j, "kind", "Node");
	assert_jsize_at(j, "nodes", 1);
	assert_jstr_at(j, "nodes/0/name", "mac-k8s");
	assert_jstr_at(j, "nodes/0/status", "Ready");
	assert_jbool_at(j, "nodes/0/ready", 1);
	assert_jsize_at(j, "nodes/0/roles", 2);
	assert_jstr_at(j, "nodes/0/roles/0", "control-plane");
	assert_jstr_at(j, "nodes/0/roles/1", "master");
	assert_jstr_at(j, "nodes/0/architecture", "arm64");
	assert_jstr_at(j, "nodes/0/container_runtime", "docker://20.10.24");
	/* a quantity kubectl quoted stays the text it printed */
	assert_string_equal(jmap_str(j, "nodes/0/allocatable", "ephemeral-storage"), "28819139742");
	assert_string_equal(jmap_str(j, "nodes/0/capacity", "ephemeral-storage"), "31270768Ki");
	assert_jsize_at(j, "nodes/0/taints", 0);
	assert_jsize_at(j, "nodes/0/conditions", 5);
	/* NetworkUnavailable False is healthy: no warning */
	assert_jstr_at(j, "nodes/0/conditions/0/type", "NetworkUnavailable");
	assert_null(jpath(j, "warnings"));
	/* the same keys as -o wide where the views overlap (AGE is the
	 * printer's arithmetic on creationTimestamp, given instead) */
	json_object_foreach(jpath(wide, "nodes/0"), k, v)
		if (strcmp(k, "age") && !json_object_get(jpath(j, "nodes/0"), k))
			fail_msg("-o yaml has no '%s' that -o wide has", k);
	assert_jstr_at(j, "nodes/0/creation_timestamp", "2022-07-23T11:55:38Z");
	json_decref(wide);
	json_decref(j);
	/* -o json: the same object in JSON, which is YAML's flow style
	 * (kubectl's layout, values made up) */
	{
		static const char json[] =
			"{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Node\",\n"
			"    \"metadata\": {\n        \"labels\": {\n"
			"            \"node-role.kubernetes.io/worker\": \"\"\n        },\n"
			"        \"name\": \"dgx01\"\n    },\n    \"spec\": {},\n"
			"    \"status\": {\n        \"conditions\": [\n            {\n"
			"                \"status\": \"True\",\n                \"type\": \"Ready\"\n"
			"            }\n        ],\n        \"nodeInfo\": {\n"
			"            \"kubeletVersion\": \"v1.28.2\"\n        }\n    }\n}\n";

		j = parse_text("kubectl-get-nodes-yaml", json, sizeof(json) - 1);
		assert_jstr_at(j, "format", "json");
		assert_jstr_at(j, "nodes/0/roles/0", "worker");
		assert_jstr_at(j, "nodes/0/status", "Ready");
		assert_jstr_at(j, "nodes/0/version", "v1.28.2");
		json_decref(j);
	}
}

/* The real capture with one line changed (said at each use). */
static json_t *gny_edited(const char *file, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	const char *at;
	json_t *j;

	fixture_read("kubectl-get-nodes-yaml", file, &sb);
	at = strstr(sb.buf, from);
	assert_non_null(at);
	strbuf_add(&out, sb.buf, (size_t)(at - sb.buf));
	strbuf_addf(&out, "%s%s", to, at + strlen(from));
	j = parse_text("kubectl-get-nodes-yaml", out.buf, out.len);
	strbuf_release(&sb);
	strbuf_release(&out);
	return j;
}

/* The real capture cut before the first `cut` (kept whole when NULL): the
 * parser must fail with want. */
static void gny_cut(const char *file, const char *cut, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	const char *at;

	fixture_read("kubectl-get-nodes-yaml", file, &sb);
	at = strstr(sb.buf, cut);
	assert_non_null(at);
	expect_error_text("kubectl-get-nodes-yaml", sb.buf, (size_t)(at - sb.buf), want);
	strbuf_release(&sb);
}

static void test_get_nodes_yaml_degraded_and_cut(void **state)
{
	json_t *j;
	static const char none[] = "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n"
				   "  resourceVersion: \"\"\n";
	static const char notfound[] = "Error from server (NotFound): nodes \"dgx09\" not found\n";

	(void)state;
	/* cordoned, and memory pressure (one value of the capture changed) */
	j = gny_edited(GNY_NODE, "spec:\n", "spec:\n  unschedulable: true\n");
	assert_jstr_at(j, "nodes/0/status", "Ready,SchedulingDisabled");
	assert_jbool_at(j, "nodes/0/schedulable", 0);
	assert_jbool_at(j, "nodes/0/unschedulable", 1);
	assert_null(jpath(j, "warnings"));
	json_decref(j);
	j = gny_edited(GNY_NODE, "status: \"False\"\n    type: MemoryPressure",
		       "status: \"True\"\n    type: MemoryPressure");
	assert_jsize_at(j, "warnings", 1);
	assert_jstr_at(j, "warnings/0", "mac-k8s: MemoryPressure is True: kubelet has "
		       "sufficient memory available");
	json_decref(j);
	/* no nodes at all: kubectl's empty List */
	j = parse_text("kubectl-get-nodes-yaml", none, sizeof(none) - 1);
	assert_jbool_at(j, "empty", 1);
	assert_jsize_at(j, "nodes", 0);
	json_decref(j);
	/* kubectl's own failure for a node that is not there */
	j = parse_text("kubectl-get-nodes-yaml", notfound, sizeof(notfound) - 1);
	assert_tool_failure(j, "Error from server (NotFound): nodes \"dgx09\" not found");
	json_decref(j);

	/* captures cut short: a List before its `kind:`, a Node before its
	 * nodeInfo, and one inside a quoted scalar (a YAML error, placed) */
	gny_cut(GNY_LIST, "- apiVersion: v1\n  kind: Node\n  metadata:\n    annotations:\n"
		"      kubeadm.alpha.kubernetes.io/cri-socket: /run",
		"kubectl-get-nodes-yaml: a List cut short");
	gny_cut(GNY_NODE, "  nodeInfo:", "Node 'mac-k8s' has no status.nodeInfo");
	gny_cut(GNY_LIST, "cni plugin not initialized'", "kubectl-get-nodes-yaml:70:");
}

static void test_get_nodes_yaml_refused(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	static const char deployments[] = "apiVersion: v1\nitems:\n- apiVersion: apps/v1\n"
					  "  kind: Deployment\n  metadata:\n    name: x\n"
					  "kind: List\n";

	(void)state;
	/* a real Pod's YAML: status.conditions and all, but not a Node */
	expect_error("kubectl-get-nodes-yaml",
		     "../../other-tools/kubectl-get-pod-yaml/pod_nginx_running_burstable_limitranger.txt",
		     "not kubectl-get-nodes-yaml output (a Pod, neither a Node nor a List of Nodes)");
	/* a real Deployment manifest (its comment header left out) */
	fixture_read("../openshift/mpi-operator", "deployment-mpi-operator.yaml", &sb);
	expect_error_text("kubectl-get-nodes-yaml", strstr(sb.buf, "apiVersion:"),
			  strlen(strstr(sb.buf, "apiVersion:")), "(a Deployment, neither");
	strbuf_release(&sb);
	expect_error_text("kubectl-get-nodes-yaml", deployments, sizeof(deployments) - 1,
			  "(a List of objects that are not Nodes)");
	/* an inventory, and the table views of the same command */
	expect_error("kubectl-get-nodes-yaml", "../../inventory/good-minimal.yaml",
		     "not kubectl-get-nodes-yaml output (no 'apiVersion:' first)");
	expect_error("kubectl-get-nodes-yaml", "../kubectl-get-nodes/plain_gke_2_gpu_nodes.txt",
		     "not kubectl-get-nodes-yaml output (a table: kubectl-get-nodes reads it)");
	/* and the other way round, naming the parser that reads it */
	expect_error("kubectl-get-nodes", "../kubectl-get-nodes-yaml/" GNY_NODE,
		     "not kubectl-get-nodes output (a document: kubectl-get-nodes-yaml reads it)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_nodes_wide),
		cmocka_unit_test(test_get_nodes_plain),
		cmocka_unit_test(test_describe_node),
		cmocka_unit_test(test_get_nodes_yaml_list),
		cmocka_unit_test(test_get_nodes_yaml_node),
		cmocka_unit_test(test_get_nodes_yaml_degraded_and_cut),
		cmocka_unit_test(test_get_nodes_yaml_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
