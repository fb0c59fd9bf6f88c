/*
 * scale_remote_mount: the remote file system of the storage cluster on the
 * Scale clients (Redpaper 3.3: ess3000_4M of ess3000.bda.scale.ibm.com,
 * mounted at /gpfs/ess3000_4M). Runs once on a manager. check reads
 * mmauth show ., mmremotecluster show all, mmremotefs show all and
 * mmlsmount DEV -L; apply generates this cluster's key when it has none
 * (mmauth genkey new; the storage admin authorises it with mmauth add and
 * grant), sends the storage cluster's public key (gpfs_remote_key) to the
 * manager and defines the remote cluster with its contact nodes
 * (mmremotecluster add|update -n -k), the remote file system (mmremotefs
 * add|update -f -C -T -A) and mounts it on the clients that lack it with
 * one mmmount -N. A client that cannot mount fails alone; a refusal of the
 * whole cluster (the storage cluster does not accept our key) fails the
 * stage. verify reads mmlsmount -L again, and records the cluster ID, the
 * file system's UID and the mount point in the run's state for the
 * OpenShift stage (its PersistentVolume volumeHandle).
 */
#include "../engine/deploy/module.h"
#include "scale-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/facts/parse.h"
#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

static const struct param_spec params[] = {
	{ "automount", PARAM_STRING, "yes", "gpfs_automount",
	  "mount the file system when the daemon starts (mmremotefs -A: yes, no, automount)",
	  NULL },
	{ "device", PARAM_STRING, "", "gpfs_device",
	  "the file system's local device name (empty: the remote file system's name)", NULL },
	{ "mount_point", PARAM_STRING, "", "gpfs_mount_point",
	  "where the clients mount it (empty: /gpfs/DEVICE)", NULL },
	{ "remote_cluster", PARAM_STRING, "", "gpfs_remote_cluster",
	  "the storage cluster that owns the file system (empty: nothing to mount)", NULL },
	{ "remote_filesystem", PARAM_STRING, "", "gpfs_remote_filesystem",
	  "the file system's name in the storage cluster", NULL },
	{ "remote_key", PARAM_STRING, "", "gpfs_remote_key",
	  "the storage cluster's public key file on the admin host (its id_rsa.pub)", NULL },
	{ NULL },
};

static const char *device(const struct mod_ctx *mc)
{
	const char *d = mod_param_str(mc, "device");

	return *d ? d : mod_param_str(mc, "remote_filesystem");
}

static const char *mount_point(struct mod_ctx *mc)
{
	if (!*mod_get(mc, "mnt")) {
		const char *m = mod_param_str(mc, "mount_point");
		char *def = xasprintf("/gpfs/%s", device(mc));

		mod_set(mc, "mnt", *m ? m : def);
		free(def);
	}
	return mod_get(mc, "mnt");
}

/* The manager's own vars: contact nodes are a list, not a parameter. */
static void contact_nodes(const struct mod_ctx *mc, struct strbuf *out)
{
	const json_t *hosts = mod_run_hosts(mc), *h, *c, *n;
	size_t i, k;

	json_array_foreach(hosts, i, h) {
		if (strcmp(json_string_value(json_object_get(h, "name")), mod_host(mc)))
			continue;
		c = json_object_get(json_object_get(h, "vars"), "gpfs_remote_contact_nodes");
		if (json_is_string(c))
			strbuf_addstr(out, json_string_value(c));
		json_array_foreach(c, k, n)
			if (json_is_string(n))
				strbuf_addf(out, "%s%s", out->len ? "," : "", json_string_value(n));
	}
}

static char *remote_key_path(const struct mod_ctx *mc)
{
	return xasprintf("/var/mmfs/ssl/%s.pub", mod_param_str(mc, "remote_cluster"));
}

/* mmauth show .: "SHA digest: (undefined)" or no such line: no key yet. */
static bool has_key(const char *out)
{
	const char *p = strstr(out, "SHA digest:");

	if (!p)
		return false;
	p += strlen("SHA digest:");
	p += strspn(p, " \t");
	return *p && *p != '\n' && strncmp(p, "(undefined)", 11);
}

