/* Unit tests for engine/validate/validate.c and validate-config.c: the pairing
 * schedule (every pair once, rounds disjoint, N-1 rounds) and the
 * `validate:` inventory section (defaults, values, errors with columns). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/base/strbuf.h"
#include "../../engine/validate/validate.h"
#include "../../engine/validate/validate-int.h"
#include "../../engine/base/xalloc.h"

#include <unistd.h>

/* Checks the tournament for n players: rounds, disjointness, coverage. */
static void check_all(size_t n)
{
	size_t *p, np, rounds = validate_schedule(n, PAIRS_ALL, &p, &np);
	unsigned char *met = calloc(n * n, 1);

	assert_int_equal(rounds, n % 2 ? n : n - 1);
	assert_int_equal(np, n * (n - 1) / 2);
	for (size_t r = 0; r < rounds; r++) {
		unsigned char *busy = calloc(n, 1);
		size_t inround = 0;

		for (size_t i = 0; i < np; i++) {
			if (p[3 * i] != r)
				continue;
			inround++;
			assert_false(busy[p[3 * i + 1]]);
			assert_false(busy[p[3 * i + 2]]);
			busy[p[3 * i + 1]] = busy[p[3 * i + 2]] = 1;
		}
		assert_int_equal(inround, n / 2);
		free(busy);
	}
	for (size_t i = 0; i < np; i++) {
		size_t a = p[3 * i + 1], b = p[3 * i + 2];

		assert_true(a < b && b < n);
		assert_false(met[a * n + b]);
		met[a * n + b] = 1;
		/* the schedule lists pairs round by round */
		if (i)
			assert_true(p[3 * i] >= p[3 * (i - 1)]);
	}
	free(met);
	free(p);
}

static void test_schedule_all(void **state)
{
	(void)state;
	for (size_t n = 2; n <= 17; n++)
		check_all(n);
}

static void test_schedule_sixteen_nodes_fifteen_rounds(void **state)
{
	size_t *p, np;

	(void)state;
	assert_int_equal(validate_schedule(16, PAIRS_ALL, &p, &np), 15);
	assert_int_equal(np, 120);
	free(p);
	assert_int_equal(validate_schedule(1, PAIRS_ALL, &p, &np), 0);
	assert_null(p);
}

static void test_schedule_ring(void **state)
{
	(void)state;
	for (size_t n = 3; n <= 9; n++) {
		size_t *p, np, rounds = validate_schedule(n, PAIRS_RING, &p, &np);
		unsigned *deg = calloc(n, sizeof(*deg));

		assert_int_equal(rounds, n % 2 ? 3 : 2);
		assert_int_equal(np, n);
		for (size_t r = 0; r < rounds; r++) {
			unsigned char *busy = calloc(n, 1);

			for (size_t i = 0; i < np; i++) {
				if (p[3 * i] != r)
					continue;
				assert_false(busy[p[3 * i + 1]] || busy[p[3 * i + 2]]);
				busy[p[3 * i + 1]] = busy[p[3 * i + 2]] = 1;
			}
			free(busy);
		}
		for (size_t i = 0; i < np; i++) {
			size_t a = p[3 * i + 1], b = p[3 * i + 2];

			/* listed round by round, as validate_rdma runs them */
			if (i)
				assert_true(p[3 * i] >= p[3 * (i - 1)]);
			assert_true((a + 1) % n == b || (b + 1) % n == a);
			deg[a]++;
			deg[b]++;
		}
		for (size_t i = 0; i < n; i++)
			assert_int_equal(deg[i], 2);
		free(deg);
		free(p);
	}
}

static const char base[] =
	"cluster: { name: c }\n"
	"hosts: { n1: { address: 127.0.0.1 } }\n";

/* The `validate:` section as the commands read it (cmd_inventory_load):
 * the inventory keeps it, validate_config_load reads it. */
static struct validate_cfg cfg;

static int load(const char *extra, struct inventory **inv, struct err *e)
{
	char buf[2048];
	int rc;

	validate_cfg_release(&cfg);
	validate_cfg_defaults(&cfg);
	snprintf(buf, sizeof(buf), "%s%s", base, extra);
	rc = inventory_load_buf("inv.yaml", buf, strlen(buf), inv, e);
	if (!rc && (rc = validate_config_load(*inv, &cfg, e))) {
		inventory_free(*inv);
		*inv = NULL;
	}
	return rc;
}

