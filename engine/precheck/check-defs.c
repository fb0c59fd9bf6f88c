/*
 * The precheck checks, in the order they run (a check's requirements come
 * before it). Each reads facts (facts.h) and the host's expectations from
 * the inventory, and records results with check_pass/check_fail/check_skip.
 * Ids are stable: runbooks and dashboards link to them.
 */
#include "check-fabric.h"
#include "check-fleet.h"
#include "check-scale.h"
#include "check.h"
#include "../facts/parse.h"
#include "../base/strbuf.h"
#include "../base/template.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers --------------------------------------------------- */

static bool has_ib(const struct check_ctx *cc)
{
	return cc->host->nhcas > 0;
}

static bool has_gpus(const struct check_ctx *cc)
{
	return cc->host->gpus.count > 0;
}

static bool is_gpu_worker(const struct check_ctx *cc)
{
	return host_has_role(cc->host, ROLE_GPU_WORKER);
}

static bool is_scale_node(const struct check_ctx *cc)
{
	const struct host *h = cc->host;
	return host_has_role(h, ROLE_SCALE_CLIENT) || host_has_role(h, ROLE_SCALE_QUORUM) ||
	       host_has_role(h, ROLE_SCALE_MANAGER) || host_has_role(h, ROLE_NSD_SERVER);
}

/* First line of a fact, trimmed; "" when absent. Caller frees. */
static char *fact_line(const struct check_ctx *cc, const char *name, int *ret_rc)
{
	const char *s = fact_output(cc->hf, name, ret_rc);
	size_t n;

	if (!s)
		return xstrdup("");
	while (*s == ' ' || *s == '\t')
		s++;
	n = strcspn(s, "\n");
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

static bool not_installed(int rc)
{
	return rc == 127;
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The ibstat CA called name, or NULL. */
static json_t *find_ca(json_t *ibstat, const char *name)
{
	json_t *ca;
	size_t i;

	json_array_foreach(json_object_get(ibstat, "cas"), i, ca)
		if (jstr(ca, "name") && !strcmp(jstr(ca, "name"), name))
			return ca;
	return NULL;
}

static json_t *find_port(json_t *ca, unsigned port)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(ca, "ports"), i, p)
		if (json_integer_value(json_object_get(p, "port")) == (json_int_t)port)
			return p;
	return NULL;
}

static char *port_subject(const struct hca_expect *e)
{
	return xasprintf("%s/%u", e->name, e->port);
}

/* "100 Gb/s 4X EDR" from the parts that are known. */
static char *rate_text(double rate, const char *width, const char *speed)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%g Gb/s", rate);
	if (width)
		strbuf_addf(&sb, " %s", width);
	if (speed)
		strbuf_addf(&sb, " %s", speed);
	return strbuf_detach(&sb, NULL);
}

static json_t *lsmod_find(const struct check_ctx *cc, const char *module)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(fact_parsed(cc->hf, "lsmod"), "modules"), i, m)
		if (jstr(m, "module") && !strcmp(jstr(m, "module"), module))
			return m;
	return NULL;
}

