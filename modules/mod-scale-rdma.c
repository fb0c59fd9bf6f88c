/*
 * scale_rdma: proof, on each Scale client, that the GPFS daemon moves data
 * over verbs RDMA (Redpaper 3.3: verbsRdma, verbsRdmaSend and verbsPorts
 * over the four HCAs). A verbsPorts typo is the classic silent fallback to
 * TCP: the daemon starts, the file system mounts, and I/O crawls. Read-only:
 * mmdiag --config gives what the running daemon uses, mmdiag --network
 * where RDMA runs and to which nodes. check fails when verbsRdma is enabled
 * but RDMA did not start, when a port of verbsPorts is not among the ports
 * RDMA runs on, or (with a remote cluster) when no node is connected over
 * RDMA; and it fails, never skips, when the configuration (mmlsconfig, the
 * stanza that applies to the node) asks for verbs RDMA and the daemon runs
 * without it, or mmfsadm test verbs status says RDMA is not started.
 * precheck's scale.rdma applies the same rules (scale_rdma_judge).
 */
#include "../engine/deploy/module.h"
#include "scale-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/precheck/check-scale.h"
#include "../engine/facts/parse.h"

static const struct param_spec params[] = {
	{ "nodeclass", PARAM_STRING, "", "gpfs_nodeclass",
	  "the node class whose mmlsconfig stanza applies to the node", NULL },
	{ "remote_cluster", PARAM_STRING, "", "gpfs_remote_cluster",
	  "the storage cluster (set: some node must be connected over RDMA)", NULL },
	{ NULL },
};

/* The section "@@name" of the probe's output, and its exit status. */
static int section(const char *out, const char *name, struct strbuf *body)
{
	char mark[32];
	const char *p, *end, *rc;

	snprintf(mark, sizeof(mark), "@@%s\n", name);
	if (!(p = strstr(out, mark)))
		return -1;
	p += strlen(mark);
	if (!(end = strstr(p, "@@rc=")))
		return -1;
	strbuf_add(body, p, (size_t)(end - p));
	rc = end + 5;
	return atoi(rc);
}

static int sr_check(struct mod_ctx *mc)
{
	struct strbuf cfg = STRBUF_INIT, net = STRBUF_INIT, why = STRBUF_INIT, ok = STRBUF_INIT;
	struct strbuf lsc = STRBUF_INIT, verbs = STRBUF_INIT, status = STRBUF_INIT;
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *jc = NULL, *jn = NULL, *jl = NULL;
	const char *vs = NULL;
	int rc = mod_probe(mc, "scale_rdma/state.sh", NULL, NULL, &res), crc, nrc;

	if (rc)
		goto out;
	crc = section(res.out.buf, "config", &cfg);
	nrc = section(res.out.buf, "network", &net);
	if (crc || nrc) {
		/* --check on a bare cluster: the stages before this one start GPFS. */
		const char *what = crc == 127 || nrc == 127 ? "Spectrum Scale is not installed" :
			"the GPFS daemon does not answer mmdiag";

		if (mod_checking(mc))
			mod_note(mc, "%s yet: RDMA is proved after the deploy", what);
		else
			rc = mod_fail(mc, ERR_STATE, "%s (mmdiag exited %d): %s", what,
				      crc ? crc : nrc, crc ? cfg.buf : net.buf);
		goto out;
	}
	if (parse_mmdiag_config(cfg.buf, cfg.len, &jc, &perr) ||
	    parse_mmdiag_network(net.buf, net.len, &jn, &perr) ||
	    (!section(res.out.buf, "lsconfig", &lsc) &&
	     parse_mmlsconfig(lsc.buf, lsc.len, &jl, &perr))) {
		rc = mod_fail(mc, ERR_PARSE, "%s", err_msg(&perr));
		goto out;
	}
	if (!section(res.out.buf, "verbs", &verbs) && scale_verbs_status(verbs.buf, &status))
		vs = status.buf;
	switch (scale_rdma_judge(jc, jn, jl ? scale_config_for(jl, mod_host(mc),
				 *mod_param_str(mc, "nodeclass") ? mod_param_str(mc, "nodeclass") : NULL,
				 "verbsRdma") : NULL, vs, *mod_param_str(mc, "remote_cluster"),
				 &why, &ok)) {
	case SCALE_RDMA_OFF:
		rc = mod_skip(mc, "%s", why.buf);
		break;
	case SCALE_RDMA_OK:
		mod_note(mc, "%s", ok.buf);
		break;
	case SCALE_RDMA_BAD:
		rc = mod_fail(mc, ERR_STATE, "%s", why.buf);
		break;
	}
out:
	json_decref(jc);
	json_decref(jn);
	json_decref(jl);
	strbuf_release(&lsc);
	strbuf_release(&verbs);
	strbuf_release(&status);
	err_clear(&perr);
	cmd_result_release(&res);
	strbuf_release(&cfg);
	strbuf_release(&net);
	strbuf_release(&why);
	strbuf_release(&ok);
	return rc;
}

/* Never called: check records no change. */
static int sr_apply(struct mod_ctx *mc)
{
	(void)mc;
	return 0;
}

const struct stage_module mod_scale_rdma = {
	.name = "scale_rdma",
	.summary = "proof that GPFS uses verbs RDMA on the configured ports (mmdiag --config, "
		   "mmdiag --network); read-only",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = sr_check,
	.apply = sr_apply,
};
