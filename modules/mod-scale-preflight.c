/*
 * scale_preflight: what the Spectrum Scale configuration asks of each node,
 * checked on the node before any stage changes anything (the first stage of
 * deploy, max_fail_percent 0: one refusal stops the run). Read-only.
 *
 * The page pool is pinned memory: GPFS holds at most pagepoolMaxPhysMemPct
 * (default 75, 10-90) per cent of the node's physical memory in it (IBM
 * Storage Scale Command and Programming Reference, mmchconfig:
 * pagepoolMaxPhysMemPct; the daemon's messages 6027-2055 and 6027-2057 when
 * it meets a larger one). A pagepool above that share of MemTotal is
 * refused here, naming the inventory key that asks for it, instead of
 * being applied live by scale_tune (`pagepool: 2T` reached 24 GB nodes).
 */
#include "../engine/deploy/module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/facts/parse.h"
#include "../engine/precheck/check-scale.h"

static const struct param_spec params[] = {
	{ NULL },
};

/* "FILE:LINE:COL: " of the inventory key, or "" when it cannot be told. */
static void where(const struct mod_ctx *mc, const char *var, const char *key,
		  struct strbuf *out)
{
	if (mod_var_where(mc, var, key, out))
		strbuf_addstr(out, ": ");
}

static int pagepool_check(struct mod_ctx *mc)
{
	static const char *const argv[] = { "cat", "/proc/meminfo", NULL };
	const json_t *vars = mod_host_vars(mc);
	char have[32], limit[32];
	unsigned long long mem_kb;
	struct scale_pagepool pp;
	struct strbuf at = STRBUF_INIT;
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *mi = NULL;
	int rc = 0;

	switch (scale_pagepool_judge(vars, 0, &pp)) {
	case SCALE_PP_NONE:
		return 0;
	case SCALE_PP_BAD_VALUE:
		where(mc, pp.var, "pagepool", &at);
		rc = mod_fail(mc, ERR_INVENTORY, "%s%s pagepool '%s' for %s: expected a size such "
			      "as 16G (digits and K, M, G or T)", at.buf, pp.var, pp.value,
			      mod_host(mc));
		strbuf_release(&at);
		return rc;
	case SCALE_PP_BAD_PCT:
		where(mc, pp.pct_var, "pagepoolMaxPhysMemPct", &at);
		rc = mod_fail(mc, ERR_INVENTORY, "%s%s pagepoolMaxPhysMemPct '%s' for %s: expected "
			      "a whole per cent from 10 to 90", at.buf, pp.pct_var, pp.pct_value,
			      mod_host(mc));
		strbuf_release(&at);
		return rc;
	default:
		break;
	}
	if ((rc = mod_exec_ok(mc, argv, NULL, &res)))
		goto out;
	if (parse_meminfo(res.out.buf, res.out.len, &mi, &perr)) {
		rc = mod_fail(mc, ERR_PARSE, "/proc/meminfo on %s: %s", mod_host(mc),
			      err_msg(&perr));
		goto out;
	}
	mem_kb = (unsigned long long)json_integer_value(json_object_get(mi, "MemTotal"));
	if (scale_pagepool_judge(vars, mem_kb, &pp) != SCALE_PP_OVER)
		goto out;
	where(mc, pp.var, "pagepool", &at);
	scale_size_human(pp.mem_bytes, have, sizeof(have));
	scale_size_human(pp.limit, limit, sizeof(limit));
	rc = mod_fail(mc, ERR_INVENTORY, "%s%s pagepool %s is more than %s can hold: its memory "
		      "is %s (MemTotal %llu kB) and GPFS gives the page pool at most %u%% of it "
		      "(pagepoolMaxPhysMemPct), %s; nothing was changed. Lower pagepool to %s or "
		      "less", at.buf, pp.var, pp.value, mod_host(mc), have, mem_kb, pp.pct, limit,
		      limit);
out:
	json_decref(mi);
	err_clear(&perr);
	cmd_result_release(&res);
	strbuf_release(&at);
	return rc;
}

/* check records no change: there is never anything to apply. */
static int nothing(struct mod_ctx *mc)
{
	(void)mc;
	return 0;
}

const struct stage_module mod_scale_preflight = {
	.name = "scale_preflight",
	.summary = "refuse a GPFS pagepool above the node's share of memory, before any change",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = pagepool_check,
	.apply = nothing,
	.verify = NULL,
};
