/*
 * Unit tests for the simulator's pure parts (sim/profile.c) and its file
 * helpers: the profile table, node names and addresses, and the texts sim up
 * writes (node.conf, inventory, sshd_config, fstab).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../sim/sim.h"
#include "../../sim/sim-int.h"
#include "../../engine/base/xalloc.h"

static struct sim *new_sim(const char *profile, unsigned n)
{
	struct err err = ERR_INIT;
	struct sim *s = sim_new("/tmp/simdir", sim_profile_find(profile), SIM_STATE_READY, n,
				2222, &err);

	assert_non_null(s);
	s->token = xstrdup("0123abcd");
	free(s->user);
	s->user = xstrdup("alice");
	return s;
}

static void assert_has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, len) && (p[len] == '\n' || !p[len]))
			return;
	fail_msg("line not found: %s\nin:\n%s", line, text);
}

static void test_profiles(void **state)
{
	(void)state;
	assert_true(sim_nprofiles >= 2);
	for (unsigned i = 1; i < sim_nprofiles; i++)
		assert_true(strcmp(sim_profiles[i - 1].name, sim_profiles[i].name) < 0);
	for (unsigned i = 0; i < sim_nprofiles; i++) {
		const struct sim_profile *p = &sim_profiles[i];

		assert_ptr_equal(sim_profile_find(p->name), p);
		assert_true(p->nhcas > 0 && p->gpu_count > 0);
		for (unsigned h = 0; h < p->nhcas; h++) {
			char want[16];

			snprintf(want, sizeof(want), "mlx5_%u", h);
			assert_string_equal(p->hcas[h].name, want);
		}
	}
	assert_null(sim_profile_find("dgx2"));

	const struct sim_profile *d = sim_profile_find("dgx1-edr");
	assert_int_equal(d->nhcas, 4);
	assert_string_equal(d->peermem_module, "nv_peer_mem");
	assert_string_equal(d->kernel, "3.10.0-957.el7.x86_64");

	const struct sim_profile *h = sim_profile_find("hgx-h100-ndr");
	unsigned ib = 0, storage = 0;
	for (unsigned k = 0; k < h->nhcas; k++) {
		ib += !strcmp(h->hcas[k].link_layer, "InfiniBand") && h->hcas[k].rate_gbps == 400;
		storage += !strcmp(h->hcas[k].use, "storage") &&
			   !strcmp(h->hcas[k].link_layer, "Ethernet");
	}
	assert_int_equal(ib, 8);
	assert_int_equal(storage, 2);
	assert_string_equal(h->peermem_module, "nvidia_peermem");
}

static void test_names_and_addresses(void **state)
{
	const struct sim_profile *d = sim_profile_find("dgx1-edr");
	struct {
		unsigned i, n;
		const char *name, *addr;
	} cases[] = {
		{ 0, 1, "dgx01", "127.0.1.1" },
		{ 3, 9, "dgx04", "127.0.1.4" },
		{ 63, 64, "dgx64", "127.0.1.64" },
		{ 99, 100, "dgx100", "127.0.1.100" },
		{ 249, 256, "dgx250", "127.0.1.250" },
		{ 250, 256, "dgx251", "127.0.2.1" },
		{ 255, 256, "dgx256", "127.0.2.6" },
		{ 999, 1000, "dgx1000", "127.0.4.250" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *name = sim_node_name(d, cases[k].i, cases[k].n);
		char *addr = sim_node_addr(cases[k].i);

		assert_string_equal(name, cases[k].name);
		assert_string_equal(addr, cases[k].addr);
		free(name);
		free(addr);
	}
}

static void test_sim_new_checks(void **state)
{
	const struct sim_profile *d = sim_profile_find("dgx1-edr");
	struct err err = ERR_INIT;

	(void)state;
	assert_null(sim_new("relative/dir", d, SIM_STATE_BARE, 4, 2222, &err));
	assert_int_equal(err.code, ERR_USAGE);
	assert_null(sim_new("/tmp/with space", d, SIM_STATE_BARE, 4, 2222, &err));
	assert_null(sim_new("/tmp/a,b", d, SIM_STATE_BARE, 4, 2222, &err));
	assert_null(sim_new("/tmp/x", d, SIM_STATE_BARE, 0, 2222, &err));
	assert_null(sim_new("/tmp/x", d, SIM_STATE_BARE, SIM_MAX_NODES + 1, 2222, &err));
	assert_non_null(strstr(err_msg(&err), "out of range"));
	err_clear(&err);

	struct sim *s = new_sim("hgx-h100-ndr", 256);
	assert_string_equal(s->nodes[255].name, "hgx256");
	assert_string_equal(s->nodes[255].dir, "/tmp/simdir/nodes/hgx256");
	assert_int_equal(sim_node_find(s, "hgx007"), 6);
	assert_int_equal(sim_node_find(s, "hgx7"), -1);
	sim_free(s);
	sim_free(NULL);
}

static void test_nodeset(void **state)
{
	struct sim *s = new_sim("dgx1-edr", 12);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sim_add_nodeset(&sb, s, 0, 11);
	assert_string_equal(sb.buf, "dgx[01-12]");
	strbuf_reset(&sb);
	sim_add_nodeset(&sb, s, 4, 4);
	assert_string_equal(sb.buf, "dgx05");
	strbuf_release(&sb);
	sim_free(s);
}

static void test_node_conf(void **state)
{
	struct sim *s = new_sim("dgx1-edr", 4);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sim_format_node_conf(&sb, s, 0);
	assert_has_line(sb.buf, "NODE_NAME='dgx01'");
	assert_has_line(sb.buf, "NODE_INDEX='0'");
	assert_has_line(sb.buf, "NODE_COUNT='4'");
	assert_has_line(sb.buf, "NODE_ADDR='127.0.1.1'");
	assert_has_line(sb.buf, "STATE='ready'");
	assert_has_line(sb.buf, "OS_PRETTY_NAME='Red Hat Enterprise Linux Server 7.6 (Maipo)'");
	assert_has_line(sb.buf, "GPU_MODEL='Tesla V100-SXM2-32GB'");
	assert_has_line(sb.buf, "HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3'");
	assert_has_line(sb.buf, "HCA_mlx5_3='InfiniBand 100 4X EDR compute'");
	assert_has_line(sb.buf, "OFED_VERSION='MLNX_OFED_LINUX-4.7-3.2.9.0'");
	assert_has_line(sb.buf, "SM_HOST='1'");
	strbuf_reset(&sb);
	sim_format_node_conf(&sb, s, 2);
	assert_has_line(sb.buf, "SM_HOST='0'");
	assert_has_line(sb.buf, "NODE_INDEX='2'");
	strbuf_release(&sb);
	sim_free(s);

	s = new_sim("hgx-h100-ndr", 2);
	sim_format_node_conf(&sb, s, 1);
	assert_has_line(sb.buf, "HCA_mlx5_7='InfiniBand 400 4X NDR compute'");
	assert_has_line(sb.buf, "HCA_mlx5_9='Ethernet 200 4X HDR storage'");
	assert_has_line(sb.buf, "PEERMEM_MODULE='nvidia_peermem'");
	strbuf_release(&sb);
	sim_free(s);
}

static void test_inventory(void **state)
{
	struct sim *s = new_sim("dgx1-edr", 2);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sim_format_inventory(&sb, s);
	assert_has_line(sb.buf, "  name: sim");
	assert_has_line(sb.buf, "    user: \"alice\"");
	assert_has_line(sb.buf, "    port: 2222");
	assert_has_line(sb.buf, "    key: \"/tmp/simdir/id_ed25519\"");
	assert_has_line(sb.buf, "    known_hosts: \"/tmp/simdir/known_hosts\"");
	assert_has_line(sb.buf, "    ofed_version: \"MLNX_OFED_LINUX-4.7-3.2.9.0\"");
	assert_has_line(sb.buf, "    peermem_module: \"nv_peer_mem\"");
	assert_has_line(sb.buf, "    gpu_driver: \"418.87.01\"");
	assert_has_line(sb.buf, "        rate: 100 Gb/s 4X EDR");
	assert_has_line(sb.buf, "  \"dgx[01-02]\":");
	assert_has_line(sb.buf, "    address: \"127.0.1.[1-2]\"");
	/* Fewer nodes than a role wants: the role takes them all. */
	assert_non_null(strstr(sb.buf, "  scale_quorum:\n    hosts: \"dgx[01-02]\"\n"));
	assert_non_null(strstr(sb.buf, "  scale_manager:\n    hosts: \"dgx[01-02]\"\n"));
	assert_non_null(strstr(sb.buf, "  sm_host:\n    hosts: \"dgx01\"\n"));
	/* Spectrum Scale: what the scale stages read, as sim-init-gpfs builds it */
	assert_has_line(sb.buf, "    gpfs_cluster_name: \"dgx01\"");
	assert_has_line(sb.buf, "    gpfs_installer: \"/tmp/simdir/cluster/scale/5.0.4.3\"");
	assert_has_line(sb.buf, "    gpfs_remote_cluster: ess3000.bda.scale.ibm.com");
	assert_has_line(sb.buf, "    gpfs_remote_contact_nodes: [fscc-fab3-3-a-priv.bda.scale.com, "
				"fscc-fab3-3-b-priv.bda.scale.com]");
	assert_has_line(sb.buf, "    gpfs_remote_key: \"/tmp/simdir/cluster/scale/ess3000.pub\"");
	assert_has_line(sb.buf, "    gpfs_mount_point: /gpfs/ess3000_4M");
	assert_has_line(sb.buf, "    scale_filesystem: ess3000_4M");
	assert_non_null(strstr(sb.buf, "  scale_client:\n    hosts: \"dgx[01-02]\"\n    vars:\n"
				       "      gpfs_nodeclass: dgx\n      gpfs_config:\n"
				       "        pagepool: 16G\n"));
	assert_non_null(strstr(sb.buf, "    gpfs_common_config:\n      maxMBpS: 20000\n"));
	strbuf_release(&sb);
	sim_free(s);

	s = new_sim("hgx-h100-ndr", 251);
	sim_format_inventory(&sb, s);
	assert_has_line(sb.buf, "  \"hgx[001-250]\":");
	assert_has_line(sb.buf, "    address: \"127.0.1.[1-250]\"");
	assert_has_line(sb.buf, "  \"hgx251\":");
	assert_has_line(sb.buf, "    address: 127.0.2.1");
	assert_has_line(sb.buf, "        link_layer: ethernet");
	assert_non_null(strstr(sb.buf, "  scale_quorum:\n    hosts: \"hgx[001-003]\"\n"));
	assert_non_null(strstr(sb.buf, "  gpu_worker:\n    hosts: \"hgx[001-251]\"\n"));
	assert_has_line(sb.buf, "    storage_hcas: [mlx5_8, mlx5_9]");
	strbuf_release(&sb);
	sim_free(s);
}

