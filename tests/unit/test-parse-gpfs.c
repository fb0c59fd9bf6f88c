/* engine/parse-gpfs.c on real Spectrum Scale command outputs. */
#include "parse-fixture.h"

static void test_mmgetstate(void **state)
{
	json_t *j = parse_fixture("mmgetstate", "mmgetstate_a_3_nodes_active.txt");

	(void)state;
	assert_jsize_at(j, "nodes", 3);
	assert_jint_at(j, "nodes/0/number", 1);
	assert_jstr_at(j, "nodes/0/name", "worker01");
	assert_jstr_at(j, "nodes/2/name", "worker03");
	assert_jstr_at(j, "nodes/2/state", "active");
	json_decref(j);
	expect_error("mmgetstate", "malformed_line4_row_without_state.txt",
		     "mmgetstate: line 4: too few columns");
}

static void test_mmlscluster(void **state)
{
	json_t *j = parse_fixture("mmlscluster", "mmlscluster_cnsa_3_workers_quorum_manager.txt");

	(void)state;
	assert_jstr_at(j, "cluster/gpfs_cluster_name",
		       "ibm-spectrum-scale.ibm-spectrum-scale.ocp4.scale.ibm.com");
	assert_jstr_at(j, "cluster/gpfs_cluster_id", "835838342944547371");
	assert_jstr_at(j, "cluster/repository_type", "CCR");
	assert_jstr_at(j, "cluster/remote_shell_command", "/usr/bin/ssh");
	assert_jsize_at(j, "nodes", 3);
	assert_jstr_at(j, "nodes/2/daemon_node_name", "worker03.ocp4.scale.ibm.com");
	assert_jstr_at(j, "nodes/2/ip_address", "10.10.1.18");
	/* as published: node 3's admin name differs from its daemon name */
	assert_jstr_at(j, "nodes/2/admin_node_name", "worker04.ocp4.scale.ibm.com");
	assert_jstr_at(j, "nodes/0/designation", "quorum-manager-perfmon");
	json_decref(j);
	expect_error("mmlscluster", "malformed_line5_fact_without_colon.txt",
		     "mmlscluster: line 5: expected 'key: value'");
	expect_error("mmlscluster", "../mmremotecluster/mmremotecluster_show_all_ess3000.txt",
		     "mmlscluster: line 1: expected 'GPFS cluster information'");
}

static void test_mmlsconfig_node_classes(void **state)
{
	json_t *j = parse_fixture("mmlsconfig", "mmlsconfig_nodeclass_stanza_dgx_verbs_rdma_seed_excerpt.txt");

	(void)state;
	assert_jstr_at(j, "nodeclasses/dgx/pagepool", "128G");
	assert_jstr_at(j, "nodeclasses/dgx/verbsRdma", "enable");
	assert_jstr_at(j, "nodeclasses/dgx/verbsRdmaSend", "yes");
	assert_jstr_at(j, "nodeclasses/dgx/verbsPorts", "mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1");
	assert_jsize_at(j, "nodeclasses/dgx", 9);
	assert_jstr_at(j, "nodeclasses/common/maxMBpS", "20000");
	assert_jsize_at(j, "nodeclasses/common", 3);
	json_decref(j);
	expect_error("mmlsconfig", "malformed_line3_attribute_without_value.txt",
		     "mmlsconfig: line 3: expected 'attribute value'");
	/* attribute lines count only under the cluster header or a stanza:
	 * lsmod output is not a configuration */
	expect_error("mmlsconfig", "../lsmod/lsmod_grep_nvidia_peermem_loaded_rhel7.txt",
		     "mmlsconfig: line 1: expected 'Configuration data for cluster' or '[node class]' first");
	/* an indented line is ibstat's, not an attribute */
	expect_error("mmlsconfig", "../ibstat/cx6_hdr200_one_active_one_down_disabled_excerpt.txt",
		     "mmlsconfig: line 1: expected 'Configuration data for cluster'");
}