static bool json_array_has_str(json_t *arr, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (json_string_value(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

/* "rhel7.6" from os-release ID and VERSION_ID. Caller frees. */
static char *os_tag(const struct check_ctx *cc)
{
	json_t *os = fact_parsed(cc->hf, "os-release");
	const char *id = jstr(os, "ID"), *ver = jstr(os, "VERSION_ID");

	return xasprintf("%s%s", id ? id : "unknown", ver ? ver : "");
}

/* ---- ssh and host ------------------------------------------------------ */

static void run_ssh_reachable(struct check_ctx *cc)
{
	/* ^C, not the host: nothing is known about it either way. */
	if (cc->hf->rc == ERR_CANCELLED)
		check_skip(cc, NULL, err_msg(&cc->hf->err));
	else if (cc->hf->rc)
		check_fail(cc, NULL, "reachable over SSH", cc->hf->timed_out ? "timed out" :
			   "unreachable", err_msg(&cc->hf->err));
	else
		check_pass(cc, NULL, "reachable over SSH", "reachable");
}

/*
 * The login itself (time to the first byte), not the tools' run time. A host
 * is slow when it is over the limit and also well behind the others: when
 * every login is slow, the admin host or the network is, not one node.
 */
static void run_ssh_latency(struct check_ctx *cc)
{
	double max = check_var_num(cc, "precheck_max_login_s", 4.0);
	double median = cc->fleet->login_median;
	char exp[96], found[64];

	snprintf(exp, sizeof(exp), "login within %.1f s (cluster median %.1f s)", max, median);
	snprintf(found, sizeof(found), "%.1f s", cc->hf->login_s);
	if (cc->hf->login_s > max && cc->hf->login_s > 3 * median)
		check_fail(cc, NULL, exp, found,
			   "every command on this host starts late: an overloaded host, a slow "
			   "name service (UseDNS) or a hung file system in the login path");
	else
		check_pass(cc, NULL, exp, found);
}

static void run_host_name(struct check_ctx *cc)
{
	char *name = fact_line(cc, "hostname", NULL);
	size_t want = strcspn(cc->host->name, "."), got = strcspn(name, ".");

	if (want == got && !strncmp(name, cc->host->name, want))
		check_pass(cc, NULL, cc->host->name, name);
	else
		check_fail(cc, NULL, cc->host->name, *name ? name : "(none)",
			   "the host's name differs from the inventory's: wrong address, or "
			   "a host that was renamed");
	free(name);
}

/*
 * The inventory's name must resolve, on the host itself, to the address the
 * inventory reaches it by (when that is an IP): GPFS, MPI and Kubernetes all
 * find nodes by name.
 */
static void run_host_resolve(struct check_ctx *cc)
{
	const char *out = fact_output(cc->hf, "resolve", NULL), *addr = cc->host->ssh.address;
	bool addr_is_ip = strspn(addr, "0123456789.") == strlen(addr) || strchr(addr, ':');
	char *first = fact_line(cc, "resolve", NULL), *exp;
	bool hit = false;

	while (out && *out) {
		size_t n = strcspn(out, " \t\n");
		hit |= n == strlen(addr) && !strncmp(out, addr, n);
		out += strcspn(out, "\n");
		out += *out == '\n';
	}
	exp = xasprintf("%s resolves%s%s", cc->host->name, addr_is_ip ? " to " : "",
			addr_is_ip ? addr : "");
	if (!*first)
		check_fail(cc, NULL, exp, "does not resolve",
			   "add the cluster's names to /etc/hosts or DNS on every node");
	else if (addr_is_ip && !hit)
		check_fail(cc, NULL, exp, first,
			   "the name points elsewhere than the inventory's address: stale "
			   "/etc/hosts or DNS record");
	else
		check_pass(cc, NULL, exp, first);
	free(exp);
	free(first);
}

static void run_os_release(struct check_ctx *cc)
{
	const char *want = check_var_str(cc, "os_release");
	char *got = os_tag(cc);

	if (!want || !strcmp(want, got))
		check_pass(cc, NULL, want ? want : "any", got);
	else
		check_fail(cc, NULL, want, got, NULL);
	free(got);
}

static void run_kernel_headers(struct check_ctx *cc)
{
	char *kernel = fact_line(cc, "kernel", NULL), *dir = fact_line(cc, "kernel-devel", NULL);
	char *exp = xasprintf("kernel-devel/headers for %s", kernel);

	if (*dir)
		check_pass(cc, NULL, exp, dir);
	else
		check_fail(cc, NULL, exp, "missing",
			   "peer-memory modules are built against the running kernel");
	free(exp);
	free(kernel);
	free(dir);
}

/* ---- kernel support matrix ------------------------------------------- */

static bool matrix_supports(const char *component, const char *release, const char *os,
			    const char *kernel, bool *ret_known)
{
	const char *m = template_get("compat/support-matrix.tsv", NULL);
	bool ok = false;

	*ret_known = false;
	while (m && *m && !ok) {
		size_t n = strcspn(m, "\n");
		char *line = xstrndup(m, n), *f[4] = { 0 }, *save = NULL;
		int k = 0;

		m += n + (m[n] == '\n');
		if (line[0] != '#' && line[0]) {
			for (char *t = strtok_r(line, "\t", &save); t && k < 4;
			     t = strtok_r(NULL, "\t", &save))
				f[k++] = t;
			if (k == 4 && !strcmp(f[0], component) && !strcmp(f[1], release)) {
				*ret_known = true;
				ok = !strcmp(f[2], os) && !fnmatch(f[3], kernel, 0);
			}
		}
		free(line);
	}
	return ok;
}

static void run_kernel_supported(struct check_ctx *cc)
{
	static const struct {
		const char *var, *component;
		bool (*needs)(const struct check_ctx *);
	} parts[] = {
		{ "ofed_version", "ofed", has_ib },
		{ "gpu_driver", "gpu_driver", has_gpus },
		{ "scale_version", "scale", is_scale_node },
	};
	char *kernel = fact_line(cc, "kernel", NULL), *os = os_tag(cc);
	bool any = false;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *rel = check_var_str(cc, parts[i].var);
		char *exp, *found;
		bool known;

		if (!rel || !parts[i].needs(cc))
			continue;
		any = true;
		exp = xasprintf("%s %s supports %s", parts[i].component, rel, kernel);
		found = xasprintf("%s kernel %s", os, kernel);
		if (matrix_supports(parts[i].component, rel, os, kernel, &known))
			check_pass(cc, parts[i].component, exp, found);
		else
			check_fail(cc, parts[i].component, exp, found,
				   known ? "this release does not support the running kernel" :
				   "release not in the support matrix (templates/compat/support-matrix.tsv)");
		free(exp);
		free(found);
	}
	if (!any)
		check_pass(cc, NULL, "no versioned components", kernel);
	free(kernel);
	free(os);
}

static void run_disk_tmp(struct check_ctx *cc)
{
	const char *df = fact_output(cc->hf, "df-tmp", NULL);
	double need_mb = check_var_num(cc, "ofed_unpack_free_mb", 2048);
	unsigned long long avail_kb = 0;
	const char *line2 = df ? strchr(df, '\n') : NULL;
	char exp[64], found[64];

	/* POSIX df -P: "Filesystem 1024-blocks Used Available Capacity Mounted on" */
	if (!line2 || sscanf(line2 + 1, "%*s %*s %*s %llu", &avail_kb) != 1) {
		check_fail(cc, "/tmp", "df -P output", df ? df : "none", "cannot read free space");
		return;
	}
	snprintf(exp, sizeof(exp), ">= %.0f MiB free", need_mb);
	snprintf(found, sizeof(found), "%llu MiB free", avail_kb / 1024);
	if ((double)avail_kb / 1024.0 >= need_mb)
		check_pass(cc, "/tmp", exp, found);
	else
		check_fail(cc, "/tmp", exp, found, "the OFED installer unpacks and builds here");
}

/* ---- InfiniBand ---------------------------------------------------------- */

static bool ibstat_missing(struct check_ctx *cc)
{
	int rc;

	json_t *ibstat = fact_parsed(cc->hf, "ibstat");

	fact_output(cc->hf, "ibstat", &rc);
	/* ibstat's own failure (ibpanic), maybe after part of the listing:
	 * the CAs after it are unknown, so the tool's words are the finding */
	if (ibstat && json_is_false(json_object_get(ibstat, "ok"))) {
		check_fail(cc, NULL, "ibstat lists the HCAs", "ibstat failed",
			   jstr(ibstat, "error"));
		return json_array_size(json_object_get(ibstat, "cas")) == 0;
	}
	if (ibstat)
		return false;
	check_fail(cc, NULL, "ibstat lists the HCAs",
		   not_installed(rc) ? "ibstat not installed (no OFED / rdma-core)" :
		   "ibstat failed",
		   json_string_value(json_object_get(cc->hf->parse_errors, "ibstat")));
	return true;
}

static void run_ib_hca_present(struct check_ctx *cc)
{
	json_t *ibstat = fact_parsed(cc->hf, "ibstat");

	if (ibstat_missing(cc))
		return;
	for (size_t i = 0; i < cc->host->nhcas; i++) {
		const struct hca_expect *e = &cc->host->hcas[i];
		char *subj = port_subject(e);
		json_t *ca = find_ca(ibstat, e->name);

		if (!ca)
			check_fail(cc, subj, "present", "absent",
				   "HCA not found: seated? firmware? `mst status`, `lspci | grep Mellanox`");
		else if (!find_port(ca, e->port))
			check_fail(cc, subj, "present", "no such port", NULL);
		else
			check_pass(cc, subj, "present", jstr(ca, "type"));
		free(subj);
	}
}

/*
 * Runs fn on every expected port that ibstat shows. A missing HCA is
 * ib.hca_present's finding; the ports that are there still get checked.
 */
static void each_port(struct check_ctx *cc,
		      void (*fn)(struct check_ctx *, const struct hca_expect *, json_t *port,
				 const char *subject))
{
	json_t *ibstat = fact_parsed(cc->hf, "ibstat");

	for (size_t i = 0; i < cc->host->nhcas; i++) {
		const struct hca_expect *e = &cc->host->hcas[i];
		json_t *port = find_port(find_ca(ibstat, e->name), e->port);
		char *subj = port_subject(e);

		if (port)
			fn(cc, e, port, subj);
		free(subj);
	}
}

static void port_state(struct check_ctx *cc, const struct hca_expect *e, json_t *port,
		       const char *subj)
{
	const char *st = jstr(port, "state"), *phys = jstr(port, "physical_state");
	char *found = xasprintf("%s/%s", st ? st : "?", phys ? phys : "?");

	(void)e;
	if (st && phys && !strcasecmp(st, "Active") && !strcmp(phys, "LinkUp"))
		check_pass(cc, subj, "Active/LinkUp", found);
	else if (st && phys && !strcasecmp(st, "Initializing") && !strcmp(phys, "LinkUp"))
		/* The link trained; only the subnet manager has not set it up. */
		check_skip(cc, subj, "link up, waiting for a subnet manager (see sm.master)");
	else
		check_fail(cc, subj, "Active/LinkUp", found,
			   "cable, transceiver or switch port: check with ibportstate / mlxlink");
	free(found);
}

static void run_ib_port_state(struct check_ctx *cc)
{
	each_port(cc, port_state);
}

/* ibstatus gives width and speed; ibstat only the rate. */
static json_t *ibstatus_port(const struct check_ctx *cc, const struct hca_expect *e)
{
	return find_port(find_ca(fact_parsed(cc->hf, "ibstatus"), e->name), e->port);
}

static void port_rate(struct check_ctx *cc, const struct hca_expect *e, json_t *port,
		      const char *subj)
{
	json_t *sp = ibstatus_port(cc, e);
	double rate = json_number_value(json_object_get(sp ? sp : port, "rate"));
	const char *width = sp ? jstr(sp, "width") : NULL, *speed = sp ? jstr(sp, "speed") : NULL;
	const char *st = jstr(port, "state");
	char *exp = rate_text(e->rate_gbps, e->width, e->speed);
	char *found = rate_text(rate, width, speed);

	if (!e->rate_gbps) {
		check_pass(cc, subj, "any rate", found);
	} else if (!st || strcasecmp(st, "Active")) {
		/* A down port's rate means nothing; ib.port_state reports it. */
	} else if ((unsigned)rate != e->rate_gbps ||
		   (e->width && width && strcmp(e->width, width)) ||
		   (e->speed && speed && strcmp(e->speed, speed))) {
		check_fail(cc, subj, exp, found,
			   "the link trained below its rate: reseat or replace the cable, "
			   "check the switch port (mlxlink -d <dev> shows the negotiation)");
	} else {
		check_pass(cc, subj, exp, found);
	}
	free(exp);
	free(found);
}

static void run_ib_port_rate(struct check_ctx *cc)
{
	each_port(cc, port_rate);
}

static void port_link_layer(struct check_ctx *cc, const struct hca_expect *e, json_t *port,
			    const char *subj)
{
	const char *want = e->link_layer == LINK_ETH ? "Ethernet" : "InfiniBand";
	const char *got = jstr(port, "link_layer");

	if (got && !strcmp(got, want))
		check_pass(cc, subj, want, got);
	else
		check_fail(cc, subj, want, got ? got : "?",
			   "set the port type with mlxconfig (LINK_TYPE_P1) and reboot");
}

static void run_ib_link_layer(struct check_ctx *cc)
{
	each_port(cc, port_link_layer);
}

/* ---- OFED ---------------------------------------------------------------- */

/* `got` is the release an unfinished upgrade moves to (`to`: "5.0-2.1.8.0"
 * or the full name). */
static bool upgrading_to(const char *to, const char *got)
{
	return to && *to && (strstr(got, to) || strstr(to, got));
}

/*
 * One release everywhere, the desired one (`want`; NULL: none named),
 * found `got` on this host. While `bringup upgrade` moves it to `to` (NULL:
 * no upgrade of it under way), the old and the new release are the
 * mixed-version window of a rolling upgrade, not drift: a warning.
 */
static void one_release(struct check_ctx *cc, const char *want, const char *got,
			const char *to, const char *hint)
{
	if (upgrading_to(to, got) || (to && want && !strcmp(want, got)))
		check_emit(cc, CHECK_WARN, NULL, want, got, upgrading_to(to, got) ?
			   "upgrade in progress (bringup upgrade has not finished): this node "
			   "runs the new release, the others follow" :
			   "upgrade in progress (bringup upgrade has not finished): this node "
			   "is not upgraded yet");
	else if (want && strcmp(want, got))
		check_fail(cc, NULL, want, got, hint);
	else
		check_pass(cc, NULL, want ? want : got, got);
}

static void run_ofed_version(struct check_ctx *cc)
{
	/* ofed_info as fleet_take kept it: this host's facts are gone */
	const struct fleet_host *fh = fleet_host(cc->fleet, cc->host_idx);
	const char *want = check_var_str(cc, "ofed_version"), *got = fh->ofed;

	/* the version most hosts run, when the inventory names none */
	if (!want)
		want = cc->fleet->ofed_majority;
	if (!got)
		check_fail(cc, NULL, want ? want : "installed",
			   not_installed(fh->ofed_rc) ? "not installed" : "unreadable",
			   "install MLNX_OFED (bringup deploy, stage ofed)");
	else
		one_release(cc, want, got, cc->opts ? cc->opts->upgrade_ofed : NULL,
			    "all nodes must run the same OFED, matched to the storage system's");
}

/* ---- GPU driver ------------------------------------------------------------ */

static void run_gpu_driver(struct check_ctx *cc)
{
	/* nvidia-smi -q's driver as fleet_take kept it */
	const struct fleet_host *fh = fleet_host(cc->fleet, cc->host_idx);
	const char *want = check_var_str(cc, "gpu_driver"), *got = fh->driver;

	if (!want)
		want = cc->fleet->driver_majority;
	if (!got)
		check_fail(cc, NULL, want ? want : "installed",
			   not_installed(fh->driver_rc) ? "nvidia-smi not installed (no GPU driver)" :
			   "unreadable (nvidia-smi failed; see gpu.count)",
			   "install the GPU driver (bringup upgrade --to driver=VER, module gpu_driver)");
	else
		one_release(cc, want, got, cc->opts ? cc->opts->upgrade_driver : NULL,
			    "all GPU nodes must run the same driver (NCCL, CUDA and peer memory "
			    "are built against it)");
}

/* ---- modules, memlock, SELinux ---------------------------------------- */

static const char *peermem_loaded(const struct check_ctx *cc)
{
	const char *want = check_var_str(cc, "peermem_module");

	if (want)
		return lsmod_find(cc, want) ? want : NULL;
	if (lsmod_find(cc, "nvidia_peermem"))
		return "nvidia_peermem";
	if (lsmod_find(cc, "nv_peer_mem"))
		return "nv_peer_mem";
	return NULL;
}

static void run_peermem_loaded(struct check_ctx *cc)
{
	const char *want = check_var_str(cc, "peermem_module");
	const char *got = peermem_loaded(cc), *dmesg = fact_output(cc->hf, "dmesg-gpu", NULL);
	const char *exp = want ? want : "nvidia_peermem or nv_peer_mem";

	if (got) {
		check_pass(cc, NULL, exp, got);
		return;
	}
	if (dmesg && (strstr(dmesg, "Invalid argument") || strstr(dmesg, "Unknown symbol")))
		check_fail(cc, NULL, exp, "not loaded (load failed)",
			   "nvidia-peermem failing with \"Invalid argument\" / \"Unknown symbol\" is "
			   "the known mismatch between the GPU driver and the OFED ib_core: "
			   "rebuild or reinstall the GPU driver after installing OFED");
	else
		check_fail(cc, NULL, exp, "not loaded",
			   "modprobe it and list it in /etc/modules-load.d (bringup deploy, stage peermem)");
}

static void run_nouveau_absent(struct check_ctx *cc)
{
	if (lsmod_find(cc, "nouveau"))
		check_fail(cc, NULL, "not loaded", "loaded",
			   "blacklist nouveau, rebuild the initramfs, reboot (stage nouveau)");
	else
		check_pass(cc, NULL, "not loaded", "not loaded");
}

/*
 * A login's limit as pam_limits sets it from limits.conf and limits.d (the
 * memlock stage's own reading, templates/memlock/pam-memlock.sh); `ulimit -l`
 * only counts when it already says unlimited, since a session may not pass
 * through PAM at all.
 */
static void run_memlock(struct check_ctx *cc)
{
	char *ul = fact_line(cc, "memlock-ulimit", NULL), *pam = fact_line(cc, "memlock-pam", NULL);
	char user[128] = "", soft[64] = "", hard[64] = "", *crio, *found;
	int rc;

	sscanf(pam, "%127s %63s %63s", user, soft, hard);
	found = xasprintf("soft %s, hard %s for %s (ulimit -l: %s)", *soft ? soft : "?",
			  *hard ? hard : "?", *user ? user : "?", *ul ? ul : "?");
	if (!strcmp(ul, "unlimited") || (!strcmp(soft, "unlimited") && !strcmp(hard, "unlimited")))
		check_pass(cc, "login", "unlimited", found);
	else
		check_fail(cc, "login", "unlimited", found,
			   "RDMA memory registration fails (\"Couldn't allocate MR\"): set "
			   "memlock unlimited in /etc/security/limits.d, naming root too (stage memlock)");
	free(found);
	free(ul);
	free(pam);
	/* Only where cri-o is installed to run RDMA pods. */
	crio = xstrdup(fact_output(cc->hf, "memlock-crio", &rc));
	if (rc == 0 && strstr(crio, "LoadState=loaded")) {
		const char *lim = strstr(crio, "LimitMEMLOCK=");
		const char *src = lim ? lim : "LimitMEMLOCK=?";
		char *found = xstrndup(src, strcspn(src, "\n"));

		if (!strcmp(found, "LimitMEMLOCK=infinity"))
			check_pass(cc, "crio", "LimitMEMLOCK=infinity", found);
		else
			check_fail(cc, "crio", "LimitMEMLOCK=infinity", found,
				   "pods inherit cri-o's limit: add a systemd drop-in (stage memlock)");
		free(found);
	}
	free(crio);
}

static void run_selinux(struct check_ctx *cc)
{
	const char *want = check_var_str(cc, "selinux_mode");
	const char *got = jstr(fact_parsed(cc->hf, "getenforce"), "mode");

	if (!want) {
		check_pass(cc, NULL, "any", got ? got : "no SELinux");
		return;
	}
	if (got && !strcasecmp(want, got))
		check_pass(cc, NULL, want, got);
	else
		check_fail(cc, NULL, want, got ? got : "no SELinux", NULL);
}

/* ---- GPUs ---------------------------------------------------------------- */

static json_t *gpus_of(const struct check_ctx *cc)
{
	return json_object_get(fact_parsed(cc->hf, "nvidia-smi-q"), "gpus");
}

static void run_gpu_count(struct check_ctx *cc)
{
	json_t *gpus = gpus_of(cc);
	char exp[32], found[64];
	int rc;

	json_t *q = fact_parsed(cc->hf, "nvidia-smi-q");

	fact_output(cc->hf, "nvidia-smi-q", &rc);
	snprintf(exp, sizeof(exp), "%u", cc->host->gpus.count);
	if (q && json_is_false(json_object_get(q, "ok"))) {
		check_fail(cc, NULL, exp, "nvidia-smi failed", jstr(q, "error"));
		return;
	}
	if (!gpus) {
		check_fail(cc, NULL, exp,
			   not_installed(rc) ? "nvidia-smi not installed (no GPU driver)" :
			   "nvidia-smi failed", NULL);
		return;
	}
	snprintf(found, sizeof(found), "%zu", json_array_size(gpus));
	if (json_array_size(gpus) == cc->host->gpus.count)
		check_pass(cc, NULL, exp, found);
	else
		check_fail(cc, NULL, exp, found,
			   "a GPU fell off the bus or is not seated: check dmesg and `nvidia-smi -q`");
}

/* Runs fn on every GPU nvidia-smi -q lists, subject = its bus id. */
static void each_gpu(struct check_ctx *cc,
		     void (*fn)(struct check_ctx *, json_t *gpu, const char *subject))
{
	json_t *g;
	size_t i;

	json_array_foreach(gpus_of(cc), i, g) {
		const char *bus = jstr(g, "bus_id");
		char *subj = xasprintf("GPU %s", bus ? bus : "?");
		fn(cc, g, subj);
		free(subj);
	}
}

static void gpu_model(struct check_ctx *cc, json_t *g, const char *subj)
{
	const char *want = cc->host->gpus.model, *got = jstr(g, "product_name");

	if (got && strstr(got, want))
		check_pass(cc, subj, want, got);
	else
		check_fail(cc, subj, want, got ? got : "?", NULL);
}

static bool model_expected(const struct check_ctx *cc)
{
	return has_gpus(cc) && cc->host->gpus.model;
}

static void run_gpu_model(struct check_ctx *cc)
{
	each_gpu(cc, gpu_model);
}

static void gpu_row_remap(struct check_ctx *cc, json_t *g, const char *subj)
{
	json_t *rr = json_object_get(g, "remapped_rows");

	if (!rr) {
		check_pass(cc, subj, "no pending remap", "not reported (pre-Ampere)");
	} else if (json_is_true(json_object_get(rr, "failure_occurred"))) {
		check_fail(cc, subj, "no pending remap", "remapping failed",
			   "row remapping failed: the GPU needs replacing (RMA)");
	} else if (json_is_true(json_object_get(rr, "pending"))) {
		check_fail(cc, subj, "no pending remap", "remap pending",
			   "drain the node and reset the GPU (nvidia-smi -r) or reboot");
	} else {
		check_pass(cc, subj, "no pending remap", "none pending");
	}
}

static void run_gpu_row_remap(struct check_ctx *cc)
{
	each_gpu(cc, gpu_row_remap);
}

/* XIDs that point at hardware (NVIDIA's XID catalogue), not at applications. */
static const int hw_xids[] = { 48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140 };

static void run_gpu_xid(struct check_ctx *cc)
{
	const char *d = fact_output(cc->hf, "dmesg-gpu", NULL);
	bool bad = false;

	while (d && *d) {
		size_t n = strcspn(d, "\n");
		char *line = xstrndup(d, n), *p = strstr(line, "NVRM: Xid (");
		char pci[64] = "";
		int xid = -1;

		d += n + (d[n] == '\n');
		if (p && sscanf(p, "NVRM: Xid (%63[^)]): %d", pci, &xid) == 2) {
			for (size_t i = 0; i < sizeof(hw_xids) / sizeof(hw_xids[0]); i++) {
				if (xid != hw_xids[i])
					continue;
				char *found = xasprintf("Xid %d", xid);
				check_fail(cc, pci, "no hardware Xid", found, strstr(line, "NVRM:"));
				free(found);
				bad = true;
			}
		}
		free(line);
	}
	if (!bad)
		check_pass(cc, NULL, "no hardware Xid", "none");
}

static void gpu_throttle(struct check_ctx *cc, json_t *g, const char *subj)
{
	/* Reasons that are normal at idle or by configuration. */
	static const char *const benign[] = { "idle", "applications_clocks_setting",
					      "sw_power_cap", "display_clock_setting" };
	json_t *active = json_object_get(g, "clocks_event_reasons_active"), *r;
	struct strbuf other = STRBUF_INIT;
	size_t i;

	if (json_array_has_str(active, "hw_power_brake_slowdown")) {
		check_fail(cc, subj, "no HW power brake", "HW Power Brake Slowdown active",
			   "the power brake (PSU or BMC signal) slows every job on the node: "
			   "check power supplies and the BMC event log");
		return;
	}
	json_array_foreach(active, i, r) {
		const char *s = json_string_value(r);
		bool ok = false;
		for (size_t k = 0; s && k < sizeof(benign) / sizeof(benign[0]); k++)
			ok |= !strcmp(s, benign[k]);
		if (s && !ok)
			strbuf_addf(&other, "%s%s", other.len ? ", " : "", s);
	}
	if (other.len)
		check_emit(cc, CHECK_WARN, subj, "no slowdown", other.buf,
			   "clocks are held down: check cooling and power");
	else
		check_pass(cc, subj, "no slowdown", "none");
	strbuf_release(&other);
}

static void run_gpu_throttle(struct check_ctx *cc)
{
	each_gpu(cc, gpu_throttle);
}

/* ---- PCIe ------------------------------------------------------------- */

static bool pci_is_target(json_t *dev)
{
	const char *cls = jstr(dev, "class"), *desc = jstr(dev, "description");

	if (!cls || !desc)
		return false;
	if (strstr(desc, "NVIDIA") && (strstr(cls, "3D controller") || strstr(cls, "VGA")))
		return true;
	return strstr(desc, "Mellanox") &&
	       (strstr(cls, "Infiniband") || strstr(cls, "Ethernet"));
}

static double gen_speed(double gen)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };
	return gen >= 1 && gen <= 6 ? gts[(int)gen] : 0;
}

