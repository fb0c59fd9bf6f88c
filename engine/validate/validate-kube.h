/*
 * validate-kube: `bringup validate --via kubernetes`, the validation stages
 * run on the cluster's own scheduler: each as MPIJobs through the API (the
 * MPI Operator), awaited with watch, their results read from the launcher
 * pods' logs and judged exactly as the SSH path judges them (the stage
 * files' own parsing and judging). Only the jobs bringup created (labelled
 * app.kubernetes.io/managed-by=bringup and this run's bringup/validate-run)
 * are deleted afterwards.
 */
#ifndef BRINGUP_VALIDATE_KUBE_H
#define BRINGUP_VALIDATE_KUBE_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/err.h"
#include "validate.h"

struct inventory;
struct kube_client;

/* Which stages can run this way (the others need SSH). */
bool validate_kube_supports(enum validate_stage s);

struct host;
/*
 * The node health pods' logs (precheck's fact framing: nvidia-smi -q,
 * ibstat, ibstatus) of hosts[0..n), judged by precheck's own checks of
 * those facts: a row {host, check, subject, status, expected, found} per
 * check result in results, a finding per failure or warning (its subject:
 * the GPU or port). errors[i] (may be NULL): why hosts[i] has no log.
 */
void validate_kube_health_judge(const struct inventory *inv, const struct host *const *hosts,
				const char *const *logs, const char *const *errors, size_t n,
				json_t *results, json_t *findings);

/*
 * Runs the node health pods (stage "health", always), then the wanted stages (validate_kube_supports) on o->hosts through the
 * API server of `kc`, appending one stage object each to report["stages"].
 * The jobs run in the first of openshift.user_namespaces, as its service
 * account. Returns 0 when the stages ran, whatever they found; an error
 * (ERR_NOTFOUND: the MPIJob CRD is missing, with what to install) when they
 * could not run at all.
 */
int validate_kube(struct kube_client *kc, const struct inventory *inv,
		  const struct validate_opts *o, const bool want[VSTAGE__COUNT],
		  json_t *report, struct err *err);

#endif
