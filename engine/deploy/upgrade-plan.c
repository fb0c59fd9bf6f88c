/*
 * The rolling upgrade's batch planner; see upgrade-plan.h.
 */
#include "upgrade-plan.h"
#include "scale-quorum.h"
#include "../inventory/inventory.h"
#include "../base/nodeset.h"
#include "../base/strbuf.h"
#include "../base/strlist.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

const char *upg_limit_name(enum upg_limit l)
{
	static const char *const names[] = { [UPG_LIM_ADMIN] = "admin",
		[UPG_LIM_QUORUM] = "quorum", [UPG_LIM_SM] = "sm", [UPG_LIM_MASTER] = "master",
		[UPG_LIM_CONTACT] = "contact" };

	return l < UPG_LIM__COUNT ? names[l] : "?";
}

unsigned upg_limit_roles(enum upg_limit l)
{
	switch (l) {
	case UPG_LIM_QUORUM: return 1u << ROLE_SCALE_QUORUM;
	case UPG_LIM_SM: return 1u << ROLE_SM_HOST;
	case UPG_LIM_MASTER: return 1u << ROLE_OCP_MASTER;
	case UPG_LIM_CONTACT: return (1u << ROLE_SCALE_MANAGER) | (1u << ROLE_NSD_SERVER);
	default: return 0;
	}
}

void upg_plan_release(struct upg_plan *p)
{
	for (size_t i = 0; i < p->nbatches; i++)
		free(p->batches[i].nodes);
	free(p->batches);
	for (int l = 0; l < UPG_LIM__COUNT; l++)
		free(p->why[l]);
	free(p->left);
	free(p->left_why);
	memset(p, 0, sizeof(*p));
}

/* "dgx01 (arbitrating), dgx02 (down)": the nodes of class `roles` already down. */
static char *down_states(const struct upg_node *nodes, size_t n, unsigned roles)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		if ((nodes[i].roles & roles) && nodes[i].down && !nodes[i].skip)
			strbuf_addf(&sb, "%s%s (%s)", sb.len ? ", " : "", nodes[i].name,
				    nodes[i].state ? nodes[i].state : "down");
	if (!sb.len)
		strbuf_addstr(&sb, "none");
	return strbuf_detach(&sb, NULL);
}

/* The folded names of the nodes of class `roles` that are (not) down. */
static char *class_names(const struct upg_node *nodes, size_t n, unsigned roles, bool down)
{
	struct strlist names = STRLIST_INIT;
	char *set;

	for (size_t i = 0; i < n; i++)
		if ((nodes[i].roles & roles) && nodes[i].down == down && !nodes[i].skip)
			strlist_push(&names, nodes[i].name);
	set = names.n ? nodeset_fold(names.v, names.n) : xstrdup("none");
	strlist_clear(&names);
	return set;
}

static void count_class(const struct upg_node *nodes, size_t n, unsigned roles,
			unsigned *ret_all, unsigned *ret_up)
{
	*ret_all = *ret_up = 0;
	for (size_t i = 0; i < n; i++)
		if ((nodes[i].roles & roles) && !nodes[i].skip) {
			(*ret_all)++;
			*ret_up += !nodes[i].down;
		}
}

/* Up to two active nodes that are not quorum nodes: who could become one. */
static char *candidates(const struct upg_node *nodes, size_t n)
{
	struct strlist names = STRLIST_INIT;
	char *set;

	for (size_t i = 0; i < n && names.n < 2; i++)
		if (!(nodes[i].roles & upg_limit_roles(UPG_LIM_QUORUM)) && !nodes[i].down &&
		    !nodes[i].skip)
			strlist_push(&names, nodes[i].name);
	set = names.n ? nodeset_fold(names.v, names.n) : NULL;
	strlist_clear(&names);
	return set;
}

/*
 * Quorum: what the quorum invariant keeps (scale-quorum.h) stays active. A
 * cluster that has lost quorum already is refused; one whose active quorum
 * nodes cannot go at all gets a cap of 0 and left_why.
 */
static int quorum_cap(const struct upg_node *nodes, size_t n, bool tiebreaker,
		      struct upg_plan *p, struct err *err)
{
	unsigned roles = upg_limit_roles(UPG_LIM_QUORUM), all, up, need, keep;
	char *down, *active, *states, *cand;
	bool tb;
	int rc = 0;

