/*
 * ssh-peer: what templates/precheck/ssh-peer.sh prints after trying, from
 * one node, a BatchMode login to each peer (mpirun's plm_rsh_agent path):
 * "NAME ok" or "NAME fail RC LAST-LINE-OF-SSH's-STDERR", one line a peer.
 * {"ok", "peers": [{"host", "ok", "rc", "error"}]}. Any other line is an
 * error naming it.
 */
#include "parse.h"
#include "parse-util.h"

#include <stdio.h>
#include <string.h>

static int peer_line(void *state, struct pline *ln, struct err *err)
{
	json_t *root = state, *p;
	char host[256], verdict[8];
	int used = 0, rc;

	if (!*ln->text)
		return 0;
	if (sscanf(ln->text, "%255s %7s%n", host, verdict, &used) != 2)
		return pline_error(ln, err, "expected 'HOST ok' or 'HOST fail RC MESSAGE'");
	if (!strcmp(verdict, "ok") && !ln->text[used]) {
		p = jarray_new_object(json_object_get(root, "peers"));
		jset_str(p, "host", host);
		jset_bool(p, "ok", 1);
		return 0;
	}
	if (strcmp(verdict, "fail") || ln->text[used] != ' ')
		return pline_error(ln, err, "expected 'HOST ok' or 'HOST fail RC MESSAGE'");
	{
		const char *s = ln->text + used + 1;
		int n = 0;

		if (sscanf(s, "%d%n", &rc, &n) != 1)
			return pline_error(ln, err, "expected an exit status after 'fail'");
		s += n;
		s += strspn(s, " ");
		p = jarray_new_object(json_object_get(root, "peers"));
		jset_str(p, "host", host);
		jset_bool(p, "ok", 0);
		jset_int(p, "rc", rc);
		jset_str(p, "error", *s ? s : "(no message)");
	}
	return 0;
}

int parse_ssh_peer(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc;

	jarray_at(root, "peers");
	rc = parse_lines("ssh-peer", buf, len, peer_line, root, err);
	if (!rc)
		jset_bool(root, "ok", 1);
	return parse_done(rc, root, ret);
}