static void test_sshd_config(void **state)
{
	struct sim *s = new_sim("dgx1-edr", 4);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	s->rootless = false;
	sim_format_sshd_config(&sb, s, 1, "/usr/lib/openssh/sftp-server", false);
	assert_has_line(sb.buf, "ListenAddress 127.0.1.2:2222");
	assert_has_line(sb.buf, "HostKey \"/tmp/simdir/nodes/dgx02/ssh_host_ed25519_key\"");
	assert_has_line(sb.buf, "AuthorizedKeysFile \"/tmp/simdir/authorized_keys\" "
				"\"/tmp/simdir/nodes/dgx02/peer_authorized_keys\"");
	assert_has_line(sb.buf, "PasswordAuthentication no");
	assert_has_line(sb.buf, "UsePAM no");
	assert_has_line(sb.buf, "ForceCommand '/tmp/simdir'/bin/sim-shell");
	assert_has_line(sb.buf, "SetEnv \"HOME=/tmp/simdir/nodes/dgx02/home\" "
				"\"BRINGUP_SIM_NODE=/tmp/simdir/nodes/dgx02\" "
				"\"BRINGUP_SIM_DIR=/tmp/simdir\" \"BRINGUP_SIM_TOKEN=0123abcd\"");
	assert_has_line(sb.buf, "Subsystem sftp /usr/lib/openssh/sftp-server");
	assert_null(strstr(sb.buf, "PerSourcePenalties"));
	strbuf_reset(&sb);
	s->rootless = true;
	sim_format_sshd_config(&sb, s, 0, NULL, true);
	assert_has_line(sb.buf, "PerSourcePenalties no");
	assert_non_null(strstr(sb.buf, " BRINGUP_SIM_USERNS=1\n"));
	assert_null(strstr(sb.buf, "Subsystem"));
	strbuf_release(&sb);
	sim_free(s);
}

