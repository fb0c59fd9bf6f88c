/* engine/deploy/upgrade-plan.c: batches keep quorum, a master SM and a standby, the
 * control plane and a contact node up, and a lost quorum is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/base/xalloc.h"
#include "../../engine/inventory/inventory.h"
#include "../../engine/kube/kube-objects.h"
#include "../../engine/deploy/playbook.h"
#include "../../engine/deploy/upgrade.h"
#include "../../engine/deploy/upgrade-plan.h"
#include "../../engine/deploy/module.h"

#define Q (1u << ROLE_SCALE_QUORUM)
#define M (1u << ROLE_SCALE_MANAGER)
#define SM (1u << ROLE_SM_HOST)
#define CP (1u << ROLE_OCP_MASTER)
#define W (1u << ROLE_GPU_WORKER)

static char names[64][24];

/* n workers dgx01..; the first three quorum, the first two managers, the first SM. */
static void cluster(struct upg_node *nd, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "dgx%02zu", i + 1);
		nd[i] = (struct upg_node){ names[i], W | (i < 3 ? Q : 0) | (i < 2 ? M : 0) |
					   (i < 1 ? SM : 0), false };
	}
}

static unsigned in_batch(const struct upg_plan *p, size_t b, const struct upg_node *nd,
			 unsigned roles)
{
	unsigned k = 0;

	for (size_t i = 0; i < p->batches[b].n; i++)
		k += !!(nd[p->batches[b].nodes[i]].roles & roles);
	return k;
}

/* The acceptance case: 16 nodes, 3 quorum, --batch 4. */
static void test_sixteen_nodes_batch_four(void **state)
{
	struct upg_node nd[16];
	struct upg_plan p;
	struct err err = ERR_INIT;
	size_t total = 0;

	(void)state;
	cluster(nd, 16);
	assert_int_equal(upg_plan_make(nd, 16, 4, false, &p, &err), 0);
	assert_int_equal(p.nbatches, 4);
	assert_int_equal(p.cap[UPG_LIM_ADMIN], 4);
	assert_int_equal(p.cap[UPG_LIM_QUORUM], 1);
	for (size_t b = 0; b < p.nbatches; b++) {
		assert_true(p.batches[b].n <= 4);
		assert_true(in_batch(&p, b, nd, Q) <= 1);
		assert_true(in_batch(&p, b, nd, M) <= 1);
		total += p.batches[b].n;
	}
	assert_int_equal(total, 16);
	/* first fit in inventory order: dgx01 with the first non-quorum nodes */
	assert_string_equal(nd[p.batches[0].nodes[0]].name, "dgx01");
	assert_string_equal(nd[p.batches[0].nodes[1]].name, "dgx04");
	assert_string_equal(nd[p.batches[1].nodes[0]].name, "dgx02");
	assert_non_null(strstr(p.why[UPG_LIM_QUORUM], "3 of 3 quorum nodes active"));
	upg_plan_release(&p);
}

/*
 * Five quorum nodes: GPFS needs 3, bringup keeps 4 (one spare), so one
 * quorum node a batch; two at once was the lost quorum when a third
 * went down mid-batch. A percentage rounds down.
 */
static void test_five_quorum_percent(void **state)
{
	struct upg_node nd[10];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 10);
	for (size_t i = 0; i < 5; i++)
		nd[i].roles |= Q;
	assert_int_equal(upg_plan_make(nd, 10, 50, true, &p, &err), 0);
	assert_int_equal(p.cap[UPG_LIM_ADMIN], 5);
	assert_int_equal(p.cap[UPG_LIM_QUORUM], 1);
	assert_non_null(strstr(p.why[UPG_LIM_QUORUM], "GPFS needs 3, bringup keeps 4 (one spare"));
	for (size_t b = 0; b < p.nbatches; b++)
		assert_true(in_batch(&p, b, nd, Q) <= 1);
	upg_plan_release(&p);
	/* seven quorum nodes: need 4, keep 5, two at once */
	for (size_t i = 0; i < 7; i++)
		nd[i].roles |= Q;
	assert_int_equal(upg_plan_make(nd, 10, 0, false, &p, &err), 0);
	assert_int_equal(p.cap[UPG_LIM_QUORUM], 2);
	upg_plan_release(&p);
	for (size_t i = 5; i < 7; i++)
		nd[i].roles &= ~Q;
	/* 1% of 10 nodes is 0: at least one */
	assert_int_equal(upg_plan_make(nd, 10, 1, true, &p, &err), 0);
	assert_int_equal(p.cap[UPG_LIM_ADMIN], 1);
	assert_int_equal(p.nbatches, 10);
	upg_plan_release(&p);
}

