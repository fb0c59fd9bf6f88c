/*
 * The SSH transport over libssh: connect (direct or through a jump host),
 * verify the host key, authenticate, run commands on channels with
 * deadlines. Uploads are in ssh-upload.c. See ssh.h for the contract.
 */
#include "ssh.h"
#include "ssh-int.h"
#include "ssh-knownhosts.h"
#include "../base/xalloc.h"

#include <libssh/libssh.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct conn {
	char *name;
	ssh_session s;
	bool tunnelled;    /* its socket is a conn_via end, given to libssh */
};

/* The line the command wrapper writes first on stderr, as printf(1) reads it. */
#define PGID_MARK "\\036bringup-pgid="
/* A command's input goes in writes of this much (see conn_exec_start). */
#define SSH_INPUT_PIECE 2048

struct ssh_session_struct *conn_ssh_session(struct conn *c)
{
	return c->s;
}

/* Updating known_hosts from several workers at once would interleave lines. */
static pthread_mutex_t known_hosts_lock = PTHREAD_MUTEX_INITIALIZER;

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cmd_result_init(struct cmd_result *r)
{
	memset(r, 0, sizeof(*r));
	r->exit_status = -1;
	r->first_output_s = -1;
	strbuf_init(&r->out, 0);
	strbuf_init(&r->err, 0);
}

void cmd_result_release(struct cmd_result *r)
{
	strbuf_release(&r->out);
	strbuf_release(&r->err);
}

/* "[addr]:port" as OpenSSH writes it in known_hosts, or plain addr on 22. */
static char *known_hosts_name(const struct ssh_target *t)
{
	if (t->port == 22)
		return xstrdup(t->address);
	return xasprintf("[%s]:%u", t->address, t->port);
}

static char *server_fingerprint(ssh_session s)
{
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp, *res;

	if (ssh_get_server_publickey(s, &key) != SSH_OK)
		return xstrdup("(no key)");
	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen)) {
		ssh_key_free(key);
		return xstrdup("(no fingerprint)");
	}
	fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	res = xasprintf("%s %s", ssh_key_type_to_char(ssh_key_type(key)),
			fp ? fp : "?");
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	return res;
}

/* The server key's base64 blob, as known_hosts holds it; caller frees. */
static char *server_key_b64(ssh_session s)
{
	ssh_key key = NULL;
	char *b64 = NULL, *res;

	if (ssh_get_server_publickey(s, &key) != SSH_OK ||
	    ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK) {
		ssh_key_free(key);
		return xstrdup("");
	}
	res = xstrdup(b64);
	ssh_string_free_char(b64);
	ssh_key_free(key);
	return res;
}

/*
 * What libssh skips (ssh-knownhosts.h): a @revoked key is refused whatever
 * else the file says; a host only a @cert-authority line covers is refused
 * by the caller, since we cannot check its certificate.
 */
static int check_markers(struct conn *c, const char *who, const char *kh_file,
			 struct kh_markers *m, struct err *err)
{
	char *b64 = server_key_b64(c->s), *fp;
	int rc = kh_scan_markers(kh_file, who, b64, m, err);

	free(b64);
	if (rc)
		return err_prefix(err, "host %s (%s): ", c->name, who);
	if (!m->revoked_line)
		return 0;
	fp = server_fingerprint(c->s);
	rc = err_set(err, ERR_HOSTKEY,
		     "host %s (%s): REFUSED: its host key %s is marked @revoked in %s line %u. "
		     "Do not use this key: give the host a new one, then record that",
		     c->name, who, fp, kh_file, m->revoked_line);
	free(fp);
	return rc;
}

static int verify_host_key(struct conn *c, const struct ssh_target *t,
			   const struct conn_opts *o, const char *kh_file,
			   struct err *err)
{
	enum ssh_known_hosts_e state = ssh_session_is_known_server(c->s);
	char *who = known_hosts_name(t), *fp;
	struct kh_markers m;
	int rc = check_markers(c, who, kh_file, &m, err);

