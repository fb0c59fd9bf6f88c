/*
 * The TUI's model (model.h): cells from events, rows from cells.
 */
#include "model.h"
#include "../engine/base/nodeset.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cstate_name(enum cstate s)
{
	static const char *const names[] = { "none", "pending", "running", "ok", "changed",
		"failed", "skipped", "unreachable", "not here" };

	return s < CS__COUNT ? names[s] : "?";
}

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

void model_init(struct model *m, const struct run_info *ri)
{
	*m = (struct model){ 0 };
	m->cluster = xstrdup(ri->cluster ? ri->cluster : "?");
	m->playbook = xstrdup(ri->playbook ? ri->playbook : "?");
	m->run_dir = ri->run_dir ? xstrdup(ri->run_dir) : NULL;
	for (size_t i = 0; i < ri->nstages; i++)
		strlist_push(&m->stages, ri->stages[i]);
	for (size_t i = 0; i < ri->nhosts; i++)
		strlist_push(&m->hosts, ri->hosts[i]);
	m->nst = ri->nstages;
	m->nh = ri->nhosts;
	m->cells = xcalloc(m->nh * m->nst + 1, sizeof(*m->cells));
	m->stage_count = xcalloc(m->nst * CS__COUNT + 1, sizeof(*m->stage_count));
	m->dry_run = ri->dry_run;
	m->stage_t0 = xcalloc(m->nst + 1, sizeof(*m->stage_t0));
	m->control = xcalloc(m->nh + 1, sizeof(*m->control));
	for (size_t s = 0; s < m->nst; s++)
		m->stage_t0[s] = -1;
	m->count[CS_NONE] = m->nh * m->nst;
	for (size_t s = 0; s < m->nst; s++)
		m->stage_count[s * CS__COUNT + CS_NONE] = m->nh;
	m->hcap = 16;
	while (m->hcap < 2 * m->nh)
		m->hcap *= 2;
	m->hidx = xcalloc(m->hcap, sizeof(*m->hidx));
	for (size_t i = 0; i < m->nh; i++) {
		size_t k = hash(m->hosts.v[i]) & (m->hcap - 1);

		while (m->hidx[k])
			k = (k + 1) & (m->hcap - 1);
		m->hidx[k] = i + 1;
	}
}

void model_release(struct model *m)
{
	for (size_t i = 0; i < m->nh * m->nst; i++) {
		free(m->cells[i].reason);
		free(m->cells[i].hint);
		strlist_clear(&m->cells[i].out);
		strlist_clear(&m->cells[i].changes);
	}
	for (size_t i = 0; m->control && i < m->nh; i++)
		free(m->control[i]);
	free(m->control);
	free(m->last_control);
	free(m->cells);
	free(m->stage_t0);
	free(m->stage_count);
	free(m->hidx);
	strlist_clear(&m->stages);
	strlist_clear(&m->hosts);
	free(m->cluster);
	free(m->playbook);
	free(m->run_dir);
	*m = (struct model){ 0 };
}

long model_host(const struct model *m, const char *name)
{
	size_t k;

	if (!name || !m->hcap)
		return -1;
	for (k = hash(name) & (m->hcap - 1); m->hidx[k]; k = (k + 1) & (m->hcap - 1))
		if (!strcmp(m->hosts.v[m->hidx[k] - 1], name))
			return (long)m->hidx[k] - 1;
	return -1;
}

struct mcell *model_cell(const struct model *m, size_t host, size_t stage)
{
	return &m->cells[host * m->nst + stage];
}

static void set_state(struct model *m, size_t h, size_t s, enum cstate st)
{
	struct mcell *c = model_cell(m, h, s);

	m->count[c->st]--;
	m->stage_count[s * CS__COUNT + c->st]--;
	c->st = (unsigned char)st;
	m->count[st]++;
	m->stage_count[s * CS__COUNT + st]++;
}

static enum cstate from_result(enum host_result r)
{
	switch (r) {
	case RES_OK: return CS_OK;
	case RES_CHANGED: return CS_CHANGED;
	case RES_FAILED: return CS_FAILED;
	case RES_SKIPPED: return CS_SKIPPED;
	case RES_UNREACHABLE: return CS_UNREACHABLE;
	default: return CS_NONE;
	}
}

