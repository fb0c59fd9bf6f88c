/*
 * memlock: unlimited locked memory for RDMA, so that memory registration
 * does not fail ("Couldn't allocate MR", Redpaper). Two places:
 * - cri-o's containers: a systemd drop-in LimitMEMLOCK for crio.service,
 *   then daemon-reload and a restart of a running crio;
 * - bare-metal MPI and perftest: /etc/security/limits.d for PAM logins.
 * Verify reads the effective values: `systemctl show crio` for the running
 * daemon, and the limits files as pam_limits applies them.
 */
#include "../engine/deploy/module.h"

#include <stdlib.h>
#include <string.h>

#define DROPIN "/etc/systemd/system/crio.service.d/99-bringup-memlock.conf"
#define LIMITS "/etc/security/limits.d/99-bringup-memlock.conf"
/* A user no limits line names: sees only the `*` entries. */
#define ANY_USER "bringup-any-user"

static const char *valid_limit(const char *v)
{
	if (!strcmp(v, "unlimited") || (*v && strspn(v, "0123456789") == strlen(v)))
		return NULL;
	return "'unlimited' or a size in KiB";
}

static const struct param_spec params[] = {
	{ "crio", PARAM_BOOL, "true", "memlock_crio",
	  "write the cri-o drop-in (and restart a running crio)", NULL },
	{ "limit", PARAM_STRING, "unlimited", "memlock_limit",
	  "locked memory: unlimited, or KiB", valid_limit },
	{ "limits_d", PARAM_BOOL, "true", "memlock_limits_d",
	  "write /etc/security/limits.d for PAM logins", NULL },
	{ NULL },
};

/* What systemd is given, and what `systemctl show` prints back for it. */
static void set_values(struct mod_ctx *mc)
{
	const char *limit = mod_param_str(mc, "limit");
	struct strbuf sb = STRBUF_INIT;

	if (!strcmp(limit, "unlimited")) {
		mod_set(mc, "systemd_limit", "infinity");
		mod_set(mc, "shown_limit", "infinity");
	} else {
		strbuf_addf(&sb, "%sK", limit);
		mod_set(mc, "systemd_limit", sb.buf);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%llu", strtoull(limit, NULL, 10) * 1024ULL);
		mod_set(mc, "shown_limit", sb.buf);
	}
	strbuf_release(&sb);
}

static bool shown_matches(const struct mod_ctx *mc, const char *shown)
{
	const char *want = mod_get(mc, "shown_limit");

	/* systemd before v236 prints infinity as the largest 64-bit value. */
	return !strcmp(shown, want) ||
	       (!strcmp(want, "infinity") && !strcmp(shown, "18446744073709551615"));
}

/*
 * crio's state: *ret_active, and its limit into `limit` ("" when unknown);
 * the files this module writes come back in the same round trip.
 */
static int crio_state(struct mod_ctx *mc, bool *ret_active, struct strbuf *limit)
{
	static const char *const files[] = { LIMITS, DROPIN, NULL };
	struct cmd_result res;
	int rc = mod_probe(mc, "memlock/crio-state.sh", NULL, files, &res);
	const char *l;

	if (!rc) {
		*ret_active = strstr(res.out.buf, "active=active\n") != NULL;
		l = strstr(res.out.buf, "limit=");
		if (l) {
			strbuf_add(limit, l + 6, strcspn(l + 6, "\n"));
		}
	}
	cmd_result_release(&res);
	return rc;
}

