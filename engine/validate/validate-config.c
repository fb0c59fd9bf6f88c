/*
 * The inventory's `validate:` section: defaults, and the reader that turns
 * it into struct validate_cfg. The inventory keeps the section as written
 * (inv->validate_section) and validation reads it here, so that the
 * inventory knows nothing of validation; cmd/ reads it right after loading
 * the inventory, so that a bad key or value points at its FILE:LINE:COL
 * before any host is touched, whatever the command.
 */
#include "validate.h"
#include "../base/xalloc.h"
#include "../base/yamltree.h"
#include "../inventory/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void validate_cfg_defaults(struct validate_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->rdma.command = xstrdup("ib_write_bw");
	c->rdma.pairs = PAIRS_ALL;
	c->rdma.duration_s = 5;
	c->rdma.size = 1u << 20;
	c->rdma.pass_pct = 90;
	c->rdma.warn_pct = 93;
	c->rdma.base_port = 18515;
	c->rdma.slack_s = 30;
	c->nccl.command = xstrdup("all_reduce_perf");
	c->nccl.min_bytes = xstrdup("8");
	c->nccl.max_bytes = xstrdup("256M");
	c->nccl.max_latency_us = 100;
	c->nccl.expect_ib = true;
	c->nccl.expect_gdr = true;
	c->nccl.timeout_s = 300;
	c->nccl.mpirun = true;
	c->rdma.numa = true;
	c->nccl.mpirun_command = xstrdup("mpirun");
	c->nccl.variants = xstrdup("2x8,Nx1");
	c->nccl.net_pct = 85;
	c->resnet.benchmark = RESNET_DLE;
	c->resnet.num_batches = 100;
	c->resnet.amp = true;
	c->resnet.mpirun = true;
	c->resnet.mpirun_command = xstrdup("mpirun");
	c->resnet.min_efficiency_pct = 80;
	c->resnet.timeout_s = 600;
	c->storage.command = xstrdup("fio");
	c->storage.numjobs = 8;
	c->storage.size = xstrdup("4G");
	c->storage.runtime_s = 30;
	c->storage.slack_s = 60;
	c->storage.min_fraction_pct = 50;
	c->storage.scaling_pct = 80;
	c->dcgm.command = xstrdup("dcgmi");
	c->dcgm.level = 3;
	c->dcgm.timeout_s = 1800;
	c->tries = 3;
	c->baseline_drop_pct = 10;
}

void validate_cfg_release(struct validate_cfg *c)
{
	if (!c)
		return;
	free(c->rdma.command);
	free(c->nccl.command);
	free(c->nccl.min_bytes);
	free(c->nccl.max_bytes);
	free(c->nccl.mpirun_command);
	free(c->nccl.variants);
	free(c->resnet.command);
	free(c->resnet.mpirun_command);
	free(c->storage.command);
	free(c->storage.directory);
	free(c->storage.size);
	free(c->dcgm.command);
	memset(c, 0, sizeof(*c));
}

static int read_bool(struct ytree *t, yaml_node_t *n, const char *what, bool *ret)
{
	static const char *const choices[] = { "true", "false" };
	const char *s = ytree_str(n);

	if (n->type == YAML_SCALAR_NODE && (!strcmp(s, "true") || !strcmp(s, "false"))) {
		*ret = !strcmp(s, "true");
		return 0;
	}
	return ytree_fail_choice(t, n, "value", what, choices, 2);
}

static int read_str(struct ytree *t, yaml_node_t *n, const char *what, char **dst)
{
	char *s;

	if (ytree_string(t, n, what, &s))
		return ERR_INVENTORY;
	free(*dst);
	*dst = s;
	return 0;
}

/* Reads a value only when the key was given; rc accumulates the first error. */
#define OPT(n, expr) ((n) ? (expr) : 0)

enum { R_COMMAND, R_PAIRS, R_DURATION, R_SIZE, R_PASS, R_WARN, R_PORT, R_SLACK, R_CUDA, R_NUMA,
       R__N };
