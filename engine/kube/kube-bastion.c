/* The bastion apply path: one `oc apply --server-side` over SSH. See kube-bastion.h. */
#include "kube-bastion.h"

#include <string.h>

#include "../ssh/runner.h"

struct bastion_job {
	struct remote_cmd cmd;
	struct cmd_result res;
};

static int bastion_task(struct task_ctx *t, void *arg)
{
	struct bastion_job *job = arg;

	return task_exec(t, 0, &job->cmd, &job->res, task_err(t));
}

int kube_apply_bastion(const struct inventory *inv, const struct kube_objects *objs,
		       bool check, struct strbuf *out, struct err *err)
{
	const struct group *g = &inv->groups[ROLE_BASTION];
	const struct host *h = g->hosts.n ? inventory_host(inv, g->hosts.v[0]) : NULL;
	struct runner_opts ro = { .forks = 1 };
	struct strbuf docs = STRBUF_INIT;
	struct bastion_job job = { 0 };
	struct task task = { 0 };
	struct runner *r = NULL;
	size_t idx;
	int rc;

	if (!h)
		return err_set(err, ERR_INVENTORY, "%s: --via bastion needs a host in group "
			       "'bastion' (with `oc` and a kubeconfig of its own)", inv->path);
	idx = (size_t)(h - inv->hosts);
	for (size_t i = 0; i < objs->n; i++) {
		if (objs->v[i].workload)
			continue;
		strbuf_addstr(&docs, "---\n");
		strbuf_addstr(&docs, objs->v[i].yaml);
	}
	job.cmd.command = check ?
		"oc apply --server-side --field-manager=bringup --dry-run=server -f -" :
		"oc apply --server-side --field-manager=bringup -f -";
	job.cmd.input = docs.buf;
	job.cmd.input_len = docs.len;
	cmd_result_init(&job.res);
	task = (struct task){ .hosts = &idx, .nhosts = 1, .fn = bastion_task, .arg = &job };
	if ((rc = runner_new(inv, &ro, &r, err)))
		goto out;
	runner_run(r, &task, 1, NULL, NULL);
	if (task.rc) {
		rc = err_set(err, task.rc, "bastion %s: %s", h->name, err_msg(&task.err));
		goto out;
	}
	strbuf_add(out, job.res.out.buf, job.res.out.len);
	if (job.res.exit_status != 0) {
		strbuf_rtrim(&job.res.err);
		rc = err_set(err, ERR_REMOTE, "bastion %s: `%s` exited %d: %s", h->name,
			     job.cmd.command, job.res.exit_status,
			     job.res.err.len ? job.res.err.buf : "(no message)");
	}
out:
	runner_free(r);
	task_release(&task);
	cmd_result_release(&job.res);
	strbuf_release(&docs);
	return rc;
}
