/*
 * templates/precheck/facts.sh, run here with stand-ins for the host's tools
 * that log when they start. Orderings that hold whatever the load, because
 * the stand-ins wait for each other: the fabric reading (iblinkinfo) runs
 * beside the other facts (it waits until lspci, near the end, has started:
 * run before them, it would wait in vain); the counters' interval overlaps
 * them (the stand-in `sleep` waits until nvidia-smi -q has started, then
 * sleeps); the first round of counters comes before the other facts and the
 * second after them, the host's own clock putting them at least the
 * interval apart; no tool runs twice but perfquery (once a round); and the
 * output still splits into the sections precheck reads. With BRINGUP_GZIP=1
 * the same sections come back through gzip and facts_inflate, which refuses a
 * compressed part that is cut, corrupt, followed by other bytes or too large.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../../engine/base/strbuf.h"
#include "../../engine/base/xalloc.h"
#include "../../engine/facts/facts.h"

/* The stand-ins: each logs "TOOL ARGS" to $PROBE_LOG when it starts. */
static const char *const tools[] = { "perfquery", "iblinkinfo", "ibhosts", "nvidia-smi",
				     "dmesg", "uname", "lspci", "modinfo", "ibstat",
				     "ibstatus", "sminfo", "ibdev2netdev", "ofed_info", "lsmod",
				     "sleep" };

/* sh: wait (20 s at most) until the log has a line starting with $1, else log $2 */
#define WAIT_FOR "i=0; while ! grep -q \"^$1\" \"$PROBE_LOG\" && [ $i -lt 200 ]; do " \
	"/bin/sleep 0.1; i=$((i + 1)); done; [ $i -lt 200 ] || echo \"$2\" >>\"$PROBE_LOG\"\n"

static void stub(const char *dir, const char *tool)
{
	char *path = xasprintf("%s/%s", dir, tool);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"%s $*\" >>\"$PROBE_LOG\"\nwait_for() { " WAIT_FOR "}\n",
		tool);
	if (!strcmp(tool, "iblinkinfo"))
		fputs("wait_for lspci 'iblinkinfo alone'\necho 'CA: dgx01 mlx5_0:'\n", f);
	else if (!strcmp(tool, "sleep"))
		fputs("wait_for 'nvidia-smi -q' 'sleep alone'\n/bin/sleep \"$1\"\n"
		      "echo 'sleep done' >>\"$PROBE_LOG\"\n", f);
	else if (!strcmp(tool, "nvidia-smi"))
		fputs("echo smi\n", f);
	else if (!strcmp(tool, "uname"))
		fputs("echo 5.15.0-test\n", f);
	else if (!strcmp(tool, "dmesg"))
		fputs("echo 'NVRM: Xid (PCI:0000:07:00): 79'\n"
		      "echo 'nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -2)'\n", f);
	else
		fputs("echo ok\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	free(path);
}

static size_t count(const char *log, const char *tool)
{
	size_t n = 0, len = strlen(tool);

	for (const char *p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, tool, len) && p[len] == ' ';
	return n;
}

static char *slurp_len(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;

	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, len);
}

static char *slurp(const char *path)
{
	return slurp_len(path, NULL);
}

/* Runs facts.sh with the stand-ins of dir and the extra environment env:
 * its output (caller frees) and its length. */
static char *run_probe_env(const char *dir, const char *path, const char *env, size_t *len)
{
	char *cmd = xasprintf("PATH='%s':\"$PATH\" PROBE_LOG='%s/log' BRINGUP_FACTS='ib gpu' "
			      "BRINGUP_USER=root BRINGUP_NAME=dgx01 "
			      "BRINGUP_IB_PORTS='mlx5_0/1 mlx5_1/1' BRINGUP_IB_INTERVAL=1 "
			      "BRINGUP_FABRIC=1 %s sh '%s' >'%s/out' 2>&1",
			      dir, dir, env, path, dir);
	char *out = xasprintf("%s/out", dir), *text;

	assert_int_equal(system(cmd), 0);
	text = slurp_len(out, len);
	free(cmd);
	free(out);
	return text;
}

static char *run_probe(const char *dir, const char *path)
{
	return run_probe_env(dir, path, "", NULL);
}

