/*
 * Jump hosts shared by many hosts: direct-tcpip channels multiplexed over
 * a few sessions to each jump host, each session owned by one pump thread.
 * The rules are in ssh.h (struct jump).
 */
#include "ssh-jump.h"
#include "../base/xalloc.h"

#include <libssh/libssh.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* What the requesting thread waits for; lives on its stack. */
struct open_req {
	int state;            /* 0 opening, 1 open, -1 failed, -2 session lost */
	char *msg;            /* why it failed; owned by the requester */
};

struct tunnel {
	struct tunnel *next;
	struct open_req *req; /* under j->lock; NULL once answered or abandoned */
	char *addr;
	unsigned port;
	ssh_channel ch;
	int fd;               /* our end of the socketpair, non-blocking */
	bool open, fd_eof, ch_eof_sent;
	char pend[32768];     /* from the channel, not yet taken by the host's session */
	size_t npend, pend_off;
};

struct jump_sess {
	struct jump *j;
	struct conn *c;       /* NULL until connected; the pump's alone once it runs */
	ssh_session s;
	pthread_t thread;
	bool running;
	atomic_bool stop, dead;
	int wake[2];
	struct tunnel *incoming; /* under j->lock: new tunnels for the pump */
	size_t load;          /* tunnels on it, under j->lock */
};

struct jump {
	char *label;
	struct ssh_target t;
	struct conn_opts o;
	unsigned nsess;
	struct jump_sess *sess;
	/* mgmt: opening and closing sessions, one thread at a time (a connect
	 * takes a while: the pumps must not wait on it, so it is not `lock`).
	 * lock: the queues, loads and answers the pumps share. mgmt first. */
	pthread_mutex_t mgmt;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* A failed connect, repeated to hosts that ask within the connect
	 * timeout instead of each waiting it out again (under mgmt). */
	int fail_rc;
	char *fail_msg;
	long long fail_until;
};

struct jump *jump_new(const char *label, const struct ssh_target *t,
		      const struct conn_opts *o, unsigned nsessions)
{
	struct jump *j = xcalloc(1, sizeof(*j));

	j->label = xstrdup(label);
	j->t.address = xstrdup(t->address);
	j->t.user = xstrdup(t->user);
	j->t.key_file = t->key_file ? xstrdup(t->key_file) : NULL;
	j->t.port = t->port;
	j->o = *o;
	j->nsess = nsessions ? nsessions : 1;
	j->sess = xcalloc(j->nsess, sizeof(*j->sess));
	for (unsigned i = 0; i < j->nsess; i++) {
		j->sess[i].j = j;
		j->sess[i].wake[0] = j->sess[i].wake[1] = -1;
	}
	pthread_mutex_init(&j->mgmt, NULL);
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	return j;
}

bool jump_same(const struct jump *j, const struct ssh_target *t)
{
	return !strcmp(j->t.address, t->address) && j->t.port == t->port &&
	       !strcmp(j->t.user, t->user) &&
	       !strcmp(j->t.key_file ? j->t.key_file : "", t->key_file ? t->key_file : "");
}

static void free_tunnel(struct tunnel *t)
{
	if (t->ch) {
		if (ssh_channel_is_open(t->ch))
			ssh_channel_close(t->ch);
		ssh_channel_free(t->ch);
	}
	if (t->fd >= 0)
		close(t->fd);
	free(t->addr);
	free(t);
}

/* Under j->lock: tells a waiting requester how its open went. */
static void answer(struct jump *j, struct tunnel *t, int state, const char *msg)
{
	if (!t->req)
		return;
	t->req->state = state;
	if (msg)
		t->req->msg = xstrdup(msg);
	t->req = NULL;
	pthread_cond_broadcast(&j->cond);
}

