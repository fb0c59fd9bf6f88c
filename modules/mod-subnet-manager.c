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
 *
 * Backend switch (the Redpaper's section 3.1): the SM runs on a managed
 * NVIDIA/Mellanox switch, configured over SSH through its MLNX-OS CLI
 * (enable, configure terminal, ib smnode NAME enable, ib smnode NAME
 * sm-priority N, ib sm virt enable, write memory) and read back from show
 * running-config, show configuration files and show ib smnode NAME. NAME
 * is the switch's SM node name: the smnode parameter, else the name its
 * prompt shows. The sm_fabric stage (run_sm false on every node) then
 * proves the switch's SM is the one master, as for opensm.
 */
#include "../engine/deploy/module.h"
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/facts/parse.h"

#define CONF "/etc/opensm/opensm.conf"

static const char *valid_backend(const char *v)
{
	return strcmp(v, "opensm") && strcmp(v, "switch") ? "opensm or switch" : NULL;
}

static const char *valid_priority(const char *v)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	return *v && !*end && n <= 15 ? NULL : "an SM priority from 0 to 15";
}

/*
 * smnode lands in CLI lines ("ib smnode NAME enable"): a newline, ESC or
 * blank there would send another command or edit the line. MLNX-OS names
 * are host names, as the prompt shows them.
 */
static const char *valid_smnode(const char *v)
{
	size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "0123456789-_.");

	return v[n] || *v == '-' || n > 64 ?
	       "a switch SM node name (letters, digits, '-', '_', '.'; no blanks or "
	       "control characters)" : NULL;
}