static void run_pcie_link(struct check_ctx *cc)
{
	json_t *lspci = fact_parsed(cc->hf, "lspci"), *dev;
	double gen = check_var_num(cc, "pcie_gen", 0);
	size_t i, seen = 0;

	json_array_foreach(json_object_get(lspci, "devices"), i, dev) {
		json_t *cap = json_object_get(dev, "lnkcap"), *sta = json_object_get(dev, "lnksta");
		double cs = json_number_value(json_object_get(cap, "speed_gts"));
		double ss = json_number_value(json_object_get(sta, "speed_gts"));
		json_int_t cw = json_integer_value(json_object_get(cap, "width"));
		json_int_t sw = json_integer_value(json_object_get(sta, "width"));
		char *subj, *exp, *found;

		if (!pci_is_target(dev) || !cap || !sta)
			continue;
		seen++;
		subj = xasprintf("%s %s", jstr(dev, "bdf"),
				 strstr(jstr(dev, "description"), "NVIDIA") ? "GPU" : "HCA");
		exp = xasprintf("%gGT/s x%lld", gen ? gen_speed(gen) : cs, (long long)cw);
		found = xasprintf("%gGT/s x%lld", ss, (long long)sw);
		if (ss < cs || sw < cw)
			check_fail(cc, subj, exp, found,
				   "link trained below its capability: reseat the card or riser, "
				   "check the slot/BIOS; the most frequent failure at scale");
		else if (cw < 16)
			check_fail(cc, subj, "x16", found, "device is in a narrower slot");
		else if (gen && cs < gen_speed(gen))
			check_fail(cc, subj, exp, found, "slower PCIe generation than expected");
		else
			check_pass(cc, subj, exp, found);
		free(subj);
		free(exp);
		free(found);
	}
	if (!seen)
		check_skip(cc, NULL, "no GPU or HCA with link status in lspci -vvv (run as root?)");
}

