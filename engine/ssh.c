/*
 * The SSH transport over libssh: connect (direct or through a jump host),
 * verify the host key, authenticate, run commands on channels with
 * deadlines, upload files over SFTP. See ssh.h for the contract.
 */
#include "ssh.h"
#include "xalloc.h"

#include <libssh/libssh.h>
#include <libssh/sftp.h>

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
	/* ProxyJump: the jump host's session, a direct-tcpip channel on it and
	 * a socketpair whose far end libssh uses as this session's socket. */
	struct conn *jump;
	ssh_channel tunnel;
	int pump_fd;
	pthread_t pump;
	bool pumping;
	atomic_bool stop;
};

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

static int verify_host_key(struct conn *c, const struct ssh_target *t,
			   const struct conn_opts *o, const char *kh_file,
			   struct err *err)
{
	enum ssh_known_hosts_e state = ssh_session_is_known_server(c->s);
	char *who = known_hosts_name(t), *fp;
	int rc = 0;

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
		if (o->accept_new_host_keys) {
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

static int authenticate(struct conn *c, const struct ssh_target *t, struct err *err)
{
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
		if (rc != SSH_AUTH_SUCCESS)
			rc = ssh_userauth_publickey_auto(c->s, NULL, NULL);
	}
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	return err_set(err, ERR_AUTH, "host %s: authentication as %s failed%s%s",
		       c->name, t->user, t->key_file ? " with key " : " (agent and default keys)",
		       t->key_file ? t->key_file : "");
}

/* Moves bytes between the tunnel channel and our end of the socketpair. */
static void *pump_main(void *arg)
{
	struct conn *c = arg;
	char buf[32768];
	bool sock_eof = false;

	while (!atomic_load(&c->stop)) {
		struct pollfd p[2] = {
			{ .fd = c->pump_fd, .events = sock_eof ? 0 : POLLIN },
			{ .fd = ssh_get_fd(c->jump->s), .events = POLLIN },
		};
		int n = ssh_channel_read_nonblocking(c->tunnel, buf, sizeof(buf), 0);

		if (n == SSH_ERROR)
			break;
		if (n > 0) {
			for (int off = 0; off < n;) {
				ssize_t w = write(c->pump_fd, buf + off, (size_t)(n - off));
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					goto out;
				off += (int)w;
			}
			continue;
		}
		if (ssh_channel_is_eof(c->tunnel) || ssh_channel_is_closed(c->tunnel))
			break;
		if (poll(p, 2, 100) < 0 && errno != EINTR)
			break;
		if (p[0].revents & (POLLIN | POLLHUP)) {
			ssize_t r = read(c->pump_fd, buf, sizeof(buf));
			if (r <= 0) {
				sock_eof = true;
				ssh_channel_send_eof(c->tunnel);
			} else if (ssh_channel_write(c->tunnel, buf, (uint32_t)r) == SSH_ERROR) {
				break;
			}
		}
	}
out:
	shutdown(c->pump_fd, SHUT_RDWR);
	return NULL;
}

static int open_tunnel(struct conn *c, const struct ssh_target *t, struct err *err)
{
	int sv[2];

	c->tunnel = ssh_channel_new(c->jump->s);
	if (!c->tunnel || ssh_channel_open_forward(c->tunnel, t->address, (int)t->port,
						   "127.0.0.1", 0) != SSH_OK)
		return err_set(err, ERR_CONNECT, "host %s: jump host %s cannot reach %s:%u: %s",
			       c->name, c->jump->name, t->address, t->port,
			       ssh_get_error(c->jump->s));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return err_set(err, ERR_IO, "host %s: socketpair: %s", c->name, strerror(errno));
	c->pump_fd = sv[1];
	if (ssh_options_set(c->s, SSH_OPTIONS_FD, &sv[0]) != SSH_OK) {
		close(sv[0]);
		return err_set(err, ERR_INTERNAL, "host %s: cannot use tunnel socket", c->name);
	}
	if (pthread_create(&c->pump, NULL, pump_main, c)) {
		return err_set(err, ERR_INTERNAL, "host %s: cannot start tunnel thread", c->name);
	}
	c->pumping = true;
	return 0;
}

int conn_open(const char *name, const struct ssh_target *t,
	      const struct ssh_target *jump, const struct conn_opts *o,
	      struct conn **ret, struct err *err)
{
	struct conn *c = xcalloc(1, sizeof(*c));
	long timeout_s = o->connect_timeout_ms ? (long)((o->connect_timeout_ms + 999) / 1000) : 10;
	char *kh_default = NULL;
	const char *kh = o->known_hosts;
	int port = (int)t->port, no = 0, one = 1, verbosity = SSH_LOG_NOLOG;
	int rc;