	if (rc) {
		free(who);
		return rc;
	}
	switch (state) {
	case SSH_KNOWN_HOSTS_OK:
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		fp = server_fingerprint(c->s);
		rc = err_set(err, ERR_HOSTKEY,
			     "host %s (%s): REFUSED: the host key has changed (now %s). "
			     "Someone may be intercepting the connection, or the host was "
			     "reinstalled. If you know it was reinstalled, remove the old key "
			     "with: ssh-keygen -f '%s' -R '%s' and connect again",
			     c->name, who, fp, kh_file, who);
		free(fp);
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		fp = server_fingerprint(c->s);
		if (m.ca_line) {
			rc = err_set(err, ERR_HOSTKEY,
				     "host %s (%s): REFUSED: %s line %u is a @cert-authority line "
				     "for this host, and bringup cannot check host certificates "
				     "(libssh does not), so it neither trusts nor records the key "
				     "%s. Check that fingerprint, then add the host's own key to "
				     "that file (ssh-keyscan -p %u %s)",
				     c->name, who, kh_file, m.ca_line, fp, t->port, t->address);
		} else if (o->accept_new_host_keys) {
			pthread_mutex_lock(&known_hosts_lock);
			if (ssh_session_update_known_hosts(c->s) != SSH_OK)
				rc = err_set(err, ERR_HOSTKEY,
					     "host %s (%s): cannot record its key %s in %s: %s",
					     c->name, who, fp, kh_file, ssh_get_error(c->s));
			pthread_mutex_unlock(&known_hosts_lock);
		} else {
			rc = err_set(err, ERR_HOSTKEY,
				     "host %s (%s): REFUSED: unknown host key %s (not in %s). "
				     "Check the fingerprint, then add it to that file or "
				     "rerun with --accept-new-host-keys",
				     c->name, who, fp, kh_file);
		}
		free(fp);
		break;
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		rc = err_set(err, ERR_HOSTKEY, "host %s (%s): cannot check the host key: %s",
			     c->name, who, ssh_get_error(c->s));
		break;
	}
	free(who);
	return rc;
}

/*
 * libssh answers SSH_AUTH_AGAIN (blocking mode) or SSH_AUTH_ERROR when the
 * server said nothing within the session timeout: that is a stall, not a
 * refusal, and the user's fix is different (the server, not the key).
 */
static int auth_stalled(struct conn *c, const struct ssh_target *t, long timeout_s,
			struct err *err)
{
	return err_set(err, ERR_AUTH, "host %s: authentication as %s stalled: the server "
		       "did not answer within %ld s (the connect timeout)", c->name, t->user,
		       timeout_s);
}

static int authenticate(struct conn *c, const struct ssh_target *t, long timeout_s,
			struct err *err)
{
	long long t0 = now_ms();
	int rc;

	if (t->key_file) {
		ssh_key key = NULL;

		if (ssh_pki_import_privkey_file(t->key_file, NULL, NULL, NULL, &key) != SSH_OK)
			return err_set(err, ERR_AUTH,
				       "host %s: cannot load private key %s (missing, "
				       "unreadable or passphrase-protected: use ssh-agent "
				       "for those)", c->name, t->key_file);
		rc = ssh_userauth_publickey(c->s, NULL, key);
		ssh_key_free(key);
	} else {
		rc = ssh_userauth_agent(c->s, NULL);
		if (rc != SSH_AUTH_SUCCESS && rc != SSH_AUTH_AGAIN)
			rc = ssh_userauth_publickey_auto(c->s, NULL, NULL);
	}
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	if (rc == SSH_AUTH_AGAIN ||
	    (rc == SSH_AUTH_ERROR && now_ms() - t0 >= timeout_s * 1000 - 100))
		return auth_stalled(c, t, timeout_s, err);
	return err_set(err, ERR_AUTH, "host %s: authentication as %s failed%s%s",
		       c->name, t->user, t->key_file ? " with key " : " (agent and default keys)",
		       t->key_file ? t->key_file : "");
}

