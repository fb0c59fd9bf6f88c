/*
 * Facts gathering: one remote script per host, its sections split and
 * parsed. See facts.h.
 */
#include "facts.h"
#include "../base/jsontext.h"
#include "parse.h"
#include "parse-iblinkinfo.h"
#include "../ssh/ssh.h"
#include "../base/strbuf.h"
#include "../base/template.h"
#include "../base/tmpfile.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define FACT_MARK "::bringup-fact:: "
#define RC_MARK "::bringup-rc:: "
/* facts.sh's line before the gzip stream of its compressed part. */
#define GZIP_MARK "\n::bringup-gzip::\n"

/* Which facts go through which parser. */
static const struct {
	const char *fact, *parser;
} fact_parsers[] = {
	{ "dcgmi-diag", "dcgmi-diag" },
	{ "dmesg-modules", "dmesg-modules" },
	{ "getenforce", "getenforce" },
	{ "ibdev2netdev", "ibdev2netdev" },
	{ "ibhosts", "ibhosts" },
	{ "ibstat", "ibstat" },
	{ "ibstatus", "ibstatus" },
	{ "lsmod", "lsmod" },
	{ "lspci", "lspci" },
	{ "meminfo", "meminfo" },
	{ "mmdiag-config", "mmdiag-config" },
	{ "mmdiag-network", "mmdiag-network" },
	{ "mmgetstate", "mmgetstate" },
	{ "mmhealth", "mmhealth" },
	{ "mmlscluster", "mmlscluster" },
	{ "mmlsconfig", "mmlsconfig" },
	{ "mmlsmount", "mmlsmount" },
	{ "modinfo-nv_peer_mem", "modinfo" },
	{ "modinfo-nvidia_peermem", "modinfo" },
	{ "nvidia-smi-q", "nvidia-smi-q" },
	{ "nvidia-smi-topo", "nvidia-smi-topo" },
	{ "ofed_info", "ofed_info" },
	{ "os-release", "os-release" },
	{ "sminfo", "sminfo" },
	{ "ssh-peer", "ssh-peer" },
};

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

int facts_split(const char *buf, size_t len, json_t **ret, struct err *err)
{
	const char *p = buf, *end = buf + len, *body = NULL;
	char *name = NULL;
	unsigned lineno = 0, name_line = 0;
	json_t *out = json_object();

	while (p < end) {
		const char *eol = line_end(p, end);
		size_t ll = (size_t)(eol - p);

		lineno++;
		if (ll >= strlen(FACT_MARK) && !memcmp(p, FACT_MARK, strlen(FACT_MARK))) {
			if (name)
				goto broken;
			name = xstrndup(p + strlen(FACT_MARK), ll - strlen(FACT_MARK));
			name_line = lineno;
			body = eol < end ? eol + 1 : eol;
		} else if (ll >= strlen(RC_MARK) && !memcmp(p, RC_MARK, strlen(RC_MARK))) {
			char *rest = xstrndup(p + strlen(RC_MARK), ll - strlen(RC_MARK));
			char *sp = strrchr(rest, ' ');
			const char *bend = p;
			int rc;

			if (!name || !sp || strncmp(rest, name, (size_t)(sp - rest)) ||
			    strlen(name) != (size_t)(sp - rest)) {
				free(rest);
				goto broken;
			}
			rc = atoi(sp + 1);
			free(rest);
			/* facts.sh put a newline before the marker; it is not output. */
			if (bend > body && bend[-1] == '\n')
				bend--;
			{
				/* Not UTF-8 would drop the section; output_base64 keeps the bytes. */
				json_t *sec = json_pack("{s:i}", "rc", rc);

				json_set_bytes(sec, "output", body, (size_t)(bend - body));
				json_object_set_new(out, name, sec);
			}
			free(name);
			name = NULL;
		}
		p = eol < end ? eol + 1 : eol;
	}
	if (name) {
		err_set(err, ERR_PARSE, "facts: line %u: section '%s' has no end (output cut?)",
			name_line, name);
		free(name);
		json_decref(out);
		return ERR_PARSE;
	}
	*ret = out;
	return 0;
broken:
	err_set(err, ERR_PARSE, "facts: line %u: unexpected section marker", lineno);
	free(name);
	json_decref(out);
	return ERR_PARSE;
}