	c->name = xstrdup(name);
	c->pump_fd = -1;
	atomic_init(&c->stop, false);

	if (!kh) {
		const char *home = getenv("HOME");
		kh = kh_default = xasprintf("%s/.ssh/known_hosts", home ? home : "");
	}

	if (jump) {
		char *jname = xasprintf("%s (jump host for %s)", jump->address, name);
		rc = conn_open(jname, jump, NULL, o, &c->jump, err);
		free(jname);
		if (rc)
			goto fail;
	}

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
	if (c->jump && (rc = open_tunnel(c, t, err)))
		goto fail;

	if (ssh_connect(c->s) != SSH_OK) {
		const char *why = ssh_get_error(c->s);
		bool timed_out = strstr(why, "imeout") || strstr(why, "timed out");

		rc = err_set(err, timed_out ? ERR_TIMEOUT : ERR_CONNECT,
			     "host %s (%s:%u): %s: %s", name, t->address, t->port,
			     timed_out ? "connect timed out" : "unreachable", why);
		/* A connect timeout is still an unreachable host to the caller. */
		if (timed_out)
			err->code = ERR_CONNECT;
		goto fail;
	}
	if ((rc = verify_host_key(c, t, o, kh, err)))
		goto fail;
	if ((rc = authenticate(c, t, err)))
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
	if (c->s) {
		if (ssh_is_connected(c->s))
			ssh_disconnect(c->s);
	}
	if (c->pumping) {
		atomic_store(&c->stop, true);
		pthread_join(c->pump, NULL);
	}
	if (c->s)
		ssh_free(c->s);
	if (c->tunnel)
		ssh_channel_free(c->tunnel);
	if (c->pump_fd >= 0)
		close(c->pump_fd);
	conn_close(c->jump);
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

static void capture(struct strbuf *sb, bool *truncated, const char *buf, int n, size_t max)
{
	size_t room = sb->len < max ? max - sb->len : 0;

	if ((size_t)n > room) {
		*truncated = true;
		n = (int)room;
	}
	if (n > 0)
		strbuf_add(sb, buf, (size_t)n);
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
};

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
	p->ch = ssh_channel_new(c->s);
	if (!p->ch || ssh_channel_open_session(p->ch) != SSH_OK) {
		rc = err_set(err, ERR_SSH, "host %s: cannot open a channel: %s", c->name,
			     ssh_get_error(c->s));
		goto fail;
	}
	remote_cmd_line(cmd, &line);
	if (ssh_channel_request_exec(p->ch, line.buf) != SSH_OK) {
		rc = err_set(err, ERR_SSH, "host %s: cannot start command: %s", c->name,
			     ssh_get_error(c->s));
		goto fail;
	}
	if (cmd->input_len &&
	    ssh_channel_write(p->ch, cmd->input, (uint32_t)cmd->input_len) == SSH_ERROR) {
		rc = err_set(err, ERR_SSH, "host %s: cannot send input: %s", c->name,
			     ssh_get_error(c->s));
		goto fail;
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

void conn_exec_wait(struct remote_proc *p, struct cmd_result *res)
{
	ssh_channel ch = p->ch;
	char buf[16384];

	res->outcome = CMD_EXITED;
	res->start_wall_s = p->start_wall;
	for (;;) {
		long long left = p->deadline ? p->deadline - now_ms() : 200;
		int n;

		if (left <= 0) {
			res->outcome = CMD_TIMED_OUT;
			break;
		}
		n = ssh_channel_read_timeout(ch, buf, sizeof(buf), 0,
					     (int)(left < 200 ? left : 200));
		if (n == SSH_ERROR) {
			res->outcome = CMD_LOST;
			break;
		}
		if (n > 0 && res->first_output_s < 0)
			res->first_output_s = (double)(now_ms() - p->start) / 1000.0;
		capture(&res->out, &res->out_truncated, buf, n, p->max);
		while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 1)) > 0)
			capture(&res->err, &res->err_truncated, buf, n, p->max);
		if (n == SSH_ERROR) {
			res->outcome = CMD_LOST;
			break;
		}
		if (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch)) {
			/* Drain what is left on both streams. */
			while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 0)) > 0)
				capture(&res->out, &res->out_truncated, buf, n, p->max);
			while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 1)) > 0)
				capture(&res->err, &res->err_truncated, buf, n, p->max);
			break;
		}
	}
	if (res->outcome == CMD_EXITED) {
		res->exit_status = ssh_channel_get_exit_status(ch);
		if (res->exit_status < 0)
			res->outcome = CMD_KILLED;
	}
	res->duration_s = (double)(now_ms() - p->start) / 1000.0;
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

