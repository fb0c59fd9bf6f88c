/*
 * Validation (`bringup validate`): benchmarks run across the cluster and
 * judged against thresholds, so that the report names the node, port or
 * GPU that holds the cluster back.
 *
 * The settings come from the inventory's `validate:` section, which the
 * inventory keeps as written and validate_config_load reads (defaults below
 * and in inventory/README.md). Each stage (validate-rdma.c, validate-nccl.c) runs
 * its measurements through the runner and adds one stage object to a JSON
 * report: its status, every try of every measurement, and its findings,
 * each naming a host and, where it applies, a port or GPU. Stages never
 * print; cmd/cmd-validate.c renders the report.
 */
#ifndef BRINGUP_VALIDATE_H
#define BRINGUP_VALIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"

struct inventory;
struct runner;
struct ytree;
typedef struct yaml_node_s yaml_node_t;

enum pairs_mode { PAIRS_ALL = 0, PAIRS_RING };

struct validate_rdma_cfg {
	char *command;            /* "ib_write_bw" */
	enum pairs_mode pairs;    /* all: round-robin tournament; ring: neighbours */
	unsigned duration_s;      /* perftest -D; default 5 */
	unsigned size;            /* message size, bytes; default 1 MiB */
	unsigned pass_pct;        /* fail below this % of the link rate; 90 */
	unsigned warn_pct;        /* warn below this %; 93 (see README) */
	unsigned base_port;       /* first TCP port tried for servers; 18515 */
	unsigned slack_s;         /* a test may overrun its duration by this; 30 */
	bool use_cuda;            /* --use_cuda (GPUDirect expected) */
	bool numa;                /* each end under numactl on its HCA's NUMA node; true */
};

struct validate_nccl_cfg {
	char *command;            /* "all_reduce_perf" */
	char *min_bytes, *max_bytes; /* "8", "256M" */
	unsigned max_latency_us;  /* smallest size's time above this fails; 100 */
	unsigned min_busbw_gbps;  /* at the largest size; 0: by GPU model */
	bool expect_ib;           /* NET/IB expected, NET/Socket fails; true */
	bool expect_gdr;          /* GDRDMA expected; true */
	unsigned timeout_s;       /* per run; 300 */
	/* Across nodes (validate-mpi.c): mpirun on the first GPU host. */
	bool mpirun;              /* run the variants below; true */
	char *mpirun_command;     /* "mpirun" (Open MPI) */
	char *variants;           /* "2x8,Nx1": NODESxGPUS, N all nodes, G all GPUs */
	unsigned net_pct;         /* busbw >= this % of the NICs' aggregate; 85 */
};

/*
 * The ResNet-50 benchmark: NVIDIA DeepLearningExamples' PyTorch ResNet-50
 * v1.5 (maintained; mixed precision), or tf_cnn_benchmarks, which the
 * Redpaper and the papers of its time used (unmaintained since TF 2.x,
 * kept for comparison with their figures).
 */
enum resnet_bench { RESNET_DLE = 0, RESNET_TF_CNN };

struct validate_resnet_cfg {
	enum resnet_bench benchmark; /* dle */
	char *command;            /* NULL: the benchmark's ("multiproc.py", "tf_cnn_benchmarks") */
	unsigned batch_size;      /* per GPU; 0: the benchmark's (256 dle, 64 tf_cnn) */
	unsigned num_batches;     /* iterations (dle --prof) or batches; 100 */
	bool amp;                 /* dle: mixed precision (--amp); true */
	unsigned min_efficiency_pct; /* N GPUs below this % of N x 1 GPU fails, on a node
				      * and across nodes; 80 */
	unsigned timeout_s;       /* per run; 600 */
	/* All nodes at once: mpirun on the first GPU host (validate-resnet.c). */
	bool mpirun;              /* true */
	char *mpirun_command;     /* "mpirun" (Open MPI) */
};
/* The command and per-GPU batch a benchmark runs with (defaults applied). */
const char *validate_resnet_command(const struct validate_resnet_cfg *c);
unsigned validate_resnet_batch(const struct validate_resnet_cfg *c);

struct validate_storage_cfg {
	char *command;            /* "fio" */
	char *directory;          /* NULL: the var gpfs_mount_point */
	unsigned numjobs;         /* 8 */
	char *size;               /* per job; "4G" */
	unsigned runtime_s;       /* 30 */
	unsigned slack_s;         /* 60 */
	unsigned limit_mbps;      /* the storage's aggregate limit; 0: unknown */
	unsigned min_fraction_pct;/* a node under this % of the median fails; 50 */
	unsigned scaling_pct;     /* aggregate at least this % of linear; 80 */
};

/* DCGM's diagnostic (validate-dcgm.c): `COMMAND diag -r LEVEL` per node. */
struct validate_dcgm_cfg {
	char *command;            /* "dcgmi" */
	unsigned level;           /* -r: 1 quick, 2 medium, 3 long (default), 4 extended */
	unsigned timeout_s;       /* per run; 1800 (level 3 takes about half an hour) */
};