static int plan_remote_cluster(struct mod_ctx *mc, const char *contacts)
{
	static const char *const show[] = { "mmremotecluster", "show", "all", NULL };
	const char *name = mod_param_str(mc, "remote_cluster");
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *rc_json = NULL, *c, *found = NULL;
	struct strbuf have = STRBUF_INIT;
	size_t i;
	int rc = scale_mm_ok(mc, show, &res);

	if (!rc && !strstr(res.out.buf, "There are no remote cluster definitions") &&
	    parse_mmremotecluster(res.out.buf, res.out.len, &rc_json, &perr))
		rc = mod_fail(mc, ERR_PARSE, "mmremotecluster show on %s: %s", mod_host(mc),
			      err_msg(&perr));
	json_array_foreach(json_object_get(rc_json, "clusters"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "cluster_name")), name))
			found = c;
	if (found) {
		json_t *n;

		json_array_foreach(json_object_get(found, "contact_nodes"), i, n)
			strbuf_addf(&have, "%s%s", have.len ? "," : "", json_string_value(n));
	}
	if (!rc && !found) {
		mod_set(mc, "rcluster", "add");
		mod_change(mc, NULL, "define remote cluster %s, contact nodes %s, with its key %s "
			   "(mmremotecluster add)", name, contacts, mod_param_str(mc, "remote_key"));
	} else if (!rc && strcmp(have.buf, contacts)) {
		mod_set(mc, "rcluster", "update");
		mod_change(mc, NULL, "remote cluster %s: contact nodes %s -> %s (mmremotecluster "
			   "update)", name, have.buf, contacts);
	}
	json_decref(rc_json);
	err_clear(&perr);
	strbuf_release(&have);
	cmd_result_release(&res);
	return rc;
}

static int plan_remote_fs(struct mod_ctx *mc)
{
	static const char *const show[] = { "mmremotefs", "show", "all", NULL };
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *fs_json = NULL, *f, *found = NULL;
	size_t i;
	int rc = scale_mm_ok(mc, show, &res);

	if (!rc && !strstr(res.out.buf, "There are no remote file systems") &&
	    parse_mmremotefs(res.out.buf, res.out.len, &fs_json, &perr))
		rc = mod_fail(mc, ERR_PARSE, "mmremotefs show on %s: %s", mod_host(mc),
			      err_msg(&perr));
	json_array_foreach(json_object_get(fs_json, "filesystems"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "local_name")), device(mc)))
			found = f;
#define FIELD(k) json_string_value(json_object_get(found, k))
	if (!rc && !found) {
		mod_set(mc, "rfs", "add");
		mod_change(mc, NULL, "define remote file system %s (%s of %s) at %s, automount %s "
			   "(mmremotefs add)", device(mc), mod_param_str(mc, "remote_filesystem"),
			   mod_param_str(mc, "remote_cluster"), mount_point(mc),
			   mod_param_str(mc, "automount"));
	} else if (!rc && (strcmp(FIELD("remote_name"), mod_param_str(mc, "remote_filesystem")) ||
			   strcmp(FIELD("cluster"), mod_param_str(mc, "remote_cluster")) ||
			   strcmp(FIELD("mount_point"), mount_point(mc)) ||
			   strcmp(FIELD("automount"), mod_param_str(mc, "automount")))) {
		mod_set(mc, "rfs", "update");
		mod_change(mc, NULL, "remote file system %s: %s of %s at %s automount %s -> %s of %s "
			   "at %s automount %s (mmremotefs update)", device(mc), FIELD("remote_name"),
			   FIELD("cluster"), FIELD("mount_point"), FIELD("automount"),
			   mod_param_str(mc, "remote_filesystem"), mod_param_str(mc, "remote_cluster"),
			   mount_point(mc), mod_param_str(mc, "automount"));
	}
#undef FIELD
	json_decref(fs_json);
	err_clear(&perr);
	cmd_result_release(&res);
	return rc;
}

/* The clients (not failed) that do not have the file system mounted. */
static int plan_mount(struct mod_ctx *mc, const struct scale_nodes *ns, bool defined)
{
	const char *argv[] = { "mmlsmount", device(mc), "-L", NULL };
	struct cmd_result res;
	struct err perr = ERR_INIT;
	struct strbuf missing = STRBUF_INIT;
	json_t *m = NULL, *fs, *nodes = NULL;
	size_t i;
	int rc = defined ? scale_mm_ok(mc, argv, &res) : 0;

	if (defined && !rc && parse_mmlsmount(res.out.buf, res.out.len, &m, &perr))
		rc = mod_fail(mc, ERR_PARSE, "mmlsmount on %s: %s", mod_host(mc), err_msg(&perr));
	json_array_foreach(json_object_get(m, "filesystems"), i, fs)
		if (!strcmp(json_string_value(json_object_get(fs, "name")), device(mc)))
			nodes = json_object_get(fs, "nodes");
	for (size_t k = 0; !rc && k < ns->n; k++) {
		bool mounted = false;
		json_t *row;

		if (!ns->v[k].client || ns->v[k].failed)
			continue;
		json_array_foreach(nodes, i, row)
			mounted |= scale_same_node(json_string_value(json_object_get(row, "node")),
						   ns->v[k].name);
		if (!mounted)
			strbuf_addf(&missing, "%s%s", missing.len ? "," : "", ns->v[k].name);
	}
	mod_set(mc, "mount", missing.buf);
	if (missing.len)
		mod_change(mc, NULL, "mount %s at %s (mmmount -N) on: %s", device(mc), mount_point(mc),
			   missing.buf);
	json_decref(m);
	err_clear(&perr);
	strbuf_release(&missing);
	if (defined)
		cmd_result_release(&res);
	return rc;
}

