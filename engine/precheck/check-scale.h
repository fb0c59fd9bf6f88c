/*
 * Judging verbs RDMA of a GPFS daemon from mmdiag --config and mmdiag
 * --network (parse-gpfs.c): shared by the scale_rdma stage and precheck's
 * scale.rdma, so that both say the same thing about the same node.
 */
#ifndef BRINGUP_CHECK_SCALE_H
#define BRINGUP_CHECK_SCALE_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/strbuf.h"

enum scale_rdma_verdict {
	SCALE_RDMA_OK,   /* ok: what runs ("verbs RDMA on mlx5_0/1 ...: 2 connections") */
	SCALE_RDMA_OFF,  /* verbsRdma is not enabled: nothing to prove (why says so) */
	SCALE_RDMA_BAD,  /* why: what is wrong and what to do */
};

/*
 * config: parse_mmdiag_config (what the running daemon uses); network:
 * parse_mmdiag_network. `configured`: verbsRdma as the configuration gives
 * it for this node (scale_config_for on mmlsconfig; NULL: unknown);
 * `verbs_status`: the word after "VERBS RDMA status:" of `mmfsadm test
 * verbs status` (NULL: not read). Bad when the configuration asks for verbs
 * RDMA and the daemon runs without it (never OFF then: a daemon started
 * before verbsRdma was set, or one that could not start RDMA, moves data
 * over TCP), when verbsRdma is enabled but RDMA did not start, when a port
 * of verbsPorts is not among the ports RDMA runs on (a typo falls back to
 * TCP), or, with want_connections, when no node is connected over RDMA.
 * OFF only when neither the configuration nor the daemon enables it.
 */
enum scale_rdma_verdict scale_rdma_judge(const json_t *config, const json_t *network,
					 const char *configured, const char *verbs_status,
					 bool want_connections, struct strbuf *why,
					 struct strbuf *ok);

/*
 * The status word(s) of `mmfsadm test verbs status` output ("started",
 * "disabled", "not started"; the real output starts with a blank line)
 * into `ret`; false when the output has no "VERBS RDMA status:" line.
 */
bool scale_verbs_status(const char *out, struct strbuf *ret);

/*
 * The value of `attr` that applies to `node` in parse_mmlsconfig's output:
 * a stanza naming the node, alone or in a list ("[dgx01,dgx02]"), wins over
 * one naming a node class it belongs to (`nodeclass`, NULL: none known),
 * which wins over [common]. NULL when none sets it. Borrowed.
 */
const char *scale_config_for(const json_t *lsconfig, const char *node, const char *nodeclass,
			     const char *attr);

/*
 * True when a configured value and a running one (mmdiag --config) are the
 * same setting: sizes compare as numbers with GPFS's binary suffixes (16G is
 * 17179869184, 1M is 1048576), yes/enable/true as 1 and no/disable/false as
 * 0, anything else as text.
 */
bool scale_config_same(const char *configured, const char *running);

/*
 * Every attribute the configuration sets for `node` (its own stanzas, its
 * class's, [common]; not the cluster's identity: clusterName, clusterId,
 * autoload, minReleaseLevel...) whose running value (`running`:
 * parse_mmdiag_config) differs: one "ATTR configured X, running Y" item
 * each, "; "-separated, appended to out. Returns how many.
 */
size_t scale_config_drift(const json_t *lsconfig, const json_t *running, const char *node,
			  const char *nodeclass, struct strbuf *out);

/*
 * The page pool a node's inventory asks for against its memory: GPFS
 * holds at most pagepoolMaxPhysMemPct (default 75, 10-90) per cent of
 * physical memory in it (IBM, mmchconfig: pagepoolMaxPhysMemPct; the
 * daemon's messages 6027-2055 and 6027-2057). Shared by the scale_preflight
 * stage and precheck's scale.pagepool.
 */
enum scale_pagepool_verdict {
	SCALE_PP_NONE,      /* the inventory sets no pagepool */
	SCALE_PP_OK,
	SCALE_PP_OVER,      /* bytes > limit */
	SCALE_PP_BAD_VALUE, /* pagepool is not a size */
	SCALE_PP_BAD_PCT,   /* pagepoolMaxPhysMemPct is not 10-90 */
};

struct scale_pagepool {
	const char *var, *value;         /* gpfs_config | gpfs_common_config, as written */
	const char *pct_var, *pct_value; /* where pagepoolMaxPhysMemPct came from; NULL: default */
	unsigned long long bytes, mem_bytes, limit;
	unsigned pct;
	char num[32], pnum[32];          /* a YAML number, as text */
};

/*
 * vars: the host's inventory vars (its class's gpfs_config when it has a
 * gpfs_nodeclass, else gpfs_common_config); mem_kb: MemTotal of
 * /proc/meminfo (0: judge only the values). Fills *out.
 */
enum scale_pagepool_verdict scale_pagepool_judge(const json_t *vars, unsigned long long mem_kb,
						 struct scale_pagepool *out);

/* Bytes as GPFS writes sizes, to one decimal: "378.1G". */
void scale_size_human(unsigned long long bytes, char *out, size_t len);

#endif