/* ---- GPUDirect RDMA verdict ------------------------------------------ */

static bool topo_gpus_near_nics(const struct check_ctx *cc, struct strbuf *why)
{
	json_t *topo = fact_parsed(cc->hf, "nvidia-smi-topo"), *dev;
	size_t i, gpus = 0, far = 0;

	if (!topo) {
		strbuf_addstr(why, "no `nvidia-smi topo -m` output; ");
		return false;
	}
	json_array_foreach(json_object_get(topo, "devices"), i, dev) {
		const char *name = jstr(dev, "name"), *key;
		json_t *links = json_object_get(dev, "links"), *v;
		bool near = false;

		if (!name || strncmp(name, "GPU", 3))
			continue;
		gpus++;
		json_object_foreach(links, key, v) {
			const char *t = json_string_value(v);
			if ((!strncmp(key, "NIC", 3) || !strncmp(key, "mlx", 3)) && t &&
			    (!strcmp(t, "PIX") || !strcmp(t, "PXB")))
				near = true;
		}
		if (!near) {
			far++;
			strbuf_addf(why, "%s has no HCA under its PCIe switch; ", name);
		}
	}
	return gpus && !far;
}

static void run_gpudirect(struct check_ctx *cc)
{
	struct strbuf why = STRBUF_INIT;
	const char *pm = peermem_loaded(cc);
	json_t *m = pm ? lsmod_find(cc, "ib_core") : NULL, *nv = lsmod_find(cc, "nvidia");
	bool ok = true;

	if (!pm || !m || !json_array_has_str(json_object_get(m, "used_by"), pm)) {
		strbuf_addf(&why, "%s not bound to ib_core; ", pm ? pm : "peer memory");
		ok = false;
	}
	if (pm && (!nv || !json_array_has_str(json_object_get(nv, "used_by"), pm))) {
		strbuf_addf(&why, "%s not bound to the nvidia driver; ", pm);
		ok = false;
	}
	ok &= topo_gpus_near_nics(cc, &why);
	strbuf_rtrim(&why);
	if (why.len && why.buf[why.len - 1] == ';')
		strbuf_setlen(&why, why.len - 1);
	if (ok)
		check_pass(cc, NULL, "usable", "usable");
	else
		check_fail(cc, NULL, "usable", "not usable", why.buf);
	strbuf_release(&why);
}

static bool gpudirect_applies(const struct check_ctx *cc)
{
	return is_gpu_worker(cc) && has_gpus(cc) && has_ib(cc);
}

/* ---- Spectrum Scale ------------------------------------------------------ */

/* This host's row in a GPFS node table (names may carry a domain). */
static bool gpfs_name_is(const char *gpfs_name, const char *host)
{
	size_t n = strlen(host);
	return gpfs_name && !strncmp(gpfs_name, host, n) &&
	       (gpfs_name[n] == '\0' || gpfs_name[n] == '.');
}

static const char *gpfs_state_of(json_t *mmgetstate, const char *host)
{
	json_t *row;
	size_t i;

	json_array_foreach(json_object_get(mmgetstate, "nodes"), i, row)
		if (gpfs_name_is(jstr(row, "name"), host))
			return jstr(row, "state");
	return NULL;
}

static void run_scale_state(struct check_ctx *cc)
{
	json_t *st = fact_parsed(cc->hf, "mmgetstate");
	const char *state = gpfs_state_of(st, cc->host->name);
	char *line;
	int rc;

	if (state && !strcmp(state, "active")) {
		check_pass(cc, NULL, "active", state);
		return;
	}
	line = fact_line(cc, "mmgetstate", &rc);
	check_fail(cc, NULL, "active",
		   state ? state : not_installed(rc) ? "Spectrum Scale not installed" :
		   *line ? line : "not a cluster member",
		   "join the node and start GPFS (stages scale_cluster, scale_start)");
	free(line);
}

static void run_scale_quorum(struct check_ctx *cc)
{
	json_t *st = fact_parsed(cc->hf, "mmgetstate");
	size_t total = 0, active = 0;
	struct strbuf down = STRBUF_INIT;
	char *found;

	for (size_t i = 0; i < cc->inv->nhosts; i++) {
		const struct host *q = &cc->inv->hosts[i];
		const char *s;

		if (!host_has_role(q, ROLE_SCALE_QUORUM))
			continue;
		total++;
		s = gpfs_state_of(st, q->name);
		if (s && !strcmp(s, "active"))
			active++;
		else
			strbuf_addf(&down, " %s", q->name);
	}
	found = xasprintf("%zu of %zu quorum nodes active%s%s", active, total,
			  down.len ? ", down:" : "", down.buf);
	if (active == total)
		check_pass(cc, NULL, "all quorum nodes active", found);
	else
		check_fail(cc, NULL, "all quorum nodes active", found,
			   active * 2 > total ? "quorum holds, but one more loss stops the file system" :
			   "quorum lost: the file system is unavailable");
	free(found);
	strbuf_release(&down);
}

static void run_scale_mount(struct check_ctx *cc)
{
	const char *fsname = check_var_str(cc, "scale_filesystem");
	json_t *fs;
	size_t i;

	if (!fsname) {
		check_skip(cc, NULL, "no scale_filesystem in the inventory");
		return;
	}
	json_array_foreach(json_object_get(fact_parsed(cc->hf, "mmlsmount"), "filesystems"), i, fs) {
		json_t *node;
		size_t k;

		if (!jstr(fs, "name") || strcmp(jstr(fs, "name"), fsname))
			continue;
		json_array_foreach(json_object_get(fs, "nodes"), k, node) {
			if (gpfs_name_is(jstr(node, "node"), cc->host->name)) {
				check_pass(cc, fsname, "mounted", "mounted");
				return;
			}
		}
	}
	check_fail(cc, fsname, "mounted", "not mounted", "mmmount FS (stage scale_remote_mount)");
}

/* The daemon's verbs RDMA, judged as the scale_rdma stage does (check-scale.c). */
static void run_scale_rdma(struct check_ctx *cc)
{
	json_t *cfg = fact_parsed(cc->hf, "mmdiag-config");
	json_t *net = fact_parsed(cc->hf, "mmdiag-network");
	json_t *lsc;
	struct strbuf why = STRBUF_INIT, ok = STRBUF_INIT, status = STRBUF_INIT;
	const char *vs, *verbs;
	char *line;
	int rc;

	if (json_is_false(json_object_get(cfg, "ok")) || json_is_false(json_object_get(net, "ok"))) {
		json_t *bad = json_is_false(json_object_get(cfg, "ok")) ? cfg : net;

		check_fail(cc, NULL, "verbs RDMA started", jstr(bad, "error"),
			   "start GPFS on the node (stages scale_install, scale_start)");
		return;
	}
	if (!cfg || !net) {
		line = fact_line(cc, cfg ? "mmdiag-network" : "mmdiag-config", &rc);
		check_fail(cc, NULL, "verbs RDMA started", not_installed(rc) ?
			   "Spectrum Scale not installed" : *line ? line : "mmdiag gave nothing",
			   "start GPFS on the node (stages scale_install, scale_start)");
		free(line);
		return;
	}
	lsc = fact_parsed(cc->hf, "mmlsconfig");
	vs = fact_output(cc->hf, "mmfsadm-verbs", &rc);
	verbs = rc == 0 && scale_verbs_status(vs, &status) ? status.buf : NULL;
	switch (scale_rdma_judge(cfg, net, json_is_true(json_object_get(lsc, "ok")) ?
				 scale_config_for(lsc, cc->host->name, check_var_str(cc, "gpfs_nodeclass"),
						  "verbsRdma") : NULL, verbs,
				 check_var_str(cc, "gpfs_remote_cluster") != NULL, &why, &ok)) {
	case SCALE_RDMA_OK:
		check_pass(cc, NULL, "verbs RDMA on verbsPorts", ok.buf);
		break;
	case SCALE_RDMA_OFF:
		check_skip(cc, NULL, why.buf);
		break;
	case SCALE_RDMA_BAD:
		check_fail(cc, NULL, "verbs RDMA on verbsPorts", why.buf,
			   "mmdiag --network on the node shows where RDMA runs");
		break;
	}
	strbuf_release(&status);
	strbuf_release(&why);
	strbuf_release(&ok);
}

/*
 * What the daemon runs with against what the configuration gives the node:
 * an attribute changed without -i/-I, or a daemon that did not restart
 * after a change, runs the old value while mmlsconfig shows the new one.
 */
/* The inventory's pagepool within its share of the node's memory (MemTotal). */
static void run_scale_pagepool(struct check_ctx *cc)
{
	json_t *mi = fact_parsed(cc->hf, "meminfo");
	unsigned long long mem_kb = (unsigned long long)json_integer_value(json_object_get(mi,
									 "MemTotal"));
	struct scale_pagepool pp;
	struct src_loc loc;
	char have[32], limit[32], *want, *found;
	enum scale_pagepool_verdict v = scale_pagepool_judge(cc->host->vars, mem_kb, &pp);

	if (v == SCALE_PP_NONE) {
		check_skip(cc, NULL, "the inventory sets no pagepool (gpfs_config)");
		return;
	}
	if (v == SCALE_PP_OK && !mem_kb) {
		check_skip(cc, NULL, "no MemTotal in /proc/meminfo");
		return;
	}
	scale_size_human(pp.mem_bytes, have, sizeof(have));
	scale_size_human(pp.limit, limit, sizeof(limit));
	want = xasprintf("pagepool at most %u%% of memory (%s)", pp.pct, limit);
	if (!inventory_var_loc(cc->inv, cc->host->name, pp.var ? pp.var : "gpfs_config",
			       v == SCALE_PP_BAD_PCT ? "pagepoolMaxPhysMemPct" : "pagepool", &loc))
		found = xasprintf("%s %s %s at %s:%u:%u; MemTotal %s", pp.var,
				  v == SCALE_PP_BAD_PCT ? "pagepoolMaxPhysMemPct" : "pagepool",
				  v == SCALE_PP_BAD_PCT ? pp.pct_value : pp.value, loc.file,
				  loc.line, loc.col, have);
	else
		found = xasprintf("%s %s %s; MemTotal %s", pp.var,
				  v == SCALE_PP_BAD_PCT ? "pagepoolMaxPhysMemPct" : "pagepool",
				  v == SCALE_PP_BAD_PCT ? pp.pct_value : pp.value, have);
	if (v == SCALE_PP_OK)
		check_pass(cc, NULL, want, found);
	else
		check_fail(cc, NULL, want, found, v == SCALE_PP_OVER ?
			   "lower pagepool in the inventory; deploy refuses it (stage scale_preflight)" :
			   "a size such as 16G, and pagepoolMaxPhysMemPct 10-90");
	free(want);
	free(found);
}

