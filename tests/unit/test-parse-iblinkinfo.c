/* engine/facts/parse-iblinkinfo.c on real iblinkinfo outputs (tests/fixtures/
 * tools/iblinkinfo/): full output with CA/Switch headers and down switch
 * ports, and a grepped one without headers. */
#include "parse-fixture.h"
#include "../../engine/facts/parse-iblinkinfo.h"

static void test_iblinkinfo_qdr_headers_and_down_ports(void **state)
{
	json_t *j = parse_fixture("iblinkinfo", "iblinkinfo_qdr_infiniscale_iv_switch_ports_down_polling.txt");
	json_t *sw = NULL, *n;
	size_t i;

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "nodes/0/type", "CA");
	assert_jstr_at(j, "nodes/0/desc", "teaker-4 HCA-1");
	assert_jstr_at(j, "nodes/0/ports/0/guid", "0xf45214030091b9f1");
	assert_jint_at(j, "nodes/0/ports/0/lid", 1);
	assert_jstr_at(j, "nodes/0/ports/0/width", "4X");
	assert_jnum_at(j, "nodes/0/ports/0/lane_gbps", 10.0);
	assert_jstr_at(j, "nodes/0/ports/0/state", "Active");
	assert_jint_at(j, "nodes/0/ports/0/peer/port", 9);
	assert_jstr_at(j, "nodes/0/ports/0/peer/desc", "Infiniscale-IV Mellanox Technologies");
	json_array_foreach(json_object_get(j, "nodes"), i, n)
		if (!strcmp(json_string_value(json_object_get(n, "type")), "Switch"))
			sw = n;
	assert_non_null(sw);
	assert_jstr_at(sw, "guid", "0x0002c902004b2678");
	assert_jstr_at(sw, "desc", "Infiniscale-IV Mellanox Technologies");
	assert_jint_at(sw, "ports/7/port", 8);
	assert_jstr_at(sw, "ports/7/state", "Down");
	assert_jstr_at(sw, "ports/7/physical_state", "Polling");
	assert_null(jpath(sw, "ports/7/width"));
	assert_null(jpath(sw, "ports/7/peer"));
	assert_jstr_at(sw, "ports/13/peer/desc", "teaker-9 HCA-1");
	json_decref(j);
}

static void test_iblinkinfo_grepped_edr(void **state)
{
	json_t *j = parse_fixture("iblinkinfo", "iblinkinfo_grep_up_edr_sb7700_3_hosts.txt");

	(void)state;
	assert_jsize_at(j, "nodes", 1);
	assert_jstr_at(j, "nodes/0/type", "unknown");
	assert_jsize_at(j, "nodes/0/ports", 6);
	assert_jnum_at(j, "nodes/0/ports/0/lane_gbps", 25.78125);
	assert_jint_at(j, "nodes/0/ports/2/lid", 2);
	assert_jint_at(j, "nodes/0/ports/2/port", 17);
	assert_null(jpath(j, "nodes/0/ports/2/guid"));
	assert_jstr_at(j, "nodes/0/ports/2/peer/desc", "n02 HCA-1");
	json_decref(j);
}

static void test_iblinkinfo_malformed_and_failure(void **state)
{
	json_t *j;

	(void)state;
	expect_error_text("iblinkinfo", "2 17[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==> 4 1[  ] \"n02 HCA-1\"\n",
			  68, "line 1: expected");
	expect_error_text("iblinkinfo", "Switch: nope:\n", 14, "line 1: bad CA/Switch header");
	j = parse_text("iblinkinfo", "ibwarn: [9] mad_rpc_open_port: client_register for mgmt 1 failed\n"
			  "iblinkinfo: iberror: failed: discover failed\n", 110);
	assert_tool_failure(j, "iblinkinfo: iberror: failed: discover failed");
	json_decref(j);
}

/*
 * A switch-to-switch link trained below what both ends support: iblinkinfo
 * (print_port, get_msg) notes "Could be 4X" in the parentheses after the
 * peer, as "(%s %s)" of the width and speed notes. No capture shows one
 * (tests/fixtures/tools/SOURCES.md): these two lines follow the QDR
 * capture's layout with the note the source prints, as the simulator's
 * isl-degraded fault does. Both ends keep their width, lane and note.
 */
