/* engine/facts/parse-os.c: lsmod, os-release, getenforce and meminfo. */
#include "parse-fixture.h"

static void test_lsmod_nvidia_peermem(void **state)
{
	json_t *j = parse_fixture("lsmod", "lsmod_grep_nvidia_peermem_loaded_rhel7.txt");

	(void)state;
	assert_jsize_at(j, "modules", 3);
	assert_jstr_at(j, "modules/0/module", "nvidia_peermem");
	assert_jint_at(j, "modules/0/size", 13163);
	assert_jint_at(j, "modules/0/used", 0);
	assert_jsize_at(j, "modules/0/used_by", 0);
	assert_jstr_at(j, "modules/1/module", "ib_core");
	assert_jint_at(j, "modules/1/used", 9);
	assert_jsize_at(j, "modules/1/used_by", 9);
	assert_jstr_at(j, "modules/1/used_by/5", "nvidia_peermem");
	assert_jint_at(j, "modules/2/size", 36856397);
	assert_jint_at(j, "modules/2/used", 55);
	json_decref(j);
}

static void test_lsmod_nv_peer_mem(void **state)
{
	json_t *j = parse_fixture("lsmod", "lsmod_grep_peer_nv_peer_mem_dgx1_rhel76_seed_reconstructed.txt");

	(void)state;
	assert_jstr_at(j, "modules/0/module", "nv_peer_mem");
	assert_jint_at(j, "modules/1/used", 3261);
	assert_jstr_at(j, "modules/1/used_by/0", "nv_peer_mem");
	assert_jsize_at(j, "modules/2/used_by", 11);
	json_decref(j);
	expect_error("lsmod", "malformed_line2_size_not_a_number.txt",
		     "lsmod: line 2: expected 'module size used [by,...]'");
}

/* Unfiltered lsmod starts with its own header line. */
static void test_lsmod_header_line(void **state)
{
	const char text[] = "Module                  Size  Used by\n"
			    "nvidia_peermem         13163  0 \n";
	json_t *j = parse_text("lsmod", text, sizeof(text) - 1);

	(void)state;
	assert_jsize_at(j, "modules", 1);
	assert_jint_at(j, "modules/0/size", 13163);
	json_decref(j);
}

static void test_os_release_debian(void **state)
{
	json_t *j = parse_fixture("os-release", "debian_12_bookworm.txt");

	(void)state;
	assert_jstr_at(j, "PRETTY_NAME", "Debian GNU/Linux 12 (bookworm)");
	assert_jstr_at(j, "ID", "debian");
	assert_jstr_at(j, "VERSION_ID", "12");
	assert_jstr_at(j, "VERSION_CODENAME", "bookworm");
	json_decref(j);
	expect_error("os-release", "malformed_line2_unclosed_quote.txt",
		     "os-release: line 2: bad quoting");
}

/* os-release(5): single quotes are literal, \ escapes inside double quotes. */
static void test_os_release_quoting_rules(void **state)
{
	const char text[] = "# comment\n"
			    "NAME='Red Hat \"Enterprise\" Linux'\n"
			    "VARIANT=\"Server \\\"X\\\" \\$HOME\"\n"
			    "ID=rhel\n";
	json_t *j = parse_text("os-release", text, sizeof(text) - 1);

	(void)state;
	assert_jstr_at(j, "NAME", "Red Hat \"Enterprise\" Linux");
	assert_jstr_at(j, "VARIANT", "Server \"X\" $HOME");
	assert_jstr_at(j, "ID", "rhel");
	/* the three keys and parse.h's "ok" (os-release names are upper case,
	 * so it cannot meet one of the file's own) */
	assert_jsize_at(j, "", 4);
	assert_jbool_at(j, "ok", 1);
	json_decref(j);
	expect_error_text("os-release", "ID=rhel\nbad line\n", 17,
			  "os-release: line 2: expected KEY=VALUE");
}