static const struct ykey rdma_keys[] = {
	[R_COMMAND] = { "command", Y_SCALAR, false },
	[R_PAIRS] = { "pairs", Y_SCALAR, false },
	[R_DURATION] = { "duration", Y_SCALAR, false },
	[R_SIZE] = { "size", Y_SCALAR, false },
	[R_PASS] = { "pass_pct", Y_SCALAR, false },
	[R_WARN] = { "warn_pct", Y_SCALAR, false },
	[R_PORT] = { "base_port", Y_SCALAR, false },
	[R_SLACK] = { "slack", Y_SCALAR, false },
	[R_CUDA] = { "use_cuda", Y_SCALAR, false },
	[R_NUMA] = { "numa", Y_SCALAR, false },
	[R__N] = { NULL, 0, false },
};

static int read_rdma(struct ytree *t, yaml_node_t *n, struct validate_rdma_cfg *c)
{
	static const char *const modes[] = { "all", "ring" };
	yaml_node_t *v[R__N];

	if (ytree_check_map(t, n, rdma_keys, "validate.rdma", v))
		return ERR_INVENTORY;
	if (v[R_PAIRS]) {
		const char *s = ytree_str(v[R_PAIRS]);

		if (!strcmp(s, "all") || !strcmp(s, "ring"))
			c->pairs = !strcmp(s, "ring") ? PAIRS_RING : PAIRS_ALL;
		else
			return ytree_fail_choice(t, v[R_PAIRS], "pairs mode", "validate.rdma",
						 modes, 2);
	}
	if (OPT(v[R_COMMAND], read_str(t, v[R_COMMAND], "'command' in validate.rdma", &c->command)) ||
	    OPT(v[R_DURATION], ytree_uint(t, v[R_DURATION], 1, 3600, "'duration' (seconds) in validate.rdma", &c->duration_s)) ||
	    OPT(v[R_SIZE], ytree_uint(t, v[R_SIZE], 2, 1u << 30, "'size' (bytes) in validate.rdma", &c->size)) ||
	    OPT(v[R_PASS], ytree_uint(t, v[R_PASS], 1, 100, "'pass_pct' in validate.rdma", &c->pass_pct)) ||
	    OPT(v[R_WARN], ytree_uint(t, v[R_WARN], 1, 100, "'warn_pct' in validate.rdma", &c->warn_pct)) ||
	    OPT(v[R_PORT], ytree_uint(t, v[R_PORT], 1024, 65000, "'base_port' in validate.rdma", &c->base_port)) ||
	    OPT(v[R_SLACK], ytree_uint(t, v[R_SLACK], 1, 3600, "'slack' (seconds) in validate.rdma", &c->slack_s)) ||
	    OPT(v[R_CUDA], read_bool(t, v[R_CUDA], "'use_cuda' in validate.rdma", &c->use_cuda)) ||
	    OPT(v[R_NUMA], read_bool(t, v[R_NUMA], "'numa' in validate.rdma", &c->numa)))
		return ERR_INVENTORY;
	if (c->warn_pct < c->pass_pct)
		return ytree_fail(t, v[R_WARN] ? v[R_WARN] : v[R_PASS], 0,
				  "found warn_pct %u below pass_pct %u, expected warn_pct >= pass_pct",
				  c->warn_pct, c->pass_pct);
	return 0;
}

enum { N_COMMAND, N_MINB, N_MAXB, N_LAT, N_BUSBW, N_IB, N_GDR, N_TIMEOUT, N_MPIRUN,
       N_MPICMD, N_VARIANTS, N_NETPCT, N__N };
static const struct ykey nccl_keys[] = {
	[N_COMMAND] = { "command", Y_SCALAR, false },
	[N_MINB] = { "min_bytes", Y_SCALAR, false },
	[N_MAXB] = { "max_bytes", Y_SCALAR, false },
	[N_LAT] = { "max_latency_us", Y_SCALAR, false },
	[N_BUSBW] = { "min_busbw", Y_SCALAR, false },
	[N_IB] = { "expect_ib", Y_SCALAR, false },
	[N_GDR] = { "expect_gdr", Y_SCALAR, false },
	[N_TIMEOUT] = { "timeout", Y_SCALAR, false },
	[N_MPIRUN] = { "mpirun", Y_SCALAR, false },
	[N_MPICMD] = { "mpirun_command", Y_SCALAR, false },
	[N_VARIANTS] = { "variants", Y_SCALAR, false },
	[N_NETPCT] = { "net_pct", Y_SCALAR, false },
	[N__N] = { NULL, 0, false },
};

