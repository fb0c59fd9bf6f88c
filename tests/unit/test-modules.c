/*
 * modules/: the table is sorted and complete (every modules/mod-*.c is in it
 * and in playbooks/deploy.yaml), every module is whole and its defaults pass
 * its own checks; and the mod_ctx a module works through, run on this
 * machine (a local stage): files compared, diffed in check mode, written
 * atomically in apply mode; probes read many files in one command; templates
 * render; commands quote their arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../engine/base/diff.h"
#include "../../engine/deploy/modctx.h"
#include "../../engine/deploy/playbook.h"
#include "../../engine/base/strbuf.h"
#include "../../engine/base/strlist.h"
#include "../../engine/base/xalloc.h"
#include "../../engine/deploy/module.h"
#include "../../modules/scale-common.h"

static void test_table_sorted_and_whole(void **state)
{
	(void)state;
	assert_true(stage_nmodules >= 3);
	for (size_t i = 0; i < stage_nmodules; i++) {
		const struct stage_module *m = stage_modules[i];

		if (i)
			assert_true(strcmp(stage_modules[i - 1]->name, m->name) < 0);
		assert_non_null(m->summary);
		assert_non_null(m->check);
		assert_non_null(m->apply);
		assert_true(m->version > 0);
		assert_true(m->flags & (MOD_PER_HOST | MOD_ONCE | MOD_LOCAL));
		assert_ptr_equal(stage_module_find(m->name), m);
		for (const struct param_spec *p = m->params; p && p->name; p++) {
			json_t *def = p->type == PARAM_BOOL ? json_boolean(!strcmp(p->def, "true")) :
				      p->type == PARAM_UINT ? json_integer(atoll(p->def)) :
				      json_string(p->def);

			assert_non_null(p->help);
			if (p->type == PARAM_BOOL)
				assert_true(!strcmp(p->def, "true") || !strcmp(p->def, "false"));
			if (param_check(p, def))
				fail_msg("%s.%s: default '%s' is not %s", m->name, p->name, p->def,
					 param_check(p, def));
			json_decref(def);
			assert_ptr_equal(module_param(m, p->name), p);
		}
	}
	assert_null(stage_module_find("nosuch"));
}

/* modules/mod-selinux-ib.c is the module selinux_ib. */
static void test_every_module_file_is_registered_and_shipped(void **state)
{
	DIR *d = opendir("modules");
	struct playbook *pb = NULL, *vb = NULL;
	struct err e = ERR_INIT;
	struct dirent *de;
	size_t files = 0;

	(void)state;
	assert_non_null(d);
	assert_int_equal(playbook_load("playbooks/deploy.yaml", stage_modules, stage_nmodules,
				       &pb, &e), 0);
	assert_int_equal(playbook_load("playbooks/validate.yaml", stage_modules, stage_nmodules,
				       &vb, &e), 0);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *name;
		bool shipped = false;

		if (strncmp(de->d_name, "mod-", 4) || len < 7 || strcmp(de->d_name + len - 2, ".c"))
			continue;
		name = xstrndup(de->d_name + 4, len - 6);
		for (char *c = name; *c; c++)
			if (*c == '-')
				*c = '_';
		if (!stage_module_find(name))
			fail_msg("modules/%s is not in the table of modules.c", de->d_name);
		for (size_t i = 0; i < pb->nstages; i++)
			shipped |= !strcmp(pb->stages[i].module->name, name);
		for (size_t i = 0; i < vb->nstages; i++)
			shipped |= !strcmp(vb->stages[i].module->name, name);
		/* the rolling upgrade's playbook (engine/deploy/upgrade.c; test-upgrade loads it);
		 * gpu_driver only there: the OS image (DGX OS) brings the driver, so
		 * deploy has nothing to install and only an upgrade changes it */
		shipped |= !strcmp(name, "scale_node") || !strcmp(name, "kube_node") ||
			   !strcmp(name, "gpu_driver");
		if (!shipped)
			fail_msg("module %s has no stage in playbooks/deploy.yaml or validate.yaml", name);
		files++;
		free(name);
	}
	closedir(d);
	assert_int_equal(files, stage_nmodules);
	playbook_free(pb);
	playbook_free(vb);
}