static void test_fstab(void **state)
{
	struct sim *s = new_sim("dgx1-edr", 4);
	struct strbuf sb = STRBUF_INIT;
	const char *last;

	(void)state;
	sim_format_fstab(&sb, s, 0);
	assert_has_line(sb.buf, "sim-usr /usr overlay lowerdir=/usr,upperdir=/tmp/simdir/nodes/dgx01/"
				"root/usr,workdir=/tmp/simdir/nodes/dgx01/work/@LOGIN@/usr 0 0");
	assert_has_line(sb.buf, "/tmp/simdir/bin /run/bringup-sim/bin none bind,X-mount.mkdir 0 0");
	assert_has_line(sb.buf, "/tmp/simdir/nodes /run/bringup-sim/fabric none bind,ro,X-mount.mkdir 0 0");
	/* Through the node's bind, which comes before it. */
	assert_has_line(sb.buf, "/run/bringup-sim/node/state/sys/class /sys/class none bind 0 0");
	assert_has_line(sb.buf, "/run/bringup-sim/node/state/boot_id "
				"/proc/sys/kernel/random/boot_id none bind 0 0");
	assert_true(strstr(sb.buf, "/run/bringup-sim/node none") <
		    strstr(sb.buf, "/run/bringup-sim/node/state/boot_id"));
	/* /run comes first (the binds go under it), /tmp last (D may be under it). */
	assert_true(strstr(sb.buf, " /run tmpfs ") < strstr(sb.buf, "/run/bringup-sim/node"));
	strbuf_rtrim(&sb);
	last = strrchr(sb.buf, '\n') + 1;
	assert_string_equal(last, "/tmp/simdir/nodes/dgx01/tmp /tmp none bind 0 0");
	/* bringup's node state, coherent across logins (one file system) */
	assert_has_line(sb.buf, "/tmp/simdir/nodes/dgx01/root/var/lib/bringup /var/lib/bringup none "
			"bind,X-mount.mkdir 0 0");
	strbuf_release(&sb);
	sim_free(s);
}