static void run_scale_config_running(struct check_ctx *cc)
{
	json_t *cfg = fact_parsed(cc->hf, "mmdiag-config"), *lsc = fact_parsed(cc->hf, "mmlsconfig");
	struct strbuf drift = STRBUF_INIT;
	char *line;
	int rc;

	if (!json_is_true(json_object_get(cfg, "ok")) || !json_is_true(json_object_get(lsc, "ok"))) {
		line = fact_line(cc, json_is_true(json_object_get(cfg, "ok")) ? "mmlsconfig" :
				 "mmdiag-config", &rc);
		check_fail(cc, NULL, "running values read", not_installed(rc) ?
			   "Spectrum Scale not installed" : *line ? line : "no answer",
			   "start GPFS on the node (stages scale_install, scale_start)");
		free(line);
		return;
	}
	if (scale_config_drift(lsc, cfg, cc->host->name, check_var_str(cc, "gpfs_nodeclass"),
			       &drift))
		check_fail(cc, NULL, "the daemon runs with its configuration", drift.buf,
			   "restart GPFS on the node (mmshutdown -N NODE; mmstartup -N NODE) or "
			   "apply with mmchconfig -i where the attribute takes it");
	else
		check_pass(cc, NULL, "the daemon runs with its configuration",
			   "every configured attribute runs with its configured value");
	strbuf_release(&drift);
}

static bool is_scale_quorum(const struct check_ctx *cc)
{
	return host_has_role(cc->host, ROLE_SCALE_QUORUM);
}

static bool is_scale_client(const struct check_ctx *cc)
{
	return host_has_role(cc->host, ROLE_SCALE_CLIENT);
}

/* ---- time -------------------------------------------------------------- */

static void run_time_skew(struct check_ctx *cc)
{
	double max = check_var_num(cc, "precheck_max_clock_skew_s", 1.0);
	char exp[64], found[64];

	if (!cc->hf->have_skew) {
		check_fail(cc, NULL, "a clock reading", "none", "`date` gave nothing");
		return;
	}
	snprintf(exp, sizeof(exp), "within %.3g s of the admin host", max);
	snprintf(found, sizeof(found), "%+.3f s (+/- %.3f s)", cc->hf->clock_skew_s,
		 cc->hf->clock_skew_err_s);
	/* Only a skew beyond doubt fails: a loaded admin host or a slow login
	 * widens the window, it does not move the host's clock. */
	if (fabs(cc->hf->clock_skew_s) - cc->hf->clock_skew_err_s <= max)
		check_pass(cc, NULL, exp, found);
	else
		check_fail(cc, NULL, exp, found,
			   "GPFS leases and Kubernetes certificates need synchronised clocks: "
			   "check chronyd (chronyc tracking)");
}

/* ---- subnet manager ----------------------------------------------------- */

static bool is_sm_home(const struct check_ctx *cc, const struct host *h)
{
	if (cc->inv->groups[ROLE_SM_HOST].hosts.n)
		return host_has_role(h, ROLE_SM_HOST);
	return host_has_role(h, ROLE_IB_SWITCH);
}

static void run_sm_master(struct check_ctx *cc)
{
	/* Every master GUID any host's sminfo reports, and which host owns
	 * it (from every host's ibstat; NULL if none): fleet_ready's. */
	const struct strlist masters = cc->fleet->masters;
	const struct host *const *owner = cc->fleet->master_owner;
	bool mine_is_master = false;

	for (size_t i = 0; i < masters.n; i++)
		mine_is_master |= owner[i] == cc->host;

	if (!masters.n) {
		if (is_sm_home(cc, cc->host))
			check_fail(cc, NULL, "one master SM", "no SM answers on the fabric",
				   "start opensm here (or enable the switch SM): ports stay "
				   "Initializing without one (stage subnet_manager)");
	} else if (masters.n > 1) {
		struct strbuf list = STRBUF_INIT;
		for (size_t i = 0; i < masters.n; i++) {
			const struct host *o = owner[i];
			strbuf_addf(&list, "%s%s (%s)", i ? ", " : "", masters.v[i],
				    o ? o->name : "switch or unknown host");
		}
		/* Name the master that is not where the inventory puts the SM. */
		if (mine_is_master && !is_sm_home(cc, cc->host))
			check_fail(cc, NULL, "one master SM", list.buf,
				   "a second subnet manager claims master: stop it or lower its "
				   "priority (opensm -p / sm_priority)");
		else if (is_sm_home(cc, cc->host))
			check_pass(cc, NULL, "one master SM here", list.buf);
		strbuf_release(&list);
	} else if (is_sm_home(cc, cc->host)) {
		const struct host *o = owner[0];
		char *found = xasprintf("%s (%s)", masters.v[0], o ? o->name : "switch");
		check_pass(cc, NULL, "one master SM", found);
		free(found);
	} else if (mine_is_master) {
		check_fail(cc, NULL, "SM on an sm_host", "master SM runs here",
			   "the inventory puts the SM elsewhere");
	}
}

/* nvidia-smi's warnings ("WARNING: infoROM is corrupted at gpu
 * 0000:05:00.0"): the report still parses, the warning is a finding on the
 * GPU it names. */
static void run_gpu_warnings(struct check_ctx *cc)
{
	json_t *w;
	size_t i, n = 0;

	json_array_foreach(json_object_get(fact_parsed(cc->hf, "nvidia-smi-q"), "warnings"), i, w) {
		const char *msg = json_string_value(w), *at = strstr(msg, " at gpu ");
		char *subj = at ? xasprintf("GPU %s", at + 8) : NULL;

		check_fail(cc, subj, "no warning", msg,
			   strstr(msg, "infoROM") ?
			   "the GPU's infoROM is corrupt: ECC and retired-page records are not "
			   "kept; reflash it (NVIDIA support) or RMA the board" : NULL);
		free(subj);
		n++;
	}
	if (!n && gpus_of(cc))
		check_pass(cc, NULL, "no warning", "none");
}

/* ---- port error counters (perfquery -x, read twice) ------------------- */

/* The port's ibstat state is not Active (down, or no SM yet): ib.port_state
 * says which, and the checks that need a live port skip it. */
static bool port_not_active(const struct check_ctx *cc, const struct hca_expect *e)
{
	json_t *port = find_port(find_ca(fact_parsed(cc->hf, "ibstat"), e->name), e->port);
	const char *st = port ? jstr(port, "state") : NULL;

	return st && strcasecmp(st, "Active");
}


/* The counters that only move when a link or the fabric misbehaves
 * (PortXmitWait, congestion, and the data counters are not among them). */
static const char *const port_error_counters[] = {
	"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter",
	"PortRcvErrors", "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
	"PortXmitDiscards", "PortXmitConstraintErrors", "PortRcvConstraintErrors",
	"LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
};

static json_t *port_counters_of(const struct check_ctx *cc, const char *read,
			     const char *subj)
{
	char *name = xasprintf("perfquery-%s %s", read, subj);
	json_t *j = fact_parsed(cc->hf, name);

	free(name);
	return j;
}

/* Seconds between the two rounds of reads as the host measured them
 * ("T0 T1"), else the interval asked for. */
static double counters_interval(const struct check_ctx *cc)
{
	const char *s = fact_output(cc->hf, "perfquery-interval", NULL);
	double t0, t1;

	if (s && sscanf(s, "%lf %lf", &t0, &t1) == 2 && t1 > t0)
		return t1 - t0;
	return check_var_num(cc, "ib_counter_interval_s", 1);
}

static void port_counters(struct check_ctx *cc, const struct hca_expect *e,
			  const char *subj)
{
	json_t *a = port_counters_of(cc, "a", subj), *b = port_counters_of(cc, "b", subj);
	json_t *ca = json_object_get(json_array_get(json_object_get(a, "ports"), 0), "counters");
	json_t *cb = json_object_get(json_array_get(json_object_get(b, "ports"), 0), "counters");
	double interval = counters_interval(cc);
	double max_rise = check_var_num(cc, "ib_counter_max_rise", 0);
	struct strbuf rising = STRBUF_INIT, held = STRBUF_INIT;

	if (!a || !b) {
		check_skip(cc, subj, "no perfquery reading (perfquery not installed or not run)");
		return;
	}
	if (json_is_false(json_object_get(a, "ok")) || json_is_false(json_object_get(b, "ok"))) {
		json_t *f = json_is_false(json_object_get(a, "ok")) ? a : b;

		/* RoCE ports answer no IB management datagrams */
		if (e->link_layer == LINK_ETH)
			check_skip(cc, subj, "not applicable: a RoCE port has no IB port counters over MADs");
		else if (port_not_active(cc, e))
			/* no LID yet (no SM) or down: ib.port_state says which */
			check_skip(cc, subj, "port not Active: its counters cannot be asked (see ib.port_state)");
		else
			check_fail(cc, subj, "perfquery reads the counters", "perfquery failed",
				   jstr(f, "error"));
		return;
	}
	for (size_t i = 0; i < sizeof(port_error_counters) / sizeof(port_error_counters[0]); i++) {
		const char *k = port_error_counters[i];
		json_int_t va = json_integer_value(json_object_get(ca, k));
		json_int_t vb = json_integer_value(json_object_get(cb, k));

		if (!json_object_get(ca, k) || !json_object_get(cb, k))
			continue;
		if (vb > va && (double)(vb - va) > max_rise)
			strbuf_addf(&rising, "%s%s +%lld in %.1f s (%.3g/s)", rising.len ? ", " : "",
				    k, (long long)(vb - va), interval,
				    interval > 0 ? (double)(vb - va) / interval : 0.0);
		else if (vb > 0)
			strbuf_addf(&held, "%s%s %lld", held.len ? ", " : "", k, (long long)vb);
	}
	if (rising.len) {
		check_fail(cc, subj, "no error counter rising", rising.buf,
			   "the link is taking errors now: reseat or replace the cable or "
			   "transceiver; mlxlink -d <dev> -m shows the eye and BER");
	} else {
		/* counts that did not move are from a past incident */
		char *found = held.len ? xasprintf("steady (old counts: %s)", held.buf) :
					 xstrdup("steady, all zero");
		check_pass(cc, subj, "no error counter rising", found);
		free(found);
	}
	strbuf_release(&rising);
	strbuf_release(&held);
}