static int sha256_file(const char *path, char hex[65], struct err *err)
{
	/* libssh has no public streaming SHA-256; sha256sum(1) is on the admin
	 * host and on every target, and the remote side uses it too. */
	struct strbuf cmdline = STRBUF_INIT;
	FILE *p;
	int rc = 0;

	strbuf_addstr(&cmdline, "sha256sum < ");
	strbuf_addshquoted(&cmdline, path);
	p = popen(cmdline.buf, "r");
	if (!p || fscanf(p, "%64s", hex) != 1)
		rc = err_set(err, ERR_IO, "cannot checksum %s", path);
	if (p && pclose(p) != 0 && !rc)
		rc = err_set(err, ERR_IO, "cannot checksum %s", path);
	strbuf_release(&cmdline);
	return rc;
}

/* Sends fd from `from` on into f; the deadline is checked between writes. */
static int send_file(struct conn *c, int fd, sftp_file f, long long from, const char *what,
		     long long deadline_ms, struct err *err)
{
	char buf[32768];
	ssize_t n;

	if (lseek(fd, (off_t)from, SEEK_SET) < 0 || sftp_seek64(f, (uint64_t)from) < 0)
		return err_set(err, ERR_IO, "host %s: cannot seek to byte %lld of %s", c->name,
			       from, what);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (deadline_ms && now_ms() > deadline_ms)
			return err_set(err, ERR_TIMEOUT, "host %s: upload of %s timed out",
				       c->name, what);
		if (sftp_write(f, buf, (size_t)n) != n)
			return err_set(err, ERR_REMOTE, "host %s: write to %s failed: %s",
				       c->name, what, ssh_get_error(c->s));
	}
	if (n < 0)
		return err_set(err, ERR_IO, "%s: %s", what, strerror(errno));
	return 0;
}

/* The size of a part file a cut upload left, if it can be continued. */
static long long part_size(sftp_session sftp, const char *tmp, long long size)
{
	sftp_attributes a = sftp_stat(sftp, tmp);
	long long have = 0;

	if (a && a->type == SSH_FILEXFER_TYPE_REGULAR && (long long)a->size <= size)
		have = (long long)a->size;
	if (a)
		sftp_attributes_free(a);
	return have;
}