/* What sshd does to a connection over its MaxStartups: closes it before
 * the banner. Worth another try, after a pause; a refusal is not. */
static bool connect_was_reset(const char *why)
{
	return strstr(why, "reset by peer") || strstr(why, "Socket error: disconnected") ||
	       strstr(why, "Connection closed") || strstr(why, "kex_exchange_identification");
}

int conn_open(const char *name, const struct ssh_target *t,
	      const struct conn_via *via, const struct conn_opts *o,
	      struct conn **ret, struct err *err)
{
	struct conn *c = xcalloc(1, sizeof(*c));
	long timeout_s = o->connect_timeout_ms ? (long)((o->connect_timeout_ms + 999) / 1000) : 10;
	long long give_up = now_ms() + timeout_s * 1000;
	char *kh_default = NULL;
	const char *kh = o->known_hosts;
	int port = (int)t->port, no = 0, one = 1, verbosity = SSH_LOG_NOLOG;
	unsigned backoff_ms = 100;
	int rc;

	c->name = xstrdup(name);

	if (!kh) {
		const char *home = getenv("HOME");
		kh = kh_default = xasprintf("%s/.ssh/known_hosts", home ? home : "");
	}

again:
	c->s = ssh_new();
	if (!c->s) {
		rc = err_set(err, ERR_INTERNAL, "host %s: cannot allocate SSH session", name);
		goto fail;
	}
	ssh_options_set(c->s, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
	ssh_options_set(c->s, SSH_OPTIONS_HOST, t->address);
	/* ~/.ssh/config first, so that what the inventory says wins. */
	ssh_options_parse_config(c->s, NULL);
	ssh_options_set(c->s, SSH_OPTIONS_PROCESS_CONFIG, &no);
	ssh_options_set(c->s, SSH_OPTIONS_PORT, &port);
	ssh_options_set(c->s, SSH_OPTIONS_USER, t->user);
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &timeout_s);
	ssh_options_set(c->s, SSH_OPTIONS_KNOWNHOSTS, kh);
	/* Small requests that wait for their answers (an SFTP write, a command
	 * on a live session) must not sit out Nagle against delayed ACKs:
	 * 40 ms each, 1 MB/s for an upload. */
	ssh_options_set(c->s, SSH_OPTIONS_NODELAY, &one);
	if (via) {
		int fd;

		if ((rc = via->open(via->arg, name, t->address, t->port, give_up, &fd, err)))
			goto fail;
		if (ssh_options_set(c->s, SSH_OPTIONS_FD, &fd) != SSH_OK) {
			close(fd);
			rc = err_set(err, ERR_INTERNAL, "host %s: cannot use tunnel socket", name);
			goto fail;
		}
		c->tunnelled = true;
	}

	if (ssh_connect(c->s) != SSH_OK) {
		const char *why = ssh_get_error(c->s);
		bool timed_out = strstr(why, "imeout") || strstr(why, "timed out");

		/* Backoff with jitter, so that the retries do not arrive together.
		 * Through a jump host, the reset is the target's (its own
		 * MaxStartups): a new channel, then. */
		if (connect_was_reset(why) &&
		    now_ms() + backoff_ms < give_up) {
			ssh_free(c->s);
			c->s = NULL;
			usleep((backoff_ms + (unsigned)rand() % backoff_ms) * 1000);
			backoff_ms = backoff_ms < 1600 ? backoff_ms * 2 : backoff_ms;
			goto again;
		}

		/* No answer (powered off, black-holed) is as unreachable as a
		 * refused port: the host is not there, nothing on it failed. */
		if (timed_out)
			rc = err_set(err, ERR_CONNECT, "host %s (%s:%u): unreachable: no answer "
				     "within %ld s (connect timed out)", name, t->address,
				     t->port, timeout_s);
		else
			rc = err_set(err, ERR_CONNECT, "host %s (%s:%u): unreachable: %s", name,
				     t->address, t->port, why);
		goto fail;
	}
	if ((rc = verify_host_key(c, t, o, kh, err)))
		goto fail;
	if ((rc = authenticate(c, t, timeout_s, err)))
		goto fail;
	free(kh_default);
	*ret = c;
	return 0;
fail:
	free(kh_default);
	conn_close(c);
	*ret = NULL;
	return rc;
}