static void replace(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? xstrdup(src) : NULL;
}

/* A stage starts (again, on a retry): its hosts are pending, their old result gone. */
static void stage_start(struct model *m, size_t s, const char *set)
{
	struct strlist names = STRLIST_INIT;
	struct err err = ERR_INIT;

	if (set && !nodeset_expand(set, &names, &err)) {
		for (size_t i = 0; i < names.n; i++) {
			long h = model_host(m, names.v[i]);
			struct mcell *c;

			if (h < 0)
				continue;
			c = model_cell(m, (size_t)h, s);
			set_state(m, (size_t)h, s, CS_PENDING);
			replace(&c->reason, NULL);
			replace(&c->hint, NULL);
			strlist_clear(&c->out);
			c->out_dropped = 0;
			c->nchanges = 0;
			strlist_clear(&c->changes);
			c->dur = 0;
		}
	}
	err_clear(&err);
	strlist_clear(&names);
}

static void add_output(struct mcell *c, const char *msg)
{
	if (c->out.n >= MODEL_OUTPUT_LINES) {
		free(c->out.v[0]);
		memmove(c->out.v, c->out.v + 1, (c->out.n - 1) * sizeof(*c->out.v));
		c->out.n--;
		c->out.v[c->out.n] = NULL;
		c->out_dropped++;
	}
	strlist_push(&c->out, msg);
}

void model_apply(struct model *m, const struct dep_event *ev)
{
	long h = model_host(m, ev->host);
	struct mcell *c;

	m->generation++;
	if (ev->t > m->t)
		m->t = ev->t;
	if (ev->kind == DEV_CONTROL) {
		/* said, not done yet: the cells change with the events that follow */
		if (h >= 0 && ev->msg) {
			replace(&m->control[h], ev->msg);
			free(m->last_control);
			m->last_control = xasprintf("%s: %s", ev->host, ev->msg);
		}
		return;
	}
	if (ev->kind == DEV_RUN_DONE) {
		m->done = true;
		m->interrupted = ev->interrupted;
		/* Nothing runs any more: what never finished stays pending. */
		for (size_t i = 0; i < m->nh * m->nst; i++)
			if (m->cells[i].st == CS_RUNNING)
				set_state(m, i / m->nst, i % m->nst, CS_PENDING);
		return;
	}
	m->done = false;
	if (ev->stage >= m->nst)
		return;
	if (ev->kind == DEV_STAGE_START) {
		m->stage_t0[ev->stage] = ev->t;
		stage_start(m, ev->stage, ev->hosts);
		return;
	}
	if (ev->kind == DEV_STAGE_DONE) {
		/* Every host the stage ran on has its result now (deploy reports
		 * skipped and interrupted hosts too): a host still pending is one a
		 * run-once stage did not need. */
		for (size_t i = 0; i < m->nh; i++)
			if (model_cell(m, i, ev->stage)->st == CS_PENDING)
				set_state(m, i, ev->stage, CS_NOTHERE);
		return;
	}
	if (h < 0)
		return;
	c = model_cell(m, (size_t)h, ev->stage);
	switch (ev->kind) {
	case DEV_HOST_START:
		set_state(m, (size_t)h, ev->stage, CS_RUNNING);
		c->t_start = ev->t;
		c->limit_s = ev->limit_s;
		break;
	case DEV_OUTPUT:
		if (ev->msg)
			add_output(c, ev->msg);
		break;
	case DEV_HOST_DONE:
		set_state(m, (size_t)h, ev->stage, from_result(ev->result));
		replace(&c->reason, ev->reason);
		replace(&c->hint, ev->hint);
		c->nchanges = ev->changes ? ev->changes->n : 0;
		strlist_clear(&c->changes);
		for (size_t i = 0; i < c->nchanges; i++)
			strlist_push(&c->changes, ev->changes->v[i]);
		c->dur = ev->duration_s;
		break;
	default:
		break;
	}
}

