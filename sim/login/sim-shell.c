/*
 * sim-shell: the ForceCommand of every simulated node's sshd (sim/README.md,
 * "sim-shell: the per-node wrapper"). sshd gives it BRINGUP_SIM_NODE (the
 * node's dir), BRINGUP_SIM_DIR (the cluster's dir), BRINGUP_SIM_TOKEN and
 * SSH_ORIGINAL_COMMAND. Outside any namespace it logs the command and
 * honours the hang and slow faults; a child then enters new mount and UTS
 * namespaces, mounts the node's view (NODE/fstab, written by sim up) and
 * execs the command under the node's login shell; back outside, the parent
 * removes the login's overlay workdirs, starts a reboot the command asked
 * for, and ends as the command ended.
 *
 * It runs for every command and SFTP session of every test, so it is C:
 * the shell script it replaces started about ten processes a command (date,
 * unshare, a second shell, mkdir, flock, mount, the limits' awk, rm), each
 * ~8 ms of CPU on the 2-core CI machine, about 90 ms a command in all. Here
 * it is the wrapper, the command's shell and nothing else.
 *
 * Built on its own (no sanitizer: the client is what the tests sanitize, not
 * the simulator) and embedded in the bringup binary with the stand-in tools
 * (Makefile: SIM_BINS); `sim up` writes it to D/bin. Only libc.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define INSIDE "/run/bringup-sim"
#define LOGIN_MARK "@LOGIN@" /* sim/profile.c: SIM_LOGIN_MARK */
#define MOUNT_LOCK_WAIT_S 60

static const char *node, *dir;

static void die(int rc, const char *fmt, ...)
{
	va_list ap;

	fputs("sim-shell: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(rc);
}

static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		die(255, "out of memory");
	va_end(ap);
	return s;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Runs ARGV (found on PATH) as a child and waits for it; its status is not ours to judge. */
static void run_wait(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/* TIMESTAMP COMMAND, newlines folded, one write: logins at once append whole lines. */
static void log_command(const char *cmd)
{
	char *path = fmt("%s/log/commands.log", node), stamp[32], *line;
	time_t now = time(NULL);
	struct tm tm;
	int fd;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	line = fmt("%s %s\n", stamp, *cmd ? cmd : "(login shell)");
	for (char *p = line; p[1]; p++)
		if (*p == '\n')
			*p = ' ';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ssize_t n = write(fd, line, strlen(line));
		(void)n;
		close(fd);
	}
	free(line);
	free(path);
}

/*
 * The faults that act before the node is reached: hang (a sleep for ever,
 * in place of the command) and slow (a sleep of that many seconds first).
 * Both are `sleep` processes carrying the node's host-side
 * BRINGUP_SIM_NODE, which is how `sim fault NODE clear` finds and ends them
 * (sim-ctl.c: wake_sleepers).
 */
static void outside_faults(void)
{
	char *hang = fmt("%s/faults/hang", node), *slow = fmt("%s/faults/slow", node);
	FILE *f;

	if (exists(hang)) {
		execlp("sleep", "sleep", "2147483647", (char *)NULL);
		die(255, "cannot run sleep: %s", strerror(errno));
	}
	f = fopen(slow, "re");
	if (f) {
		char buf[64] = "", *s = buf, *e;

		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		/* as the shell's `read -r secs` would trim it */
		while (isspace((unsigned char)*s))
			s++;
		for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
			;
		*e = 0;
		{
			char *argv[] = { "sleep", *s ? s : "5", NULL };
			run_wait(argv);
		}
	}
	free(hang);
	free(slow);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(255, "cannot write %s: %s", path, strerror(errno));
	close(fd);
}

/* New mount and UTS namespaces (and a user namespace mapping us to root
 * where the sim runs without root), mounts private as `unshare
 * --propagation private` makes them. */
static void enter_namespaces(void)
{
	int userns = getenv("BRINGUP_SIM_USERNS") && *getenv("BRINGUP_SIM_USERNS");
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWNS | CLONE_NEWUTS | (userns ? CLONE_NEWUSER : 0)))
		die(255, "unshare: %s", strerror(errno));
	if (userns) {
		char *map;

		write_file("/proc/self/setgroups", "deny");
		map = fmt("0 %u 1", (unsigned)uid);
		write_file("/proc/self/uid_map", map);
		free(map);
		map = fmt("0 %u 1", (unsigned)gid);
		write_file("/proc/self/gid_map", map);
		free(map);
	}
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die(255, "cannot make mounts private: %s", strerror(errno));
}