void conn_close(struct conn *c)
{
	if (!c)
		return;
	/* libssh 0.10 leaves a socket it was given (SSH_OPTIONS_FD, the
	 * tunnel's end) open after ssh_disconnect, and closes it in ssh_free
	 * only when no disconnect came first: let ssh_free do it. */
	if (c->s && !c->tunnelled && ssh_is_connected(c->s))
		ssh_disconnect(c->s);
	if (c->s)
		ssh_free(c->s);
	free(c->name);
	free(c);
}

static bool valid_env_name(const char *s, size_t len)
{
	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/*
 * The environment is explicit: C locale so that tool output parses the same
 * everywhere, the sbin directories that root's tools live in, and the
 * caller's variables. They travel inside the command (sshd refuses most env
 * requests), so secrets belong on stdin, never here.
 */
void remote_cmd_line(const struct remote_cmd *cmd, struct strbuf *sb)
{
	struct strbuf script = STRBUF_INIT;

	/* First of all, the process group to kill should the command be
	 * stopped: field 5 of /proc/$$/stat (sshd made the session a group;
	 * the login shell may sit above us in it), else our own pid. */
	strbuf_addstr(&script,
		      "read -r _ _ _ _ bringup_pgid _ 2>/dev/null </proc/$$/stat || "
		      "bringup_pgid=$$; printf '" PGID_MARK "%s\\n' \"$bringup_pgid\" >&2; "
		      "unset bringup_pgid; ");
	strbuf_addstr(&script,
		      "LC_ALL=C; LANG=C; export LC_ALL LANG; "
		      "PATH=\"$PATH:/usr/local/sbin:/usr/sbin:/sbin\"; export PATH; ");
	for (char *const *e = cmd->env; e && *e; e++) {
		const char *eq = strchr(*e, '=');

		if (!eq || !valid_env_name(*e, (size_t)(eq - *e)))
			continue; /* conn_exec rejects these before we get here */
		strbuf_add(&script, *e, (size_t)(eq - *e) + 1);
		strbuf_addshquoted(&script, eq + 1);
		strbuf_addf(&script, "; export %.*s; ", (int)(eq - *e), *e);
	}
	strbuf_addstr(&script, cmd->command);
	strbuf_addstr(sb, "exec /bin/sh -c ");
	strbuf_addshquoted(sb, script.buf);
	strbuf_release(&script);
}


static long long earliest(long long a, long long b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

struct remote_proc {
	struct conn *c;
	ssh_channel ch;
	long long start, deadline;
	double start_wall;
	size_t max;
	const volatile sig_atomic_t *cancel;
	bool pgid_done;          /* the marker was found, or given up on */
	bool begun;              /* res has been set up for this command */
	bool stopped;            /* conn_exec_stop: end it as cancelled */
	bool ended;              /* read to its end: res->outcome says how */
	size_t got[2];            /* bytes kept of stdout, stderr */
	void (*sink)(void *arg, int stream, const char *buf, size_t len);
	void *sink_arg;
};

const char *cmd_reap_text(enum cmd_reap r)
{
	switch (r) {
	case REAP_NONE: return "not stopped";
	case REAP_TERM: return "ended after SIGTERM";
	case REAP_KILL: return "outlived SIGTERM; killed with SIGKILL";
	case REAP_GONE: return "had already ended";
	case REAP_UNKNOWN: return "unknown (the command never reported it): nothing killed";
	case REAP_FAILED: return "could not be signalled: it may still run";
	}
	return "?";
}

/*
 * Between two tries of a libssh call in non-blocking mode: waits up to
 * 100 ms for the server. False once `deadline` (0: none) has passed.
 */
static bool wait_step(struct conn *c, long long deadline)
{
	long long left = deadline ? deadline - now_ms() : 100;
	struct pollfd pf = { .fd = ssh_get_fd(c->s), .events = POLLIN };

	if (left <= 0)
		return false;
	poll(&pf, 1, (int)(left < 100 ? left : 100));
	return true;
}

/*
 * Opens a session channel and sends the exec request, each bounded by the
 * command's own deadline rather than the connect timeout (the session's
 * blocking timeout): a server that accepted us and then stalls fails this
 * command with the phase named, in the command's time.
 */
static int start_channel(struct remote_proc *p, const char *line, struct err *err)
{
	struct conn *c = p->c;
	int rc;

	ssh_set_blocking(c->s, 0);
	while ((rc = ssh_channel_open_session(p->ch)) == SSH_AGAIN && wait_step(c, p->deadline))
		;
	if (rc == SSH_AGAIN) {
		rc = err_set(err, ERR_TIMEOUT, "host %s: channel open stalled after %.0f s "
			     "(the command's time limit): the server accepted the login but "
			     "never opened a session", c->name, (double)(now_ms() - p->start) / 1e3);
		goto out;
	}
	if (rc != SSH_OK) {
		rc = err_set(err, ERR_SSH, "host %s: cannot open a channel: %s", c->name,
			     *ssh_get_error(c->s) ? ssh_get_error(c->s) : "refused by the server");
		goto out;
	}
	while ((rc = ssh_channel_request_exec(p->ch, line)) == SSH_AGAIN &&
	       wait_step(c, p->deadline))
		;
	if (rc == SSH_AGAIN) {
		rc = err_set(err, ERR_TIMEOUT, "host %s: exec request stalled after %.0f s "
			     "(the command's time limit): the server never started the command",
			     c->name, (double)(now_ms() - p->start) / 1e3);
		goto out;
	}
	if (rc != SSH_OK)
		rc = err_set(err, ERR_SSH, "host %s: cannot start command: %s", c->name,
			     *ssh_get_error(c->s) ? ssh_get_error(c->s) : "refused by the server");
out:
	ssh_set_blocking(c->s, 1);
	return rc;
}

static void take_pgid(struct remote_proc *p, struct cmd_result *res);

/* Hands held-back stderr to the sink, when there is one. */
static void flush_err(struct remote_proc *p, struct cmd_result *res)
{
	if (p->sink && res->err.len) {
		p->sink(p->sink_arg, 1, res->err.buf, res->err.len);
		strbuf_reset(&res->err);
	}
}


static void capture(struct remote_proc *p, struct cmd_result *res, int stream,
		    const char *buf, int n)
{
	size_t room = p->got[stream] < p->max ? p->max - p->got[stream] : 0;

	if (n > 0 && (size_t)n > room) {
		*(stream ? &res->err_truncated : &res->out_truncated) = true;
		n = (int)room;
	}
	if (n <= 0)
		return;
	p->got[stream] += (size_t)n;
	/* stderr is held until the wrapper's pgid line is out of it, so
	 * that a sink never sees that line. */
	if (stream == 1 && !p->pgid_done) {
		strbuf_add(&res->err, buf, (size_t)n);
		take_pgid(p, res);
		if (p->pgid_done)
			flush_err(p, res);
		return;
	}
	if (p->sink)
		p->sink(p->sink_arg, stream, buf, (size_t)n);
	else
		strbuf_add(stream ? &res->err : &res->out, buf, (size_t)n);
}

int conn_exec_start(struct conn *c, const struct remote_cmd *cmd, long long deadline_ms,
		    struct remote_proc **ret, struct err *err)
{
	struct remote_proc *p;
	struct strbuf line = STRBUF_INIT;
	int rc = 0;

	*ret = NULL;
	for (char *const *e = cmd->env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || !valid_env_name(*e, (size_t)(eq - *e)))
			return err_set(err, ERR_USAGE, "host %s: bad environment entry '%s'",
				       c->name, *e);
	}
	p = xcalloc(1, sizeof(*p));
	p->c = c;
	p->start = now_ms();
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		p->start_wall = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	}
	p->deadline = earliest(cmd->timeout_ms ? p->start + cmd->timeout_ms : 0, deadline_ms);
	p->max = cmd->max_output ? cmd->max_output : CMD_OUTPUT_DEFAULT_MAX;
	p->cancel = cmd->cancel;
	p->sink = cmd->sink;
	p->sink_arg = cmd->sink_arg;
	p->ch = ssh_channel_new(c->s);
	if (!p->ch) {
		rc = err_set(err, ERR_SSH, "host %s: cannot open a channel: %s", c->name,
			     ssh_get_error(c->s));
		goto fail;
	}
	remote_cmd_line(cmd, &line);
	if ((rc = start_channel(p, line.buf, err)))
		goto fail;
	/* In pieces: libssh builds each write as one packet in buffers that
	 * grow to the next power of two above it and keep that size for the
	 * session's life; precheck's 9 KB script in one write cost two 16 KB
	 * buffers a host (8 MB at 256 hosts in flight), in 2 KB pieces 4 KB. */
	for (size_t off = 0; off < cmd->input_len; off += SSH_INPUT_PIECE) {
		size_t n = cmd->input_len - off < SSH_INPUT_PIECE ? cmd->input_len - off
								  : SSH_INPUT_PIECE;

		if (ssh_channel_write(p->ch, cmd->input + off, (uint32_t)n) == SSH_ERROR) {
			rc = err_set(err, ERR_SSH, "host %s: cannot send input: %s", c->name,
				     ssh_get_error(c->s));
			goto fail;
		}
	}
	/* Close stdin so that a command reading it cannot wait forever. */
	ssh_channel_send_eof(p->ch);
	strbuf_release(&line);
	*ret = p;
	return 0;
fail:
	strbuf_release(&line);
	remote_proc_free(p);
	return rc;
}