static int sm_check(struct mod_ctx *mc)
{
	static const char *const auth[] = { "mmauth", "show", ".", NULL };
	struct scale_nodes ns;
	struct strbuf contacts = STRBUF_INIT;
	struct cmd_result res;
	bool bare = false;
	int rc;

	/* verify checks again: what the first check planned is done now */
	for (const char *const *k = (const char *const[]){ "genkey", "rcluster", "rfs", "mount",
							   NULL }; *k; k++)
		mod_set(mc, *k, "");
	if (!*mod_param_str(mc, "remote_cluster"))
		return mod_skip(mc, "no remote file system to mount (gpfs_remote_cluster is not set)");
	if (!*mod_param_str(mc, "remote_filesystem"))
		return mod_fail(mc, ERR_STATE, "gpfs_remote_cluster %s is set but not "
				"gpfs_remote_filesystem: which of its file systems to mount?",
				mod_param_str(mc, "remote_cluster"));
	contact_nodes(mc, &contacts);
	if (!contacts.len) {
		strbuf_release(&contacts);
		return mod_fail(mc, ERR_STATE, "no contact nodes of %s (gpfs_remote_contact_nodes)",
				mod_param_str(mc, "remote_cluster"));
	}
	scale_nodes_get(mc, &ns);
	if ((rc = scale_mm(mc, auth, &res)))
		goto out;
	if (res.exit_status) {
		bare = mod_checking(mc) && (scale_not_installed(&res) ||
			strstr(res.err.buf, "does not belong to a GPFS cluster"));
		if (!bare)
			rc = mod_fail(mc, ERR_REMOTE, "mmauth show . on %s exited %d: %s", mod_host(mc),
				      res.exit_status, res.err.len ? res.err.buf : res.out.buf);
	}
	if (!rc && (bare || !has_key(res.out.buf))) {
		mod_set(mc, "genkey", "yes");
		mod_change(mc, NULL, "generate this cluster's key (mmauth genkey new); the storage "
			   "cluster's admin authorises it (mmauth add, mmauth grant -f %s)",
			   mod_param_str(mc, "remote_filesystem"));
	}
	cmd_result_release(&res);
	mod_set(mc, "contacts", contacts.buf);
	if (!rc && bare) {
		mod_set(mc, "rcluster", "add");
		mod_set(mc, "rfs", "add");
		mod_change(mc, NULL, "define remote cluster %s, contact nodes %s (mmremotecluster add)",
			   mod_param_str(mc, "remote_cluster"), contacts.buf);
		mod_change(mc, NULL, "define remote file system %s (%s) at %s (mmremotefs add)",
			   device(mc), mod_param_str(mc, "remote_filesystem"), mount_point(mc));
		rc = plan_mount(mc, &ns, false);
	} else if (!rc) {
		rc = plan_remote_cluster(mc, contacts.buf);
		if (!rc)
			rc = plan_remote_fs(mc);
		if (!rc)
			rc = plan_mount(mc, &ns, !*mod_get(mc, "rfs"));
	}
out:
	strbuf_release(&contacts);
	scale_nodes_release(&ns);
	return rc;
}

/*
 * Every node's mount was refused because the storage cluster has not
 * authorised this cluster (its key not added, or the file system not
 * granted): nothing on this side can fix it. This cluster's public key
 * (/var/mmfs/ssl/id_rsa.pub on the manager, IBM "Mounting a remote GPFS
 * file system": the accessing cluster's administrator gives it to the
 * owning cluster's) goes into the run directory, and the stage fails with
 * the two commands the storage administrator runs there.
 */
