/*
 * The Spectrum Scale quorum guard; see scale-quorum.h.
 */
#include "scale-quorum.h"

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