static void test_param_check(void **state)
{
	struct param_spec b = { "b", PARAM_BOOL, "true" }, u = { "u", PARAM_UINT, "1" };
	const struct param_spec *limit = module_param(stage_module_find("memlock"), "limit");
	json_t *t = json_true(), *i = json_integer(5), *neg = json_integer(-1);
	json_t *s = json_string("x"), *ul = json_string("unlimited"), *num = json_integer(65536);

	(void)state;
	assert_null(param_check(&b, t));
	assert_non_null(param_check(&b, s));
	assert_null(param_check(&u, i));
	assert_non_null(param_check(&u, neg));
	assert_non_null(param_check(&u, t));
	assert_null(param_check(limit, ul));
	assert_null(param_check(limit, num));
	assert_non_null(param_check(limit, s));
	json_decref(t);
	json_decref(i);
	json_decref(neg);
	json_decref(s);
	json_decref(ul);
	json_decref(num);
}

/* ---- mod_ctx on this machine ---- */

struct local {
	struct mod_ctx mc;
	struct err err;
	json_t *params;
	char *dir;
};

static void local_init(struct local *l, bool checking)
{
	memset(l, 0, sizeof(*l));
	mod_ctx_init(&l->mc);
	l->params = json_pack("{s:s, s:b}", "limit", "unlimited", "crio", 1);
	l->mc.host = "localhost";
	l->mc.stage = "test";
	l->mc.local = true;
	l->mc.checking = checking;
	l->mc.params = l->params;
	l->mc.err = &l->err;
	l->mc.timeout_s = 10;
	l->dir = xstrdup("/tmp/bringup-test-modules.XXXXXX");
	if (!mkdtemp(l->dir))
		fail_msg("mkdtemp");
}

static void local_release(struct local *l)
{
	char *cmd = xasprintf("rm -rf '%s'", l->dir);

	if (system(cmd)) {
		/* A leftover temporary directory is not a test failure. */
	}
	free(cmd);
	mod_ctx_release(&l->mc);
	json_decref(l->params);
	err_clear(&l->err);
	free(l->dir);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void test_put_file_check_then_apply(void **state)
{
	struct local l;
	char *path, *got;
	bool changed;
	struct stat st;

	(void)state;
	local_init(&l, true);
	path = xasprintf("%s/sub dir/it's.conf", l.dir);
	/* Check mode: a new file is a change with a diff, and nothing is written. */
	assert_int_equal(mod_put_file(&l.mc, path, "a\nb\n", 0644, &changed), 0);
	assert_true(changed);
	assert_int_equal(l.mc.changes.n, 1);
	assert_non_null(strstr(l.mc.changes.v[0], "create "));
	assert_non_null(strstr(l.mc.diffs.v[0], "--- /dev/null\n"));
	assert_non_null(strstr(l.mc.diffs.v[0], "@@ -0,0 +1,2 @@\n+a\n+b\n"));
	assert_int_not_equal(access(path, F_OK), 0);

	/* Apply mode writes it, with its mode, atomically (no temporary left). */
	l.mc.phase = PHASE_APPLY;
	assert_int_equal(mod_put_file(&l.mc, path, "a\nb\n", 0640, &changed), 0);
	assert_true(changed);
	got = slurp(path);
	assert_string_equal(got, "a\nb\n");
	free(got);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);

	/* The same content and mode again: no change, in any phase. */
	assert_int_equal(mod_put_file(&l.mc, path, "a\nb\n", 0640, &changed), 0);
	assert_false(changed);
	l.mc.phase = PHASE_CHECK;
	assert_int_equal(mod_put_file(&l.mc, path, "a\nb\n", 0640, &changed), 0);
	assert_false(changed);
	assert_int_equal(l.mc.changes.n, 1);
	/* A new line in the middle: a diff with context. */
	assert_int_equal(mod_put_file(&l.mc, path, "a\nc\nb\n", 0640, &changed), 0);
	assert_true(changed);
	assert_string_equal(l.mc.diffs.v[1] + strcspn(l.mc.diffs.v[1], "@"),
			    "@@ -1,2 +1,3 @@\n a\n+c\n b\n");
	/* Only the mode differs. */
	assert_int_equal(mod_put_file(&l.mc, path, "a\nb\n", 0600, &changed), 0);
	assert_non_null(strstr(l.mc.changes.v[2], "mode 640 -> 600"));
	free(path);
	local_release(&l);
}