static int memlock_check(struct mod_ctx *mc)
{
	struct strbuf limit = STRBUF_INIT;
	bool changed = false, active = false;
	int rc = 0;

	set_values(mc);
	if ((rc = crio_state(mc, &active, &limit)))
		goto out;
	if (mod_param_bool(mc, "limits_d") &&
	    (rc = mod_put_template(mc, "memlock/limits-memlock.conf", LIMITS, 0644, NULL)))
		goto out;
	if (!mod_param_bool(mc, "crio"))
		goto out;
	if ((rc = mod_put_template(mc, "memlock/crio-memlock.conf", DROPIN, 0644, &changed)))
		goto out;
	/* A drop-in already in place but not in effect: a run cut before the restart. */
	if (!changed && active && limit.len && !shown_matches(mc, limit.buf))
		mod_change(mc, NULL, "restart crio (running with LimitMEMLOCK=%s)", limit.buf);
	mod_set(mc, "restart_crio", active && (changed || (limit.len && !shown_matches(mc, limit.buf)))
		? "yes" : "no");
out:
	strbuf_release(&limit);
	return rc;
}

static int memlock_apply(struct mod_ctx *mc)
{
	static const char *const reload[] = { "systemctl", "daemon-reload", NULL };
	static const char *const restart[] = { "systemctl", "restart", "crio", NULL };
	bool changed = false;
	struct cmd_result res;
	int rc = 0;

	if (mod_param_bool(mc, "limits_d") &&
	    (rc = mod_put_template(mc, "memlock/limits-memlock.conf", LIMITS, 0644, NULL)))
		return rc;
	if (!mod_param_bool(mc, "crio"))
		return 0;
	if ((rc = mod_put_template(mc, "memlock/crio-memlock.conf", DROPIN, 0644, &changed)))
		return rc;
	if (changed || !strcmp(mod_get(mc, "restart_crio"), "yes")) {
		rc = mod_exec_ok(mc, reload, NULL, &res);
		cmd_result_release(&res);
	}
	if (!rc && !strcmp(mod_get(mc, "restart_crio"), "yes")) {
		mod_note(mc, "restarting crio for LimitMEMLOCK");
		rc = mod_exec_ok(mc, restart, NULL, &res);
		cmd_result_release(&res);
	}
	return rc;
}

static int verify_pam(struct mod_ctx *mc)
{
	static const char *const users[] = { "root", ANY_USER, NULL };
	const char *want = mod_param_str(mc, "limit");
	struct cmd_result res;
	int rc = mod_script(mc, "memlock/pam-memlock.sh", users, &res);

	for (size_t i = 0; !rc && users[i]; i++) {
		struct strbuf line = STRBUF_INIT;

		strbuf_addf(&line, "%s %s %s\n", users[i], want, want);
		if (!strstr(res.out.buf, line.buf))
			rc = mod_fail(mc, ERR_STATE, "PAM logins of %s would not get memlock %s "
				      "(soft hard from the limits files: %s)",
				      strcmp(users[i], ANY_USER) ? users[i] : "users", want,
				      res.out.len ? res.out.buf : "nothing");
		strbuf_release(&line);
	}
	cmd_result_release(&res);
	return rc;
}

static int memlock_verify(struct mod_ctx *mc)
{
	struct strbuf limit = STRBUF_INIT;
	bool active = false;
	int rc = memlock_check(mc);

	if (rc || mod_nchanges(mc))
		goto out;
	if (mod_param_bool(mc, "limits_d") && (rc = verify_pam(mc)))
		goto out;
	if (!mod_param_bool(mc, "crio") || (rc = crio_state(mc, &active, &limit)))
		goto out;
	if (!active)
		mod_note(mc, "crio is not running: the drop-in applies when it starts");
	else if (!limit.len)
		mod_note(mc, "systemctl cannot show crio's LimitMEMLOCK; the drop-in is in place");
	else if (!shown_matches(mc, limit.buf))
		rc = mod_fail(mc, ERR_STATE, "crio runs with LimitMEMLOCK=%s, expected %s",
			      limit.buf, mod_get(mc, "shown_limit"));
out:
	strbuf_release(&limit);
	return rc;
}

const struct stage_module mod_memlock = {
	.name = "memlock",
	.summary = "unlimited locked memory for RDMA: cri-o drop-in and limits.d",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = memlock_check,
	.apply = memlock_apply,
	.verify = memlock_verify,
};