static int release_cfg(void **state)
{
	(void)state;
	validate_cfg_release(&cfg);
	return 0;
}

static void test_config_defaults_and_values(void **state)
{
	struct inventory *inv;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(load("", &inv, &e), 0);
	assert_string_equal(cfg.rdma.command, "ib_write_bw");
	assert_int_equal(cfg.rdma.pass_pct, 90);
	assert_int_equal(cfg.rdma.pairs, PAIRS_ALL);
	assert_true(cfg.rdma.numa);
	assert_int_equal(cfg.tries, 3);
	assert_string_equal(cfg.nccl.max_bytes, "256M");
	assert_true(cfg.nccl.mpirun);
	assert_string_equal(cfg.nccl.variants, "2x8,Nx1");
	assert_string_equal(cfg.nccl.mpirun_command, "mpirun");
	assert_int_equal(cfg.nccl.net_pct, 85);
	inventory_free(inv);
	assert_int_equal(load("validate:\n  nccl: { mpirun: false, variants: 16x1, net_pct: 80, "
			      "mpirun_command: /opt/openmpi/bin/mpirun }\n", &inv, &e), 0);
	assert_false(cfg.nccl.mpirun);
	assert_string_equal(cfg.nccl.variants, "16x1");
	assert_string_equal(cfg.nccl.mpirun_command, "/opt/openmpi/bin/mpirun");
	assert_int_equal(cfg.nccl.net_pct, 80);
	inventory_free(inv);
	assert_int_equal(load("validate:\n  tries: 2\n  rdma: { pairs: ring, duration: 2, use_cuda: true, numa: false }\n"
			      "  nccl: { max_bytes: 64M, expect_gdr: false }\n", &inv, &e), 0);
	assert_int_equal(cfg.tries, 2);
	assert_int_equal(cfg.rdma.pairs, PAIRS_RING);
	assert_int_equal(cfg.rdma.duration_s, 2);
	assert_true(cfg.rdma.use_cuda);
	assert_false(cfg.rdma.numa);
	assert_string_equal(cfg.nccl.max_bytes, "64M");
	assert_false(cfg.nccl.expect_gdr);
	inventory_free(inv);
}