	count_class(nodes, n, roles, &all, &up);
	p->members[UPG_LIM_QUORUM] = all;
	if (!all)
		return 0;
	tb = tiebreaker && all <= SCALE_TIEBREAKER_MAX_QUORUM;
	need = scale_quorum_need(all, tb);
	keep = scale_quorum_keep(all, tb);
	down = class_names(nodes, n, roles, true);
	active = class_names(nodes, n, roles, false);
	states = down_states(nodes, n, roles);
	if (up < need) {
		rc = err_set(err, ERR_STATE, "refusing the upgrade: Spectrum Scale has lost "
			     "quorum already: %u of %u quorum nodes are active (%s), %s is %u; "
			     "not active: %s; start GPFS on %u of them first (mmstartup "
			     "-N %s), then run again", up, all, active, tb ? "with tiebreaker "
			     "disks the need" : "a majority", need, states, need - up, down);
	} else if (up <= keep) {
		p->cap[UPG_LIM_QUORUM] = 0;
		p->why[UPG_LIM_QUORUM] = xasprintf("%u of %u quorum nodes active (%s), GPFS "
						   "needs %u%s, bringup keeps %u: none can go; "
						   "down already: %s", up, all, active, need,
						   tb ? " with tiebreaker disks" : "", keep, down);
		cand = candidates(nodes, n);
		if (strcmp(down, "none"))
			p->left_why = xasprintf("upgrading any of %s would leave %u active quorum "
						"node%s, below the %u bringup keeps (GPFS needs "
						"%u%s%s); not active: %s; start GPFS on %s first "
						"(mmstartup -N %s), then upgrade them with bringup "
						"upgrade --to again", active, up - 1,
						up - 1 == 1 ? "" : "s", keep, need,
						tb ? " with tiebreaker disks" : ", a majority",
						keep > need ? ", plus one spare" : "", states, down,
						down);
		else if (cand)
			p->left_why = xasprintf("upgrading any of %s would leave %u active quorum "
						"node%s, below the %u bringup keeps (GPFS needs "
						"%u%s%s); designate more quorum nodes (for example "
						"mmchnode --quorum -N %s, after mmchlicense server "
						"--accept -N %s)%s, then upgrade %s with bringup "
						"upgrade --to again; or upgrade %s in a maintenance "
						"window with the file system unmounted everywhere",
						active, up - 1, up - 1 == 1 ? "" : "s", keep, need,
						tb ? " with tiebreaker disks" : ", a majority",
						keep > need ? ", plus one spare" : "", cand, cand,
						tb ? "" : " or configure tiebreaker disks (mmchconfig "
						"tiebreakerDisks=NSD[;NSD...])", active, active);
		else
			p->left_why = xasprintf("upgrading any of %s would leave %u active quorum "
						"node%s, below the %u bringup keeps; upgrade %s in a "
						"maintenance window with the file system unmounted "
						"everywhere", active, up - 1, up - 1 == 1 ? "" : "s",
						keep, active);
		free(cand);
	} else {
		p->cap[UPG_LIM_QUORUM] = up - keep;
		p->why[UPG_LIM_QUORUM] = xasprintf("%u of %u quorum nodes active (%s), GPFS "
						   "needs %u%s, bringup keeps %u%s; down already: "
						   "%s", up, all, active, need,
						   tb ? " with tiebreaker disks" : "", keep,
						   keep > need ? " (one spare: a quorum node lost "
						   "mid-batch keeps quorum)" : "", down);
	}
	free(down);
	free(active);
	free(states);
	return rc;
}

/*
 * A class that keeps `keep` members up (and may always take one at a time,
 * so that an upgrade of a small class is possible at all).
 */
static void keep_cap(const struct upg_node *nodes, size_t n, struct upg_plan *p,
		     enum upg_limit l, const char *what, unsigned keep_min,
		     bool majority)
{
	unsigned roles = upg_limit_roles(l), all, up, keep;
	char *names;

	count_class(nodes, n, roles, &all, &up);
	p->members[l] = all;
	if (!all)
		return;
	keep = majority ? all / 2 + 1 : keep_min;
	p->cap[l] = up > keep ? up - keep : 1;
	names = class_names(nodes, n, roles, false);
	if (up > keep)
		p->why[l] = xasprintf("%u of %u %s up (%s); %u stay up", up, all, what, names, keep);
	else
		p->why[l] = xasprintf("%u of %u %s up (%s): too few to keep %u up, so one at a "
				      "time", up, all, what, names, keep);
	free(names);
}