void remote_proc_free(struct remote_proc *p)
{
	if (!p)
		return;
	if (p->ch) {
		if (ssh_channel_is_open(p->ch))
			ssh_channel_close(p->ch);
		ssh_channel_free(p->ch);
	}
	free(p);
}

/*
 * Takes the wrapper's "\036bringup-pgid=N" line out of stderr (it comes
 * first, after anything a login shell's rc file printed) and keeps N.
 */
static void take_pgid(struct remote_proc *p, struct cmd_result *res)
{
	static const char mark[] = "\036bringup-pgid=";
	char *m, *nl, *end;
	long v;

	if (p->pgid_done || !res->err.len)
		return;
	m = memmem(res->err.buf, res->err.len, mark, sizeof(mark) - 1);
	nl = m ? memchr(m, '\n', res->err.len - (size_t)(m - res->err.buf)) : NULL;
	if (!nl) {
		/* A login banner this long is not ours to wait on. */
		if (res->err.len > 4096)
			p->pgid_done = true;
		return;
	}
	v = strtol(m + sizeof(mark) - 1, &end, 10);
	/* Never 0 or 1: "kill -TERM -1" would reach every process of the user. */
	if (end == nl && v > 1)
		res->remote_pgid = v;
	memmove(m, nl + 1, res->err.len - (size_t)(nl + 1 - res->err.buf));
	strbuf_setlen(&res->err, res->err.len - (size_t)(nl + 1 - m));
	p->pgid_done = true;
}

