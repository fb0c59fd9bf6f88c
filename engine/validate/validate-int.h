/*
 * Shared by the validation stages (validate-*.c) only.
 */
#ifndef BRINGUP_VALIDATE_INT_H
#define BRINGUP_VALIDATE_INT_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "validate.h"

struct inventory;
struct runner;
struct task_ctx;

/*
 * Runs a trivial command on each of hosts[0..n): the ones that answer go to
 * ret_ok (room for n), the others become findings (unreachable for a
 * connect failure). Returns how many answered.
 */
size_t validate_reachable(struct runner *r, const size_t *hosts, size_t n,
			  size_t *ret_ok, json_t *findings, const struct inventory *inv);
/* Appends {"status","host","subject","message"} to findings; host and
 * subject may be NULL. */
void validate_finding(json_t *findings, enum vstatus st, const char *host,
		      const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The worst status among findings (pass when none). */
enum vstatus validate_findings_status(const json_t *findings);

/* The task's host i's GPUs whose hardware slowdown is active (nvidia-smi),
 * as "GPU 3, GPU 5"; NULL when none or unknown. Caller frees. */
char *validate_slow_gpus(struct task_ctx *t, size_t i);
/* The median of v[0..n) (0 when n is 0). */
double validate_median(const double *v, size_t n);
/*
 * The fleet's low outliers, median and MAD computed once: low[i] tells
 * whether v[i] lies more than 3.5 robust standard deviations (1.4826 x
 * MAD) under the median and more than min_drop_pct below it. Returns the
 * median. Fewer than 3 values: none is an outlier.
 */
double validate_outliers_low(const double *v, size_t n, double min_drop_pct, bool *low);

/* validate-mpi.c: the nccl stage across nodes (mpirun). */
struct host;
struct strbuf;
struct validate_nccl_cfg;
/* validate-nccl.c: what a run's NCCL_DEBUG=INFO lines say (network, IB
 * devices, transports, per host): nccl-tests' "nccl_info" when the output
 * has its table, else the nccl-debug parser's reading of the bare log (a
 * run that failed or hung before its table); NULL when it has no NCCL
 * line. Caller owns it. */
json_t *validate_nccl_info(const char *out, size_t len);
/* validate-nccl.c: appends "CMD -b MIN -e MAX -f 2 -g GPUS". */
void validate_nccl_args(struct strbuf *sb, const struct validate_nccl_cfg *c, unsigned gpus);
void validate_mpi_variant_name(const struct mpi_variant *v, char (*out)[32]);
void validate_mpi_hostfile(struct strbuf *out, const char *const *names, size_t n, unsigned slots);
/* The launcher's shell line: validate_mpi_begin (hostfile, mpirun and its
 * SSH options), the caller's options (with "$rootx") and program, then
 * validate_mpi_end (output and status, hostfile removed). */
void validate_mpi_begin(struct strbuf *out, const char *mpirun_command, const char *hostfile,
			size_t np, unsigned ssh_port);
void validate_mpi_end(struct strbuf *out);
/* The nccl stage's: all_reduce_perf, one GPU a rank, NCCL's switches. */
void validate_mpi_command(struct strbuf *out, const struct validate_nccl_cfg *c,
			  const char *hostfile, size_t np, unsigned ssh_port);
/* Tries every peer (hosts[1..n)) from the launcher hosts[0], the task's
 * host 0, as mpirun will; NULL when all log in, else why (caller frees). */
char *validate_mpi_peer_probe(struct task_ctx *t, const struct inventory *inv,
			      const size_t *hosts, size_t n);
double validate_mpi_nic_gbps(const struct host *h, unsigned gpus);
char *validate_mpi_host_fault(const json_t *hinfo, bool expect_ib, bool expect_gdr);
/*
 * Runs cfg's variants from hosts[0] (inventory indexes of the GPU hosts
 * that answered) and adds stage["multi_node"] and findings; suspects names
 * the hosts whose single-node runs failed.
 */
void validate_nccl_mpi(struct runner *r, const struct inventory *inv,
		       const struct validate_cfg *cfg, const size_t *hosts, size_t n,
		       const char *const *suspects, size_t nsuspects, json_t *stage,
		       json_t *findings);
/*
 * validate-nccl.c for validate-kube.c: one all_reduce_perf output judged as
 * the SSH path judges it (run 0 "nvlink", 1 "net"; `error`, may be NULL,
 * when there is none): a new result row {host, run, gpus, busbw_gbps,
 * latency_us, min_busbw_gbps, network, transports, status, curve[, error]}.
 */
struct host;
json_t *validate_nccl_judge_output(const struct validate_cfg *cfg, const struct host *h,
				   int run, const char *out, size_t len, const char *error);

/*
 * validate-resnet.c, for its SSH path and validate-kube.c: one step's
 * tf_cnn_benchmarks output (`errout`, may be NULL: its stderr, added to a
 * parse error) read as total images/sec, or -1 with *ret_error (owned) set.
 */
double validate_resnet_parse(const char *out, size_t len, const char *errout, char **ret_error);
/* The same for either benchmark (DLE: the parser's images_per_sec; a run
 * the tool reports failed gives its error). */
double validate_resnet_parse_bench(enum resnet_bench b, const char *out, size_t len,
				   const char *errout, char **ret_error);
/* The benchmark's command line for g GPUs a node, alone (nodes 1, master
 * NULL) or as one rank of an mpirun job across nodes (validate-resnet.c). */
void validate_resnet_args(struct strbuf *sb, const struct validate_resnet_cfg *c, unsigned g,
			  size_t nodes, const char *master);
/* Appends one try {gpus, try, images_per_sec, error} to tries. */
void validate_resnet_try(json_t *tries, unsigned gpus, unsigned attempt, double ips,
			 const char *error);
/* The scaling efficiency (%) of the last of n steps against the first; -1 when unknown. */
double validate_resnet_efficiency(const unsigned *gpus, const double *ips, size_t n);
/*
 * One node's steps (gpus[k] GPUs gave ips[k] images/sec, -1: none; `error`
 * the last failure, `slow_gpus` the GPUs whose hardware slowdown is active,
 * both may be NULL) judged: appends its result row {host, steps,
 * efficiency_pct, tries} to results and its findings. Returns the last
 * step's figure (-1: none), for the fleet.
 */
double validate_resnet_judge_node(const struct validate_cfg *cfg, const struct host *h,
				  const unsigned *gpus, const double *ips, size_t n, json_t *tries,
				  const char *error, const char *slow_gpus, json_t *results,
				  json_t *findings);
/* Warns of the node (hosts[i], top[i] >= 0) that drags the fleet: its median and MAD. */
void validate_resnet_fleet(const struct host *const *hosts, const double *top, size_t n,
			   json_t *findings);

#endif