/* nccl-tests sizes: digits with an optional K, M or G. */
static int read_size(struct ytree *t, yaml_node_t *n, const char *what, char **dst)
{
	const char *s = ytree_str(n);
	size_t d = strspn(s, "0123456789");

	if (n->type != YAML_SCALAR_NODE || !d || (s[d] && (strchr("KMGkmg", s[d]) == NULL || s[d + 1])))
		return ytree_fail(t, n, 0, "found %s for %s, expected a size such as 8, 64K, 256M or 1G",
				  *s ? s : "an empty value", what);
	return read_str(t, n, what, dst);
}

static int read_nccl(struct ytree *t, yaml_node_t *n, struct validate_nccl_cfg *c)
{
	yaml_node_t *v[N__N];

	if (ytree_check_map(t, n, nccl_keys, "validate.nccl", v))
		return ERR_INVENTORY;
	if (OPT(v[N_COMMAND], read_str(t, v[N_COMMAND], "'command' in validate.nccl", &c->command)) ||
	    OPT(v[N_MINB], read_size(t, v[N_MINB], "'min_bytes' in validate.nccl", &c->min_bytes)) ||
	    OPT(v[N_MAXB], read_size(t, v[N_MAXB], "'max_bytes' in validate.nccl", &c->max_bytes)) ||
	    OPT(v[N_LAT], ytree_uint(t, v[N_LAT], 1, 10000000, "'max_latency_us' in validate.nccl", &c->max_latency_us)) ||
	    OPT(v[N_BUSBW], ytree_uint(t, v[N_BUSBW], 0, 100000, "'min_busbw' (GB/s) in validate.nccl", &c->min_busbw_gbps)) ||
	    OPT(v[N_IB], read_bool(t, v[N_IB], "'expect_ib' in validate.nccl", &c->expect_ib)) ||
	    OPT(v[N_GDR], read_bool(t, v[N_GDR], "'expect_gdr' in validate.nccl", &c->expect_gdr)) ||
	    OPT(v[N_TIMEOUT], ytree_uint(t, v[N_TIMEOUT], 1, 86400, "'timeout' (seconds) in validate.nccl", &c->timeout_s)) ||
	    OPT(v[N_MPIRUN], read_bool(t, v[N_MPIRUN], "'mpirun' in validate.nccl", &c->mpirun)) ||
	    OPT(v[N_MPICMD], read_str(t, v[N_MPICMD], "'mpirun_command' in validate.nccl", &c->mpirun_command)) ||
	    OPT(v[N_NETPCT], ytree_uint(t, v[N_NETPCT], 1, 100, "'net_pct' in validate.nccl", &c->net_pct)))
		return ERR_INVENTORY;
	if (v[N_VARIANTS]) {
		struct mpi_variant mv[VALIDATE_MAX_VARIANTS];
		char why[128];

		if (validate_mpi_variants_parse(ytree_str(v[N_VARIANTS]), mv, &why) < 0)
			return ytree_fail(t, v[N_VARIANTS], 0, "found '%s' for 'variants' in "
					  "validate.nccl (%s), expected NODESxGPUS[,...] such as "
					  "2x8,Nx1 (N: all nodes, G: all GPUs)",
					  ytree_str(v[N_VARIANTS]), why);
		if (read_str(t, v[N_VARIANTS], "'variants' in validate.nccl", &c->variants))
			return ERR_INVENTORY;
	}
	return 0;
}