/* /proc/meminfo: every size in KiB, the counts as they are; MemTotal required. */
static void test_meminfo(void **state)
{
	json_t *j = parse_fixture("meminfo", "linux_6.18_24g_build_host.txt");

	(void)state;
	assert_jint_at(j, "MemTotal", 24683620);
	assert_jint_at(j, "HugePages_Total", 0);
	assert_jint_at(j, "Hugepagesize", 2048);
	json_decref(j);
	expect_error("meminfo", "malformed_line3_unit_mb.txt",
		     "meminfo: line 3: expected a number of kB");
	expect_error_text("meminfo", "MemFree: 1 kB\n", 14, "meminfo: not meminfo output");
}

static void test_getenforce(void **state)
{
	json_t *j = parse_fixture("getenforce", "enforcing.txt");

	(void)state;
	assert_jstr_at(j, "mode", "Enforcing");
	assert_jbool_at(j, "enforcing", 1);
	json_decref(j);
	j = parse_fixture("getenforce", "permissive.txt");
	assert_jstr_at(j, "mode", "Permissive");
	assert_jbool_at(j, "enforcing", 0);
	json_decref(j);
	j = parse_fixture("getenforce", "disabled.txt");
	assert_jstr_at(j, "mode", "Disabled");
	json_decref(j);
	expect_error("getenforce", "malformed_line1_lowercase_sentence.txt",
		     "getenforce: line 1: expected Enforcing, Permissive or Disabled");
}

/* The module loader's lines on real dmesg captures: a peer-memory module
 * built against another driver and ib_core (-22, both kinds of line), and
 * one whose ib_core was reinstalled under it (-T stamps, err 0). */
static void test_dmesg_modules(void **state)
{
	const char *denied = "dmesg: read kernel buffer failed: Operation not permitted\n";
	const char *other = "[    5.102311] nvidia: loading out-of-tree module taints kernel.\n";
	const char *tail = "[ 1.0] nv_peer_mem: Unknown symbol ib_x (err -22) extra\n";
	json_t *j = parse_fixture("dmesg-modules",
				  "dmesg_nv_peer_mem_disagrees_about_version_unknown_symbol_excerpt.txt");

	(void)state;
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_jint_at(j, "modules/nv_peer_mem/lines", 16);
	assert_jsize_at(j, "modules/nv_peer_mem/unknown_symbols", 4);
	assert_jstr_at(j, "modules/nv_peer_mem/unknown_symbols/0", "nvidia_p2p_put_pages");
	assert_jstr_at(j, "modules/nv_peer_mem/unknown_symbols/1", "ib_register_peer_memory_client");
	assert_jstr_at(j, "modules/nv_peer_mem/version_mismatch/3", "nvidia_p2p_get_pages");
	json_decref(j);
	j = parse_fixture("dmesg-modules",
			  "dmesg_T_nv_peer_mem_unknown_symbol_ib_peer_memory_client_ofed_reinstalled.txt");
	assert_jsize_at(j, "modules/nv_peer_mem/unknown_symbols", 2);
	assert_jstr_at(j, "modules/nv_peer_mem/unknown_symbols/1", "ib_unregister_peer_memory_client");
	assert_jsize_at(j, "modules/nv_peer_mem/version_mismatch", 0);
	assert_null(json_object_get(json_object_get(json_object_get(j, "modules"), "nv_peer_mem"),
				    "load_error"));
	json_decref(j);
	/* modprobe -v's own words first, as the same post pastes them: its
	 * failure, and the symbols dmesg gives for it */
	j = parse_fixture("dmesg-modules",
			  "modprobe_v_then_dmesg_T_nv_peer_mem_unknown_symbol_in_module.txt");
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_jstr_at(j, "error", "modprobe: ERROR: could not insert 'nv_peer_mem': Unknown symbol "
		       "in module, or unknown parameter (see dmesg)");
	assert_jstr_at(j, "modules/nv_peer_mem/load_error",
		       "Unknown symbol in module, or unknown parameter (see dmesg)");
	assert_jsize_at(j, "modules/nv_peer_mem/unknown_symbols", 2);
	assert_jint_at(j, "modules/nv_peer_mem/lines", 4);
	json_decref(j);
	j = parse_text("dmesg-modules", denied, strlen(denied));
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_jstr_at(j, "error", "dmesg: read kernel buffer failed: Operation not permitted");
	json_decref(j);
	expect_error_text("dmesg-modules", other, strlen(other),
			  "dmesg-modules: line 1: not a module loader line");
	expect_error_text("dmesg-modules", tail, strlen(tail),
			  "dmesg-modules: line 1: not a module loader line");
}

