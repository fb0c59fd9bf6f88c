/*
 * exec's output fold: one copy per distinct output, large ones in an
 * unlinked spill file. See fold.h.
 */
#include "fold.h"
#include "../base/tmpfile.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct extent {
	off_t off;
	size_t len;
};

/* One stream: in memory while small, else wholly in the spill file. */
struct stream {
	struct strbuf mem;
	struct extent *ext;
	size_t next, aext;
	size_t len;
	uint64_t hash;
	bool spilled;
};

struct fold_out {
	struct fold *f;
	struct stream s[2];
};

struct group {
	struct stream s[2];
	size_t *hosts;
	size_t nhosts, ahosts;
	bool sorted;
};

struct fold {
	pthread_mutex_t lock;  /* creating the spill file */
	int fd;                /* -1 until needed */
	bool fd_failed;
	atomic_llong end;      /* where the next spill goes */
	struct group **g;      /* in order of first host once fold_ngroups sorted them */
	size_t ng, ag;
	bool sorted;
	size_t *group_of;      /* by host pos: index into g + 1; 0: not added */
	size_t npos, apos;
};

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static void stream_init(struct stream *s)
{
	memset(s, 0, sizeof(*s));
	strbuf_init(&s->mem, 0);
	s->hash = FNV_OFFSET;
}

static void stream_release(struct fold *f, struct stream *s, bool punch)
{
	/* Identical copies give their disk space back at once. */
	for (size_t i = 0; punch && f->fd >= 0 && i < s->next; i++)
		fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  s->ext[i].off, (off_t)s->ext[i].len);
	strbuf_release(&s->mem);
	free(s->ext);
}

struct fold *fold_new(void)
{
	struct fold *f = xcalloc(1, sizeof(*f));

	pthread_mutex_init(&f->lock, NULL);
	f->fd = -1;
	atomic_init(&f->end, 0);
	return f;
}

void fold_free(struct fold *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->ng; i++) {
		stream_release(f, &f->g[i]->s[0], false);
		stream_release(f, &f->g[i]->s[1], false);
		free(f->g[i]->hosts);
		free(f->g[i]);
	}
	free(f->g);
	free(f->group_of);
	if (f->fd >= 0)
		close(f->fd);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

struct fold_out *fold_out_new(struct fold *f)
{
	struct fold_out *o = xcalloc(1, sizeof(*o));

	o->f = f;
	stream_init(&o->s[0]);
	stream_init(&o->s[1]);
	return o;
}

void fold_out_free(struct fold_out *o)
{
	if (!o)
		return;
	stream_release(o->f, &o->s[0], true);
	stream_release(o->f, &o->s[1], true);
	free(o);
}

/* The spill file, made on first need (tmpfile.h). */
static int spill_fd(struct fold *f)
{
	pthread_mutex_lock(&f->lock);
	if (f->fd < 0 && !f->fd_failed) {
		f->fd = tmpfile_open();
		f->fd_failed = f->fd < 0;
	}
	pthread_mutex_unlock(&f->lock);
	return f->fd;
}

static int spill_write(struct fold *f, struct stream *s, const char *buf, size_t len)
{
	int fd = spill_fd(f);
	off_t off;

	if (fd < 0)
		return -1;
	off = (off_t)atomic_fetch_add(&f->end, (long long)len);
	if (tmpfile_write(fd, buf, len, off))
		return -1;
	if (s->next && s->ext[s->next - 1].off + (off_t)s->ext[s->next - 1].len == off) {
		s->ext[s->next - 1].len += len;
	} else {
		ALLOC_GROW(s->ext, s->next + 1, s->aext);
		s->ext[s->next++] = (struct extent){ off, len };
	}
	return 0;
}

/* Reads [pos, pos + n) of a stream. 0 or -1 (errno set). */
static int stream_pread(const struct fold *f, const struct stream *s, size_t pos,
			char *buf, size_t n)
{
	if (!s->spilled) {
		memcpy(buf, s->mem.buf + pos, n);
		return 0;
	}
	for (size_t i = 0; i < s->next && n; i++) {
		const struct extent *e = &s->ext[i];

		if (pos >= e->len) {
			pos -= e->len;
			continue;
		}
		size_t want = e->len - pos < n ? e->len - pos : n;

		if (tmpfile_read(f->fd, buf, want, e->off + (off_t)pos))
			return -1;
		buf += want;
		n -= want;
		pos = 0;
	}
	return n ? (errno = EIO, -1) : 0;
}

/* A spill that failed part-way: the stream goes back to memory, whole. */
static void unspill(struct fold *f, struct stream *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_grow(&sb, s->len);
	if (s->len && stream_pread(f, s, 0, sb.buf, s->len) == 0)
		strbuf_setlen(&sb, s->len);
	stream_release(f, s, true);
	s->ext = NULL;
	s->next = s->aext = 0;
	s->mem = sb;
	s->len = sb.len;
	s->spilled = false;
}