static void run_ib_port_counters(struct check_ctx *cc)
{
	for (size_t i = 0; i < cc->host->nhcas; i++) {
		char *subj = port_subject(&cc->host->hcas[i]);

		port_counters(cc, &cc->host->hcas[i], subj);
		free(subj);
	}
}

/* ---- fabric links (iblinkinfo, read from one node) --------------------- */

static char *link_text(const char *width, double lane_gbps)
{
	return xasprintf("%s %.10g Gbps", width ? width : "?", lane_gbps);
}

/* This host's expected IB port e, as the fabric reading shows it (fp:
 * check-fleet.c finds the CA "HOST HCA" and the switch port it meets). */
static void fabric_link(struct check_ctx *cc, const struct fabric_port *fp,
			const struct hca_expect *e, const char *subj)
{
	double want = ib_lane_gbps(e->speed), got;
	char *exp, *found, *where;

	if (!fp->seen) {
		check_fail(cc, subj, "attached to the fabric", "not in iblinkinfo",
			   "the port is cabled to another fabric or not at all, or its node "
			   "description is not 'HOST HCA' (rdma-ndd)");
		return;
	}
	got = fp->lane_gbps;
	where = xasprintf("%s <-> %s port %lld", subj, fp->peer_desc ? fp->peer_desc : "?",
			  fp->peer_port);
	exp = xasprintf("%s %s", e->width ? e->width : "any width", e->speed ? e->speed : "any speed");
	{
		char *near = link_text(fp->width, fp->lane_gbps);
		char *other = fp->far_seen ? link_text(fp->far_width, fp->far_lane_gbps) :
			      xstrdup("not seen");

		found = xasprintf("%s here, %s at the switch", near, other);
		free(near);
		free(other);
	}
	if ((e->width && fp->width && strcmp(e->width, fp->width)) ||
	    (want > 0 && got > 0 && got < want - 0.01))
		check_fail(cc, where, exp, found,
			   "the link trained below its rate at both ends: reseat or replace the cable");
	else
		check_pass(cc, where, exp, found);
	free(where);
	free(exp);
	free(found);
}

static void run_ib_fabric_links(struct check_ctx *cc)
{
	/* the run's one iblinkinfo reading (fleet_ready's) */
	const struct fabric_view *fab = cc->fleet->fabric;
	const struct fabric_port *ports;

	if (!fab) {
		check_skip(cc, NULL, "no iblinkinfo reading (the reading host was unreachable "
			   "or has no iblinkinfo)");
		return;
	}
	if (fab->failed) {
		check_fail(cc, NULL, "iblinkinfo reads the fabric", "iblinkinfo failed",
			   fab->error);
		return;
	}
	ports = fab->ports[fleet_pos(cc->fleet, cc->host_idx)];
	for (size_t i = 0; i < cc->host->nhcas; i++) {
		const struct hca_expect *e = &cc->host->hcas[i];
		char *subj;

		if (e->link_layer == LINK_ETH)
			continue; /* RoCE ports are not in the IB fabric */
		subj = port_subject(e);
		fabric_link(cc, &ports[i], e, subj);
		free(subj);
	}
}

/* ---- HCA port to network device (ibdev2netdev) ------------------------ */

static void run_ib_netdev(struct check_ctx *cc)
{
	json_t *map = fact_parsed(cc->hf, "ibdev2netdev"), *p;
	int rc;

	fact_output(cc->hf, "ibdev2netdev", &rc);
	if (!map) {
		if (not_installed(rc))
			check_skip(cc, NULL, "ibdev2netdev not installed (it comes with MLNX OFED)");
		else
			check_fail(cc, NULL, "ibdev2netdev maps the ports", "ibdev2netdev failed",
				   json_string_value(json_object_get(cc->hf->parse_errors, "ibdev2netdev")));
		return;
	}
	if (json_is_false(json_object_get(map, "ok"))) {
		check_fail(cc, NULL, "ibdev2netdev maps the ports", "ibdev2netdev failed",
			   jstr(map, "error"));
		return;
	}
	for (size_t i = 0; i < cc->host->nhcas; i++) {
		const struct hca_expect *e = &cc->host->hcas[i];
		char *subj = port_subject(e), *found;
		json_t *hit = NULL;
		size_t k;

		json_array_foreach(json_object_get(map, "ports"), k, p)
			if (jstr(p, "device") && !strcmp(jstr(p, "device"), e->name) &&
			    json_integer_value(json_object_get(p, "port")) == (json_int_t)e->port)
				hit = p;
		if (port_not_active(cc, e)) {
			check_skip(cc, subj, "port not Active: its network device cannot be up (see ib.port_state)");
		} else if (!hit) {
			check_fail(cc, subj, "a network device, Up", "none",
				   e->link_layer == LINK_ETH ? "the Ethernet netdev of a RoCE port is missing: mlx5_core?" :
				   "no IPoIB interface: load ib_ipoib (openibd) and check the interface config");
		} else {
			found = xasprintf("%s (%s)", jstr(hit, "netdev"),
					  json_is_true(json_object_get(hit, "up")) ? "Up" : "Down");
			if (json_is_true(json_object_get(hit, "up")))
				check_pass(cc, subj, "a network device, Up", found);
			else
				check_fail(cc, subj, "a network device, Up", found,
					   "the interface is down while its port is Active: ip link set "
					   "<dev> up, and fix its ifcfg/netplan/NetworkManager config");
			free(found);
		}
		free(subj);
	}
}

/* ---- Spectrum Scale health monitor (mmhealth node show) ----------------- */

/* The messages of the events that name a component's reasons, "; "-joined. */
static void health_events(json_t *health, const char *reasons, struct strbuf *out)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(health, "events"), i, e) {
		const char *name = jstr(e, "event"), *msg = jstr(e, "message");

		if (!name || !msg || !reasons || !strstr(reasons, name))
			continue;
		strbuf_addf(out, "%s%s: %s", out->len ? "; " : "", name, msg);
	}
}

/*
 * Every component the node's health monitor watches, as it rates it:
 * HEALTHY or DISABLED pass, TIPS warns (advice, not a fault), anything
 * else (DEGRADED, FAILED, DEPEND, UNKNOWN...) fails on that component with
 * its reasons and the messages of their events.
 */
static void run_scale_health(struct check_ctx *cc)
{
	json_t *h = fact_parsed(cc->hf, "mmhealth"), *c;
	size_t i, bad = 0, n = 0;
	char *line;
	int rc;

	if (!h) {
		line = fact_line(cc, "mmhealth", &rc);
		check_fail(cc, NULL, "every component HEALTHY",
			   not_installed(rc) ? "Spectrum Scale not installed" :
			   json_string_value(json_object_get(cc->hf->parse_errors, "mmhealth")) ?
			   json_string_value(json_object_get(cc->hf->parse_errors, "mmhealth")) :
			   *line ? line : "mmhealth gave nothing", NULL);
		free(line);
		return;
	}
	if (json_is_false(json_object_get(h, "ok"))) {
		check_fail(cc, NULL, "every component HEALTHY", jstr(h, "error"),
			   "the health monitor does not answer: mmsysmoncontrol restart");
		return;
	}
	json_array_foreach(json_object_get(h, "components"), i, c) {
		const char *name = jstr(c, "name"), *st = jstr(c, "status");
		const char *why = jstr(c, "reasons"), *parent = jstr(c, "parent");
		struct strbuf msg = STRBUF_INIT;
		char *subj, *found;

		n++;
		if (!st || !strcmp(st, "HEALTHY") || !strcmp(st, "DISABLED"))
			continue;
		subj = parent ? xasprintf("%s/%s", parent, name) : xstrdup(name);
		found = why && strcmp(why, "-") ? xasprintf("%s (%s)", st, why) : xstrdup(st);
		health_events(h, why, &msg);
		if (!strcmp(st, "TIPS"))
			check_emit(cc, CHECK_WARN, subj, "HEALTHY", found, msg.len ? msg.buf :
				   "a tip: mmhealth node show -v says what to tune");
		else {
			check_fail(cc, subj, "HEALTHY", found, msg.len ? msg.buf : NULL);
			bad++;
		}
		free(subj);
		free(found);
		strbuf_release(&msg);
	}
	if (!bad && n) {
		char *found = xasprintf("%zu components, none degraded or failed", n);

		check_pass(cc, NULL, "every component HEALTHY", found);
		free(found);
	} else if (!n) {
		check_fail(cc, NULL, "every component HEALTHY", "no component listed", NULL);
	}
}

/* ---- peer-memory module symbols (the kernel log) ------------------------ */

/* "a, b" of a module's symbols of one kind, and whether one is ib_*'s or
 * nvidia_p2p_*'s (whose owner the module was built against). */
static void symbol_list(json_t *mod, const char *kind, struct strbuf *out, bool *ib, bool *nv)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(mod, kind), i, v) {
		const char *s = json_string_value(v);

		strbuf_addf(out, "%s%s", i ? ", " : "", s);
		*ib |= !strncmp(s, "ib_", 3) || !strncmp(s, "rdma_", 5);
		*nv |= !strncmp(s, "nvidia_", 7);
	}
}

/*
 * The kernel's verdict on loading the peer-memory module: "Unknown symbol"
 * (and "disagrees about version of symbol") lines in dmesg mean it was
 * built against another ib_core (OFED installed or reinstalled after it)
 * or another NVIDIA driver. Fails, naming the symbols and whose they are,
 * while the module is not loaded; once it is, old lines are history.
 */
static void run_peermem_symbols(struct check_ctx *cc)
{
	const char *want = check_var_str(cc, "peermem_module");
	const char *names[] = { want, "nvidia_peermem", "nv_peer_mem" };
	json_t *d = fact_parsed(cc->hf, "dmesg-modules");
	const char *perr = json_string_value(json_object_get(cc->hf->parse_errors, "dmesg-modules"));
	bool seen = false;

	if (perr) {
		check_fail(cc, NULL, "every symbol resolved", "kernel log not understood", perr);
		return;
	}
	if (json_is_false(json_object_get(d, "ok"))) {
		check_skip(cc, NULL, jstr(d, "error"));
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		json_t *mod = names[i] ? json_object_get(json_object_get(d, "modules"), names[i]) : NULL;
		struct strbuf unk = STRBUF_INIT, mism = STRBUF_INIT;
		bool ib = false, nv = false;
		char *found;

		if (!mod || (i && want && !strcmp(names[i], want)))
			continue;
		seen = true;
		symbol_list(mod, "unknown_symbols", &unk, &ib, &nv);
		symbol_list(mod, "version_mismatch", &mism, &ib, &nv);
		found = xasprintf("%sUnknown symbol %s%s%s%s", lsmod_find(cc, names[i]) ?
				  "loaded; an earlier load failed: " : "", unk.buf,
				  mism.len ? " (disagrees about version: " : "", mism.buf,
				  mism.len ? ")" : "");
		if (lsmod_find(cc, names[i])) {
			check_pass(cc, names[i], "every symbol resolved", found);
		} else {
			check_fail(cc, names[i], "every symbol resolved", found,
				   ib && nv ? "built against another ib_core (OFED) and NVIDIA driver: "
				   "rebuild it against the installed ones" :
				   ib ? "built against another ib_core: OFED was installed after it; rebuild "
				   "it (nvidia-peer-memory dkms/rpm) or use the driver's nvidia-peermem" :
				   nv ? "built against another NVIDIA driver: rebuild it against the running one" :
				   "built against another kernel or module: rebuild it");
		}
		free(found);
		strbuf_release(&unk);
		strbuf_release(&mism);
	}
	if (!seen && !json_object_size(json_object_get(d, "modules")))
		check_pass(cc, NULL, "every symbol resolved", "no unresolved symbol in the kernel log");
	else if (!seen)
		check_pass(cc, NULL, "every symbol resolved", "none for the peer-memory module");
}

