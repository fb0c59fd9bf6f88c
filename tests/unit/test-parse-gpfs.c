/* engine/facts/parse-gpfs.c on real Spectrum Scale command outputs. */
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

/* The nodes mmgetstate could not reach are rows too, never active; its own
 * failure is ok:false with its words. */
static void test_mmgetstate_unreachable_and_failure(void **state)
{
	const char *failed =
		"mmgetstate: This node does not belong to a GPFS cluster.\n"
		"mmgetstate: Command failed.  Examine previous error messages to determine cause.\n";
	const char *two_words =
		" Node number  Node name  GPFS state\n-------------------------------------\n"
		"           1  gpfs01     active\n\n"
		"mmgetstate: The following nodes could not be reached:\n\nn114 n115\n";
	json_t *j = parse_fixture("mmgetstate", "mmgetstate_av_9_active_one_node_unreachable.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "nodes", 10);
	assert_jstr_at(j, "nodes/8/name", "n097");
	assert_jstr_at(j, "nodes/8/state", "active");
	assert_jstr_at(j, "nodes/9/name", "n114");
	assert_jstr_at(j, "nodes/9/state", "unreachable");
	assert_jsize_at(j, "unreachable", 1);
	assert_jstr_at(j, "unreachable/0", "n114");
	json_decref(j);
	j = parse_text("mmgetstate", failed, strlen(failed));
	assert_jbool_at(j, "ok", 0);
	assert_jstr_at(j, "error", "mmgetstate: This node does not belong to a GPFS cluster.");
	assert_jsize_at(j, "nodes", 0);
	json_decref(j);
	expect_error_text("mmgetstate", two_words, strlen(two_words),
			  "mmgetstate: line 7: expected a node name: 'n114 n115'");
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

/* A stanza naming several nodes or classes sets each of them. */
static void test_mmlsconfig_shared_stanza(void **state)
{
	const char text[] = "Configuration data for cluster c:\n"
			    "---------------------------------\n"
			    "clusterName c\n"
			    "[dgx]\n"
			    "pagepool 16G\n"
			    "[dgx,dgx06]\n"
			    "workerThreads 1024\n"
			    "[dgx04,dgx05]\n"
			    "pagepool 2G\n"
			    "[common]\n"
			    "maxMBpS 20000\n";
	json_t *j = parse_text("mmlsconfig", text, sizeof(text) - 1);

	(void)state;
	assert_jstr_at(j, "nodeclasses/dgx/pagepool", "16G");
	assert_jstr_at(j, "nodeclasses/dgx/workerThreads", "1024");
	assert_jstr_at(j, "nodeclasses/dgx06/workerThreads", "1024");
	assert_jsize_at(j, "nodeclasses/dgx06", 1);
	assert_jstr_at(j, "nodeclasses/dgx04/pagepool", "2G");
	assert_jstr_at(j, "nodeclasses/dgx05/pagepool", "2G");
	assert_jsize_at(j, "nodeclasses", 5);
	json_decref(j);
	expect_error_text("mmlsconfig", "[dgx,]\npagepool 1G\n", 19,
			  "mmlsconfig: line 1: bad [node class] line");
	expect_error_text("mmlsconfig", "[a,,b]\npagepool 1G\n", 19,
			  "mmlsconfig: line 1: bad [node class] line");
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
	/* issue 26: the mismatch is said, not left for the reader to count */
	assert_jsize_at(j, "warnings", 1);
	assert_jstr_at(j, "warnings/0", "fs1: mounted on 7 nodes, 6 listed");
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

static void test_mmlsnodeclass(void **state)
{
	json_t *j = parse_fixture("mmlsnodeclass", "mmlsnodeclass_one_user_class_nsdserver.txt");
	struct err err = ERR_INIT;
	const char *wrapped =
		"Node Class Name       Members\n"
		"--------------------- -----------------------------------------------------------\n"
		"dgx                   dgx01,dgx02,dgx03,\n"
		"                      dgx04\n"
		"empty\n";

	(void)state;
	assert_jsize_at(j, "classes", 1);
	assert_jstr_at(j, "classes/0/name", "nsdserver");
	assert_jsize_at(j, "classes/0/members", 1);
	assert_jstr_at(j, "classes/0/members/0", "node01.gpfs.mgt");
	json_decref(j);
	/* a long member list goes on over indented lines */
	assert_int_equal(parse_mmlsnodeclass(wrapped, strlen(wrapped), &j, &err), 0);
	assert_jsize_at(j, "classes", 2);
	assert_jsize_at(j, "classes/0/members", 4);
	assert_jstr_at(j, "classes/0/members/3", "dgx04");
	assert_jsize_at(j, "classes/1/members", 0);
	json_decref(j);
	expect_error("mmlsnodeclass", "../mmgetstate/mmgetstate_a_3_nodes_active.txt",
		     "mmlsnodeclass: line 2: expected the column header");
}

/*
 * mmlslicense -Y: the real capture (one node of a 68-node cluster), and
 * the rows bringup's licence audit acts on: a node with no licence
 * ("none", as the capture's site script tests for), a quorum node with
 * only a client licence. Columns are read by name: a release that adds
 * one still parses.
 */
static void test_mmlslicense(void **state)
{
	json_t *j = parse_fixture("mmlslicense", "mmlslicense_Y_68_nodes_11_unlicensed_clients_ncsa.txt");
	const char *sim =
		"mmlslicense::HEADER:version:reserved:reserved:nodeName:requiredLicense:designatedLicense:"
		"newColumn:totalNodes:licensedServers:licensedClients:unlicensedServers:unlicensedClients:licensedFpo:\n"
		"mmlslicense::0:1:::dgx01:server:server:x:3:1:0:1:1:0:\n"
		"mmlslicense::0:1:::dgx02:server:client:x:3:1:0:1:1:0:\n"
		"mmlslicense::0:1:::dgx%3A03:client:none:x:3:1:0:1:1:0:\n";
	const char *failed =
		"mmlslicense: This node does not belong to a GPFS cluster.\n"
		"mmlslicense: Command failed. Examine previous error messages to determine cause.\n";
	const char *short_row =
		"mmlslicense::HEADER:version:reserved:reserved:nodeName:requiredLicense:designatedLicense:\n"
		"mmlslicense::0:1:::dgx01:server\n";

	(void)state;
	assert_jsize_at(j, "nodes", 1);
	assert_jstr_at(j, "nodes/0/name", "lsst-verify00.ncsa.illinois.edu");
	assert_jstr_at(j, "nodes/0/required", "server");
	assert_jstr_at(j, "nodes/0/designated", "server");
	assert_jint_at(j, "summary/totalNodes", 68);
	assert_jint_at(j, "summary/unlicensedClients", 11);
	json_decref(j);

	j = parse_text("mmlslicense", sim, strlen(sim));
	assert_jsize_at(j, "nodes", 3);
	assert_jstr_at(j, "nodes/1/designated", "client");
	assert_jstr_at(j, "nodes/2/name", "dgx:03");
	assert_jstr_at(j, "nodes/2/designated", "none");
	assert_jint_at(j, "summary/unlicensedServers", 1);
	json_decref(j);

	j = parse_text("mmlslicense", failed, strlen(failed));
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_jstr_at(j, "error", "mmlslicense: This node does not belong to a GPFS cluster.");
	json_decref(j);

	expect_error_text("mmlslicense", short_row, strlen(short_row),
			  "mmlslicense: line 2: a row whose fields do not match the header's");
	expect_error("mmlslicense", "../mmgetstate/mmgetstate_a_3_nodes_active.txt",
		     "mmlslicense: not mmlslicense output (no 'mmlslicense::HEADER:' line)");
}

/*
 * mmdiag --network has no real capture over verbs (tests/fixtures/tools/
 * SOURCES.md); the layout is IBM's mmdiag section "RDMA Connections
 * between nodes", one "Fabric - Device - Port" line per port.
 */
static void test_mmdiag_network_and_config(void **state)
{
	const char *net =
		"\n=== mmdiag: network ===\n\nPending messages:\n  (none)\n"
		"TCP Connections between nodes:\n  Device lo:\n"
		"    hostname    node     destination     status     err  sock\n"
		"    dgx02       <c0n1>   127.0.1.2       connected  0    32\n"
		"RDMA Connections between nodes:\n"
		"  Fabric 0 - Device mlx5_0 Port 1 Width 4x Speed EDR lid 3\n"
		"    hostname    idx CM state VS buff RDMA_CT(ERR)\n"
		"    ess01       0   N  RTS   (Y)903   0 (0)\n"
		"    ess02       1   N  RTS   (Y)903   0 (0)\n"
		"  Fabric 0 - Device mlx5_1 Port 1 Width 4x Speed EDR lid 4\n"
		"    hostname    idx CM state VS buff RDMA_CT(ERR)\n";
	const char *none = "\n=== mmdiag: network ===\nRDMA Connections between nodes:\n  (none)\n";
	const char *cfg = "\n=== mmdiag: config ===\n   pagepool 1G\n ! verbsPorts mlx5_0/1 mlx5_1/1\n"
			  " ! verbsRdma enable\n  -- truncated --\n";
	struct err err = ERR_INIT;
	json_t *j = NULL;

	(void)state;
	assert_int_equal(parse_mmdiag_network(net, strlen(net), &j, &err), 0);
	assert_true(json_is_true(json_object_get(j, "rdma_started")));
	assert_jsize_at(j, "ports", 2);
	assert_jstr_at(j, "ports/1/device", "mlx5_1");
	assert_jint_at(j, "ports/1/port", 1);
	assert_jsize_at(j, "connections", 2);
	assert_jstr_at(j, "connections/1/node", "ess02");
	assert_jstr_at(j, "connections/1/device", "mlx5_0");
	json_decref(j);
	assert_int_equal(parse_mmdiag_network(none, strlen(none), &j, &err), 0);
	assert_false(json_is_true(json_object_get(j, "rdma_started")));
	assert_jsize_at(j, "ports", 0);
	json_decref(j);
	assert_int_equal(parse_mmdiag_config(cfg, strlen(cfg), &j, &err), 0);
	assert_jstr_at(j, "attrs/verbsPorts", "mlx5_0/1 mlx5_1/1");
	assert_jstr_at(j, "attrs/pagepool", "1G");
	assert_jsize_at(j, "changed", 2);
	/* a line that is no attribute is kept as a warning, not dropped */
	assert_jsize_at(j, "warnings", 1);
	assert_jstr_at(j, "warnings/0", "-- truncated --");
	json_decref(j);
	assert_int_not_equal(parse_mmdiag_network(cfg, strlen(cfg), &j, &err), 0);
	err_clear(&err);
}

static void test_mmhealth(void **state)
{
	json_t *j = parse_fixture("mmhealth", "mmhealth_node_show_all_components_healthy.txt");

	(void)state;
	assert_jstr_at(j, "node", "storage-scale-storage-3.strgscale.com");
	assert_jstr_at(j, "status", "HEALTHY");
	assert_jsize_at(j, "components", 7);
	assert_jstr_at(j, "components/2/name", "NETWORK");
	assert_jstr_at(j, "components/2/change", "2 hours ago");
	assert_jstr_at(j, "components/2/reasons", "-");
	json_decref(j);
	j = parse_fixture("mmhealth", "mmhealth_node_show_gpfs_tips_total_memory_small.txt");
	assert_jstr_at(j, "status", "TIPS");
	assert_jstr_at(j, "components/0/name", "GPFS");
	assert_jstr_at(j, "components/0/status", "TIPS");
	assert_jstr_at(j, "components/0/reasons", "total_memory_small");
	assert_jstr_at(j, "components/1/change", "212 days ago");
	json_decref(j);
	expect_error("mmhealth", "../mmgetstate/mmgetstate_a_3_nodes_active.txt",
		     "mmhealth: line 2: expected 'key: value'");
}

/* The stand-in's wording when the daemon is down (no real capture of it):
 * ok:false with the tool's line, for both mmdiag parsers. */
static void test_mmdiag_failure(void **state)
{
	const char *down = "mmdiag: Connection failed to the GPFS daemon: the daemon is not running.\n";
	json_t *j = parse_text("mmdiag-network", down, strlen(down));

	(void)state;
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_jstr_at(j, "error", "mmdiag: Connection failed to the GPFS daemon: the daemon is not running.");
	json_decref(j);
	j = parse_text("mmdiag-config", down, strlen(down));
	assert_true(json_is_false(json_object_get(j, "ok")));
	json_decref(j);
}

/* Sub-components indented under their parent, then the event table that
 * real mmhealth prints when something is not healthy. */
static void test_mmhealth_degraded_events(void **state)
{
	json_t *j = parse_fixture("mmhealth", "mmhealth_node_show_ces_degraded.txt");

	(void)state;
	assert_jstr_at(j, "node", "rkomandu-ip-cls-x-worker1.fyre.ibm.com");
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_jsize_at(j, "components", 10);
	assert_jstr_at(j, "components/0/name", "CES");
	assert_jstr_at(j, "components/0/status", "DEGRADED");
	assert_jstr_at(j, "components/0/reasons", "ces_network_ips_not_defined");
	assert_jstr_at(j, "components/1/name", "AUTH");
	assert_jstr_at(j, "components/1/status", "DISABLED");
	assert_jstr_at(j, "components/1/change", "20 hours ago");
	assert_jstr_at(j, "components/1/parent", "CES");
	assert_jstr_at(j, "components/4/name", "CESNETWORK");
	assert_jstr_at(j, "components/4/status", "DEGRADED");
	assert_jstr_at(j, "components/9/name", "SMB");
	assert_jstr_at(j, "components/9/parent", "CES");
	assert_jsize_at(j, "events", 1);
	assert_jstr_at(j, "events/0/event", "ces_network_ips_not_defined");
	assert_jstr_at(j, "events/0/parameter", "CESNETWORK");
	assert_jstr_at(j, "events/0/severity", "WARNING");
	assert_jstr_at(j, "events/0/since", "20 hours ago");
	assert_jstr_at(j, "events/0/message", "No CES IP addresses have been defined.");
	json_decref(j);
	/* another subcommand's table is not a node show */
	expect_error("mmhealth", "malformed_line2_mmhealth_node_eventlog_cluster_connections_down.txt",
		     "mmhealth: line 2: expected 'key: value'");
}

/* mmlsmgr as IBM documents it: the table (with the node asked), the cluster
 * manager line of a plain or -c run, its failure, a row missing a part. */
static void test_mmlsmgr(void **state)
{
	const char *all =
		"file system      manager node\n"
		"---------------- ------------------\n"
		"scratch          10.0.0.3 (dgx03)\n"
		"\n"
		"Cluster manager node: 10.0.0.1 (dgx01)\n";
	const char *failed =
		"mmlsmgr: GPFS is not active on this node.\n"
		"mmlsmgr: Command failed.  Examine previous error messages to determine cause.\n";
	const char *twice =
		"Cluster manager node: 10.0.0.1 (dgx01)\nCluster manager node: 10.0.0.2 (dgx02)\n";
	json_t *j = parse_fixture("mmlsmgr", "mmlsmgr_fs1_ibm_docs_excerpt.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "file_systems", 1);
	assert_jstr_at(j, "file_systems/0/device", "fs1");
	assert_jstr_at(j, "file_systems/0/ip", "19.134.68.70");
	assert_jstr_at(j, "file_systems/0/node", "k164n06");
	assert_jstr_at(j, "from/node", "k164n05");
	assert_null(json_object_get(j, "cluster_manager"));
	json_decref(j);
	j = parse_text("mmlsmgr", all, strlen(all));
	assert_jstr_at(j, "file_systems/0/node", "dgx03");
	assert_jstr_at(j, "cluster_manager/ip", "10.0.0.1");
	assert_jstr_at(j, "cluster_manager/node", "dgx01");
	json_decref(j);
	j = parse_text("mmlsmgr", failed, strlen(failed));
	assert_jbool_at(j, "ok", 0);
	assert_jstr_at(j, "error", "mmlsmgr: GPFS is not active on this node.");
	json_decref(j);
	expect_error("mmlsmgr", "malformed_line3_row_without_node_name.txt",
		     "mmlsmgr: line 3: expected 'DEVICE ADDRESS (NAME)': 'fs1              19.134.68.70'");
	expect_error_text("mmlsmgr", twice, strlen(twice), "mmlsmgr: line 2: expected one "
			  "'Cluster manager node: ADDRESS (NAME)': 'Cluster manager node: 10.0.0.2 (dgx02)'");
}

/* The tool's own failure is ok:false with its words; a row whose status
 * mmhealth never prints (a shifted column) is an error naming the line. */
static void test_mmhealth_failure_and_bad_row(void **state)
{
	const char *failed =
		"mmhealth: This node does not belong to a GPFS cluster.\n"
		"mmhealth: Command failed.  Examine previous error messages to determine cause.\n";
	const char *shifted =
		"Node name:      n1\nNode status:    HEALTHY\n\n"
		"Component      Status        Status Change     Reasons & Notices\n"
		"----------------------------------------------------------------\n"
		"GPFS           HEALTHY       2 hours ago       -\n"
		"NETWORK   2 hours ago   HEALTHY     -\n";
	json_t *j = parse_text("mmhealth", failed, strlen(failed));
	struct err err = ERR_INIT;

	(void)state;
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_jstr_at(j, "error", "mmhealth: This node does not belong to a GPFS cluster.");
	assert_jsize_at(j, "errors", 2);
	json_decref(j);
	j = NULL;
	assert_int_not_equal(parse_mmhealth(shifted, strlen(shifted), &j, &err), 0);
	assert_null(j);
	assert_string_equal(err_msg(&err), "mmhealth: line 7: not a component row: "
			    "'NETWORK   2 hours ago   HEALTHY     -'");
	err_clear(&err);
}

/* A three-VM cluster: mmgetstate's wider name column, and mmlscluster
 * designations with "-perfmon" (the node also collects performance data). */
static void test_gpfs_three_vms_perfmon(void **state)
{
	json_t *j = parse_fixture("mmgetstate", "mmgetstate_a_3_vms_active_wide_name_column.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "nodes", 3);
	assert_jint_at(j, "nodes/2/number", 3);
	assert_jstr_at(j, "nodes/2/name", "gpfs3");
	assert_jstr_at(j, "nodes/2/state", "active");
	json_decref(j);

	j = parse_fixture("mmlscluster", "mmlscluster_3_vms_quorum_manager_perfmon_designations.txt");
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "cluster/gpfs_cluster_name", "gpfs1.gpfs1");
	assert_jstr_at(j, "cluster/gpfs_cluster_id", "17502596657464854352");
	assert_jstr_at(j, "cluster/repository_type", "CCR");
	assert_jsize_at(j, "nodes", 3);
	assert_jstr_at(j, "nodes/1/daemon_node_name", "gpfs2");
	assert_jstr_at(j, "nodes/1/ip_address", "10.28.81.16");
	assert_jstr_at(j, "nodes/1/designation", "quorum-perfmon");
	assert_jstr_at(j, "nodes/2/designation", "quorum-manager-perfmon");
	json_decref(j);
}

/* Issue 26: mmlsfileset -L read by words (a long CSI fileset name shifts
 * its row), no comment, and the plain layout. */
static void test_mmlsfileset(void **state)
{
	json_t *j = parse_fixture("mmlsfileset", "L_ess3k_fs1_csi_filesets_long_name_shifts_columns.txt");

	(void)state;
	assert_jstr_at(j, "file_system", "ess3k_fs1");
	assert_jstr_at(j, "format", "long");
	assert_jsize_at(j, "filesets", 3);
	assert_jstr_at(j, "filesets/1/name", "pvc-87f18620-9fac-44ce-ad19-0def5f4304a1");
	assert_jint_at(j, "filesets/1/id", 1);
	assert_jint_at(j, "filesets/1/root_inode", 524291);
	assert_jint_at(j, "filesets/1/parent_id", 0);
	assert_jstr_at(j, "filesets/1/created", "Mon Feb 15 12:56:11 2021");
	assert_jint_at(j, "filesets/1/max_inodes", 1024);
	assert_jstr_at(j, "filesets/1/comment", "Fileset created by IBM Container Storage Interface driver");
	assert_null(jpath(j, "filesets/0/parent_id"));
	json_decref(j);
	j = parse_fixture("mmlsfileset", "L_gpfs_test1_independent_fileset_no_comment.txt");
	assert_jint_at(j, "filesets/1/alloc_inodes", 65920);
	assert_jstr_at(j, "filesets/1/comment", "");
	json_decref(j);
	j = parse_fixture("mmlsfileset", "plain_fs1_ces_3_linked.txt");
	assert_jstr_at(j, "format", "plain");
	assert_jstr_at(j, "filesets/2/path", "/gpfs/fs1/tools");
	assert_jbool_at(j, "filesets/2/linked", 1);
	json_decref(j);
	expect_error("mmlsfileset", "../mmlsmount/mmlsmount_all_L_remote_fs_mounted.txt",
		     "not mmlsfileset output");
}

/* mmchconfig's sizes: binary K M G T, either case; anything else refused. */
static void test_gpfs_size_bytes(void **state)
{
	unsigned long long b = 0;

	(void)state;
	assert_int_equal(gpfs_size_bytes("16G", &b), 0);
	assert_true(b == 16ULL << 30);
	assert_int_equal(gpfs_size_bytes("2t", &b), 0);
	assert_true(b == 2ULL << 40);
	assert_int_equal(gpfs_size_bytes("1073741824", &b), 0);
	assert_true(b == 1ULL << 30);
	assert_int_equal(gpfs_size_bytes("512M", &b), 0);
	assert_true(b == 512ULL << 20);
	assert_int_equal(gpfs_size_bytes("16GB", &b), -1);
	assert_int_equal(gpfs_size_bytes("G", &b), -1);
	assert_int_equal(gpfs_size_bytes("", &b), -1);
	assert_int_equal(gpfs_size_bytes("-1G", &b), -1);
	assert_int_equal(gpfs_size_bytes("99999999999T", &b), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpfs_size_bytes),
		cmocka_unit_test(test_mmgetstate),
		cmocka_unit_test(test_mmgetstate_unreachable_and_failure),
		cmocka_unit_test(test_mmlscluster),
		cmocka_unit_test(test_gpfs_three_vms_perfmon),
		cmocka_unit_test(test_mmlsconfig_node_classes),
		cmocka_unit_test(test_mmlsconfig_shared_stanza),
		cmocka_unit_test(test_mmlsmount_remote),
		cmocka_unit_test(test_mmlsfileset),
		cmocka_unit_test(test_mmremotecluster),
		cmocka_unit_test(test_mmremotefs),
		cmocka_unit_test(test_mmlsnodeclass),
		cmocka_unit_test(test_mmlslicense),
		cmocka_unit_test(test_mmlsmgr),
		cmocka_unit_test(test_mmdiag_network_and_config),
		cmocka_unit_test(test_mmdiag_failure),
		cmocka_unit_test(test_mmhealth),
		cmocka_unit_test(test_mmhealth_degraded_events),
		cmocka_unit_test(test_mmhealth_failure_and_bad_row),
	};
	return cmocka_run_group_tests_name("parse-gpfs", tests, NULL, NULL);
}
