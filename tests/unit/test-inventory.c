/*
 * Unit tests for engine/inventory/inventory.c (and engine/base/yamltree.c through it):
 * node-set hosts, every error class with its line:column, ssh defaults,
 * variable precedence and typing, --limit selection, the JSON view.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/base/strbuf.h"
#include "jansson-oom.h"

static struct inventory *load_ok(const char *yaml)
{
	struct inventory *inv = NULL;
	struct err e = ERR_INIT;
	int rc = inventory_load_buf("inv.yaml", yaml, strlen(yaml), &inv, &e);

	if (rc)
		fail_msg("unexpected error: %s", err_msg(&e));
	assert_non_null(inv);
	return inv;
}

/* Loading fails with `code` and exactly the message `msg`. */
static void assert_load_fails(const char *yaml, int code, const char *msg)
{
	struct inventory *inv = (struct inventory *)1;
	struct err e = ERR_INIT;

	assert_int_equal(inventory_load_buf("inv.yaml", yaml, strlen(yaml), &inv, &e),
			 code);
	assert_null(inv);
	assert_string_equal(err_msg(&e), msg);
	err_clear(&e);
}

#define HEAD "cluster:\n  name: poc\n"

static void test_hosts_from_node_sets(void **state)
{
	struct inventory *inv = load_ok(HEAD
		"hosts:\n"
		"  dgx[01-02]:\n"
		"    address: 10.0.0.[11-12]\n"
		"  scale00:\n"
		"  r[1-2]n[1-2]: {}\n");

	(void)state;
	assert_int_equal(inv->nhosts, 7);
	assert_string_equal(inv->cluster_name, "poc");
	assert_string_equal(inv->hosts[0].name, "dgx01");
	assert_string_equal(inv->hosts[0].ssh.address, "10.0.0.11");
	assert_string_equal(inv->hosts[1].ssh.address, "10.0.0.12");
	/* Without an address, a host is reached by its name. */
	assert_string_equal(inv->hosts[2].ssh.address, "scale00");
	assert_string_equal(inv->hosts[3].name, "r1n1");
	assert_string_equal(inv->hosts[6].name, "r2n2");
	assert_int_equal(inv->hosts[0].loc.line, 4);
	assert_int_equal(inv->hosts[0].loc.col, 3);
	assert_ptr_equal(inventory_host(inv, "r2n1"), &inv->hosts[5]);
	assert_null(inventory_host(inv, "r3n1"));
	inventory_free(inv);
}

static void test_ssh_defaults(void **state)
{
	struct passwd *pw = getpwuid(getuid());
	struct inventory *inv;

	(void)state;
	setenv("HOME", "/home/tester", 1);
	inv = load_ok(HEAD "hosts:\n  a:\n  b:\n    ssh: { user: core, port: 2222, "
		      "key: ~/.ssh/b, proxy_jump: \"admin@jump:2200\" }\n");
	assert_non_null(pw);
	assert_string_equal(inv->hosts[0].ssh.user, pw->pw_name);
	assert_int_equal(inv->hosts[0].ssh.port, 22);
	assert_null(inv->hosts[0].ssh.key_file);
	assert_null(inv->hosts[0].ssh.proxy_jump);
	assert_string_equal(inv->known_hosts, "/home/tester/.ssh/known_hosts");
	assert_int_equal(inv->connect_timeout_s, 10);
	assert_int_equal(inv->command_timeout_s, 600);
	assert_string_equal(inv->hosts[1].ssh.user, "core");
	assert_int_equal(inv->hosts[1].ssh.port, 2222);
	assert_string_equal(inv->hosts[1].ssh.key_file, "/home/tester/.ssh/b");
	assert_string_equal(inv->hosts[1].ssh.proxy_jump, "admin@jump:2200");
	inventory_free(inv);
}

static void test_ssh_cluster_defaults_and_jump_host(void **state)
{
	struct inventory *inv;

	(void)state;
	setenv("HOME", "/h", 1);
	inv = load_ok("cluster:\n  name: c\n  ssh:\n    user: admin\n    port: 2200\n"
		      "    key: ~/k\n    proxy_jump: bastion01\n"
		      "    known_hosts: /etc/kh\n    connect_timeout: 3\n"
		      "    command_timeout: 99\n    jump_sessions: 4\n"
		      "hosts:\n  bastion01:\n  n1:\n    ssh: { port: 22 }\n");
	assert_string_equal(inv->hosts[1].ssh.user, "admin");
	assert_int_equal(inv->hosts[1].ssh.port, 22);
	assert_string_equal(inv->hosts[1].ssh.key_file, "/h/k");
	assert_string_equal(inv->hosts[1].ssh.proxy_jump, "bastion01");
	/* The jump host does not jump through itself. */
	assert_null(inv->hosts[0].ssh.proxy_jump);
	assert_int_equal(inv->hosts[0].ssh.port, 2200);
	assert_string_equal(inv->known_hosts, "/etc/kh");
	assert_int_equal(inv->connect_timeout_s, 3);
	assert_int_equal(inv->command_timeout_s, 99);
	assert_int_equal(inv->jump_sessions, 4);
	inventory_free(inv);
}

static void test_hardware_profiles(void **state)
{
	struct inventory *inv = load_ok(HEAD
		"hardware:\n"
		"  dgx1:\n"
		"    hcas:\n"
		"      - { names: \"mlx5_[0-1]\", rate: 100 Gb/s 4X EDR }\n"
		"      - name: eth0\n"
		"        port: 2\n"
		"        rate: 25 Gb/sec\n"
		"        link_layer: ethernet\n"
		"    gpus: { count: 8, model: Tesla V100-SXM2-32GB }\n"
		"  small:\n"
		"    gpus: { count: 1 }\n"
		"hosts:\n"
		"  dgx[01-02]:\n"
		"  own:\n"
		"    hardware: small\n"
		"groups:\n"
		"  gpu_worker:\n"
		"    hosts: [ \"dgx[01-02]\", own ]\n"
		"    hardware: dgx1\n");
	const struct host *h = &inv->hosts[1];

	(void)state;
	assert_int_equal(h->nhcas, 3);
	assert_string_equal(h->hcas[0].name, "mlx5_0");
	assert_string_equal(h->hcas[1].name, "mlx5_1");
	assert_int_equal(h->hcas[1].rate_gbps, 100);
	assert_string_equal(h->hcas[1].width, "4X");
	assert_string_equal(h->hcas[1].speed, "EDR");
	assert_int_equal(h->hcas[1].port, 1);
	assert_int_equal(h->hcas[1].link_layer, LINK_IB);
	assert_int_equal(h->hcas[1].loc.line, 6);
	assert_string_equal(h->hcas[2].name, "eth0");
	assert_int_equal(h->hcas[2].port, 2);
	assert_int_equal(h->hcas[2].rate_gbps, 25);
	assert_null(h->hcas[2].width);
	assert_null(h->hcas[2].speed);
	assert_int_equal(h->hcas[2].link_layer, LINK_ETH);
	assert_int_equal(h->gpus.count, 8);
	assert_string_equal(h->gpus.model, "Tesla V100-SXM2-32GB");
	/* A host's own profile beats its group's. */
	assert_int_equal(inv->hosts[2].nhcas, 0);
	assert_int_equal(inv->hosts[2].gpus.count, 1);
	assert_null(inv->hosts[2].gpus.model);
	inventory_free(inv);
}

