/*
 * Option tables and bringup(1): every option a command parses is in its
 * table (the sources are scanned for getopt tables of their own), every
 * table entry is in the page, and man/bringup.1 is what `make man` makes
 * from the tables now. Run from the top of the tree (make unit does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cmd/cmd.h"
#include "../../cmd/doc-man.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;

	if (!f)
		fail_msg("cannot read %s (run the unit tests from the top of the tree)", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

static char *render(void)
{
	char *tmpl = slurp("man/bringup.1.in"), *md = slurp("inventory/README.md");
	struct strbuf out = STRBUF_INIT;
	struct err e = ERR_INIT;

	if (doc_man(&out, tmpl, md, &e))
		fail_msg("%s", err_msg(&e));
	free(tmpl);
	free(md);
	return strbuf_detach(&out, NULL);
}

static void test_checked_in_page_is_current(void **state)
{
	char *want = render(), *have = slurp("man/bringup.1");

	(void)state;
	if (strcmp(want, have))
		fail_msg("man/bringup.1 is stale: run `make man` and commit it");
	free(want);
	free(have);
}

static void test_every_option_is_in_the_page(void **state)
{
	char *page = render();

	(void)state;
	for (unsigned i = 0; i < ncommands; i++) {
		char ss[128];

		snprintf(ss, sizeof(ss), ".SS \"bringup %s\"", commands[i].name);
		if (!strstr(page, ss))
			fail_msg("bringup(1) has no section for %s", commands[i].name);
		for (const struct cmd_option *o = commands[i].options; o && o->name; o++) {
			struct strbuf want = STRBUF_INIT;

			strbuf_addstr(&want, "\\fB\\-\\-");
			doc_roff_escape(&want, o->name, strlen(o->name));
			/* Inside this command's section, before the next one. */
			const char *sec = strstr(page, ss), *next = strstr(sec + 1, ".SS ");
			const char *at = strstr(sec, want.buf);
			if (!at || (next && at > next))
				fail_msg("bringup(1) lacks %s --%s", commands[i].name, o->name);
			strbuf_release(&want);
		}
	}
	free(page);
}

static void test_tables_are_sound(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ncommands; i++) {
		const struct cmd_option *t = commands[i].options;
		size_t n = 0;

		if (!t)
			fail_msg("%s has no option table (an empty one is { { NULL } })",
				 commands[i].name);
		for (const struct cmd_option *o = t; o->name; o++, n++) {
			assert_non_null(o->help);
			for (const struct cmd_option *p = t; p != o; p++) {
				if (!strcmp(p->name, o->name) || p->key == o->key)
					fail_msg("%s: --%s and --%s clash", commands[i].name,
						 p->name, o->name);
			}
		}
		assert_true(n <= CMD_MAX_OPTIONS);
		if (n && !cmd_option_find(t, "help"))
			fail_msg("%s parses options but not --help", commands[i].name);
	}
}

/* The command cmd/cmd-NAME.c implements, or NULL. */
static const struct cmd_entry *command_of(const char *path)
{
	char name[64];
	const char *b = strrchr(path, '/');

	snprintf(name, sizeof(name), "%s", b ? b + 5 : path);
	name[strcspn(name, ".")] = '\0';
	return cmd_lookup(name);
}

/*
 * A command that keeps a getopt table of its own (the way commands were
 * written before the tables) must still document every long option in it.
 */
static void test_sources_parse_nothing_undocumented(void **state)
{
	static const char *const kinds[] = { "required_argument", "no_argument",
					     "optional_argument" };
	glob_t g;

	(void)state;
	assert_int_equal(glob("cmd/cmd-*.c", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 8);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *src = slurp(g.gl_pathv[i]);
		const struct cmd_entry *c = command_of(g.gl_pathv[i]);

		for (const char *p = src; (p = strstr(p, "{ \"")); p++) {
			const char *name = p + 3, *q = strchr(name, '"');
			char opt[64];

			if (!q || (size_t)(q - name) >= sizeof(opt))
				continue;
			bool is_getopt = false;
			for (size_t k = 0; k < 3; k++)
				if (!strncmp(q + 1, ", ", 2) && !strncmp(q + 3, kinds[k], strlen(kinds[k])))
					is_getopt = true;
			if (!is_getopt)
				continue;
			snprintf(opt, sizeof(opt), "%.*s", (int)(q - name), name);
			if (!c)
				fail_msg("%s parses --%s but is no command of the table", g.gl_pathv[i], opt);
			if (!cmd_option_find(c->options, opt))
				fail_msg("%s parses --%s, which cmd_%s_options (and so bringup(1), "
					 "--help and completion) lacks", g.gl_pathv[i], opt, c->name);
		}
		free(src);
	}
	globfree(&g);
}

static void test_getopt_follows_the_table(void **state)
{
	static const struct cmd_option t[] = {
		{ "inventory", 'i', OPT_SHORT, "FILE", "x" },
		{ "resume", 'R', 0, NULL, "x" },
		{ "help", 'h', OPT_SHORT, NULL, "x" },
		{ NULL },
	};
	char *argv[] = { "cmd", "-i", "inv.yaml", "--resume", "-R", "--nope", NULL };
	struct cmd_getopt g;

	(void)state;
	cmd_getopt_init(&g, t, false);
	assert_string_equal(g.shortopts, "i:h");
	opterr = 0;
	optind = 1;
	assert_int_equal(cmd_getopt(&g, 6, argv), 'i');
	assert_string_equal(optarg, "inv.yaml");
	assert_int_equal(cmd_getopt(&g, 6, argv), 'R');
	assert_int_equal(cmd_getopt(&g, 6, argv), '?'); /* -R is long-only */
	assert_int_equal(cmd_getopt(&g, 6, argv), '?');
	assert_int_equal(cmd_getopt(&g, 6, argv), -1);
	opterr = 1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_are_sound),
		cmocka_unit_test(test_getopt_follows_the_table),
		cmocka_unit_test(test_sources_parse_nothing_undocumented),
		cmocka_unit_test(test_every_option_is_in_the_page),
		cmocka_unit_test(test_checked_in_page_is_current),
	};
	return cmocka_run_group_tests_name("doc-man", tests, NULL, NULL);
}