static void test_remove_tree(void **state)
{
	char tmpl[] = "/tmp/test-sim-XXXXXX";
	char *dir = mkdtemp(tmpl);
	struct err err = ERR_INIT;
	char *sub, *file;

	(void)state;
	assert_non_null(dir);
	sub = xasprintf("%s/a/work", dir);
	assert_int_equal(simfs_mkdirs(sub, 0755, &err), 0);
	file = xasprintf("%s/f", sub);
	assert_int_equal(simfs_write(file, "x", 1, 0600, &err), 0);
	/* What overlayfs leaves behind: a work dir nobody may enter. */
	assert_int_equal(chmod(sub, 0), 0);
	assert_int_equal(simfs_remove_tree(dir, &err), 0);
	assert_false(simfs_exists(dir));
	assert_int_equal(simfs_remove_tree(dir, &err), 0);
	free(sub);
	free(file);
}

static void test_load(void **state)
{
	char tmpl[] = "/tmp/test-sim-XXXXXX";
	char *dir = mkdtemp(tmpl), *path;
	static const char conf[] = "# comment\nPROFILE='hgx-h100-ndr'\nSTATE='bare'\n"
				   "NODE_COUNT='5'\nPORT='2301'\n";
	struct err err = ERR_INIT;
	struct sim *s;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(sim_load(dir, &s, &err), ERR_NOTFOUND);
	assert_null(s);
	assert_non_null(strstr(err_msg(&err), "sim up"));
	path = xasprintf("%s/sim.conf", dir);
	assert_int_equal(simfs_write(path, conf, strlen(conf), 0644, &err), 0);
	free(path);
	path = xasprintf("%s/token", dir);
	assert_int_equal(simfs_write(path, "feed\n", 5, 0600, &err), 0);
	free(path);
	assert_int_equal(sim_load(dir, &s, &err), 0);
	assert_string_equal(s->profile->name, "hgx-h100-ndr");
	assert_int_equal(s->state, SIM_STATE_BARE);
	assert_int_equal(s->n, 5);
	assert_int_equal(s->port, 2301);
	assert_string_equal(s->token, "feed");
	assert_string_equal(s->nodes[4].name, "hgx05");
	sim_free(s);
	err_clear(&err);
	assert_int_equal(simfs_remove_tree(dir, &err), 0);
}