/*
 * Checks the part file against `hex` and moves it into place, in one round
 * trip. 0, ERR_STATE for a checksum mismatch, or an error. The part stays
 * for the caller to rewrite or remove through its SFTP session: that
 * session's view of the file is the one to keep consistent.
 */
static int verify_part(struct conn *c, const char *tmp, const char *remote_path,
		       const char *hex, long long deadline_ms, struct err *err)
{
	struct strbuf sh = STRBUF_INIT;
	struct remote_cmd cmd = { 0 };
	struct cmd_result res;
	int rc;

	strbuf_addstr(&sh, "s=$(sha256sum < ");
	strbuf_addshquoted(&sh, tmp);
	strbuf_addf(&sh, " | cut -d' ' -f1) && [ \"$s\" = %s ] && mv -f ", hex);
	strbuf_addshquoted(&sh, tmp);
	strbuf_addch(&sh, ' ');
	strbuf_addshquoted(&sh, remote_path);
	strbuf_addstr(&sh, " || { echo \"checksum mismatch: got $s\" >&2; exit 3; }");
	cmd.command = sh.buf;
	cmd.timeout_ms = 60000;
	cmd_result_init(&res);
	rc = conn_exec(c, &cmd, deadline_ms, &res, err);
	if (!rc && (res.outcome != CMD_EXITED || res.exit_status != 0)) {
		strbuf_rtrim(&res.err);
		rc = err_set(err, res.exit_status == 3 ? ERR_STATE : ERR_REMOTE,
			     "host %s: upload of %s not verified: %s", c->name, remote_path,
			     res.err.len ? res.err.buf : "checksum step failed");
	}
	cmd_result_release(&res);
	strbuf_release(&sh);
	return rc;
}

int conn_upload(struct conn *c, const char *local_path, const char *remote_path,
		mode_t mode, long long deadline_ms, struct upload_result *ur, struct err *err)
{
	struct upload_result dummy;
	char hex[65] = "";
	char *tmp = xasprintf("%s.bringup-part", remote_path);
	sftp_session sftp = NULL;
	sftp_file f = NULL;
	struct stat st;
	int fd = -1, rc;

	ur = ur ? ur : &dummy;
	*ur = (struct upload_result){ 0 };
	if ((rc = sha256_file(local_path, hex, err)))
		goto out;
	fd = open(local_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = err_set(err, ERR_IO, "%s: %s", local_path, strerror(errno));
		goto out;
	}
	ur->size = (long long)st.st_size;
	sftp = sftp_new(c->s);
	if (!sftp || sftp_init(sftp) != SSH_OK) {
		rc = err_set(err, ERR_SSH, "host %s: SFTP not available: %s", c->name,
			     ssh_get_error(c->s));
		goto out;
	}
	ur->resumed_at = part_size(sftp, tmp, ur->size);
	for (;;) {
		f = sftp_open(sftp, tmp, O_WRONLY | O_CREAT |
			      (ur->resumed_at && !ur->restarted ? 0 : O_TRUNC), mode);
		if (!f) {
			rc = err_set(err, ERR_REMOTE, "host %s: cannot create %s: %s", c->name, tmp,
				     ssh_get_error(c->s));
			goto out;
		}
		rc = send_file(c, fd, f, ur->restarted ? 0 : ur->resumed_at, tmp, deadline_ms, err);
		sftp_close(f);
		f = NULL;
		if (!rc)
			rc = verify_part(c, tmp, remote_path, hex, deadline_ms, err);
		/* The part was not this file's beginning: once more, whole. */
		if (rc != ERR_STATE || !ur->resumed_at || ur->restarted)
			break;
		ur->restarted = true;
		err_clear(err);
	}
	if (rc == ERR_STATE) {
		sftp_unlink(sftp, tmp);
		rc = err_set(err, ERR_REMOTE, "%s", err_msg(err));
	}
out:
	if (f)
		sftp_close(f);
	if (sftp)
		sftp_free(sftp);
	if (fd >= 0)
		close(fd);
	free(tmp);
	return rc;
}
