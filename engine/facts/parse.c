/* The table of tool-output parsers behind `bringup parse`; see parse.h. */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

/* Sorted by name (strcmp order): lookup is a binary search and a unit test
 * keeps it sorted. */
static const struct parser parsers[] = {
	{ "dcgmi-diag", "DCGM diagnostics per test and GPU (dcgmi diag -r 1|2|3)", parse_dcgmi_diag },
	{ "dle-resnet50", "DeepLearningExamples PyTorch ResNet-50 run (DLLogger lines): images/sec", parse_dle_resnet50 },
	{ "dmesg-modules", "kernel module loader's unknown/mismatched symbols (dmesg lines)", parse_dmesg_modules },
	{ "getenforce", "SELinux mode (Enforcing/Permissive/Disabled)", parse_getenforce },
	{ "horovod-synthetic", "Horovod's synthetic benchmark (TF, TF2, PyTorch): img/sec per GPU and total", parse_horovod_synthetic },
	{ "ibdev2netdev", "HCA port to network device, Up/Down (ibdev2netdev)", parse_ibdev2netdev },
	{ "ibhosts", "the fabric's channel adapters (ibhosts)", parse_ibhosts },
	{ "iblinkinfo", "InfiniBand fabric links, both ends (iblinkinfo)", parse_iblinkinfo },
	{ "ibnetdiscover", "InfiniBand fabric topology: nodes and their links (ibnetdiscover, -p)", parse_ibnetdiscover },
	{ "ibstat", "InfiniBand CAs and ports (ibstat)", parse_ibstat },
	{ "ibstatus", "InfiniBand port status (ibstatus script)", parse_ibstatus },
	{ "ibv_devinfo", "verbs devices and ports (ibv_devinfo, -v, -vv)", parse_ibv_devinfo },
	{ "kubectl-describe-node", "a node's description: labels, taints, conditions, capacity, allocatable, allocated (kubectl/oc describe node)", parse_kubectl_describe_node },
	{ "kubectl-get-nodes", "nodes with status, roles, version (kubectl/oc get nodes, -o wide)", parse_kubectl_get_nodes },
	{ "kubectl-get-nodes-yaml", "whole Node objects: status, roles, version, addresses, labels, taints, capacity, allocatable, conditions (kubectl/oc get nodes -o yaml|json, get node NAME -o yaml)", parse_kubectl_get_nodes_yaml },
	{ "lsmod", "loaded kernel modules (lsmod, also grepped lines)", parse_lsmod },
	{ "lspci", "PCI devices with PCIe link capability/status (lspci -vvv, or its LnkCap/LnkSta lines)", parse_lspci },
	{ "meminfo", "memory sizes in KiB: MemTotal, MemAvailable, ... (/proc/meminfo)", parse_meminfo },
	{ "mmdiag-config", "GPFS daemon's running configuration (mmdiag --config)", parse_mmdiag_config },
	{ "mmdiag-network", "GPFS daemon's connections, verbs RDMA ports (mmdiag --network)", parse_mmdiag_network },
	{ "mmgetstate", "GPFS daemon state per node (mmgetstate -a)", parse_mmgetstate },
	{ "mmhealth", "GPFS node health and its components (mmhealth node show)", parse_mmhealth },
	{ "mmlscluster", "GPFS cluster information and nodes (mmlscluster)", parse_mmlscluster },
	{ "mmlsconfig", "GPFS configuration per node class (mmlsconfig)", parse_mmlsconfig },
	{ "mmlsfileset", "GPFS filesets: status and path, or with -L ids, inode space and limits (mmlsfileset)", parse_mmlsfileset },
	{ "mmlslicense", "GPFS licence designations per node: required and designated (mmlslicense -Y)", parse_mmlslicense },
	{ "mmlsmgr", "GPFS file system managers and the cluster manager (mmlsmgr, mmlsmgr -c)", parse_mmlsmgr },
	{ "mmlsmount", "GPFS file systems and the nodes mounting them (mmlsmount all -L)", parse_mmlsmount },
	{ "mmlsnodeclass", "GPFS node classes and their members (mmlsnodeclass)", parse_mmlsnodeclass },
	{ "mmremotecluster", "GPFS remote cluster definitions (mmremotecluster show)", parse_mmremotecluster },
	{ "mmremotefs", "GPFS remote file systems (mmremotefs show)", parse_mmremotefs },
	{ "modinfo", "a kernel module's build: version, depends, vermagic (modinfo)", parse_modinfo },
	{ "nccl-debug", "NCCL_DEBUG=INFO log: network, IB devices/ports, transports, GDR per GPU and peer", parse_nccl_debug },
	{ "nccl-tests", "nccl-tests results (all_reduce_perf etc., old and new layouts)", parse_nccl_tests },
	{ "nvidia-smi", "GPU summary table (nvidia-smi)", parse_nvidia_smi },
	{ "nvidia-smi-q", "GPU details (nvidia-smi -q): ids, clock event reasons, remapped rows, PCIe link", parse_nvidia_smi_q },
	{ "nvidia-smi-topo", "GPU/NIC topology matrix (nvidia-smi topo -m)", parse_nvidia_smi_topo },
	{ "ofed_info", "MLNX OFED version (ofed_info -s, -n, or its full first line)", parse_ofed_info },
	{ "os-release", "/etc/os-release KEY=VALUE pairs", parse_os_release },
	{ "perfquery", "InfiniBand port counters (perfquery -x, plain, -E)", parse_perfquery },
	{ "perftest", "perftest results (ib_write_bw, ib_read_bw, ...)", parse_perftest },
	{ "saquery", "subnet administrator records, NodeRecords as nodes (saquery)", parse_saquery },
	{ "sminfo", "InfiniBand subnet manager (sminfo)", parse_sminfo },
	{ "ssh-peer", "node-to-node BatchMode SSH logins, one line a peer (precheck's ssh-peer.sh)", parse_ssh_peer },
	{ "tf_cnn_benchmarks", "tf_cnn_benchmarks run: model, batch, steps, images/sec", parse_tf_cnn_benchmarks },
};

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct parser *)elem)->name);
}

const struct parser *parser_lookup(const char *name)
{
	return bsearch(name, parsers, sizeof(parsers) / sizeof(parsers[0]),
		       sizeof(parsers[0]), cmp_name);
}

const struct parser *parser_list(size_t *ret_n)
{
	*ret_n = sizeof(parsers) / sizeof(parsers[0]);
	return parsers;
}
