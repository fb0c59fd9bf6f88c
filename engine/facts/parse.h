/*
 * Parsers for the text that cluster tools print (ibstat, nvidia-smi, GPFS mm
 * commands, perftest, nccl-tests...), turned into JSON (like `jc`).
 *
 * Every parser has the same shape: it reads a whole captured output, builds
 * one JSON object and returns it through ret (the caller owns the reference
 * and drops it with json_decref()). Text that fits none of the tool's known
 * forms fails with ERR_PARSE and a message "TOOL: line N: what did not fit";
 * text without what the tool always prints (its header, key set, column
 * shape) fails with "TOOL: not TOOL output (why)", so that no parser takes
 * another tool's output (tests/unit/test-parse-cross.c); empty input fails
 * with "TOOL: no TOOL output". A failure the tool itself
 * reports (sminfo's iberror, perftest's "Couldn't allocate MR", ibstat's
 * ibpanic, nvidia-smi's "Failed to initialize NVML", the shell's "command
 * not found" for that tool's own command) is valid input: it parses into the object with "ok": false,
 * "error" (the tool's first words) and "errors"; whatever parsed before it
 * stays. Lines a tool prints besides its data (nvidia-smi's "WARNING:
 * infoROM is corrupted ...", lspci's pcilib lines) go to "warnings". A
 * result of these parsers without a failure says "ok": true.
 *
 * The registry is one sorted table in parse.c; each tool family lives in its
 * own engine/parse-<family>.c.
 */
#ifndef BRINGUP_PARSE_H
#define BRINGUP_PARSE_H

#include <jansson.h>
#include <stddef.h>

#include "../base/err.h"

typedef int parse_fn(const char *buf, size_t len, json_t **ret, struct err *err);

struct parser {
	const char *name;    /* what `bringup parse NAME` takes */
	const char *summary; /* one line for `bringup parse --list` */
	parse_fn *fn;
};

/* The parser called name, or NULL. */
const struct parser *parser_lookup(const char *name);
/* The whole table, sorted by name; its length goes to ret_n. */
const struct parser *parser_list(size_t *ret_n);

/* parse-ib.c */
parse_fn parse_ibstat, parse_ibstatus, parse_ibv_devinfo, parse_sminfo,
	parse_ofed_info, parse_saquery;
/* parse-nvidia.c */
parse_fn parse_nvidia_smi, parse_nvidia_smi_q, parse_nvidia_smi_topo;
/* parse-pci.c */
parse_fn parse_lspci;
/* parse-os.c */
parse_fn parse_lsmod, parse_meminfo, parse_os_release, parse_getenforce, parse_dmesg_modules, parse_modinfo;
/* parse-gpfs.c */
parse_fn parse_mmgetstate, parse_mmlscluster, parse_mmlsconfig,
	parse_mmlsmount, parse_mmremotecluster, parse_mmremotefs, parse_mmlsnodeclass,
	parse_mmlsmgr, parse_mmdiag_config, parse_mmdiag_network, parse_mmhealth,
	parse_mmlsfileset, parse_mmlslicense;
/* parse-ibdev2netdev.c */
parse_fn parse_ibdev2netdev;
/* parse-ibhosts.c */
parse_fn parse_ibhosts;
/* parse-iblinkinfo.c */
parse_fn parse_iblinkinfo;
/* parse-ibnetdiscover.c */
parse_fn parse_ibnetdiscover;
/* parse-perfquery.c */
parse_fn parse_perfquery;
/* parse-perftest.c */
parse_fn parse_perftest;
/* parse-dcgmi.c */
parse_fn parse_dcgmi_diag;
/*
 * What a parsed dcgmi diag table says is wrong, one entry a subject ("GPU
 * N", else the test's or section's name): {"fail": bool, "what": "TEST:
 * Fail; TEST: message"}. A Fail result or an Error row fails; Warn and
 * Warning warn; Info is left out. Precheck's gpu.dcgm_diag and the dcgm
 * validation stage judge alike through it. Caller owns the object.
 */
json_t *dcgmi_diag_problems(const json_t *diag);
/* parse-bench.c */
parse_fn parse_nccl_tests, parse_nccl_debug, parse_tf_cnn_benchmarks, parse_dle_resnet50,
	parse_horovod_synthetic;
/* parse-kube.c */
parse_fn parse_kubectl_get_nodes, parse_kubectl_describe_node, parse_kubectl_get_nodes_yaml;
/* parse-sshpeer.c */
parse_fn parse_ssh_peer;

/* A GPFS size value ("16G", "512M", "1073741824") in bytes: 0, or -1 when
 * it is not one (or does not fit in 64 bits). */
int gpfs_size_bytes(const char *s, unsigned long long *ret);

#endif