/*
 * modinfo in kmod's layout ("key:" padded to 16 columns; a signature
 * continued on tab-indented lines; parm and alias repeated). No public
 * capture of a peer-memory module's modinfo was found (shared SOURCES.md):
 * the lines follow kmod's tools/modinfo.c.
 */
static void test_modinfo(void **state)
{
	const char text[] =
		"filename:       /lib/modules/3.10.0-957.el7.x86_64/weak-updates/nv_peer_mem.ko\n"
		"version:        1.0-9\n"
		"license:        Dual BSD/GPL\n"
		"description:    NVIDIA GPU memory plug-in\n"
		"alias:          nv_peer_mem\n"
		"alias:          nvidia_peer_mem\n"
		"retpoline:      Y\n"
		"rhelversion:    7.6\n"
		"depends:        ib_core,nvidia\n"
		"vermagic:       3.10.0-862.el7.x86_64 SMP mod_unload modversions \n"
		"sig_hashalgo:   sha256\n"
		"signature:      30:82:02:A4:06:09:2A:86:48:86:F7:0D:01:07:02:A0:\n"
		"\t\t82:02:95:30:82:02:91:02:01:01:31:0D:30:0B:06:09\n"
		"parm:           debug:int\n"
		"parm:           peer_mem:int\n";
	json_t *j = parse_text("modinfo", text, sizeof(text) - 1);

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "fields/version", "1.0-9");
	assert_jstr_at(j, "vermagic_kernel", "3.10.0-862.el7.x86_64");
	assert_jsize_at(j, "depends", 2);
	assert_jstr_at(j, "depends/0", "ib_core");
	assert_jsize_at(j, "fields/alias", 2);
	assert_jsize_at(j, "fields/parm", 2);
	assert_jstr_at(j, "fields/signature",
		       "30:82:02:A4:06:09:2A:86:48:86:F7:0D:01:07:02:A0:82:02:95:30:82:02:91:02:01:01:31:0D:30:0B:06:09");
	json_decref(j);

	static const char missing[] = "modinfo: ERROR: Module nvidia_peermem not found.\n";
	static const char nofield[] = "filename:       /x.ko\nthis is no field\n";
	static const char orphan[] = "\t\t00:11\n";

	j = parse_text("modinfo", missing, sizeof(missing) - 1);
	assert_tool_failure(j, "modinfo: ERROR: Module nvidia_peermem not found.");
	json_decref(j);
	expect_error_text("modinfo", nofield, sizeof(nofield) - 1,
			  "modinfo: line 2: expected 'field: value'");
	expect_error_text("modinfo", orphan, sizeof(orphan) - 1,
			  "modinfo: line 1: a continued value before any field");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lsmod_nvidia_peermem),
		cmocka_unit_test(test_lsmod_nv_peer_mem),
		cmocka_unit_test(test_lsmod_header_line),
		cmocka_unit_test(test_os_release_debian),
		cmocka_unit_test(test_os_release_quoting_rules),
		cmocka_unit_test(test_meminfo),
		cmocka_unit_test(test_getenforce),
		cmocka_unit_test(test_dmesg_modules),
		cmocka_unit_test(test_modinfo),
	};
	return cmocka_run_group_tests_name("parse-os", tests, NULL, NULL);
}
