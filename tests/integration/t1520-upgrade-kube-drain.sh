#!/bin/sh
# The rolling upgrade with a Kubernetes layer (4 nodes, batches of 2, the
# stand-in API server): each batch is cordoned and drained through the API
# before its daemons stop and uncordoned once back. The training job's pods
# are evicted (POST .../eviction, never a DELETE), its PodDisruptionBudget
# honoured (a 429 is waited out while the replacement starts elsewhere),
# the device plugin's DaemonSet pods left alone. A node failing in batch 2
# (no kernel headers: mmbuildgpl) stops the run: it stays cordoned, batch
# 1's nodes are schedulable again, dgx03 untouched; --resume finishes and
# gives every node back, but dgx04, which an admin cordoned before the
# upgrade: it stays cordoned (the drain records the nodes it cordons). A
# StatefulSet's pod on dgx01 comes back under the same name with a new uid
# elsewhere: the drain counts it gone (uid) and finishes. A pod of a
# DaemonSet that is gone, and one with emptyDir data, stop the drain unless
# drain_delete_emptydir_data allows the latter. A 429 and two 503s in the
# middle of the drain are waited out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
FIXTURES=$(cd "$(dirname "$0")/../fixtures" && pwd)
sim_up -n 4 --state ready
STATE=$TEST_DIR/state
NEW=MLNX_OFED_LINUX-5.0-2.1.8.0
TGZ=$("$FIXTURES/ofed/make-bundle.sh" "$TEST_DIR/ofed" 5.0-2.1.8.0 rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle"
kube_up --nodes dgx01.sim.example.com,dgx02.sim.example.com,dgx03.sim.example.com,dgx04.sim.example.com \
	--namespaces default,kube-system,adas --seed "$FIXTURES/openshift/drain-seed.yaml" --evict-delay 1 \
	--fault-file "$TEST_DIR/faults"
kube_inventory "$INV" "$TEST_DIR/inv-os.yaml"
OSINV=$TEST_DIR/inv-os.yaml
up() { "$BRINGUP" upgrade -i "$OSINV" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }
# cordoned NODE...: each is unschedulable in the API server's state now.
cordoned() {
	python3 - "$API_STATE" "$@" <<'PY'
import json, sys
objs = {(o["kind"], o["metadata"]["name"]): o for o in json.load(open(sys.argv[1]))}
for n in sys.argv[2:]:
    want = not n.startswith("!")
    node = objs[("Node", n.lstrip("!") + ".sim.example.com")]
    got = bool((node.get("spec") or {}).get("unschedulable"))
    assert got == want, "%s: unschedulable=%s" % (n, got)
PY
}

out=$(up --to ofed=$NEW --ofed-tarball "$TGZ" --batch 2 --check 2>&1) || fail "--check: $out"
echo "$out" | grep -q "^kubernetes: each batch cordoned and drained" || fail "--check: $out"
cordoned '!dgx01' '!dgx02' '!dgx03' dgx04 || fail "--check changed a cordon"

"$BRINGUP" sim fault dgx02 no-kernel-headers >/dev/null || fail "fault no-kernel-headers"
# Mid-drain, the API server asks to slow down (429, Retry-After: 1), then
# loses its etcd leader (503) on evictions and on a pod lookup: the client
# waits them out (client-go's retries), the drain goes on.
printf '%s\n' "429 1 /eviction 1" "503 1 /eviction" "503 1 /pods/train-7d9f-a" >"$TEST_DIR/faults"
out=$(up --to ofed=$NEW --ofed-tarball "$TGZ" --batch 2 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a failed node should fail the run (exit 1), got $rc: $out"
echo "$out" | grep -Eq "^  b1-drain +changed +localhost" || fail "batch 1 not drained: $out"
echo "$out" | grep -Eq "^  b1-uncordon +changed +localhost" || fail "batch 1 not uncordoned: $out"
echo "$out" | grep -Eq "^  b2-uncordon +failed +localhost: .*left cordoned, failed earlier in this run: dgx02" ||
	fail "batch 2's failure: $out"
echo "$out" | grep -Eq "^  b3-drain +skipped" || fail "batch 3 was not stopped: $out"
# dgx02 holds the last healthy training pod while its replacement starts: the
# budget's 429 is waited out, in the server's words.
echo "$out" | grep -q "b2-drain localhost output waiting: drain dgx02.sim.example.com: .*adas/train-7d9f-b (The disruption budget train-pdb needs 1 healthy pods and has 1 currently)" ||
	fail "the budget was not waited for: $out"
cordoned '!dgx01' dgx02 '!dgx03' dgx04 || fail "cordons after the failed batch"
out1=$out
python3 - "$API_STATE" "$API_LOG" <<'PY' || fail "evictions"
import json, sys
objs = json.load(open(sys.argv[1]))
pods = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Pod"}
# the DaemonSet's pods stay; the training job's moved off dgx01 and dgx02
assert "rdma-shared-dp-ds-dgx01" in pods and "rdma-shared-dp-ds-dgx02" in pods, sorted(pods)
train = [o for o in pods.values() if (o["metadata"].get("labels") or {}).get("app") == "train"]
assert len(train) == 2, train
db = pods["db-0"]  # the StatefulSet's: back under its name with a new uid
assert db["metadata"]["uid"] != "uid-adas-db-0", db
for o in train:
    assert o["spec"]["nodeName"] not in ("dgx01.sim.example.com", "dgx02.sim.example.com") or \
        o["metadata"]["name"] not in ("train-7d9f-a", "train-7d9f-b"), o
reqs = [json.loads(l) for l in open(sys.argv[2])]
inj = [(r["injected"], r["path"]) for r in reqs if r.get("injected")]
assert sorted(c for c, p in inj) == [429, 503, 503], inj  # each used up, the drain went on
for code, path in inj:  # and each request was asked again
    i = next(k for k, r in enumerate(reqs) if r.get("injected") == code and r["path"] == path)
    assert any(r["path"] == path and not r.get("injected") for r in reqs[i + 1:]), (code, path)
ev = [r for r in reqs if r["path"].endswith("/eviction")]
assert any(r["path"].endswith("/pods/db-0/eviction") for r in ev), "db-0 was not evicted"
assert ev and all(r["method"] == "POST" and r["content_type"] == "application/json" for r in ev), ev
assert not any(r["method"] == "DELETE" for r in reqs), "a DELETE was sent"
assert not any("rdma-shared-dp" in r["path"] for r in ev), "a DaemonSet pod was evicted"
patches = [r for r in reqs if r["method"] == "PATCH" and r["path"].startswith("/api/v1/nodes/")]
assert patches and all(r["content_type"] == "application/merge-patch+json" for r in patches), patches
PY

"$BRINGUP" sim fault dgx02 clear no-kernel-headers >/dev/null || fail "clear no-kernel-headers"
out=$(up --resume 2>&1) || fail "resume: $out"
for n in 1 2 3 4; do
	echo "$out" | grep -Eq "^  dgx0$n +upgraded$" || fail "dgx0$n's state after resume: $out"
done
cordoned '!dgx01' '!dgx02' '!dgx03' dgx04 || fail "cordons after resume"
printf '%s\n%s\n' "$out1" "$out" | grep -q "dgx04.sim.example.com: cordoned before bringup drained it, left cordoned" ||
	fail "dgx04's cordon not said to be kept: $out1 $out"

# A pod no controller owns would be lost, not moved: the drain refuses it,
# naming it, before any daemon stops.
kube_down
kube_up --nodes dgx01.sim.example.com,dgx02.sim.example.com,dgx03.sim.example.com,dgx04.sim.example.com \
	--namespaces default,kube-system,adas --seed "$FIXTURES/openshift/drain-seed-bare-pod.yaml"
kube_inventory "$INV" "$OSINV"
out=$(up --to ofed=$NEW --ofed-tarball "$TGZ" --batch 2 2>&1) && fail "a bare pod was drained: $out"
echo "$out" | grep -q "b1-drain localhost failed .*pods a drain must not evict: adas/debug-shell (no controller: it would be lost, not moved)" ||
	fail "the refusal: $out"
echo "$out" | grep -q "adas/scratch-0 (emptyDir data would be lost (set drain_delete_emptydir_data to allow it))" ||
	fail "the emptyDir pod was not refused: $out"
echo "$out" | grep -q "kube-system/old-agent-x (its DaemonSet is gone: nothing would start it again)" ||
	fail "the orphaned DaemonSet pod was not refused: $out"
echo "$out" | grep -Eq "^  b1-scale-stop +skipped" || fail "batch 1 went down after a refused drain: $out"
sim_ssh 127.0.1.1 /usr/lpp/mmfs/bin/mmgetstate | grep -q " active" || fail "dgx01 was stopped"
exit 0