static void test_vars_precedence_and_types(void **state)
{
	struct inventory *inv = load_ok(HEAD
		"  vars: { layer: cluster, a: 1, only_cluster: x, nested: { k: 1 } }\n"
		"hosts:\n"
		"  n[1-3]:\n"
		"  n4:\n"
		"    vars: { layer: host, port: \"22\", on: true, off: False,\n"
		"            none: ~, empty: null, f: 1.5, neg: -3, word: yes,\n"
		"            nested: { j: 2 } }\n"
		"groups:\n"
		"  scale_client:\n"
		"    hosts: n[2-4]\n"
		"    vars: { layer: scale_client, b: 2 }\n"
		"  gpu_worker:\n"
		"    hosts: n[3-4]\n"
		"    vars: { layer: gpu_worker }\n");
	json_t *v;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(inv->hosts[0].vars,
							      "layer")), "cluster");
	/* Groups apply in file order, so the later one wins... */
	assert_string_equal(json_string_value(json_object_get(inv->hosts[1].vars,
							      "layer")), "scale_client");
	assert_string_equal(json_string_value(json_object_get(inv->hosts[2].vars,
							      "layer")), "gpu_worker");
	/* ...and the host's own vars win over every group. */
	v = inv->hosts[3].vars;
	assert_string_equal(json_string_value(json_object_get(v, "layer")), "host");
	assert_int_equal(json_integer_value(json_object_get(v, "a")), 1);
	assert_int_equal(json_integer_value(json_object_get(v, "b")), 2);
	assert_string_equal(json_string_value(json_object_get(v, "only_cluster")), "x");
	/* Top-level keys are replaced, not merged. */
	assert_null(json_object_get(json_object_get(v, "nested"), "k"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(v, "nested"),
							    "j")), 2);
	/* Typed unless quoted (YAML 1.2 core schema: `yes` is a string). */
	assert_true(json_is_string(json_object_get(v, "port")));
	assert_true(json_is_true(json_object_get(v, "on")));
	assert_true(json_is_false(json_object_get(v, "off")));
	assert_true(json_is_null(json_object_get(v, "none")));
	assert_true(json_is_null(json_object_get(v, "empty")));
	assert_true(json_real_value(json_object_get(v, "f")) == 1.5);
	assert_int_equal(json_integer_value(json_object_get(v, "neg")), -3);
	assert_string_equal(json_string_value(json_object_get(v, "word")), "yes");
	/* Group vars are kept unmerged on the group. */
	assert_null(json_object_get(inv->groups[ROLE_GPU_WORKER].vars, "b"));
	assert_int_equal(inv->hosts[3].roles,
			 (1u << ROLE_SCALE_CLIENT) | (1u << ROLE_GPU_WORKER));
	assert_int_equal(inv->hosts[0].roles, 0);
	inventory_free(inv);
}

/* gpfs_config is a node class's: without gpfs_nodeclass it is an error
 * where it was written (group or host), not a setting ignored. */
static void test_gpfs_config_needs_nodeclass(void **state)
{
	struct inventory *inv;

	(void)state;
	assert_load_fails(HEAD "hosts:\n  dgx[01-02]:\n"
		"groups:\n  scale_client:\n    hosts: dgx[01-02]\n"
		"    vars:\n      gpfs_config: { workerThreads: 1024 }\n", ERR_INVENTORY,
		"inv.yaml:9:7: found gpfs_config for dgx01, which has no gpfs_nodeclass; "
		"expected gpfs_nodeclass beside it (gpfs_config is a node class's "
		"configuration, mmchconfig -N CLASS) or the attributes in gpfs_common_config "
		"([common])");
	/* a host's own gpfs_config wins over the group's: its place is named */
	assert_load_fails(HEAD "hosts:\n  dgx01:\n  dgx02:\n"
		"    vars: { gpfs_config: { pagepool: 1G } }\n", ERR_INVENTORY,
		"inv.yaml:6:13: found gpfs_config for dgx02, which has no gpfs_nodeclass; "
		"expected gpfs_nodeclass beside it (gpfs_config is a node class's "
		"configuration, mmchconfig -N CLASS) or the attributes in gpfs_common_config "
		"([common])");
	/* with a class, or empty: fine */
	inv = load_ok(HEAD "  vars: { gpfs_config: {} }\nhosts:\n  dgx01:\n"
		"    vars: { gpfs_nodeclass: dgx, gpfs_config: { pagepool: 1G } }\n  dgx02:\n");
	inventory_free(inv);
}

static void test_groups(void **state)
{
	struct inventory *inv = load_ok(HEAD
		"hosts:\n  dgx[01-03]:\n  scale00:\n"
		"groups:\n"
		"  scale_quorum: { hosts: scale00 }\n"
		"  gpu_worker: { hosts: [ dgx03, \"dgx[01-03]\" ] }\n");
	const struct group *g = &inv->groups[ROLE_GPU_WORKER];

	(void)state;
	assert_int_equal(g->role, ROLE_GPU_WORKER);
	/* Declaration order, each host once. */
	assert_int_equal(g->hosts.n, 3);
	assert_string_equal(g->hosts.v[0], "dgx03");
	assert_string_equal(g->hosts.v[1], "dgx01");
	assert_int_equal(g->loc.line, 8);
	assert_int_equal(inv->groups[ROLE_SCALE_QUORUM].hosts.n, 1);
	assert_int_equal(inv->groups[ROLE_BASTION].hosts.n, 0);
	assert_int_equal(inv->groups[ROLE_BASTION].loc.line, 0);
	assert_string_equal(role_name(ROLE_IB_SWITCH), "ib_switch");
	assert_int_equal(role_from_name("ocp_master"), ROLE_OCP_MASTER);
	assert_int_equal(role_from_name("gpu"), -1);
	inventory_free(inv);
}

