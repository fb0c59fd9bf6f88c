/*
 * What a simulated cluster looks like: the hardware profiles, node names and
 * addresses, and the texts sim up writes from them (node.conf, the inventory,
 * each node's sshd_config and fstab). Pure functions: no file is touched here.
 */
#include "sim.h"
#include "sim-int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../engine/base/xalloc.h"

static const struct sim_hca dgx1_edr_hcas[] = {
	{ "mlx5_0", "InfiniBand", 100, "4X", "EDR", "compute" },
	{ "mlx5_1", "InfiniBand", 100, "4X", "EDR", "compute" },
	{ "mlx5_2", "InfiniBand", 100, "4X", "EDR", "compute" },
	{ "mlx5_3", "InfiniBand", 100, "4X", "EDR", "compute" },
};

/* 200 GbE is four 50G PAM4 lanes, which the verbs stack reports as 4X HDR. */
static const struct sim_hca hgx_h100_ndr_hcas[] = {
	{ "mlx5_0", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_1", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_2", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_3", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_4", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_5", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_6", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_7", "InfiniBand", 400, "4X", "NDR", "compute" },
	{ "mlx5_8", "Ethernet", 200, "4X", "HDR", "storage" },
	{ "mlx5_9", "Ethernet", 200, "4X", "HDR", "storage" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * MemTotal of /proc/meminfo: the installed memory (DGX-1: 512 GiB; an HGX
 * H100 of Blue Vela: 2 TiB) less what firmware and the kernel keep for
 * themselves, some 1.5 %: the kernel never reports the whole DIMM size.
 */
#define DGX1_MEM_KB 528646420ULL
#define HGX_H100_MEM_KB 2114390584ULL

/* Sorted by name. */
const struct sim_profile sim_profiles[] = {
	{
		.name = "dgx1-edr",
		.summary = "DGX-1, 8x V100, 4x EDR InfiniBand, RHEL 7.6 (the Redpaper's PoC)",
		.host_prefix = "dgx",
		.system = "DGX-1",
		.os_id = "rhel",
		.os_version_id = "7.6",
		.os_pretty_name = "Red Hat Enterprise Linux Server 7.6 (Maipo)",
		.kernel = "3.10.0-957.el7.x86_64",
		.gpu_count = 8,
		.gpu_model = "Tesla V100-SXM2-32GB",
		.gpu_driver = "418.87.01",
		.cuda_version = "10.1",
		.mem_total_kb = DGX1_MEM_KB,
		.hcas = dgx1_edr_hcas,
		.nhcas = ARRAY_SIZE(dgx1_edr_hcas),
		.ofed_version = "MLNX_OFED_LINUX-4.7-3.2.9.0",
		.peermem_module = "nv_peer_mem",
	},
	{
		.name = "dgx1-ubuntu",
		.summary = "DGX-1 on DGX OS 4 (Ubuntu 18.04), 8x V100, 4x EDR InfiniBand, nv_peer_mem",
		.host_prefix = "dgx",
		.system = "DGX-1",
		.os_id = "ubuntu",
		.os_version_id = "18.04",
		.os_pretty_name = "Ubuntu 18.04.3 LTS",
		.kernel = "4.15.0-58-generic",
		.gpu_count = 8,
		.gpu_model = "Tesla V100-SXM2-32GB",
		.gpu_driver = "418.87.01",
		.cuda_version = "10.1",
		.mem_total_kb = DGX1_MEM_KB,
		.hcas = dgx1_edr_hcas,
		.nhcas = ARRAY_SIZE(dgx1_edr_hcas),
		.ofed_version = "MLNX_OFED_LINUX-4.7-3.2.9.0",
		.peermem_module = "nv_peer_mem",
	},
	{
		.name = "hgx-h100-ndr",
		.summary = "HGX H100 (Blue Vela style), 8x NDR InfiniBand + 2x 200GbE RoCE storage, RHEL 9.4",
		.host_prefix = "hgx",
		.system = "HGX H100 8-GPU",
		.os_id = "rhel",
		.os_version_id = "9.4",
		.os_pretty_name = "Red Hat Enterprise Linux 9.4 (Plow)",
		.kernel = "5.14.0-427.13.1.el9_4.x86_64",
		.gpu_count = 8,
		.gpu_model = "NVIDIA H100 80GB HBM3",
		.gpu_driver = "550.90.07",
		.cuda_version = "12.4",
		.mem_total_kb = HGX_H100_MEM_KB,
		.hcas = hgx_h100_ndr_hcas,
		.nhcas = ARRAY_SIZE(hgx_h100_ndr_hcas),
		.ofed_version = "MLNX_OFED_LINUX-24.04-0.7.0.0",
		.peermem_module = "nvidia_peermem",
	},
};
const unsigned sim_nprofiles = ARRAY_SIZE(sim_profiles);

const struct sim_profile *sim_profile_find(const char *name)
{
	for (unsigned i = 0; i < sim_nprofiles; i++)
		if (!strcmp(sim_profiles[i].name, name))
			return &sim_profiles[i];
	return NULL;
}

static const char *const state_names[] = {
	[SIM_STATE_BARE] = "bare",
	[SIM_STATE_READY] = "ready",
};

const char *sim_state_name(enum sim_state st)
{
	return state_names[st];
}

int sim_state_from_name(const char *s)
{
	for (unsigned i = 0; i < ARRAY_SIZE(state_names); i++)
		if (!strcmp(state_names[i], s))
			return (int)i;
	return -1;
}

static int name_width(unsigned n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w < 2 ? 2 : w;
}

char *sim_node_name(const struct sim_profile *p, unsigned i, unsigned n)
{
	return xasprintf("%s%0*u", p->host_prefix, name_width(n), i + 1);
}

char *sim_node_addr(unsigned i)
{
	return xasprintf("127.0.%u.%u", 1 + i / SIM_ADDRS_PER_NET, 1 + i % SIM_ADDRS_PER_NET);
}

void sim_add_nodeset(struct strbuf *out, const struct sim *s, unsigned first, unsigned last)
{
	int w = name_width(s->n);

	if (first == last)
		strbuf_addf(out, "%s%0*u", s->profile->host_prefix, w, first + 1);
	else
		strbuf_addf(out, "%s[%0*u-%0*u]", s->profile->host_prefix, w, first + 1, w,
			    last + 1);
}

int sim_node_find(const struct sim *s, const char *name)
{
	for (unsigned i = 0; i < sim_nnodes(s); i++)
		if (!strcmp(s->nodes[i].name, name))
			return (int)i;
	return -1;
}

static void conf_line(struct strbuf *out, const char *key, const char *val)
{
	strbuf_addf(out, "%s=", key);
	strbuf_addshquoted(out, val);
	strbuf_addch(out, '\n');
}

static void conf_uint(struct strbuf *out, const char *key, unsigned val)
{
	strbuf_addf(out, "%s='%u'\n", key, val);
}

/*
 * The switch: an EDR fabric gets a Switch-IB 2 (SB7800), an NDR one a
 * Quantum-2 (QM9700); its port GUID has Mellanox's OUI, its LID the slot
 * a node at its index would have.
 */
static void switch_node_conf(struct strbuf *out, const struct sim *s, unsigned i)
{
	bool ndr = !strcmp(s->profile->hcas[0].speed, "NDR");

	strbuf_addstr(out, "# Written by `bringup sim up`; see sim/README.md.\n");
	conf_line(out, "NODE_NAME", s->nodes[i].name);
	conf_line(out, "NODE_KIND", "switch");
	conf_uint(out, "NODE_INDEX", i);
	conf_uint(out, "NODE_COUNT", s->n);
	conf_line(out, "NODE_ADDR", s->nodes[i].addr);
	conf_line(out, "PROFILE", s->profile->name);
	conf_line(out, "STATE", sim_state_name(s->state));
	conf_line(out, "SYSTEM", ndr ? "MQM9700" : "MSB7800");
	conf_line(out, "SWITCH_OS", ndr ? "3.10.4206" : "3.9.2110");
	strbuf_addf(out, "SWITCH_GUID='0x248a070300%06x'\n", i + 1);
	conf_uint(out, "SWITCH_LID", i * 32 + 1);
	conf_line(out, "HCAS", "");
	conf_uint(out, "SM_HOST", 0);
}

void sim_format_node_conf(struct strbuf *out, const struct sim *s, unsigned i)
{
	const struct sim_profile *p = s->profile;
	struct strbuf hcas = STRBUF_INIT;

	if (sim_is_switch(s, i)) {
		switch_node_conf(out, s, i);
		return;
	}
	strbuf_addstr(out, "# Written by `bringup sim up`; see sim/README.md.\n");
	conf_line(out, "NODE_NAME", s->nodes[i].name);
	conf_uint(out, "NODE_INDEX", i);
	conf_uint(out, "NODE_COUNT", s->n);
	conf_line(out, "NODE_ADDR", s->nodes[i].addr);
	conf_line(out, "PROFILE", p->name);
	conf_line(out, "STATE", sim_state_name(s->state));
	conf_line(out, "SYSTEM", p->system);
	conf_line(out, "OS_ID", p->os_id);
	conf_line(out, "OS_VERSION_ID", p->os_version_id);
	conf_line(out, "OS_PRETTY_NAME", p->os_pretty_name);
	conf_line(out, "KERNEL", p->kernel);
	conf_uint(out, "GPU_COUNT", p->gpu_count);
	conf_line(out, "GPU_MODEL", p->gpu_model);
	conf_line(out, "GPU_DRIVER", p->gpu_driver);
	conf_line(out, "CUDA_VERSION", p->cuda_version);
	strbuf_addf(out, "MEM_TOTAL_KB='%llu'\n", p->mem_total_kb);
	for (unsigned h = 0; h < p->nhcas; h++)
		strbuf_addf(&hcas, "%s%s", h ? " " : "", p->hcas[h].name);
	conf_line(out, "HCAS", hcas.buf);
	for (unsigned h = 0; h < p->nhcas; h++) {
		const struct sim_hca *c = &p->hcas[h];

		strbuf_addf(out, "HCA_%s='%s %u %s %s %s'\n", c->name, c->link_layer,
			    c->rate_gbps, c->width, c->speed, c->use);
	}
	conf_line(out, "OFED_VERSION", p->ofed_version);
	conf_line(out, "PEERMEM_MODULE", p->peermem_module);
	/* With a managed switch, the switch runs the SM (sim_add_switch). */
	conf_uint(out, "SM_HOST", i == 0 && !s->with_switch);
	strbuf_release(&hcas);
}

static void yaml_hca_list(struct strbuf *out, const struct sim_profile *p, const char *use)
{
	strbuf_addch(out, '[');
	for (unsigned h = 0, k = 0; h < p->nhcas; h++)
		if (!strcmp(p->hcas[h].use, use))
			strbuf_addf(out, "%s%s", k++ ? ", " : "", p->hcas[h].name);
	strbuf_addstr(out, "]\n");
}

static void inventory_cluster(struct strbuf *out, const struct sim *s)
{
	const struct sim_profile *p = s->profile;

	strbuf_addf(out,
		    "cluster:\n"
		    "  name: sim\n"
		    "  ssh:\n"
		    "    user: \"%s\"\n"
		    "    port: %u\n"
		    "    key: \"%s/id_ed25519\"\n"
		    "    known_hosts: \"%s/known_hosts\"\n"
		    "    connect_timeout: 10\n"
		    "  vars:\n"
		    "    sim_profile: \"%s\"\n"
		    "    sim_dir: \"%s\"\n"
		    "    os_id: \"%s\"\n"
		    "    os_version_id: \"%s\"\n"
		    "    kernel: \"%s\"\n"
		    "    gpu_model: \"%s\"\n"
		    "    gpu_count: %u\n"
		    "    gpu_driver: \"%s\"\n"
		    "    cuda_version: \"%s\"\n"
		    "    ofed_version: \"%s\"\n"
		    "    peermem_module: \"%s\"\n",
		    s->user, s->port, s->dir, s->dir, p->name, s->dir, p->os_id,
		    p->os_version_id, p->kernel, p->gpu_model, p->gpu_count, p->gpu_driver,
		    p->cuda_version, p->ofed_version, p->peermem_module);
	{
		/* The bundle sim-init-ofed leaves in D/cluster/ofed, for the ofed stage. */
		struct utsname u;
		const char *rel = p->ofed_version + strlen("MLNX_OFED_LINUX-");

		if (uname(&u))
			strcpy(u.machine, "x86_64");
		strbuf_addf(out, "    ofed_tarball: \"%s/cluster/ofed/MLNX_OFED_LINUX-%s-%s%s-%s.tgz\"\n",
			    s->dir, rel, p->os_id, p->os_version_id, u.machine);
	}
	strbuf_addstr(out, "    compute_hcas: ");
	yaml_hca_list(out, p, "compute");
	strbuf_addstr(out, "    storage_hcas: ");
	yaml_hca_list(out, p, "storage");
	/* Spectrum Scale, as sim-init-gpfs builds it: the client cluster is
	 * named after node 0 (mmcrcluster's default), the remote ESS3000 and
	 * its key, the installer in D/cluster/scale (GPFS_VERSION of
	 * sim/tools/sim-gpfs-lib.sh). */
	strbuf_addf(out,
		    "    gpfs_cluster_name: \"%s\"\n"
		    "    gpfs_installer: \"%s/cluster/scale/%s\"\n"
		    "    gpfs_remote_cluster: %s\n"
		    "    gpfs_remote_contact_nodes: [%s]\n"
		    "    gpfs_remote_filesystem: %s\n"
		    "    gpfs_remote_key: \"%s/cluster/scale/ess3000.pub\"\n"
		    "    gpfs_mount_point: /gpfs/%s\n"
		    "    scale_filesystem: %s\n"
		    "    gpfs_common_config:\n"
		    "      maxMBpS: 20000\n",
		    s->nodes[0].name, s->dir, SIM_GPFS_VERSION, SIM_GPFS_REMOTE,
		    SIM_GPFS_CONTACTS, SIM_GPFS_FS, s->dir, SIM_GPFS_FS, SIM_GPFS_FS);
}

static void inventory_hardware(struct strbuf *out, const struct sim_profile *p)
{
	strbuf_addf(out, "\nhardware:\n  %s:\n    hcas:\n", p->name);
	for (unsigned h = 0; h < p->nhcas; h++) {
		const struct sim_hca *c = &p->hcas[h];

		strbuf_addf(out,
			    "      - name: %s\n"
			    "        rate: %u Gb/s %s %s\n"
			    "        link_layer: %s\n",
			    c->name, c->rate_gbps, c->width, c->speed,
			    strcmp(c->link_layer, "Ethernet") ? "infiniband" : "ethernet");
	}
	strbuf_addf(out, "    gpus:\n      count: %u\n      model: \"%s\"\n", p->gpu_count,
		    p->gpu_model);
}

/* One hosts entry per /24: a node-set key pairs with an address range only
 * when both have the same count, and addresses restart at .1 on each net. */
static void inventory_hosts(struct strbuf *out, const struct sim *s)
{
	strbuf_addstr(out, "\nhosts:\n");
	for (unsigned first = 0; first < s->n; first += SIM_ADDRS_PER_NET) {
		unsigned last = first + SIM_ADDRS_PER_NET - 1;
		unsigned net = 1 + first / SIM_ADDRS_PER_NET;

		if (last >= s->n)
			last = s->n - 1;
		strbuf_addstr(out, "  \"");
		sim_add_nodeset(out, s, first, last);
		if (first == last)
			strbuf_addf(out, "\":\n    address: 127.0.%u.1\n", net);
		else
			strbuf_addf(out, "\":\n    address: \"127.0.%u.[1-%u]\"\n", net,
				    last - first + 1);
		strbuf_addf(out, "    hardware: %s\n", s->profile->name);
	}
	if (s->with_switch) {
		const struct sim_node *sw = &s->nodes[s->n];

		strbuf_addf(out, "  %s:\n    address: %s\n", sw->name, sw->addr);
	}
}

static void inventory_group(struct strbuf *out, const struct sim *s, const char *role,
			    unsigned count)
{
	if (count > s->n)
		count = s->n;
	strbuf_addf(out, "  %s:\n    hosts: \"", role);
	sim_add_nodeset(out, s, 0, count - 1);
	strbuf_addstr(out, "\"\n");
}

void sim_format_inventory(struct strbuf *out, const struct sim *s)
{
	strbuf_addf(out,
		    "# Simulated cluster written by `bringup sim up` (profile %s, state %s).\n"
		    "# Every host is an sshd on a loopback address; see sim/README.md.\n",
		    s->profile->name, sim_state_name(s->state));
	inventory_cluster(out, s);
	inventory_hardware(out, s->profile);
	inventory_hosts(out, s);
	strbuf_addstr(out, "\ngroups:\n");
	inventory_group(out, s, "gpu_worker", s->n);
	inventory_group(out, s, "scale_client", s->n);
	/* the Redpaper's node class for the GPU nodes: dgx (hgx on HGX) */
	strbuf_addf(out, "    vars:\n      gpfs_nodeclass: %s\n", s->profile->host_prefix);
	/* the Redpaper's [dgx] tuning, scaled to what the sim holds; verbsPorts
	 * is left to bringup, which derives it from the HCAs */
	strbuf_addstr(out, "      gpfs_config:\n"
			   "        pagepool: 16G\n"
			   "        workerThreads: 1024\n"
			   "        maxFilesToCache: 1M\n"
			   "        maxStatCache: 1M\n"
			   "        ignorePrefetchLUNCount: \"yes\"\n");
	inventory_group(out, s, "scale_quorum", 3);
	inventory_group(out, s, "scale_manager", 2);
	if (!s->with_switch) {
		inventory_group(out, s, "sm_host", 1);
		return;
	}
	/* The switch runs the fabric's SM: it is the sm_host, over its CLI. */
	strbuf_addf(out, "  ib_switch:\n    hosts: %s\n    vars:\n      sm_backend: switch\n",
		    SIM_SWITCH_NAME);
	strbuf_addf(out, "  sm_host:\n    hosts: %s\n", SIM_SWITCH_NAME);
}

/* The /etc/hosts every node gets: the cluster's names, as an admin distributes them. */
void sim_format_hosts(struct strbuf *out, const struct sim *s)
{
	strbuf_addstr(out, "127.0.0.1   localhost localhost.localdomain\n"
			   "::1         localhost localhost.localdomain\n");
	for (unsigned i = 0; i < sim_nnodes(s); i++)
		strbuf_addf(out, "%-11s %s\n", s->nodes[i].addr, s->nodes[i].name);
}

/* sshd_config takes "..." around an argument that may hold spaces; sim_new
 * refuses directories with quotes, so plain wrapping is enough. */
void sim_format_sshd_config(struct strbuf *out, const struct sim *s, unsigned i,
			    const char *sftp_server, bool per_source_penalties)
{
	const struct sim_node *nd = &s->nodes[i];
	bool sw = sim_is_switch(s, i);

	strbuf_addf(out,
		    "# Node %s of the simulated cluster in %s; written by `bringup sim up`.\n"
		    "ListenAddress %s:%u\n"
		    "HostKey \"%s/ssh_host_ed25519_key\"\n"
		    "PidFile \"%s/sshd.pid\"\n"
		    "AuthorizedKeysFile \"%s/authorized_keys\"%s%s%s\n"
		    "PasswordAuthentication no\n"
		    "KbdInteractiveAuthentication no\n"
		    "UsePAM no\n"
		    "StrictModes no\n"
		    "PermitRootLogin prohibit-password\n"
		    "PrintMotd no\n"
		    "PrintLastLog no\n"
		    "UseDNS no\n"
		    "X11Forwarding no\n"
		    "MaxSessions 64\n"
		    "MaxStartups 10:30:100\n"
		    "LoginGraceTime 30\n",
		    nd->name, s->dir, nd->addr, s->port, nd->dir, nd->dir, sw ? nd->dir : s->dir,
		    /* Node-to-node logins (mpirun): the node's own copy of the
		     * cluster's peer key, which peer-ssh-denied moves aside. */
		    sw ? "" : " \"", sw ? "" : nd->dir, sw ? "" : "/peer_authorized_keys\"");
	/* OpenSSH 9.8 penalises sources that fail or drop connections; every
	 * test run connects from 127.0.0.1, so that would lock tests out. */
	if (per_source_penalties)
		strbuf_addstr(out, "PerSourcePenalties no\n");
	strbuf_addstr(out, "ForceCommand ");
	strbuf_addshquoted(out, s->dir);
	/* The switch speaks its CLI, not a POSIX shell, and has no SFTP. */
	strbuf_addstr(out, sw ? "/bin/sim-switch-cli\n" : "/bin/sim-shell\n");
	/* HOME is the node's own: the login shell must not run this machine's
	 * ~/.bashrc (a pyenv init there costs every command a second). */
	strbuf_addf(out, "SetEnv \"HOME=%s/home\" \"BRINGUP_SIM_NODE=%s\" \"BRINGUP_SIM_DIR=%s\" "
		    "\"BRINGUP_SIM_TOKEN=%s\"%s\n",
		    nd->dir, nd->dir, s->dir, s->token, s->rootless ? " BRINGUP_SIM_USERNS=1" : "");
	/* With ForceCommand the subsystem's command reaches sim-shell as
	 * SSH_ORIGINAL_COMMAND, so SFTP too runs inside the node. */
	if (sftp_server && !sw)
		strbuf_addf(out, "Subsystem sftp %s\n", sftp_server);
}

/* Mounts sim-shell makes in the node's namespace, in order (mount -a -T). */
void sim_format_fstab(struct strbuf *out, const struct sim *s, unsigned i)
{
	static const char *const overlays[] = { "etc", "usr", "var", "opt", "boot" };
	const char *nd = s->nodes[i].dir;

	strbuf_addstr(out, "# The node's view of the machine; mounted by sim-shell.\n"
			   "sim-run /run tmpfs mode=0755,size=64m 0 0\n");
	strbuf_addf(out, "%s /run/bringup-sim/node none bind,X-mount.mkdir 0 0\n", nd);
	strbuf_addf(out, "%s/cluster /run/bringup-sim/cluster none bind,X-mount.mkdir 0 0\n",
		    s->dir);
	strbuf_addf(out, "%s/bin /run/bringup-sim/bin none bind,X-mount.mkdir 0 0\n", s->dir);
	/* Every node, read-only: what subnet management packets reach
	 * (iblinkinfo walks the whole fabric from any node). */
	strbuf_addf(out, "%s/nodes /run/bringup-sim/fabric none bind,ro,X-mount.mkdir 0 0\n",
		    s->dir);
	/* The node's own /sys/class: what sysfs says of its HCAs (the NUMA
	 * node of each, state/sys/class/infiniband/DEV/device/numa_node). */
	strbuf_addstr(out, "/run/bringup-sim/node/state/sys/class /sys/class none bind 0 0\n");
	/* The node's own memory (sim-node-init writes it from MEM_TOTAL_KB). */
	strbuf_addstr(out, "/run/bringup-sim/node/state/meminfo /proc/meminfo none bind 0 0\n");
	/* The node's own boot id, which a simulated reboot renews. */
	strbuf_addstr(out, "/run/bringup-sim/node/state/boot_id /proc/sys/kernel/random/boot_id "
			   "none bind 0 0\n");
	/* Each login mounts the overlays again, and a mount empties its
	 * workdir's work/: a shared workdir pulled it from under another
	 * login's copy-up or whiteout (mkdir: ENOENT). sim-shell puts its
	 * own login id for SIM_LOGIN_MARK and makes the directories. */
	for (unsigned k = 0; k < ARRAY_SIZE(overlays); k++)
		strbuf_addf(out,
			    "sim-%s /%s overlay lowerdir=/%s,upperdir=%s/root/%s,workdir=%s/work/"
			    SIM_LOGIN_MARK "/%s 0 0\n",
			    overlays[k], overlays[k], overlays[k], nd, overlays[k], nd, overlays[k]);
	/* bringup's own node state (its locks and marks, /var/lib/bringup)
	 * outside the overlay: logins at once each mount their own overlay
	 * of one upper dir, which overlayfs leaves undefined (a file one
	 * login made was "Stale file handle" to another that waited on its
	 * flock); a real node has one file system. The same upper directory,
	 * so the files stay where the overlay would have put them. */
	strbuf_addf(out, "%s/root/var/lib/bringup /var/lib/bringup none bind,X-mount.mkdir 0 0\n",
		    nd);
	/* Last: the node dir itself may live under the host's /tmp. */
	strbuf_addf(out, "%s/tmp /tmp none bind 0 0\n", nd);
}