/* Two of three quorum nodes down: refused, naming them. */
static void test_refused_quorum_lost(void **state)
{
	struct upg_node nd[6];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 6);
	nd[1].down = nd[2].down = true;
	nd[2].state = "arbitrating";
	assert_int_equal(upg_plan_make(nd, 6, 2, false, &p, &err), ERR_STATE);
	assert_non_null(strstr(err_msg(&err), "1 of 3 quorum nodes are active (dgx01)"));
	assert_non_null(strstr(err_msg(&err), "not active: dgx02 (down), dgx03 (arbitrating)"));
	assert_non_null(strstr(err_msg(&err), "mmstartup -N dgx[02-03]"));
	err_clear(&err);
}

/*
 * One of three down: no active quorum node can go. The other nodes are
 * planned (they were refused with the rest before) and the two quorum nodes
 * left out, named, with the remedy: start the one down.
 */
static void test_refused_one_down(void **state)
{
	struct upg_node nd[4];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 4);
	nd[2].down = true;
	assert_int_equal(upg_plan_make(nd, 4, 0, false, &p, &err), 0);
	assert_int_equal(p.nleft, 2);
	assert_string_equal(nd[p.left[0]].name, "dgx01");
	assert_string_equal(nd[p.left[1]].name, "dgx02");
	assert_int_equal(p.nbatches, 1);
	assert_int_equal(p.batches[0].n, 2); /* dgx03 (down already) and dgx04 */
	assert_non_null(strstr(p.left_why, "upgrading any of dgx[01-02] would leave 1 active "
				       "quorum node, below the 2 bringup keeps"));
	assert_non_null(strstr(p.left_why, "not active: dgx03 (down)"));
	assert_non_null(strstr(p.left_why, "start GPFS on dgx03 first (mmstartup -N dgx03)"));
	upg_plan_release(&p);
}

/*
 * The Redpaper's topology: one quorum node. Its clients are upgraded; the
 * quorum node is left out with a real remedy (never "mmstartup -N none").
 */
static void test_single_quorum_node(void **state)
{
	struct upg_node nd[4];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 4);
	nd[1].roles &= ~Q;
	nd[2].roles &= ~Q;
	assert_int_equal(upg_plan_make(nd, 4, 2, false, &p, &err), 0);
	assert_int_equal(p.nleft, 1);
	assert_string_equal(nd[p.left[0]].name, "dgx01");
	assert_int_equal(p.nbatches, 2);
	assert_int_equal(p.batches[0].n + p.batches[1].n, 3);
	assert_non_null(strstr(p.left_why, "mmchnode --quorum -N dgx[02-03]"));
	assert_non_null(strstr(p.left_why, "tiebreakerDisks"));
	assert_null(strstr(p.left_why, "none"));
	upg_plan_release(&p);
}

/* Tiebreaker disks: two quorum nodes may lose one (GPFS needs one). */
static void test_tiebreaker_disks(void **state)
{
	struct upg_node nd[4];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 4);
	nd[2].roles &= ~Q;
	assert_int_equal(upg_plan_make(nd, 4, 0, false, &p, &err), 0);
	assert_int_equal(p.nleft, 2);
	upg_plan_release(&p);
	assert_int_equal(upg_plan_make_tb(nd, 4, 0, false, true, &p, &err), 0);
	assert_int_equal(p.nleft, 0);
	assert_int_equal(p.cap[UPG_LIM_QUORUM], 1);
	assert_non_null(strstr(p.why[UPG_LIM_QUORUM], "GPFS needs 1 with tiebreaker disks"));
	upg_plan_release(&p);
}