/*
 * SIGTERM to the stopped command's process group, SIGKILL after the grace
 * period, over a new channel on the same connection; the answer says which.
 */
static enum cmd_reap reap_group(struct conn *c, long pgid)
{
	struct strbuf sh = STRBUF_INIT;
	struct remote_cmd cmd = { 0 };
	struct cmd_result res;
	struct err err = ERR_INIT;
	enum cmd_reap r = REAP_FAILED;
	int tries = REAP_GRACE_MS / 100;

	if (pgid <= 1)
		return REAP_UNKNOWN;
	/* A kill that fails while members are left was refused (a command
	 * that became another user): that is no "gone". */
	strbuf_addf(&sh, "g=%ld; kill -TERM -$g 2>/dev/null || { pgrep -g $g >/dev/null && "
		    "{ echo denied; exit 0; }; echo gone; exit 0; }; i=0; "
		    "while [ $i -lt %d ]; do sleep 0.1; kill -0 -$g 2>/dev/null || "
		    "{ echo term; exit 0; }; i=$((i+1)); done; kill -KILL -$g 2>/dev/null; "
		    "echo kill", pgid, tries);
	cmd.command = sh.buf;
	cmd.timeout_ms = REAP_GRACE_MS + 10000;
	cmd_result_init(&res);
	if (!conn_exec(c, &cmd, 0, &res, &err) && res.outcome == CMD_EXITED) {
		if (!strncmp(res.out.buf, "term", 4))
			r = REAP_TERM;
		else if (!strncmp(res.out.buf, "kill", 4))
			r = REAP_KILL;
		else if (!strncmp(res.out.buf, "gone", 4))
			r = REAP_GONE;
	}
	cmd_result_release(&res);
	err_clear(&err);
	strbuf_release(&sh);
	return r;
}

