/* engine/facts/parse-kube.c: kubectl get nodes (plain, -o wide) and kubectl
 * describe node on real captures (tests/fixtures/tools/SOURCES.md). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_nodes_wide),
		cmocka_unit_test(test_get_nodes_plain),
		cmocka_unit_test(test_describe_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