static int mkdirs(const char *path, mode_t mode)
{
	char *p = strdup(path);

	if (!p)
		return -1;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, mode) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return mkdir(path, mode) && errno != EEXIST ? -1 : 0;
}

/*
 * One fstab line, as mount(8) would mount it, for the options sim up
 * writes (sim/profile.c: sim_format_fstab) and no others: "bind", "ro"
 * (a bind is made read-only by a second, remounting call, as mount(8)
 * does), "X-mount.mkdir" (the target made first, mode 0755); anything
 * else is the file system's data (tmpfs's mode and size, overlay's dirs).
 */
static void mount_line(const char *raw, const char *login)
{
	char *line = strdup(raw), *spec, *target, *type, *opts, *save = NULL, *o, *mark;
	unsigned long flags = 0;
	int ro = 0, mkdir_target = 0;
	char data[4096] = "";
	size_t dlen = 0;

	/* the overlays' workdirs are the login's own (NODE/work/LOGIN/DIR) */
	while (line && (mark = strstr(line, LOGIN_MARK))) {
		char *fixed = fmt("%.*s%s%s", (int)(mark - line), line, login,
				  mark + strlen(LOGIN_MARK));

		free(line);
		line = fixed;
	}
	if (!line)
		die(255, "out of memory");
	spec = strtok_r(line, " \t", &save);
	target = strtok_r(NULL, " \t", &save);
	type = strtok_r(NULL, " \t", &save);
	opts = strtok_r(NULL, " \t", &save);
	if (!spec || *spec == '#') {
		free(line);
		return;
	}
	if (!target || !type || !opts)
		die(255, "cannot mount the node's file systems: bad line in %s/fstab", node);
	for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcmp(o, "bind"))
			flags |= MS_BIND;
		else if (!strcmp(o, "ro"))
			ro = 1;
		else if (!strcmp(o, "X-mount.mkdir"))
			mkdir_target = 1;
		else if (!strcmp(o, "defaults"))
			;
		else {
			int n = snprintf(data + dlen, sizeof(data) - dlen, "%s%s", dlen ? "," : "", o);

			if (n < 0 || (size_t)n >= sizeof(data) - dlen)
				die(255, "cannot mount %s: options too long", target);
			dlen += (size_t)n;
		}
	}
	if (mkdir_target && mkdirs(target, 0755))
		die(255, "cannot mount the node's file systems: mkdir %s: %s", target,
		    strerror(errno));
	if (ro && !(flags & MS_BIND))
		flags |= MS_RDONLY;
	if (mount(spec, target, flags & MS_BIND ? NULL : type, flags, dlen ? data : NULL))
		die(255, "cannot mount the node's file systems: %s on %s: %s", spec, target,
		    strerror(errno));
	if (ro && (flags & MS_BIND) &&
	    mount(NULL, target, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL))
		die(255, "cannot mount the node's file systems: %s read-only: %s", target,
		    strerror(errno));
	free(line);
}