/* ---- the peer-memory module's build (modinfo) ---------------------------- */

/*
 * modinfo of the peer-memory module the inventory expects (or the one that
 * is installed): built for the running kernel, its vermagic says; a module
 * built for another one reaches this kernel only through RHEL's
 * weak-updates links, and works only while the kABI holds (OFED's ib_core
 * symbols are not in it). And linked against ib_core, as a GPUDirect
 * module must be.
 */
static void run_peermem_build(struct check_ctx *cc)
{
	const char *want = check_var_str(cc, "peermem_module");
	const char *names[] = { "nv_peer_mem", "nvidia_peermem" };
	char *name = want ? xstrdup(want) : NULL, *fact = NULL, *kernel = NULL, *found = NULL;
	json_t *m = NULL, *d, *v;
	const char *perr = NULL, *vk, *file;
	const char *mod = NULL;   /* the module whose modinfo is judged */
	bool ib = false;
	size_t i;

	for (char *p = name; p && *p; p++)
		if (*p == '-')
			*p = '_';
	for (i = 0; i < 2 && !m; i++) {
		if (name && strcmp(name, names[i]))
			continue;
		free(fact);
		fact = xasprintf("modinfo-%s", names[i]);
		m = fact_parsed(cc->hf, fact);
		mod = names[i];
		perr = json_string_value(json_object_get(cc->hf->parse_errors, fact));
		if (!name && json_is_false(json_object_get(m, "ok")))
			m = NULL;   /* the other one may be installed */
		if (perr)
			break;
	}
	if (perr) {
		check_fail(cc, name, "built for the running kernel", "modinfo output not understood", perr);
		goto out;
	}
	if (!m || json_is_false(json_object_get(m, "ok"))) {
		check_skip(cc, name, m ? "not installed (peermem.loaded says what to do)" :
			   "no modinfo of a peer-memory module");
		goto out;
	}
	kernel = fact_line(cc, "kernel", NULL);
	vk = json_string_value(json_object_get(m, "vermagic_kernel"));
	file = json_string_value(json_object_get(json_object_get(m, "fields"), "filename"));
	d = json_object_get(m, "depends");
	json_array_foreach(d, i, v)
		ib |= json_is_string(v) && !strcmp(json_string_value(v), "ib_core");
	if (vk && *kernel && strcmp(vk, kernel)) {
		found = xasprintf("built for %s (%s)", vk, file ? file : "?");
		check_fail(cc, mod, kernel, found,
			   "it reaches this kernel through weak-updates at best, and holds only while "
			   "the kABI does (OFED's ib_core is not in it): rebuild it for the running "
			   "kernel (dkms, or build_module.sh / the source rpm)");
	} else if (!ib) {
		check_fail(cc, mod, "linked against ib_core", "depends: not on ib_core",
			   "a GPUDirect module registers with ib_core's peer-memory API: build it "
			   "against MLNX_OFED's kernel sources");
	} else {
		found = xasprintf("version %s, built for %s, depends on ib_core",
				  json_string_value(json_object_get(json_object_get(m, "fields"), "version")) ?
				  json_string_value(json_object_get(json_object_get(m, "fields"), "version")) : "?",
				  vk ? vk : "?");
		check_pass(cc, mod, "built for the running kernel", found);
	}
out:
	free(found);
	free(kernel);
	free(fact);
	free(name);
}

/* ---- DCGM diagnostics (precheck --deep) -------------------------------- */

/* Only when the facts hold them: precheck --deep asked for dcgmi diag. */
static bool dcgm_applies(const struct check_ctx *cc)
{
	return has_gpus(cc) && json_object_get(cc->hf->raw, "dcgmi-diag");
}

/*
 * dcgmi diag -r 1: every test Pass (or Skip). A test that fails names the
 * GPUs its result lists ("Fail - GPU: 0"); an Error or Warning row names
 * the GPU its words do ("GPU 3 has uncorrectable memory errors..."), else
 * the test. Judged from the table, not from dcgmi's exit status.
 */
static void run_dcgm_diag(struct check_ctx *cc)
{
	json_t *d = fact_parsed(cc->hf, "dcgmi-diag"), *t, *by, *o;
	const char *perr = json_string_value(json_object_get(cc->hf->parse_errors, "dcgmi-diag"));
	const char *subject;
	size_t i, ntests;
	int rc;
	char *line = fact_line(cc, "dcgmi-diag", &rc);

	if (not_installed(rc) || rc == 124 || perr || !d) {
		check_fail(cc, NULL, "dcgmi diag -r 1 passes",
			   not_installed(rc) ? "dcgmi not installed" :
			   rc == 124 ? "did not finish in its time" : "output not understood",
			   not_installed(rc) ? "install DCGM (datacenter-gpu-manager) and start "
			   "nv-hostengine" : perr ? perr : line);
		free(line);
		return;
	}
	free(line);
	if (json_is_false(json_object_get(d, "ok"))) {
		check_fail(cc, NULL, "dcgmi diag -r 1 passes", "dcgmi failed", jstr(d, "error"));
		return;
	}
	ntests = json_array_size(json_object_get(d, "tests"));
	by = dcgmi_diag_problems(d);
	json_object_foreach(by, subject, o) {
		if (json_is_true(json_object_get(o, "fail")))
			check_fail(cc, subject, "dcgmi diag -r 1 passes", jstr(o, "what"),
				   "nvidia-smi -q -i <gpu> and DCGM's log (nv-hostengine) say more; a "
				   "hardware fault needs a reset, a reseat or an RMA");
		else
			check_emit(cc, CHECK_WARN, subject, "dcgmi diag -r 1 passes", jstr(o, "what"),
				   NULL);
	}
	if (!json_object_size(by)) {
		size_t skipped = 0;
		char *found;

		json_array_foreach(json_object_get(d, "tests"), i, t)
			skipped += jstr(t, "status") && strcmp(jstr(t, "status"), "Pass");
		found = skipped ? xasprintf("%zu tests passed, %zu skipped", ntests - skipped, skipped) :
			xasprintf("%zu tests passed", ntests);

		check_pass(cc, NULL, "dcgmi diag -r 1 passes", found);
		free(found);
	}
	json_decref(by);
}

/* ---- node-to-node SSH (mpirun's launcher) ------------------------------ */

/* A peer that did not answer in time (timeout's 124, ssh's own "timed out"). */
static bool peer_timed_out(json_t *p)
{
	const char *e = jstr(p, "error");

	return json_integer_value(json_object_get(p, "rc")) == 124 || (e && strstr(e, "timed out"));
}

/* Only the launcher gathers ssh-peer (facts.c: the first GPU host). */
static bool is_mpi_launcher(const struct check_ctx *cc)
{
	return fact_parsed(cc->hf, "ssh-peer") ||
	       json_object_get(cc->hf->parse_errors, "ssh-peer");
}

static void run_ssh_peer(struct check_ctx *cc)
{
	json_t *res = fact_parsed(cc->hf, "ssh-peer"), *p;
	size_t k;

	if (!res) {
		check_fail(cc, NULL, "node-to-node SSH logins tried", "no readable answer",
			   json_string_value(json_object_get(cc->hf->parse_errors, "ssh-peer")));
		return;
	}
	json_array_foreach(json_object_get(res, "peers"), k, p) {
		char *subj = xasprintf("%s -> %s", cc->host->name, jstr(p, "host"));
		const struct host *peer = inventory_host(cc->inv, jstr(p, "host"));
		const struct host_facts *pf = peer ? facts_for(cc->facts, (size_t)(peer - cc->inv->hosts)) : NULL;

		/* A peer this machine cannot reach either is ssh.reachable's
		 * finding on that peer, not this pair's. */
		if (pf && pf->rc && !json_is_true(json_object_get(p, "ok"))) {
			check_skip(cc, subj, "the peer does not answer bringup either (see its ssh.reachable)");
		} else if (peer_timed_out(p)) {
			/* Slowness is ssh.latency's business; this check is about trust. */
			check_skip(cc, subj, "no answer in time (a loaded or hung peer): trust not known");
		} else if (json_is_true(json_object_get(p, "ok"))) {
			check_pass(cc, subj, "BatchMode login", "ok");
		} else {
			char *found = xasprintf("refused: %s", jstr(p, "error"));
			char *why = xasprintf("%s cannot log in to %s without a prompt, so mpirun "
					      "cannot start its ranks there: give %s's user a key "
					      "that %s accepts and put %s's host key in known_hosts",
					      cc->host->name, jstr(p, "host"), cc->host->name,
					      jstr(p, "host"), jstr(p, "host"));

			check_fail(cc, subj, "BatchMode login", found, why);
			free(found);
			free(why);
		}
		free(subj);
	}
}

/* ---- the table -------------------------------------------------------- */

