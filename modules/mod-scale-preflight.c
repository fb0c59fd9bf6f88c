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

/* mmchconfig's default and range of pagepoolMaxPhysMemPct. */
#define PCT_DEFAULT 75
#define PCT_MIN 10
#define PCT_MAX 90

static const struct param_spec params[] = {
	{ NULL },
};

/*
 * The value of GPFS attribute `attr` this node is configured with, as the
 * inventory says: its class's gpfs_config (scale_tune applies it with -N
 * CLASS, so only with a gpfs_nodeclass), else gpfs_common_config. *ret_var
 * names the variable it came from. A YAML number is bytes, as
 * scale_desired_config hands it to mmchconfig.
 */
static const char *attr_value(const json_t *vars, const char *attr, const char **ret_var,
			      char *num, size_t numlen)
{
	static const char *const layers[] = { "gpfs_config", "gpfs_common_config" };
	const json_t *cls = json_object_get(vars, "gpfs_nodeclass");

	for (size_t i = json_is_string(cls) && *json_string_value(cls) ? 0 : 1; i < 2; i++) {
		const json_t *v = json_object_get(json_object_get(vars, layers[i]), attr);

		*ret_var = layers[i];
		if (json_is_string(v))
			return json_string_value(v);
		if (json_is_integer(v)) {
			snprintf(num, numlen, "%lld", (long long)json_integer_value(v));
			return num;
		}
		if (v)
			return "";
	}
	return NULL;
}

/* Bytes as GPFS would write them back, to one decimal: "378.0G". */
static void human(unsigned long long b, char *out, size_t len)
{
	static const char units[] = "KMGT";
	double v = (double)b;
	int u = -1;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, len, "%llu", b);
	else
		snprintf(out, len, "%.1f%c", v, units[u]);
}

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
	const char *var = NULL, *pvar = NULL, *val, *pval;
	char num[32], pnum[32], have[32], limit_s[32];
	unsigned long long bytes, mem_kb, limit, pct = PCT_DEFAULT;
	struct strbuf at = STRBUF_INIT;
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *mi = NULL;
	int rc;

	val = attr_value(vars, "pagepool", &var, num, sizeof(num));
	if (!val)
		return 0;
	if (gpfs_size_bytes(val, &bytes)) {
		where(mc, var, "pagepool", &at);
		rc = mod_fail(mc, ERR_INVENTORY, "%s%s pagepool '%s' for %s: expected a size "
			      "such as 16G (digits and K, M, G or T)", at.buf, var, val, mod_host(mc));
		strbuf_release(&at);
		return rc;
	}
	pval = attr_value(vars, "pagepoolMaxPhysMemPct", &pvar, pnum, sizeof(pnum));
	if (pval) {
		char *end;

		pct = strtoull(pval, &end, 10);
		if (!*pval || *end || pct < PCT_MIN || pct > PCT_MAX) {
			where(mc, pvar, "pagepoolMaxPhysMemPct", &at);
			rc = mod_fail(mc, ERR_INVENTORY, "%s%s pagepoolMaxPhysMemPct '%s' for %s: "
				      "expected a whole per cent from %d to %d", at.buf, pvar, pval,
				      mod_host(mc), PCT_MIN, PCT_MAX);
			strbuf_release(&at);
			return rc;
		}
	}
	if ((rc = mod_exec_ok(mc, argv, NULL, &res)))
		goto out;
	if (parse_meminfo(res.out.buf, res.out.len, &mi, &perr)) {
		rc = mod_fail(mc, ERR_PARSE, "/proc/meminfo on %s: %s", mod_host(mc),
			      err_msg(&perr));
		goto out;
	}
	mem_kb = (unsigned long long)json_integer_value(json_object_get(mi, "MemTotal"));
	limit = mem_kb * 1024 / 100 * pct;
	if (bytes <= limit)
		goto out;
	where(mc, var, "pagepool", &at);
	human(mem_kb * 1024, have, sizeof(have));
	human(limit, limit_s, sizeof(limit_s));
	rc = mod_fail(mc, ERR_INVENTORY, "%s%s pagepool %s is more than %s can hold: its memory "
		      "is %s (MemTotal %llu kB) and GPFS gives the page pool at most %llu%% of it "
		      "(pagepoolMaxPhysMemPct), %s; nothing was changed. Lower pagepool to %s or "
		      "less", at.buf, var, val, mod_host(mc), have, mem_kb, pct, limit_s, limit_s);
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
