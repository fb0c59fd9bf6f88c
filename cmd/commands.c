/*
 * THE command table (git's builtin table, tmux's cmd entries). Keep it sorted
 * by name: `bringup --help` prints it in this order and a unit test checks it.
 */
#include "cmd.h"

#include <string.h>

const struct cmd_entry commands[] = {
	{ "bundle", "[-i INVENTORY | --state-dir DIR] [--run ID] [--facts FILE] [-o FILE.tar.gz]",
	  "pack a deploy run's logs and journal into a .tar.gz for a support case", cmd_bundle },
	{ "copy", "-i INVENTORY [--limit HOSTS] [-f N] [--mode OCTAL] LOCAL_FILE REMOTE_PATH",
	  "upload a file to hosts over SFTP, verified by checksum", cmd_copy },
	{ "deploy", "-i INVENTORY [-p PLAYBOOK] [--check] [--limit H] [--tags T] [--resume] [-o text|json]",
	  "bring the cluster up: run the playbook's stages, idempotent and resumable", cmd_deploy },
	{ "exec", "-i INVENTORY [--limit HOSTS] [-f N] [--timeout S] [--accept-new-host-keys] -- COMMAND",
	  "run an ad-hoc command on hosts, folding identical output", cmd_exec },
	{ "inventory", "show -i INVENTORY [--host H] [-o text|json]",
	  "validate an inventory and print its resolved view", cmd_inventory },
	{ "parse", "TOOL [FILE] | --list",
	  "turn a supported tool's output into JSON", cmd_parse },
	{ "precheck", "-i INVENTORY [--limit HOSTS] [--checks LIST] [-o text|json|junit|prom] [--output FILE]",
	  "check that every node is ready for bring-up (the CI gate)", cmd_precheck },
	{ "sim", "up [-n N] [--profile P] [--state bare|ready] | down | status | fault NODE KIND",
	  "run a simulated cluster of real sshd nodes on this machine", cmd_sim },
	{ "version", "",
	  "print the version", cmd_version },
};

const unsigned ncommands = sizeof(commands) / sizeof(commands[0]);

const struct cmd_entry *cmd_lookup(const char *name)
{
	for (unsigned i = 0; i < ncommands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}
