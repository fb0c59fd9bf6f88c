/*
 * Precheck on facts built from real captured outputs (tests/fixtures/tools):
 * healthy samples pass, degraded ones fail naming the port or GPU, and a
 * failed prerequisite turns its dependants into skips that name it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/precheck/check.h"
#include "../../engine/facts/facts.h"
#include "../../engine/inventory/inventory.h"
#include "../../engine/precheck/report.h"
#include "../../engine/base/strbuf.h"
#include "../../engine/base/xalloc.h"

#define FIX "tests/fixtures/tools/"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

/* A DGX-1 as the Redpaper has it; vars as a test needs them. */
static struct inventory *dgx1_inventory(const char *extra_vars)
{
	struct strbuf y = STRBUF_INIT;
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;

	strbuf_addf(&y,
		"cluster:\n"
		"  name: t\n"
		"  vars: { ofed_version: MLNX_OFED_LINUX-4.7-1.0.0.1%s }\n"
		"hardware:\n"
		"  dgx1:\n"
		"    hcas:\n"
		"      - { names: \"mlx5_[0-3]\", rate: 100 Gb/s 4X EDR }\n"
		"    gpus: { count: 8, model: H100 }\n"
		"hosts:\n"
		"  dgx01: { address: 127.0.0.1, hardware: dgx1 }\n"
		"groups:\n"
		"  gpu_worker: { hosts: dgx01 }\n", extra_vars ? extra_vars : "");
	if (inventory_load_buf("t.yaml", y.buf, y.len, &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	strbuf_release(&y);
	return inv;
}

struct section {
	const char *name;
	const char *file;  /* fixture path, or NULL to use text */
	const char *text;
	int rc;
};

/* Facts for host 0 from fixture files, as if facts.sh had printed them. */
static struct facts *make_facts(const struct inventory *inv, const struct section *s, size_t n)
{
	struct facts *f = xcalloc(1, sizeof(*f));
	struct host_facts *hf;

	f->inv = inv;
	f->n = 1;
	f->h = xcalloc(1, sizeof(*f->h));
	hf = &f->h[0];
	hf->raw = json_object();
	hf->have_skew = true;
	for (size_t i = 0; i < n; i++) {
		char *text = s[i].file ? slurp(s[i].file) : xstrdup(s[i].text);
		json_object_set_new(hf->raw, s[i].name,
				    json_pack("{s:i, s:s}", "rc", s[i].rc, "output", text));
		free(text);
	}
	facts_parse(hf);
	return f;
}

static const struct check_result *find(const struct check_report *rep, const char *id,
				       const char *subject)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->r[i].def->id, id) &&
		    ((!subject && !rep->r[i].subject) ||
		     (subject && rep->r[i].subject && !strcmp(subject, rep->r[i].subject))))
			return &rep->r[i];
	return NULL;
}

static struct check_report *run(const struct inventory *inv, const struct facts *f,
				const char *only)
{
	struct check_opts o = { STRLIST_INIT, STRLIST_INIT };
	struct check_report *rep = NULL;
	struct err err = ERR_INIT;

	if (only)
		strlist_push(&o.only, only);
	assert_int_equal(checks_run(inv, f, &o, &rep, &err), 0);
	strlist_clear(&o.only);
	return rep;
}

static void test_split_frames_sections_with_exit_codes(void **state)
{
	const char *out = "\n::bringup-fact:: date\n1795260620.5\n\n::bringup-rc:: date 0\n"
			  "\n::bringup-fact:: ofed_info\nbash: ofed_info: command not found\n"
			  "\n::bringup-rc:: ofed_info 127\n";
	json_t *j = NULL;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(facts_split(out, strlen(out), &j, &err), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "date"), "output")),
			    "1795260620.5\n");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "ofed_info"), "rc")), 127);
	json_decref(j);
}

static void test_split_names_the_line_of_a_cut_section(void **state)
{
	const char *out = "\n::bringup-fact:: date\n1\n\n::bringup-rc:: date 0\n"
			  "\n::bringup-fact:: lsmod\nModule Size Used by\n";
	json_t *j = NULL;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(facts_split(out, strlen(out), &j, &err), ERR_PARSE);
	assert_non_null(strstr(err_msg(&err), "line 7"));
	assert_non_null(strstr(err_msg(&err), "lsmod"));
	err_clear(&err);
}

static void test_healthy_dgx1_ports_pass(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	const struct section s[] = {
		{ "ibstatus", FIX "ibstatus/dgx1_4x_edr100_healthy_seed_reconstructed.txt", NULL, 0 },
		{ "ibstat", NULL,
		  "CA 'mlx5_0'\n\tCA type: MT4115\n\tNumber of ports: 1\n\tFirmware version: 12.26.4012\n"
		  "\tHardware version: 0\n\tNode GUID: 0xec0d9a030044d2d0\n\tSystem image GUID: 0xec0d9a030044d2d0\n"
		  "\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 100\n\t\tBase lid: 11\n"
		  "\t\tLMC: 0\n\t\tSM lid: 9\n\t\tCapability mask: 0x2651e848\n\t\tPort GUID: 0xec0d9a030044d2d0\n"
		  "\t\tLink layer: InfiniBand\n", 0 },
	};
	struct facts *f = make_facts(inv, s, 2);
	struct check_report *rep = run(inv, f, "ib.*");
	const struct check_result *r;

	(void)state;
	r = find(rep, "ib.port_state", "mlx5_0/1");
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_PASS);
	r = find(rep, "ib.port_rate", "mlx5_0/1");
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_PASS);
	assert_string_equal(r->found, "100 Gb/s 4X EDR");
	/* The inventory expects mlx5_1..3 too; this ibstat shows only mlx5_0. */
	r = find(rep, "ib.hca_present", "mlx5_3/1");
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