/* sim up --switch: one more sshd, the switch CLI as its shell, the SM moved to it. */
static void test_switch(void **state)
{
	struct sim *s = new_sim("dgx1-edr", 3);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sim_add_switch(s);
	assert_int_equal(sim_nnodes(s), 4);
	assert_true(sim_is_switch(s, 3) && !sim_is_switch(s, 2));
	assert_string_equal(s->nodes[3].name, "ibsw01");
	assert_string_equal(s->nodes[3].addr, "127.0.1.4");
	assert_string_equal(s->nodes[3].dir, "/tmp/simdir/nodes/ibsw01");
	assert_int_equal(sim_node_find(s, "ibsw01"), 3);

	sim_format_node_conf(&sb, s, 0);
	assert_has_line(sb.buf, "SM_HOST='0'");
	strbuf_reset(&sb);
	sim_format_node_conf(&sb, s, 3);
	assert_has_line(sb.buf, "NODE_KIND='switch'");
	assert_has_line(sb.buf, "SYSTEM='MSB7800'");
	assert_has_line(sb.buf, "SWITCH_GUID='0x248a070300000004'");
	assert_has_line(sb.buf, "SWITCH_LID='97'");

	strbuf_reset(&sb);
	sim_format_inventory(&sb, s);
	assert_has_line(sb.buf, "  ibsw01:");
	assert_has_line(sb.buf, "    address: 127.0.1.4");
	assert_has_line(sb.buf, "  ib_switch:");
	assert_has_line(sb.buf, "      sm_backend: switch");
	assert_has_line(sb.buf, "  sm_host:");
	assert_non_null(strstr(sb.buf, "  sm_host:\n    hosts: ibsw01\n"));
	assert_non_null(strstr(sb.buf, "  gpu_worker:\n    hosts: \"dgx[01-03]\"\n"));

	strbuf_reset(&sb);
	sim_format_sshd_config(&sb, s, 3, "/usr/lib/openssh/sftp-server", false);
	assert_has_line(sb.buf, "ForceCommand '/tmp/simdir'/bin/sim-switch-cli");
	assert_has_line(sb.buf, "AuthorizedKeysFile \"/tmp/simdir/nodes/ibsw01/authorized_keys\"");
	assert_null(strstr(sb.buf, "Subsystem"));
	strbuf_reset(&sb);
	sim_format_sshd_config(&sb, s, 0, "/usr/lib/openssh/sftp-server", false);
	assert_has_line(sb.buf, "ForceCommand '/tmp/simdir'/bin/sim-shell");
	assert_has_line(sb.buf, "AuthorizedKeysFile \"/tmp/simdir/authorized_keys\" "
				"\"/tmp/simdir/nodes/dgx01/peer_authorized_keys\"");

	strbuf_reset(&sb);
	sim_format_hosts(&sb, s);
	assert_has_line(sb.buf, "127.0.1.4   ibsw01");
	strbuf_release(&sb);
	sim_free(s);
}

static bool has_pid(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

/* sim down's finder: whole entries only, so one token never matches another. */
static void test_env_pids(void **state)
{
	char *envp[] = { "X_SIM_TEST=abcd", "BRINGUP_SIM_TOKEN=tok123", NULL };
	char *argv[] = { "sleep", "300", NULL };
	const char *partial[] = { "X_SIM_TEST=abc", NULL };
	const char *both[] = { "BRINGUP_SIM_TOKEN=tok123", "X_SIM_TEST=abcd", NULL };
	pid_t child = fork(), *v = NULL;
	size_t n = 0;

	(void)state;
	assert_true(child >= 0);
	if (!child) {
		execve("/bin/sleep", argv, envp);
		_exit(127);
	}
	for (int tries = 0; tries < 100 && !has_pid(v, n, child); tries++) {
		free(v);
		usleep(10000);
		n = sim_token_pids("tok123", &v);
	}
	assert_true(has_pid(v, n, child));
	free(v);
	n = sim_token_pids("tok12", &v);
	assert_false(has_pid(v, n, child));
	free(v);
	n = sim_env_pids(partial, &v);
	assert_false(has_pid(v, n, child));
	free(v);
	n = sim_env_pids(both, &v);
	assert_true(has_pid(v, n, child));
	free(v);
	assert_true(sim_pid_matches(child, "sleep 300"));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_false(sim_pid_matches(child, "sleep"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_names_and_addresses),
		cmocka_unit_test(test_sim_new_checks),
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_nodeset),
		cmocka_unit_test(test_node_conf),
		cmocka_unit_test(test_inventory),
		cmocka_unit_test(test_sshd_config),
		cmocka_unit_test(test_fstab),
		cmocka_unit_test(test_remove_tree),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_env_pids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
