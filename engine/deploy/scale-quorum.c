/*
 * The Spectrum Scale quorum guard; see scale-quorum.h.
 */
#include "scale-quorum.h"
#include "../base/nodeset.h"
#include "../base/strlist.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* GPFS names may carry a domain: dgx01 is dgx01.ocp4.scale.ibm.com. */
static bool same_node(const char *gpfs_name, const char *node)
{
	size_t n = strlen(node);

	return gpfs_name && !strncmp(gpfs_name, node, n) &&
	       (gpfs_name[n] == '\0' || gpfs_name[n] == '.');
}

static const char *str(const json_t *row, const char *key)
{
	const char *s = json_string_value(json_object_get(row, key));

	return s ? s : "";
}

/* dgx01 and dgx01.ocp4.scale.ibm.com are one node: compare up to the first dot. */
static bool same_short(const char *a, const char *b)
{
	size_t na = strcspn(a, "."), nb = strcspn(b, ".");

	return na == nb && !strncmp(a, b, na);
}

unsigned scale_quorum_need(unsigned total, bool tiebreaker)
{
	if (!total)
		return 0;
	return tiebreaker && total <= SCALE_TIEBREAKER_MAX_QUORUM ? 1 : total / 2 + 1;
}

unsigned scale_quorum_keep(unsigned total, bool tiebreaker)
{
	unsigned need = scale_quorum_need(total, tiebreaker);

	return need + (total >= need + 2 ? 1 : 0);
}

