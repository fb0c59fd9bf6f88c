/*
 * Creating a simulated cluster: its description (sim_new, sim_load) and sim
 * up (files, keys, node init, one sshd per node). The texts it writes come
 * from sim/profile.c; stopping, status and faults live in sim/sim-ctl.c.
 */
#include "sim.h"
#include "sim-int.h"
#include "assets.h"

#include <errno.h>
#include <fcntl.h>
#include <libssh/libssh.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../engine/base/xalloc.h"

extern char **environ;

/* How far past the asked-for port sim up looks for one free on every address. */
#define PORT_TRIES 64

static const char *const node_subdirs[] = {
	"state", "faults", "log", "root/etc", "root/usr", "root/var", "root/opt", "root/boot",
	"work", NULL,
};

/* The directory ends up in sshd_config, fstab and overlay options, none of
 * which can quote everything; refusing odd characters beats escaping four ways. */
static int check_dir(const char *dir, struct err *err)
{
	if (dir[0] != '/')
		return err_set(err, ERR_USAGE, "sim directory must be absolute: %s", dir);
	for (const char *p = dir; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "/._-+@~", *p))
			return err_set(err, ERR_USAGE,
				       "sim directory %s: character '%c' is not supported "
				       "(use letters, digits and / . _ - + @ ~)", dir, *p);
	return 0;
}

char *sim_default_dir(struct err *err)
{
	const char *env = getenv("BRINGUP_SIM_DIR");
	const char *home = getenv("HOME");
	struct strbuf sb = STRBUF_INIT;

	if (env && *env) {
		if (env[0] != '/') {
			char *cwd = getcwd(NULL, 0);

			if (!cwd) {
				err_set(err, ERR_IO, "getcwd: %s", strerror(errno));
				return NULL;
			}
			strbuf_addf(&sb, "%s/", cwd);
			free(cwd);
		}
		strbuf_addstr(&sb, env);
	} else {
		if (!home || !*home) {
			struct passwd *pw = getpwuid(getuid());

			home = pw ? pw->pw_dir : NULL;
		}
		if (!home) {
			err_set(err, ERR_USAGE, "no $HOME: set BRINGUP_SIM_DIR");
			return NULL;
		}
		strbuf_addf(&sb, "%s/.local/state/bringup/sim", home);
	}
	while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb, NULL);
}

static char *current_user(void)
{
	struct passwd *pw = getpwuid(geteuid());

	if (pw)
		return xstrdup(pw->pw_name);
	return xasprintf("%u", (unsigned)geteuid());
}

struct sim *sim_new(const char *dir, const struct sim_profile *p, enum sim_state st,
		    unsigned n, unsigned port, struct err *err)
{
	struct sim *s;

	if (check_dir(dir, err))
		return NULL;
	if (n < 1 || n > SIM_MAX_NODES) {
		err_set(err, ERR_USAGE, "node count %u out of range (1-%u)", n, SIM_MAX_NODES);
		return NULL;
	}
	if (port < 1 || port > 65535) {
		err_set(err, ERR_USAGE, "port %u out of range", port);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->dir = xstrdup(dir);
	s->user = current_user();
	s->profile = p;
	s->state = st;
	s->n = n;
	s->port = port;
	s->rootless = geteuid() != 0;
	s->nodes = xcalloc(n, sizeof(*s->nodes));
	for (unsigned i = 0; i < n; i++) {
		s->nodes[i].name = sim_node_name(p, i, n);
		s->nodes[i].addr = sim_node_addr(i);
		s->nodes[i].dir = xasprintf("%s/nodes/%s", dir, s->nodes[i].name);
	}
	return s;
}

void sim_add_switch(struct sim *s)
{
	struct sim_node *nd;

	if (s->with_switch)
		return;
	s->nodes = xrealloc(s->nodes, (s->n + 1) * sizeof(*s->nodes));
	nd = &s->nodes[s->n];
	nd->name = xstrdup(SIM_SWITCH_NAME);
	nd->addr = sim_node_addr(s->n);
	nd->dir = xasprintf("%s/nodes/%s", s->dir, nd->name);
	s->with_switch = true;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < sim_nnodes(s); i++) {
		free(s->nodes[i].name);
		free(s->nodes[i].addr);
		free(s->nodes[i].dir);
	}
	free(s->nodes);
	free(s->dir);
	free(s->user);
	free(s->token);
	free(s);
}