/*
 * One read of the command's output, waiting at most wait_ms; sets p->ended
 * (and res->outcome) once the command is over, timed out, cancelled or lost.
 */
static void pump(struct remote_proc *p, struct cmd_result *res, long long wait_ms)
{
	ssh_channel ch = p->ch;
	char buf[16384];
	long long left = p->deadline ? p->deadline - now_ms() : wait_ms;
	int n;

	if (left <= 0) {
		res->outcome = CMD_TIMED_OUT;
		p->ended = true;
		return;
	}
	if (p->stopped || (p->cancel && *p->cancel)) {
		res->outcome = CMD_CANCELLED;
		p->ended = true;
		return;
	}
	if (left > wait_ms)
		left = wait_ms;
	n = ssh_channel_read_timeout(ch, buf, sizeof(buf), 0, (int)left);
	if (n == SSH_ERROR) {
		res->outcome = CMD_LOST;
		p->ended = true;
		return;
	}
	if (n > 0 && res->first_output_s < 0)
		res->first_output_s = (double)(now_ms() - p->start) / 1000.0;
	capture(p, res, 0, buf, n);
	while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 1)) > 0)
		capture(p, res, 1, buf, n);
	if (n == SSH_ERROR) {
		res->outcome = CMD_LOST;
		p->ended = true;
		return;
	}
	if (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch)) {
		/* Drain what is left on both streams. */
		while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 0)) > 0)
			capture(p, res, 0, buf, n);
		while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 1)) > 0)
			capture(p, res, 1, buf, n);
		p->ended = true;
	}
}

static void begin_result(struct remote_proc *p, struct cmd_result *res)
{
	if (p->begun)
		return;
	p->begun = true;
	res->outcome = CMD_EXITED;
	res->start_wall_s = p->start_wall;
}

bool conn_exec_wait_output(struct remote_proc *p, struct cmd_result *res, const char *needle,
			   long long limit_ms)
{
	long long until = now_ms() + limit_ms;
	size_t len = needle ? strlen(needle) : 0;

	begin_result(p, res);
	for (;;) {
		if (needle && res->out.len >= len && memmem(res->out.buf, res->out.len, needle, len))
			return true;
		if (p->ended)
			return !needle;
		if (now_ms() >= until)
			return false;
		pump(p, res, until - now_ms() < 200 ? until - now_ms() : 200);
	}
}