bool scale_quorum_tiebreaker(const char *out, size_t len)
{
	static const char key[] = "tiebreakerDisks";
	const char *p = out, *end = out + len;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (ll > sizeof(key) && !strncmp(p, key, sizeof(key) - 1) &&
		    (p[sizeof(key) - 1] == ' ' || p[sizeof(key) - 1] == '\t')) {
			const char *v = p + sizeof(key);
			size_t vl = ll - sizeof(key);

			while (vl && (*v == ' ' || *v == '\t'))
				v++, vl--;
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
				vl--;
			return vl && !(vl == 2 && !strncmp(v, "no", 2)) &&
			       !(vl == 11 && !strncmp(v, "(undefined)", 11)) &&
			       !(vl == 7 && !strncmp(v, "DEFAULT", 7));
		}
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The state mmgetstate -a gives `name`, or "unknown" when it has no row. */
static const char *state_of(const json_t *states, const char *name)
{
	size_t i;
	json_t *row;

	json_array_foreach(json_object_get(states, "nodes"), i, row)
		if (same_short(str(row, "name"), name))
			return *str(row, "state") ? str(row, "state") : "unknown";
	return "unknown";
}

static bool in_set(const char *const *set, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (same_short(set[i], name))
			return true;
	return false;
}

static char *fold(struct strlist *l)
{
	return l->n ? nodeset_fold(l->v, l->n) : xstrdup("none");
}

bool scale_quorum_set_may_stop(const json_t *states, const json_t *cluster, bool tiebreaker,
			       const char *const *set, size_t n, struct strbuf *why)
{
	struct strlist q_active = STRLIST_INIT, q_stop = STRLIST_INIT, q_down = STRLIST_INIT;
	struct strlist spare_nodes = STRLIST_INIT;
	struct strbuf down = STRBUF_INIT;
	unsigned total = 0, need, keep, after;
	bool tb, ok;
	size_t i;
	json_t *row;

	json_array_foreach(json_object_get(cluster, "nodes"), i, row) {
		const char *name = str(row, "daemon_node_name"), *st = state_of(states, name);
		char *shortname = xstrndup(name, strcspn(name, "."));
		bool active = !strcmp(st, "active");

		if (strncmp(str(row, "designation"), "quorum", 6)) {
			/* an active non-quorum node outside the set could become one */
			if (active && !in_set(set, n, name))
				strlist_push(&spare_nodes, shortname);
			free(shortname);
			continue;
		}
		total++;
		if (!active) {
			strbuf_addf(&down, "%s%s (%s)", down.len ? ", " : "", shortname, st);
			strlist_push(&q_down, shortname);
		} else if (in_set(set, n, name)) {
			strlist_push(&q_stop, shortname);
		} else {
			strlist_push(&q_active, shortname);
		}
		free(shortname);
	}
	tb = tiebreaker && total <= SCALE_TIEBREAKER_MAX_QUORUM;
	need = scale_quorum_need(total, tb);
	keep = scale_quorum_keep(total, tb);
	after = (unsigned)q_active.n;
	ok = total && (!q_stop.n || after >= keep);
	if (!ok) {
		char *stop = fold(&q_stop), *act = fold(&q_active), *dn = fold(&q_down);
		char *setnames = NULL;
		struct strlist sl = STRLIST_INIT;

		for (i = 0; i < n; i++)
			strlist_push_owned(&sl, xstrndup(set[i], strcspn(set[i], ".")));
		setnames = fold(&sl);
		strlist_clear(&sl);
		if (!total)
			strbuf_addf(why, "refusing to stop GPFS on %s: mmlscluster lists no quorum "
				    "node, so quorum cannot be judged", setnames);
		else {
			strbuf_addf(why, "refusing to stop GPFS on %s: %u of %u quorum nodes are "
				    "active and stopping %s (quorum node%s) would leave %u (%s), "
				    "below the %u bringup keeps (GPFS needs %u%s%s); not active: %s; ",
				    setnames, (unsigned)(q_active.n + q_stop.n), total, stop,
				    q_stop.n > 1 ? "s" : "", after, act, keep, need,
				    tb ? " with tiebreaker disks" : ", a majority",
				    keep > need ? ", plus one spare so that a quorum node lost "
				    "while these are down does not stop the file system" : "",
				    down.len ? down.buf : "none");
			if (q_down.n)
				strbuf_addf(why, "start GPFS on %s first (mmstartup -N %s), then "
					    "run again", dn, dn);
			else if (spare_nodes.n) {
				struct strlist two = STRLIST_INIT;
				char *cand;

				for (i = 0; i < spare_nodes.n && i < 2; i++)
					strlist_push(&two, spare_nodes.v[i]);
				cand = fold(&two);
				strbuf_addf(why, "designate more quorum nodes first (for example "
					    "mmchnode --quorum -N %s; a quorum node needs a server "
					    "licence: mmchlicense server --accept -N %s)%s, or stop "
					    "%s in a maintenance window with the file system unmounted "
					    "everywhere", cand, cand, tb ? "" : " or configure "
					    "tiebreaker disks (mmchconfig tiebreakerDisks=NSD[;NSD...])",
					    stop);
				free(cand);
				strlist_clear(&two);
			} else
				strbuf_addf(why, "no active node outside the set can become a "
					    "quorum node; stop %s in a maintenance window with the "
					    "file system unmounted everywhere", stop);
		}
		free(stop);
		free(act);
		free(dn);
		free(setnames);
	}
	strlist_clear(&q_active);
	strlist_clear(&q_stop);
	strlist_clear(&q_down);
	strlist_clear(&spare_nodes);
	strbuf_release(&down);
	return ok;
}

bool scale_quorum_may_stop(const json_t *quorum, const char *node, struct strbuf *why)
{
	const json_t *rows = json_object_get(quorum, "nodes");
	size_t total = json_array_size(rows), active = 0, after, majority = total / 2 + 1;
	struct strbuf down = STRBUF_INIT, names = STRBUF_INIT;
	bool node_counts = false, ok;
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row) {
		if (!strcmp(str(row, "state"), "active")) {
			active++;
			node_counts |= same_node(str(row, "name"), node);
			continue;
		}
		strbuf_addf(&down, "%s%s (%s)", down.len ? ", " : "", str(row, "name"),
			    str(row, "state"));
		strbuf_addf(&names, "%s%s", names.len ? "," : "", str(row, "name"));
	}
	after = active - (node_counts ? 1 : 0);
	ok = total && after >= majority;
	if (!ok && !total)
		strbuf_addf(why, "refusing to stop GPFS on %s: mmgetstate -N quorumnodes lists no "
			    "quorum node, so quorum cannot be judged", node);
	else if (!ok)
		strbuf_addf(why, "refusing to stop GPFS on %s: %zu of %zu quorum nodes are active "
			    "and stopping it would leave %zu, below the majority of %zu that keeps "
			    "the file system up; not active: %s; start GPFS on %zu of them first "
			    "(mmstartup -N %s), then run again", node, active, total, after,
			    majority, down.len ? down.buf : "none", majority - after,
			    names.len ? names.buf : node);
	strbuf_release(&down);
	strbuf_release(&names);
	return ok;
}

bool scale_quorum_all_active(const json_t *quorum)
{
	const json_t *rows = json_object_get(quorum, "nodes");
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
		if (strcmp(str(row, "state"), "active"))
			return false;
	return json_array_size(rows) > 0;
}