static void test_config_errors(void **state)
{
	struct inventory *inv;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(load("validate:\n  rdma: { pairs: star }\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "inv.yaml:4:18"));
	err_clear(&e);
	assert_int_equal(load("validate:\n  rdma:\n    pass_pct: 95\n    warn_pct: 91\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "warn_pct 91 below pass_pct 95"));
	err_clear(&e);
	assert_int_equal(load("validate:\n  tries: 4\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "inv.yaml:4:10"));
	err_clear(&e);
	assert_int_equal(load("validate:\n  nccl:\n    variants: 2x8,1x8\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "inv.yaml:5:15"));
	assert_non_null(strstr(err_msg(&e), "nodes '1'"));
	err_clear(&e);
	assert_int_equal(load("validate:\n  nccl: { net_pct: 101 }\n", &inv, &e), ERR_INVENTORY);
	err_clear(&e);
	assert_int_equal(load("validate:\n  rmda: {}\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "rdma"));
	err_clear(&e);
}

/* validate.resnet: DLE by default (its command and batch), tf_cnn on
 * request with the Redpaper's batch; the command lines each runs, alone
 * and as one rank of a run across nodes. */
static void test_config_resnet(void **state)
{
	struct inventory *inv;
	struct err e = ERR_INIT;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(load("", &inv, &e), 0);
	assert_int_equal(cfg.resnet.benchmark, RESNET_DLE);
	assert_string_equal(validate_resnet_command(&cfg.resnet), "multiproc.py");
	assert_int_equal(validate_resnet_batch(&cfg.resnet), 256);
	assert_true(cfg.resnet.amp && cfg.resnet.mpirun);
	validate_resnet_args(&sb, &cfg.resnet, 4, 1, NULL);
	assert_string_equal(sb.buf, "multiproc.py --nproc_per_node 4 ./main.py --arch resnet50 "
			    "-b 256 --amp --static-loss-scale 256 --data-backend synthetic --epochs 1 "
			    "--prof 100 --training-only --no-checkpoints --workspace \"${TMPDIR:-/tmp}\" "
			    "/imagenet 2>&1");
	strbuf_reset(&sb);
	validate_resnet_args(&sb, &cfg.resnet, 8, 3, "dgx01");
	assert_non_null(strstr(sb.buf, "multiproc.py --nnodes 3 --node_rank \"$OMPI_COMM_WORLD_RANK\" "
			       "--master_addr 'dgx01' --master_port 29500 --nproc_per_node 8 ./main.py"));
	inventory_free(inv);
	strbuf_reset(&sb);
	assert_int_equal(load("validate:\n  resnet: { benchmark: tf_cnn, amp: false, mpirun: false }\n",
			      &inv, &e), 0);
	assert_int_equal(cfg.resnet.benchmark, RESNET_TF_CNN);
	assert_false(cfg.resnet.mpirun);
	assert_int_equal(validate_resnet_batch(&cfg.resnet), 64);
	validate_resnet_args(&sb, &cfg.resnet, 8, 1, NULL);
	assert_string_equal(sb.buf, "tf_cnn_benchmarks --model=resnet50 --batch_size=64 --num_gpus=8 "
			    "--num_batches=100 --variable_update=replicated");
	strbuf_reset(&sb);
	validate_resnet_args(&sb, &cfg.resnet, 8, 2, "dgx01");
	assert_string_equal(sb.buf, "tf_cnn_benchmarks --model=resnet50 --batch_size=64 --num_gpus=1 "
			    "--num_batches=100 --variable_update=horovod");
	inventory_free(inv);
	assert_int_equal(load("validate:\n  resnet: { benchmark: pytorch }\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "inv.yaml:4:24"));
	assert_non_null(strstr(err_msg(&e), "dle"));
	err_clear(&e);
	strbuf_release(&sb);
}

/* validate.dcgm: dcgmi at level 3 for half an hour by default; the
 * level is one dcgmi diag -r accepts, errors name the key's place. */
static void test_config_dcgm(void **state)
{
	struct inventory *inv;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(load("", &inv, &e), 0);
	assert_string_equal(cfg.dcgm.command, "dcgmi");
	assert_int_equal(cfg.dcgm.level, 3);
	assert_int_equal(cfg.dcgm.timeout_s, 1800);
	inventory_free(inv);
	assert_int_equal(load("validate:\n  dcgm: { command: /usr/bin/dcgmi, level: 1, timeout: 120 }\n",
			      &inv, &e), 0);
	assert_string_equal(cfg.dcgm.command, "/usr/bin/dcgmi");
	assert_int_equal(cfg.dcgm.level, 1);
	assert_int_equal(cfg.dcgm.timeout_s, 120);
	inventory_free(inv);
	assert_int_equal(load("validate:\n  dcgm: { level: 5 }\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "inv.yaml:4:18"));
	assert_non_null(strstr(err_msg(&e), "'level' in validate.dcgm"));
	err_clear(&e);
	assert_int_equal(load("validate:\n  dcgm: { levle: 3 }\n", &inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "inv.yaml:4:11"));
	err_clear(&e);
	assert_int_equal(validate_stage_from_name("dcgm"), VSTAGE_DCGM);
	assert_string_equal(validate_stage_name(VSTAGE_DCGM), "dcgm");
}

/* The variants list: the Redpaper's 2x8 and 16x1, N and G for "all". */
static void test_mpi_variants(void **state)
{
	struct mpi_variant v[VALIDATE_MAX_VARIANTS];
	char why[128], name[32];

	(void)state;
	assert_int_equal(validate_mpi_variants_parse("2x8,16x1,Nx1,NxG", v, &why), 4);
	assert_int_equal(v[0].nodes, 2);
	assert_int_equal(v[0].gpus, 8);
	assert_int_equal(v[1].nodes, 16);
	assert_int_equal(v[1].gpus, 1);
	assert_int_equal(v[2].nodes, 0);
	assert_int_equal(v[3].gpus, 0);
	validate_mpi_variant_name(&v[2], &name);
	assert_string_equal(name, "Nx1");
	validate_mpi_variant_name(&v[0], &name);
	assert_string_equal(name, "2x8");
	assert_int_equal(validate_mpi_variants_parse("1x8", v, &why), -1);
	assert_non_null(strstr(why, "nodes '1'"));
	assert_int_equal(validate_mpi_variants_parse("2x", v, &why), -1);
	assert_int_equal(validate_mpi_variants_parse("2x8,,Nx1", v, &why), -1);
	assert_int_equal(validate_mpi_variants_parse("", v, &why), -1);
	assert_int_equal(validate_mpi_variants_parse("2x0", v, &why), -1);
	assert_int_equal(validate_mpi_variants_parse("08x1", v, &why), -1);
	assert_int_equal(validate_mpi_variants_parse("2x8,2x8,2x8,2x8,2x8,2x8,2x8,2x8,2x8", v, &why), -1);
	assert_non_null(strstr(why, "more than 8"));
}

/* The hostfile names the nodes as the inventory does, slots = GPUs a node;
 * mpirun reaches the nodes over SSH without a prompt, on the inventory's
 * port, and every rank gets the NCCL environment. */
static void test_mpi_hostfile_and_command(void **state)
{
	static const char *const names[] = { "dgx01", "dgx02" };
	struct inventory *inv;
	struct err e = ERR_INIT;
	struct strbuf hf = STRBUF_INIT, cmd = STRBUF_INIT;

	(void)state;
	validate_mpi_hostfile(&hf, names, 2, 8);
	assert_string_equal(hf.buf, "dgx01 slots=8\ndgx02 slots=8\n");
	assert_int_equal(load("", &inv, &e), 0);
	validate_mpi_command(&cmd, &cfg.nccl, hf.buf, 16, 2222);
	assert_non_null(strstr(cmd.buf, "printf %s 'dgx01 slots=8\ndgx02 slots=8\n' >\"$hf\""));
	assert_non_null(strstr(cmd.buf, "mpirun --hostfile \"$hf\" -np 16 --mca plm_rsh_agent ssh "
				   "--mca plm_rsh_args '-o BatchMode=yes -p 2222' -x NCCL_DEBUG=INFO $rootx "
				   "all_reduce_perf -b '8' -e '256M' -f 2 -g 1 2>&1"));
	assert_non_null(strstr(cmd.buf, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"));
	assert_non_null(strstr(cmd.buf, "rm -f \"$hf\"; exit $rc"));
	assert_null(strstr(cmd.buf, "NCCL_IB_DISABLE"));
	strbuf_reset(&cmd);
	cfg.nccl.expect_gdr = false;
	validate_mpi_command(&cmd, &cfg.nccl, hf.buf, 16, 22);
	assert_non_null(strstr(cmd.buf, "'-o BatchMode=yes' -x NCCL_DEBUG=INFO -x NCCL_NET_GDR_LEVEL=0"));
	strbuf_reset(&cmd);
	cfg.nccl.expect_ib = false;
	validate_mpi_command(&cmd, &cfg.nccl, hf.buf, 16, 22);
	assert_non_null(strstr(cmd.buf, "-x NCCL_IB_DISABLE=1"));
	inventory_free(inv);
	strbuf_release(&hf);
	strbuf_release(&cmd);
}

/* The NICs a node's ranks use: one a GPU up to the node's IB ports. */
static void test_mpi_nic_gbps(void **state)
{
	struct hca_expect hcas[5] = {
		{ .name = "mlx5_0", .rate_gbps = 100, .link_layer = LINK_IB },
		{ .name = "mlx5_1", .rate_gbps = 100, .link_layer = LINK_IB },
		{ .name = "mlx5_8", .rate_gbps = 200, .link_layer = LINK_ETH },
		{ .name = "mlx5_2", .rate_gbps = 100, .link_layer = LINK_IB },
		{ .name = "mlx5_3", .rate_gbps = 100, .link_layer = LINK_IB },
	};
	struct host h = { .name = "dgx01", .hcas = hcas, .nhcas = 5 };

	(void)state;
	assert_true(validate_mpi_nic_gbps(&h, 1) == 100);
	assert_true(validate_mpi_nic_gbps(&h, 3) == 300);
	assert_true(validate_mpi_nic_gbps(&h, 8) == 400);
}

/* A node's ranks on sockets, or without GPUDirect, are that node's fault. */
static void test_mpi_host_fault(void **state)
{
	json_t *ok = json_pack("{s:s, s:{s:i, s:i}}", "network", "IB", "transports",
			       "P2P/IPC", 7, "NET/IB/GDRDMA", 1);
	json_t *sock = json_pack("{s:s, s:{s:i}}", "network", "Socket", "transports", "NET/Socket", 1);
	json_t *nogdr = json_pack("{s:s, s:{s:i, s:i}}", "network", "IB", "transports",
				  "NET/IB/GDRDMA", 1, "NET/IB", 1);
	char *f;

	(void)state;
	assert_null(validate_mpi_host_fault(ok, true, true));
	f = validate_mpi_host_fault(sock, true, true);
	assert_non_null(f);
	assert_non_null(strstr(f, "NET/Socket"));
	free(f);
	assert_null(validate_mpi_host_fault(sock, false, false));
	f = validate_mpi_host_fault(nogdr, true, true);
	assert_non_null(strstr(f, "1 of 2 network channels"));
	free(f);
	assert_null(validate_mpi_host_fault(nogdr, true, false));
	json_decref(ok);
	json_decref(sock);
	json_decref(nogdr);
}

/* One slow node of 64 is named though it would pass an absolute line;
 * run-to-run noise in a uniform fleet is not. */
static void test_outliers(void **state)
{
	double v[64], med;
	bool low[64];

	(void)state;
	for (size_t i = 0; i < 64; i++)
		v[i] = 128 + (double)(i % 5) * 0.6;     /* +/-1% noise */
	validate_outliers_low(v, 64, 5, low);
	for (size_t i = 0; i < 64; i++)
		assert_false(low[i]);
	v[17] = 115;                                   /* 10% slow */
	med = validate_outliers_low(v, 64, 5, low);
	assert_true(low[17]);
	assert_true(med > 128 && med < 131);
	for (size_t i = 0; i < 64; i++)
		if (i != 17)
			assert_false(low[i]);
	/* all equal: MAD 0, a 1% dip is below the 5% floor */
	for (size_t i = 0; i < 8; i++)
		v[i] = 100;
	v[3] = 99;
	validate_outliers_low(v, 8, 5, low);
	assert_false(low[3]);
	v[0] = 10;                                     /* too few to tell */
	validate_outliers_low(v, 2, 5, low);
	assert_false(low[0]);
	assert_true(validate_median(v, 0) == 0);
}

static void test_report_text_and_junit(void **state)
{
	json_t *rep = json_pack("{s:s, s:[{s:s, s:s, s:f, s:[{s:s, s:s, s:s, s:s}]}]}",
				"cluster", "c", "stages", "stage", "nccl", "status", "fail",
				"wall_s", 1.5, "findings", "status", "fail", "host", "dgx02",
				"subject", "GPU 3", "message", "slow <&>");
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(validate_report_finish(rep), VS_FAIL);
	validate_report_text(rep, &sb);
	assert_non_null(strstr(sb.buf, "  fail        dgx02 GPU 3: slow <&>\n"));
	assert_non_null(strstr(sb.buf, "validate: fail\n"));
	strbuf_reset(&sb);
	validate_report_junit(rep, &sb);
	assert_non_null(strstr(sb.buf, "<testsuite name=\"validate.nccl\" tests=\"1\" failures=\"1\""));
	assert_non_null(strstr(sb.buf, "message=\"slow &lt;&amp;&gt;\""));
	strbuf_reset(&sb);
	json_decref(rep);
	/* resnet's run across nodes: its figure against ideal, in one line */
	rep = json_pack("{s:s, s:[{s:s, s:s, s:f, s:[], s:f, s:{s:i, s:f, s:f}}]}", "cluster", "c",
			"stages", "stage", "resnet", "status", "pass", "wall_s", 9.0, "findings",
			"cluster_images_per_sec", 23552.7, "multi_node", "gpus", 24,
			"efficiency_pct", 86.6, "ideal_images_per_sec", 27210.1);
	validate_report_text(rep, &sb);
	assert_non_null(strstr(sb.buf, "\n  cluster     23553 images/sec on 24 GPUs, 87% of 27210 (ideal)\n"));
	strbuf_release(&sb);
	json_decref(rep);
}

/* Self-contained: inline SVG, nothing fetched (no src=, no href=). */
static void test_report_html(void **state)
{
	json_t *rep = json_loads(
		"{\"cluster\": \"c<1>\", \"status\": \"fail\", \"stages\": ["
		"{\"stage\": \"rdma\", \"status\": \"fail\", \"thresholds\": {\"pass_pct\": 90, \"warn_pct\": 93},"
		" \"findings\": [{\"status\": \"fail\", \"host\": \"b\", \"subject\": \"mlx5_0/1\", \"message\": \"x\"}],"
		" \"results\": [{\"hca\": \"mlx5_0\", \"port\": 1, \"link_gbps\": 100}],"
		" \"matrix\": {\"hosts\": [\"a\", \"b\"], \"gbps\": {\"mlx5_0/1\": [[null, 23.6], [23.6, null]]}}},"
		"{\"stage\": \"nccl\", \"status\": \"pass\", \"findings\": [], \"results\": [{\"host\": \"a\","
		" \"run\": \"nvlink\", \"curve\": [[8, 0.0], [1024, 1.5], [268435456, 129.0]]}],"
		" \"multi_node\": [{\"variant\": \"2x8\", \"ranks\": 16, \"curve\": [[8, 0.0], [268435456, 46.0]]}]},"
		"{\"stage\": \"resnet\", \"status\": \"pass\", \"findings\": [], \"results\": [{\"host\": \"a\","
		" \"steps\": [{\"gpus\": 1, \"images_per_sec\": 360, \"ideal\": 360},"
		" {\"gpus\": 8, \"images_per_sec\": 2640, \"ideal\": 2880}]}],"
		" \"multi_node\": {\"gpus\": 16, \"images_per_sec\": 4900, \"one_gpu_images_per_sec\": 360,"
		" \"ideal_images_per_sec\": 5760, \"efficiency_pct\": 85.07}}]}", 0, NULL);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_non_null(rep);
	validate_report_html(rep, &sb);
	assert_non_null(strstr(sb.buf, "<title>bringup validate: c&lt;1&gt;</title>"));
	assert_non_null(strstr(sb.buf, "ib_write_bw mlx5_0/1"));
	assert_non_null(strstr(sb.buf, "fill=\"#e53935\""));   /* the failing cell, red */
	assert_non_null(strstr(sb.buf, "<path d=\"M"));         /* and crossed */
	assert_non_null(strstr(sb.buf, "message size (bytes, log scale)"));
	assert_non_null(strstr(sb.buf, ">128M<"));  /* x ticks every 64x from 8 B */
	assert_non_null(strstr(sb.buf, ">mpirun 2x8<"));  /* across nodes too */
	assert_non_null(strstr(sb.buf, "ideal linear"));
	/* ResNet-50 across nodes: measured against the fleet's ideal */
	assert_non_null(strstr(sb.buf, "ResNet-50 training throughput across nodes (mpirun)"));
	assert_non_null(strstr(sb.buf, ">all nodes (16 GPUs): 4900 images/sec, 85% of ideal<"));
	assert_non_null(strstr(sb.buf, ">GPUs (1 to 16)<"));
	assert_null(strstr(sb.buf, "src="));
	assert_null(strstr(sb.buf, "href="));
	strbuf_release(&sb);
	json_decref(rep);
}

/* dcgm's table (a node's tests, and the error of one that ran none); a
 * stage the renderer does not know shows its findings and nothing else. */
static void test_report_html_dcgm_and_unknown(void **state)
{
	json_t *rep = json_loads(
		"{\"cluster\": \"c\", \"status\": \"fail\", \"stages\": ["
		"{\"stage\": \"dcgm\", \"status\": \"fail\", \"level\": 3, \"findings\": ["
		" {\"status\": \"fail\", \"host\": \"b\", \"subject\": \"GPU 3\", \"message\": \"m<\"}],"
		" \"results\": [{\"host\": \"a\", \"level\": 3, \"tests\": 16, \"passed\": 15,"
		" \"skipped\": 1, \"status\": \"pass\"}, {\"host\": \"b\", \"level\": 3, \"tests\": 0,"
		" \"passed\": 0, \"skipped\": 0, \"status\": \"fail\", \"error\": \"dcgmi not found\"}]},"
		"{\"stage\": \"future\", \"status\": \"warn\", \"findings\": ["
		" {\"status\": \"warn\", \"host\": null, \"subject\": null, \"message\": \"w\"}]}]}", 0, NULL);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_non_null(rep);
	validate_report_html(rep, &sb);
	assert_non_null(strstr(sb.buf, "<tr><td>a</td><td>3</td><td>16</td><td>15</td><td>1</td>"
			       "<td class=\"pass\">pass</td><td></td></tr>"));
	assert_non_null(strstr(sb.buf, "<td class=\"fail\">fail</td><td>dcgmi not found</td>"));
	assert_non_null(strstr(sb.buf, "<td>GPU 3</td><td>m&lt;</td>"));
	assert_non_null(strstr(sb.buf, "<h2>future: <span class=\"warn\">warn</span></h2>"));
	assert_non_null(strstr(sb.buf, "</body></html>"));
	strbuf_release(&sb);
	json_decref(rep);
}

/* The legend fits its longest label and every row: a chromium render
 * showed "ideal linear (best 1-G" cut at the SVG's right edge. */
static void test_report_html_legend_not_clipped(void **state)
{
	struct strbuf rep = STRBUF_INIT, sb = STRBUF_INIT;
	const char *svg, *w, *h;
	json_t *j;

	(void)state;
	strbuf_addstr(&rep, "{\"cluster\": \"c\", \"status\": \"pass\", \"stages\": ["
		      "{\"stage\": \"resnet\", \"status\": \"pass\", \"findings\": [], \"results\": [");
	for (int i = 0; i < 40; i++)
		strbuf_addf(&rep, "%s{\"host\": \"gpu-node-%03d.cluster.example.com\", \"steps\": ["
			    "{\"gpus\": 1, \"images_per_sec\": 360, \"ideal\": 360}]}", i ? "," : "", i);
	strbuf_addstr(&rep, "]}]}");
	j = json_loads(rep.buf, 0, NULL);
	assert_non_null(j);
	validate_report_html(j, &sb);
	svg = strstr(sb.buf, "<svg");
	assert_non_null(svg);
	w = strstr(svg, "width=\"");
	h = strstr(svg, "height=\"");
	assert_non_null(w);
	assert_non_null(h);
	/* 32 characters from x = PL + PW + 36 (746) at 7 px; 41 rows of 16 px from y = 40 */
	assert_true(atoi(w + 7) >= 746 + 32 * 7);
	assert_true(atoi(h + 8) >= 40 + 16 * 41);
	strbuf_release(&sb);
	strbuf_release(&rep);
	json_decref(j);
}

/* A report of one rdma stage: every pair of dgx01..04 on mlx5_0/1 and
 * mlx5_1/1 at gbps, but pairs with dgx03 on mlx5_1 at slow. */
static json_t *rdma_report(double gbps, double slow)
{
	json_t *res = json_array();
	const char *hosts[] = { "dgx01", "dgx02", "dgx03", "dgx04" };
	const char *hcas[] = { "mlx5_0", "mlx5_1" };

	for (int a = 0; a < 4; a++)
		for (int b = a + 1; b < 4; b++)
			for (int h = 0; h < 2; h++)
				json_array_append_new(res, json_pack(
					"{s:s, s:s, s:s, s:i, s:f}", "server", hosts[a], "client",
					hosts[b], "hca", hcas[h], "port", 1, "gbps",
					h == 1 && (a == 2 || b == 2) ? slow : gbps));
	return json_pack("{s:s, s:[{s:s, s:s, s:[], s:o}]}", "cluster", "t", "stages",
			 "stage", "rdma", "status", "pass", "findings", "results", res);
}

/* validate-baseline.c: one port below its baseline against every peer is
 * one warning on that port naming the peers, not one per pair; a pair
 * dropped alone stays a warning of its own. */
static void test_baseline_folds_a_port(void **state)
{
	char dir[] = "/tmp/bringup-test-baseline-XXXXXX", *path;
	struct err err = ERR_INIT;
	json_t *r, *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	r = rdma_report(100, 100);
	assert_int_equal(validate_baseline(r, dir, 10, &err), 0);
	assert_true(json_is_true(json_object_get(json_object_get(r, "baseline"), "stored")));
	json_decref(r);

	r = rdma_report(100, 40);
	/* and dgx01-dgx02 on mlx5_0 alone */
	json_real_set(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(r, "stages"), 0), "results"), 0), "gbps"), 50);
	assert_int_equal(validate_baseline(r, dir, 10, &err), 0);
	f = json_object_get(json_array_get(json_object_get(r, "stages"), 0), "findings");
	assert_int_equal(json_array_size(f), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "host")), "dgx03");
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "subject")), "mlx5_1/1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "message")),
			    "60% below the baseline against 3 peers: dgx01 40.0 of 100.0, "
			    "dgx02 40.0 of 100.0, dgx04 40.0 of 100.0");
	assert_null(json_string_value(json_object_get(json_array_get(f, 1), "host")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "subject")),
			    "dgx01-dgx02 mlx5_0/1");
	assert_string_equal(json_string_value(json_object_get(r, "status")), "warn");
	json_decref(r);
	path = xasprintf("%s/validate-baseline.json", dir);
	unlink(path);
	free(path);
	rmdir(dir);
}

/* Issue 26: a run with no results table (it failed or hung) is still
 * judged on its NCCL_DEBUG lines: the host on sockets, the host whose
 * network paths lack GDRDMA (real logs: tests/fixtures/tools/nccl-debug). */
static void test_nccl_info_without_table(void **state)
{
	static const char *const files[] = {
		"tests/fixtures/tools/nccl-debug/nccl_2_3_no_ib_devices_fallback_to_socket.txt",
		"tests/fixtures/tools/nccl-debug/nccl_2_4_ib_gdr_disabled_distance_via_net_ib_0_no_gdrdma_excerpt.txt",
	};
	static const char *const hosts[] = { "ml3", "master_node" };
	static const char *const want[] = { "NCCL used NET/Socket", "without GDRDMA" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct strbuf sb = STRBUF_INIT;
		char chunk[4096], *f;
		size_t got;
		FILE *in = fopen(files[i], "r");
		json_t *info;

		assert_non_null(in);
		while ((got = fread(chunk, 1, sizeof(chunk), in)) > 0)
			strbuf_add(&sb, chunk, got);
		fclose(in);
		info = validate_nccl_info(sb.buf, sb.len);
		assert_non_null(info);
		f = validate_mpi_host_fault(json_object_get(json_object_get(info, "hosts"), hosts[i]),
					    true, true);
		assert_non_null(f);
		if (!strstr(f, want[i]))
			fail_msg("%s: '%s' lacks '%s'", files[i], f, want[i]);
		free(f);
		json_decref(info);
		strbuf_release(&sb);
	}
	assert_null(validate_nccl_info("epoch 1\n", 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule_all),
		cmocka_unit_test(test_baseline_folds_a_port),
		cmocka_unit_test(test_nccl_info_without_table),
		cmocka_unit_test(test_schedule_sixteen_nodes_fifteen_rounds),
		cmocka_unit_test(test_schedule_ring),
		cmocka_unit_test(test_config_defaults_and_values),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_resnet),
		cmocka_unit_test(test_config_dcgm),
		cmocka_unit_test(test_mpi_variants),
		cmocka_unit_test(test_mpi_hostfile_and_command),
		cmocka_unit_test(test_mpi_nic_gbps),
		cmocka_unit_test(test_mpi_host_fault),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_report_text_and_junit),
		cmocka_unit_test(test_report_html),
		cmocka_unit_test(test_report_html_dcgm_and_unknown),
		cmocka_unit_test(test_report_html_legend_not_clipped),
	};

	return cmocka_run_group_tests_name("validate", tests, NULL, release_cfg);
}
