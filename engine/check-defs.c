/*
 * The precheck checks, in the order they run (a check's requirements come
 * before it). Each reads facts (facts.h) and the host's expectations from
 * the inventory, and records results with check_pass/check_fail/check_skip.
 * Ids are stable: runbooks and dashboards link to them.
 */
#include "check.h"
#include "strbuf.h"
#include "template.h"
#include "xalloc.h"

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
	if (cc->hf->rc)
		check_fail(cc, NULL, "reachable over SSH", cc->hf->timed_out ? "timed out" :
			   "unreachable", err_msg(&cc->hf->err));
	else
		check_pass(cc, NULL, "reachable over SSH", "reachable");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median login time of the hosts that answered. */
static double login_median(const struct facts *f)
{
	double *v = xmalloc((f->n ? f->n : 1) * sizeof(*v)), m;
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		if (!f->h[i].rc)
			v[n++] = f->h[i].login_s;
	qsort(v, n, sizeof(*v), cmp_double);
	m = n ? v[n / 2] : 0;
	free(v);
	return m;
}

/*
 * The login itself (time to the first byte), not the tools' run time. A host
 * is slow when it is over the limit and also well behind the others: when
 * every login is slow, the admin host or the network is, not one node.
 */
static void run_ssh_latency(struct check_ctx *cc)
{
	double max = check_var_num(cc, "precheck_max_login_s", 4.0);
	double median = login_median(cc->facts);
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

	fact_output(cc->hf, "ibstat", &rc);
	if (fact_parsed(cc->hf, "ibstat"))
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

static const char *ofed_of(const struct host_facts *hf)
{
	return jstr(fact_parsed(hf, "ofed_info"), "version_string");
}

/* The version most hosts run, when the inventory names none. */
static const char *ofed_majority(const struct check_ctx *cc)
{
	const char *best = NULL;
	size_t best_n = 0;

	for (size_t i = 0; i < cc->facts->n; i++) {
		const char *v = ofed_of(&cc->facts->h[i]);
		size_t n = 0;

		if (!v)
			continue;
		for (size_t k = 0; k < cc->facts->n; k++) {
			const char *w = ofed_of(&cc->facts->h[k]);
			n += w && !strcmp(v, w);
		}
		if (n > best_n) {
			best = v;
			best_n = n;
		}
	}
	return best;
}

static void run_ofed_version(struct check_ctx *cc)
{
	const char *want = check_var_str(cc, "ofed_version"), *got = ofed_of(cc->hf);
	int rc;

	fact_output(cc->hf, "ofed_info", &rc);
	if (!want)
		want = ofed_majority(cc);
	if (!got)
		check_fail(cc, NULL, want ? want : "installed",
			   not_installed(rc) ? "not installed" : "unreadable",
			   "install MLNX_OFED (bringup deploy, stage ofed)");
	else if (want && strcmp(want, got))
		check_fail(cc, NULL, want, got,
			   "all nodes must run the same OFED, matched to the storage system's");
	else
		check_pass(cc, NULL, want ? want : got, got);
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

	fact_output(cc->hf, "nvidia-smi-q", &rc);
	snprintf(exp, sizeof(exp), "%u", cc->host->gpus.count);
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
		   "join the node and start GPFS (stages scale_join, mmstartup)");
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
	check_fail(cc, fsname, "mounted", "not mounted", "mmmount FS (stage scale_mount)");
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
	snprintf(found, sizeof(found), "%+.3f s", cc->hf->clock_skew_s);
	if (fabs(cc->hf->clock_skew_s) <= max)
		check_pass(cc, NULL, exp, found);
	else
		check_fail(cc, NULL, exp, found,
			   "GPFS leases and Kubernetes certificates need synchronised clocks: "
			   "check chronyd (chronyc tracking)");
}

/* ---- subnet manager ----------------------------------------------------- */