enum cstate model_host_state(const struct model *m, size_t host)
{
	/* worst first */
	static const unsigned char rank[CS__COUNT] = { [CS_UNREACHABLE] = 8, [CS_FAILED] = 7,
		[CS_RUNNING] = 6, [CS_PENDING] = 5, [CS_CHANGED] = 4, [CS_OK] = 3,
		[CS_SKIPPED] = 2, [CS_NOTHERE] = 1 };
	enum cstate worst = CS_NONE;

	for (size_t s = 0; s < m->nst; s++) {
		enum cstate st = (enum cstate)model_cell(m, host, s)->st;

		if (rank[st] > rank[worst])
			worst = st;
	}
	/* a host that only a run-once stage passed by has nothing to show */
	return worst == CS_NOTHERE ? CS_NONE : worst;
}

void model_host_counts(const struct model *m, size_t *ret)
{
	for (size_t s = 0; s < CS__COUNT; s++)
		ret[s] = 0;
	for (size_t h = 0; h < m->nh; h++)
		ret[model_host_state(m, h)]++;
}

void model_stage_progress(const struct model *m, size_t stage, size_t *ret_done,
			  size_t *ret_total)
{
	const size_t *c = &m->stage_count[stage * CS__COUNT];
	size_t total = m->nh - c[CS_NONE] - c[CS_NOTHERE];

	*ret_total = total;
	*ret_done = total - c[CS_PENDING] - c[CS_RUNNING];
}

double model_stage_eta(const struct model *m, size_t stage, double now)
{
	size_t done, total;
	double spent;

	model_stage_progress(m, stage, &done, &total);
	if (!done || done >= total || m->stage_t0[stage] < 0 || m->done)
		return -1;
	spent = now - m->stage_t0[stage];
	if (spent <= 0)
		return -1;
	return spent / (double)done * (double)(total - done);
}

static char *abbrev_one(const char *name, size_t w)
{
	struct strbuf sb = STRBUF_INIT;
	const char *last = name, *p;
	size_t words = 1;
	bool dots = w >= 7;

	if (strlen(name) <= w)
		return xstrdup(name);
	for (p = name; *p; p++)
		if ((*p == '_' || *p == '-') && p[1])
			words++, last = p + 1;
	if (words == 1 || (words - 1) * (dots ? 2 : 1) >= w) {
		strbuf_add(&sb, name, w);
		return strbuf_detach(&sb, NULL);
	}
	/* initials of every word but the last */
	for (p = name; p < last; p++)
		if (p == name || p[-1] == '_' || p[-1] == '-') {
			strbuf_add(&sb, p, 1);
			if (dots)
				strbuf_addstr(&sb, ".");
		}
	strbuf_add(&sb, last, strlen(last) < w - sb.len ? strlen(last) : w - sb.len);
	return strbuf_detach(&sb, NULL);
}

void model_abbrev(char *const *names, size_t n, size_t width, struct strlist *ret)
{
	if (width < 1)
		width = 1;
	strlist_clear(ret);
	for (size_t i = 0; i < n; i++)
		strlist_push_owned(ret, abbrev_one(names[i], width));
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		for (size_t j = 0; j < n && !dup; j++)
			dup = j != i && !strcmp(ret->v[i], ret->v[j]);
		if (!dup)
			continue;
		/* the later ones of a clash get a number (the first keeps its name) */
		for (size_t j = i + 1; j < n; j++) {
			if (strcmp(ret->v[i], ret->v[j]))
				continue;
			for (unsigned k = 1;; k++) {
				char num[16];
				size_t nl = (size_t)snprintf(num, sizeof(num), "%u", k);
				size_t keep = width > nl ? width - nl : 0;
				char *cand = xasprintf("%.*s%s", (int)keep, names[j], num);
				bool taken = false;

				for (size_t x = 0; x < n && !taken; x++)
					taken = x != j && !strcmp(ret->v[x], cand);
				if (!taken) {
					free(ret->v[j]);
					ret->v[j] = cand;
					break;
				}
				free(cand);
			}
		}
	}
}

bool model_host_failed(const struct model *m, size_t host)
{
	for (size_t s = 0; s < m->nst; s++) {
		unsigned char st = model_cell(m, host, s)->st;

		if (st == CS_FAILED || st == CS_UNREACHABLE)
			return true;
	}
	return false;
}