/* Logins mount one at a time (many hosts behind one jump host, -f 256): NODE/mount.lock. */
static void mount_node(const char *login)
{
	static const char *const overlays[] = { "etc", "usr", "var", "opt", "boot" };
	char *lock = fmt("%s/mount.lock", node), *tab = fmt("%s/fstab", node);
	char line[8192];
	FILE *f;
	int fd, i;

	/* overlayfs empties and remakes its workdir's work/ on each mount, so
	 * each login has workdirs of its own: logins at once pulled them from
	 * under each other (mkdir: ENOENT). */
	for (size_t k = 0; k < sizeof(overlays) / sizeof(overlays[0]); k++) {
		char *w = fmt("%s/work/%s/%s", node, login, overlays[k]);

		if (mkdirs(w, 0755))
			die(255, "cannot mount the node's file systems: mkdir %s: %s", w,
			    strerror(errno));
		free(w);
	}
	fd = open(lock, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die(255, "cannot mount the node's file systems: %s: %s", lock, strerror(errno));
	for (i = 0; flock(fd, LOCK_EX | LOCK_NB); i++) {
		if (i >= MOUNT_LOCK_WAIT_S * 100)
			die(255, "cannot mount the node's file systems: %s held for %d s", lock,
			    MOUNT_LOCK_WAIT_S);
		usleep(10000);
	}
	f = fopen(tab, "re");
	if (!f)
		die(255, "cannot mount the node's file systems: %s: %s", tab, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		mount_line(line, login);
	}
	fclose(f);
	close(fd);
	free(lock);
	free(tab);
}

/* NODE_NAME='...' of node.conf (written by sim up, plain single-quoted values). */
static void set_hostname(void)
{
	FILE *f = fopen(INSIDE "/node/node.conf", "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v, *e;

		if (strncmp(line, "NODE_NAME=", 10))
			continue;
		v = line + 10;
		if (*v == '\'')
			v++;
		e = v + strcspn(v, "'\n");
		*e = 0;
		if (sethostname(v, strlen(v)))
			fprintf(stderr, "sim-shell: cannot set the host name %s: %s\n", v,
				strerror(errno));
		break;
	}
	fclose(f);
}

/*
 * What pam_limits does at login, for the memlock limit only (sim/tools/
 * sim-pam-limits says it in shell for the tests and the tools that ask):
 * the node's /etc/security/limits.conf then limits.d/NAME.conf in C order; an
 * entry naming the user beats a @group entry, which beats `*`; among equals
 * the later line wins; `*` and groups do not apply to root (pam_limits(8)).
 * Without any entry the distribution default, 64 kB on RHEL.
 */
struct memlock {
	int sp, hp;
	char soft[32], hard[32];
};

static void limit_set(struct memlock *m, const char *type, int prio, const char *value)
{
	int soft = !strcmp(type, "soft") || !strcmp(type, "-");
	int hard = !strcmp(type, "hard") || !strcmp(type, "-");

	if (soft && prio <= m->sp) {
		m->sp = prio;
		snprintf(m->soft, sizeof(m->soft), "%s", value);
	}
	if (hard && prio <= m->hp) {
		m->hp = prio;
		snprintf(m->hard, sizeof(m->hard), "%s", value);
	}
}

static int in_groups(const char *user, const char *group)
{
	struct passwd *pw = getpwnam(user);
	gid_t gids[256];
	int n = 256;

	if (!pw || getgrouplist(user, pw->pw_gid, gids, &n) < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		struct group *g = getgrgid(gids[i]);

		if (g && !strcmp(g->gr_name, group))
			return 1;
	}
	return 0;
}

static void limits_file(struct memlock *m, const char *path, const char *user)
{
	FILE *f = fopen(path, "re");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *fld[4], *save = NULL, *value;
		int nf = 0;

		for (char *t = strtok_r(line, " \t\r\n", &save); t && nf < 4;
		     t = strtok_r(NULL, " \t\r\n", &save))
			fld[nf++] = t;
		if (nf < 4 || fld[0][0] == '#' || strcmp(fld[2], "memlock"))
			continue;
		value = !strcmp(fld[3], "infinity") || !strcmp(fld[3], "-1") ? "unlimited" : fld[3];
		if (!strcmp(fld[0], user))
			limit_set(m, fld[1], 1, value);
		else if (!strcmp(user, "root"))
			continue;
		else if (fld[0][0] == '@' && in_groups(user, fld[0] + 1))
			limit_set(m, fld[1], 2, value);
		else if (!strcmp(fld[0], "*"))
			limit_set(m, fld[1], 4, value);
	}
	fclose(f);
}

/* ulimit -l VALUE: KiB or "unlimited"; anything else leaves the limit (the shell's error, hushed). */
static int limit_value(const char *v, rlim_t *out)
{
	char *end;
	unsigned long long k;

	if (!strcmp(v, "unlimited")) {
		*out = RLIM_INFINITY;
		return 0;
	}
	errno = 0;
	k = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-')
		return -1;
	*out = (rlim_t)k * 1024;
	return 0;
}