static void test_error_unknown_keys(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  dgx01:\n    adress: 10.0.0.1\n", ERR_INVENTORY,
		"inv.yaml:5:5: unknown key 'adress' in host 'dgx01' (did you mean "
		"'address'?; expected one of: address, ssh, hardware, vars, same_machine)");
	assert_load_fails(HEAD "  colour: blue\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:3:3: unknown key 'colour' in cluster (expected one of: "
		"name, ssh, vars)");
	assert_load_fails(HEAD "  ssh: { usr: root }\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:3:10: unknown key 'usr' in cluster.ssh (did you mean "
		"'user'?; expected one of: user, port, key, proxy_jump, known_hosts, "
		"connect_timeout, command_timeout, jump_sessions)");
	assert_load_fails(HEAD "hosts:\n  a:\n    ssh: { known_hosts: /x }\n",
		ERR_INVENTORY, "inv.yaml:5:12: unknown key 'known_hosts' in the ssh "
		"settings of host 'a' (expected one of: user, port, key, proxy_jump)");
	assert_load_fails(HEAD "hardware:\n  p:\n    hcas: [ { name: m, speed: EDR } ]\n"
		"hosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:5:24: unknown key 'speed' in HCA entry 1 of hardware profile "
		"'p' (expected one of: name, names, port, rate, link_layer)");
	assert_load_fails(HEAD "hosts: { a: }\ngroups:\n  bastion: { host: a }\n",
		ERR_INVENTORY, "inv.yaml:5:14: unknown key 'host' in group 'bastion' "
		"(did you mean 'hosts'?; expected one of: hosts, hardware, vars)");
}

static void test_error_types(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  dgx01:\n    ssh: [ root ]\n", ERR_INVENTORY,
		"inv.yaml:5:10: found a sequence for 'ssh' in host 'dgx01', "
		"expected a mapping");
	assert_load_fails(HEAD "hosts:\n  - dgx01\n", ERR_INVENTORY,
		"inv.yaml:4:3: found a sequence for 'hosts' in the inventory, "
		"expected a mapping");
	assert_load_fails(HEAD "hosts:\n  a: { address: { x: 1 } }\n", ERR_INVENTORY,
		"inv.yaml:4:17: found a mapping for 'address' in host 'a', "
		"expected a single value");
	assert_load_fails("- 1\n", ERR_INVENTORY,
		"inv.yaml:1:1: found a sequence for the inventory, expected a mapping");
	assert_load_fails(HEAD "hosts: { a: }\ngroups: { bastion: { hosts: [ [a] ] } }\n",
		ERR_INVENTORY, "inv.yaml:4:31: found a sequence for 'hosts' of group "
		"'bastion', expected a single value");
}

static void test_error_integers(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  a: { ssh: { port: 0 } }\n", ERR_INVENTORY,
		"inv.yaml:4:21: found '0' for 'port' in the ssh settings of host 'a', "
		"expected an integer 1-65535");
	assert_load_fails(HEAD "hosts:\n  a: { ssh: { port: 65536 } }\n", ERR_INVENTORY,
		"inv.yaml:4:21: found '65536' for 'port' in the ssh settings of host "
		"'a', expected an integer 1-65535");
	assert_load_fails(HEAD "hosts:\n  a: { ssh: { port: ssh } }\n", ERR_INVENTORY,
		"inv.yaml:4:21: found 'ssh' for 'port' in the ssh settings of host "
		"'a', expected an integer 1-65535");
	assert_load_fails(HEAD "hosts:\n  a: { ssh: { port: -22 } }\n", ERR_INVENTORY,
		"inv.yaml:4:21: found '-22' for 'port' in the ssh settings of host "
		"'a', expected an integer 1-65535");
}

static void test_error_duplicates(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  a:\n    address: x\n    address: y\n",
		ERR_INVENTORY, "inv.yaml:6:5: duplicate key 'address' in host 'a' "
		"(first at line 5, column 5), expected each key once");
	assert_load_fails(HEAD "  vars: { a: 1, a: 2 }\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:3:17: duplicate key 'a' in vars of cluster (first at line 3, "
		"column 11), expected each key once");
	/* Overlapping ranges name both declarations. */
	assert_load_fails(HEAD "hosts:\n  dgx[01-02]:\n  scale00:\n  dgx[02-04]:\n",
		ERR_INVENTORY, "inv.yaml:6:3: duplicate host 'dgx02' from 'dgx[02-04]' "
		"(first declared at line 4, column 3 from 'dgx[01-02]'), expected "
		"each host once");
	assert_load_fails(HEAD "hosts:\n  x[1,1]:\n", ERR_INVENTORY,
		"inv.yaml:4:3: duplicate host 'x1' from 'x[1,1]' (first declared at "
		"line 4, column 3 from 'x[1,1]'), expected each host once");
	assert_load_fails(HEAD "hosts:\n  a:\n  a:\n", ERR_INVENTORY,
		"inv.yaml:5:3: duplicate key 'a' in hosts (first at line 4, column 3), "
		"expected each key once");
}