const struct check_def check_defs[] = {
	{ "ssh.reachable", SEV_FAIL, "host reachable over SSH",
	  "check the host is up, sshd runs, the inventory's address/port, and its key",
	  { NULL }, NULL, run_ssh_reachable },
	{ "ssh.latency", SEV_FAIL, "commands start promptly",
	  "log in by hand and time it; look for DNS (UseDNS), PAM or file-system stalls",
	  { NULL }, NULL, run_ssh_latency, true },
	{ "host.name", SEV_FAIL, "hostname matches the inventory",
	  "fix the address in the inventory or the host's name (hostnamectl)",
	  { NULL }, NULL, run_host_name },
	{ "host.resolve", SEV_FAIL, "the host's name resolves to its inventory address",
	  "fix /etc/hosts or DNS so that every node resolves every node's name",
	  { NULL }, NULL, run_host_resolve },
	{ "os.release", SEV_FAIL, "OS release as the inventory wants",
	  "reinstall or upgrade to the release the stack was qualified on",
	  { NULL }, NULL, run_os_release },
	{ "kernel.headers", SEV_FAIL, "kernel headers for the running kernel",
	  "install kernel-devel-$(uname -r) (RHEL) or linux-headers-$(uname -r)",
	  { NULL }, is_gpu_worker, run_kernel_headers },
	{ "kernel.supported", SEV_FAIL, "running kernel supported by OFED, driver, Scale",
	  "boot a supported kernel, or pick releases that support this one",
	  { NULL }, NULL, run_kernel_supported },
	{ "disk.tmp_free", SEV_FAIL, "free space where OFED unpacks",
	  "free space in /tmp or point the installer elsewhere",
	  { NULL }, has_ib, run_disk_tmp },
	{ "ib.hca_present", SEV_FAIL, "every expected HCA present",
	  "check seating and firmware (mst status, lspci); install OFED for ibstat",
	  { NULL }, has_ib, run_ib_hca_present },
	{ "ib.port_state", SEV_FAIL, "HCA ports Active and LinkUp",
	  "cable, transceiver or switch port: ibportstate, mlxlink",
	  { NULL }, has_ib, run_ib_port_state },
	{ "ib.port_rate", SEV_FAIL, "HCA ports at the expected rate, width and speed",
	  "reseat or replace the cable; check the switch port's negotiation",
	  { NULL }, has_ib, run_ib_port_rate },
	{ "ib.link_layer", SEV_FAIL, "HCA ports in the expected link layer",
	  "mlxconfig -d <dev> set LINK_TYPE_P1=1 (IB) or 2 (Ethernet), then reboot",
	  { NULL }, has_ib, run_ib_link_layer },
	{ "ofed.version", SEV_FAIL, "one OFED version, the desired one",
	  "install the desired MLNX_OFED everywhere (stage ofed)",
	  { NULL }, has_ib, run_ofed_version, true },
	{ "peermem.loaded", SEV_FAIL, "GPUDirect peer-memory module loaded",
	  "modprobe nvidia-peermem (or build nv_peer_mem); stage peermem",
	  { NULL }, is_gpu_worker, run_peermem_loaded },
	{ "nouveau.absent", SEV_FAIL, "nouveau not loaded",
	  "blacklist nouveau and rebuild the initramfs (stage nouveau)",
	  { NULL }, has_gpus, run_nouveau_absent },
	{ "memlock.unlimited", SEV_FAIL, "memlock unlimited for MPI and RDMA pods",
	  "limits.d and the cri-o LimitMEMLOCK drop-in (stage memlock)",
	  { NULL }, is_gpu_worker, run_memlock },
	{ "selinux.mode", SEV_FAIL, "SELinux mode as the inventory wants",
	  "setenforce and /etc/selinux/config",
	  { NULL }, NULL, run_selinux },
	{ "gpu.count", SEV_FAIL, "expected number of GPUs",
	  "check dmesg for a GPU that fell off the bus; reseat; RMA",
	  { NULL }, has_gpus, run_gpu_count },
	{ "gpu.model", SEV_FAIL, "expected GPU model",
	  "the inventory's hardware profile or the node is wrong",
	  { NULL }, model_expected, run_gpu_model },
	{ "gpu.row_remap", SEV_FAIL, "no pending or failed GPU row remapping",
	  "pending: reset the GPU or reboot; failed: RMA",
	  { NULL }, has_gpus, run_gpu_row_remap },
	{ "gpu.xid", SEV_FAIL, "no hardware XID errors",
	  "look the XID up in NVIDIA's catalogue; most hardware XIDs need a reset or RMA",
	  { NULL }, has_gpus, run_gpu_xid },
	{ "gpu.throttle", SEV_FAIL, "no hardware power brake (other slowdowns warn)",
	  "check power supplies, the BMC event log, cooling",
	  { NULL }, has_gpus, run_gpu_throttle },
	{ "pcie.link", SEV_FAIL, "GPU and HCA PCIe links at capability, x16",
	  "reseat card/riser, check slot and BIOS settings",
	  { NULL }, has_gpus, run_pcie_link },
	{ "gpudirect.usable", SEV_FAIL, "GPUDirect RDMA usable",
	  "load peer memory matching the driver; place GPUs and HCAs under one PCIe switch",
	  { "peermem.loaded", "memlock.unlimited" }, gpudirect_applies, run_gpudirect },
	{ "scale.state", SEV_FAIL, "Spectrum Scale daemon active",
	  "mmstartup -N <node>; check mmfs.log",
	  { NULL }, is_scale_node, run_scale_state },
	{ "scale.quorum", SEV_FAIL, "all quorum nodes active",
	  "start GPFS on the quorum nodes that are down",
	  { "scale.state" }, is_scale_quorum, run_scale_quorum },
	{ "scale.mount", SEV_FAIL, "file system mounted",
	  "mmmount <fs> -N <node> (stage scale_remote_mount)",
	  { "scale.state" }, is_scale_client, run_scale_mount },
	{ "scale.rdma", SEV_FAIL, "GPFS moves data over verbs RDMA on verbsPorts",
	  "fix verbsPorts (gpfs_config) and restart GPFS (stage scale_tune)",
	  { "scale.state", "ib.port_state" }, is_scale_client, run_scale_rdma },
	{ "scale.pagepool", SEV_FAIL, "the inventory's pagepool within pagepoolMaxPhysMemPct of "
	  "the node's memory",
	  "lower pagepool (gpfs_config) below the share of MemTotal",
	  { NULL }, is_scale_node, run_scale_pagepool },
	{ "scale.config_running", SEV_FAIL, "the GPFS daemon runs with the values mmlsconfig gives "
	  "its node (mmdiag --config)",
	  "restart GPFS on the node (mmshutdown/mmstartup -N NODE), or mmchconfig -i",
	  { "scale.state" }, is_scale_node, run_scale_config_running },
	{ "time.skew", SEV_FAIL, "clock close to the admin host's",
	  "enable and sync chronyd",
	  { NULL }, NULL, run_time_skew },
	{ "sm.master", SEV_FAIL, "exactly one master subnet manager",
	  "run one SM (opensm or the switch's) with the highest priority, others standby",
	  { NULL }, has_ib, run_sm_master, true },
	{ "gpu.warnings", SEV_FAIL, "nvidia-smi prints no warning (infoROM)",
	  "a corrupt infoROM loses ECC/retirement records: reflash or RMA the GPU",
	  { NULL }, has_gpus, run_gpu_warnings },
	{ "ib.port_counters", SEV_FAIL, "no port error counter rising (perfquery -x, two reads)",
	  "a rising SymbolError/LinkDowned/RcvErrors count is a failing cable or transceiver",
	  { "ib.port_state" }, has_ib, run_ib_port_counters },
	{ "ib.fabric_links", SEV_FAIL, "every IB port in the fabric at its width and speed (iblinkinfo)",
	  "a link below its rate seen from both ends: reseat or replace the cable, check the switch port",
	  { "ib.port_state" }, has_ib, run_ib_fabric_links, true },
	{ "ib.netdev", SEV_FAIL, "every HCA port drives a network device that is Up (ibdev2netdev)",
	  "IPoIB and RoCE need the port's netdev up: ip link set <dev> up, fix its config",
	  { "ib.port_state" }, has_ib, run_ib_netdev },
	{ "scale.health", SEV_FAIL, "every Spectrum Scale component HEALTHY (mmhealth node show)",
	  "mmhealth node show -v and mmhealth event show <event> say what broke and what to do",
	  { "scale.state" }, is_scale_node, run_scale_health },
	{ "peermem.build", SEV_WARN, "the peer-memory module was built for the running kernel (modinfo)",
	  "rebuild the peer-memory module after a kernel update (dkms or build_module.sh)",
	  { NULL }, is_gpu_worker, run_peermem_build },
	{ "gpu.dcgm_diag", SEV_FAIL, "DCGM's quick diagnostic passes (dcgmi diag -r 1, precheck --deep)",
	  "the failing GPU or test says what to look at: row remapping pending (reset the GPU), "
	  "persistence mode off (nvidia-smi -pm 1), a hardware failure (RMA)",
	  { NULL }, dcgm_applies, run_dcgm_diag },
	{ "peermem.symbols", SEV_FAIL, "the peer-memory module links against this ib_core and driver (dmesg)",
	  "\"Unknown symbol\" in dmesg: rebuild the peer-memory module after OFED and the GPU driver",
	  { NULL }, is_gpu_worker, run_peermem_symbols },
	{ "ssh.peer", SEV_FAIL, "mpirun's launcher logs in to every GPU node (BatchMode)",
	  "node-to-node keys for the MPI user: authorized_keys and known_hosts on every node",
	  { NULL }, is_mpi_launcher, run_ssh_peer, true },
	{ "ib.fabric_isl", SEV_FAIL, "every switch-to-switch link at its width and speed (iblinkinfo, "
	  "judged once on the fabric-reading host)",
	  "a link below its rate is named by both ends: reseat or replace that cable or transceiver",
	  { NULL }, fabric_is_reader, run_ib_fabric_isl },
	{ "ib.fabric_size", SEV_FAIL, "every host with IB HCAs in the fabric, and the switches the "
	  "inventory's fabric section expects (iblinkinfo, once)",
	  "a host not seen is cabled elsewhere or its ports are down; a switch not seen is off "
	  "or cut from the fabric",
	  { NULL }, fabric_is_reader, run_ib_fabric_size },
	{ "ib.fabric_cabling", SEV_FAIL, "each leaf cabled as the inventory's fabric section plans, "
	  "each host port on its fabric_leaf (iblinkinfo, once)",
	  "cable the leaf to every spine with uplinks_per_leaf cables and each host port to its "
	  "leaf, or correct the inventory",
	  { NULL }, fabric_is_planned, run_ib_fabric_cabling },
	{ "gpu.driver", SEV_FAIL, "one GPU driver on every GPU node, the desired one (gpu_driver)",
	  "install the desired driver everywhere (bringup upgrade --to driver=VER)",
	  { NULL }, has_gpus, run_gpu_driver, true },
};

const size_t check_ndefs = sizeof(check_defs) / sizeof(check_defs[0]);

/* What the .fleet checks above read of their own host's facts; what they
 * compare across hosts (ibstat, sminfo, ofed_info, the iblinkinfo reading)
 * is in check-fleet.c, taken as each host is judged. */
const char *const check_fleet_facts[] = {
	"ssh-peer",    /* ssh.peer (the launcher's own) */
	NULL,
};