/* Channel -> host: what is pending first; false when the tunnel is done. */
static bool to_host(struct tunnel *t)
{
	for (;;) {
		while (t->npend > t->pend_off) {
			ssize_t w = send(t->fd, t->pend + t->pend_off, t->npend - t->pend_off,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return true;
			if (w <= 0)
				return false;
			t->pend_off += (size_t)w;
		}
		t->npend = t->pend_off = 0;
		int n = ssh_channel_read_nonblocking(t->ch, t->pend, sizeof(t->pend), 0);
		if (n == SSH_ERROR)
			return false;
		if (n <= 0) {
			if (ssh_channel_is_eof(t->ch) || ssh_channel_is_closed(t->ch)) {
				shutdown(t->fd, SHUT_WR);
				return !(t->fd_eof || ssh_channel_is_closed(t->ch));
			}
			return true;
		}
		t->npend = (size_t)n;
	}
}

/* Host -> channel, never more than the window holds: a write that waited
 * for the window would stall every other host on this session. */
static bool to_channel(struct tunnel *t)
{
	char buf[32768];

	while (!t->fd_eof) {
		uint32_t win = ssh_channel_window_size(t->ch);
		size_t want = win < sizeof(buf) ? win : sizeof(buf);
		ssize_t r;

		if (!want)
			return true;
		r = recv(t->fd, buf, want, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (r <= 0) {
			t->fd_eof = true;
			if (!t->ch_eof_sent && ssh_channel_is_open(t->ch))
				ssh_channel_send_eof(t->ch);
			t->ch_eof_sent = true;
			return !ssh_channel_is_eof(t->ch) && !ssh_channel_is_closed(t->ch);
		}
		if (ssh_channel_write(t->ch, buf, (uint32_t)r) != r)
			return false;
	}
	return !ssh_channel_is_eof(t->ch) && !ssh_channel_is_closed(t->ch);
}


/*
 * Reads what the server sent on a session without channels. False when
 * the session is gone (closed by the server, or an error).
 */
static bool take_idle_packets(ssh_session s)
{
	ssh_event ev = ssh_event_new();
	int rc;

	if (!ev)
		return false;
	if (ssh_event_add_session(ev, s) != SSH_OK) {
		ssh_event_free(ev);
		return false;
	}
	rc = ssh_event_dopoll(ev, 0);
	ssh_event_remove_session(ev, s);
	ssh_event_free(ev);
	return rc != SSH_ERROR && ssh_is_connected(s);
}

static void *pump_main(void *arg)
{
	struct jump_sess *js = arg;
	struct jump *j = js->j;
	struct tunnel *list = NULL;
	struct pollfd *p = NULL;
	size_t ap = 0;

	while (!atomic_load(&js->stop)) {
		struct tunnel **pt, *t;
		size_t np = 2;
		bool opening = false, starved = false;
		char drain[64];

		pthread_mutex_lock(&j->lock);
		while ((t = js->incoming)) {
			js->incoming = t->next;
			t->next = list;
			list = t;
		}
		pthread_mutex_unlock(&j->lock);
		while (read(js->wake[0], drain, sizeof(drain)) > 0)
			;

		for (pt = &list; (t = *pt);) {
			bool keep = true;

			if (!t->ch) {
				t->ch = ssh_channel_new(js->s);
				if (!t->ch)
					keep = false;
			}
			if (keep && !t->open) {
				int rc;

				ssh_set_blocking(js->s, 0);
				rc = ssh_channel_open_forward(t->ch, t->addr, (int)t->port,
							      "127.0.0.1", 0);
				ssh_set_blocking(js->s, 1);
				pthread_mutex_lock(&j->lock);
				if (rc == SSH_OK) {
					t->open = true;
					answer(j, t, 1, NULL);
				} else if (rc == SSH_AGAIN) {
					opening = true;
				} else {
					answer(j, t, -1, ssh_get_error(js->s));
					keep = false;
				}
				pthread_mutex_unlock(&j->lock);
			}
			if (keep && t->open)
				keep = to_host(t) && to_channel(t);
			if (!keep) {
				*pt = t->next;
				pthread_mutex_lock(&j->lock);
				answer(j, t, -1, "the tunnel closed");
				js->load--;
				pthread_mutex_unlock(&j->lock);
				free_tunnel(t);
				continue;
			}
			if (t->open && !t->fd_eof && !ssh_channel_window_size(t->ch))
				starved = true;
			pt = &t->next;
			np++;
		}
		if (!ssh_is_connected(js->s))
			break;

		ALLOC_GROW(p, np, ap);
		p[0] = (struct pollfd){ .fd = js->wake[0], .events = POLLIN };
		p[1] = (struct pollfd){ .fd = ssh_get_fd(js->s), .events = POLLIN };
		if (ssh_get_poll_flags(js->s) & SSH_WRITE_PENDING)
			p[1].events |= POLLOUT;
		np = 2;
		for (t = list; t; t = t->next) {
			short ev = 0;
			if (t->open && !t->fd_eof && ssh_channel_window_size(t->ch))
				ev |= POLLIN;
			if (t->npend > t->pend_off)
				ev |= POLLOUT;
			p[np++] = (struct pollfd){ .fd = ev ? t->fd : -1, .events = ev };
		}
		/* Opens and windows move on packets that libssh reads when we
		 * call it: look again soon while one is waiting on them. */
		if (poll(p, np, opening || starved ? 10 : 200) < 0 && errno != EINTR)
			break;
		/* Only a channel read makes libssh read the socket: with none,
		 * whatever arrives would wake us for ever. Let libssh take it in
		 * (OpenSSH's hostkeys-00 request right after the login, before
		 * the first tunnel, is the usual packet: retiring the session
		 * for it cost a second login on a loaded machine); a server
		 * that closed the session retires it, and the next request
		 * opens a new one. */
		if (!list && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !take_idle_packets(js->s))
			break;
	}
	atomic_store(&js->dead, true);
	pthread_mutex_lock(&j->lock);
	while (js->incoming) {
		struct tunnel *t = js->incoming;
		js->incoming = t->next;
		t->next = list;
		list = t;
	}
	while (list) {
		struct tunnel *t = list;
		list = t->next;
		answer(j, t, -2, "the session to the jump host was lost");
		js->load--;
		free_tunnel(t);
	}
	pthread_mutex_unlock(&j->lock);
	free(p);
	return NULL;
}

/* Under j->mgmt: stops a session's pump and closes it. */
static void sess_close(struct jump_sess *js)
{
	if (js->running) {
		atomic_store(&js->stop, true);
		if (js->wake[1] >= 0)
			(void)!write(js->wake[1], "x", 1);
		pthread_join(js->thread, NULL);
		js->running = false;
	}
	conn_close(js->c);
	js->c = NULL;
	js->s = NULL;
	for (int i = 0; i < 2; i++) {
		if (js->wake[i] >= 0)
			close(js->wake[i]);
		js->wake[i] = -1;
	}
	atomic_store(&js->stop, false);
	atomic_store(&js->dead, false);
}

/* Under j->mgmt: connects a session and starts its pump. */
static int sess_open(struct jump_sess *js, struct err *err)
{
	struct jump *j = js->j;
	int rc;

	if (j->fail_rc && now_ms() < j->fail_until)
		return err_set(err, j->fail_rc, "%s", j->fail_msg);
	rc = conn_open(j->label, &j->t, NULL, &j->o, &js->c, err);
	if (rc) {
		free(j->fail_msg);
		j->fail_rc = rc;
		j->fail_msg = xstrdup(err_msg(err));
		j->fail_until = now_ms() + (j->o.connect_timeout_ms ? j->o.connect_timeout_ms : 10000);
		return rc;
	}
	j->fail_rc = 0;
	js->s = conn_ssh_session(js->c);
	atomic_store(&js->stop, false);
	atomic_store(&js->dead, false);
	if (pipe2(js->wake, O_CLOEXEC | O_NONBLOCK) ||
	    pthread_create(&js->thread, NULL, pump_main, js)) {
		rc = err_set(err, ERR_INTERNAL, "jump host %s: cannot start its tunnel thread: %s",
			     js->j->label, strerror(errno));
		sess_close(js);
		return rc;
	}
	js->running = true;
	return 0;
}

/* Under j->mgmt: the session with the fewest tunnels, opened or reopened
 * as needed; sessions beyond the first open only once the others carry. */
static int pick_sess(struct jump *j, struct jump_sess **ret, struct err *err)
{
	struct jump_sess *best = NULL;
	int rc;

	for (unsigned i = 0; i < j->nsess; i++)
		if (j->sess[i].running && atomic_load(&j->sess[i].dead))
			sess_close(&j->sess[i]);
	pthread_mutex_lock(&j->lock); /* the loads */
	for (unsigned i = 0; i < j->nsess; i++) {
		struct jump_sess *js = &j->sess[i];

		if (!js->running && best && best->running && !best->load)
			continue;
		if (!best || js->load < best->load || (!best->running && js->running))
			best = js;
	}
	pthread_mutex_unlock(&j->lock);
	if (!best->running && (rc = sess_open(best, err)))
		return rc;
	*ret = best;
	return 0;
}

static int tunnel_once(struct jump *j, const char *name, const char *address,
		       unsigned port, long long deadline_ms, int *ret_fd, bool *lost,
		       struct err *err)
{
	struct open_req req = { 0 };
	struct tunnel *t;
	struct jump_sess *js;
	int sv[2], rc;

	*ret_fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return err_set(err, ERR_IO, "host %s: socketpair: %s", name, strerror(errno));
	pthread_mutex_lock(&j->mgmt);
	if ((rc = pick_sess(j, &js, err))) {
		pthread_mutex_unlock(&j->mgmt);
		close(sv[0]);
		close(sv[1]);
		return err_prefix(err, "host %s: its jump host failed: ", name);
	}
	pthread_mutex_lock(&j->lock);
	pthread_mutex_unlock(&j->mgmt);
	t = xcalloc(1, sizeof(*t));
	t->addr = xstrdup(address);
	t->port = port;
	t->fd = sv[1];
	t->req = &req;
	if (atomic_load(&js->dead)) {
		/* Its pump has drained its queue for the last time. */
		answer(j, t, -2, "the session to the jump host was lost");
		free_tunnel(t);
	} else {
		t->next = js->incoming;
		js->incoming = t;
		js->load++;
		(void)!write(js->wake[1], "x", 1);
	}
	while (req.state == 0) {
		struct timespec ts;
		long long left = deadline_ms - now_ms();

		if (left <= 0) {
			/* The pump closes the channel when it opens: our end goes. */
			t->req = NULL;
			rc = err_set(err, ERR_CONNECT, "host %s: jump host %s did not open a "
				     "channel to %s:%u in time", name, j->label, address, port);
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		left = left < 200 ? left : 200;
		ts.tv_sec += left / 1000;
		ts.tv_nsec += (left % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&j->cond, &j->lock, &ts);
	}
	pthread_mutex_unlock(&j->lock);
	*lost = req.state == -2;
	if (req.state < 0)
		rc = err_set(err, ERR_CONNECT, "host %s: jump host %s cannot reach %s:%u: %s",
			     name, j->label, address, port, req.msg ? req.msg : "");
	free(req.msg);
	if (rc) {
		close(sv[0]);
		return rc;
	}
	*ret_fd = sv[0];
	return 0;
}

int jump_tunnel(struct jump *j, const char *name, const char *address, unsigned port,
		long long deadline_ms, int *ret_fd, struct err *err)
{
	bool lost = false;
	int rc = tunnel_once(j, name, address, port, deadline_ms, ret_fd, &lost, err);

	/* A session that died under the request: once more, on a new one. */
	if (rc && lost)
		rc = tunnel_once(j, name, address, port, deadline_ms, ret_fd, &lost, err);
	return rc;
}

void jump_free(struct jump *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->mgmt);
	for (unsigned i = 0; i < j->nsess; i++)
		sess_close(&j->sess[i]);
	pthread_mutex_unlock(&j->mgmt);
	pthread_mutex_destroy(&j->mgmt);
	pthread_mutex_destroy(&j->lock);
	free(j->fail_msg);
	pthread_cond_destroy(&j->cond);
	free(j->sess);
	free(j->label);
	free(j->t.address);
	free(j->t.user);
	free(j->t.key_file);
	free(j);
}

static int via_open(void *arg, const char *name, const char *address, unsigned port,
		    long long deadline_ms, int *ret_fd, struct err *err)
{
	return jump_tunnel(arg, name, address, port, deadline_ms, ret_fd, err);
}

struct conn_via jump_via(struct jump *j)
{
	return (struct conn_via){ .open = via_open, .arg = j };
}