static int refused_by_storage(struct mod_ctx *mc, const char *list, const char *why)
{
	static const char *const lscluster[] = { "mmlscluster", NULL };
	const char *rcl = mod_param_str(mc, "remote_cluster");
	const char *rfs = mod_param_str(mc, "remote_filesystem");
	struct strbuf key = STRBUF_INIT, path = STRBUF_INIT;
	json_t *cl = NULL;
	const char *name;
	char *file = NULL;
	bool exists = false;
	int rc = scale_mm_parsed(mc, lscluster, parse_mmlscluster, &cl);

	name = json_string_value(json_object_get(json_object_get(cl, "cluster"),
						 "gpfs_cluster_name"));
	if (!rc && !name)
		rc = mod_fail(mc, ERR_PARSE, "mmlscluster on %s names no cluster", mod_host(mc));
	if (!rc)
		rc = mod_read_file(mc, "/var/mmfs/ssl/id_rsa.pub", &key, &exists);
	if (!rc && !exists)
		rc = mod_fail(mc, ERR_STATE, "mmmount %s failed on every node (%s): %s; and this "
			      "cluster has no public key (/var/mmfs/ssl/id_rsa.pub on %s) for the "
			      "storage cluster %s to authorise: run mmauth genkey new", device(mc),
			      list, why, mod_host(mc), rcl);
	if (!rc) {
		file = xasprintf("%s.pub", name);
		rc = mod_save_local(mc, file, key.buf, key.len, &path);
	}
	if (!rc)
		rc = mod_fail(mc, ERR_REMOTE, "mmmount %s failed on every node (%s): %s\n"
			      "The storage cluster %s has not authorised this cluster (%s) to mount "
			      "%s. This cluster's public key (/var/mmfs/ssl/id_rsa.pub on %s) is "
			      "saved in %s: give it to the storage administrator, who runs on a node "
			      "of %s:\n"
			      "  mmauth add %s -k %s\n"
			      "  mmauth grant %s -f %s\n"
			      "then run `bringup deploy` again: it mounts once the grant is in",
			      device(mc), list, why, rcl, name, rfs, mod_host(mc), path.buf, rcl,
			      name, file, name, rfs);
	free(file);
	json_decref(cl);
	strbuf_release(&key);
	strbuf_release(&path);
	return rc;
}

/*
 * mmmount on several nodes: a node that cannot mount says so on a line
 * "NODE:  mmmount: ...". Those fail alone; when every node fails (the
 * storage cluster refuses us), the stage fails.
 */