char *model_signature(const struct model *m, size_t host)
{
	char *sig = xmalloc(m->nst + 1);

	for (size_t s = 0; s < m->nst; s++)
		sig[s] = (char)('a' + model_cell(m, host, s)->st);
	sig[m->nst] = '\0';
	return sig;
}

/* The filter: a node set when it expands to names we know, else text. */
struct filter {
	const char *text;
	bool *in;               /* per host, when a node set */
};

static void filter_init(const struct model *m, const char *text, struct filter *f)
{
	struct strlist names = STRLIST_INIT;
	struct err err = ERR_INIT;
	size_t known = 0;

	*f = (struct filter){ text && *text ? text : NULL, NULL };
	if (!f->text)
		return;
	if (!nodeset_expand(text, &names, &err)) {
		bool *in = xcalloc(m->nh + 1, sizeof(*in));

		for (size_t i = 0; i < names.n; i++) {
			long h = model_host(m, names.v[i]);

			if (h >= 0)
				in[h] = true, known++;
		}
		if (known)
			f->in = in;
		else
			free(in);
	}
	err_clear(&err);
	strlist_clear(&names);
}

static bool filter_match(const struct model *m, const struct filter *f, size_t h)
{
	if (!f->text)
		return true;
	if (f->in)
		return f->in[h];
	if (strstr(m->hosts.v[h], f->text))
		return true;
	for (size_t s = 0; s < m->nst; s++) {
		const struct mcell *c = model_cell(m, h, s);

		if (c->reason && strstr(c->reason, f->text))
			return true;
	}
	return false;
}

static void push_row(struct mrow **rows, size_t *n, size_t *alloc, struct mrow r)
{
	if (*n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 64;
		*rows = xrealloc(*rows, *alloc * sizeof(**rows));
	}
	(*rows)[(*n)++] = r;
}

size_t model_rows(const struct model *m, const struct view_opts *vo, struct mrow **ret)
{
	struct filter f;
	size_t *pass = xcalloc(m->nh + 1, sizeof(*pass)), npass = 0, n = 0, alloc = 0;
	struct mrow *rows = NULL;

	filter_init(m, vo->filter, &f);
	for (size_t h = 0; h < m->nh; h++)
		if (filter_match(m, &f, h) && (!vo->failures_only || model_host_failed(m, h)))
			pass[npass++] = h;
	if (!vo->fold_over || npass <= vo->fold_over) {
		for (size_t i = 0; i < npass; i++)
			push_row(&rows, &n, &alloc, (struct mrow){ pass[i], 1,
				 xstrdup(m->hosts.v[pass[i]]), NULL, false, false });
	} else {
		/* Groups of hosts with the same states, in order of first appearance. */
		char **sig = xcalloc(npass + 1, sizeof(*sig));
		bool *used = xcalloc(npass + 1, sizeof(*used));
		char **names = xcalloc(npass + 1, sizeof(*names));

		for (size_t i = 0; i < npass; i++)
			sig[i] = model_signature(m, pass[i]);
		for (size_t i = 0; i < npass; i++) {
			size_t k = 0;
			bool open;

			if (used[i])
				continue;
			for (size_t j = i; j < npass; j++)
				if (!used[j] && !strcmp(sig[i], sig[j])) {
					used[j] = true;
					names[k++] = m->hosts.v[pass[j]];
				}
			open = vo->expanded && strlist_index(vo->expanded, sig[i]) >= 0;
			push_row(&rows, &n, &alloc, (struct mrow){ pass[i], k,
				 nodeset_fold(names, k), xstrdup(sig[i]), open, false });
			for (size_t j = i; open && j < npass; j++)
				if (!strcmp(sig[i], sig[j]))
					push_row(&rows, &n, &alloc, (struct mrow){ pass[j], 1,
						 xstrdup(m->hosts.v[pass[j]]), NULL, false, true });
		}
		for (size_t i = 0; i < npass; i++)
			free(sig[i]);
		free(sig);
		free(used);
		free(names);
	}
	free(f.in);
	free(pass);
	*ret = rows;
	return n;
}

void model_rows_free(struct mrow *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].label);
		free(rows[i].sig);
	}
	free(rows);
}