void conn_exec_stop(struct remote_proc *p)
{
	p->stopped = true;
}

void conn_exec_wait(struct remote_proc *p, struct cmd_result *res)
{
	begin_result(p, res);
	while (!p->ended)
		pump(p, res, 200);
	if (res->outcome == CMD_EXITED) {
		res->exit_status = ssh_channel_get_exit_status(p->ch);
		if (res->exit_status < 0)
			res->outcome = CMD_KILLED;
	}
	/* A command that never printed its pgid line still owes its stderr. */
	flush_err(p, res);
	res->duration_s = (double)(now_ms() - p->start) / 1000.0;
	/* Closing the channel does not stop the command: its group must go. */
	if (res->outcome == CMD_TIMED_OUT || res->outcome == CMD_CANCELLED)
		res->reap = reap_group(p->c, res->remote_pgid);
	remote_proc_free(p);
}

int conn_exec(struct conn *c, const struct remote_cmd *cmd, long long deadline_ms,
	      struct cmd_result *res, struct err *err)
{
	struct remote_proc *p;
	int rc = conn_exec_start(c, cmd, deadline_ms, &p, err);

	if (rc)
		return rc;
	conn_exec_wait(p, res);
	return 0;
}

struct conn_shell {
	struct conn *c;
	ssh_channel ch;
};

int conn_shell_open(struct conn *c, unsigned cols, unsigned rows,
		    struct conn_shell **ret, struct err *err)
{
	struct conn_shell *sh = xcalloc(1, sizeof(*sh));

	*ret = NULL;
	sh->c = c;
	sh->ch = ssh_channel_new(c->s);
	if (!sh->ch || ssh_channel_open_session(sh->ch) != SSH_OK)
		goto fail;
	/* A pty is what makes a switch start its interactive CLI. */
	if (ssh_channel_request_pty_size(sh->ch, "vt100", (int)cols, (int)rows) != SSH_OK ||
	    ssh_channel_request_shell(sh->ch) != SSH_OK)
		goto fail;
	*ret = sh;
	return 0;
fail:
	err_set(err, ERR_SSH, "host %s: cannot open an interactive session: %s", c->name,
		ssh_get_error(c->s));
	conn_shell_close(sh);
	return ERR_SSH;
}

int conn_shell_write(struct conn_shell *sh, const char *buf, size_t len, struct err *err)
{
	if (len && ssh_channel_write(sh->ch, buf, (uint32_t)len) == SSH_ERROR)
		return err_set(err, ERR_SSH, "host %s: cannot write to the session: %s",
			       sh->c->name, ssh_get_error(sh->c->s));
	return 0;
}

int conn_shell_read(struct conn_shell *sh, struct strbuf *out, size_t max, int timeout_ms,
		    bool *ret_eof, struct err *err)
{
	char buf[4096];
	size_t want = max < sizeof(buf) ? max : sizeof(buf);
	int n;

	*ret_eof = false;
	if (!want)
		return 0;
	n = ssh_channel_read_timeout(sh->ch, buf, (uint32_t)want, 0, timeout_ms);
	if (n == SSH_ERROR)
		return err_set(err, ERR_SSH, "host %s: session lost: %s", sh->c->name,
			       ssh_get_error(sh->c->s));
	if (n > 0)
		strbuf_add(out, buf, (size_t)n);
	if (n <= 0 && (ssh_channel_is_eof(sh->ch) || ssh_channel_is_closed(sh->ch)))
		*ret_eof = true;
	return n > 0 ? n : 0;
}

void conn_shell_close(struct conn_shell *sh)
{
	if (!sh)
		return;
	if (sh->ch) {
		if (ssh_channel_is_open(sh->ch))
			ssh_channel_close(sh->ch);
		ssh_channel_free(sh->ch);
	}
	free(sh);
}

ssh_session conn_ssh(const struct conn *c)
{
	return c->s;
}

const char *conn_name(const struct conn *c)
{
	return c->name;
}
