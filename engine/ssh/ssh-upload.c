/*
 * Uploads (ssh.h's conn_upload) over a small SFTP version 3 client of our
 * own, spoken on a channel with the "sftp" subsystem.
 *
 * Why not libssh's sftp_*: in 0.10 (Debian 12) every call there waits for
 * its reply without a deadline, so a server that accepts the subsystem and
 * never answers (or an sftp-server stopped mid-transfer) holds the thread
 * forever; and sftp_write() sends one request and waits for its status
 * before the next, one round trip per 32 KiB (0.11's sftp_aio is not in
 * Debian 12). The part of the protocol an upload needs is small
 * (draft-ietf-secsh-filexfer-02: INIT, LSTAT, STAT, OPEN, WRITE, FSETSTAT,
 * CLOSE, REMOVE, and OpenSSH's posix-rename and limits extensions), and
 * ssh_channel_* calls take timeouts, so:
 * - every wait for the server is bounded by the step timeout since its last
 *   sign of life, and by the run's deadline; a stall fails this host only,
 *   with the bytes confirmed so far and the step that stalled;
 * - writes are pipelined: requests go out while the channel window has
 *   room (at most MAX_INFLIGHT unanswered), and their status replies are
 *   matched by id as they come. The window, not the round trip, paces the
 *   transfer, as in OpenSSH's sftp and scp.
 *
 * Safety, for directories others may write to (/tmp, a predictable
 * /var/tmp path):
 * - a new part file is created with O_CREAT|O_EXCL and mode 0600: no
 *   symlink is followed, nothing that exists is taken over;
 * - an existing part file is continued only when lstat says it is a
 *   regular file owned by the login user, else the upload stops and names
 *   it (a symlink there is someone's attempt to steer our writes);
 * - the final name is set with posix-rename (rename(2)): a symlink there is
 *   replaced, never followed, and a directory there makes it fail;
 * - REMOTE names a directory (the file keeps its base name there, as with
 *   scp) when it ends in '/' or lstat says it is one. A symlink to a
 *   directory is refused with a hint rather than followed or replaced.
 *
 * The local file's SHA-256, which each host's copy is checked against, is
 * computed once per process for a given file (device, inode, size, mtime),
 * however many hosts receive it.
 */
#include "ssh.h"
#include "ssh-int.h"
#include "../base/xalloc.h"

#include <libssh/libssh.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Packet types, open flags, attribute flags and status codes of SFTP v3. */
enum {
	FXP_INIT = 1, FXP_VERSION = 2, FXP_OPEN = 3, FXP_CLOSE = 4, FXP_WRITE = 6,
	FXP_LSTAT = 7, FXP_FSETSTAT = 10, FXP_REMOVE = 13, FXP_STAT = 17,
	FXP_STATUS = 101, FXP_HANDLE = 102, FXP_ATTRS = 105,
	FXP_EXTENDED = 200, FXP_EXTENDED_REPLY = 201,
};
enum { FXF_WRITE = 0x02, FXF_CREAT = 0x08, FXF_TRUNC = 0x10, FXF_EXCL = 0x20 };
enum {
	ATTR_SIZE = 0x1, ATTR_UIDGID = 0x2, ATTR_PERMISSIONS = 0x4, ATTR_ACMODTIME = 0x8,
	ATTR_EXTENDED = 0x80000000u,
};
enum { FX_OK = 0, FX_NO_SUCH_FILE = 2 };

/* Writes of 32 KiB unless the server says more (limits@openssh.com). */
#define WRITE_LEN_DEFAULT 32768u
/* OpenSSH's sftp-server takes messages up to 256 KiB; room for the header. */
#define WRITE_LEN_MAX (256u * 1024 - 1024)
/* Unanswered writes at most; the channel window is the other bound. */
#define MAX_INFLIGHT 64
/* A reply longer than this is not one we asked for. */
#define MAX_PACKET (256u * 1024)
#define STEP_DEFAULT_MS 600000u

struct sftp {
	const char *host;
	ssh_session s;
	ssh_channel ch;
	unsigned step_ms;
	long long deadline;   /* the run's, as now_ms(); 0: none */
	const volatile sig_atomic_t *cancel; /* ^C: stop at the next wait; may be NULL */
	long long progress;   /* now_ms() of the server's last sign of life */
	long long acked;      /* bytes of the file the server said it wrote */
	uint32_t next_id;
	struct strbuf in;     /* received, from in_off on not yet parsed */
	size_t in_off;
	struct strbuf out;    /* the request being built */
	struct strbuf errout; /* the server's stderr (capped), for messages */
	size_t write_len;
	bool posix_rename, limits;
};

