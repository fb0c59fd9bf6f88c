/*
 * Judging verbs RDMA of a GPFS daemon; see check-scale.h.
 */
#include "check-scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/xalloc.h"
#include "../facts/parse.h"

/* "mlx5_0/1" or "mlx5_0/1/2" (with a fabric number) among the RDMA ports. */
static bool port_running(const json_t *ports, const char *spec)
{
	char dev[64] = "";
	int port = 1;
	size_t i;
	json_t *p;

	if (sscanf(spec, "%63[^/]/%d", dev, &port) < 1)
		return false;
	json_array_foreach(ports, i, p)
		if (!strcmp(json_string_value(json_object_get(p, "device")), dev) &&
		    json_integer_value(json_object_get(p, "port")) == port)
			return true;
	return false;
}

static void running_ports(const json_t *ports, struct strbuf *out)
{
	size_t i;
	json_t *p;

	json_array_foreach(ports, i, p)
		strbuf_addf(out, "%s%s/%lld", out->len ? " " : "",
			    json_string_value(json_object_get(p, "device")),
			    (long long)json_integer_value(json_object_get(p, "port")));
}

bool scale_verbs_status(const char *out, struct strbuf *ret)
{
	static const char key[] = "VERBS RDMA status:";
	const char *p = out ? strstr(out, key) : NULL;

	if (!p)
		return false;
	p += sizeof(key) - 1;
	p += strspn(p, " \t");
	strbuf_add(ret, p, strcspn(p, "\r\n"));
	strbuf_rtrim(ret);
	return true;
}

/* "a,b,c" holds `name` (node names compare up to the first dot). */
static bool label_has(const char *label, const char *name)
{
	size_t n = strcspn(name, ".");

	for (const char *p = label; *p; p += strcspn(p, ",") + !!p[strcspn(p, ",")]) {
		size_t l = strcspn(p, ",");
		size_t ls = strcspn(p, ".,");

		if ((ls == n || l == n) && !strncmp(p, name, n))
			return true;
	}
	return false;
}

const char *scale_config_for(const json_t *lsconfig, const char *node, const char *nodeclass,
			     const char *attr)
{
	const json_t *labels = json_object_get(lsconfig, "nodeclasses"), *attrs;
	const char *label, *by_class = NULL, *v;

	json_object_foreach((json_t *)labels, label, attrs) {
		if (!strcmp(label, "common") || !(v = json_string_value(json_object_get(attrs, attr))))
			continue;
		if (node && label_has(label, node))
			return v;
		if (nodeclass && !by_class && label_has(label, nodeclass))
			by_class = v;
	}
	if (by_class)
		return by_class;
	return json_string_value(json_object_get(json_object_get(labels, "common"), attr));
}

/* A GPFS number with an optional binary suffix; false when `s` is not one. */
static bool gpfs_number(const char *s, double *ret)
{
	static const char sfx[] = "KMGTP";
	char *end;
	double v = strtod(s, &end);
	const char *k;

	if (end == s)
		return false;
	if (*end && (k = strchr(sfx, end[0] & ~0x20)) && !end[1]) {
		for (const char *q = sfx; q <= k; q++)
			v *= 1024;
		end++;
	}
	*ret = v;
	return !*end;
}

static int gpfs_bool(const char *s)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "enable") || !strcasecmp(s, "true") ||
	    !strcmp(s, "1"))
		return 1;
	if (!strcasecmp(s, "no") || !strcasecmp(s, "disable") || !strcasecmp(s, "false") ||
	    !strcmp(s, "0"))
		return 0;
	return -1;
}

bool scale_config_same(const char *configured, const char *running)
{
	double a, b;
	int ba = gpfs_bool(configured), bb = gpfs_bool(running);

	if (!strcmp(configured, running))
		return true;
	if (ba >= 0 && bb >= 0)
		return ba == bb;
	if (gpfs_number(configured, &a) && gpfs_number(running, &b))
		return a == b;
	return false;
}