static void test_overlapped_probe(void **state)
{
	char dir[] = "/tmp/bringup-test-probe.XXXXXX";
	struct strbuf script = STRBUF_INIT;
	struct err e = ERR_INIT;
	char *cmd, *log, *out, *path, *logpath, *second;
	json_t *raw = NULL;
	double a, b;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		stub(dir, tools[i]);
	facts_script(&script);
	path = xasprintf("%s/facts.sh", dir);
	logpath = xasprintf("%s/log", dir);
	f = fopen(path, "w");
	fwrite(script.buf, 1, script.len, f);
	fclose(f);
	out = run_probe(dir, path);
	log = slurp(logpath);

	/* beside the other facts, not before or after them */
	assert_null(strstr(log, "iblinkinfo alone"));
	assert_null(strstr(log, "sleep alone"));
	/* the first round before the other facts, the second after them and the interval */
	assert_true(strstr(log, "perfquery -x -C mlx5_1 -P 1") < strstr(log, "uname"));
	second = strstr(strstr(strstr(log, "perfquery") + 1, "perfquery") + 1, "perfquery");
	assert_non_null(second);
	assert_true(strstr(log, "lspci") < second);
	assert_true(strstr(log, "sleep done") < second);
	/* no tool twice, but perfquery once a round and port */
	for (size_t i = 1; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(tools[i], "modinfo") && strcmp(tools[i], "sleep"))
			assert_in_range(count(log, tools[i]), 0, !strcmp(tools[i], "nvidia-smi") ? 2 : 1);
	assert_int_equal(count(log, "perfquery"), 4);
	assert_int_equal(count(log, "modinfo"), 2); /* two modules */

	assert_int_equal(facts_split(out, strlen(out), &raw, &e), 0);
	assert_non_null(json_object_get(raw, "iblinkinfo"));
	assert_non_null(json_object_get(raw, "perfquery-b mlx5_1/1"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(raw, "kernel"),
								 "output")), "5.15.0-test\n");
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(raw, "dmesg-gpu"),
								    "output")), "NVRM: Xid"));
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(raw,
				"dmesg-modules"), "output")), "Unknown symbol"));
	/* the rounds at least the interval apart, as the host measured them */
	assert_int_equal(sscanf(json_string_value(json_object_get(json_object_get(raw,
				"perfquery-interval"), "output")), "%lf %lf", &a, &b), 2);
	assert_true(b - a >= 1.0);

	json_decref(raw);
	free(log);
	free(out);
	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
	free(logpath);
	strbuf_release(&script);
}

/* Writes the probe script for dir's stand-ins: its path (caller frees). */
static char *probe_setup(char *dir)
{
	struct strbuf script = STRBUF_INIT;
	char *path;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		stub(dir, tools[i]);
	facts_script(&script);
	path = xasprintf("%s/facts.sh", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(script.buf, 1, script.len, f);
	fclose(f);
	strbuf_release(&script);
	return path;
}

static void probe_cleanup(const char *dir, char *path)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
}

/* The compressed probe: the date plain and first, the rest through gzip; made
 * plain again, every section as the uncompressed run printed it but the
 * readings of the clock and of this machine's free memory and space. */