struct fattr {
	uint32_t flags, uid, perms;
	uint64_t size;
};

/* ---- encoding ---- */

static void put_u8(struct strbuf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	strbuf_add(b, &c, 1);
}

static void put_u32(struct strbuf *b, uint32_t v)
{
	unsigned char x[4] = { v >> 24, v >> 16, v >> 8, v };

	strbuf_add(b, x, 4);
}

static void put_u64(struct strbuf *b, uint64_t v)
{
	put_u32(b, (uint32_t)(v >> 32));
	put_u32(b, (uint32_t)v);
}

static void put_str(struct strbuf *b, const void *s, size_t n)
{
	put_u32(b, (uint32_t)n);
	strbuf_add(b, s, n);
}

static void set_u32(char *p, uint32_t v)
{
	unsigned char *u = (unsigned char *)p;

	u[0] = v >> 24, u[1] = v >> 16, u[2] = v >> 8, u[3] = (unsigned char)v;
}

/* Starts a request in f->out; returns its id. The length is set on send. */
static uint32_t begin(struct sftp *f, unsigned type)
{
	uint32_t id = f->next_id++;

	strbuf_reset(&f->out);
	put_u32(&f->out, 0);
	put_u8(&f->out, type);
	put_u32(&f->out, id);
	return id;
}

/* ---- decoding: a cursor that turns `bad` rather than read past the end ---- */

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static uint32_t get_u32(struct rd *r)
{
	uint32_t v;

	if (r->end - r->p < 4) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	return v;
}

static uint64_t get_u64(struct rd *r)
{
	uint64_t hi = get_u32(r);

	return hi << 32 | get_u32(r);
}

static const char *get_str(struct rd *r, size_t *ret_len)
{
	uint32_t n = get_u32(r);
	const char *s = (const char *)r->p;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		*ret_len = 0;
		return "";
	}
	r->p += n;
	*ret_len = n;
	return s;
}

static void get_attrs(struct rd *r, struct fattr *a)
{
	size_t n;

	memset(a, 0, sizeof(*a));
	a->flags = get_u32(r);
	if (a->flags & ATTR_SIZE)
		a->size = get_u64(r);
	if (a->flags & ATTR_UIDGID) {
		a->uid = get_u32(r);
		(void)get_u32(r);
	}
	if (a->flags & ATTR_PERMISSIONS)
		a->perms = get_u32(r);
	if (a->flags & ATTR_ACMODTIME) {
		(void)get_u32(r);
		(void)get_u32(r);
	}
	if (a->flags & ATTR_EXTENDED)
		for (uint32_t i = get_u32(r); i && !r->bad; i--) {
			(void)get_str(r, &n);
			(void)get_str(r, &n);
		}
}

/* ---- waiting, bounded ---- */

static int stalled(struct sftp *f, const char *phase, struct err *err)
{
	char secs[32];

	if (f->deadline && now_ms() >= f->deadline)
		return err_set(err, ERR_TIMEOUT,
			       "host %s: upload stopped by the run's deadline after %lld bytes (%s)",
			       f->host, f->acked, phase);
	if (f->step_ms % 1000)
		snprintf(secs, sizeof(secs), "%.1f", f->step_ms / 1000.0);
	else
		snprintf(secs, sizeof(secs), "%u", f->step_ms / 1000);
	return err_set(err, ERR_TIMEOUT, "host %s: sftp stalled after %lld bytes (%s: no answer "
		       "in %s s)", f->host, f->acked, phase, secs);
}

static void drain_stderr(struct sftp *f)
{
	char buf[1024];
	int n;

	while ((n = ssh_channel_read_nonblocking(f->ch, buf, sizeof(buf), 1)) > 0)
		if (f->errout.len < 1024)
			strbuf_add(&f->errout, buf, (size_t)n);
}

/*
 * Takes in what the server sends within at most `max_wait_ms` (and never
 * past the step or run deadline). Returns 0, also when nothing came yet;
 * an error once the server was silent for the whole step, or went away.
 */