/* ---- D/sim.conf: what sim_load needs to rebuild the description ---- */

static void format_sim_conf(struct strbuf *out, const struct sim *s)
{
	strbuf_addf(out,
		    "# Written by `bringup sim up`; read by status, fault and down.\n"
		    "PROFILE='%s'\nSTATE='%s'\nNODE_COUNT='%u'\nPORT='%u'\nSWITCH='%u'\n",
		    s->profile->name, sim_state_name(s->state), s->n, s->port, s->with_switch);
}

/* The value of KEY='value' in text, or NULL; caller frees. */
static char *conf_value(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *v = line + klen + 1;

		if (len > klen && !strncmp(line, key, klen) && line[klen] == '=') {
			len -= klen + 1;
			if (len >= 2 && v[0] == '\'' && v[len - 1] == '\'')
				return xstrndup(v + 1, len - 2);
			return xstrndup(v, len);
		}
		line += len + (line[len] == '\n');
	}
	return NULL;
}

static unsigned conf_uint(const char *text, const char *key)
{
	char *v = conf_value(text, key);
	unsigned long n = v ? strtoul(v, NULL, 10) : 0;

	free(v);
	return n > 65535 ? 0 : (unsigned)n;
}

int sim_load(const char *dir, struct sim **ret, struct err *err)
{
	char *path = xasprintf("%s/sim.conf", dir);
	struct strbuf conf = STRBUF_INIT;
	char *prof = NULL, *state = NULL;
	const struct sim_profile *p;
	int ret_code = simfs_read(path, &conf, err), st;

	*ret = NULL;
	if (ret_code == ERR_NOTFOUND)
		err_set(err, ERR_NOTFOUND, "no simulated cluster in %s (start one with `bringup sim up`)",
			dir);
	if (ret_code)
		goto out;
	prof = conf_value(conf.buf, "PROFILE");
	state = conf_value(conf.buf, "STATE");
	p = prof ? sim_profile_find(prof) : NULL;
	st = state ? sim_state_from_name(state) : -1;
	if (!p || st < 0) {
		ret_code = err_set(err, ERR_PARSE, "%s: unknown PROFILE or STATE", path);
		goto out;
	}
	*ret = sim_new(dir, p, (enum sim_state)st, conf_uint(conf.buf, "NODE_COUNT"),
		       conf_uint(conf.buf, "PORT"), err);
	if (!*ret) {
		ret_code = err_prefix(err, "%s: ", path);
		goto out;
	}
	if (conf_uint(conf.buf, "SWITCH"))
		sim_add_switch(*ret);
	(*ret)->token = sim_read_token(dir);
out:
	free(path);
	free(prof);
	free(state);
	strbuf_release(&conf);
	return ret_code;
}

/* ---- sim up ---- */

static char *new_token(struct err *err)
{
	unsigned char raw[16];
	struct strbuf sb = STRBUF_INIT;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		err_set(err, ERR_IO, "getrandom: %s", strerror(errno));
		return NULL;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		strbuf_addf(&sb, "%02x", raw[i]);
	return strbuf_detach(&sb, NULL);
}

/*
 * Generates an ed25519 key pair at path and path.pub with libssh (no
 * ssh-keygen process per node: 256 nodes take milliseconds). *ret_pub gets
 * "ssh-ed25519 BASE64" (caller frees).
 */
static int write_keypair(const char *path, const char *comment, char **ret_pub,
			 struct err *err)
{
	ssh_key key = NULL;
	char *b64 = NULL, *pubpath = NULL, *publine = NULL;
	int fd, ret = 0;