static void test_error_node_sets(void **state)
{
	(void)state;
	/* Columns point inside the pattern, past an opening quote. */
	assert_load_fails(HEAD "hosts:\n  \"dgx[01-\":\n", ERR_INVENTORY,
		"inv.yaml:4:11: bad node set 'dgx[01-' for hosts: found the end of "
		"the pattern, expected a number");
	assert_load_fails(HEAD "hosts:\n  dgx[5-2]:\n", ERR_INVENTORY,
		"inv.yaml:4:7: bad node set 'dgx[5-2]' for hosts: found the "
		"descending range '5-2', expected the smaller number first");
	assert_load_fails(HEAD "hosts:\n  dgx[1-99999999]:\n", ERR_INVENTORY,
		"inv.yaml:4:7: bad node set 'dgx[1-99999999]' for hosts: found a range "
		"of 99999999 names, expected at most 65536 names in one node set");
	assert_load_fails(HEAD "hosts:\n  a:\n    address: '10.0.0.[1-x]'\n",
		ERR_INVENTORY, "inv.yaml:5:25: bad node set '10.0.0.[1-x]' for 'address' "
		"in host 'a': found 'x', expected a number");
	assert_load_fails(HEAD "hosts:\n  'a b':\n", ERR_INVENTORY,
		"inv.yaml:4:5: bad node set 'a b' for hosts: found a space inside a "
		"name, expected ',' between names");
	assert_load_fails(HEAD "hosts:\n  a/b:\n", ERR_INVENTORY,
		"inv.yaml:4:3: found host name 'a/b' with a character other than "
		"letters, digits, '-' and '.', expected a host name (RFC 1123: labels "
		"of letters, digits and '-', 1-63 characters each, 253 in all)");
	assert_load_fails(HEAD "hosts:\n  bastion:\n", ERR_INVENTORY,
		"inv.yaml:4:3: found host name 'bastion', expected a name that is not "
		"'all' or a group name (--limit could not tell them apart)");
}

static void test_error_references(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  dgx[01-02]:\ngroups:\n"
		"  gpu_worker:\n    hosts: dgx[01-03]\n", ERR_INVENTORY,
		"inv.yaml:7:12: found undeclared host 'dgx03' in 'hosts' of group "
		"'gpu_worker', expected a host declared under 'hosts'");
	assert_load_fails(HEAD "hosts:\n  a:\ngroups:\n  gpu_workers: { hosts: a }\n",
		ERR_INVENTORY, "inv.yaml:6:3: unknown group 'gpu_workers' in groups (did "
		"you mean 'gpu_worker'?; expected one of: gpu_worker, scale_client, "
		"scale_quorum, scale_manager, nsd_server, sm_host, ib_switch, "
		"ocp_master, bastion)");
	assert_load_fails(HEAD "hardware:\n  dgx1: {}\nhosts:\n  a: { hardware: dgx2 }\n",
		ERR_INVENTORY, "inv.yaml:6:18: unknown hardware profile 'dgx2' in host "
		"'a' (did you mean 'dgx1'?; expected one of: dgx1)");
	assert_load_fails(HEAD "hosts:\n  a: { hardware: dgx1 }\n", ERR_INVENTORY,
		"inv.yaml:4:18: unknown hardware profile 'dgx1' in host 'a' (none is "
		"defined)");
	assert_load_fails(HEAD "hosts:\n  a:\ngroups:\n  bastion: { hosts: a, "
		"hardware: x }\n", ERR_INVENTORY, "inv.yaml:6:34: unknown hardware "
		"profile 'x' in group 'bastion' (none is defined)");
	assert_load_fails(HEAD "hosts:\n  a: { ssh: { proxy_jump: a } }\n",
		ERR_INVENTORY, "inv.yaml:4:27: found proxy_jump 'a' naming host 'a' "
		"itself, expected another host");
}

static void test_error_hcas(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hardware:\n  p:\n    hcas:\n      - { name: m, rate: "
		"100 Gbps }\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:6:26: found rate '100 Gbps' in HCA entry 1 of hardware profile "
		"'p', expected '<N> Gb/s [<width>] [<speed>]' such as '100 Gb/s 4X EDR'");
	assert_load_fails(HEAD "hardware:\n  p:\n    hcas:\n      - { name: m, rate: "
		"100 Gb/s 4X QDX }\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:6:26: found rate '100 Gb/s 4X QDX' in HCA entry 1 of hardware "
		"profile 'p', expected '<N> Gb/s [<width>] [<speed>]' such as "
		"'100 Gb/s 4X EDR'");
	assert_load_fails(HEAD "hardware:\n  p:\n    hcas:\n      - { port: 1 }\n"
		"hosts: { a: }\n", ERR_INVENTORY, "inv.yaml:6:9: found neither 'name' "
		"nor 'names' in HCA entry 1 of hardware profile 'p', expected exactly "
		"one of them");
	assert_load_fails(HEAD "hardware:\n  p:\n    hcas:\n      - { name: m, "
		"link_layer: roce }\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:6:32: unknown link_layer 'roce' in HCA entry 1 of hardware "
		"profile 'p' (expected one of: infiniband, ethernet)");
}

#define RFC1123 "expected a host name (RFC 1123: labels of letters, digits " \
		"and '-', 1-63 characters each, 253 in all)"

/* Host names follow RFC 1123: 63 a label, 253 in all, no '_', no '-' at a
 * label's ends; a node set's expansion is checked name by name. */
static void test_error_host_names(void **state)
{
	char label63[64], yaml[1024];
	struct inventory *inv;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	memset(label63, 'a', 63);
	label63[63] = '\0';
	/* the limits themselves pass: a 63-character label, 253 characters */
	snprintf(yaml, sizeof(yaml), HEAD "hosts:\n  %s:\n  %s.%s.%s.%.61s:\n",
		 label63, label63, label63, label63, label63);
	inv = load_ok(yaml);
	assert_int_equal(strlen(inv->hosts[1].name), 253);
	inventory_free(inv);
	/* one more is refused */
	strbuf_addf(&sb, HEAD "hosts:\n  %sb:\n", label63);
	assert_load_fails(sb.buf, ERR_INVENTORY, "inv.yaml:4:3: found host name "
		"'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' with a label of more "
		"than 63 characters, " RFC1123);
	strbuf_reset(&sb);
	strbuf_addf(&sb, HEAD "hosts:\n  %s.%s.%s.%.62s:\n", label63, label63,
		    label63, label63);
	assert_load_fails(sb.buf, ERR_INVENTORY, "inv.yaml:4:3: found host name "
		"'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' with more than 253 "
		"characters, " RFC1123);
	strbuf_release(&sb);
	assert_load_fails(HEAD "hosts:\n  dgx_01:\n", ERR_INVENTORY,
		"inv.yaml:4:3: found host name 'dgx_01' with a character other than "
		"letters, digits, '-' and '.', " RFC1123);
	assert_load_fails(HEAD "hosts:\n  dgx01-.site:\n", ERR_INVENTORY,
		"inv.yaml:4:3: found host name 'dgx01-.site' with a label ending with "
		"'-', " RFC1123);
	assert_load_fails(HEAD "hosts:\n  dgx01..site:\n", ERR_INVENTORY,
		"inv.yaml:4:3: found host name 'dgx01..site' with an empty label (two "
		"dots, or a dot at either end), " RFC1123);
	assert_load_fails(HEAD "hosts:\n  a:\n  -dgx[1-2]:\n", ERR_INVENTORY,
		"inv.yaml:5:3: found host name '-dgx1' (from '-dgx[1-2]') with a label "
		"starting with '-', " RFC1123);
	assert_load_fails(HEAD "hosts:\n  a: { address: 'no_such' }\n", ERR_INVENTORY,
		"inv.yaml:4:18: found address 'no_such' (from 'no_such') in host 'a' "
		"with a character other than letters, digits, '-' and '.', expected an "
		"IPv4 or IPv6 address or a host name (RFC 1123)");
	/* IPv6 and FQDN addresses pass */
	inv = load_ok(HEAD "hosts:\n  a: { address: 'fe80::1' }\n"
		      "  b.site.example: { address: B.Site.Example. }\n");
	inventory_free(inv);
}