static int pump(struct sftp *f, const char *phase, int max_wait_ms, struct err *err)
{
	char buf[32768];
	long long now = now_ms(), until = f->progress + f->step_ms;
	int n;

	if (f->cancel && *f->cancel)
		return err_set(err, ERR_CANCELLED, "host %s: upload cancelled after %lld bytes "
			       "(%s, interrupted): the part file stays, the next copy continues it",
			       f->host, f->acked, phase);
	if (f->deadline && f->deadline < until)
		until = f->deadline;
	if (until <= now)
		return stalled(f, phase, err);
	if (until - now < max_wait_ms)
		max_wait_ms = (int)(until - now);
	n = ssh_channel_read_timeout(f->ch, buf, sizeof(buf), 0, max_wait_ms);
	drain_stderr(f);
	if (n == SSH_ERROR)
		return err_set(err, ERR_SSH, "host %s: connection lost during sftp %s: %s",
			       f->host, phase, ssh_get_error(f->s));
	if (n > 0) {
		strbuf_add(&f->in, buf, (size_t)n);
		f->progress = now_ms();
		return 0;
	}
	if (ssh_channel_is_eof(f->ch) || ssh_channel_is_closed(f->ch)) {
		strbuf_rtrim(&f->errout);
		return err_set(err, ERR_SSH, "host %s: the sftp server ended during %s after "
			       "%lld bytes%s%s", f->host, phase, f->acked,
			       f->errout.len ? ": " : "", f->errout.buf);
	}
	return 0;
}

/*
 * The next whole packet already received (type byte onwards) into *r,
 * valid until the next call; *ret_got false when none is complete yet.
 */
static int take_packet(struct sftp *f, const char *phase, struct rd *r, bool *ret_got,
		       struct err *err)
{
	size_t have = f->in.len - f->in_off;
	const unsigned char *p = (const unsigned char *)f->in.buf + f->in_off;

	*ret_got = false;
	if (have >= 4) {
		uint32_t len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			       (uint32_t)p[2] << 8 | p[3];

		if (len < 1 || len > MAX_PACKET)
			return err_set(err, ERR_SSH, "host %s: the sftp server sent a packet of "
				       "%" PRIu32 " bytes during %s: not SFTP", f->host, len, phase);
		if (have >= 4 + (size_t)len) {
			r->p = p + 4;
			r->end = p + 4 + len;
			r->bad = false;
			f->in_off += 4 + (size_t)len;
			*ret_got = true;
			return 0;
		}
	}
	/* Keep the buffer small: move the unparsed tail to the front. */
	if (f->in_off) {
		memmove(f->in.buf, f->in.buf + f->in_off, have);
		strbuf_setlen(&f->in, have);
		f->in_off = 0;
	}
	return 0;
}

/* The next packet, waiting for it (bounded, see pump). */
static int recv_packet(struct sftp *f, const char *phase, struct rd *r, struct err *err)
{
	bool got;
	int rc;

	while (!(rc = take_packet(f, phase, r, &got, err)) && !got)
		if ((rc = pump(f, phase, 1000, err)))
			break;
	return rc;
}

/* Sends f->out once the channel window takes it whole. */
static int send_packet(struct sftp *f, const char *phase, struct err *err)
{
	size_t len = f->out.len;
	int rc;

	set_u32(f->out.buf, (uint32_t)(len - 4));
	/* Window adjustments arrive with replies; poll briefly for them. */
	while (ssh_channel_window_size(f->ch) < len)
		if ((rc = pump(f, phase, 20, err)))
			return rc;
	if (ssh_channel_write(f->ch, f->out.buf, (uint32_t)len) != (int)len)
		return err_set(err, ERR_SSH, "host %s: connection lost during sftp %s: %s",
			       f->host, phase, ssh_get_error(f->s));
	return 0;
}

/* Sends f->out and waits for the reply to `id`; *type is its packet type. */
static int call(struct sftp *f, uint32_t id, const char *phase, struct rd *r, unsigned *type,
		struct err *err)
{
	int rc = send_packet(f, phase, err);

	while (!rc) {
		if ((rc = recv_packet(f, phase, r, err)))
			break;
		*type = r->p < r->end ? *r->p++ : 0;
		if (get_u32(r) == id && !r->bad)
			return 0;
	}
	return rc;
}

/* A STATUS reply's code and (still in r) message as an error about `what`, or 0 for OK. */
static int status_fail(struct sftp *f, uint32_t code, struct rd *r, const char *what,
		       struct err *err)
{
	size_t n = 0;
	const char *msg = get_str(r, &n);

	if (code == FX_OK)
		return 0;
	if (r->bad || !n)
		msg = "error", n = 5;
	return err_set(err, code == FX_NO_SUCH_FILE ? ERR_NOTFOUND : ERR_REMOTE,
		       "host %s: %s: %.*s", f->host, what, (int)n, msg);
}