static void test_iblinkinfo_isl_below_capability(void **state)
{
	static const char text[] =
		"Switch: 0x7cfe9003005a1e02 MF0;sim-leaf02:MSB7700/U1:\n"
		"          70    7[  ] ==( 1X      25.78125 Gbps Active/  LinkUp)==>      73    3[  ] \"MF0;sim-spine02:MSB7700/U1\" (Could be 4X )\n"
		"Switch: 0x7cfe9003005a2e02 MF0;sim-spine02:MSB7700/U1:\n"
		"          73    3[  ] ==( 1X      25.78125 Gbps Active/  LinkUp)==>      70    7[  ] \"MF0;sim-leaf02:MSB7700/U1\" (Could be 4X )\n";
	json_t *j = parse_text("iblinkinfo", text, sizeof(text) - 1);

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "nodes", 2);
	assert_jstr_at(j, "nodes/0/desc", "MF0;sim-leaf02:MSB7700/U1");
	assert_jstr_at(j, "nodes/0/ports/0/width", "1X");
	assert_jnum_at(j, "nodes/0/ports/0/lane_gbps", 25.78125);
	assert_jint_at(j, "nodes/0/ports/0/peer/lid", 73);
	assert_jint_at(j, "nodes/0/ports/0/peer/port", 3);
	assert_jstr_at(j, "nodes/0/ports/0/comment", "Could be 4X");
	assert_jstr_at(j, "nodes/1/ports/0/peer/desc", "MF0;sim-leaf02:MSB7700/U1");
	assert_jstr_at(j, "nodes/1/ports/0/comment", "Could be 4X");
	json_decref(j);
}

/*
 * The compact reading precheck keeps (parse-iblinkinfo.h): each node's
 * ports are its own run of the port array, strings are held once (every
 * port cabled to one switch shares its description), and a number too
 * large for a LID or a port is an error naming the line, not a wrapped
 * value.
 */
static void test_iblinkinfo_compact_reading(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct ibl_fabric *f;
	struct err err = ERR_INIT;
	const char *leaf = NULL;
	size_t ports = 0, shared = 0;
	json_t *j;

	(void)state;
	fixture_read("iblinkinfo", "iblinkinfo_qdr_infiniscale_iv_switch_ports_down_polling.txt", &sb);
	assert_int_equal(iblinkinfo_read(sb.buf, sb.len, &f, &err), 0);
	assert_true(iblinkinfo_ok(f));
	j = parse_text("iblinkinfo", sb.buf, sb.len);
	assert_int_equal(f->nnodes, json_array_size(json_object_get(j, "nodes")));
	for (size_t i = 0; i < f->nnodes; i++) {
		assert_int_equal(f->nodes[i].first, ports);
		ports += f->nodes[i].n;
	}
	assert_int_equal(ports, f->nports);
	for (size_t i = 0; i < f->nports; i++) {
		const char *d = f->ports[i].peer_desc;

		if (d && !strcmp(d, "Infiniscale-IV Mellanox Technologies")) {
			shared += leaf == d;
			leaf = leaf ? leaf : d;
		}
	}
	assert_true(shared >= 7); /* eight CAs on the one switch */
	assert_int_equal(f->ports[0].lid, 1);
	assert_int_equal(f->ports[0].peer_port, 9);
	assert_true(f->ports[0].has_peer_port);
	json_decref(j);
	iblinkinfo_free(f);
	expect_error_text("iblinkinfo",
			  "          2 99999999999[  ] ==( 4X 25.78125 Gbps Active/ LinkUp)==> 4 1[  ] \"a\" ( )\n",
			  84, "line 1: expected");
	strbuf_release(&sb);
	err_clear(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iblinkinfo_qdr_headers_and_down_ports),
		cmocka_unit_test(test_iblinkinfo_grepped_edr),
		cmocka_unit_test(test_iblinkinfo_malformed_and_failure),
		cmocka_unit_test(test_iblinkinfo_isl_below_capability),
		cmocka_unit_test(test_iblinkinfo_compact_reading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