/* NUL and control characters are refused in every string, keys and values,
 * at the scalar's position: a NUL would cut the name short for every C
 * reader ("dgx\0evil" was loaded as "dgx"). */
static void test_error_control_characters(void **state)
{
	static const char nul[] = HEAD "hosts:\n  dgx01: { vars: { \"a\\0b\": 1 } }\n";

	(void)state;
	assert_load_fails(HEAD "hosts:\n  \"dgx\\0evil\":\n", ERR_INVENTORY,
		"inv.yaml:4:4: found control character 0x00 as character 4 of "
		"'dgx\\x00evil', expected text without control characters (tab and "
		"newline allowed)");
	assert_load_fails(nul, ERR_INVENTORY,
		"inv.yaml:4:21: found control character 0x00 as character 2 of "
		"'a\\x00b', expected text without control characters (tab and "
		"newline allowed)");
	assert_load_fails(HEAD "hosts:\n  a: { vars: { x: \"\\e[2J\" } }\n",
		ERR_INVENTORY, "inv.yaml:4:20: found control character 0x1B as "
		"character 1 of '\\x1b[2J', expected text without control characters "
		"(tab and newline allowed)");
	assert_load_fails(HEAD "hosts:\n  a: { vars: { x: \"ok\\x7f\" } }\n",
		ERR_INVENTORY, "inv.yaml:4:20: found control character 0x7F as "
		"character 3 of 'ok\\x7f', expected text without control characters "
		"(tab and newline allowed)");
	/* C1 controls, as "\N" (U+0085) writes one */
	assert_load_fails("cluster: { name: \"p\\u0085q\" }\nhosts: { a: }\n",
		ERR_INVENTORY, "inv.yaml:1:19: found control character U+0085 as "
		"character 2 of 'p\\u0085q', expected text without control characters "
		"(tab and newline allowed)");
	assert_load_fails(HEAD "hosts:\n  a: { vars: { x: \"a\\rb\" } }\n",
		ERR_INVENTORY, "inv.yaml:4:20: found control character 0x0D as "
		"character 2 of 'a\\x0db', expected text without control characters "
		"(tab and newline allowed)");
	/* tab and newline are text; so is the rest of Unicode */
	inventory_free(load_ok(HEAD "hosts:\n  a: { vars: { x: \"a\\tb\\nc\", "
			       "y: \"caf\xc3\xa9 \xc2\xa0\" } }\n"));
}

/* The same address and port twice is one machine planned as two: an error
 * naming both, unless the later says it is the same machine; then only
 * one of its names may be in groups whose stages change it. */
static void test_error_duplicate_addresses(void **state)
{
	struct inventory *inv;

	(void)state;
	assert_load_fails(HEAD "hosts:\n  dgx01: { address: 10.0.0.1 }\n"
		"  dgx02: { address: 10.0.0.2 }\n  dgx03: { address: 10.0.0.1 }\n",
		ERR_INVENTORY, "inv.yaml:6:21: found address 10.0.0.1 port 22 of host "
		"'dgx03' already used by host 'dgx01' (line 4, column 21), expected one "
		"host per address and port (or 'same_machine: dgx01' when both name "
		"one machine)");
	/* the address defaults to the name; IPv6 and names compared as such */
	assert_load_fails(HEAD "hosts:\n  dgx01:\n  b: { address: DGX01. }\n",
		ERR_INVENTORY, "inv.yaml:5:17: found address DGX01. port 22 of host 'b' "
		"already used by host 'dgx01' (line 4, column 3), expected one host per "
		"address and port (or 'same_machine: dgx01' when both name one machine)");
	assert_load_fails(HEAD "hosts:\n  a: { address: '::1' }\n"
		"  b: { address: '0:0::1' }\n", ERR_INVENTORY, "inv.yaml:5:18: found "
		"address 0:0::1 port 22 of host 'b' already used by host 'a' "
		"(line 4, column 18), expected one host per address and port (or "
		"'same_machine: a' when both name one machine)");
	/* from node sets: the one at fault is named */
	assert_load_fails(HEAD "hosts:\n  dgx[01-04]: { address: '10.0.0.[1-4]' }\n"
		"  gpu[1-2]: { address: '10.0.0.[5,3]' }\n", ERR_INVENTORY,
		"inv.yaml:5:25: found address 10.0.0.3 port 22 of host 'gpu2' already "
		"used by host 'dgx03' (line 4, column 27), expected one host per address "
		"and port (or 'same_machine: dgx03' when both name one machine)");
	/* another port, or another jump host's network, is another machine */
	inv = load_ok(HEAD "hosts:\n  a: { address: 10.0.0.1 }\n"
		      "  b: { address: 10.0.0.1, ssh: { port: 2222 } }\n"
		      "  j:\n  c: { address: 10.0.0.1, ssh: { proxy_jump: j } }\n");
	inventory_free(inv);
	/* marked: one name changes the machine, the other is the bastion */
	inv = load_ok(HEAD "hosts:\n  dgx01: { address: 10.0.0.1 }\n"
		      "  adm: { address: 10.0.0.1, same_machine: dgx01 }\n"
		      "groups:\n  gpu_worker: { hosts: dgx01 }\n  bastion: { hosts: adm }\n");
	inventory_free(inv);
	assert_load_fails(HEAD "hosts:\n  dgx01: { address: 10.0.0.1 }\n"
		"  sm: { address: 10.0.0.1, same_machine: dgx01 }\n"
		"groups:\n  gpu_worker: { hosts: dgx01 }\n  sm_host: { hosts: sm }\n",
		ERR_INVENTORY, "inv.yaml:5:18: found hosts 'dgx01' (line 4, column 21) and "
		"'sm' at 10.0.0.1 port 22, one machine (same_machine), both in groups "
		"whose stages change it, expected only one of its names outside "
		"bastion and ocp_master");
	assert_load_fails(HEAD "hosts:\n  dgx01: { address: 10.0.0.1 }\n"
		"  sm: { address: 10.0.0.2, same_machine: dgx01 }\n", ERR_INVENTORY,
		"inv.yaml:5:42: found same_machine 'dgx01' in host 'sm' at 10.0.0.2 "
		"port 22, expected a host at the same address and port ('dgx01' is at "
		"10.0.0.1 port 22)");
	assert_load_fails(HEAD "hosts:\n  a: { same_machine: b }\n", ERR_INVENTORY,
		"inv.yaml:4:22: found same_machine 'b' in host 'a', expected a host "
		"declared under 'hosts'");
}