enum { S_BENCH, S_COMMAND, S_BATCH, S_BATCHES, S_AMP, S_EFF, S_TIMEOUT, S_MPIRUN, S_MPICMD, S__N };
static const struct ykey resnet_keys[] = {
	[S_BENCH] = { "benchmark", Y_SCALAR, false },
	[S_COMMAND] = { "command", Y_SCALAR, false },
	[S_BATCH] = { "batch_size", Y_SCALAR, false },
	[S_BATCHES] = { "num_batches", Y_SCALAR, false },
	[S_AMP] = { "amp", Y_SCALAR, false },
	[S_EFF] = { "min_efficiency_pct", Y_SCALAR, false },
	[S_TIMEOUT] = { "timeout", Y_SCALAR, false },
	[S_MPIRUN] = { "mpirun", Y_SCALAR, false },
	[S_MPICMD] = { "mpirun_command", Y_SCALAR, false },
	[S__N] = { NULL, 0, false },
};

static int read_resnet(struct ytree *t, yaml_node_t *n, struct validate_resnet_cfg *c)
{
	static const char *const benches[] = { "dle", "tf_cnn" };
	yaml_node_t *v[S__N];

	if (ytree_check_map(t, n, resnet_keys, "validate.resnet", v))
		return ERR_INVENTORY;
	if (v[S_BENCH]) {
		const char *s = ytree_str(v[S_BENCH]);

		if (strcmp(s, "dle") && strcmp(s, "tf_cnn"))
			return ytree_fail_choice(t, v[S_BENCH], "benchmark", "validate.resnet",
						 benches, 2);
		c->benchmark = !strcmp(s, "tf_cnn") ? RESNET_TF_CNN : RESNET_DLE;
	}
	if (OPT(v[S_COMMAND], read_str(t, v[S_COMMAND], "'command' in validate.resnet", &c->command)) ||
	    OPT(v[S_BATCH], ytree_uint(t, v[S_BATCH], 1, 65536, "'batch_size' in validate.resnet", &c->batch_size)) ||
	    OPT(v[S_BATCHES], ytree_uint(t, v[S_BATCHES], 1, 1000000, "'num_batches' in validate.resnet", &c->num_batches)) ||
	    OPT(v[S_AMP], read_bool(t, v[S_AMP], "'amp' in validate.resnet", &c->amp)) ||
	    OPT(v[S_EFF], ytree_uint(t, v[S_EFF], 1, 100, "'min_efficiency_pct' in validate.resnet", &c->min_efficiency_pct)) ||
	    OPT(v[S_TIMEOUT], ytree_uint(t, v[S_TIMEOUT], 1, 86400, "'timeout' (seconds) in validate.resnet", &c->timeout_s)) ||
	    OPT(v[S_MPIRUN], read_bool(t, v[S_MPIRUN], "'mpirun' in validate.resnet", &c->mpirun)) ||
	    OPT(v[S_MPICMD], read_str(t, v[S_MPICMD], "'mpirun_command' in validate.resnet", &c->mpirun_command)))
		return ERR_INVENTORY;
	return 0;
}

const char *validate_resnet_command(const struct validate_resnet_cfg *c)
{
	if (c->command)
		return c->command;
	return c->benchmark == RESNET_TF_CNN ? "tf_cnn_benchmarks" : "multiproc.py";
}

unsigned validate_resnet_batch(const struct validate_resnet_cfg *c)
{
	/* DLE's README trains with 256 a GPU (AMP); the Redpaper's TF runs used 64. */
	if (c->batch_size)
		return c->batch_size;
	return c->benchmark == RESNET_TF_CNN ? 64 : 256;
}

enum { F_COMMAND, F_DIR, F_JOBS, F_SIZE, F_RUNTIME, F_SLACK, F_LIMIT, F_FRAC, F_SCALE, F__N };
static const struct ykey storage_keys[] = {
	[F_COMMAND] = { "command", Y_SCALAR, false },
	[F_DIR] = { "directory", Y_SCALAR, false },
	[F_JOBS] = { "numjobs", Y_SCALAR, false },
	[F_SIZE] = { "size", Y_SCALAR, false },
	[F_RUNTIME] = { "runtime", Y_SCALAR, false },
	[F_SLACK] = { "slack", Y_SCALAR, false },
	[F_LIMIT] = { "limit_mbps", Y_SCALAR, false },
	[F_FRAC] = { "min_fraction_pct", Y_SCALAR, false },
	[F_SCALE] = { "scaling_pct", Y_SCALAR, false },
	[F__N] = { NULL, 0, false },
};