static void test_upload_only_in_apply(void **state)
{
	struct local l;
	char *src, *dst, *got, *cmd;
	struct stat st;

	(void)state;
	local_init(&l, false);
	src = xasprintf("%s/src", l.dir);
	dst = xasprintf("%s/dst", l.dir);
	cmd = xasprintf("printf payload >'%s'", src);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mod_upload(&l.mc, src, dst, 0600), ERR_INTERNAL);
	assert_int_not_equal(access(dst, F_OK), 0);
	err_clear(&l.err);
	l.mc.phase = PHASE_APPLY;
	assert_int_equal(mod_upload(&l.mc, src, dst, 0600), 0);
	got = slurp(dst);
	assert_string_equal(got, "payload");
	assert_int_equal(stat(dst, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	free(got);
	free(src);
	free(dst);
	free(cmd);
	local_release(&l);
}

static void test_probe_reads_files_in_one_command(void **state)
{
	struct local l;
	char *a, *b, *c, *cmd;
	const char *paths[4];
	struct cmd_result res;
	struct strbuf sb = STRBUF_INIT;
	bool exists;

	(void)state;
	local_init(&l, false);
	a = xasprintf("%s/a", l.dir);
	b = xasprintf("%s/no such", l.dir);
	c = xasprintf("%s/c", l.dir);
	cmd = xasprintf("printf 'x\\ny' >'%s'; : >'%s'; chmod 600 '%s'", a, c, a);
	assert_int_equal(system(cmd), 0);
	paths[0] = a;
	paths[1] = b;
	paths[2] = c;
	paths[3] = NULL;
	assert_int_equal(mod_probe(&l.mc, "memlock/crio-state.sh", NULL, paths, &res), 0);
	/* The script's own output, without the files after it. */
	assert_non_null(strstr(res.out.buf, "active="));
	assert_null(strstr(res.out.buf, "bringup-files"));
	cmd_result_release(&res);
	/* Now from the cache: even after the files change underneath. */
	unlink(a);
	assert_int_equal(mod_read_file(&l.mc, a, &sb, &exists), 0);
	assert_true(exists);
	assert_string_equal(sb.buf, "x\ny");
	strbuf_reset(&sb);
	assert_int_equal(mod_read_file(&l.mc, b, &sb, &exists), 0);
	assert_false(exists);
	assert_int_equal(mod_read_file(&l.mc, c, &sb, &exists), 0);
	assert_true(exists);
	assert_int_equal(sb.len, 0);
	/* Apply reads the host again. */
	l.mc.phase = PHASE_APPLY;
	assert_int_equal(mod_read_file(&l.mc, a, &sb, &exists), 0);
	assert_false(exists);
	strbuf_release(&sb);
	free(a);
	free(b);
	free(c);
	free(cmd);
	local_release(&l);
}

static void test_exec_quotes_and_renders(void **state)
{
	static const char *const argv[] = { "printf", "%s|%s", "a b", "it's $HOME", NULL };
	static const char *const fail_argv[] = { "sh", "-c", "echo oops >&2; exit 4", NULL };
	struct local l;
	struct cmd_result res;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	local_init(&l, false);
	assert_int_equal(mod_exec(&l.mc, argv, NULL, &res), 0);
	assert_string_equal(res.out.buf, "a b|it's $HOME");
	cmd_result_release(&res);
	assert_int_equal(mod_exec_ok(&l.mc, fail_argv, NULL, &res), ERR_REMOTE);
	assert_string_equal(err_msg(&l.err), "sh exited 4: oops");
	cmd_result_release(&res);
	mod_set(&l.mc, "systemd_limit", "infinity");
	assert_int_equal(mod_render(&l.mc, "memlock/crio-memlock.conf", &sb), 0);
	assert_non_null(strstr(sb.buf, "\nLimitMEMLOCK=infinity\n"));
	strbuf_reset(&sb);
	assert_int_equal(mod_render(&l.mc, "memlock/limits-memlock.conf", &sb), 0);
	assert_non_null(strstr(sb.buf, "root    hard    memlock    unlimited\n"));
	assert_int_equal(mod_render(&l.mc, "nosuch", &sb), ERR_INTERNAL);
	strbuf_release(&sb);
	/* A cancelled run starts no command. */
	{
		volatile sig_atomic_t stop = 1;

		l.mc.cancelled = &stop;
		assert_int_equal(mod_exec(&l.mc, argv, NULL, &res), ERR_CANCELLED);
		cmd_result_release(&res);
	}
	local_release(&l);
}

static void test_diff(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	diff_unified("a", "same\n", "b", "same\n", &sb);
	assert_int_equal(sb.len, 0);
	diff_unified("a", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "b",
		     "1\n2\nthree\n4\n5\n6\n7\n8\n9\nten\n", &sb);
	assert_string_equal(sb.buf, "--- a\n+++ b\n"
			    "@@ -1,10 +1,10 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n 8\n 9\n-10\n+ten\n");
	strbuf_reset(&sb);
	diff_unified("a", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "b",
		     "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n", &sb);
	assert_string_equal(sb.buf, "--- a\n+++ b\n"
			    "@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n"
			    "@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n");
	strbuf_reset(&sb);
	diff_unified("a", "x", "b", "x\n", &sb);
	assert_string_equal(sb.buf, "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+x\n");
	strbuf_release(&sb);
}

/* verbsPorts: the storage HCAs when named (RoCE ones with verbsRdmaCm), else IB compute. */
static void test_scale_verbs_ports_from_storage(void **state)
{
	const char *hosts_json =
		"[{\"name\": \"hgx01\", \"roles\": [\"scale_client\"],"
		"  \"vars\": {\"gpfs_nodeclass\": \"hgx\", \"compute_hcas\": [\"mlx5_0\"],"
		"           \"storage_hcas\": [\"mlx5_8\", \"mlx5_9\"]},"
		"  \"hcas\": [{\"name\": \"mlx5_0\", \"port\": 1, \"link_layer\": \"infiniband\"},"
		"            {\"name\": \"mlx5_1\", \"port\": 1, \"link_layer\": \"infiniband\"},"
		"            {\"name\": \"mlx5_8\", \"port\": 1, \"link_layer\": \"ethernet\"},"
		"            {\"name\": \"mlx5_9\", \"port\": 1, \"link_layer\": \"ethernet\"}]}]";
	struct mod_ctx mc;
	struct scale_nodes ns;
	json_t *want;

	(void)state;
	mod_ctx_init(&mc);
	mc.run_hosts = json_loads(hosts_json, 0, NULL);
	assert_non_null(mc.run_hosts);
	scale_nodes_get(&mc, &ns);
	want = scale_desired_config(&ns, "hgx");
	assert_string_equal(json_string_value(json_object_get(want, "verbsPorts")),
			    "mlx5_8/1 mlx5_9/1");
	assert_string_equal(json_string_value(json_object_get(want, "verbsRdmaCm")), "enable");
	json_decref(want);
	scale_nodes_release(&ns);
	/* no storage HCAs named: the InfiniBand compute ports, no RDMA CM */
	json_object_del(json_object_get(json_array_get(mc.run_hosts, 0), "vars"), "storage_hcas");
	scale_nodes_get(&mc, &ns);
	want = scale_desired_config(&ns, "hgx");
	assert_string_equal(json_string_value(json_object_get(want, "verbsPorts")), "mlx5_0/1");
	assert_null(json_object_get(want, "verbsRdmaCm"));
	json_decref(want);
	scale_nodes_release(&ns);
	mod_ctx_release(&mc);
}

/*
 * mmaddnode's partial success, read from the real capture (five nodes, one
 * not reachable, still "Command successfully completed"): the node not
 * added and mmaddnode's reason; a clean run names none.
 */
static void test_scale_addnode_not_added(void **state)
{
	struct strlist nodes = STRLIST_INIT, why = STRLIST_INIT;
	struct strbuf cap = STRBUF_INIT, ok = STRBUF_INIT;
	FILE *f;
	char buf[4096];
	size_t n;

	(void)state;
	f = fopen("tests/fixtures/other-tools/mmaddnode/"
		  "mmaddnode_5_nodes_one_cannot_be_reached_not_added.txt", "r");
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&cap, buf, n);
	fclose(f);
	/* a terminal's capture: both streams in one, as out */
	scale_addnode_not_added(cap.buf, "", &nodes, &why);
	assert_int_equal(nodes.n, 1);
	assert_string_equal(nodes.v[0], "client05");
	assert_string_equal(why.v[0], "client05 cannot be reached.");
	strlist_clear(&nodes);
	strlist_clear(&why);

	f = fopen("tests/fixtures/other-tools/mmaddnode/"
		  "mmaddnode_one_client_success_license_warning.txt", "r");
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&ok, buf, n);
	fclose(f);
	scale_addnode_not_added(ok.buf, "", &nodes, &why);
	assert_int_equal(nodes.n, 0);
	strbuf_release(&cap);
	strbuf_release(&ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_verbs_ports_from_storage),
		cmocka_unit_test(test_scale_addnode_not_added),
		cmocka_unit_test(test_table_sorted_and_whole),
		cmocka_unit_test(test_every_module_file_is_registered_and_shipped),
		cmocka_unit_test(test_param_check),
		cmocka_unit_test(test_put_file_check_then_apply),
		cmocka_unit_test(test_upload_only_in_apply),
		cmocka_unit_test(test_probe_reads_files_in_one_command),
		cmocka_unit_test(test_exec_quotes_and_renders),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