static void test_error_address_count(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  dgx[01-03]:\n    address: 10.0.0.[1-2]\n",
		ERR_INVENTORY, "inv.yaml:5:14: found 2 addresses in '10.0.0.[1-2]' for "
		"3 hosts, expected one address per host");
	assert_load_fails(HEAD "hosts:\n  dgx[01-02]:\n    address: 10.0.0.1\n",
		ERR_INVENTORY, "inv.yaml:5:14: found 1 address in '10.0.0.1' for "
		"2 hosts, expected one address per host");
}

static void test_error_structure(void **state)
{
	(void)state;
	assert_load_fails("", ERR_INVENTORY, "inv.yaml:1:1: found an empty document, "
			  "expected a mapping with 'cluster' and 'hosts'");
	assert_load_fails(HEAD, ERR_INVENTORY, "inv.yaml:1:1: found no key 'hosts' in "
			  "the inventory, expected it (it is required)");
	assert_load_fails("cluster: {}\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:1:10: found no key 'name' in cluster, expected it (it is "
		"required)");
	assert_load_fails("cluster: { name: 'a b' }\nhosts: { a: }\n", ERR_INVENTORY,
		"inv.yaml:1:19: found cluster name 'a b', expected letters, digits, "
		"'_', '.' and '-' only");
	assert_load_fails(HEAD "hosts: {}\n", ERR_INVENTORY,
		"inv.yaml:3:8: found no hosts under 'hosts', expected at least one");
	assert_load_fails(HEAD "hosts: { a: }\ngroups: { bastion: {} }\n", ERR_INVENTORY,
		"inv.yaml:4:20: found no key 'hosts' in group 'bastion', expected it "
		"(it is required)");
}

static void test_error_yaml_syntax(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  a: b: c\n", ERR_PARSE,
		"inv.yaml:4:7: YAML syntax error: mapping values are not allowed in "
		"this context");
	assert_load_fails(HEAD "hosts: [a\n", ERR_PARSE,
		"inv.yaml:4:1: YAML syntax error: did not find expected ',' or ']' "
		"while parsing a flow sequence (line 3)");
	assert_load_fails(HEAD "hosts: { a: }\n---\nmore: 1\n", ERR_PARSE,
		"inv.yaml:4:1: found a second YAML document, expected one document");
	assert_load_fails(HEAD "hosts:\n  caf\xc3\xa9\xff:\n", ERR_PARSE,
		"inv.yaml:4:7: invalid leading UTF-8 octet, expected UTF-8 text");
}

/* The optional fabric section: read into typed counts, -1 where absent. */
static void test_fabric_section(void **state)
{
	struct inventory *inv;

	(void)state;
	inv = load_ok(HEAD "hosts:\n  a: {}\n");
	assert_false(inv->fabric.present);
	inventory_free(inv);
	inv = load_ok(HEAD "hosts:\n  a: {}\nfabric:\n  leaf_switches: 2\n  spine_switches: 2\n"
		      "  uplinks_per_leaf: 18\n  isl_rate: 4X HDR\n");
	assert_true(inv->fabric.present);
	assert_int_equal(inv->fabric.leaf_switches, 2);
	assert_int_equal(inv->fabric.spine_switches, 2);
	assert_int_equal(inv->fabric.uplinks_per_leaf, 18);
	assert_int_equal(inv->fabric.host_ports_per_leaf, -1);
	assert_string_equal(inv->fabric.isl_width, "4X");
	assert_string_equal(inv->fabric.isl_speed, "HDR");
	assert_int_equal(inv->fabric.loc.line, 6);
	inventory_free(inv);
	/* one leaf, no spine: nothing to cable up */
	inv = load_ok(HEAD "hosts:\n  a: {}\nfabric: { leaf_switches: 1, spine_switches: 0, "
		      "uplinks_per_leaf: 0 }\n");
	assert_int_equal(inv->fabric.spine_switches, 0);
	assert_null(inv->fabric.isl_width);
	inventory_free(inv);
}

static void test_error_fabric(void **state)
{
	(void)state;
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  leaves: 2\n", ERR_INVENTORY,
		"inv.yaml:6:3: unknown key 'leaves' in fabric (expected one of: "
		"leaf_switches, spine_switches, host_ports_per_leaf, uplinks_per_leaf, isl_rate)");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  leaf_switches: 0\n", ERR_INVENTORY,
		"inv.yaml:6:18: found '0' for 'leaf_switches' in fabric, expected an integer 1-4096");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  spine_switches: two\n", ERR_INVENTORY,
		"inv.yaml:6:19: found 'two' for 'spine_switches' in fabric, expected an "
		"integer 0-4096");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  isl_rate: 100 Gb/s\n", ERR_INVENTORY,
		"inv.yaml:6:13: found isl_rate '100 Gb/s' in fabric, expected '<width> <speed>' "
		"such as '4X EDR'");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  isl_rate: 4X EDR extra\n", ERR_INVENTORY,
		"inv.yaml:6:13: found isl_rate '4X EDR extra' in fabric, expected '<width> <speed>' "
		"such as '4X EDR'");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  isl_rate: X EDR\n", ERR_INVENTORY,
		"inv.yaml:6:13: found isl_rate 'X EDR' in fabric, expected '<width> <speed>' "
		"such as '4X EDR'");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  isl_rate: 4X GDR\n", ERR_INVENTORY,
		"inv.yaml:6:13: found isl_rate '4X GDR' in fabric, expected '<width> <speed>' "
		"such as '4X EDR'");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  spine_switches: 2\n"
			  "  uplinks_per_leaf: 3\n", ERR_INVENTORY,
		"inv.yaml:7:21: found uplinks_per_leaf 3 in fabric, expected a multiple of "
		"spine_switches (2): each leaf is cabled evenly to every spine");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric:\n  spine_switches: 0\n"
			  "  uplinks_per_leaf: 2\n", ERR_INVENTORY,
		"inv.yaml:7:21: found uplinks_per_leaf 2 in fabric with spine_switches 0, "
		"expected 0: with no spine a leaf has nothing to cable up to");
	assert_load_fails(HEAD "hosts:\n  a: {}\nfabric: 2\n", ERR_INVENTORY,
		"inv.yaml:5:9: found '2' for 'fabric' in the inventory, expected a mapping");
}