/* A STATUS reply (after its id) as an error about `what`, or 0 for OK. */
static int status_error(struct sftp *f, struct rd *r, const char *what, struct err *err)
{
	uint32_t code = get_u32(r);

	return status_fail(f, code, r, what, err);
}

static int expect_status(struct sftp *f, uint32_t id, const char *phase, const char *what,
			 struct err *err)
{
	struct rd r;
	unsigned type;
	int rc = call(f, id, phase, &r, &type, err);

	if (rc)
		return rc;
	if (type != FXP_STATUS)
		return err_set(err, ERR_SSH, "host %s: %s: unexpected sftp reply %u", f->host,
			       what, type);
	return status_error(f, &r, what, err);
}

/* ---- requests ---- */

static void sftp_init(struct sftp *f, struct conn *c, unsigned step_ms, long long deadline)
{
	memset(f, 0, sizeof(*f));
	f->host = conn_name(c);
	f->s = conn_ssh(c);
	f->step_ms = step_ms ? step_ms : STEP_DEFAULT_MS;
	f->deadline = deadline;
	f->write_len = WRITE_LEN_DEFAULT;
	strbuf_init(&f->in, 0);
	strbuf_init(&f->out, 0);
	strbuf_init(&f->errout, 0);
}

/* Opens the channel and agrees on version 3 and the extensions we use. */
static int sftp_start(struct sftp *f, struct err *err)
{
	struct rd r;
	int rc;

	/* Opening the channel is bounded by the session's connect timeout. */
	f->ch = ssh_channel_new(f->s);
	if (!f->ch || ssh_channel_open_session(f->ch) != SSH_OK ||
	    ssh_channel_request_subsystem(f->ch, "sftp") != SSH_OK) {
		const char *why = ssh_get_error(f->s);

		return err_set(err, ERR_SSH, "host %s: cannot start the sftp subsystem: %s",
			       f->host, *why ? why : "no answer within the connect timeout");
	}
	f->progress = now_ms();
	/* INIT carries a version where other requests have an id. */
	strbuf_reset(&f->out);
	put_u32(&f->out, 0);
	put_u8(&f->out, FXP_INIT);
	put_u32(&f->out, 3);
	if ((rc = send_packet(f, "init", err)) || (rc = recv_packet(f, "init", &r, err)))
		return rc;
	if (r.p >= r.end || *r.p++ != FXP_VERSION || get_u32(&r) != 3 || r.bad)
		return err_set(err, ERR_SSH, "host %s: the sftp server does not speak "
			       "SFTP version 3", f->host);
	while (r.p < r.end && !r.bad) {
		size_t n, dn;
		const char *name = get_str(&r, &n);

		(void)get_str(&r, &dn);
		if (n == 24 && !memcmp(name, "posix-rename@openssh.com", 24))
			f->posix_rename = true;
		else if (n == 18 && !memcmp(name, "limits@openssh.com", 18))
			f->limits = true;
	}
	if (f->limits) {
		uint32_t id = begin(f, FXP_EXTENDED);
		unsigned type;
		uint64_t w;

		put_str(&f->out, "limits@openssh.com", 18);
		if ((rc = call(f, id, "init", &r, &type, err)))
			return rc;
		if (type == FXP_EXTENDED_REPLY) {
			(void)get_u64(&r);
			(void)get_u64(&r);
			w = get_u64(&r);
			if (!r.bad && w >= WRITE_LEN_DEFAULT)
				f->write_len = w < WRITE_LEN_MAX ? (size_t)w : WRITE_LEN_MAX;
		}
	}
	return 0;
}

static void sftp_end(struct sftp *f)
{
	if (f->ch) {
		if (ssh_channel_is_open(f->ch))
			ssh_channel_close(f->ch);
		ssh_channel_free(f->ch);
	}
	strbuf_release(&f->in);
	strbuf_release(&f->out);
	strbuf_release(&f->errout);
}

