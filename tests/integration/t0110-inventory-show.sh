#!/bin/sh
# `inventory show` on the Redpaper PoC inventory: the text view names the
# cluster, folds groups into node sets and resolves each host (ssh target,
# roles, expected HCAs and GPUs, merged vars); -o json is valid JSON with the
# same content; --host narrows it; an unknown --host exits 2.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
inv="$root/inventory/redbook-poc.yaml"

out=$("$BRINGUP" inventory check -i "$inv") || fail "check refused the PoC inventory"
[ "$out" = "$inv: ok, 8 hosts" ] || fail "check printed '$out'"

"$BRINGUP" inventory show -i "$inv" >"$TEST_DIR/show.txt" || fail "show failed"
want_line() {
	grep -qxF -- "$1" "$TEST_DIR/show.txt" || fail "show text lacks line '$1'"
}
want_line "cluster redbook-poc ($inv)"
want_line "  gpu_worker     dgx[01-02]"
want_line "  scale_quorum   scale00"
want_line "  ocp_master     master[01-03]"
want_line "hosts (8) dgx[01-02],scale00,ibsw01,master[01-03],bastion01"
want_line "  ssh       root@10.10.1.12:22"
want_line "  ssh       core@10.10.1.23:22"
want_line "  roles     gpu_worker, scale_client"
want_line "            mlx5_3 port 1, 100 Gb/s 4X EDR, infiniband"
want_line "  gpus      8 x Tesla V100-SXM2-32GB"
want_line '            sm_backend: "switch"'
want_line "  jump      (direct)"
[ "$(grep -c '^  jump      bastion01$' "$TEST_DIR/show.txt")" -eq 7 ] ||
	fail "expected 7 hosts jumping through bastion01"

"$BRINGUP" inventory show -i "$inv" -o json >"$TEST_DIR/show.json" || fail "show -o json failed"
python3 - "$TEST_DIR/show.json" <<'PY' || fail "JSON view is wrong"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["cluster"] == "redbook-poc", j["cluster"]
assert j["vars"]["ofed_version"] == "MLNX_OFED_LINUX-4.7-3.2.9.0"
assert j["vars"]["gpfs_remote_filesystem"] == "ess3000_4M"
hosts = {h["name"]: h for h in j["hosts"]}
assert list(hosts) == ["dgx01", "dgx02", "scale00", "ibsw01", "master01",
                       "master02", "master03", "bastion01"], list(hosts)
d = hosts["dgx02"]
assert d["ssh"]["address"] == "10.10.1.12" and d["ssh"]["port"] == 22
assert d["ssh"]["proxy_jump"] == "bastion01"
assert d["roles"] == ["gpu_worker", "scale_client"]
assert [h["name"] for h in d["hcas"]] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
assert all(h["rate_gbps"] == 100 and h["speed"] == "EDR" for h in d["hcas"])
assert d["gpus"] == {"count": 8, "model": "Tesla V100-SXM2-32GB"}
cfg = d["vars"]["gpfs_config"]
assert cfg["pagepool"] == "128G" and cfg["workerThreads"] == 1024
assert cfg["verbsRdma"] == "enable" and cfg["verbsRdmaSend"] == "yes"
assert hosts["scale00"]["vars"]["gpfs_gui"] is True
assert hosts["scale00"]["roles"] == ["scale_quorum", "scale_manager"]
assert hosts["bastion01"]["ssh"]["proxy_jump"] is None
assert hosts["ibsw01"]["vars"]["sm_backend"] == "switch"
assert j["groups"]["ocp_master"]["nodeset"] == "master[01-03]"
PY

"$BRINGUP" inventory show -i "$inv" --host scale00 -o json >"$TEST_DIR/one.json" ||
	fail "show --host failed"
python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"]; assert [x["name"] for x in h]==["scale00"], h' \
	"$TEST_DIR/one.json" || fail "--host did not narrow the JSON view"
"$BRINGUP" inventory show -i "$inv" --host dgx01 >"$TEST_DIR/one.txt" || fail "show --host text failed"
[ "$(head -n 1 "$TEST_DIR/one.txt")" = "dgx01" ] || fail "--host text does not start with the host"
grep -q '^dgx02' "$TEST_DIR/one.txt" && fail "--host dgx01 printed dgx02"

"$BRINGUP" inventory show -i "$inv" --host dgx09 >/dev/null 2>"$TEST_DIR/err"
rc=$?
[ "$rc" -eq 2 ] || fail "unknown --host exited $rc, expected 2"
grep -q "no host 'dgx09'" "$TEST_DIR/err" || fail "unknown --host message: $(cat "$TEST_DIR/err")"
echo "PoC inventory shown as text and JSON"