static void test_load_file(void **state)
{
	struct inventory *inv = NULL;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(inventory_load("inventory/redbook-poc.yaml", &inv, &e), 0);
	assert_int_equal(inv->nhosts, 8);
	assert_string_equal(inv->cluster_name, "redbook-poc");
	assert_int_equal(inventory_host(inv, "dgx02")->nhcas, 4);
	assert_int_equal(inventory_host(inv, "dgx02")->gpus.count, 8);
	assert_string_equal(json_string_value(json_object_get(inv->vars, "ofed_version")),
			    "MLNX_OFED_LINUX-4.7-3.2.9.0");
	inventory_free(inv);
	assert_int_equal(inventory_load("/nonexistent/inv.yaml", &inv, &e), ERR_IO);
	assert_null(inv);
	err_clear(&e);
}

static const char select_yaml[] = HEAD
	"hosts:\n  dgx[01-04]:\n  scale00:\n  ib01:\n"
	"groups:\n"
	"  gpu_worker: { hosts: \"dgx[03-04],dgx[01-02]\" }\n"
	"  scale_quorum: { hosts: scale00 }\n";

/* The selected names, joined by spaces. */
static char *select_names(const struct inventory *inv, const char *limit, int *rc,
			  struct err *e)
{
	size_t *idx = NULL, n = 0, len = 0;
	char *out = calloc(1, 256);

	*rc = inventory_select(inv, limit, &idx, &n, e);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, 256 - len, "%s%s", i ? " " : "",
					inv->hosts[idx[i]].name);
	free(idx);
	return out;
}

#define assert_selects(inv, limit, want)                                \
	do {                                                             \
		struct err e_ = ERR_INIT;                                \
		int rc_;                                                 \
		char *got_ = select_names(inv, limit, &rc_, &e_);        \
		assert_int_equal(rc_, 0);                                \
		assert_string_equal(got_, want);                         \
		free(got_);                                              \
	} while (0)

static void test_select(void **state)
{
	struct inventory *inv = load_ok(select_yaml);

	(void)state;
	assert_selects(inv, NULL, "dgx01 dgx02 dgx03 dgx04 scale00 ib01");
	assert_selects(inv, "all", "dgx01 dgx02 dgx03 dgx04 scale00 ib01");
	/* Inventory order, not the group's or the limit's order. */
	assert_selects(inv, "gpu_worker", "dgx01 dgx02 dgx03 dgx04");
	assert_selects(inv, "ib01,dgx[04,02]", "dgx02 dgx04 ib01");
	assert_selects(inv, "scale_quorum,dgx01", "dgx01 scale00");
	/* No duplicates when items overlap. */
	assert_selects(inv, "gpu_worker,dgx[01-02],dgx01", "dgx01 dgx02 dgx03 dgx04");
	assert_selects(inv, " ib01 , scale00", "scale00 ib01");
	/* A role nobody has selects nothing; it is not an error. */
	assert_selects(inv, "bastion", "");
	inventory_free(inv);
}

static void test_select_errors(void **state)
{
	struct inventory *inv = load_ok(select_yaml);
	struct err e = ERR_INIT;
	size_t *idx = (size_t *)1, n = 7;

	(void)state;
	assert_int_equal(inventory_select(inv, "dgx01,nosuch", &idx, &n, &e),
			 ERR_INVENTORY);
	assert_string_equal(err_msg(&e), "no host or group matches 'nosuch'");
	assert_null(idx);
	assert_int_equal(n, 0);
	assert_int_equal(inventory_select(inv, "dgx[04-05]", &idx, &n, &e),
			 ERR_INVENTORY);
	assert_string_equal(err_msg(&e), "no host or group matches 'dgx05'");
	assert_int_equal(inventory_select(inv, "dgx[4-", &idx, &n, &e), ERR_PARSE);
	assert_string_equal(err_msg(&e), "--limit: node set 'dgx[4-', column 7: "
			    "found the end of the pattern, expected a number");
	assert_int_equal(inventory_select(inv, "dgx01,", &idx, &n, &e), ERR_PARSE);
	err_clear(&e);
	inventory_free(inv);
}

static void test_to_json(void **state)
{
	struct inventory *inv = load_ok(select_yaml);
	json_t *j = inventory_to_json(inv, NULL), *h, *one;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(j, "cluster")), "poc");
	assert_int_equal(json_array_size(json_object_get(j, "hosts")), 6);
	h = json_array_get(json_object_get(j, "hosts"), 2);
	assert_string_equal(json_string_value(json_object_get(h, "name")), "dgx03");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(h, "ssh"),
							    "port")), 22);
	assert_string_equal(json_string_value(json_array_get(json_object_get(h, "roles"),
							     0)), "gpu_worker");
	assert_string_equal(json_string_value(json_object_get(h, "declared_at")),
			    "inv.yaml:4:3");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(j, "groups"), "gpu_worker"), "nodeset")), "dgx[01-04]");
	assert_null(json_object_get(json_object_get(j, "groups"), "bastion"));
	one = inventory_to_json(inv, inventory_host(inv, "ib01"));
	assert_int_equal(json_array_size(json_object_get(one, "hosts")), 1);
	json_decref(one);
	json_decref(j);
	inventory_free(inv);
}