/*
 * A quorum node already down costs nothing: it goes with an active one.
 * Seven quorum nodes, one down: 6 active, keep 5, one at a time.
 */
static void test_down_quorum_node_is_free(void **state)
{
	struct upg_node nd[7];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 7);
	for (size_t i = 3; i < 7; i++)
		nd[i].roles |= Q;
	nd[6].down = true;
	assert_int_equal(upg_plan_make(nd, 7, 0, false, &p, &err), 0);
	assert_int_equal(p.cap[UPG_LIM_QUORUM], 1);
	/* dgx01 and dgx07 (down) together; dgx02..dgx06 one each */
	assert_int_equal(p.nbatches, 6);
	assert_int_equal(p.batches[0].n, 2);
	assert_string_equal(nd[p.batches[0].nodes[1]].name, "dgx07");
	upg_plan_release(&p);
}

/* SM hosts keep a master and a standby: five of them allow three at once. */
static void test_subnet_managers(void **state)
{
	struct upg_node nd[8];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 8);
	for (size_t i = 0; i < 8; i++)
		nd[i].roles &= ~(Q | M);
	for (size_t i = 4; i < 8; i++)
		nd[i].roles |= SM;
	assert_int_equal(upg_plan_make(nd, 8, 0, false, &p, &err), 0);
	assert_int_equal(p.cap[UPG_LIM_SM], 3); /* dgx01, dgx05-08: 5 SM hosts */
	assert_int_equal(p.cap[UPG_LIM_QUORUM], UPG_NO_LIMIT);
	for (size_t b = 0; b < p.nbatches; b++)
		assert_true(in_batch(&p, b, nd, SM) <= 3);
	assert_int_equal(p.nbatches, 2);
	upg_plan_release(&p);
	/* two SM hosts: one at a time, the other keeps the fabric */
	for (size_t i = 3; i < 8; i++)
		nd[i].roles &= ~SM;
	nd[1].roles |= SM;
	assert_int_equal(upg_plan_make(nd, 8, 0, false, &p, &err), 0);
	assert_int_equal(p.cap[UPG_LIM_SM], 1);
	assert_non_null(strstr(p.why[UPG_LIM_SM], "one at a time"));
	upg_plan_release(&p);
}

/* Three control-plane nodes: etcd keeps two, so one at a time. */
static void test_control_plane(void **state)
{
	struct upg_node nd[6];
	struct upg_plan p;
	struct err err = ERR_INIT;

	(void)state;
	cluster(nd, 6);
	for (size_t i = 0; i < 6; i++)
		nd[i].roles = W | (i >= 3 ? CP : 0);
	assert_int_equal(upg_plan_make(nd, 6, 0, false, &p, &err), 0);
	assert_int_equal(p.cap[UPG_LIM_MASTER], 1);
	assert_int_equal(p.nbatches, 3);
	for (size_t b = 0; b < p.nbatches; b++)
		assert_int_equal(in_batch(&p, b, nd, CP), 1);
	upg_plan_release(&p);
	assert_int_equal(upg_plan_make(nd, 0, 0, false, &p, &err), ERR_USAGE);
	err_clear(&err);
	/* a managed switch is in no batch and counts in no limit */
	nd[0].skip = true;
	assert_int_equal(upg_plan_make(nd, 6, 50, true, &p, &err), 0);
	assert_int_equal(p.members[UPG_LIM_ADMIN], 5);
	assert_int_equal(p.cap[UPG_LIM_ADMIN], 2);
	for (size_t b = 0; b < p.nbatches; b++)
		for (size_t i = 0; i < p.batches[b].n; i++)
			assert_int_not_equal(p.batches[b].nodes[i], 0);
	upg_plan_release(&p);
}