/* Does the text before p (in buf) end with an end marker's line? */
static bool after_section(const char *buf, const char *p)
{
	const char *q;

	if (p == buf || p[-1] != '\n')
		return false;
	q = p - 1;
	while (q > buf && q[-1] != '\n')
		q--;
	return (size_t)(p - q) > strlen(RC_MARK) && !memcmp(q, RC_MARK, strlen(RC_MARK));
}

int facts_inflate(struct strbuf *out, size_t max, struct err *err)
{
	const char *mark = memmem(out->buf, out->len, GZIP_MARK, strlen(GZIP_MARK));
	const unsigned char *gz;
	size_t head, gzlen;
	struct strbuf plain = STRBUF_INIT;
	z_stream z = { 0 };
	int zr = Z_OK;
	bool too_big = false;

	/* Only between sections: a tool's output that happens to hold the
	 * line is not the script's. */
	while (mark && !after_section(out->buf, mark))
		mark = memmem(mark + 1, out->len - (size_t)(mark + 1 - out->buf), GZIP_MARK,
			      strlen(GZIP_MARK));
	if (!mark)
		return 0;
	head = (size_t)(mark - out->buf);
	gz = (const unsigned char *)mark + strlen(GZIP_MARK);
	gzlen = out->len - head - strlen(GZIP_MARK);
	if (gzlen < 2 || gz[0] != 0x1f || gz[1] != 0x8b)
		return err_set(err, ERR_PARSE, "facts: the compressed part (byte %zu) is not gzip "
			       "output", head + strlen(GZIP_MARK));
	if (inflateInit2(&z, 15 + 16) != Z_OK) /* 16: gzip's framing */
		return err_set(err, ERR_INTERNAL, "facts: zlib: %s", z.msg ? z.msg : "no memory");
	/* gzip's last four bytes give the plain size (mod 2^32): one buffer of
	 * that size, not doubling's slack, while 256 hosts may parse at once. */
	{
		size_t isize = (size_t)gz[gzlen - 4] | (size_t)gz[gzlen - 3] << 8 |
			       (size_t)gz[gzlen - 2] << 16 | (size_t)gz[gzlen - 1] << 24;

		/* A size no text compresses to is not believed up front. */
		if (gzlen < 8 || isize > max || isize / 64 > gzlen)
			isize = gzlen * 8;
		strbuf_init(&plain, head + isize + 1);
	}
	strbuf_add(&plain, out->buf, head);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)gzlen;
	while (zr == Z_OK) {
		if (plain.alloc - plain.len < 2)
			strbuf_grow(&plain, 64 * 1024); /* the size was wrong: go on */
		z.next_out = (unsigned char *)plain.buf + plain.len;
		z.avail_out = (uInt)(plain.alloc - plain.len - 1);
		zr = inflate(&z, Z_NO_FLUSH);
		strbuf_setlen(&plain, (size_t)((char *)z.next_out - plain.buf));
		if (plain.len - head > max) {
			too_big = true;
			break;
		}
		if (zr == Z_BUF_ERROR && !z.avail_in)
			break;
		if (zr == Z_BUF_ERROR)
			zr = Z_OK; /* room was short: grow and go on */
	}
	if (too_big)
		err_set(err, ERR_PARSE, "facts: the compressed part grows past %zu bytes", max);
	else if (zr == Z_STREAM_END && z.avail_in)
		err_set(err, ERR_PARSE, "facts: %u bytes after the end of the compressed part",
			z.avail_in);
	else if (zr != Z_STREAM_END)
		err_set(err, ERR_PARSE, "facts: the compressed part %s (byte %lu of %zu)",
			zr == Z_BUF_ERROR ? "ends early (output cut?)" : "is corrupt",
			z.total_in, gzlen);
	inflateEnd(&z);
	if (too_big || zr != Z_STREAM_END || z.avail_in) {
		strbuf_release(&plain);
		return ERR_PARSE;
	}
	strbuf_release(out);
	*out = plain;
	return 0;
}

/* Sections named "<fact> <hca>/<port>" (one per expected port, facts.sh)
 * go through the parser named by their prefix. */
static const struct {
	const char *prefix, *parser;
} port_fact_parsers[] = {
	{ "perfquery-a ", "perfquery" },
	{ "perfquery-b ", "perfquery" },
};

