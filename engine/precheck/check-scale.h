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
 * config: parse_mmdiag_config; network: parse_mmdiag_network. Bad when
 * verbsRdma is enabled but RDMA did not start, when a port of verbsPorts
 * is not among the ports RDMA runs on (a typo falls back to TCP), or, with
 * want_connections, when no node is connected over RDMA.
 */
enum scale_rdma_verdict scale_rdma_judge(const json_t *config, const json_t *network,
					 bool want_connections, struct strbuf *why,
					 struct strbuf *ok);

#endif