/* The cluster's identity and settings that no daemon runs with per node. */
static bool cluster_field(const char *attr)
{
	static const char *const fields[] = { "clusterName", "clusterId", "autoload",
		"dmapiFileHandleSize", "minReleaseLevel", "ccrEnabled", "cipherList",
		"adminMode", "tiebreakerDisks", "tscCmdPortRange", NULL };

	for (size_t i = 0; fields[i]; i++)
		if (!strcmp(attr, fields[i]))
			return true;
	return false;
}

size_t scale_config_drift(const json_t *lsconfig, const json_t *running, const char *node,
			  const char *nodeclass, struct strbuf *out)
{
	const json_t *labels = json_object_get(lsconfig, "nodeclasses"), *attrs, *run;
	const char *label, *attr;
	json_t *seen = json_object(), *v;
	size_t n = 0;

	run = json_object_get(running, "attrs");
	json_object_foreach((json_t *)labels, label, attrs)
		json_object_foreach((json_t *)attrs, attr, v) {
			const char *want, *have;

			if (cluster_field(attr) || json_object_get(seen, attr))
				continue;
			json_object_set_new(seen, attr, json_true());
			want = scale_config_for(lsconfig, node, nodeclass, attr);
			have = json_string_value(json_object_get(run, attr));
			/* not applying to this node, or not among what the daemon shows */
			if (!want || !have || scale_config_same(want, have))
				continue;
			strbuf_addf(out, "%s%s configured %s, running %s", n ? "; " : "", attr,
				    want, have);
			n++;
		}
	json_decref(seen);
	return n;
}

enum scale_rdma_verdict scale_rdma_judge(const json_t *config, const json_t *network,
					 const char *configured, const char *verbs_status,
					 bool want_connections, struct strbuf *why,
					 struct strbuf *ok)
{
	const json_t *attrs = json_object_get(config, "attrs");
	const char *rdma = json_string_value(json_object_get(attrs, "verbsRdma"));
	const char *ports = json_string_value(json_object_get(attrs, "verbsPorts"));
	const json_t *run = json_object_get(network, "ports");
	const json_t *conns = json_object_get(network, "connections");
	struct strbuf have = STRBUF_INIT, missing = STRBUF_INIT, peers = STRBUF_INIT;
	enum scale_rdma_verdict v = SCALE_RDMA_OK;
	char *list, *save = NULL;
	size_t i;
	json_t *c;

	bool want = configured && gpfs_bool(configured) == 1;