static void test_mmlsmount_remote(void **state)
{
	json_t *j = parse_fixture("mmlsmount", "mmlsmount_all_L_remote_fs_mounted.txt");

	(void)state;
	assert_jsize_at(j, "filesystems", 1);
	assert_jstr_at(j, "filesystems/0/name", "fs1");
	assert_jstr_at(j, "filesystems/0/remote", "ess3000.bda.scale.ibm.com:ess3k_fs1");
	/* the header says 7 while 6 nodes are listed, as published */
	assert_jint_at(j, "filesystems/0/mounted_on", 7);
	assert_jsize_at(j, "filesystems/0/nodes", 6);
	assert_jstr_at(j, "filesystems/0/nodes/5/ip", "10.10.1.17");
	assert_jstr_at(j, "filesystems/0/nodes/5/node", "worker03.ocp4");
	assert_jstr_at(j, "filesystems/0/nodes/0/cluster", "ess3000.bda.scale.ibm.com");
	json_decref(j);
	expect_error("mmlsmount", "malformed_line1_node_before_file_system.txt",
		     "mmlsmount: line 1: expected 'File system");
}

static void test_mmremotecluster(void **state)
{
	json_t *j = parse_fixture("mmremotecluster", "mmremotecluster_show_all_ess3000.txt");

	(void)state;
	assert_jsize_at(j, "clusters", 1);
	assert_jstr_at(j, "clusters/0/cluster_name", "ess3000.bda.scale.ibm.com");
	assert_jsize_at(j, "clusters/0/contact_nodes", 3);
	assert_jstr_at(j, "clusters/0/contact_nodes/2", "ems3000.bda.scale.ibm.com");
	assert_jstr_at(j, "clusters/0/sha_digest",
		       "8e29e5b130934a8938d00027bdbaddca331dafe3b901fbe66275eaca4f620a6a");
	assert_jstr_at(j, "clusters/0/file_systems/0/local", "fs1");
	assert_jstr_at(j, "clusters/0/file_systems/0/remote", "ess3k_fs1");
	json_decref(j);
	j = parse_fixture("mmremotecluster", "mmremotecluster_show_ess3000_4M_seed_reconstructed.txt");
	assert_jstr_at(j, "clusters/0/contact_nodes/1", "fscc-fab3-3-b-priv.bda.scale.com");
	assert_jstr_at(j, "clusters/0/file_systems/0/local", "ess3000_4M");
	json_decref(j);
	expect_error("mmremotecluster", "malformed_line1_no_cluster_name_first.txt",
		     "mmremotecluster: line 1: expected 'Cluster name:' first");
}

static void test_mmremotefs(void **state)
{
	json_t *j = parse_fixture("mmremotefs", "mmremotefs_show_all.txt");

	(void)state;
	assert_jsize_at(j, "filesystems", 1);
	assert_jstr_at(j, "filesystems/0/local_name", "fs1");
	assert_jstr_at(j, "filesystems/0/remote_name", "ess3k_fs1");
	assert_jstr_at(j, "filesystems/0/cluster", "ess3000.bda.scale.ibm.com");
	assert_jstr_at(j, "filesystems/0/mount_point", "/mnt/fs1");
	assert_jstr_at(j, "filesystems/0/automount", "yes");
	assert_jint_at(j, "filesystems/0/priority", 0);
	json_decref(j);
	expect_error("mmremotefs", "malformed_line2_row_cut_short.txt",
		     "mmremotefs: line 2: too few columns");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmgetstate),
		cmocka_unit_test(test_mmlscluster),
		cmocka_unit_test(test_mmlsconfig_node_classes),
		cmocka_unit_test(test_mmlsmount_remote),
		cmocka_unit_test(test_mmremotecluster),
		cmocka_unit_test(test_mmremotefs),
	};
	return cmocka_run_group_tests_name("parse-gpfs", tests, NULL, NULL);
}