static int read_storage(struct ytree *t, yaml_node_t *n, struct validate_storage_cfg *c)
{
	yaml_node_t *v[F__N];

	if (ytree_check_map(t, n, storage_keys, "validate.storage", v) ||
	    OPT(v[F_COMMAND], read_str(t, v[F_COMMAND], "'command' in validate.storage", &c->command)) ||
	    OPT(v[F_DIR], read_str(t, v[F_DIR], "'directory' in validate.storage", &c->directory)) ||
	    OPT(v[F_JOBS], ytree_uint(t, v[F_JOBS], 1, 1024, "'numjobs' in validate.storage", &c->numjobs)) ||
	    OPT(v[F_SIZE], read_size(t, v[F_SIZE], "'size' in validate.storage", &c->size)) ||
	    OPT(v[F_RUNTIME], ytree_uint(t, v[F_RUNTIME], 1, 86400, "'runtime' (seconds) in validate.storage", &c->runtime_s)) ||
	    OPT(v[F_SLACK], ytree_uint(t, v[F_SLACK], 1, 86400, "'slack' (seconds) in validate.storage", &c->slack_s)) ||
	    OPT(v[F_LIMIT], ytree_uint(t, v[F_LIMIT], 0, 100000000, "'limit_mbps' in validate.storage", &c->limit_mbps)) ||
	    OPT(v[F_FRAC], ytree_uint(t, v[F_FRAC], 1, 100, "'min_fraction_pct' in validate.storage", &c->min_fraction_pct)) ||
	    OPT(v[F_SCALE], ytree_uint(t, v[F_SCALE], 1, 100, "'scaling_pct' in validate.storage", &c->scaling_pct)))
		return ERR_INVENTORY;
	return 0;
}

enum { D_COMMAND, D_LEVEL, D_TIMEOUT, D__N };
static const struct ykey dcgm_keys[] = {
	[D_COMMAND] = { "command", Y_SCALAR, false },
	[D_LEVEL] = { "level", Y_SCALAR, false },
	[D_TIMEOUT] = { "timeout", Y_SCALAR, false },
	[D__N] = { NULL, 0, false },
};

static int read_dcgm(struct ytree *t, yaml_node_t *n, struct validate_dcgm_cfg *c)
{
	yaml_node_t *v[D__N];

	/* Levels 1..4 are what dcgmi diag -r accepts as a number. */
	if (ytree_check_map(t, n, dcgm_keys, "validate.dcgm", v) ||
	    OPT(v[D_COMMAND], read_str(t, v[D_COMMAND], "'command' in validate.dcgm", &c->command)) ||
	    OPT(v[D_LEVEL], ytree_uint(t, v[D_LEVEL], 1, 4, "'level' in validate.dcgm", &c->level)) ||
	    OPT(v[D_TIMEOUT], ytree_uint(t, v[D_TIMEOUT], 1, 86400, "'timeout' (seconds) in validate.dcgm", &c->timeout_s)))
		return ERR_INVENTORY;
	return 0;
}

enum { V_RDMA, V_NCCL, V_RESNET, V_STORAGE, V_DCGM, V_TRIES, V_DROP, V__N };
static const struct ykey validate_keys[] = {
	[V_RDMA] = { "rdma", Y_MAP, false },
	[V_NCCL] = { "nccl", Y_MAP, false },
	[V_RESNET] = { "resnet", Y_MAP, false },
	[V_STORAGE] = { "storage", Y_MAP, false },
	[V_DCGM] = { "dcgm", Y_MAP, false },
	[V_TRIES] = { "tries", Y_SCALAR, false },
	[V_DROP] = { "baseline_drop_pct", Y_SCALAR, false },
	[V__N] = { NULL, 0, false },
};