/* Which host owns a port GUID (from every host's ibstat); NULL if none. */
static const struct host *guid_owner(const struct check_ctx *cc, const char *guid)
{
	for (size_t i = 0; i < cc->facts->n; i++) {
		json_t *ca;
		size_t k;

		json_array_foreach(json_object_get(fact_parsed(&cc->facts->h[i], "ibstat"), "cas"), k, ca) {
			json_t *p;
			size_t j;

			json_array_foreach(json_object_get(ca, "ports"), j, p) {
				const char *g = jstr(p, "port_guid");
				if (g && strtoull(g, NULL, 16) == strtoull(guid, NULL, 16))
					return &cc->inv->hosts[cc->facts->h[i].host];
			}
		}
	}
	return NULL;
}

static bool is_sm_home(const struct check_ctx *cc, const struct host *h)
{
	if (cc->inv->groups[ROLE_SM_HOST].hosts.n)
		return host_has_role(h, ROLE_SM_HOST);
	return host_has_role(h, ROLE_IB_SWITCH);
}

static void run_sm_master(struct check_ctx *cc)
{
	struct strlist masters = STRLIST_INIT;
	bool mine_is_master = false;

	/* Every master GUID any host's sminfo reports. */
	for (size_t i = 0; i < cc->facts->n; i++) {
		json_t *sm = fact_parsed(&cc->facts->h[i], "sminfo");
		const char *g = jstr(sm, "sm_guid");

		if (json_is_true(json_object_get(sm, "ok")) && g &&
		    json_integer_value(json_object_get(sm, "state")) == 3 &&
		    strlist_index(&masters, g) < 0)
			strlist_push(&masters, g);
	}
	for (size_t i = 0; i < masters.n; i++)
		mine_is_master |= guid_owner(cc, masters.v[i]) == cc->host;

	if (!masters.n) {
		if (is_sm_home(cc, cc->host))
			check_fail(cc, NULL, "one master SM", "no SM answers on the fabric",
				   "start opensm here (or enable the switch SM): ports stay "
				   "Initializing without one (stage subnet_manager)");
	} else if (masters.n > 1) {
		struct strbuf list = STRBUF_INIT;
		for (size_t i = 0; i < masters.n; i++) {
			const struct host *o = guid_owner(cc, masters.v[i]);
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
		const struct host *o = guid_owner(cc, masters.v[0]);
		char *found = xasprintf("%s (%s)", masters.v[0], o ? o->name : "switch");
		check_pass(cc, NULL, "one master SM", found);
		free(found);
	} else if (mine_is_master) {
		check_fail(cc, NULL, "SM on an sm_host", "master SM runs here",
			   "the inventory puts the SM elsewhere");
	}
	strlist_clear(&masters);
}

/* ---- the table -------------------------------------------------------- */

const struct check_def check_defs[] = {
	{ "ssh.reachable", SEV_FAIL, "host reachable over SSH",
	  "check the host is up, sshd runs, the inventory's address/port, and its key",
	  { NULL }, NULL, run_ssh_reachable },
	{ "ssh.latency", SEV_FAIL, "commands start promptly",
	  "log in by hand and time it; look for DNS (UseDNS), PAM or file-system stalls",
	  { NULL }, NULL, run_ssh_latency },
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
	  { NULL }, has_ib, run_ofed_version },
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
	  "mmmount <fs> -N <node> (stage scale_mount)",
	  { "scale.state" }, is_scale_client, run_scale_mount },
	{ "time.skew", SEV_FAIL, "clock close to the admin host's",
	  "enable and sync chronyd",
	  { NULL }, NULL, run_time_skew },
	{ "sm.master", SEV_FAIL, "exactly one master subnet manager",
	  "run one SM (opensm or the switch's) with the highest priority, others standby",
	  { NULL }, has_ib, run_sm_master },
};

const size_t check_ndefs = sizeof(check_defs) / sizeof(check_defs[0]);