void fold_out_sink(void *arg, int stream, const char *buf, size_t len)
{
	struct fold_out *o = arg;
	struct stream *s = &o->s[stream ? 1 : 0];

	for (size_t i = 0; i < len; i++)
		s->hash = (s->hash ^ (unsigned char)buf[i]) * FNV_PRIME;
	if (!s->spilled && s->mem.len + len > FOLD_SPILL_AT &&
	    (s->mem.len ? spill_write(o->f, s, s->mem.buf, s->mem.len) == 0
			: spill_fd(o->f) >= 0)) {
		s->spilled = true;
		strbuf_release(&s->mem);
	}
	if (s->spilled && spill_write(o->f, s, buf, len) != 0)
		unspill(o->f, s);
	if (!s->spilled)
		strbuf_add(&s->mem, buf, len);
	s->len += len;
}

static bool same_stream(const struct fold *f, const struct stream *a, const struct stream *b)
{
	char x[16384], y[16384];

	if (a->len != b->len || a->hash != b->hash)
		return false;
	if (!a->spilled && !b->spilled)
		return !memcmp(a->mem.buf, b->mem.buf, a->len);
	for (size_t pos = 0; pos < a->len; pos += sizeof(x)) {
		size_t n = a->len - pos < sizeof(x) ? a->len - pos : sizeof(x);

		/* Unreadable counts as different: printed apart, never merged wrongly. */
		if (stream_pread(f, a, pos, x, n) || stream_pread(f, b, pos, y, n) ||
		    memcmp(x, y, n))
			return false;
	}
	return true;
}

void fold_add(struct fold *f, struct fold_out *o, size_t pos)
{
	struct group *g = NULL;
	size_t gi;

	for (gi = 0; gi < f->ng; gi++)
		if (same_stream(f, &f->g[gi]->s[0], &o->s[0]) &&
		    same_stream(f, &f->g[gi]->s[1], &o->s[1]))
			break;
	if (gi < f->ng) {
		g = f->g[gi];
		fold_out_free(o);
	} else {
		g = xcalloc(1, sizeof(*g));
		g->s[0] = o->s[0];
		g->s[1] = o->s[1];
		free(o);
		ALLOC_GROW(f->g, f->ng + 1, f->ag);
		f->g[f->ng++] = g;
		f->sorted = false;
	}
	ALLOC_GROW(g->hosts, g->nhosts + 1, g->ahosts);
	g->hosts[g->nhosts++] = pos;
	g->sorted = false;
	f->sorted = false;
	if (pos >= f->npos) {
		ALLOC_GROW(f->group_of, pos + 1, f->apos);
		memset(f->group_of + f->npos, 0, (pos + 1 - f->npos) * sizeof(*f->group_of));
		f->npos = pos + 1;
	}
	f->group_of[pos] = 1; /* indexes are filled in by sort_groups */
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;
	return cmp_size(&x->hosts[0], &y->hosts[0]);
}

static void sort_groups(struct fold *f)
{
	if (f->sorted)
		return;
	for (size_t i = 0; i < f->ng; i++) {
		struct group *g = f->g[i];
		if (!g->sorted)
			qsort(g->hosts, g->nhosts, sizeof(*g->hosts), cmp_size);
		g->sorted = true;
	}
	if (f->ng)
		qsort(f->g, f->ng, sizeof(*f->g), cmp_group);
	for (size_t i = 0; i < f->ng; i++)
		for (size_t k = 0; k < f->g[i]->nhosts; k++)
			f->group_of[f->g[i]->hosts[k]] = i + 1;
	f->sorted = true;
}

size_t fold_ngroups(struct fold *f)
{
	sort_groups(f);
	return f->ng;
}

const size_t *fold_group_hosts(struct fold *f, size_t g, size_t *n)
{
	sort_groups(f);
	*n = f->g[g]->nhosts;
	return f->g[g]->hosts;
}

size_t fold_group_len(struct fold *f, size_t g, int stream)
{
	sort_groups(f);
	return f->g[g]->s[stream ? 1 : 0].len;
}

size_t fold_group_of(struct fold *f, size_t pos)
{
	sort_groups(f);
	return pos < f->npos && f->group_of[pos] ? f->group_of[pos] - 1 : (size_t)-1;
}

int fold_group_read(struct fold *f, size_t g, int stream,
		    void (*fn)(void *arg, const char *buf, size_t len), void *arg,
		    struct err *err)
{
	const struct stream *s;
	char buf[65536];

	sort_groups(f);
	s = &f->g[g]->s[stream ? 1 : 0];
	if (!s->spilled) {
		if (s->len)
			fn(arg, s->mem.buf, s->len);
		return 0;
	}
	for (size_t pos = 0; pos < s->len; pos += sizeof(buf)) {
		size_t n = s->len - pos < sizeof(buf) ? s->len - pos : sizeof(buf);

		if (stream_pread(f, s, pos, buf, n))
			return err_set(err, ERR_IO, "cannot read back spilled output: %s",
				       strerror(errno));
		fn(arg, buf, n);
	}
	return 0;
}

static void add_to_strbuf(void *arg, const char *buf, size_t len)
{
	strbuf_add(arg, buf, len);
}

int fold_group_get(struct fold *f, size_t g, int stream, struct strbuf *sb, struct err *err)
{
	return fold_group_read(f, g, stream, add_to_strbuf, sb, err);
}