static void facts_parse_per_port(struct host_facts *hf)
{
	const char *name;
	json_t *sec;

	json_object_foreach(hf->raw, name, sec) {
		for (size_t i = 0; i < sizeof(port_fact_parsers) / sizeof(port_fact_parsers[0]); i++) {
			const struct parser *p = parser_lookup(port_fact_parsers[i].parser);
			const char *out = json_string_value(json_object_get(sec, "output"));
			struct err e = ERR_INIT;
			json_t *j = NULL;

			if (strncmp(name, port_fact_parsers[i].prefix,
				    strlen(port_fact_parsers[i].prefix)) ||
			    !p || !out || !*out ||
			    json_integer_value(json_object_get(sec, "rc")) == 127)
				continue;
			if (p->fn(out, strlen(out), &j, &e))
				json_object_set_new(hf->parse_errors, name, json_string(err_msg(&e)));
			else
				json_object_set_new(hf->parsed, name, j);
			err_clear(&e);
		}
	}
}

static bool gpfs_row_wanted(const struct inventory *inv, const struct host *h, const char *name)
{
	const struct strlist *q = &inv->groups[ROLE_SCALE_QUORUM].hosts;
	size_t n;

	if (!name)
		return false;
	n = strcspn(name, ".");
	if (strlen(h->name) == n && !strncmp(name, h->name, n))
		return true;
	for (size_t i = 0; i < q->n; i++)
		if (strlen(q->v[i]) == n && !strncmp(name, q->v[i], n))
			return true;
	return false;
}

/*
 * GPFS tables list every node of the cluster on every node: kept whole,
 * 256 hosts would hold 256 x 256 rows. A host keeps its own row and the
 * quorum nodes' (what the scale checks read).
 */
static void prune_gpfs(const struct inventory *inv, const struct host *h, struct host_facts *hf)
{
	json_t *st = json_object_get(json_object_get(hf->parsed, "mmgetstate"), "nodes");
	json_t *fss = json_object_get(json_object_get(hf->parsed, "mmlsmount"), "filesystems");
	json_t *fs;
	size_t i;

	for (i = json_array_size(st); i-- > 0;)
		if (!gpfs_row_wanted(inv, h, json_string_value(json_object_get(json_array_get(st, i), "name"))))
			json_array_remove(st, i);
	json_array_foreach(fss, i, fs) {
		json_t *nodes = json_object_get(fs, "nodes");
		for (size_t k = json_array_size(nodes); k-- > 0;) {
			const char *nm = json_string_value(json_object_get(json_array_get(nodes, k), "node"));
			size_t n = nm ? strcspn(nm, ".") : 0;
			if (!nm || strlen(h->name) != n || strncmp(nm, h->name, n))
				json_array_remove(nodes, k);
		}
	}
}

/* The fabric reading, kept compact (parse-iblinkinfo.h). */
static void facts_parse_fabric(struct host_facts *hf)
{
	json_t *sec = json_object_get(hf->raw, "iblinkinfo");
	const char *out = json_string_value(json_object_get(sec, "output"));
	struct err e = ERR_INIT;

	if (!out || !*out || json_integer_value(json_object_get(sec, "rc")) == 127)
		return;
	if (iblinkinfo_read(out, strlen(out), &hf->fabric, &e))
		json_object_set_new(hf->parse_errors, "iblinkinfo", json_string(err_msg(&e)));
	else
		json_object_del(sec, "output");
	err_clear(&e);
}

/*
 * Every section with a parser, parsed. With inv and h, a GPFS table is cut
 * to the rows h's checks read as soon as it is parsed, before the next:
 * on a 1,000-node cluster each is a tree of some 1,000 rows.
 */
static void parse_all(struct host_facts *hf, const struct inventory *inv, const struct host *h)
{
	hf->parsed = json_object();
	hf->parse_errors = json_object();
	for (size_t i = 0; i < sizeof(fact_parsers) / sizeof(fact_parsers[0]); i++) {
		const struct parser *p = parser_lookup(fact_parsers[i].parser);
		json_t *sec = json_object_get(hf->raw, fact_parsers[i].fact), *j = NULL;
		struct err e = ERR_INIT;
		const char *out;
		int rc;

		if (!p || !sec)
			continue;
		rc = (int)json_integer_value(json_object_get(sec, "rc"));
		out = json_string_value(json_object_get(sec, "output"));
		/* Tools that report their own failure (sminfo) still parse. */
		if (rc == 127 || !out || !*out)
			continue;
		if (p->fn(out, strlen(out), &j, &e))
			json_object_set_new(hf->parse_errors, fact_parsers[i].fact,
					    json_string(err_msg(&e)));
		else {
			json_object_set_new(hf->parsed, fact_parsers[i].fact, j);
			/* Parsed is enough; keeping the text too doubles a host's facts. */
			json_object_del(sec, "output");
			if (inv && (!strcmp(fact_parsers[i].fact, "mmgetstate") ||
				    !strcmp(fact_parsers[i].fact, "mmlsmount")))
				prune_gpfs(inv, h, hf);
		}
		err_clear(&e);
	}
	facts_parse_per_port(hf);
	facts_parse_fabric(hf);
}