/* lstat (follow false) or stat; *ret_exists false for "no such file". */
static int sftp_stat(struct sftp *f, const char *path, bool follow, struct fattr *a,
		     bool *ret_exists, struct err *err)
{
	uint32_t id = begin(f, follow ? FXP_STAT : FXP_LSTAT);
	const char *phase = follow ? "stat" : "lstat";
	struct rd r;
	unsigned type;
	int rc;

	*ret_exists = false;
	put_str(&f->out, path, strlen(path));
	if ((rc = call(f, id, phase, &r, &type, err)))
		return rc;
	if (type == FXP_ATTRS) {
		get_attrs(&r, a);
		*ret_exists = !r.bad;
		return r.bad ? err_set(err, ERR_SSH, "host %s: %s %s: bad reply", f->host,
				       phase, path) : 0;
	}
	if (type != FXP_STATUS)
		return err_set(err, ERR_SSH, "host %s: %s %s: unexpected sftp reply %u", f->host,
			       phase, path, type);
	rc = status_error(f, &r, path, err);
	if (rc == ERR_NOTFOUND) {
		err_clear(err);
		return 0;
	}
	return rc;
}

/* *handle gets the server's handle for path (owned by the caller). */
static int sftp_open(struct sftp *f, const char *path, uint32_t pflags, uint32_t perms,
		     struct strbuf *handle, struct err *err)
{
	uint32_t id = begin(f, FXP_OPEN);
	char *what = xasprintf("cannot open %s", path);
	struct rd r;
	unsigned type;
	size_t n;
	const char *h;
	int rc;

	put_str(&f->out, path, strlen(path));
	put_u32(&f->out, pflags);
	put_u32(&f->out, perms ? ATTR_PERMISSIONS : 0);
	if (perms)
		put_u32(&f->out, perms);
	if ((rc = call(f, id, "open", &r, &type, err)))
		goto out;
	if (type == FXP_STATUS) {
		rc = status_error(f, &r, what, err);
		if (!rc)
			rc = err_set(err, ERR_SSH, "host %s: %s: no handle", f->host, what);
		goto out;
	}
	h = get_str(&r, &n);
	if (type != FXP_HANDLE || r.bad || !n) {
		rc = err_set(err, ERR_SSH, "host %s: %s: unexpected sftp reply %u", f->host, what,
			     type);
		goto out;
	}
	strbuf_reset(handle);
	strbuf_add(handle, h, n);
out:
	free(what);
	return rc;
}

static int sftp_fchmod(struct sftp *f, const struct strbuf *handle, const char *path,
		       uint32_t perms, struct err *err)
{
	uint32_t id = begin(f, FXP_FSETSTAT);
	char *what = xasprintf("cannot set the mode of %s", path);
	int rc;

	put_str(&f->out, handle->buf, handle->len);
	put_u32(&f->out, ATTR_PERMISSIONS);
	put_u32(&f->out, perms);
	rc = expect_status(f, id, "setting the mode", what, err);
	free(what);
	return rc;
}

static int sftp_close(struct sftp *f, const struct strbuf *handle, const char *path,
		      struct err *err)
{
	uint32_t id = begin(f, FXP_CLOSE);
	char *what = xasprintf("cannot close %s", path);
	int rc;

	put_str(&f->out, handle->buf, handle->len);
	rc = expect_status(f, id, "close", what, err);
	free(what);
	return rc;
}

static int sftp_remove(struct sftp *f, const char *path, struct err *err)
{
	uint32_t id = begin(f, FXP_REMOVE);
	char *what = xasprintf("cannot remove %s", path);
	int rc;

	put_str(&f->out, path, strlen(path));
	rc = expect_status(f, id, "remove", what, err);
	free(what);
	return rc;
}

/* rename(2): replaces what `to` names (a symlink itself, not its target). */
static int sftp_rename(struct sftp *f, const char *from, const char *to, struct err *err)
{
	uint32_t id = begin(f, FXP_EXTENDED);
	char *what = xasprintf("cannot rename %s to %s", from, to);
	int rc;

	put_str(&f->out, "posix-rename@openssh.com", 24);
	put_str(&f->out, from, strlen(from));
	put_str(&f->out, to, strlen(to));
	rc = expect_status(f, id, "rename", what, err);
	free(what);
	return rc;
}

/* A write request in flight: which id, how many bytes. */
struct inflight {
	uint32_t id, len;
};

/*
 * Sends bytes [from, size) of fd to the open handle: a WRITE request goes
 * out whenever the channel window has room for it and fewer than
 * MAX_INFLIGHT are unanswered; replies are taken as they come. Waiting
 * for either, the loop wakes every few milliseconds, as libssh takes
 * window adjustments without a reply to return.
 */