/* Hostile YAML (found by fuzzing) gets FILE:LINE:COL, not a crash. */
static void test_yaml_graphs_are_refused(void **state)
{
	(void)state;
	assert_load_fails(HEAD "  vars:\n   a: &a [*a]\nhosts:\n", ERR_INVENTORY,
			  "inv.yaml:4:7: found an alias to the anchored node at line 4, "
			  "column 7 inside that node, expected an alias outside its "
			  "anchor (no cycles)");
	assert_load_fails(HEAD "  vars: &v\n    self: *v\nhosts:\n", ERR_INVENTORY,
			  "inv.yaml:3:9: found an alias to the anchored node at line 3, "
			  "column 9 inside that node, expected an alias outside its "
			  "anchor (no cycles)");
}

static char *host_vars_text(const struct inventory *inv)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < inv->nhosts; i++) {
		char *s = json_dumps(inv->hosts[i].vars, JSON_COMPACT | JSON_SORT_KEYS);

		strbuf_addf(&sb, "%s=%s\n", inv->hosts[i].name, s);
		free(s);
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * jansson returns NULL when it cannot allocate. Whichever allocation fails,
 * the inventory loads with every var in place or fails with a message: under
 * a memory limit a "billion laughs" file used to pass `inventory check`.
 */
static void test_vars_out_of_memory(void **state)
{
	static const char yaml[] = HEAD
		"  vars: { a: [1, 2, {b: c}], d: x }\n"
		"hosts:\n"
		"  n[1-2]:\n"
		"  n3:\n"
		"    vars: { e: [3], d: y }\n"
		"groups:\n"
		"  scale_client:\n"
		"    hosts: n[2-3]\n"
		"    vars: { f: {g: 1} }\n";
	struct inventory *inv = load_ok(yaml);
	char *want = host_vars_text(inv);
	int failures = 0;

	(void)state;
	inventory_free(inv);
	json_set_alloc_funcs(failing_malloc, free);
	for (long budget = 0; budget < 300; budget++) {
		struct err e = ERR_INIT;
		int rc;

		alloc_budget = budget;
		rc = inventory_load_buf("inv.yaml", yaml, strlen(yaml), &inv, &e);
		alloc_budget = -1;
		if (!rc) {
			char *got = host_vars_text(inv);

			assert_string_equal(got, want);
			free(got);
			inventory_free(inv);
		} else {
			failures++;
			assert_int_equal(rc, ERR_INVENTORY);
			assert_non_null(e.msg);
			assert_non_null(strstr(e.msg, "out of memory"));
		}
		err_clear(&e);
	}
	json_set_alloc_funcs(malloc, free);
	assert_true(failures > 10);
	free(want);
}

/* Where a host's gpfs_config.pagepool was written: the layer that wins. */
static void test_var_loc(void **state)
{
	static const char yaml[] =
		"cluster:\n"
		"  name: c\n"
		"  vars:\n"
		"    gpfs_nodeclass: c\n"
		"    gpfs_config: { pagepool: 1G }\n"
		"hosts:\n"
		"  n[1-3]:\n"
		"  n4:\n"
		"    vars:\n"
		"      gpfs_config:\n"
		"        pagepool: 4G\n"
		"groups:\n"
		"  scale_client:\n"
		"    hosts: n[2-4]\n"
		"    vars:\n"
		"      gpfs_config:\n"
		"        workerThreads: 512\n"
		"  scale_quorum:\n"
		"    hosts: n3\n"
		"    vars:\n"
		"      gpfs_config: {pagepool: 2G}\n";
	char path[] = "/tmp/test-inventory-XXXXXX";
	int fd = mkstemp(path);
	struct inventory *inv = NULL;
	struct err e = ERR_INIT;
	struct src_loc loc;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, yaml, sizeof(yaml) - 1), (ssize_t)(sizeof(yaml) - 1));
	close(fd);
	assert_int_equal(inventory_load(path, &inv, &e), 0);
	/* the cluster's */
	assert_int_equal(inventory_var_loc(inv, "n1", "gpfs_config", "pagepool", &loc), 0);
	assert_int_equal(loc.line, 5);
	assert_int_equal(loc.col, 20);
	/* scale_client's gpfs_config replaces the cluster's whole: no pagepool */
	assert_int_equal(inventory_var_loc(inv, "n2", "gpfs_config", "pagepool", &loc), -1);
	assert_int_equal(inventory_var_loc(inv, "n2", "gpfs_config", "workerThreads", &loc), 0);
	assert_int_equal(loc.line, 17);
	/* a later group over an earlier one, the host over both */
	assert_int_equal(inventory_var_loc(inv, "n3", "gpfs_config", "pagepool", &loc), 0);
	assert_int_equal(loc.line, 21);
	assert_int_equal(loc.col, 21);
	assert_int_equal(inventory_var_loc(inv, "n4", "gpfs_config", "pagepool", &loc), 0);
	assert_int_equal(loc.line, 11);
	assert_int_equal(loc.col, 9);
	assert_string_equal(loc.file, path);
	/* the var itself */
	assert_int_equal(inventory_var_loc(inv, "n4", "gpfs_config", NULL, &loc), 0);
	assert_int_equal(loc.line, 10);
	inventory_free(inv);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_from_node_sets),
		cmocka_unit_test(test_var_loc),
		cmocka_unit_test(test_ssh_defaults),
		cmocka_unit_test(test_ssh_cluster_defaults_and_jump_host),
		cmocka_unit_test(test_hardware_profiles),
		cmocka_unit_test(test_vars_precedence_and_types),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_gpfs_config_needs_nodeclass),
		cmocka_unit_test(test_error_unknown_keys),
		cmocka_unit_test(test_error_types),
		cmocka_unit_test(test_error_integers),
		cmocka_unit_test(test_error_duplicates),
		cmocka_unit_test(test_error_node_sets),
		cmocka_unit_test(test_error_references),
		cmocka_unit_test(test_error_hcas),
		cmocka_unit_test(test_error_address_count),
		cmocka_unit_test(test_error_host_names),
		cmocka_unit_test(test_error_control_characters),
		cmocka_unit_test(test_error_duplicate_addresses),
		cmocka_unit_test(test_error_structure),
		cmocka_unit_test(test_error_yaml_syntax),
		cmocka_unit_test(test_fabric_section),
		cmocka_unit_test(test_error_fabric),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_select_errors),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_vars_out_of_memory),
		cmocka_unit_test(test_yaml_graphs_are_refused),
	};

	return cmocka_run_group_tests_name("inventory", tests, NULL, NULL);
}
