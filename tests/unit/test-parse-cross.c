/*
 * Every parser is sure it reads its own tool (issue 26): each real output in
 * tests/fixtures/tools/TOOL/ (TOOL a parser's name) and in
 * tests/fixtures/other-tools/TOOL/ (tools without a parser) is given to
 * every other parser, which must refuse it: no result,
 * neither "ok": true nor another tool's failure taken as its own. A few
 * outputs really are two tools' (nvidia-smi -q prints the same NVML
 * failure as nvidia-smi: it is one binary): those are listed in also_reads
 * with the reason, nothing else is exempt.
 */
#include "parse-fixture.h"

#include <dirent.h>

/* Parsers that also read some of another folder's outputs (files whose
 * name starts with prefix), and why. */
static const struct {
	const char *parser, *folder, *prefix, *why;
} also_reads[] = {
	/* one binary: every nvidia-smi subcommand fails alike */
	{ "nvidia-smi-q", "nvidia-smi", "failed_to_initialize_nvml", "nvidia-smi -q" },
	{ "nvidia-smi-topo", "nvidia-smi", "failed_to_initialize_nvml", "nvidia-smi topo -m" },
	/* a lone "ibpanic: [pid] main: ..." line: every infiniband-diags C
	 * tool prints it (ibdiag_common.h's IBPANIC), and ibhosts is a script
	 * over ibnetdiscover; the line alone does not say which tool */
	{ "ibhosts", "ibstat", "ibpanic_azure_an0_stat_failed_only_line", "IBPANIC" },
	{ "iblinkinfo", "ibstat", "ibpanic_azure_an0_stat_failed_only_line", "IBPANIC" },
	{ "ibnetdiscover", "ibstat", "ibpanic_azure_an0_stat_failed_only_line", "IBPANIC" },
	{ "perfquery", "ibstat", "ibpanic_azure_an0_stat_failed_only_line", "IBPANIC" },
	{ "saquery", "ibstat", "ibpanic_azure_an0_stat_failed_only_line", "IBPANIC" },
	/* nccl-tests run under NCCL_DEBUG=INFO: NCCL's own log lines are in
	 * its output, and nccl-debug reads them (validate does, when the
	 * run has no table) */
	{ "nccl-debug", "nccl-tests", "", "NCCL_DEBUG=INFO lines" },
	{ NULL, NULL, NULL, NULL },
};

static int exempt(const char *parser, const char *folder, const char *file)
{
	for (size_t i = 0; also_reads[i].parser; i++)
		if (!strcmp(also_reads[i].parser, parser) && !strcmp(also_reads[i].folder, folder) &&
		    !strncmp(file, also_reads[i].prefix, strlen(also_reads[i].prefix)))
			return 1;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Feeds every file under root/TOOL/ to every parser but TOOL's. */
static void cross_feed(const char *root, size_t *runs, size_t *accepted, size_t *failures)
{
	struct dirent **dirs;
	size_t np;
	const struct parser *p = parser_list(&np);
	int nd = scandir(root, &dirs, NULL, by_name);

	assert_true(nd > 0);
	for (int d = 0; d < nd; d++) {
		char dir[1024];
		struct dirent **files;
		int nf;

		snprintf(dir, sizeof(dir), "%s/%s", root, dirs[d]->d_name);
		nf = dirs[d]->d_name[0] == '.' ? -1 : scandir(dir, &files, NULL, by_name);
		for (int f = 0; f < nf; f++) {
			struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;

			if (files[f]->d_name[0] == '.') {
				free(files[f]);
				continue;
			}
			strbuf_addf(&path, "%s/%s", dir, files[f]->d_name);
			file_read(path.buf, &sb);
			for (size_t i = 0; i < np; i++) {
				struct err err = ERR_INIT;
				json_t *out = NULL;

				if (!strcmp(p[i].name, dirs[d]->d_name) ||
				    exempt(p[i].name, dirs[d]->d_name, files[f]->d_name))
					continue;
				(*runs)++;
				if (!p[i].fn(sb.buf, sb.len, &out, &err)) {
					int ok = json_is_true(json_object_get(out, "ok"));

					*accepted += ok;
					*failures += !ok;
					print_message("%s took %s: %s\n", p[i].name, path.buf,
						      ok ? "ok: true" :
						      json_string_value(json_object_get(out, "error")));
				}
				json_decref(out);
				err_clear(&err);
			}
			strbuf_release(&sb);
			strbuf_release(&path);
			free(files[f]);
		}
		if (nf >= 0)
			free(files);
		free(dirs[d]);
	}
	free(dirs);
}

static void test_other_tools_refused(void **state)
{
	const char *root = getenv("BRINGUP_FIXTURES");
	size_t runs = 0, accepted = 0, failures = 0;
	struct strbuf other = STRBUF_INIT;

	(void)state;
	strbuf_addf(&other, "%s/../other-tools", root ? root : "tests/fixtures/tools");
	cross_feed(root ? root : "tests/fixtures/tools", &runs, &accepted, &failures);
	cross_feed(other.buf, &runs, &accepted, &failures);
	strbuf_release(&other);
	print_message("%zu runs: %zu ok:true, %zu ok:false on another tool's output\n", runs,
		      accepted, failures);
	assert_true(runs > 5000);
	assert_int_equal(accepted, 0);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_other_tools_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
