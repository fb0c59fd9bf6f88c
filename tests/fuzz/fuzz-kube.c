/*
 * libFuzzer target: what bringup does with a Kubernetes API server's
 * answers, through an in-process fake transport (kube_client_new_transport):
 * `apply` (engine/kube/kube-apply.c, with and without --check), `drain`
 * (engine/kube/kube-node.c) and `validate --via kubernetes`
 * (engine/validate/validate-kube.c, the health pods and the NCCL stage),
 * over the objects of inventory/redbook-poc.yaml. No wait lasts: every
 * timeout is 0, and requests past the last answer fail as a lost
 * connection would.
 *
 * Input: first byte, the flow (mod 4: apply, apply --check, drain,
 * validate); then the answers in the order the requests come, separated by
 * a line "--"; each answer is its HTTP status on the first line, then the
 * body (seeds/kube). Traps on a broken contract: an error without a
 * message. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/kube/kube-apply.h"
#include "../../engine/kube/kube-client.h"
#include "../../engine/kube/kube-node.h"
#include "../../engine/kube/kube-objects.h"
#include "../../engine/validate/validate.h"
#include "../../engine/validate/validate-kube.h"

#define INVENTORY "inventory/redbook-poc.yaml"

struct answers {
	const char *p, *end;
	unsigned served;
};

static int answer(void *arg, const char *method, const char *path, const char *body,
		  size_t body_len, long *ret_status, struct strbuf *ret_body, struct err *err)
{
	struct answers *a = arg;
	const char *sep, *nl, *stop;

	(void)body;
	(void)body_len;
	if (a->p >= a->end || a->served >= 64)
		return err_set(err, ERR_CONNECT, "%s %s: no answer (fuzz input ends)", method, path);
	a->served++;
	sep = memmem(a->p, (size_t)(a->end - a->p), "\n--\n", 4);
	stop = sep ? sep : a->end;
	nl = memchr(a->p, '\n', (size_t)(stop - a->p));
	{
		/* the status: the line's leading digits (the input is not NUL-terminated) */
		char num[8] = "";
		size_t k = 0;

		while (k + 1 < sizeof(num) && a->p + k < stop && a->p[k] >= '0' && a->p[k] <= '9')
			num[k] = a->p[k], k++;
		num[k] = '\0';
		*ret_status = strtol(num, NULL, 10);
	}
	if (nl)
		strbuf_add(ret_body, nl + 1, (size_t)(stop - nl - 1));
	a->p = sep ? sep + 4 : a->end;
	return 0;
}

static struct inventory *inv;
static struct validate_cfg vcfg;  /* the inventory's validate: settings */
static struct kube_objects objs; /* the inventory's, built once */

static void setup(void)
{
	struct err e = ERR_INIT;
	json_t *records;

	if (inv)
		return;
	if (inventory_load(INVENTORY, &inv, &e)) {
		fprintf(stderr, "fuzz-kube: %s (run from the source tree's root)\n", err_msg(&e));
		abort();
	}
	validate_cfg_defaults(&vcfg);
	if (validate_config_load(inv, &vcfg, &e)) {
		fprintf(stderr, "fuzz-kube: %s\n", err_msg(&e));
		abort();
	}
	vcfg.nccl.timeout_s = 0;
	vcfg.resnet.timeout_s = 0;
	vcfg.dcgm.timeout_s = 0;
	vcfg.tries = 1;
	records = json_pack("{s:s, s:s, s:s}", "scale.cluster_id", "215057217487177715",
			    "scale.filesystem_uid", "C0A80134:5E7A3B1C", "scale.mount_point",
			    "/gpfs/fs0");
	if (kube_objects_build(inv, records, &objs, &e)) {
		fprintf(stderr, "fuzz-kube: %s\n", err_msg(&e));
		abort();
	}
	json_decref(records);
}

static void report(void *arg, const struct kube_object *o, enum kube_outcome out,
		   const char *diff)
{
	(void)arg;
	(void)o;
	(void)kube_outcome_str(out);
	(void)diff;
}

static int run(struct kube_client *kc, unsigned flow, struct err *e)
{
	switch (flow) {
	case 0:
	case 1: {
		struct kube_apply_opts ao = { .check = flow == 1, .report = report };

		return kube_apply(kc, &objs, &ao, e);
	}
	case 2:
		return kube_node_drain(kc, "dgx01.ocp4.scale.ibm.com", 0, false, NULL, NULL, e);
	default: {
		bool want[VSTAGE__COUNT] = { [VSTAGE_NCCL] = true };
		size_t idx[2] = { 0, 1 };
		struct validate_opts vo = { .cfg = &vcfg, .hosts = idx,
					    .nhosts = inv->nhosts < 2 ? inv->nhosts : 2, .pairs = -1 };
		json_t *rep = json_pack("{s:[]}", "stages");
		char *text;
		int rc = validate_kube(kc, inv, &vo, want, rep, e);

		text = json_dumps(rep, JSON_COMPACT);
		free(text);
		json_decref(rep);
		return rc;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct answers a;
	struct kube_transport t = { answer, &a };
	struct kube_client *kc;
	struct err e = ERR_INIT;

	if (!size)
		return 0;
	setup();
	a = (struct answers){ (const char *)data + 1, (const char *)data + size, 0 };
	kc = kube_client_new_transport("https://api.fuzz:6443", &t);
	kube_client_set_timeout(kc, 1);
	if (run(kc, data[0] % 4, &e) && !err_msg(&e)[0])
		__builtin_trap();
	err_clear(&e);
	kube_client_free(kc);
	return 0;
}