static int write_all(struct sftp *f, const struct strbuf *handle, const char *path, int fd,
		     long long from, long long size, struct err *err)
{
	struct inflight q[MAX_INFLIGHT];
	size_t nq = 0, hdr = 4 + 1 + 4 + 4 + handle->len + 8 + 4;
	long long off = from;
	int rc = 0;

	f->acked = from;
	while (off < size || nq) {
		struct rd r;
		uint32_t id, code;
		size_t i;
		bool got;
		char *what;

		while (nq < MAX_INFLIGHT && off < size) {
			size_t len = size - off < (long long)f->write_len ? (size_t)(size - off) :
				     f->write_len;
			ssize_t n;

			/* No room now: take replies first (they bring window). */
			if (nq && ssh_channel_window_size(f->ch) < hdr + len)
				break;
			id = begin(f, FXP_WRITE);
			put_str(&f->out, handle->buf, handle->len);
			put_u64(&f->out, (uint64_t)off);
			put_u32(&f->out, (uint32_t)len);
			strbuf_grow(&f->out, len);
			n = pread(fd, f->out.buf + f->out.len, len, (off_t)off);
			if (n != (ssize_t)len)
				return err_set(err, ERR_IO, "cannot read byte %lld of the local "
					       "file: %s", off, n < 0 ? strerror(errno) :
					       "it shrank");
			strbuf_setlen(&f->out, f->out.len + len);
			if ((rc = send_packet(f, "write", err)))
				return rc;
			q[nq++] = (struct inflight){ id, (uint32_t)len };
			off += (long long)len;
		}
		if (!nq)
			continue;
		if ((rc = take_packet(f, "write", &r, &got, err)))
			return rc;
		if (!got) {
			if ((rc = pump(f, "write", 5, err)))
				return rc;
			continue;
		}
		if (r.p >= r.end || *r.p++ != FXP_STATUS)
			return err_set(err, ERR_SSH, "host %s: write to %s: unexpected sftp reply",
				       f->host, path);
		id = get_u32(&r);
		for (i = 0; i < nq && q[i].id != id; i++)
			;
		if (i == nq)
			return err_set(err, ERR_SSH, "host %s: write to %s: reply to a request "
				       "never sent", f->host, path);
		code = get_u32(&r);
		if (code != FX_OK || r.bad) {
			what = xasprintf("write to %s failed at byte %lld", path, f->acked);
			rc = status_fail(f, code == FX_OK ? ~0u : code, &r, what, err);
			free(what);
			return rc;
		}
		f->acked += q[i].len;
		q[i] = q[--nq];
	}
	return 0;
}

/* ---- the local file's checksum, once per process ---- */

struct hash_entry {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char hex[65];
	struct hash_entry *next;
};

static struct {
	pthread_mutex_t lock;
	struct hash_entry *list; /* lives as long as the process */
} hashes = { PTHREAD_MUTEX_INITIALIZER, NULL };