static void test_compressed_probe(void **state)
{
	char dir[] = "/tmp/bringup-test-probe.XXXXXX";
	char *path = probe_setup(dir);
	size_t plen, zlen;
	char *plain = run_probe_env(dir, path, "", &plen);
	char *zipped = run_probe_env(dir, path, "BRINGUP_GZIP=1", &zlen);
	struct strbuf zb = STRBUF_INIT;
	struct err e = ERR_INIT;
	json_t *a = NULL, *b = NULL, *v;
	const char *name, *mark;

	(void)state;
	mark = memmem(zipped, zlen, "\n::bringup-gzip::\n", 18);
	assert_non_null(mark);
	assert_true((unsigned char)mark[18] == 0x1f && (unsigned char)mark[19] == 0x8b);
	/* the date before the marker, plain */
	assert_non_null(memmem(zipped, (size_t)(mark - zipped), "::bringup-rc:: date 0\n", 22));
	assert_null(memmem(zipped, zlen, "::bringup-fact:: hostname", 25));
	strbuf_add(&zb, zipped, zlen);
	assert_int_equal(facts_inflate(&zb, FACTS_MAX_PLAIN, &e), 0);
	assert_null(memmem(zb.buf, zb.len, "::bringup-gzip::", 16));
	assert_int_equal(facts_split(plain, plen, &a, &e), 0);
	assert_int_equal(facts_split(zb.buf, zb.len, &b, &e), 0);
	assert_int_equal(json_object_size(a), json_object_size(b));
	json_object_foreach(a, name, v) {
		/* the clock's readings and this machine's free space move between runs */
		if (!strcmp(name, "date") || !strcmp(name, "perfquery-interval") ||
		    !strcmp(name, "df-tmp") || !strcmp(name, "meminfo"))
			continue;
		assert_non_null(json_object_get(b, name));
		if (!json_equal(v, json_object_get(b, name)))
			fprintf(stderr, "section %s differs\n", name);
		assert_true(json_equal(v, json_object_get(b, name)));
	}
	json_decref(a);
	json_decref(b);
	strbuf_release(&zb);
	free(plain);
	free(zipped);
	probe_cleanup(dir, path);
}

#define HEAD "\n::bringup-fact:: date\n1\n\n::bringup-rc:: date 0\n"
#define BODY "\n::bringup-fact:: hostname\ndgx01\n\n::bringup-rc:: hostname 0\n"

/* HEAD, the marker and BODY through gzip, as facts.sh prints them. */
static void compressed(struct strbuf *sb)
{
	unsigned char out[512];
	z_stream z = { 0 };

	assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (unsigned char *)BODY;
	z.avail_in = (uInt)strlen(BODY);
	z.next_out = out;
	z.avail_out = sizeof(out);
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	strbuf_reset(sb);
	strbuf_addstr(sb, HEAD "\n::bringup-gzip::\n");
	strbuf_add(sb, out, sizeof(out) - z.avail_out);
	deflateEnd(&z);
}

static void expect_refused(struct strbuf *sb, size_t max, const char *words)
{
	struct err e = ERR_INIT;

	assert_int_equal(facts_inflate(sb, max, &e), ERR_PARSE);
	assert_non_null(e.msg);
	if (!strstr(e.msg, words))
		fprintf(stderr, "'%s' does not say '%s'\n", e.msg, words);
	assert_non_null(strstr(e.msg, words));
	err_clear(&e);
}

static void test_inflate_refuses(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;
	size_t len;

	(void)state;
	compressed(&sb);
	assert_int_equal(facts_inflate(&sb, FACTS_MAX_PLAIN, &e), 0);
	assert_string_equal(sb.buf, HEAD BODY);
	/* nothing to do without the marker, or with it inside a section */
	assert_int_equal(facts_inflate(&sb, FACTS_MAX_PLAIN, &e), 0);
	assert_string_equal(sb.buf, HEAD BODY);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "\n::bringup-fact:: dmesg\nx\n\n::bringup-gzip::\n\x1f\x8b junk\n"
		      "\n::bringup-rc:: dmesg 0\n");
	len = sb.len;
	assert_int_equal(facts_inflate(&sb, FACTS_MAX_PLAIN, &e), 0);
	assert_int_equal(sb.len, len);

	compressed(&sb);
	strbuf_setlen(&sb, sb.len - 9); /* gzip's trailer and a byte of data */
	expect_refused(&sb, FACTS_MAX_PLAIN, "ends early (output cut?)");
	compressed(&sb);
	sb.buf[strlen(HEAD) + 18 + 12] ^= 0x55;
	expect_refused(&sb, FACTS_MAX_PLAIN, "corrupt");
	compressed(&sb);
	strbuf_addstr(&sb, "more");
	expect_refused(&sb, FACTS_MAX_PLAIN, "4 bytes after the end");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, HEAD "\n::bringup-gzip::\n" BODY);
	expect_refused(&sb, FACTS_MAX_PLAIN, "is not gzip output");
	compressed(&sb);
	expect_refused(&sb, 10, "grows past 10 bytes");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlapped_probe),
		cmocka_unit_test(test_compressed_probe),
		cmocka_unit_test(test_inflate_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