/* --to: ofed, scale and driver once each; anything else is a usage error. */
static void test_to_parse(void **state)
{
	struct upgrade_to t;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(upgrade_to_parse("ofed=5.0-2.1.8.0,scale=5.1.9.0", &t, &err), 0);
	assert_string_equal(t.ofed, "5.0-2.1.8.0");
	assert_string_equal(t.scale, "5.1.9.0");
	assert_null(t.driver);
	upgrade_to_release(&t);
	assert_int_equal(upgrade_to_parse("ofed=1,ofed=2", &t, &err), ERR_USAGE);
	assert_non_null(strstr(err_msg(&err), "ofed given twice"));
	err_clear(&err);
	assert_int_equal(upgrade_to_parse("kernel=5", &t, &err), ERR_USAGE);
	assert_non_null(strstr(err_msg(&err), "found 'kernel=5'"));
	err_clear(&err);
	assert_int_equal(upgrade_to_parse("ofed=a b", &t, &err), ERR_USAGE);
	err_clear(&err);
	assert_int_equal(upgrade_to_parse(",", &t, &err), ERR_USAGE);
	err_clear(&err);
}

/* The generated playbook loads against the real module table and the
 * inventory: per batch stop, ofed, start, the last with max_fail_percent 0. */
static void test_playbook_loads(void **state)
{
	static const char inv_yaml[] =
		"cluster: { name: t }\n"
		"hosts:\n"
		"  dgx[01-06]: { address: \"10.0.0.[1-6]\" }\n"
		"groups:\n"
		"  gpu_worker: { hosts: \"dgx[01-06]\" }\n"
		"  scale_client: { hosts: \"dgx[01-06]\" }\n"
		"  scale_quorum: { hosts: \"dgx[01-03]\" }\n"
		"  scale_manager: { hosts: \"dgx[01-02]\" }\n";
	struct inventory *inv = NULL;
	struct playbook *pb = NULL;
	struct upgrade_to to = { .ofed = "MLNX_OFED_LINUX-5.0-2.1.8.0" };
	struct strbuf yaml = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct upg_plan p;
	struct upg_node *nd;
	bool down[6] = { false };
	int k;

	(void)state;
	if (inventory_load_buf("inv.yaml", inv_yaml, strlen(inv_yaml), &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	nd = upgrade_nodes(inv, down, NULL);
	assert_int_equal(upg_plan_make(nd, inv->nhosts, 2, false, &p, &err), 0);
	assert_int_equal(p.nbatches, 3);
	upgrade_playbook(inv, &p, &to, &(struct upgrade_files){ "/tmp/a \"b\".tgz", NULL, NULL },
			 &yaml);
	if (playbook_load_buf("upgrade.yaml", yaml.buf, yaml.len, stage_modules, stage_nmodules,
			      &pb, &err) || playbook_resolve(pb, inv, &err))
		fail_msg("%s\n%s", err_msg(&err), yaml.buf);
	/* per batch: stop, ofed, peermem, start, verify-rdma (the last stops the run) */
	assert_int_equal(pb->nstages, 15);
	assert_string_equal(pb->stages[0].name, "b1-scale-stop");
	assert_string_equal(pb->stages[0].hosts, "dgx[01,04]");
	/* the batch's daemons stop one at a time, each through the quorum check,
	 * and a refused one does not stop the others (the last stage does) */
	assert_int_equal(pb->stages[0].serial, 1);
	assert_int_equal(pb->stages[0].max_fail_percent, 100);
	assert_string_equal(pb->stages[1].module->name, "ofed");
	assert_int_equal(pb->stages[1].max_fail_percent, -1);
	assert_string_equal(pb->stages[2].module->name, "peermem");
	assert_int_equal(pb->stages[3].max_fail_percent, -1);
	assert_string_equal(pb->stages[4].module->name, "scale_rdma");
	assert_int_equal(pb->stages[4].max_fail_percent, 0);
	k = playbook_stage_index(pb, "b3-scale-start");
	assert_int_equal(k, 13);
	assert_string_equal(pb->stages[k].hosts, "dgx[03,06]");
	assert_non_null(strstr(yaml.buf, "tarball: \"/tmp/a \\\"b\\\".tgz\""));
	/* only the upgrade's own stages may install over another running release */
	for (size_t i = 0; i < pb->nstages; i++) {
		struct err e2 = ERR_INIT;
		json_t *params = stage_params(pb, &pb->stages[i], &inv->hosts[0], &e2);
		json_t *rc = json_object_get(params, "release_change");

		assert_non_null(params);
		assert_true(strcmp(pb->stages[i].module->name, "ofed") ? !rc : json_is_true(rc));
		json_decref(params);
	}
	playbook_free(pb);
	upg_plan_release(&p);
	free(nd);
	strbuf_release(&yaml);
	inventory_free(inv);
}

/* The generated playbook, loaded against the real module table and inv. */
static struct playbook *load_playbook(const struct inventory *inv, const struct strbuf *yaml)
{
	struct playbook *pb = NULL;
	struct err err = ERR_INIT;

	if (playbook_load_buf("upgrade.yaml", yaml->buf, yaml->len, stage_modules, stage_nmodules,
			      &pb, &err) || playbook_resolve(pb, inv, &err))
		fail_msg("%s\n%s", err_msg(&err), yaml->buf);
	return pb;
}

/* --to ofed=,driver=: per batch the driver after OFED and before peer
 * memory, with its version and the runfile given on the command line. */
static void test_playbook_driver(void **state)
{
	static const char inv_yaml[] =
		"cluster: { name: t }\n"
		"hosts:\n"
		"  dgx[01-04]: { address: \"10.0.0.[1-4]\" }\n"
		"groups:\n"
		"  gpu_worker: { hosts: \"dgx[01-04]\" }\n"
		"  scale_client: { hosts: \"dgx[01-04]\" }\n"
		"  scale_quorum: { hosts: \"dgx[01-03]\" }\n";
	struct inventory *inv = NULL;
	struct playbook *pb = NULL;
	struct upgrade_to both = { .ofed = "MLNX_OFED_LINUX-5.0-2.1.8.0", .driver = "570.124.06" };
	struct upgrade_to driver = { .driver = "570.124.06" };
	struct strbuf yaml = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct upg_plan p;
	struct upg_node *nd;
	bool down[4] = { false };

	(void)state;
	if (inventory_load_buf("inv.yaml", inv_yaml, strlen(inv_yaml), &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	nd = upgrade_nodes(inv, down, NULL);
	assert_int_equal(upg_plan_make(nd, inv->nhosts, 4, false, &p, &err), 0);
	upgrade_playbook(inv, &p, &both, &(struct upgrade_files){ NULL, NULL,
			 "/srv/NVIDIA-Linux-x86_64-570.124.06.run" }, &yaml);
	pb = load_playbook(inv, &yaml);
	assert_string_equal(pb->stages[1].module->name, "ofed");
	assert_string_equal(pb->stages[2].name, "b1-driver");
	assert_string_equal(pb->stages[2].module->name, "gpu_driver");
	assert_string_equal(pb->stages[3].module->name, "peermem");
	assert_non_null(strstr(yaml.buf, "      version: \"570.124.06\"\n"
			       "      installer: \"/srv/NVIDIA-Linux-x86_64-570.124.06.run\"\n"));
	playbook_free(pb);
	/* the driver alone: peer memory still follows it; the runfile from the inventory */
	strbuf_setlen(&yaml, 0);
	upgrade_playbook(inv, &p, &driver, &(struct upgrade_files){ 0 }, &yaml);
	pb = load_playbook(inv, &yaml);
	assert_string_equal(pb->stages[0].module->name, "scale_node");
	assert_string_equal(pb->stages[1].module->name, "gpu_driver");
	assert_string_equal(pb->stages[2].module->name, "peermem");
	assert_null(strstr(yaml.buf, "installer:"));
	assert_null(strstr(yaml.buf, "module: ofed"));
	playbook_free(pb);
	upg_plan_release(&p);
	free(nd);
	strbuf_release(&yaml);
	inventory_free(inv);
}

/* With a Kubernetes layer each batch is drained first and uncordoned last,
 * and the uncordon (not the start) is what stops the run. */
/*
 * A finished upgrade's releases are recorded, the latest of each kept
 * across upgrades, the in-progress mark removed; the inventory keys that
 * still name the old releases are said, and none once they are changed.
 */
static void test_finish_records_releases(void **state)
{
	char dir[] = "/tmp/test-upgrade-XXXXXX", *cmd;
	struct upgrade_to to = { .ofed = "5.0-2.1.8.0" }, to2 = { .driver = "550.90.07" };
	struct upgrade_to done, rec;
	struct inventory *inv = NULL;
	struct strbuf keys = STRBUF_INIT;
	struct err err = ERR_INIT;
	static const char inv_old[] = "cluster: { name: t, vars: { ofed_version: "
		"MLNX_OFED_LINUX-4.7-3.2.9.0, gpu_driver: 535.104.05 } }\nhosts: { dgx01: }\n";
	static const char inv_new[] = "cluster: { name: t, vars: { ofed_version: "
		"MLNX_OFED_LINUX-5.0-2.1.8.0, gpu_driver: 550.90.07 } }\nhosts: { dgx01: }\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* nothing in progress: nothing recorded */
	assert_int_equal(upgrade_finish(dir, &done, &err), 0);
	assert_null(done.ofed);
	assert_false(upgrade_releases(dir, &rec));
	assert_int_equal(upgrade_mark(dir, &to, &err), 0);
	assert_int_equal(upgrade_finish(dir, &done, &err), 0);
	assert_string_equal(done.ofed, "5.0-2.1.8.0");
	assert_false(upgrade_in_progress(dir, &rec));
	upgrade_to_release(&done);
	/* a later upgrade of the driver keeps the OFED record */
	assert_int_equal(upgrade_mark(dir, &to2, &err), 0);
	assert_int_equal(upgrade_finish(dir, &done, &err), 0);
	upgrade_to_release(&done);
	assert_true(upgrade_releases(dir, &rec));
	assert_string_equal(rec.ofed, "5.0-2.1.8.0");
	assert_string_equal(rec.driver, "550.90.07");
	assert_null(rec.scale);
	assert_int_equal(inventory_load_buf("inv.yaml", inv_old, strlen(inv_old), &inv, &err), 0);
	upgrade_inventory_keys(inv, &rec, &keys);
	assert_string_equal(keys.buf,
		"set ofed_version: 5.0-2.1.8.0 in the inventory (it says "
		"MLNX_OFED_LINUX-4.7-3.2.9.0), and ofed_tarball to that release's bundle\n"
		"set gpu_driver: 550.90.07 in the inventory (it says 535.104.05), and "
		"gpu_driver_installer to its runfile\n");
	inventory_free(inv);
	strbuf_reset(&keys);
	assert_int_equal(inventory_load_buf("inv.yaml", inv_new, strlen(inv_new), &inv, &err), 0);
	upgrade_inventory_keys(inv, &rec, &keys);
	assert_string_equal(keys.buf, "");
	inventory_free(inv);
	upgrade_to_release(&rec);
	strbuf_release(&keys);
	cmd = NULL;
	assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_playbook_kube_drains_each_batch(void **state)
{
	static const char inv_yaml[] =
		"cluster: { name: t, vars: { openshift: { node_domain: ocp.example.com } } }\n"
		"hosts:\n"
		"  dgx[01-04]: { address: \"10.0.0.[1-4]\" }\n"
		"groups:\n"
		"  gpu_worker: { hosts: \"dgx[01-04]\" }\n"
		"  scale_client: { hosts: \"dgx[01-04]\" }\n"
		"  scale_quorum: { hosts: \"dgx[01-03]\" }\n";
	struct inventory *inv = NULL;
	struct playbook *pb = NULL;
	struct upgrade_to to = { .ofed = "MLNX_OFED_LINUX-5.0-2.1.8.0" };
	struct strbuf yaml = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct upg_plan p;
	struct upg_node *nd;
	bool down[4] = { false };

	(void)state;
	if (inventory_load_buf("inv.yaml", inv_yaml, strlen(inv_yaml), &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	assert_true(kube_layer(inv));
	nd = upgrade_nodes(inv, down, NULL);
	assert_int_equal(upg_plan_make(nd, inv->nhosts, 2, false, &p, &err), 0);
	upgrade_playbook(inv, &p, &to, &(struct upgrade_files){ 0 }, &yaml);
	if (playbook_load_buf("upgrade.yaml", yaml.buf, yaml.len, stage_modules, stage_nmodules,
			      &pb, &err) || playbook_resolve(pb, inv, &err))
		fail_msg("%s\n%s", err_msg(&err), yaml.buf);
	/* drain, stop, ofed, peermem, start, verify-rdma, uncordon */
	assert_int_equal(pb->nstages, 7 * p.nbatches);
	assert_string_equal(pb->stages[0].name, "b1-drain");
	assert_true(pb->stages[0].local);
	assert_int_equal(pb->stages[0].max_fail_percent, 0);
	assert_non_null(strstr(yaml.buf, "params: { action: drain, nodes: \"dgx01,dgx04\" }"));
	assert_string_equal(pb->stages[4].name, "b1-scale-start");
	assert_int_equal(pb->stages[4].max_fail_percent, -1);
	assert_string_equal(pb->stages[5].name, "b1-verify-rdma");
	assert_int_equal(pb->stages[5].max_fail_percent, -1);
	assert_string_equal(pb->stages[6].name, "b1-uncordon");
	assert_int_equal(pb->stages[6].max_fail_percent, 0);
	playbook_free(pb);
	upg_plan_release(&p);
	free(nd);
	strbuf_release(&yaml);
	inventory_free(inv);
}

/*
 * The upgrade's run record: what upgrade --resume goes by. Written whole,
 * read back; gone once forgotten; a torn or foreign file is no record.
 */
static void test_run_record(void **state)
{
	char dir[] = "/tmp/test-upgrade-XXXXXX", *cmd = NULL, *id = NULL, *path;
	struct err err = ERR_INIT;
	size_t left = 99;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_false(upgrade_run_read(dir, &id, &left));
	assert_int_equal(upgrade_run_record(dir, "20261128T060611Z-12623", 2, &err), 0);
	assert_true(upgrade_run_read(dir, &id, &left));
	assert_string_equal(id, "20261128T060611Z-12623");
	assert_int_equal(left, 2);
	free(id);
	upgrade_run_forget(dir);
	assert_false(upgrade_run_read(dir, &id, &left));
	path = xasprintf("%s/upgrade/run", dir);
	static const char *const bad[] = { "r1\n", "r1\nleft\n", "r1\nleft 2", "../x\nleft 0\n",
					   "r1\nleft -1x\n", "r1\nleft -1\n", "r1\nleft  1\n", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_non_null(f = fopen(path, "w"));
		fputs(bad[i], f);
		fclose(f);
		assert_false(upgrade_run_read(dir, &id, &left));
	}
	free(path);
	assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sixteen_nodes_batch_four),
		cmocka_unit_test(test_five_quorum_percent),
		cmocka_unit_test(test_refused_quorum_lost),
		cmocka_unit_test(test_refused_one_down),
		cmocka_unit_test(test_down_quorum_node_is_free),
		cmocka_unit_test(test_single_quorum_node),
		cmocka_unit_test(test_tiebreaker_disks),
		cmocka_unit_test(test_subnet_managers),
		cmocka_unit_test(test_control_plane),
		cmocka_unit_test(test_to_parse),
		cmocka_unit_test(test_playbook_loads),
		cmocka_unit_test(test_playbook_driver),
		cmocka_unit_test(test_playbook_kube_drains_each_batch),
		cmocka_unit_test(test_finish_records_releases),
		cmocka_unit_test(test_run_record),
	};
	return cmocka_run_group_tests_name("upgrade", tests, NULL, NULL);
}
