/* engine/facts/parse-pci.c on real lspci -vvv output and its grepped form. */
#include "parse-fixture.h"

/* The switch port trained at 16GT/s of 32: lspci itself says (downgraded). */
static void test_lspci_h100_switch_downgraded(void **state)
{
	json_t *j = parse_fixture("lspci", "h100_host_gpu_nic_gen5_ok_switch_port_downgraded.txt");

	(void)state;
	assert_jsize_at(j, "devices", 3);
	assert_jstr_at(j, "devices/0/bdf", "17:03.0");
	assert_jstr_at(j, "devices/0/class", "PCI bridge");
	assert_jint_at(j, "devices/0/lnkcap/port", 3);
	assert_jstr_at(j, "devices/0/lnkcap/speed", "32GT/s");
	assert_jint_at(j, "devices/0/lnkcap/width", 16);
	assert_jstr_at(j, "devices/0/lnksta/speed", "16GT/s");
	assert_jint_at(j, "devices/0/lnksta/speed_gts", 16);
	assert_jstr_at(j, "devices/0/lnksta/speed_state", "downgraded");
	assert_jint_at(j, "devices/0/lnksta/width", 16);
	assert_jstr_at(j, "devices/0/lnksta/width_state", "ok");
	assert_jstr_at(j, "devices/1/bdf", "19:00.0");
	assert_jstr_at(j, "devices/1/class", "3D controller");
	assert_jstr_at(j, "devices/1/lnksta/speed", "32GT/s");
	assert_jstr_at(j, "devices/1/lnksta/speed_state", "ok");
	assert_jstr_at(j, "devices/2/description", "Mellanox Technologies MT2910 Family [ConnectX-7]");
	assert_jstr_at(j, "devices/2/lnksta/width_state", "ok");
	json_decref(j);
}

/* grep 'LnkCap\|LnkSta' keeps LnkSta2 too and drops the device line. */
static void test_lspci_grep_form(void **state)
{
	json_t *j = parse_fixture("lspci", "a100_gen4_x16_ok_grep_lnkcap_lnksta.txt");

	(void)state;
	assert_jsize_at(j, "devices", 1);
	assert_null(jpath(j, "devices/0/bdf"));
	assert_jstr_at(j, "devices/0/lnkcap/speed", "16GT/s");
	assert_jint_at(j, "devices/0/lnkcap/width", 16);
	assert_jstr_at(j, "devices/0/lnksta/speed_state", "ok");
	assert_jstr_at(j, "devices/0/lnksta/width_state", "ok");
	json_decref(j);
	expect_error("lspci", "malformed_line2_lnksta_width_not_a_number.txt",
		     "lspci: line 2: expected Speed and Width");
}

/* grep downgraded: LnkSta lines only, each its own device; a link that
 * never trained says "Speed unknown"; libpci's stderr line in between. */
static void test_lspci_grep_downgraded_openshift(void **state)
{
	json_t *j = parse_fixture("lspci", "openshift_worker_grep_downgraded_unknown_speed_pcilib_vpd_error.txt");
	json_t *dev;
	size_t i, width_down = 0;

	(void)state;
	assert_jsize_at(j, "devices", 13);
	assert_jstr_at(j, "devices/0/lnksta/speed", "unknown");
	assert_null(jpath(j, "devices/0/lnksta/speed_gts"));
	assert_jstr_at(j, "devices/0/lnksta/speed_state", "downgraded");
	assert_jint_at(j, "devices/0/lnksta/width", 0);
	assert_jnum_at(j, "devices/3/lnksta/speed_gts", 2.5);
	assert_jstr_at(j, "devices/11/lnksta/speed_state", "downgraded");
	assert_jint_at(j, "devices/11/lnksta/width", 8);
	assert_jstr_at(j, "devices/11/lnksta/width_state", "ok");
	assert_jstr_at(j, "warnings/0", "pcilib: sysfs_read_vpd: read failed: Input/output error");
	json_array_foreach(json_object_get(j, "devices"), i, dev)
		width_down += !strcmp(json_string_value(jpath(dev, "lnksta/width_state")),
				      "downgraded");
	assert_int_equal(width_down, 11);
	json_decref(j);
}

/* An excerpt that starts inside a device's stanza: the lines before the
 * first device line are an unnamed device, said in a warning; its links
 * still count. */
static void test_lspci_starts_inside_stanza(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char *second;
	json_t *j;

	(void)state;
	fixture_read("lspci", "h100_host_gpu_nic_gen5_ok_switch_port_downgraded.txt", &sb);
	second = strchr(sb.buf, '\n') + 1; /* drop the 17:03.0 line */
	j = parse_text("lspci", second, sb.len - (second - sb.buf));
	assert_jsize_at(j, "devices", 3);
	assert_jbool_at(j, "devices/0/partial", 1);
	assert_null(jpath(j, "devices/0/bdf"));
	assert_jstr_at(j, "devices/0/lnksta/speed_state", "downgraded");
	assert_jstr_at(j, "devices/1/bdf", "19:00.0");
	assert_jsize_at(j, "warnings", 1);
	json_decref(j);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lspci_starts_inside_stanza),
		cmocka_unit_test(test_lspci_h100_switch_downgraded),
		cmocka_unit_test(test_lspci_grep_form),
		cmocka_unit_test(test_lspci_grep_downgraded_openshift),
	};
	return cmocka_run_group_tests_name("parse-pci", tests, NULL, NULL);
}
