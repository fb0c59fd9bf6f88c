/*
 * subnet_manager: one master InfiniBand subnet manager for the fabric
 * (Redpaper, after OFED and peer memory). Backend opensm: on the hosts of
 * the stage, /etc/opensm/opensm.conf binds opensm to the host's first
 * InfiniBand port GUID (from ibstat) with a priority (the master's, or the
 * standbys' lower one), and the service is enabled and started. With
 * run_sm false the module only looks: a stage over every node proves each
 * of them sees one master SM with the expected priority and has every
 * InfiniBand port ACTIVE. Either way a fabric that does not fit (no master,
 * another master, ports not ACTIVE) fails check with the GUIDs named, so a
 * converged run still catches a rogue SM.
 */
#include "module.h"
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/parse.h"

#define CONF "/etc/opensm/opensm.conf"

static const char *valid_backend(const char *v)
{
	return strcmp(v, "opensm") ? "opensm (the switch backend is not implemented yet)" : NULL;
}

static const char *valid_priority(const char *v)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	return *v && !*end && n <= 15 ? NULL : "an SM priority from 0 to 15";
}

static const struct param_spec params[] = {
	{ "backend", PARAM_STRING, "opensm", "sm_backend",
	  "where the SM runs: opensm on the stage's hosts", valid_backend },
	{ "master", PARAM_STRING, "", "sm_master",
	  "the host whose SM is master (empty: every SM host gets 'priority')", NULL },
	{ "priority", PARAM_STRING, "14", "sm_priority",
	  "the master's SM priority (0-15)", valid_priority },
	{ "run_sm", PARAM_BOOL, "true", NULL,
	  "run opensm here (false: only verify the fabric from this host)", NULL },
	{ "settle_timeout", PARAM_UINT, "60", "sm_settle_timeout",
	  "seconds to wait for a master and ACTIVE ports after starting opensm", NULL },
	{ "standby_priority", PARAM_STRING, "13", "sm_standby_priority",
	  "the standby SMs' priority, lower than the master's", valid_priority },
	{ NULL },
};

static bool is_master(const struct mod_ctx *mc)
{
	const char *m = mod_param_str(mc, "master");

	return !*m || !strcmp(m, mod_host(mc));
}

static unsigned long long guid_of(const char *s)
{
	return strtoull(s, NULL, 16);
}

/* Ports of this host not ACTIVE, into `down` ("mlx5_1/1 Down, ..."). */
static void ports_not_active(const char *out, struct strbuf *down)
{
	for (const char *p = strstr(out, "port="); p; p = strstr(p + 1, "\nport=")) {
		const char *v = strchr(p, '=') + 1;
		size_t len = strcspn(v, "\n");
		const char *sp = memchr(v, ' ', len);

		if (sp && (size_t)(v + len - sp - 1) == 6 && !strncmp(sp + 1, "Active", 6))
			continue;
		if (down->len)
			strbuf_addstr(down, ", ");
		strbuf_add(down, v, len);
	}
}

/*
 * The master SM this host's port follows must be the one this stage runs:
 * what differs goes to `why`.
 */
static void check_master(struct mod_ctx *mc, const char *out, json_t *sm, struct strbuf *why)
{
	const char *guid = json_string_value(json_object_get(sm, "sm_guid"));
	long long prio = json_integer_value(json_object_get(sm, "priority"));
	long long state = json_integer_value(json_object_get(sm, "state"));
	long long want = strtoll(mod_param_str(mc, "priority"), NULL, 10);
	struct strbuf own = STRBUF_INIT;

	probe_value(out, "guid", &own);
	if (state != 3)
		strbuf_addf(why, "the SM at %s answers as %s, not as master", guid,
			    json_string_value(json_object_get(sm, "state_name")));
	else if (mod_param_bool(mc, "run_sm") && is_master(mc) && guid_of(guid) != guid_of(own.buf))
		strbuf_addf(why, "two master SMs: this host's opensm (port GUID %s, priority %lld) "
			    "is not the master; sminfo names %s (priority %lld) as master",
			    own.buf, want, guid, prio);
	else if (prio != want)
		strbuf_addf(why, "the master SM is %s with priority %lld, expected %lld: another "
			    "SM has taken over the fabric (two masters, or a rogue SM)",
			    guid, prio, want);
	strbuf_release(&own);
}

/*
 * What every node must see: one master with our priority, every IB port
 * ACTIVE. What is wrong goes to `why` (empty: all fine).
 */
static void check_fabric(struct mod_ctx *mc, const char *out, struct strbuf *why)
{
	struct strbuf line = STRBUF_INIT, down = STRBUF_INIT;
	struct err perr = ERR_INIT;
	json_t *sm = NULL;

	probe_value(out, "sminfo", &line);
	if (parse_sminfo(line.buf, line.len, &sm, &perr))
		strbuf_addf(why, "sminfo: %s", err_msg(&perr));
	else if (!json_is_true(json_object_get(sm, "ok")))
		strbuf_addf(why, "no master SM answers on this host's port (sminfo: %s)",
			    json_string_value(json_object_get(sm, "error")));
	else
		check_master(mc, out, sm, why);
	ports_not_active(out, &down);
	if (!why->len && down.len)
		strbuf_addf(why, "InfiniBand ports not ACTIVE after the SM sweep: %s", down.buf);
	json_decref(sm);
	err_clear(&perr);
	strbuf_release(&line);
	strbuf_release(&down);
}