static const struct param_spec params[] = {
	{ "backend", PARAM_STRING, "opensm", "sm_backend",
	  "where the SM runs: opensm on the stage's hosts, or switch (a managed "
	  "switch's SM, over its CLI)", valid_backend },
	{ "master", PARAM_STRING, "", "sm_master",
	  "the host whose SM is master (empty: every SM host gets 'priority')", NULL },
	{ "priority", PARAM_STRING, "14", "sm_priority",
	  "the master's SM priority (0-15)", valid_priority },
	{ "run_sm", PARAM_BOOL, "true", NULL,
	  "run opensm here (false: only verify the fabric from this host)", NULL },
	{ "settle_timeout", PARAM_UINT, "60", "sm_settle_timeout",
	  "seconds to wait for a master and ACTIVE ports after starting opensm", NULL },
	{ "smnode", PARAM_STRING, "", "sm_smnode",
	  "backend switch: the switch's SM node name (empty: the name its CLI prompt shows)",
	  valid_smnode },
	{ "standby_priority", PARAM_STRING, "13", "sm_standby_priority",
	  "the standby SMs' priority, lower than the master's", valid_priority },
	{ "virt", PARAM_BOOL, "true", "sm_virt",
	  "backend switch: enable SM virtualization (ib sm virt enable)", NULL },
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

/* ---- backend switch ---- */

/* The backend applies to the stage that runs the SM; run_sm false only looks. */
static bool on_switch(const struct mod_ctx *mc)
{
	return mod_param_bool(mc, "run_sm") && !strcmp(mod_param_str(mc, "backend"), "switch");
}

/* What the switch's configuration says about its SM. */
struct sw_state {
	bool enabled, virt, unsaved;
	long priority;         /* -1: no sm-priority line (the switch's default) */
};

/* The value of "KEY   : value" in show output ("" when absent). */
static void show_field(const char *out, const char *key, struct strbuf *val)
{
	const char *p = strstr(out, key);
	const char *colon = p ? strchr(p, ':') : NULL;

	strbuf_reset(val);
	if (!colon)
		return;
	colon += 1 + strspn(colon + 1, " ");
	strbuf_add(val, colon, strcspn(colon, "\n"));
	strbuf_rtrim(val);
}

/* The ib lines of show running-config (indented in their section) for smnode `name`. */
static void parse_running_config(const char *cfg, const char *name, struct sw_state *st)
{
	struct strbuf enable = STRBUF_INIT, prio = STRBUF_INIT;

	st->enabled = st->virt = false;
	st->priority = -1;
	strbuf_addf(&enable, "ib smnode %s enable", name);
	strbuf_addf(&prio, "ib smnode %s sm-priority ", name);
	for (const char *p = cfg; *p;) {
		size_t len = strcspn(p, "\n"), blanks = strspn(p, " \t");
		const char *l = p + (blanks < len ? blanks : len);
		size_t n = len - (size_t)(l - p);

		if (n == enable.len && !memcmp(l, enable.buf, n))
			st->enabled = true;
		else if (n == 17 && !memcmp(l, "ib sm virt enable", 17))
			st->virt = true;
		else if (n > prio.len && !memcmp(l, prio.buf, prio.len))
			st->priority = strtol(l + prio.len, NULL, 10);
		p += len + (p[len] == '\n');
	}
	strbuf_release(&enable);
	strbuf_release(&prio);
}

/* Logs in, enters enable mode and reads the SM's configuration. */
static int sw_read(struct mod_ctx *mc, struct mod_cli **ret_cli, struct sw_state *st)
{
	struct strbuf out = STRBUF_INIT, val = STRBUF_INIT;
	const char *name;
	int rc = mod_cli_open(mc, ret_cli);

	if (rc)
		goto out;
	name = *mod_param_str(mc, "smnode") ? mod_param_str(mc, "smnode") :
		mod_cli_devname(*ret_cli);
	mod_set(mc, "smnode", name);
	rc = mod_cli_run(*ret_cli, "enable", &out);
	if (!rc)
		rc = mod_cli_run(*ret_cli, "show running-config", &out);
	if (!rc)
		parse_running_config(out.buf, name, st);
	if (!rc)
		rc = mod_cli_run(*ret_cli, "show configuration files", &out);
	if (!rc) {
		show_field(out.buf, "Unsaved changes", &val);
		st->unsaved = !strcmp(val.buf, "yes");
	}
out:
	strbuf_release(&out);
	strbuf_release(&val);
	return rc;
}

/*
 * The SM must run once configured. Its port GUID goes to the run's notes,
 * so that a rogue master named by sm_fabric stands beside the one expected.
 */
static int sw_running(struct mod_ctx *mc, struct mod_cli *cli)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, val = STRBUF_INIT;
	int rc;

	strbuf_addf(&cmd, "show ib smnode %s", mod_get(mc, "smnode"));
	rc = mod_cli_run(cli, cmd.buf, &out);
	if (!rc)
		show_field(out.buf, "SM running", &val);
	if (!rc && strcmp(val.buf, "running"))
		rc = mod_fail(mc, ERR_STATE, "switch %s: the SM on smnode %s is configured but "
			      "not running (SM running: %s)", mod_host(mc), mod_get(mc, "smnode"),
			      val.len ? val.buf : "absent");
	if (!rc) {
		show_field(out.buf, "Port GUID", &val);
		mod_note(mc, "SM on smnode %s runs, port GUID %s, priority %s", mod_get(mc, "smnode"),
			 val.len ? val.buf : "unknown", mod_param_str(mc, "priority"));
	}
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&val);
	return rc;
}

/*
 * Reads the switch and records what apply must change; mod_set flags
 * (enable, priority, virt, save: "yes") tell apply which commands to send.
 */