static void test_degraded_width_fails_naming_the_port(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	char *ibstatus = slurp(FIX "ibstatus/dgx1_4x_edr100_healthy_seed_reconstructed.txt");
	char *p = strstr(ibstatus, "100 Gb/sec (4X EDR)");
	struct section s[2] = {
		{ "ibstatus", NULL, NULL, 0 },
		{ "ibstat", NULL,
		  "CA 'mlx5_0'\n\tCA type: MT4115\n\tNumber of ports: 1\n\tFirmware version: 12.26.4012\n"
		  "\tHardware version: 0\n\tNode GUID: 0xec0d9a030044d2d0\n\tSystem image GUID: 0xec0d9a030044d2d0\n"
		  "\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 25\n\t\tBase lid: 11\n"
		  "\t\tLMC: 0\n\t\tSM lid: 9\n\t\tCapability mask: 0x2651e848\n\t\tPort GUID: 0xec0d9a030044d2d0\n"
		  "\t\tLink layer: InfiniBand\n", 0 },
	};
	struct facts *f;
	struct check_report *rep;
	const struct check_result *r;

	(void)state;
	assert_non_null(p);
	memcpy(p, " 25 Gb/sec (1X EDR)", strlen(" 25 Gb/sec (1X EDR)")); /* same length */
	s[0].text = ibstatus;
	f = make_facts(inv, s, 2);
	rep = run(inv, f, "ib.port_rate");
	r = find(rep, "ib.port_rate", "mlx5_0/1");
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->expected, "100 Gb/s 4X EDR");
	assert_string_equal(r->found, "25 Gb/s 1X EDR");
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
	free(ibstatus);
}

static void test_power_brake_fails_each_gpu(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	const struct section s[] = {
		{ "nvidia-smi-q", FIX "nvidia-smi-q/h100_8x_535_hw_slowdown_active_degraded.txt", NULL, 0 },
	};
	struct facts *f = make_facts(inv, s, 1);
	struct check_report *rep = run(inv, f, "gpu.*");
	size_t fails = 0;

	(void)state;
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->r[i].def->id, "gpu.throttle") && rep->r[i].status == CHECK_FAIL)
			fails++;
	assert_int_equal(fails, 8);
	assert_int_equal(find(rep, "gpu.count", NULL)->status, CHECK_PASS);
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

static void test_missing_peermem_skips_gpudirect_naming_it(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	const struct section s[] = {
		{ "lsmod", NULL, "Module                  Size  Used by\nib_core               363078  0\n", 0 },
		{ "memlock-ulimit", NULL, "unlimited\n", 0 },
		{ "nvidia-smi-q", FIX "nvidia-smi-q/h100_8x_535_hw_slowdown_active_degraded.txt", NULL, 0 },
	};
	struct facts *f = make_facts(inv, s, 3);
	struct check_report *rep = run(inv, f, NULL);
	const struct check_result *r;

	(void)state;
	assert_int_equal(find(rep, "peermem.loaded", NULL)->status, CHECK_FAIL);
	r = find(rep, "gpudirect.usable", NULL);
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_SKIP);
	assert_string_equal(r->detail, "needs peermem.loaded");
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

static void test_severity_override_turns_failure_into_warning(void **state)
{
	struct inventory *inv = dgx1_inventory(", precheck_severity: { gpu.throttle: warn }");
	const struct section s[] = {
		{ "nvidia-smi-q", FIX "nvidia-smi-q/h100_8x_535_hw_slowdown_active_degraded.txt", NULL, 0 },
	};
	struct facts *f = make_facts(inv, s, 1);
	struct check_report *rep = run(inv, f, "gpu.throttle");
	struct report_counts c;

	(void)state;
	report_count(rep, &c);
	assert_int_equal(c.fail, 0);
	assert_int_equal(c.warn, 8);
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* An unfinished rolling upgrade: the old and the new OFED are a warning
 * ("upgrade in progress"), a third release is still drift. */
static void test_ofed_version_during_an_upgrade(void **state)
{
	static const char *const seen[] = { "MLNX_OFED_LINUX-5.0-2.1.8.0:\n",
					    "MLNX_OFED_LINUX-4.7-1.0.0.1:\n",
					    "MLNX_OFED_LINUX-4.9-0.1.7.0:\n" };
	static const enum check_status want[] = { CHECK_WARN, CHECK_WARN, CHECK_FAIL };
	struct inventory *inv = dgx1_inventory(NULL);

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		const struct section s[] = { { "ofed_info", NULL, seen[i], 0 } };
		struct facts *f = make_facts(inv, s, 1);
		struct check_opts o = { STRLIST_INIT, STRLIST_INIT, "MLNX_OFED_LINUX-5.0-2.1.8.0" };
		struct check_report *rep = NULL;
		struct err err = ERR_INIT;
		const struct check_result *r;

		strlist_push(&o.only, "ofed.version");
		assert_int_equal(checks_run(inv, f, &o, &rep, &err), 0);
		r = find(rep, "ofed.version", NULL);
		assert_non_null(r);
		assert_int_equal(r->status, want[i]);
		if (want[i] == CHECK_WARN)
			assert_non_null(strstr(r->detail, "upgrade in progress"));
		strlist_clear(&o.only);
		check_report_free(rep);
		facts_free(f);
		/* without an upgrade the new release is drift */
		if (i == 0) {
			f = make_facts(inv, s, 1);
			rep = run(inv, f, "ofed.version");
			assert_int_equal(find(rep, "ofed.version", NULL)->status, CHECK_FAIL);
			check_report_free(rep);
			facts_free(f);
		}
	}
	inventory_free(inv);
}