static bool same_file(const struct hash_entry *e, const struct stat *st)
{
	return e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
	       e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static int sha256_path(const char *path, char hex[65], struct err *err)
{
	/* libssh has no public streaming SHA-256; sha256sum(1) is on the admin
	 * host and on every target, and the remote side uses it too. */
	struct strbuf cmdline = STRBUF_INIT;
	FILE *p;
	int rc = 0;

	strbuf_addstr(&cmdline, "exec sha256sum < ");
	strbuf_addshquoted(&cmdline, path);
	p = popen(cmdline.buf, "r");
	if (!p || fscanf(p, "%64[0-9a-f]", hex) != 1 || strlen(hex) != 64)
		rc = err_set(err, ERR_IO, "cannot checksum %s", path);
	if (p && pclose(p) != 0 && !rc)
		rc = err_set(err, ERR_IO, "cannot checksum %s", path);
	strbuf_release(&cmdline);
	return rc;
}

int upload_local_sha256(const char *path, char hex[65], struct err *err)
{
	struct hash_entry *e;
	struct stat before, after;
	int rc;

	if (stat(path, &before))
		return err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	/* Held while hashing: hosts that start together wait for one reading. */
	pthread_mutex_lock(&hashes.lock);
	for (e = hashes.list; e && !same_file(e, &before); e = e->next)
		;
	if (e) {
		memcpy(hex, e->hex, 65);
		pthread_mutex_unlock(&hashes.lock);
		return 0;
	}
	rc = sha256_path(path, hex, err);
	if (!rc && (stat(path, &after) || !S_ISREG(after.st_mode) ||
		    after.st_size != before.st_size ||
		    after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
		    after.st_mtim.tv_nsec != before.st_mtim.tv_nsec))
		rc = err_set(err, ERR_IO, "%s changed while it was read", path);
	if (!rc) {
		e = xcalloc(1, sizeof(*e));
		e->dev = before.st_dev;
		e->ino = before.st_ino;
		e->size = before.st_size;
		e->mtime = before.st_mtim;
		memcpy(e->hex, hex, 65);
		e->next = hashes.list;
		hashes.list = e;
	}
	pthread_mutex_unlock(&hashes.lock);
	return rc;
}

/* ---- the upload ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Where the file lands: REMOTE, or REMOTE/BASE for a directory. Caller frees. */
static int resolve_target(struct sftp *f, const char *local, const char *remote,
			  char **ret, struct err *err)
{
	size_t n = strlen(remote);
	struct fattr a;
	bool exists;
	int rc;

	*ret = NULL;
	if (!n)
		return err_set(err, ERR_USAGE, "host %s: empty remote path", f->host);
	if (remote[n - 1] == '/') {
		*ret = xasprintf("%s%s", remote, base_name(local));
		return 0;
	}
	if ((rc = sftp_stat(f, remote, false, &a, &exists, err)))
		return rc;
	if (exists && S_ISDIR(a.perms)) {
		*ret = xasprintf("%s/%s", remote, base_name(local));
		return 0;
	}
	if (exists && S_ISLNK(a.perms)) {
		if ((rc = sftp_stat(f, remote, true, &a, &exists, err)))
			return rc;
		if (exists && S_ISDIR(a.perms))
			return err_set(err, ERR_REMOTE, "host %s: %s is a symbolic link to a "
				       "directory: write %s/ to copy into that directory", f->host,
				       remote, remote);
	}
	*ret = xstrdup(remote);
	return 0;
}

/* The login user's uid on the host, for telling our part files from others'. */
static int remote_uid(struct conn *c, struct sftp *f, long long *ret, struct err *err)
{
	struct remote_cmd cmd = { .command = "id -u", .timeout_ms = f->step_ms };
	struct cmd_result res;
	char *end;
	int rc;

	cmd_result_init(&res);
	rc = conn_exec(c, &cmd, f->deadline, &res, err);
	if (!rc) {
		*ret = strtoll(res.out.buf, &end, 10);
		if (res.outcome == CMD_TIMED_OUT)
			rc = stalled(f, "id -u", err);
		else if (res.outcome != CMD_EXITED || res.exit_status || end == res.out.buf)
			rc = err_set(err, ERR_REMOTE, "host %s: cannot tell the login user's uid "
				     "(id -u)", f->host);
	}
	cmd_result_release(&res);
	return rc;
}

/*
 * Opens the part file: created anew (O_EXCL, 0600), or one a cut transfer
 * left continued, when it is a regular file of ours. *ret_from is where
 * sending starts.
 */
static int open_part(struct conn *c, struct sftp *f, const char *part, long long size,
		     struct strbuf *handle, long long *ret_from, struct err *err)
{
	struct fattr a;
	bool exists;
	long long uid;
	int rc;

	*ret_from = 0;
	if ((rc = sftp_stat(f, part, false, &a, &exists, err)))
		return rc;
	if (!exists)
		return sftp_open(f, part, FXF_WRITE | FXF_CREAT | FXF_EXCL, 0600, handle, err);
	if (!(a.flags & ATTR_PERMISSIONS) || !S_ISREG(a.perms))
		return err_set(err, ERR_REMOTE, "host %s: %s is %s, not a part file an upload "
			       "left: refusing to write through it (remove it if it is yours)",
			       f->host, part, S_ISLNK(a.perms) ? "a symbolic link" :
			       S_ISDIR(a.perms) ? "a directory" : "not a regular file");
	if ((rc = remote_uid(c, f, &uid, err)))
		return rc;
	if (!(a.flags & ATTR_UIDGID) || (long long)a.uid != uid)
		return err_set(err, ERR_REMOTE, "host %s: %s is owned by uid %" PRIu32 ", not by "
			       "the login user (uid %lld): refusing to continue it", f->host, part,
			       a.uid, uid);
	if ((long long)a.size <= size)
		*ret_from = (long long)a.size;
	return sftp_open(f, part, FXF_WRITE | (*ret_from ? 0 : FXF_TRUNC), 0, handle, err);
}

/*
 * Checks the part file against `hex` on the host. 0, ERR_STATE for a
 * checksum mismatch, or an error.
 */
static int verify_part(struct conn *c, struct sftp *f, const char *part, const char *hex,
		       struct err *err)
{
	struct strbuf sh = STRBUF_INIT;
	struct remote_cmd cmd = { .timeout_ms = f->step_ms };
	struct cmd_result res;
	int rc;

	strbuf_addstr(&sh, "s=$(sha256sum < ");
	strbuf_addshquoted(&sh, part);
	strbuf_addf(&sh, " | cut -d' ' -f1) && [ \"$s\" = %s ] || "
		    "{ echo \"checksum mismatch: got $s\" >&2; exit 3; }", hex);
	cmd.command = sh.buf;
	cmd_result_init(&res);
	rc = conn_exec(c, &cmd, f->deadline, &res, err);
	if (!rc && res.outcome == CMD_TIMED_OUT)
		rc = stalled(f, "sha256sum of the part file", err);
	else if (!rc && (res.outcome != CMD_EXITED || res.exit_status != 0)) {
		strbuf_rtrim(&res.err);
		rc = err_set(err, res.exit_status == 3 ? ERR_STATE : ERR_REMOTE,
			     "host %s: upload of %s not verified: %s", f->host, part,
			     res.err.len ? res.err.buf : "checksum step failed");
	}
	cmd_result_release(&res);
	strbuf_release(&sh);
	return rc;
}

int conn_upload(struct conn *c, const char *local_path, const char *remote_path,
		mode_t mode, unsigned step_timeout_ms, long long deadline_ms,
		const volatile sig_atomic_t *cancel, struct upload_result *ur, struct err *err)
{
	struct upload_result dummy;
	struct sftp f;
	struct strbuf handle = STRBUF_INIT;
	char hex[65] = "", *target = NULL, *part = NULL;
	bool open_handle = false;
	struct stat st;
	long long from;
	int fd = -1, rc;

	ur = ur ? ur : &dummy;
	*ur = (struct upload_result){ 0 };
	sftp_init(&f, c, step_timeout_ms, deadline_ms);
	f.cancel = cancel;
	fd = open(local_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = err_set(err, ERR_IO, "%s: %s", local_path, strerror(errno));
		goto out;
	}
	ur->size = (long long)st.st_size;
	if ((rc = upload_local_sha256(local_path, hex, err)))
		goto out;
	if ((rc = sftp_start(&f, err)) ||
	    (rc = resolve_target(&f, local_path, remote_path, &target, err)))
		goto out;
	part = xasprintf("%s.bringup-part", target);
	if ((rc = open_part(c, &f, part, ur->size, &handle, &from, err)))
		goto out;
	open_handle = true;
	ur->resumed_at = from;
	for (;;) {
		if ((rc = write_all(&f, &handle, part, fd, from, ur->size, err)) ||
		    (rc = sftp_fchmod(&f, &handle, part, mode & 07777, err)))
			goto out;
		open_handle = false;
		if ((rc = sftp_close(&f, &handle, part, err)))
			goto out;
		rc = verify_part(c, &f, part, hex, err);
		/* The part was not this file's beginning: once more, whole. */
		if (rc != ERR_STATE || !ur->resumed_at || ur->restarted)
			break;
		ur->restarted = true;
		err_clear(err);
		if ((rc = sftp_open(&f, part, FXF_WRITE | FXF_TRUNC, 0, &handle, err)))
			goto out;
		open_handle = true;
		from = 0;
	}
	if (rc == ERR_STATE) {
		struct err ignored = ERR_INIT;

		sftp_remove(&f, part, &ignored);
		err_clear(&ignored);
		rc = ERR_REMOTE;
		if (err)
			err->code = rc;
	}
	if (!rc && f.posix_rename)
		rc = sftp_rename(&f, part, target, err);
	else if (!rc)
		rc = err_set(err, ERR_REMOTE, "host %s: the sftp server cannot replace %s "
			     "atomically (no posix-rename@openssh.com): %s is left in place",
			     f.host, target, part);
	if (!rc) {
		ur->path = target;
		target = NULL;
	}
out:
	/* Cut mid-transfer: the part stays for a later run to continue. */
	if (open_handle && rc != ERR_TIMEOUT && rc != ERR_SSH) {
		struct err ignored = ERR_INIT;

		sftp_close(&f, &handle, part, &ignored);
		err_clear(&ignored);
	}
	sftp_end(&f);
	strbuf_release(&handle);
	if (fd >= 0)
		close(fd);
	free(target);
	free(part);
	if (ur == &dummy)
		free(dummy.path);
	return rc;
}