static int sw_check(struct mod_ctx *mc)
{
	const char *prio = mod_param_str(mc, "priority");
	long want = strtol(prio, NULL, 10);
	bool virt = mod_param_bool(mc, "virt");
	struct sw_state st = { 0 };
	struct mod_cli *cli = NULL;
	const char *name;
	int rc = sw_read(mc, &cli, &st);

	if (rc)
		goto out;
	name = mod_get(mc, "smnode");
	mod_set(mc, "enable", st.enabled ? "no" : "yes");
	if (!st.enabled)
		mod_change(mc, NULL, "switch %s: enable the SM on smnode %s", mod_host(mc), name);
	mod_set(mc, "priority", st.priority == want ? "no" : "yes");
	if (st.priority != want)
		mod_change(mc, NULL, "switch %s: SM priority %s on smnode %s (now %ld)",
			   mod_host(mc), prio, name, st.priority < 0 ? 0 : st.priority);
	mod_set(mc, "virt", virt && !st.virt ? "yes" : "no");
	if (virt && !st.virt)
		mod_change(mc, NULL, "switch %s: enable SM virtualization", mod_host(mc));
	mod_set(mc, "save", mod_nchanges(mc) || st.unsaved ? "yes" : "no");
	if (!mod_nchanges(mc) && st.unsaved)
		mod_change(mc, NULL, "switch %s: save the running configuration (write memory)",
			   mod_host(mc));
	/* Converged: the SM the configuration asks for must be running. */
	if (!mod_nchanges(mc) && !mod_checking(mc))
		rc = sw_running(mc, cli);
out:
	mod_cli_close(cli);
	return rc;
}

/* enable -> configure terminal -> the ib commands -> write memory. */
static int sw_apply(struct mod_ctx *mc)
{
	const char *name = mod_get(mc, "smnode");
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
	struct mod_cli *cli = NULL;
	int rc = mod_cli_open(mc, &cli);

	if (!rc)
		rc = mod_cli_run(cli, "enable", &out);
	if (!rc)
		rc = mod_cli_run(cli, "configure terminal", &out);
	if (!rc && !strcmp(mod_get(mc, "enable"), "yes")) {
		strbuf_addf(&cmd, "ib smnode %s enable", name);
		rc = mod_cli_run(cli, cmd.buf, &out);
	}
	if (!rc && !strcmp(mod_get(mc, "priority"), "yes")) {
		strbuf_reset(&cmd);
		strbuf_addf(&cmd, "ib smnode %s sm-priority %s", name, mod_param_str(mc, "priority"));
		rc = mod_cli_run(cli, cmd.buf, &out);
	}
	if (!rc && !strcmp(mod_get(mc, "virt"), "yes"))
		rc = mod_cli_run(cli, "ib sm virt enable", &out);
	/* Saved last: a cut before this leaves the saved configuration as it was. */
	if (!rc && !strcmp(mod_get(mc, "save"), "yes"))
		rc = mod_cli_run(cli, "write memory", &out);
	if (!rc)
		rc = mod_cli_run(cli, "exit", &out);
	mod_cli_close(cli);
	strbuf_release(&cmd);
	strbuf_release(&out);
	return rc;
}

static int sm_check(struct mod_ctx *mc)
{
	static const char *const files[] = { CONF, NULL };
	struct strbuf why = STRBUF_INIT;
	struct cmd_result res;
	int rc;

	if (on_switch(mc))
		return sw_check(mc);
	rc = mod_probe(mc, "subnet_manager/state.sh", NULL, files, &res);

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
	int rc;

	if (on_switch(mc))
		return sw_apply(mc);
	rc = mod_put_template(mc, "subnet_manager/opensm.conf", CONF, 0644, NULL);

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

	/* The switch registers its SM as it is enabled: read it back. */
	if (on_switch(mc))
		return sw_check(mc);
	snprintf(secs, sizeof(secs), "%u", mod_param_uint(mc, "settle_timeout"));
	rc = mod_script(mc, "subnet_manager/wait-sm.sh", args, &res);
	cmd_result_release(&res);
	return rc ? rc : sm_check(mc);
}

const struct stage_module mod_subnet_manager = {
	.name = "subnet_manager",
	.summary = "one master InfiniBand SM: opensm or a managed switch's SM, verified with sminfo",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = sm_check,
	.apply = sm_apply,
	.verify = sm_verify,
};