	if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK)
		return err_set(err, ERR_INTERNAL, "cannot generate an ed25519 key for %s", path);
	/* Created 0600 first so that libssh's fopen never leaves it readable. */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = err_set(err, ERR_IO, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	close(fd);
	if (ssh_pki_export_privkey_file(key, NULL, NULL, NULL, path) != SSH_OK ||
	    ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK) {
		ret = err_set(err, ERR_INTERNAL, "cannot export the key %s", path);
		goto out;
	}
	*ret_pub = xasprintf("ssh-ed25519 %s", b64);
	publine = xasprintf("%s %s\n", *ret_pub, comment);
	pubpath = xasprintf("%s.pub", path);
	ret = simfs_write(pubpath, publine, strlen(publine), 0644, err);
out:
	ssh_string_free_char(b64);
	ssh_key_free(key);
	free(pubpath);
	free(publine);
	return ret;
}

static bool port_free_everywhere(const struct sim *s, unsigned port)
{
	for (unsigned i = 0; i < sim_nnodes(s); i++) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
		int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		bool ok;

		if (fd < 0)
			return false;
		inet_pton(AF_INET, s->nodes[i].addr, &sa.sin_addr);
		/* As sshd does, so that connections in TIME_WAIT do not count. */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		ok = !bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
		if (!ok)
			return false;
	}
	return true;
}

static int pick_port(struct sim *s, unsigned from, struct err *err)
{
	for (unsigned p = from; p < from + PORT_TRIES && p <= 65535; p++) {
		if (port_free_everywhere(s, p)) {
			s->port = p;
			return 0;
		}
	}
	return err_set(err, ERR_STATE, "no port in %u-%u is free on all %u sim addresses", from,
		       from + PORT_TRIES - 1, sim_nnodes(s));
}

static int write_text(const char *path, const struct strbuf *sb, unsigned mode, struct err *err)
{
	return simfs_write(path, sb->buf, sb->len, mode, err);
}

static int write_assets(const struct sim *s, struct err *err)
{
	char *bin = xasprintf("%s/bin", s->dir);
	int ret = simfs_mkdirs(bin, 0755, err);

	for (unsigned i = 0; !ret && i < sim_nassets; i++) {
		char *path = xasprintf("%s/%s", bin, sim_assets[i].name);

		ret = simfs_write(path, sim_assets[i].data, sim_assets[i].len, sim_assets[i].mode,
				  err);
		free(path);
	}
	free(bin);
	return ret;
}

/* Wipes what an earlier cluster left, keeping D itself (the user may have chosen it). */
static int wipe(const struct sim *s, struct err *err)
{
	static const char *const old[] = {
		"nodes", "cluster", "bin", "inventory.yaml", "known_hosts", "id_ed25519",
		"id_ed25519.pub", "authorized_keys", "token", "sim.conf", NULL,
	};
	int ret = 0;

	for (const char *const *o = old; !ret && *o; o++) {
		char *path = xasprintf("%s/%s", s->dir, *o);

		ret = simfs_remove_tree(path, err);
		free(path);
	}
	return ret;
}

static int make_node_dirs(const char *nd, struct err *err)
{
	int ret = 0;

	for (const char *const *sub = node_subdirs; !ret && *sub; sub++) {
		char *path = xasprintf("%s/%s", nd, *sub);

		ret = simfs_mkdirs(path, 0755, err);
		free(path);
	}
	if (!ret) {
		char *tmp = xasprintf("%s/tmp", nd);

		ret = simfs_mkdirs(tmp, 0755, err);
		if (!ret && chmod(tmp, 01777))
			ret = err_set(err, ERR_IO, "chmod %s: %s", tmp, strerror(errno));
		free(tmp);
	}
	return ret;
}