	if ((!rdma || gpfs_bool(rdma) != 1) && want) {
		strbuf_addf(why, "verbsRdma is %s in the configuration (mmlsconfig) but the running "
			    "daemon has verbsRdma %s (mmdiag --config)%s%s: data goes over TCP; "
			    "restart GPFS on the node (mmshutdown -N NODE; mmstartup -N NODE) so "
			    "that it reads its configuration, then check mmfsadm test verbs status",
			    configured, rdma ? rdma : "not set", verbs_status ?
			    ", mmfsadm test verbs status: " : "", verbs_status ? verbs_status : "");
		return SCALE_RDMA_BAD;
	}
	if (!rdma || gpfs_bool(rdma) != 1) {
		strbuf_addf(why, "verbsRdma is %s on this node's daemon and %s in the configuration: "
			    "no RDMA to prove", rdma ? rdma : "not set",
			    configured ? configured : "not set");
		return SCALE_RDMA_OFF;
	}
	if (verbs_status && strcmp(verbs_status, "started")) {
		strbuf_addf(why, "verbsRdma is enabled but the GPFS daemon reports verbs RDMA not "
			    "started: data goes over TCP. verbsPorts is '%s': each entry must name a "
			    "device/port that ibstat shows Active, then restart GPFS on the node "
			    "(mmfsadm test verbs status: \"%s\")", ports ? ports : "", verbs_status);
		return SCALE_RDMA_BAD;
	}
	running_ports(run, &have);
	if (!ports || !*ports) {
		strbuf_addstr(why, "verbsRdma is enabled but verbsPorts is empty: GPFS uses TCP; set "
			      "verbsPorts to the node's active InfiniBand ports (stage scale_tune)");
		v = SCALE_RDMA_BAD;
		goto out;
	}
	if (!json_is_true(json_object_get(network, "rdma_started"))) {
		const char *st = json_string_value(json_object_get(network, "rdma_status"));

		strbuf_addf(why, "verbsRdma is enabled but the GPFS daemon reports verbs RDMA not "
			    "started%s%s%s: data goes over TCP. verbsPorts is '%s': each entry must "
			    "name a device/port that ibstat shows Active (a typo is the usual cause), "
			    "then restart GPFS on the node", st && *st ? " (" : "", st ? st : "",
			    st && *st ? ")" : "", ports);
		v = SCALE_RDMA_BAD;
		goto out;
	}
	list = xstrdup(ports);
	for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (!port_running(run, t))
			strbuf_addf(&missing, "%s%s", missing.len ? " " : "", t);
	free(list);
	if (missing.len) {
		strbuf_addf(why, "verbsPorts names %s, but verbs RDMA runs only on %s: check the "
			    "name against ibstat (a typo or a port that is down), fix verbsPorts "
			    "(gpfs_config) and restart GPFS on the node", missing.buf,
			    have.len ? have.buf : "no port");
		v = SCALE_RDMA_BAD;
		goto out;
	}
	json_array_foreach(conns, i, c) {
		const char *n = json_string_value(json_object_get(c, "node"));

		if (n && !strstr(peers.buf ? peers.buf : "", n))
			strbuf_addf(&peers, "%s%s", peers.len ? ", " : "", n);
	}
	if (want_connections && !json_array_size(conns)) {
		strbuf_addf(why, "verbs RDMA runs on %s but no node is connected over RDMA: the "
			    "storage nodes are reached over TCP (are they on the same fabric, with "
			    "verbsRdma enabled? is the file system mounted?)", have.buf);
		v = SCALE_RDMA_BAD;
		goto out;
	}
	strbuf_addf(ok, "verbs RDMA on %s; %zu RDMA connections%s%s%s", have.buf,
		    json_array_size(conns), peers.len ? " (" : "", peers.buf ? peers.buf : "",
		    peers.len ? ")" : "");
out:
	strbuf_release(&have);
	strbuf_release(&missing);
	strbuf_release(&peers);
	return v;
}

/* ---- the page pool against the node's memory ---- */

#define PCT_DEFAULT 75
#define PCT_MIN 10
#define PCT_MAX 90

/*
 * The value of `attr` the node is configured with, as the inventory says:
 * its class's gpfs_config (scale_tune applies it with -N CLASS, so only
 * with a gpfs_nodeclass), else gpfs_common_config. A YAML number is
 * bytes, as scale_desired_config hands it to mmchconfig; "" for a value
 * of another kind.
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
	*ret_var = NULL;
	return NULL;
}

enum scale_pagepool_verdict scale_pagepool_judge(const json_t *vars, unsigned long long mem_kb,
						 struct scale_pagepool *out)
{
	char *end;

	memset(out, 0, sizeof(*out));
	out->pct = PCT_DEFAULT;
	out->value = attr_value(vars, "pagepool", &out->var, out->num, sizeof(out->num));
	if (!out->value)
		return SCALE_PP_NONE;
	if (gpfs_size_bytes(out->value, &out->bytes))
		return SCALE_PP_BAD_VALUE;
	out->pct_value = attr_value(vars, "pagepoolMaxPhysMemPct", &out->pct_var, out->pnum,
				    sizeof(out->pnum));
	if (out->pct_value) {
		unsigned long v = strtoul(out->pct_value, &end, 10);

		if (!*out->pct_value || *end || v < PCT_MIN || v > PCT_MAX)
			return SCALE_PP_BAD_PCT;
		out->pct = (unsigned)v;
	}
	out->mem_bytes = mem_kb * 1024;
	out->limit = out->mem_bytes / 100 * out->pct;
	return mem_kb && out->bytes > out->limit ? SCALE_PP_OVER : SCALE_PP_OK;
}

void scale_size_human(unsigned long long b, char *out, size_t len)
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