struct validate_cfg {
	struct validate_rdma_cfg rdma;
	struct validate_nccl_cfg nccl;
	struct validate_resnet_cfg resnet;
	struct validate_storage_cfg storage;
	struct validate_dcgm_cfg dcgm;
	unsigned tries;           /* a failed measurement is tried this often; 3 */
	unsigned baseline_drop_pct; /* a figure this much below the baseline warns; 10 */
};

/*
 * One multi-node NCCL variant, "2x8" (2 nodes, 8 GPUs each, one rank a
 * GPU), "Nx1" (every node, 1 GPU), "NxG" (every GPU): 0 stands for N or G.
 */
#define VALIDATE_MAX_VARIANTS 8
struct mpi_variant {
	unsigned nodes;           /* 0: every GPU node */
	unsigned gpus;            /* per node; 0: every GPU of the node */
};
/*
 * Parses a comma-separated list into v (at most VALIDATE_MAX_VARIANTS);
 * returns the count, or -1 with *why saying what is wrong.
 */
int validate_mpi_variants_parse(const char *s, struct mpi_variant *v, char (*why)[128]);

/* The defaults; release with validate_cfg_release. */
void validate_cfg_defaults(struct validate_cfg *c);
void validate_cfg_release(struct validate_cfg *c);
/*
 * Reads the inventory's `validate:` mapping n (NULL: defaults only) into c,
 * already holding the defaults. Errors name FILE:LINE:COL (ERR_INVENTORY).
 */
int validate_config_read(struct ytree *t, yaml_node_t *n, struct validate_cfg *c);
/*
 * The inventory's `validate:` section (inv->validate_section) read into c,
 * which already holds the defaults (validate_cfg_defaults). Release c with
 * validate_cfg_release, also after an error (ERR_INVENTORY at
 * FILE:LINE:COL; c then holds the defaults again).
 */
int validate_config_load(const struct inventory *inv, struct validate_cfg *c, struct err *err);

enum validate_stage { VSTAGE_RDMA, VSTAGE_NCCL, VSTAGE_RESNET, VSTAGE_STORAGE, VSTAGE_DCGM, VSTAGE__COUNT };
const char *validate_stage_name(enum validate_stage s);
int validate_stage_from_name(const char *s); /* -1 when unknown */

enum vstatus { VS_PASS = 0, VS_WARN, VS_FAIL, VS_UNREACHABLE };
const char *vstatus_name(enum vstatus s);
/* The status a report names; VS_FAIL for a name that is none (or NULL). */
enum vstatus vstatus_parse(const char *s);

struct validate_opts {
	const struct validate_cfg *cfg;
	const size_t *hosts;       /* indexes into inv->hosts: the hosts to test */
	size_t nhosts;
	int pairs;                 /* -1: the config's; else enum pairs_mode */
};

/*
 * Runs one stage on opts->hosts and appends its object to report["stages"]
 * (report is the caller's). Returns 0 when it ran, whatever it found, or an
 * error when it could not run at all (usage: too few hosts).
 */
int validate_rdma(struct runner *r, const struct inventory *inv,
		  const struct validate_opts *o, json_t *report, struct err *err);
int validate_nccl(struct runner *r, const struct inventory *inv,
		  const struct validate_opts *o, json_t *report, struct err *err);
int validate_resnet(struct runner *r, const struct inventory *inv,
		    const struct validate_opts *o, json_t *report, struct err *err);
int validate_storage(struct runner *r, const struct inventory *inv,
		     const struct validate_opts *o, json_t *report, struct err *err);
int validate_dcgm(struct runner *r, const struct inventory *inv,
		  const struct validate_opts *o, json_t *report, struct err *err);

/* The worst status of the report's stages, also stored in report["status"]. */
enum vstatus validate_report_finish(json_t *report);

/*
 * The round-robin tournament (the circle method): n players, n-1 rounds
 * (n even) or n (odd, one sits out each round) of disjoint pairs, every
 * pair met exactly once. ring: each player meets its two neighbours, in
 * 2 rounds (n even) or 3. Fills ret_pairs with (round, a, b) triples,
 * round by round, ret_n the count; returns the number of rounds. Caller
 * frees *ret_pairs.
 */
size_t validate_schedule(size_t n, enum pairs_mode mode, size_t **ret_pairs, size_t *ret_n);

/*
 * validate-baseline.c: with no STATE_DIR/validate-baseline.json yet, stores
 * the report's figures there when the report passed (warnings allowed);
 * else compares every figure with the stored one and adds a warning
 * finding to its stage for each that dropped more than drop_pct. Notes
 * what it did in report["baseline"] and refreshes report["status"].
 */
int validate_baseline(json_t *report, const char *state_dir, unsigned drop_pct, struct err *err);

/* Report renderers (validate-report.c); out is appended to. */
struct strbuf;
void validate_report_text(const json_t *report, struct strbuf *out);
void validate_report_junit(const json_t *report, struct strbuf *out);
/* validate-html.c: one self-contained HTML file, plots as inline SVG. */
void validate_report_html(const json_t *report, struct strbuf *out);

#endif