void facts_parse(struct host_facts *hf)
{
	parse_all(hf, NULL, NULL);
}

static bool named_in(const char *const *names, const char *name)
{
	for (; *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

/* Deleting while iterating: json_object_foreach_safe. */
static void keep_only(json_t *o, const char *const *keep)
{
	const char *name;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(o, tmp, name, v)
		if (!named_in(keep, name))
			json_object_del(o, name);
}

void facts_keep_only(struct host_facts *hf, const char *const *keep)
{
	keep_only(hf->raw, keep);
	keep_only(hf->parsed, keep);
	keep_only(hf->parse_errors, keep);
	if (!named_in(keep, "iblinkinfo")) {
		iblinkinfo_free(hf->fabric);
		hf->fabric = NULL;
	}
}

const struct host_facts *facts_for(const struct facts *f, size_t host)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->h[i].host == host)
			return &f->h[i];
	return NULL;
}

const char *fact_output(const struct host_facts *hf, const char *name, int *ret_rc)
{
	json_t *sec = hf && hf->raw ? json_object_get(hf->raw, name) : NULL;

	if (ret_rc)
		*ret_rc = sec ? (int)json_integer_value(json_object_get(sec, "rc")) : -1;
	return sec ? json_string_value(json_object_get(sec, "output")) : NULL;
}

json_t *fact_parsed(const struct host_facts *hf, const char *name)
{
	return hf && hf->parsed ? json_object_get(hf->parsed, name) : NULL;
}

/* Which optional families a host needs, from its roles and hardware. */
static void families(const struct host *h, struct strbuf *sb)
{
	unsigned ib_roles = (1u << ROLE_GPU_WORKER) | (1u << ROLE_SCALE_CLIENT) |
			    (1u << ROLE_NSD_SERVER) | (1u << ROLE_SM_HOST);
	unsigned scale_roles = (1u << ROLE_SCALE_CLIENT) | (1u << ROLE_SCALE_QUORUM) |
			       (1u << ROLE_SCALE_MANAGER) | (1u << ROLE_NSD_SERVER);

	if (h->nhcas || (h->roles & ib_roles))
		strbuf_addstr(sb, "ib ");
	if (h->gpus.count || (h->roles & (1u << ROLE_GPU_WORKER)))
		strbuf_addstr(sb, "gpu ");
	if (h->roles & scale_roles)
		strbuf_addstr(sb, "scale ");
	strbuf_rtrim(sb);
}

void facts_script(struct strbuf *out)
{
	/* The memlock stage's reading of limits.d, so both agree on a login's limit. */
	strbuf_addf(out, "pam_memlock() {\n%s\n}\n%s%s",
		    template_get("memlock/pam-memlock.sh", NULL),
		    template_get("precheck/ssh-peer.sh", NULL),
		    template_get("precheck/facts.sh", NULL));
}

/*
 * mpirun's launcher (the first GPU host gathered) must log in to every other
 * GPU host by itself: its fact ssh-peer tries them (check ssh.peer), at most
 * PEER_SAMPLE spread evenly over the list, so that the one round trip stays
 * within its time on a large cluster (validate tries every peer it uses).
 * NULL when fewer than two GPU hosts are gathered. Caller frees.
 */