static int mount_nodes(struct mod_ctx *mc, const char *list)
{
	const char *argv[] = { "mmmount", device(mc), "-N", list, NULL };
	struct cmd_result res;
	struct strlist failed = STRLIST_INIT, msgs = STRLIST_INIT;
	struct strbuf cause = STRBUF_INIT;
	size_t nnodes = 1;
	int rc = scale_mm(mc, argv, &res);

	for (const char *p = list; *p; p++)
		nnodes += *p == ',';
	if (rc || !res.exit_status)
		goto out;
	for (char *save = NULL, *l = strtok_r(res.err.buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(l, ':');

		/* "mmmount: why" (not "Command failed"): the cause for every node */
		if (!strncmp(l, "mmmount:", 8) && !strstr(l, "Command failed")) {
			strbuf_addf(&cause, "%s%s", cause.len ? " " : "", l);
			continue;
		}
		if (!colon || colon == l)
			continue;
		*colon = '\0';
		if (!strstr(list, l) || strlist_index(&failed, l) >= 0)
			continue;
		strlist_push(&failed, l);
		strlist_push(&msgs, colon + 1 + strspn(colon + 1, " "));
	}
	if (!failed.n || failed.n >= nnodes) {
		struct strbuf msg = STRBUF_INIT;

		/* res.err was cut into lines above: the output is what is left whole. */
		strbuf_addstr(&msg, cause.len ? cause.buf : failed.n ? msgs.v[0] : res.out.buf);
		strbuf_rtrim(&msg);
		/* the storage side's words for a client it has not authorised */
		if (strstr(msg.buf, "has not authorized this cluster") ||
		    strstr(msg.buf, "has not granted this cluster")) {
			rc = refused_by_storage(mc, list, msg.buf);
			strbuf_release(&msg);
			goto out;
		}
		rc = mod_fail(mc, ERR_REMOTE, "mmmount %s failed on every node (%s): %s; if the "
			      "storage cluster %s refuses this cluster, its admin must authorise "
			      "this cluster's key (mmauth add / mmauth grant -f %s) and "
			      "gpfs_remote_key must be its public key", device(mc), list, msg.buf,
			      mod_param_str(mc, "remote_cluster"),
			      mod_param_str(mc, "remote_filesystem"));
		strbuf_release(&msg);
		goto out;
	}
	for (size_t i = 0; i < failed.n; i++)
		mod_fail_host(mc, failed.v[i], "mmmount %s failed here: %s", device(mc), msgs.v[i]);
out:
	strbuf_release(&cause);
	cmd_result_release(&res);
	strlist_clear(&failed);
	strlist_clear(&msgs);
	return rc;
}

static int sm_apply(struct mod_ctx *mc)
{
	const char *cl = mod_param_str(mc, "remote_cluster");
	char *key = remote_key_path(mc);
	int rc = 0;

	if (!strcmp(mod_get(mc, "genkey"), "yes")) {
		static const char *const gen[] = { "mmauth", "genkey", "new", NULL };

		rc = scale_run(mc, gen);
	}
	if (!rc && *mod_get(mc, "rcluster")) {
		const char *argv[] = { "mmremotecluster", mod_get(mc, "rcluster"), cl, "-n",
				       mod_get(mc, "contacts"), "-k", key, NULL };
		const char *mk[] = { "mkdir", "-p", "/var/mmfs/ssl", NULL };
		struct cmd_result res;

		if (!*mod_param_str(mc, "remote_key"))
			rc = mod_fail(mc, ERR_STATE, "no public key of %s (gpfs_remote_key: the "
				      "storage cluster's id_rsa.pub, copied to the admin host)", cl);
		if (!rc) {
			rc = mod_exec_ok(mc, mk, NULL, &res);
			cmd_result_release(&res);
		}
		if (!rc)
			rc = mod_upload(mc, mod_param_str(mc, "remote_key"), key, 0644);
		if (!rc)
			rc = scale_run(mc, argv);
	}
	if (!rc && *mod_get(mc, "rfs")) {
		const char *argv[] = { "mmremotefs", mod_get(mc, "rfs"), device(mc), "-f",
				       mod_param_str(mc, "remote_filesystem"), "-C", cl, "-T",
				       mount_point(mc), "-A", mod_param_str(mc, "automount"), NULL };

		rc = scale_run(mc, argv);
	}
	if (!rc && *mod_get(mc, "mount"))
		rc = mount_nodes(mc, mod_get(mc, "mount"));
	free(key);
	return rc;
}

/* Records what the OpenShift stage needs (Redpaper 4.2: the volumeHandle). */
static int record_state(struct mod_ctx *mc)
{
	static const char *const lscluster[] = { "mmlscluster", NULL };
	const char *uid_argv[] = { "mmlsfs", device(mc), "--uid", NULL };
	struct cmd_result res;
	json_t *cl = NULL;
	int rc = scale_mm_parsed(mc, lscluster, parse_mmlscluster, &cl);

	if (rc)
		return rc;
	mod_record(mc, "scale.cluster_id", json_string_value(json_object_get(
		json_object_get(cl, "cluster"), "gpfs_cluster_id")) ?: "");
	mod_record(mc, "scale.filesystem", device(mc));
	mod_record(mc, "scale.mount_point", mount_point(mc));
	json_decref(cl);
	/* mmlsfs --uid: " --uid  099B6A7A:5EB99743  File system UID" */
	rc = scale_mm(mc, uid_argv, &res);
	if (!rc && !res.exit_status) {
		const char *p = strstr(res.out.buf, "--uid");

		if (p) {
			p += 5 + strspn(p + 5, " \t");
			char *uid = xstrndup(p, strcspn(p, " \t\n"));

			mod_record(mc, "scale.filesystem_uid", uid);
			free(uid);
		}
	} else if (!rc) {
		mod_note(mc, "mmlsfs %s --uid exited %d: the file system UID is not recorded",
			 device(mc), res.exit_status);
	}
	cmd_result_release(&res);
	return rc;
}

static int sm_verify(struct mod_ctx *mc)
{
	int rc = sm_check(mc);

	return rc ? rc : record_state(mc);
}

/* A converged check records the state too (read-only queries, so under
 * --check as well): a second run keeps it current, and the openshift
 * stage's dry run can build its PersistentVolume. */
static int sm_check_record(struct mod_ctx *mc)
{
	int rc = sm_check(mc);

	if (!rc && !mod_nchanges(mc) && *mod_param_str(mc, "remote_cluster"))
		rc = record_state(mc);
	return rc;
}

const struct stage_module mod_scale_remote_mount = {
	.name = "scale_remote_mount",
	.summary = "the storage cluster's file system on the Scale clients: mmauth key, "
		   "mmremotecluster, mmremotefs, one mmmount -N; records cluster ID and FS UID",
	.version = 1,
	.flags = MOD_ONCE,
	.params = params,
	.check = sm_check_record,
	.apply = sm_apply,
	.verify = sm_verify,
};