/* Everything a node needs before its init script runs; *ret_pub is its host key. */
static int prepare_node(const struct sim *s, unsigned i, char **ret_pub, struct err *err)
{
	const struct sim_node *nd = &s->nodes[i];
	struct strbuf sb = STRBUF_INIT;
	char *path = NULL;
	int ret = make_node_dirs(nd->dir, err);

	if (ret)
		goto out;
	path = xasprintf("%s/ssh_host_ed25519_key", nd->dir);
	ret = write_keypair(path, nd->name, ret_pub, err);
	if (ret)
		goto out;
	free(path);
	sim_format_node_conf(&sb, s, i);
	path = xasprintf("%s/node.conf", nd->dir);
	ret = write_text(path, &sb, 0644, err);
	if (ret)
		goto out;
	free(path);
	strbuf_reset(&sb);
	sim_format_fstab(&sb, s, i);
	path = xasprintf("%s/fstab", nd->dir);
	ret = write_text(path, &sb, 0644, err);
out:
	free(path);
	strbuf_release(&sb);
	return ret;
}

static int write_cluster_files(const struct sim *s, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/cluster", s->dir);
	int ret = simfs_mkdirs(path, 0755, err);

	free(path);
	path = xasprintf("%s/cluster/.lock", s->dir);
	if (!ret)
		ret = simfs_write(path, "", 0, 0644, err);
	free(path);
	path = xasprintf("%s/token", s->dir);
	strbuf_addf(&sb, "%s\n", s->token);
	if (!ret)
		ret = write_text(path, &sb, 0600, err);
	free(path);
	strbuf_reset(&sb);
	format_sim_conf(&sb, s);
	path = xasprintf("%s/sim.conf", s->dir);
	if (!ret)
		ret = write_text(path, &sb, 0644, err);
	free(path);
	strbuf_reset(&sb);
	sim_format_hosts(&sb, s);
	path = xasprintf("%s/cluster/hosts", s->dir);
	if (!ret)
		ret = write_text(path, &sb, 0644, err);
	free(path);
	/* read by the fabric's stand-ins (iblinkinfo) */
	if (!ret && s->leaf_ports) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "LEAF_PORTS=%u\n", s->leaf_ports);
		path = xasprintf("%s/cluster/fabric.conf", s->dir);
		ret = write_text(path, &sb, 0644, err);
		free(path);
	}
	strbuf_release(&sb);
	return ret;
}

static unsigned init_parallelism(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long n = cpus > 0 ? cpus * 2 : 4;

	return (unsigned)(n < 4 ? 4 : n > 32 ? 32 : n);
}

/* Runs D/bin/sim-node-init NODE_DIR CLUSTER_DIR for every node. */
static int init_nodes(const struct sim *s, char *const *envp, struct err *err)
{
	char *init = xasprintf("%s/bin/sim-node-init", s->dir);
	char *cluster = xasprintf("%s/cluster", s->dir);
	unsigned nn = sim_nnodes(s);
	char **argvs = xcalloc((size_t)nn * 4, sizeof(*argvs));
	struct sim_job *jobs = xcalloc(nn, sizeof(*jobs));
	int ret = 0;

	if (access(init, X_OK)) {
		ret = err_set(err, ERR_STATE, "%s is missing: this bringup was built without the "
			      "simulator's stand-in tools (sim/tools/sim-node-init)", init);
		goto out;
	}
	for (unsigned i = 0; i < nn; i++) {
		char **argv = argvs + (size_t)i * 4;

		argv[0] = init;
		argv[1] = s->nodes[i].dir;
		argv[2] = cluster;
		sim_job_init(&jobs[i], argv);
	}
	ret = sim_jobs_run(jobs, nn, init_parallelism(), envp, err);
	for (unsigned i = 0; !ret && i < nn; i++)
		if (jobs[i].status)
			ret = err_set(err, ERR_STATE, "sim-node-init %s failed (exit %d): %s",
				      s->nodes[i].name, jobs[i].status,
				      sim_job_last_line(&jobs[i]));
	for (unsigned i = 0; i < nn; i++)
		sim_job_release(&jobs[i]);
out:
	free(jobs);
	free(argvs);
	free(init);
	free(cluster);
	return ret;
}