int validate_config_read(struct ytree *t, yaml_node_t *n, struct validate_cfg *c)
{
	yaml_node_t *v[V__N];

	if (!n)
		return 0;
	if (ytree_check_map(t, n, validate_keys, "validate", v) ||
	    OPT(v[V_RDMA], read_rdma(t, v[V_RDMA], &c->rdma)) ||
	    OPT(v[V_NCCL], read_nccl(t, v[V_NCCL], &c->nccl)) ||
	    OPT(v[V_RESNET], read_resnet(t, v[V_RESNET], &c->resnet)) ||
	    OPT(v[V_STORAGE], read_storage(t, v[V_STORAGE], &c->storage)) ||
	    OPT(v[V_DCGM], read_dcgm(t, v[V_DCGM], &c->dcgm)) ||
	    OPT(v[V_TRIES], ytree_uint(t, v[V_TRIES], 1, 3, "'tries' in validate", &c->tries)) ||
	    OPT(v[V_DROP], ytree_uint(t, v[V_DROP], 1, 100, "'baseline_drop_pct' in validate", &c->baseline_drop_pct)))
		return ERR_INVENTORY;
	return 0;
}

static const char *const stage_names[VSTAGE__COUNT] = {
	[VSTAGE_RDMA] = "rdma",
	[VSTAGE_NCCL] = "nccl",
	[VSTAGE_RESNET] = "resnet",
	[VSTAGE_STORAGE] = "storage",
	[VSTAGE_DCGM] = "dcgm",
};

const char *validate_stage_name(enum validate_stage s)
{
	return s < VSTAGE__COUNT ? stage_names[s] : "?";
}

int validate_stage_from_name(const char *s)
{
	for (int i = 0; i < VSTAGE__COUNT; i++)
		if (!strcmp(stage_names[i], s))
			return i;
	return -1;
}

int validate_mpi_variants_parse(const char *s, struct mpi_variant *v, char (*why)[128])
{
	int n = 0;

	while (s && *s) {
		size_t len = strcspn(s, ",");
		char item[32], *x, *end;
		unsigned long a, b;

		if (!len || len >= sizeof(item)) {
			snprintf(*why, sizeof(*why), "an empty or overlong item");
			return -1;
		}
		if (n == VALIDATE_MAX_VARIANTS) {
			snprintf(*why, sizeof(*why), "more than %d variants", VALIDATE_MAX_VARIANTS);
			return -1;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		x = strchr(item, 'x');
		if (!x || x == item || !x[1]) {
			snprintf(*why, sizeof(*why), "'%s' is not NODESxGPUS", item);
			return -1;
		}
		*x = '\0';
		if (!strcmp(item, "N")) {
			a = 0;
		} else {
			a = strtoul(item, &end, 10);
			if (*end || item[0] < '1' || item[0] > '9' || a < 2 || a > 100000) {
				snprintf(*why, sizeof(*why), "nodes '%s': a number from 2, or N", item);
				return -1;
			}
		}
		if (!strcmp(x + 1, "G")) {
			b = 0;
		} else {
			b = strtoul(x + 1, &end, 10);
			if (*end || x[1] < '1' || x[1] > '9' || b > 64) {
				snprintf(*why, sizeof(*why), "GPUs '%s': a number from 1 to 64, or G", x + 1);
				return -1;
			}
		}
		v[n].nodes = (unsigned)a;
		v[n].gpus = (unsigned)b;
		n++;
		s += len;
		s += *s == ',';
	}
	if (!n)
		snprintf(*why, sizeof(*why), "no variant");
	return n ? n : -1;
}

int validate_config_load(const struct inventory *inv, struct validate_cfg *c, struct err *err)
{
	/* A copy of the section's handle, so that errors go to err without
	 * writing into the inventory, which threads share. */
	struct ytree t;

	if (!inv->validate_section.loaded)
		return 0;
	t = inv->validate_section;
	t.err = err;
	if (validate_config_read(&t, ytree_root(&t), c)) {
		validate_cfg_release(c);
		validate_cfg_defaults(c);
		return ERR_INVENTORY;
	}
	return 0;
}
