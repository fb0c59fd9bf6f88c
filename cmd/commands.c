/*
 * THE command table (git's builtin table, tmux's cmd entries). Keep it sorted
 * by name: `bringup --help` prints it in this order and a unit test checks it.
 */
#include "cmd.h"

#include <string.h>

const struct cmd_entry commands[] = {
	{ "apply", "-i INVENTORY [--check] [--kubeconfig FILE | --via bastion] [--state-dir DIR] [--crd-timeout S]",
	  "server-side apply the OpenShift manifests through the Kubernetes API", cmd_apply,
	  cmd_apply_options },
	{ "bundle", "[-i INVENTORY | --state-dir DIR] [--run ID] [--facts FILE] [-o FILE.tar.gz] | --offline -i INVENTORY -o FILE.tar.gz",
	  "pack a deploy run's logs and journal into a .tar.gz for a support case", cmd_bundle,
	  cmd_bundle_options },
	{ "complete", "[--shell bash|zsh] | [-i INVENTORY] -- WORD...",
	  "print completion candidates, or a shell's completion script", cmd_complete,
	  cmd_complete_options },
	{ "copy", "-i INVENTORY [--limit HOSTS] [-f N] [--mode OCTAL] [-t S] LOCAL_FILE REMOTE_PATH",
	  "upload a file to hosts over SFTP, verified by checksum", cmd_copy,
	  cmd_copy_options },
	{ "deploy", "-i INVENTORY [-p PLAYBOOK] [--check] [--limit H] [--tags T] [--resume] [-o text|json]",
	  "bring the cluster up: run the playbook's stages, idempotent and resumable", cmd_deploy,
	  cmd_deploy_options },
	{ "exec", "-i INVENTORY [--limit HOSTS] [-f N] [--timeout S] [--accept-new-host-keys] -- COMMAND",
	  "run an ad-hoc command on hosts, folding identical output", cmd_exec,
	  cmd_exec_options },
	{ "inventory", "show -i INVENTORY [--host H] [-o text|json]",
	  "validate an inventory and print its resolved view", cmd_inventory,
	  cmd_inventory_options },
	{ "parse", "TOOL [FILE] | --list",
	  "turn a supported tool's output into JSON", cmd_parse,
	  cmd_parse_options },
	{ "precheck", "-i INVENTORY [--limit HOSTS] [--checks LIST] [-o text|json|junit|prom] [--output FILE]",
	  "check that every node is ready for bring-up (the CI gate)", cmd_precheck,
	  cmd_precheck_options },
	{ "render", "-i INVENTORY -o DIR [--state-dir DIR] [--with-operators]",
	  "write the OpenShift manifests (SCC, RBAC, RDMA, CSI, PV/PVC), one file per object", cmd_render,
	  cmd_render_options },
	{ "sim", "up [-n N] [--profile P] [--state bare|ready] | down | status | fault NODE KIND",
	  "run a simulated cluster of real sshd nodes on this machine", cmd_sim,
	  cmd_sim_options },
	{ "tui", "-i INVENTORY [-p PLAYBOOK] [deploy options] | --replay RUN_DIR [--speed X]",
	  "watch and steer a deploy full-screen, or replay a recorded run", cmd_tui,
	  cmd_tui_options },
	{ "upgrade", "-i INVENTORY --to ofed=VER [--batch N|P%] [--ofed-tarball FILE] [--check | --resume]",
	  "rolling upgrade in batches that keep quorum, the SM and the control plane up", cmd_upgrade,
	  cmd_upgrade_options },
	{ "validate", "-i INVENTORY [--stage rdma,nccl,resnet,storage,dcgm] [--pairs ring|all] [-o text|json|junit|html] [--output FILE]",
	  "run RDMA, NCCL, ResNet-50 and storage benchmarks; name the node, port or GPU at fault", cmd_validate,
	  cmd_validate_options },
	{ "version", "",
	  "print the version", cmd_version,
	  cmd_version_options },
};

const struct cmd_exit_doc cmd_exit_docs[] = {
	{ EXIT_OK, "success" },
	{ EXIT_FAILED, "a check, step or remote command failed, or the run was interrupted" },
	{ EXIT_USAGE, "usage, inventory or playbook error" },
	{ EXIT_UNREACHABLE, "one or more hosts could not be reached (or their host key was refused)" },
	{ -1, NULL },
};

const unsigned ncommands = sizeof(commands) / sizeof(commands[0]);

const struct cmd_entry *cmd_lookup(const char *name)
{
	for (unsigned i = 0; i < ncommands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}
