/*
 * Judging verbs RDMA of a GPFS daemon; see check-scale.h.
 */
#include "check-scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/xalloc.h"

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

enum scale_rdma_verdict scale_rdma_judge(const json_t *config, const json_t *network,
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

	if (!rdma || strcmp(rdma, "enable")) {
		strbuf_addf(why, "verbsRdma is %s on this node's daemon: no RDMA to prove",
			    rdma ? rdma : "not set");
		return SCALE_RDMA_OFF;
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