static void test_unknown_check_id_is_a_usage_error(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	struct facts *f = make_facts(inv, NULL, 0);
	struct check_opts o = { STRLIST_INIT, STRLIST_INIT };
	struct check_report *rep = NULL;
	struct err err = ERR_INIT;

	(void)state;
	strlist_push(&o.only, "ib.port_sate");
	assert_int_equal(checks_run(inv, f, &o, &rep, &err), ERR_USAGE);
	assert_non_null(strstr(err_msg(&err), "ib.port_sate"));
	err_clear(&err);
	strlist_clear(&o.only);
	facts_free(f);
	inventory_free(inv);
}

/* peermem.build from modinfo (kmod's layout; no public capture of a
 * peer-memory module's modinfo exists, see test-parse-os.c). */
static void test_peermem_build_vermagic_and_depends(void **state)
{
	static const struct {
		const char *modinfo;
		int rc;
		enum check_status st;
		const char *found;
	} cases[] = {
		{ "filename:       /lib/modules/3.10.0-957.el7.x86_64/extra/nv_peer_mem.ko\n"
		  "version:        1.0-9\ndepends:        ib_core,nvidia\n"
		  "vermagic:       3.10.0-957.el7.x86_64 SMP mod_unload modversions \n", 0,
		  CHECK_PASS, "version 1.0-9, built for 3.10.0-957.el7.x86_64, depends on ib_core" },
		{ "filename:       /lib/modules/3.10.0-957.el7.x86_64/weak-updates/nv_peer_mem.ko\n"
		  "depends:        ib_core,nvidia\n"
		  "vermagic:       3.10.0-862.el7.x86_64 SMP mod_unload modversions \n", 0,
		  CHECK_WARN, "built for 3.10.0-862.el7.x86_64 "
		  "(/lib/modules/3.10.0-957.el7.x86_64/weak-updates/nv_peer_mem.ko)" },
		{ "filename:       /x/nv_peer_mem.ko\ndepends:        nvidia\n"
		  "vermagic:       3.10.0-957.el7.x86_64 SMP mod_unload modversions \n", 0,
		  CHECK_WARN, "depends: not on ib_core" },
		{ "modinfo: ERROR: Module nv_peer_mem not found.\n", 1, CHECK_SKIP, NULL },
	};
	struct inventory *inv = dgx1_inventory(", peermem_module: nv_peer_mem");

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct section sec[] = {
			{ "kernel", NULL, "3.10.0-957.el7.x86_64\n", 0 },
			{ "modinfo-nv_peer_mem", NULL, cases[i].modinfo, cases[i].rc },
			{ "modinfo-nvidia_peermem", NULL, "modinfo: ERROR: Module nvidia_peermem not found.\n", 1 },
		};
		struct facts *f = make_facts(inv, sec, 3);
		struct check_report *rep = run(inv, f, "peermem.build");

		assert_int_equal(rep->n, 1);
		assert_int_equal(rep->r[0].status, cases[i].st);
		if (cases[i].found)
			assert_string_equal(rep->r[0].found, cases[i].found);
		check_report_free(rep);
		facts_free(f);
	}
	inventory_free(inv);
}

#define DCGM FIX "dcgmi-diag/"

/*
 * precheck --deep: DCGM's table judged per GPU, or per test where DCGM
 * names none; real captures, each attributed as it reads. For each case:
 * the findings it gives, and one of them (subject, status, words found).
 */