#define PEER_SAMPLE 16
static char *peers_env(const struct inventory *inv, const size_t *idx, size_t n,
		       size_t *ret_launcher)
{
	struct strbuf sb = STRBUF_INIT;
	size_t first = n, npeers = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		if (inv->hosts[idx[i]].gpus.count)
			npeers++;
	npeers -= npeers > 0;
	for (size_t i = 0; i < n; i++) {
		const struct host *h = &inv->hosts[idx[i]];

		if (!h->gpus.count)
			continue;
		if (first == n) {
			first = i;
			strbuf_addstr(&sb, "BRINGUP_PEERS=");
			continue;
		}
		/* peer k of npeers is tried when it starts a new 1/PEER_SAMPLE */
		if (npeers <= PEER_SAMPLE || k * PEER_SAMPLE / npeers != (k + 1) * PEER_SAMPLE / npeers)
			strbuf_addf(&sb, "%s%s:%u", sb.buf[sb.len - 1] == '=' ? "" : " ", h->name,
				    h->ssh.port);
		k++;
	}
	*ret_launcher = first;
	if (first == n || sb.buf[sb.len - 1] == '=') {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * The expected HCA ports ("mlx5_0/1 mlx5_1/1") whose counters facts.sh
 * reads twice, and the seconds between the reads (host var
 * ib_counter_interval_s, default 1, at most 60): a count that rises in
 * between is a link failing now, one that does not is history.
 */
static void ib_ports_env(const struct host *h, struct strbuf *ports, struct strbuf *interval)
{
	json_t *v = json_object_get(h->vars, "ib_counter_interval_s");
	double s = json_is_number(v) ? json_number_value(v) : 1.0;

	if (!(s >= 0.0) || s > 60.0)
		s = 1.0;
	strbuf_addstr(ports, "BRINGUP_IB_PORTS=");
	for (size_t i = 0; i < h->nhcas; i++)
		strbuf_addf(ports, "%s%s/%u", i ? " " : "", h->hcas[i].name, h->hcas[i].port);
	strbuf_addf(interval, "BRINGUP_IB_INTERVAL=%g", s);
}

/*
 * A host's facts run to some 100 KB, more where GPFS lists a large cluster's
 * nodes: 64 hosts in flight held them all while their scripts ran. stdout
 * goes to an unlinked temporary file instead, read back once the command
 * is over and its session gone. stderr is dropped, as it was unread
 * before: facts.sh sends each tool's into its section (2>&1). Without a
 * file, or once a write to it fails ($TMPDIR full), the output is held in
 * memory, as exec's fold does (fold.c).
 */
struct spill {
	int fd;
	off_t len;            /* in the file */
	bool in_memory;       /* a write failed: what the file had, and the rest, in mem */
	int lost_errno;       /* not even the file's part could be read back */
	struct strbuf mem;
};

static void spill_sink(void *arg, int stream, const char *buf, size_t len)
{
	struct spill *s = arg;

	if (stream || s->lost_errno)
		return;
	if (!s->in_memory) {
		if (!tmpfile_write(s->fd, buf, len, s->len)) {
			s->len += (off_t)len;
			return;
		}
		s->in_memory = true;
		strbuf_grow(&s->mem, (size_t)s->len);
		if (tmpfile_read(s->fd, s->mem.buf, (size_t)s->len, 0)) {
			s->lost_errno = errno ? errno : EIO;
			return;
		}
		strbuf_setlen(&s->mem, (size_t)s->len);
	}
	strbuf_add(&s->mem, buf, len);
}

struct gather {
	const struct inventory *inv;
	struct host_facts *hf;
	bool disconnect;
	bool fabric;   /* this host reads the whole fabric (iblinkinfo) */
	bool deep;     /* FACTS_DEEP: the GPU diagnostics too */
	char *peers;   /* BRINGUP_PEERS=NAME:PORT... on the launcher; owned */
	const struct strbuf *script; /* facts_script(), one for every host */
	/* What the worker hands the caller's thread (finish_host): the
	 * output, in spill or (without a file) in out; when it started. */
	bool have_output;
	struct spill spill;
	struct strbuf out;
	double first_output_s, start_wall_s;
};

static void spill_release(struct spill *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	strbuf_release(&s->mem);
}

/* The output back in g->out, or an error naming the host. */
static int spill_back(struct gather *g, const struct host *h, struct err *err)
{
	struct spill *s = &g->spill;
	int e = s->lost_errno;

	if (s->fd < 0)
		return 0;
	if (s->in_memory && !e) {
		strbuf_release(&g->out);
		g->out = s->mem;
		strbuf_init(&s->mem, 0);
	} else if (!e && tmpfile_read_all(s->fd, &g->out)) {
		e = errno ? errno : EIO;
	}
	if (e)
		return err_set(err, ERR_IO, "host %s: facts could not be read back from their "
			       "temporary file in %s: %s", h->name, tmpfile_dir(), strerror(e));
	return 0;
}

/*
 * On the caller's thread, as a host's end is taken: its output split into
 * sections and parsed (hf), the clock skew read; an error names the host.
 * One host at a time holds its trees between here and the caller's
 * on_host (precheck judges and drops them there).
 */
static int finish_host(struct gather *g, const struct host *h, struct err *err)
{
	struct host_facts *hf = g->hf;
	int rc;

	g->have_output = false;
	if ((rc = spill_back(g, h, err)))
		goto out;
	if ((rc = facts_inflate(&g->out, FACTS_MAX_PLAIN, err))) {
		err_prefix(err, "host %s: ", h->name);
		goto out;
	}
	rc = facts_split(g->out.buf, g->out.len, &hf->raw, err);
	/* Split, the text is in hf->raw: its buffer goes before the parsers
	 * add theirs. */
	strbuf_release(&g->out);
	if (rc) {
		err_prefix(err, "host %s: ", h->name);
		goto out;
	}
	{
		const char *d = fact_output(hf, "date", NULL);
		if (d && *d && g->first_output_s >= 0) {
			/* The host read its clock after we sent the command
			 * (connecting comes before, and does not count) and
			 * before its first byte reached us: the skew lies in
			 * that window, whose middle is the estimate. */
			double half = g->first_output_s / 2.0;

			hf->clock_skew_s = strtod(d, NULL) - (g->start_wall_s + half);
			hf->clock_skew_err_s = half;
			hf->have_skew = true;
		}
	}
	parse_all(hf, g->inv, h);
out:
	spill_release(&g->spill);
	strbuf_release(&g->out);
	return rc;
}

static int gather_task(struct task_ctx *t, void *arg)
{
	struct gather *g = arg;
	struct host_facts *hf = g->hf;
	const struct host *h = task_host(t, 0);
	struct strbuf fam = STRBUF_INIT, envv = STRBUF_INIT, userv = STRBUF_INIT;
	struct strbuf namev = STRBUF_INIT;
	struct strbuf portsv = STRBUF_INIT, intv = STRBUF_INIT;
	char *env[12] = { NULL };
	size_t ne = 0;
	char limitv[40];
	char fabricv[] = "BRINGUP_FABRIC=1", deepv[] = "BRINGUP_DEEP=1";
	char gzipv[] = "BRINGUP_GZIP=1";
	struct remote_cmd cmd = { .command = "sh -s", .env = env };
	struct cmd_result res;
	int rc;

	g->spill = (struct spill){ .fd = tmpfile_open(), .mem = STRBUF_INIT };
	if (g->spill.fd >= 0) {
		cmd.sink = spill_sink;
		cmd.sink_arg = &g->spill;
	}

	families(h, &fam);
	strbuf_addf(&envv, "BRINGUP_FACTS=%s", fam.buf);
	strbuf_addf(&userv, "BRINGUP_USER=%s", h->ssh.user);
	/* Packed: the first NULL ends the list. */
	env[ne++] = envv.buf;
	env[ne++] = userv.buf;
	strbuf_addf(&namev, "BRINGUP_NAME=%s", h->name);
	env[ne++] = namev.buf;
	ib_ports_env(h, &portsv, &intv);
	env[ne++] = portsv.buf;
	env[ne++] = intv.buf;
	if (g->fabric)
		env[ne++] = fabricv;
	if (g->deep)
		env[ne++] = deepv;
	env[ne++] = gzipv;
	if (g->peers) {
		/* A hung peer must cost the launcher a third of its own limit at
		 * most, not its facts: it would show as unreachable itself. */
		unsigned limit = task_command_timeout(t) / 3;

		env[ne++] = g->peers;
		snprintf(limitv, sizeof(limitv), "BRINGUP_PEER_LIMIT=%u",
			 limit < 2 ? 2 : limit > 15 ? 15 : limit);
		env[ne++] = limitv;
	}
	cmd.input = g->script->buf;
	cmd.input_len = g->script->len;
	cmd_result_init(&res);
	rc = task_exec(t, 0, &cmd, &res, task_err(t));
	/* The output is in: the session and its buffers (libssh's, some
	 * 200 KB) go before the facts are split and parsed. */
	if (g->disconnect)
		task_disconnect(t, 0);
	if (rc)
		goto out;
	hf->round_trip_s = res.duration_s;
	hf->login_s = res.first_output_s >= 0 ? res.first_output_s : res.duration_s;
	if (res.outcome == CMD_TIMED_OUT) {
		hf->timed_out = true;
		rc = err_set(task_err(t), ERR_TIMEOUT,
			     "host %s: gathering facts timed out after %.0f s", h->name,
			     res.duration_s);
		goto out;
	}
	if (res.outcome == CMD_CANCELLED) {
		rc = err_set(task_err(t), ERR_CANCELLED, "host %s: cancelled (interrupted) while "
			     "gathering facts", h->name);
		goto out;
	}
	if (res.outcome != CMD_EXITED) {
		rc = err_set(task_err(t), ERR_SSH, "host %s: connection lost while gathering facts",
			     h->name);
		goto out;
	}
	/* The output is all the worker keeps: the caller's thread turns it
	 * into facts when it takes the host's end (finish_host), one host at
	 * a time. Parsed here, every host in flight would hold its trees
	 * until then (256 hosts: some 30 MB of them). */
	g->have_output = true;
	g->first_output_s = res.first_output_s;
	g->start_wall_s = res.start_wall_s;
	if (g->spill.fd < 0) {
		g->out = res.out;
		strbuf_init(&res.out, 0);
	}
out:
	cmd_result_release(&res);
	if (!g->have_output)
		spill_release(&g->spill);
	strbuf_release(&fam);
	strbuf_release(&envv);
	strbuf_release(&userv);
	strbuf_release(&namev);
	strbuf_release(&portsv);
	strbuf_release(&intv);
	return rc;
}

/* The runner's events as the stream's: a host starts, a host is done. */
struct gather_events {
	const struct inventory *inv;
	const size_t *idx;
	struct task *tasks;
	struct gather *g;
	struct facts *f;
	dep_event_fn cb;      /* may be NULL */
	void *arg;
	facts_host_fn on_host; /* may be NULL */
	void *host_arg;
	size_t stage;
	const char *stage_name;
};

/* The task's outcome becomes the host's (err moves), once. */
static void host_done(struct task *t, struct host_facts *hf)
{
	hf->rc = t->rc;
	hf->err = t->err;
	t->err.msg = NULL;
}

static void on_gather_event(const struct event *ev, void *arg)
{
	struct gather_events *ge = arg;
	struct task *t = &ge->tasks[ev->task];
	struct dep_event de = { .stage = ge->stage, .stage_name = ge->stage_name,
				.host = ge->inv->hosts[ge->idx[ev->task]].name, .t = ev->t };

	if (!ge->cb && ev->kind != EV_TASK_DONE)
		return;
	if (ev->kind == EV_TASK_DONE && ge->g[ev->task].have_output && !t->rc)
		t->rc = finish_host(&ge->g[ev->task], &ge->inv->hosts[ge->idx[ev->task]], &t->err);

	if (ev->kind == EV_TASK_START) {
		de.kind = DEV_HOST_START;
	} else if (ev->kind == EV_TASK_DONE) {
		de.kind = DEV_HOST_DONE;
		de.duration_s = t->duration_s;
		de.result = !t->rc ? RES_OK : t->rc == ERR_CONNECT || t->rc == ERR_HOSTKEY ||
			    t->rc == ERR_AUTH ? RES_UNREACHABLE : RES_FAILED;
		de.reason = t->rc ? err_msg(&t->err) : NULL;
	} else {
		de.kind = DEV_OUTPUT;
		de.msg = ev->msg;
	}
	if (ge->cb)
		ge->cb(&de, ge->arg);
	if (ev->kind == EV_TASK_DONE) {
		host_done(t, &ge->f->h[ev->task]);
		if (ge->on_host)
			ge->on_host(&ge->f->h[ev->task], ge->host_arg);
	}
}

static int gather(struct runner *r, const struct inventory *inv, const size_t *idx,
		  size_t n, bool disconnect, unsigned flags, struct gather_events *ge,
		  struct facts **ret)
{
	struct gather_events none = { 0 };
	struct facts *f = xcalloc(1, sizeof(*f));
	struct task *tasks = xcalloc(n ? n : 1, sizeof(*tasks));
	struct gather *g = xcalloc(n ? n : 1, sizeof(*g));
	struct strbuf script = STRBUF_INIT;

	f->inv = inv;
	f->n = n;
	f->h = xcalloc(n ? n : 1, sizeof(*f->h));
	/* the fabric is read once, from the first host with HCAs */
	size_t fabric = n;

	for (size_t i = 0; i < n && fabric == n; i++)
		if (inv->hosts[idx[i]].nhcas)
			fabric = i;
	size_t launcher;
	char *peers = peers_env(inv, idx, n, &launcher);

	facts_script(&script);

	for (size_t i = 0; i < n; i++) {
		f->h[i].host = idx[i];
		g[i] = (struct gather){ inv, &f->h[i], disconnect, i == fabric,
					!!(flags & FACTS_DEEP), i == launcher ? peers : NULL,
					.script = &script, .spill = { .fd = -1, .mem = STRBUF_INIT },
					.out = STRBUF_INIT };
		tasks[i] = (struct task){ .hosts = &idx[i], .nhosts = 1,
					  .fn = gather_task, .arg = &g[i] };
	}
	if (!ge)
		ge = &none;
	ge->tasks = tasks;
	ge->g = g;
	ge->idx = idx;
	ge->inv = inv;
	ge->f = f;
	/* Every task ends with EV_TASK_DONE, where its outcome moves to f. */
	runner_run(r, tasks, n, on_gather_event, ge);
	for (size_t i = 0; i < n; i++) {
		/* every end was taken, so none is left; but never an fd */
		spill_release(&g[i].spill);
		strbuf_release(&g[i].out);
	}
	free(tasks);
	free(g);
	free(peers);
	strbuf_release(&script);
	*ret = f;
	return 0;
}

int facts_gather(struct runner *r, const struct inventory *inv, const size_t *idx,
		 size_t n, struct facts **ret, struct err *err)
{
	(void)err;
	return gather(r, inv, idx, n, false, 0, NULL, ret);
}

int facts_gather_once(struct runner *r, const struct inventory *inv, const size_t *idx,
		      size_t n, struct facts **ret, struct err *err)
{
	(void)err;
	return gather(r, inv, idx, n, true, 0, NULL, ret);
}

int facts_gather_once_events(struct runner *r, const struct inventory *inv, const size_t *idx,
			     size_t n, unsigned flags, size_t stage, const char *stage_name,
			     dep_event_fn cb, void *arg, facts_host_fn on_host, void *host_arg,
			     struct facts **ret, struct err *err)
{
	struct gather_events ge = { .cb = cb, .arg = arg, .on_host = on_host,
				    .host_arg = host_arg, .stage = stage,
				    .stage_name = stage_name };

	(void)err;
	return gather(r, inv, idx, n, true, flags, &ge, ret);
}

void facts_free(struct facts *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		err_clear(&f->h[i].err);
		json_decref(f->h[i].raw);
		json_decref(f->h[i].parsed);
		json_decref(f->h[i].parse_errors);
		iblinkinfo_free(f->h[i].fabric);
	}
	free(f->h);
	free(f);
}

json_t *facts_to_json(const struct facts *f)
{
	json_t *hosts = json_object();

	for (size_t i = 0; i < f->n; i++) {
		const struct host_facts *hf = &f->h[i];
		json_t *o = json_object();

		if (hf->rc)
			json_object_set_new(o, "error", json_string(err_msg(&hf->err)));
		json_object_set_new(o, "round_trip_s", json_real(hf->round_trip_s));
		if (hf->have_skew) {
			json_object_set_new(o, "clock_skew_s", json_real(hf->clock_skew_s));
			json_object_set_new(o, "clock_skew_err_s", json_real(hf->clock_skew_err_s));
		}
		if (hf->raw)
			json_object_set(o, "raw", hf->raw);
		if (hf->parsed && hf->fabric) {
			json_t *p = json_copy(hf->parsed);

			json_object_set_new(p, "iblinkinfo", iblinkinfo_json(hf->fabric));
			json_object_set_new(o, "parsed", p);
		} else if (hf->parsed) {
			json_object_set(o, "parsed", hf->parsed);
		}
		if (hf->parse_errors && json_object_size(hf->parse_errors))
			json_object_set(o, "parse_errors", hf->parse_errors);
		json_object_set_new(hosts, f->inv->hosts[hf->host].name, o);
	}
	return json_pack("{s:o}", "hosts", hosts);
}