/* opensm's configuration and service; records what differs. */
static int check_opensm(struct mod_ctx *mc, const char *out)
{
	struct strbuf guid = STRBUF_INIT;
	bool changed = false;
	int rc = 0;

	probe_value(out, "guid", &guid);
	if (strtoul(mod_param_str(mc, "standby_priority"), NULL, 10) >=
	    strtoul(mod_param_str(mc, "priority"), NULL, 10)) {
		rc = mod_fail(mc, ERR_STATE, "standby_priority %s is not below the master's "
			      "priority %s: standbys could win the election",
			      mod_param_str(mc, "standby_priority"), mod_param_str(mc, "priority"));
		goto out;
	}
	if (!probe_is(out, "opensm", "yes") || !guid.len) {
		const char *why = !guid.len && probe_is(out, "opensm", "yes") ?
			"no InfiniBand port for opensm to bind to (ibstat)" :
			"opensm is not installed: install MLNX_OFED first (stage ofed)";

		/* --check: the ofed stage of the same run may bring both. */
		if (!mod_checking(mc)) {
			rc = mod_fail(mc, ERR_STATE, "%s", why);
			goto out;
		}
		mod_note(mc, "%s", why);
		mod_change(mc, NULL, "configure, enable and start opensm as %s",
			   is_master(mc) ? "master" : "standby");
		goto out;
	}
	mod_set(mc, "guid", guid.buf);
	mod_set(mc, "role", is_master(mc) ? "master" : "standby");
	mod_set(mc, "sm_priority", mod_param_str(mc, is_master(mc) ? "priority" : "standby_priority"));
	if ((rc = mod_put_template(mc, "subnet_manager/opensm.conf", CONF, 0644, &changed)))
		goto out;
	mod_set(mc, "enable", probe_is(out, "enabled", "enabled") ? "no" : "yes");
	if (!probe_is(out, "enabled", "enabled"))
		mod_change(mc, NULL, "enable opensm");
	mod_set(mc, "start", "no");
	if (!probe_is(out, "active", "active")) {
		mod_change(mc, NULL, "start opensm");
		mod_set(mc, "start", "yes");
	} else if (changed) {
		mod_change(mc, NULL, "restart opensm for the new configuration");
		mod_set(mc, "start", "yes");
	}
out:
	strbuf_release(&guid);
	return rc;
}

static int sm_check(struct mod_ctx *mc)
{
	static const char *const files[] = { CONF, NULL };
	struct strbuf why = STRBUF_INIT;
	struct cmd_result res;
	int rc = mod_probe(mc, "subnet_manager/state.sh", NULL, files, &res);

	if (!rc && mod_param_bool(mc, "run_sm"))
		rc = check_opensm(mc, res.out.buf);
	/*
	 * The fabric is judged once nothing is left to change here; --check
	 * only reports it (an earlier stage of the same run may start the SM).
	 */
	if (!rc && !mod_nchanges(mc))
		check_fabric(mc, res.out.buf, &why);
	if (why.len && mod_checking(mc))
		mod_note(mc, "fabric: %s", why.buf);
	else if (why.len)
		rc = mod_fail(mc, ERR_STATE, "%s", why.buf);
	strbuf_release(&why);
	cmd_result_release(&res);
	return rc;
}

static int sm_apply(struct mod_ctx *mc)
{
	static const char *const enable[] = { "systemctl", "enable", "opensm", NULL };
	static const char *const restart[] = { "systemctl", "restart", "opensm", NULL };
	struct cmd_result res;
	int rc = mod_put_template(mc, "subnet_manager/opensm.conf", CONF, 0644, NULL);

	if (!rc && !strcmp(mod_get(mc, "enable"), "yes")) {
		rc = mod_exec_ok(mc, enable, NULL, &res);
		cmd_result_release(&res);
	}
	if (!rc && !strcmp(mod_get(mc, "start"), "yes")) {
		mod_note(mc, "starting opensm as %s, priority %s", mod_get(mc, "role"),
			 mod_get(mc, "sm_priority"));
		rc = mod_exec_ok(mc, restart, NULL, &res);
		cmd_result_release(&res);
	}
	return rc;
}

/* Lets the SM sweep the fabric, then checks again (fabric included). */
static int sm_verify(struct mod_ctx *mc)
{
	char secs[16];
	const char *args[] = { secs, NULL };
	struct cmd_result res;
	int rc;

	snprintf(secs, sizeof(secs), "%u", mod_param_uint(mc, "settle_timeout"));
	rc = mod_script(mc, "subnet_manager/wait-sm.sh", args, &res);
	cmd_result_release(&res);
	return rc ? rc : sm_check(mc);
}

const struct stage_module mod_subnet_manager = {
	.name = "subnet_manager",
	.summary = "one master InfiniBand SM: opensm with priorities, verified with sminfo",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = sm_check,
	.apply = sm_apply,
	.verify = sm_verify,
};