static void test_dcgm_diag_names_the_gpu_or_the_test(void **state)
{
	static const struct {
		const char *file, *text;
		int rc;
		size_t n;
		const char *subject;
		enum check_status st;
		const char *found, *also;
	} cases[] = {
		{ DCGM "diag_r3_dcgm_3_3_9_v100_all_pass_eud_skip.txt", NULL, 0, 1,
		  NULL, CHECK_PASS, "15 tests passed, 1 skipped", NULL },
		{ DCGM "diag_r3_excerpt_deployment_error_gpu3_row_remap_pending.txt", NULL, 1, 1,
		  "GPU 3", CHECK_FAIL, "row remappings are pending", NULL },
		/* GPU 0 failed GPU Memory, with its thermal warning; 1-7 passed */
		{ DCGM "diag_r2_excerpt_gpu_memory_fail_gpu0_thermal_warning.txt", NULL, 1, 1,
		  "GPU 0", CHECK_FAIL, "GPU Memory: Fail", "Thermal violations" },
		/* the deployment tests name no GPU: five failed tests */
		{ DCGM "diag_r1_deployment_fail.txt", NULL, 1, 5,
		  "Persistence Mode", CHECK_FAIL, "Persistence Mode: Fail", NULL },
		{ NULL, "bash: dcgmi: command not found\n", 127, 1,
		  NULL, CHECK_FAIL, "dcgmi not installed", NULL },
	};
	struct inventory *inv = dgx1_inventory(NULL);
	struct facts *f;
	struct check_report *rep;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct section sec = { "dcgmi-diag", cases[i].file, cases[i].text, cases[i].rc };
		const struct check_result *r;

		f = make_facts(inv, &sec, 1);
		rep = run(inv, f, "gpu.dcgm_diag");
		assert_int_equal(rep->n, cases[i].n);
		r = find(rep, "gpu.dcgm_diag", cases[i].subject);
		assert_non_null(r);
		assert_int_equal(r->status, cases[i].st);
		assert_non_null(strstr(r->found, cases[i].found));
		if (cases[i].also)
			assert_non_null(strstr(r->found, cases[i].also));
		check_report_free(rep);
		facts_free(f);
	}
	/* Without --deep there is no dcgmi fact, and no finding at all. */
	f = make_facts(inv, NULL, 0);
	rep = run(inv, f, "gpu.dcgm_diag");
	assert_int_equal(rep->n, 0);
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* CI saw an unreachable host print as "ok, 0 checks" under --checks. */
static void test_unreachable_host_is_reported_whatever_checks_select(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	struct facts *f = make_facts(inv, NULL, 0);
	const struct check_result *r;
	struct check_report *rep;
	struct report_counts c;

	(void)state;
	f->h[0].rc = err_set(&f->h[0].err, ERR_CONNECT, "host dgx01: unreachable: Connection refused");
	rep = run(inv, f, "nouveau.absent");
	r = find(rep, "ssh.reachable", NULL);
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_null(find(rep, "nouveau.absent", NULL));
	report_count(rep, &c);
	assert_int_equal(c.unreachable, 1);
	assert_int_equal(c.hosts_ok, 0);
	check_report_free(rep);

	/* A reachable host still gets only what was asked for. */
	f->h[0].rc = 0;
	err_clear(&f->h[0].err);
	rep = run(inv, f, "nouveau.absent");
	assert_null(find(rep, "ssh.reachable", NULL));
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

static void test_text_report_folds_hosts_and_names_the_check(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	const struct section s[] = {
		{ "lsmod", NULL, "Module                  Size  Used by\nnouveau              1896005  0\n", 0 },
	};
	struct facts *f = make_facts(inv, s, 1);
	struct check_report *rep = run(inv, f, "nouveau.absent");
	struct strbuf out = STRBUF_INIT;

	(void)state;
	report_text(rep, false, &out);
	assert_non_null(strstr(out.buf, "FAIL nouveau.absent     dgx01"));
	assert_non_null(strstr(out.buf, "[nouveau.absent]"));
	assert_null(strstr(out.buf, "\033["));
	strbuf_release(&out);
	report_prom(rep, 1.0, &out);
	assert_non_null(strstr(out.buf,
		"bringup_precheck_check_ok{host=\"dgx01\",check=\"nouveau.absent\",severity=\"fail\"} 0\n"));
	strbuf_release(&out);
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

static void test_name_resolving_elsewhere_fails(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	const struct section s[] = {
		{ "resolve", NULL, "10.1.1.7        dgx01\n", 0 },
	};
	struct facts *f = make_facts(inv, s, 1);
	struct check_report *rep = run(inv, f, "host.resolve");
	const struct check_result *r = find(rep, "host.resolve", NULL);

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->expected, "dgx01 resolves to 127.0.0.1");
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* ibstat ending in ibpanic after a valid listing: the tool's words are a
 * finding of ib.hca_present, not a listing that looks complete. */
static void test_ibpanic_after_listing_fails_hca_present(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	const struct section s[] = {
		{ "ibstat", FIX "ibstat/ibpanic_after_valid_listing_mlx5_8_stat_failed_excerpt.txt", NULL, 0 },
	};
	struct facts *f = make_facts(inv, s, 1);
	struct check_report *rep = run(inv, f, "ib.hca_present");
	const struct check_result *r = find(rep, "ib.hca_present", NULL);

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_non_null(strstr(r->detail, "ibpanic: [1323906] main: stat of IB device 'mlx5_8'"));
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* nvidia-smi's infoROM warning fails gpu.warnings on the GPU it names; the
 * report itself still parses (gpu.count passes). */
static void test_inforom_warning_is_a_finding_on_its_gpu(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	char *q = slurp(FIX "nvidia-smi-q/h100_8x_535_hw_slowdown_active_degraded.txt");
	struct strbuf text = STRBUF_INIT;
	struct section s[] = { { "nvidia-smi-q", NULL, NULL, 0 } };
	struct facts *f;
	struct check_report *rep;
	const struct check_result *r;

	(void)state;
	strbuf_addf(&text, "%sWARNING: infoROM is corrupted at gpu 00000000:19:00.0\n", q);
	s[0].text = text.buf;
	f = make_facts(inv, s, 1);
	rep = run(inv, f, "gpu.*");
	r = find(rep, "gpu.warnings", "GPU 00000000:19:00.0");
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_int_equal(find(rep, "gpu.count", NULL)->status, CHECK_PASS);
	check_report_free(rep);
	facts_free(f);
	free(q);
	strbuf_release(&text);
	s[0].file = FIX "nvidia-smi-q/h100_8x_535_hw_slowdown_active_degraded.txt";
	f = make_facts(inv, s, 1);
	rep = run(inv, f, "gpu.warnings");
	assert_int_equal(find(rep, "gpu.warnings", NULL)->status, CHECK_PASS);
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* ib.port_counters on two reads of real perfquery -x output: counts that
 * do not move (LinkDowned 1, XmitDiscards 20046 from a past incident) pass
 * and are named; one that rises fails that port with its rise. */
/* The fabric-wide checks on the real QDR capture (one Infiniscale-IV
 * switch, eight hosts "teaker-N"), judged on the host that read it. */
static void test_fabric_checks_on_a_one_switch_capture(void **state)
{
	struct inventory *inv;
	struct strbuf y = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct section s[] = {
		{ "iblinkinfo", FIX "iblinkinfo/iblinkinfo_qdr_infiniscale_iv_switch_ports_down_polling.txt",
		  NULL, 0 },
	};
	struct facts *f;
	struct check_report *rep;
	const struct check_result *r;

	(void)state;
	strbuf_addstr(&y, "cluster: { name: t }\n"
		      "hardware:\n  qdr: { hcas: [ { name: HCA-1, rate: 40 Gb/s 4X QDR } ] }\n"
		      "hosts:\n  teaker-[4-11]: { hardware: qdr }\n  teaker-12: { hardware: qdr }\n"
		      "fabric: { leaf_switches: 1, spine_switches: 0, host_ports_per_leaf: 8 }\n");
	if (inventory_load_buf("t.yaml", y.buf, y.len, &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	strbuf_release(&y);
	f = make_facts(inv, s, 1);
	rep = run(inv, f, "ib.fabric_*");
	/* one switch: no switch-to-switch link to judge */
	r = find(rep, "ib.fabric_isl", NULL);
	assert_int_equal(r->status, CHECK_PASS);
	assert_string_equal(r->expected, "every switch-to-switch link at 4X QDR");
	assert_string_equal(r->found, "no switch-to-switch link (one switch)");
	/* teaker-12 has no port in the fabric */
	r = find(rep, "ib.fabric_size", "hosts");
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->expected, "the 9 hosts with InfiniBand HCAs");
	assert_string_equal(r->found, "8 of them, none of teaker-12 (8 CAs in all, iblinkinfo)");
	r = find(rep, "ib.fabric_size", "switches");
	assert_int_equal(r->status, CHECK_PASS);
	assert_string_equal(r->found, "1 leaf switches, 0 spine switches");
	/* nine host ports (teaker-9 has two) on a leaf planned for eight; the
	 * switch has no MF0;HOST:MODEL description, so its whole one names it */
	r = find(rep, "ib.fabric_cabling", "Infiniscale-IV Mellanox Technologies");
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->expected, "cabled to every spine, at most 8 host ports");
	assert_string_equal(r->found, "9 host ports (seen: 9 host ports)");
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* With ibhosts read too, the hosts are counted from its list (the real
 * DGX-1 capture: dgx01 and dgx02, 17 CAs), not from iblinkinfo's. */
static void test_fabric_hosts_from_ibhosts(void **state)
{
	struct inventory *inv;
	struct strbuf y = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct section s[] = {
		{ "iblinkinfo", FIX "iblinkinfo/iblinkinfo_qdr_infiniscale_iv_switch_ports_down_polling.txt",
		  NULL, 0 },
		{ "ibhosts", FIX "ibhosts/dgx1_edr_fabric_17_cas_mlx5_0_seed_reconstructed.txt", NULL, 0 },
	};
	struct facts *f;
	struct check_report *rep;
	const struct check_result *r;

	(void)state;
	strbuf_addstr(&y, "cluster: { name: t }\n"
		      "hardware:\n  edr: { hcas: [ { names: \"HCA-[1-4]\", rate: 100 Gb/s 4X EDR } ] }\n"
		      "hosts:\n  dgx[01-03]: { hardware: edr }\n  admin: {}\n");
	if (inventory_load_buf("t.yaml", y.buf, y.len, &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	strbuf_release(&y);
	f = make_facts(inv, s, 2);
	rep = run(inv, f, "ib.fabric_size");
	r = find(rep, "ib.fabric_size", "hosts");
	assert_int_equal(r->status, CHECK_FAIL);
	/* admin has no HCA: not expected in the fabric */
	assert_string_equal(r->expected, "the 3 hosts with InfiniBand HCAs");
	assert_string_equal(r->found, "2 of them, none of dgx03 (17 CAs in all, ibhosts)");
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

static void test_port_counters_steady_and_rising(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	char *a = slurp(FIX "perfquery/perfquery_x_edr_switch_port_linkdowned_xmitdiscards_relayerrors.txt");
	char *b = xstrdup(a), *p = strstr(b, "SymbolErrorCounter:..............0");
	struct section s[] = {
		{ "perfquery-a mlx5_0/1", NULL, a, 0 },
		{ "perfquery-b mlx5_0/1", NULL, a, 0 },
		{ "perfquery-interval", NULL, "100.0 102.0\n", 0 },
	};
	struct facts *f = make_facts(inv, s, 3);
	struct check_report *rep = run(inv, f, "ib.port_counters");
	const struct check_result *r = find(rep, "ib.port_counters", "mlx5_0/1");

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_PASS);
	assert_non_null(strstr(r->found, "old counts: LinkDownedCounter 1, PortRcvSwitchRelayErrors 7, PortXmitDiscards 20046"));
	/* mlx5_1..3 have no reading: skipped, not passed */
	assert_int_equal(find(rep, "ib.port_counters", "mlx5_1/1")->status, CHECK_SKIP);
	check_report_free(rep);
	facts_free(f);
	p[strlen("SymbolErrorCounter:..............")] = '9';
	s[1].text = b;
	f = make_facts(inv, s, 3);
	rep = run(inv, f, "ib.port_counters");
	r = find(rep, "ib.port_counters", "mlx5_0/1");
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->found, "SymbolErrorCounter +9 in 2.0 s (4.5/s)");
	check_report_free(rep);
	facts_free(f);
	free(a);
	free(b);
	inventory_free(inv);
}

/* The MAD failure: not applicable on a RoCE port, a failure (with the
 * tool's words) on an InfiniBand one. */
static void test_port_counters_mad_failure(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	const char *fx = FIX "perfquery/perfquery_roce_only_host_client_register_failed_iberror.txt";
	const struct section s[] = {
		{ "perfquery-a mlx5_0/1", fx, NULL, 255 },
		{ "perfquery-b mlx5_0/1", fx, NULL, 255 },
	};
	struct facts *f = make_facts(inv, s, 2);
	struct check_report *rep = run(inv, f, "ib.port_counters");
	const struct check_result *r = find(rep, "ib.port_counters", "mlx5_0/1");

	(void)state;
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->detail, "perfquery: iberror: failed: Failed to open '(null)' port '0'");
	check_report_free(rep);
	inv->hosts[0].hcas[0].link_layer = LINK_ETH;
	rep = run(inv, f, "ib.port_counters");
	r = find(rep, "ib.port_counters", "mlx5_0/1");
	assert_int_equal(r->status, CHECK_SKIP);
	assert_non_null(strstr(r->detail, "not applicable"));
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* A Spectrum Scale client, for the scale checks. */
static struct inventory *scale_inventory(void)
{
	const char *y = "cluster: { name: t }\n"
			"hosts:\n  gpfs01: { address: 127.0.0.1 }\n"
			"groups:\n  scale_client: { hosts: gpfs01 }\n";
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;

	if (inventory_load_buf("t.yaml", y, strlen(y), &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	return inv;
}

static struct check_report *health_of(const struct inventory *inv, const char *file,
				      const char *text, struct facts **ret_f)
{
	struct section s[] = { { "mmhealth", file, text, text ? 1 : 0 } };

	*ret_f = make_facts(inv, s, 1);
	return run(inv, *ret_f, "scale.health");
}

/* scale.health on real mmhealth node show captures: a degraded component
 * and sub-component fail by name with their event's message, disabled ones
 * pass, a TIPS component warns, all HEALTHY passes, and mmhealth's own
 * failure fails with its words. */
static void test_scale_health_components(void **state)
{
	struct inventory *inv = scale_inventory();
	struct check_report *rep;
	const struct check_result *r;
	struct facts *f;

	(void)state;
	rep = health_of(inv, FIX "mmhealth/mmhealth_node_show_ces_degraded.txt", NULL, &f);
	r = find(rep, "scale.health", "CES/CESNETWORK");
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->found, "DEGRADED (ces_network_ips_not_defined)");
	assert_string_equal(r->detail, "ces_network_ips_not_defined: No CES IP addresses have been defined.");
	assert_int_equal(find(rep, "scale.health", "CES")->status, CHECK_FAIL);
	assert_null(find(rep, "scale.health", "CES/AUTH"));
	assert_null(find(rep, "scale.health", NULL));
	check_report_free(rep);
	facts_free(f);

	rep = health_of(inv, FIX "mmhealth/mmhealth_node_show_gpfs_tips_total_memory_small.txt", NULL, &f);
	assert_int_equal(find(rep, "scale.health", "GPFS")->status, CHECK_WARN);
	assert_int_equal(find(rep, "scale.health", NULL)->status, CHECK_PASS);
	check_report_free(rep);
	facts_free(f);

	rep = health_of(inv, FIX "mmhealth/mmhealth_node_show_all_components_healthy.txt", NULL, &f);
	assert_int_equal(rep->n, 1);
	assert_int_equal(find(rep, "scale.health", NULL)->status, CHECK_PASS);
	check_report_free(rep);
	facts_free(f);

	rep = health_of(inv, NULL, "mmhealth: This node does not belong to a GPFS cluster.\n"
			"mmhealth: Command failed.  Examine previous error messages to determine cause.\n", &f);
	r = find(rep, "scale.health", NULL);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->found, "mmhealth: This node does not belong to a GPFS cluster.");
	check_report_free(rep);
	facts_free(f);
	inventory_free(inv);
}

/* Runs check id on facts from s; the result for subject (NULL: the host). */
static const struct check_result *verdict(const struct inventory *inv, const struct section *s,
					  size_t n, const char *id, const char *subject,
					  struct check_report **ret_rep, struct facts **ret_f)
{
	*ret_f = make_facts(inv, s, n);
	*ret_rep = run(inv, *ret_f, id);
	return find(*ret_rep, id, subject);
}

static void verdict_done(struct check_report *rep, struct facts *f)
{
	check_report_free(rep);
	facts_free(f);
}

/* peermem.symbols on real dmesg captures: a module that did not load fails
 * naming its unknown symbols and whose they are (ib_core, the driver);
 * loaded, the same lines are history and pass; a clean log passes. */
static void test_peermem_symbols(void **state)
{
	struct inventory *inv = dgx1_inventory(NULL);
	struct section s[] = {
		{ "dmesg-modules", FIX "dmesg-modules/dmesg_T_nv_peer_mem_unknown_symbol_ib_peer_memory_client_ofed_reinstalled.txt", NULL, 0 },
		{ "lsmod", NULL, "Module                  Size  Used by\nib_core               363078  0\n", 0 },
	};
	struct check_report *rep;
	struct facts *f;
	const struct check_result *r = verdict(inv, s, 2, "peermem.symbols", "nv_peer_mem", &rep, &f);

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_string_equal(r->found, "Unknown symbol ib_register_peer_memory_client, "
			    "ib_unregister_peer_memory_client");
	assert_non_null(strstr(r->detail, "another ib_core"));
	verdict_done(rep, f);

	s[0].file = FIX "dmesg-modules/dmesg_nv_peer_mem_disagrees_about_version_unknown_symbol_excerpt.txt";
	r = verdict(inv, s, 2, "peermem.symbols", "nv_peer_mem", &rep, &f);
	assert_int_equal(r->status, CHECK_FAIL);
	assert_non_null(strstr(r->found, "(disagrees about version: nvidia_p2p_put_pages, "));
	assert_non_null(strstr(r->detail, "ib_core (OFED) and NVIDIA driver"));
	verdict_done(rep, f);

	s[1].file = FIX "lsmod/lsmod_grep_peer_nv_peer_mem_dgx1_rhel76_seed_reconstructed.txt";
	r = verdict(inv, s, 2, "peermem.symbols", "nv_peer_mem", &rep, &f);
	assert_int_equal(r->status, CHECK_PASS);
	assert_non_null(strstr(r->found, "loaded; an earlier load failed: "));
	assert_int_equal(rep->n, 1);
	verdict_done(rep, f);

	r = verdict(inv, s + 1, 1, "peermem.symbols", NULL, &rep, &f);
	assert_int_equal(rep->n, 1);
	assert_int_equal(r->status, CHECK_PASS);
	verdict_done(rep, f);
	inventory_free(inv);
}

/*
 * A check that judges a host before the others are in must not wait on a
 * check that compares hosts: it would find no result and run regardless.
 */
static void test_own_checks_never_require_fleet_checks(void **state)
{
	(void)state;
	for (size_t k = 0; k < check_ndefs; k++) {
		for (size_t i = 0; i < 3 && check_defs[k].requires[i]; i++) {
			const struct check_def *r = check_lookup(check_defs[k].requires[i]);

			assert_non_null(r);
			if (r->fleet && !check_defs[k].fleet)
				fail_msg("%s requires the fleet check %s", check_defs[k].id, r->id);
		}
	}
}

/* Three hosts, one unreachable: two OFED releases, nouveau on one, an SM. */
static struct facts *fleet_facts(const struct inventory *inv)
{
	static const char *const ofed[] = { "MLNX_OFED_LINUX-4.7-1.0.0.1:\n",
					    "MLNX_OFED_LINUX-4.6-1.0.1.1:\n" };
	struct facts *f = xcalloc(1, sizeof(*f));
	char *ibstat = slurp(FIX "ibstat/a100_hdr200_8x_ib_healthy.txt");
	char *sminfo = slurp(FIX "sminfo/sminfo_master_healthy.txt");

	f->inv = inv;
	f->n = 3;
	f->h = xcalloc(3, sizeof(*f->h));
	for (size_t i = 0; i < 3; i++) {
		struct host_facts *hf = &f->h[i];

		/* gathered in an order of their own, not the inventory's */
		hf->host = 2 - i;
		if (hf->host == 1) {
			hf->rc = err_set(&hf->err, ERR_CONNECT, "host dgx02: connection refused");
			continue;
		}
		hf->have_skew = true;
		hf->login_s = 0.1 * (double)(i + 1);
		hf->raw = json_pack("{s:{s:i, s:s}, s:{s:i, s:s}, s:{s:i, s:s}, s:{s:i, s:s}}",
				    "ofed_info", "rc", 0, "output", ofed[hf->host == 2],
				    "ibstat", "rc", 0, "output", ibstat,
				    "sminfo", "rc", 0, "output", sminfo,
				    "lsmod", "rc", 0, "output", hf->host ? "Module  Size  Used by\n" :
				    "Module  Size  Used by\nnouveau 1896005  0\n");
		facts_parse(hf);
	}
	free(ibstat);
	free(sminfo);
	return f;
}

/* Judged host by host as they arrive, each host's facts dropped but for
 * the fleet's, the report is the one of judging everything at the end. */
static void test_judging_as_hosts_arrive_gives_the_same_report(void **state)
{
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;
	const char *y =
		"cluster: { name: t }\n"
		"hardware:\n"
		"  dgx1:\n"
		"    hcas:\n"
		"      - { names: \"mlx5_[0-1]\", rate: 200 Gb/s 4X HDR }\n"
		"    gpus: { count: 8, model: A100 }\n"
		"hosts:\n"
		"  dgx01: { address: 127.0.0.1, hardware: dgx1 }\n"
		"  dgx02: { address: 127.0.0.2, hardware: dgx1 }\n"
		"  dgx03: { address: 127.0.0.3, hardware: dgx1 }\n"
		"groups:\n"
		"  gpu_worker: { hosts: \"dgx[01-03]\" }\n"
		"  sm_host: { hosts: dgx01 }\n";
	struct check_opts o = { STRLIST_INIT, STRLIST_INIT };
	struct check_report *all = NULL, *each = NULL;
	struct check_judge *cj = NULL;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct facts *f1, *f2;
	size_t hosts[3];

	(void)state;
	if (inventory_load_buf("t.yaml", y, strlen(y), &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	f1 = fleet_facts(inv);
	f2 = fleet_facts(inv);
	assert_int_equal(checks_run(inv, f1, &o, &all, &err), 0);
	for (size_t i = 0; i < 3; i++)
		hosts[i] = f2->h[i].host;
	assert_int_equal(check_judge_new(inv, hosts, 3, &o, &cj, &err), 0);
	for (size_t i = 0; i < 3; i++) {
		check_judge_host(cj, &f2->h[i]);
		facts_keep_only(&f2->h[i], check_fleet_facts);
	}
	assert_null(fact_parsed(&f2->h[0], "lsmod"));
	check_judge_finish(cj, f2, &each);
	check_judge_free(cj);
	report_json(all, &a);
	report_json(each, &b);
	assert_string_equal(a.buf, b.buf);
	{
		/* streamed, in chunks (this one is over one chunk), the same bytes */
		FILE *tf = tmpfile();
		char *back = xmalloc(b.len + 1);

		assert_non_null(tf);
		assert_true(b.len > REPORT_CHUNK);
		assert_int_equal(report_json_to(each, tf), 0);
		assert_int_equal(ftell(tf), (long)b.len);
		rewind(tf);
		assert_int_equal(fread(back, 1, b.len + 1, tf), b.len);
		assert_memory_equal(back, b.buf, b.len);
		free(back);
		fclose(tf);
	}
	/* the fleet checks did speak: one OFED release differs */
	assert_non_null(strstr(b.buf, "\"check\":\"ofed.version\",\"status\":\"fail\""));
	assert_non_null(strstr(b.buf, "\"check\":\"nouveau.absent\",\"status\":\"fail\""));
	strbuf_release(&a);
	strbuf_release(&b);
	check_report_free(all);
	check_report_free(each);
	facts_free(f1);
	facts_free(f2);
	inventory_free(inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_health_components),
		cmocka_unit_test(test_peermem_symbols),
		cmocka_unit_test(test_port_counters_steady_and_rising),
		cmocka_unit_test(test_fabric_checks_on_a_one_switch_capture),
		cmocka_unit_test(test_fabric_hosts_from_ibhosts),
		cmocka_unit_test(test_port_counters_mad_failure),
		cmocka_unit_test(test_ibpanic_after_listing_fails_hca_present),
		cmocka_unit_test(test_inforom_warning_is_a_finding_on_its_gpu),
		cmocka_unit_test(test_split_frames_sections_with_exit_codes),
		cmocka_unit_test(test_split_names_the_line_of_a_cut_section),
		cmocka_unit_test(test_healthy_dgx1_ports_pass),
		cmocka_unit_test(test_degraded_width_fails_naming_the_port),
		cmocka_unit_test(test_power_brake_fails_each_gpu),
		cmocka_unit_test(test_missing_peermem_skips_gpudirect_naming_it),
		cmocka_unit_test(test_severity_override_turns_failure_into_warning),
		cmocka_unit_test(test_ofed_version_during_an_upgrade),
		cmocka_unit_test(test_unknown_check_id_is_a_usage_error),
		cmocka_unit_test(test_unreachable_host_is_reported_whatever_checks_select),
		cmocka_unit_test(test_dcgm_diag_names_the_gpu_or_the_test),
		cmocka_unit_test(test_peermem_build_vermagic_and_depends),
		cmocka_unit_test(test_text_report_folds_hosts_and_names_the_check),
		cmocka_unit_test(test_name_resolving_elsewhere_fails),
		cmocka_unit_test(test_own_checks_never_require_fleet_checks),
		cmocka_unit_test(test_judging_as_hosts_arrive_gives_the_same_report),
	};
	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