static void apply_memlock(void)
{
	struct memlock m = { 9, 9, "64", "64" };
	const char *user = getenv("USER");
	struct passwd *pw;
	glob_t g;
	struct rlimit rl;
	rlim_t v;

	if (!user || !*user)
		user = (pw = getpwuid(getuid())) ? pw->pw_name : "root";
	limits_file(&m, INSIDE "/node/root/etc/security/limits.conf", user);
	if (!glob(INSIDE "/node/root/etc/security/limits.d/*.conf", 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			limits_file(&m, g.gl_pathv[i], user);
		globfree(&g);
	}
	/* ulimit -H -l HARD, then ulimit -S -l SOFT: raising needs
	 * CAP_SYS_RESOURCE; where the sim runs without it (a container) the
	 * limit stays the machine's and the tools that care ask sim-pam-limits. */
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && !limit_value(m.hard, &v)) {
		rl.rlim_max = v;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && !limit_value(m.soft, &v)) {
		rl.rlim_cur = v;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
}

static void inside(const char *cmd, const char *login)
{
	char *home = INSIDE "/node/home";

	enter_namespaces();
	mount_node(login);
	set_hostname();
	/* sshd set HOME to NODE/home; inside, reach it through the node's
	 * bind: D may live under /tmp, which is the node's own by now. */
	setenv("HOME", home, 1);
	if (chdir(home) && chdir("/"))
		die(255, "cannot change to /: %s", strerror(errno));
	setenv("PATH", INSIDE "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	       1);
	setenv("BRINGUP_SIM_NODE", INSIDE "/node", 1);
	setenv("BRINGUP_SIM_CLUSTER", INSIDE "/cluster", 1);
	unsetenv("BRINGUP_SIM_DIR");
	unsetenv("BRINGUP_SIM_USERNS");
	unsetenv("BRINGUP_SIM_LOGIN");
	apply_memlock();
	/* root's login shell on RHEL and DGX OS is bash: commands run under
	 * it, and a missing one is reported in the node's bash's words
	 * (sim-bashenv). (bash reads BASH_ENV unless it thinks itself the
	 * top-level shell of an ssh session, when it reads ~/.bashrc
	 * instead: SHLVL says it is not.) */
	if (!access("/bin/bash", X_OK)) {
		setenv("BASH_ENV", INSIDE "/bin/sim-bashenv", 1);
		setenv("SHLVL", "1", 1);
		if (*cmd)
			execl("/bin/bash", "/bin/bash", "-c", cmd, (char *)NULL);
		else
			execl("/bin/bash", "/bin/bash", "-l", (char *)NULL);
		die(126, "cannot run /bin/bash: %s", strerror(errno));
	}
	if (*cmd)
		execl("/bin/sh", "/bin/sh", "-c", cmd, (char *)NULL);
	else
		execl("/bin/sh", "/bin/sh", "-l", (char *)NULL);
	die(126, "cannot run /bin/sh: %s", strerror(errno));
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

int main(void)
{
	const char *cmd = getenv("SSH_ORIGINAL_COMMAND");
	char login[24], *work, *reboot;
	pid_t pid;
	int status, rc;

	node = getenv("BRINGUP_SIM_NODE");
	dir = getenv("BRINGUP_SIM_DIR");
	if (!node || !*node)
		die(255, "BRINGUP_SIM_NODE not set");
	if (!dir || !*dir)
		die(255, "BRINGUP_SIM_DIR not set");
	if (!cmd)
		cmd = "";
	log_command(cmd);
	outside_faults();
	snprintf(login, sizeof(login), "%ld", (long)getpid());
	setenv("BRINGUP_SIM_LOGIN", login, 1);
	/* Not exec: a reboot asked for inside (state/reboot-requested) needs a
	 * process out here, in the machine's namespaces, to take the node's
	 * sshd down and start it again (sim-boot). */
	pid = fork();
	if (pid < 0)
		die(255, "fork: %s", strerror(errno));
	if (pid == 0)
		inside(cmd, login);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die(255, "wait: %s", strerror(errno));
	/* as a shell reports it: 128 + the signal of a command killed by one */
	rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	work = fmt("%s/work/%s", node, login);
	nftw(work, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(work);
	reboot = fmt("%s/state/reboot-requested", node);
	if (exists(reboot)) {
		char *boot = fmt("%s/bin/sim-boot", dir);
		char *bargv[] = { boot, (char *)node, NULL };

		run_wait(bargv);
		free(boot);
	}
	free(reboot);
	/* A command killed by a signal dies of it here too, for sshd to report. */
	if (rc > 128 && rc < 160) {
		signal(rc - 128, SIG_DFL);
		kill(getpid(), rc - 128);
	}
	return rc;
}