static bool fits(const struct upg_plan *p, const struct upg_batch *b, const struct upg_node *nd)
{
	for (int l = 0; l < UPG_LIM__COUNT; l++) {
		unsigned roles = upg_limit_roles(l);
		bool counts = l == UPG_LIM_ADMIN || (nd->roles & roles);

		/* A node already down costs a quorum class nothing. */
		if (l == UPG_LIM_QUORUM && nd->down)
			counts = false;
		if (counts && p->cap[l] != UPG_NO_LIMIT && b->used[l] + 1 > p->cap[l])
			return false;
	}
	return true;
}

static void add(struct upg_batch *b, const struct upg_node *nd, size_t idx)
{
	b->nodes = xrealloc(b->nodes, (b->n + 1) * sizeof(*b->nodes));
	b->nodes[b->n++] = idx;
	b->used[UPG_LIM_ADMIN]++;
	for (int l = UPG_LIM_ADMIN + 1; l < UPG_LIM__COUNT; l++)
		if ((nd->roles & upg_limit_roles(l)) && !(l == UPG_LIM_QUORUM && nd->down))
			b->used[l]++;
}

int upg_plan_make(const struct upg_node *nodes, size_t n, unsigned batch, bool percent,
		  struct upg_plan *ret, struct err *err)
{
	return upg_plan_make_tb(nodes, n, batch, percent, false, ret, err);
}

int upg_plan_make_tb(const struct upg_node *nodes, size_t n, unsigned batch, bool percent,
		     bool tiebreaker, struct upg_plan *ret, struct err *err)
{
	struct upg_plan p = { 0 };
	int rc;

	if (!n)
		return err_set(err, ERR_USAGE, "no nodes to upgrade");
	for (int l = 0; l < UPG_LIM__COUNT; l++)
		p.cap[l] = UPG_NO_LIMIT;
	for (size_t i = 0; i < n; i++)
		p.members[UPG_LIM_ADMIN] += !nodes[i].skip;
	if (!p.members[UPG_LIM_ADMIN])
		return err_set(err, ERR_USAGE, "no nodes to upgrade");
	if (batch) {
		unsigned all = p.members[UPG_LIM_ADMIN];
		unsigned b = percent ? all * batch / 100 : batch;

		p.cap[UPG_LIM_ADMIN] = b ? b : 1;
		p.why[UPG_LIM_ADMIN] = percent ? xasprintf("--batch %u%% of %u nodes", batch, all) :
				       xasprintf("--batch %u", batch);
	}
	if ((rc = quorum_cap(nodes, n, tiebreaker, &p, err))) {
		upg_plan_release(&p);
		return rc;
	}
	keep_cap(nodes, n, &p, UPG_LIM_SM, "subnet manager hosts", 2, false);
	keep_cap(nodes, n, &p, UPG_LIM_MASTER, "control-plane nodes", 0, true);
	keep_cap(nodes, n, &p, UPG_LIM_CONTACT, "Scale manager/NSD (contact) nodes", 1, false);
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (nodes[i].skip)
			continue;
		/* a node not even an empty batch takes (an active quorum node
		 * when none can go) is left out, named in left_why */
		if (!fits(&p, &(struct upg_batch){ 0 }, &nodes[i])) {
			p.left = xrealloc(p.left, (p.nleft + 1) * sizeof(*p.left));
			p.left[p.nleft++] = i;
			continue;
		}
		for (k = 0; k < p.nbatches && !fits(&p, &p.batches[k], &nodes[i]); k++)
			;
		if (k == p.nbatches) {
			p.batches = xrealloc(p.batches, (p.nbatches + 1) * sizeof(*p.batches));
			memset(&p.batches[k], 0, sizeof(p.batches[k]));
			p.nbatches++;
		}
		add(&p.batches[k], &nodes[i], i);
	}
	*ret = p;
	return 0;
}
