# Helpers of the Spectrum Scale stage tests (t09xx-deploy-scale*); source
# lib.sh first.
#
# scale_inventory IN OUT [GPFS_CONFIG]: OUT is the sim's inventory IN with
# what the Scale stages read, where the sim's own inventory does not carry
# it already: the client cluster's name, the storage cluster, node class dgx
# on the scale clients with GPFS_CONFIG (a YAML flow map) as its gpfs_config,
# and a short startup timeout so that a daemon that stays down fails fast.
# scale_deploy_setup: on a cluster sim_up made, a Scale playbook and
# inventory for the Scale tests' deploys: STATE, PB, deploy [ARGS...],
# mm CMD (an mm command on dgx01) and last_log (dgx01's log of the last run).
scale_deploy_setup() {
	STATE=$TEST_DIR/state
	PB=$TEST_DIR/scale.yaml
	scale_playbook "$PB"
	scale_inventory "$INV" "$TEST_DIR/inv.yaml"
	deploy() { "$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$PB" --state-dir "$STATE" "$@"; }
	mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
	last_log() { echo "$STATE/$(readlink "$STATE/last")/hosts/dgx01.log"; }
}
scale_inventory() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import re, sys
src, dst, cfg = sys.argv[1], sys.argv[2], sys.argv[3]
s = open(src).read()
cluster = {
    "gpfs_remote_cluster": "ess3000.bda.scale.ibm.com",
    "gpfs_remote_filesystem": "ess3000_4M",
    "gpfs_mount_point": "/gpfs/ess3000_4M",
    "scale_filesystem": "ess3000_4M",
}
add = "".join("    %s: %s\n" % (k, v) for k, v in cluster.items() if "\n    %s:" % k not in s)
if "gpfs_remote_contact_nodes" not in s:
    add += "    gpfs_remote_contact_nodes: [fscc-fab3-3-a-priv.bda.scale.com, fscc-fab3-3-b-priv.bda.scale.com]\n"
if "gpfs_cluster_name" not in s:
    # the ready cluster is named after its first node
    m = re.search(r'^  "?([a-z]+)\[?([0-9]+)', s.split("\nhosts:\n")[1], re.M)
    add += "    gpfs_cluster_name: %s%s\n" % (m.group(1), m.group(2))
if "gpfs_startup_timeout" not in s:
    add += "    gpfs_startup_timeout: 30\n"
s = s.replace("\n  vars:\n", "\n  vars:\n" + add, 1)
grp = "  scale_client:\n"
if cfg:
    s = re.sub(r"\n      gpfs_config:[^\n]*(\n        [^\n]*)*", "", s)
i = s.index(grp)
j = s.index("\n", s.index("hosts:", i)) + 1
extra = ""
if "gpfs_nodeclass" not in s:
    extra += "      gpfs_nodeclass: dgx\n"
if cfg:
    # (ours replaced the one the sim's inventory gives the group, above)
    extra += "      gpfs_config: %s\n" % cfg
if extra:
    head = s[:j]
    rest = s[j:]
    if rest.startswith("    vars:\n"):
        s = head + "    vars:\n" + extra + rest[len("    vars:\n"):]
    else:
        s = head + "    vars:\n" + extra + rest
open(dst, "w").write(s)
PY
}

# scale_playbook OUT: the built-in playbook's Spectrum Scale stages after
# scale_install (for a cluster that has GPFS installed already).
scale_playbook() {
	cat >"$1" <<'YAML'
name: scale
stages:
  - name: scale_cluster
    module: scale_cluster
    hosts: scale_manager
    params: { start: false }
  - name: scale_tune
    module: scale_tune
    hosts: scale_manager
  - name: scale_start
    module: scale_cluster
    hosts: scale_manager
    params: { join: false }
  - name: scale_restart_plan
    module: scale_node
    hosts: scale_manager,scale_quorum,scale_client
    params: { action: owed }
  - name: scale_restart
    module: scale_node
    hosts: scale_manager,scale_quorum,scale_client
    serial: 1
    max_fail_percent: 100
    params: { action: restart }
  - name: scale_remote_mount
    module: scale_remote_mount
    hosts: scale_manager
  - name: scale_rdma
    module: scale_rdma
    hosts: scale_client
YAML
}

# The quorum sampler of the Scale tests (t0960, t1550): `mmgetstate -a` as
# node NODE's stand-in answers it, run from outside the nodes (no login per
# sample: a login every 0.2 s would meet sshd's penalties), every 0.2 s;
# one line a sample in $TEST_DIR/samples: the number of $QUORUM's nodes
# active, then each node's name=state. quorum_sampler_start NODE empties
# the file and starts it; quorum_sampler_stop ends it.
quorum_states() {
	BRINGUP_SIM_NODE="$BRINGUP_SIM_DIR/nodes/$1" BRINGUP_SIM_CLUSTER="$BRINGUP_SIM_DIR/cluster" \
		"$BRINGUP_SIM_DIR/bin/mmgetstate" -a
}
quorum_sample() {
	while [ ! -e "$TEST_DIR/stop" ]; do
		quorum_states "$1" 2>/dev/null | awk -v q=" $QUORUM " '
			$2 ~ /^dgx/ { s = s " " $2 "=" $3; if (index(q, " " $2 " ") && $3 == "active") n++ }
			END { print n + 0 s }' >>"$TEST_DIR/samples"
		sleep 0.2
	done
}
quorum_sampler_start() {
	: >"$TEST_DIR/samples"
	quorum_sample "$1" &
	QUORUM_SAMPLER=$!
}
quorum_sampler_stop() { touch "$TEST_DIR/stop"; wait $QUORUM_SAMPLER; rm -f "$TEST_DIR/stop"; }