/* Whether this sshd knows PerSourcePenalties (OpenSSH 9.8 and later). */
static bool sshd_has_penalties(const char *sshd)
{
	char *argv[] = { (char *)sshd, "-V", NULL };
	struct sim_job j;
	unsigned major = 0, minor = 0;
	const char *v;

	sim_job_init(&j, argv);
	if (!sim_jobs_run(&j, 1, 1, environ, NULL)) {
		v = strstr(j.errout.buf, "OpenSSH_");
		if (v)
			sscanf(v, "OpenSSH_%u.%u", &major, &minor);
	}
	sim_job_release(&j);
	return major > 9 || (major == 9 && minor >= 8);
}

static int write_sshd_configs(const struct sim *s, struct err *err)
{
	const char *sshd = sim_sshd_binary();
	const char *sftp = sim_sftp_server();
	bool penalties = sshd && sshd_has_penalties(sshd);
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	for (unsigned i = 0; !ret && i < sim_nnodes(s); i++) {
		char *path = xasprintf("%s/sshd_config", s->nodes[i].dir);

		strbuf_reset(&sb);
		sim_format_sshd_config(&sb, s, i, sftp, penalties);
		ret = write_text(path, &sb, 0644, err);
		free(path);
	}
	strbuf_release(&sb);
	return ret;
}

/* Starts every node's sshd, moving to the next port when another cluster
 * took ours between the probe and the bind. */
static int start_all_sshds(struct sim *s, char *const *envp, struct err *err)
{
	unsigned nn = sim_nnodes(s);
	unsigned *idx = xcalloc(nn, sizeof(*idx));
	unsigned from = s->port;
	bool bind_failed = false;
	int ret;

	for (unsigned i = 0; i < nn; i++)
		idx[i] = i;
	for (int attempt = 0;; attempt++) {
		ret = pick_port(s, from, err);
		if (!ret)
			ret = write_sshd_configs(s, err);
		if (!ret)
			ret = sim_start_sshds(s, idx, nn, envp, &bind_failed, err);
		if (!ret || !bind_failed || attempt >= 8)
			break;
		/* The lost race is not this run's error: the next port may win. */
		err_clear(err);
		sim_down(s->dir, NULL, NULL);
		from = s->port + 1;
		/* Two clusters that probed at once lose to each other on every
		 * port; a random pause lets one of them get ahead. */
		unsigned char r = 0;

		if (getrandom(&r, 1, 0) != 1)
			r = (unsigned char)attempt;
		sim_sleep_ms(10 + r % 64u);
	}
	free(idx);
	return ret;
}

/*
 * Node-to-node SSH as a cluster admin sets it up for mpirun: one key for
 * root shared by the nodes (D/cluster/ssh/id_ed25519, which sim-node-init's
 * ssh_config.d file names), every node's host key under its name and
 * address (D/cluster/ssh/known_hosts), and the key in each compute node's
 * own NODE/peer_authorized_keys (sshd's second AuthorizedKeysFile), which
 * the peer-ssh-denied fault moves aside.
 */
static int write_peer_ssh(const struct sim *s, char *const *host_pubs, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/cluster/ssh", s->dir);
	char *pub = NULL;
	int ret = simfs_mkdirs(path, 0755, err);

	free(path);
	path = xasprintf("%s/cluster/ssh/id_ed25519", s->dir);
	if (!ret)
		ret = write_keypair(path, "root@sim-cluster", &pub, err);
	free(path);
	for (unsigned i = 0; !ret && i < sim_nnodes(s); i++) {
		const struct sim_node *nd = &s->nodes[i];

		if (s->port == 22)
			strbuf_addf(&sb, "%s,%s %s\n", nd->name, nd->addr, host_pubs[i]);
		else
			strbuf_addf(&sb, "[%s]:%u,[%s]:%u %s\n", nd->name, s->port, nd->addr,
				    s->port, host_pubs[i]);
	}
	path = xasprintf("%s/cluster/ssh/known_hosts", s->dir);
	if (!ret)
		ret = write_text(path, &sb, 0644, err);
	free(path);
	strbuf_reset(&sb);
	if (pub)
		strbuf_addf(&sb, "%s root@sim-cluster\n", pub);
	for (unsigned i = 0; !ret && i < s->n; i++) {
		path = xasprintf("%s/peer_authorized_keys", s->nodes[i].dir);
		ret = write_text(path, &sb, 0644, err);
		free(path);
	}
	free(pub);
	strbuf_release(&sb);
	return ret;
}

