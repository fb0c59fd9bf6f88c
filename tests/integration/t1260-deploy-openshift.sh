#!/bin/sh
# The openshift stage of `bringup deploy`: on a converged simulated cluster
# whose inventory has the cluster var `openshift`, deploy --check shows the
# objects it would create (a dry run: the stand-in API server stores
# nothing); deploy applies them with the PersistentVolume built from what
# this run's scale_remote_mount recorded (the simulated cluster's GPFS ID);
# a second deploy changes nothing on the server; `deploy --tags openshift`
# in a new run still knows the recorded values. An inventory without
# `openshift` runs no openshift stage at all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
sim_up -n 2 --state ready
STATE=$TEST_DIR/deploy-state
kube_up --nodes dgx01.sim.example.com,dgx02.sim.example.com

# The same cluster with the OpenShift layer (no openshift.scale: deploy records it).
kube_inventory "$INV" "$TEST_DIR/inv-os.yaml"
OSINV=$TEST_DIR/inv-os.yaml
deploy() { "$BRINGUP" deploy -i "$OSINV" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }

cp "$API_STATE" "$TEST_DIR/before.json"
out=$(deploy --check 2>&1) || fail "deploy --check: $out"
echo "$out" | grep -Eq "^  openshift +would-change +localhost" || fail "--check summary: $out"
echo "$out" | grep -q "create SecurityContextConstraints scc-for-mpi" || fail "--check changes: $out"
cmp -s "$TEST_DIR/before.json" "$API_STATE" || fail "deploy --check stored objects on the server"

out=$(deploy -o json 2>&1) || fail "deploy: $out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = {s["name"]: s for s in d["stages"]}
assert "openshift" in st, list(st)
h = st["openshift"]["hosts"]["localhost"]
assert h["status"] == "changed", h
assert "create SecurityContextConstraints scc-for-mpi" in h["changes"], h
assert "change Node dgx01.sim.example.com" in h["changes"], h
' || fail "deploy report: $out"
# The volume is the simulated cluster's: its GPFS cluster ID and file system UID.
id=$(sim_ssh 127.0.1.1 /usr/lpp/mmfs/bin/mmlscluster | sed -n 's/^ *GPFS cluster id: *//p')
uid=$(sim_ssh 127.0.1.1 /usr/lpp/mmfs/bin/mmlsfs ess3000_4M --uid | awk '$1 == "--uid" { print $2 }')
[ -n "$id" ] && [ -n "$uid" ] || fail "the sim's cluster ID ($id) or UID ($uid)"
python3 - "$API_STATE" "$id" "$uid" <<'PY' || fail "PersistentVolume"
import json, sys
objs = {(o["kind"], o["metadata"]["name"]): o for o in json.load(open(sys.argv[1]))}
pv = objs[("PersistentVolume", "adas-data-pv01")]
h = pv["spec"]["csi"]["volumeHandle"]
# Scale CSI 2.5+'s layout: a static directory volume of that cluster and fs
assert h == "0;0;%s;%s;;;/gpfs/ess3000_4M/adas" % (sys.argv[2], sys.argv[3]), h
assert [m["manager"] for m in objs[("Role", "mpi")]["metadata"]["managedFields"]] == ["bringup"]
PY
cp "$API_STATE" "$TEST_DIR/after1.json"

out=$(deploy 2>&1) || fail "second deploy: $out"
echo "$out" | grep -Eq "^  openshift +ok +localhost" || fail "second deploy changed something: $out"
cmp -s "$TEST_DIR/after1.json" "$API_STATE" || fail "the second deploy changed the server"

# A new run with only this stage: the records of the earlier run carry over.
out=$(deploy --tags openshift 2>&1) || fail "deploy --tags openshift: $out"
echo "$out" | grep -Eq "^  openshift +ok +localhost" || fail "--tags openshift: $out"

# Without the openshift var there is no OpenShift layer, and no stage for it.
out=$("$BRINGUP" deploy -i "$INV" --state-dir "$TEST_DIR/plain" --check 2>&1) || fail "plain: $out"
echo "$out" | grep -Eq "^(  )?openshift " && fail "an inventory without openshift ran the stage: $out"
exit 0