static int write_client_files(const struct sim *s, char *const *host_pubs, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/id_ed25519", s->dir);
	char *pub = NULL;
	int ret = write_keypair(path, "bringup-sim", &pub, err);

	free(path);
	if (!ret) {
		strbuf_addf(&sb, "%s bringup-sim\n", pub);
		path = xasprintf("%s/authorized_keys", s->dir);
		ret = write_text(path, &sb, 0644, err);
		free(path);
	}
	/* The switch has its own copy: its refuse-login fault takes it away. */
	if (!ret && s->with_switch) {
		path = xasprintf("%s/authorized_keys", s->nodes[s->n].dir);
		ret = write_text(path, &sb, 0644, err);
		free(path);
	}
	if (!ret)
		ret = write_peer_ssh(s, host_pubs, err);
	strbuf_reset(&sb);
	for (unsigned i = 0; !ret && i < sim_nnodes(s); i++) {
		if (s->port == 22)
			strbuf_addf(&sb, "%s %s\n", s->nodes[i].addr, host_pubs[i]);
		else
			strbuf_addf(&sb, "[%s]:%u %s\n", s->nodes[i].addr, s->port, host_pubs[i]);
	}
	path = xasprintf("%s/known_hosts", s->dir);
	if (!ret)
		ret = write_text(path, &sb, 0644, err);
	free(path);
	strbuf_reset(&sb);
	sim_format_inventory(&sb, s);
	path = xasprintf("%s/inventory.yaml", s->dir);
	if (!ret)
		ret = write_text(path, &sb, 0644, err);
	free(path);
	free(pub);
	strbuf_release(&sb);
	return ret;
}

static int prepare(struct sim *s, char **host_pubs, struct err *err)
{
	int ret = simfs_mkdirs(s->dir, 0755, err);

	if (!ret)
		ret = wipe(s, err);
	if (!ret)
		ret = write_assets(s, err);
	if (!ret)
		ret = write_cluster_files(s, err);
	for (unsigned i = 0; !ret && i < sim_nnodes(s); i++)
		ret = prepare_node(s, i, &host_pubs[i], err);
	return ret;
}

int sim_up(struct sim *s, struct err *err)
{
	char **host_pubs = NULL, **envp = NULL;
	int ret;

	if (sim_running(s->dir))
		return err_set(err, ERR_STATE, "a simulated cluster is already running in %s; "
			       "stop it first with `BRINGUP_SIM_DIR=%s bringup sim down`",
			       s->dir, s->dir);
	free(s->token);
	s->token = new_token(err);
	if (!s->token)
		return ERR_IO;
	host_pubs = xcalloc(sim_nnodes(s), sizeof(*host_pubs));
	envp = sim_env_with_token(s->token);
	ret = prepare(s, host_pubs, err);
	if (!ret)
		ret = init_nodes(s, envp, err);
	if (!ret)
		ret = start_all_sshds(s, envp, err);
	if (!ret)
		ret = write_client_files(s, host_pubs, err);
	if (!ret) {
		/* The port may have moved; status and fault read it from here. */
		struct strbuf sb = STRBUF_INIT;
		char *path = xasprintf("%s/sim.conf", s->dir);

		format_sim_conf(&sb, s);
		ret = write_text(path, &sb, 0644, err);
		free(path);
		strbuf_release(&sb);
	}
	if (ret)
		sim_down(s->dir, NULL, NULL);
	for (unsigned i = 0; i < sim_nnodes(s); i++)
		free(host_pubs[i]);
	free(host_pubs);
	sim_env_free(envp);
	return ret;
}

