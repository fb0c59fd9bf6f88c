#!/bin/sh
# `bundle --offline` packs an OFED tarball per distribution and kernel of
# the inventory with the SELinux module, the manifests, the peer-memory
# sources, images.txt (the images of the rendered OpenShift objects: empty
# without an openshift section) and a SHA256SUMS
# that sha256sum -c accepts; it is refused, naming the node, when a host's
# distribution has no tarball or its distribution or kernel is unknown.
# `deploy --from-bundle` installs OFED from the bundle alone (the original
# tarball gone), builds nv_peer_mem from the bundle's peer-memory sources on
# hosts that lack them, and refuses a bundle whose contents changed.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the test bundles are x86_64"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
mkdir -p "$TEST_DIR/ofed"
"$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed" 4.7-3.2.9.0 rhel7.6 x86_64 3.10.0-957.el7.x86_64 >/dev/null ||
	fail "make-bundle"
# The nv_peer_memory sources as `git clone` gives them, for --peermem.
"$(dirname "$0")/../../sim/tools/sim-nv-peer-memory-src" "$TEST_DIR/nvsrc" || fail "sim-nv-peer-memory-src"
# Only the tarball in --ofed: the inventory's own is dropped.
grep -v '^    ofed_tarball:' "$INV" >"$TEST_DIR/inv.yaml"

out=$("$BRINGUP" bundle --offline -i "$TEST_DIR/inv.yaml" --ofed "$TEST_DIR/ofed" \
	--peermem "$TEST_DIR/nvsrc" -o "$TEST_DIR/b.tar.gz" 2>&1) || fail "bundle --offline: $out"
echo "$out" | grep -q '^peermem: .*/nvsrc (peermem/nv_peer_memory.tar.gz)$' || fail "no peermem line: $out"
echo "$out" | grep -q '^images: none (the inventory has no openshift section' || fail "no images line: $out"
echo "$out" | grep -q '^ofed: MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64.tgz (rhel7.6)' || fail "report: $out"
mkdir "$TEST_DIR/x" && tar -xzf "$TEST_DIR/b.tar.gz" -C "$TEST_DIR/x" || fail "not a tar.gz"
top=$TEST_DIR/x/bringup-offline
for f in SHA256SUMS manifest.json ofed/MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64.tgz \
	selinux/infiniband.te manifests/selinux/infiniband.te manifests/playbooks/deploy.yaml images.txt peermem/nv_peer_memory.tar.gz; do
	[ -f "$top/$f" ] || fail "the bundle lacks $f"
done
tar -tzf "$top/peermem/nv_peer_memory.tar.gz" | grep -qx 'nv_peer_memory/build_module.sh' ||
	fail "the peermem tarball has no nv_peer_memory/build_module.sh"
[ -s "$top/images.txt" ] && fail "images.txt without an openshift section: $(cat "$top/images.txt")"
(cd "$top" && sha256sum --quiet -c SHA256SUMS) || fail "sha256sum -c SHA256SUMS"
[ "$(grep -c . "$top/SHA256SUMS")" -eq "$(cd "$top" && find . -type f ! -name SHA256SUMS | wc -l)" ] ||
	fail "SHA256SUMS does not list every file"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for h in ("dgx01", "dgx02"):
    e = m["hosts"][h]
    assert e["distro"] == "rhel7.6" and e["kernel"] == "3.10.0-957.el7.x86_64", e
    assert e["ofed"] == "ofed/MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64.tgz", e
' "$top/manifest.json" || fail "manifest.json"

# With an openshift section: the images of the objects `render` makes.
python3 - "$TEST_DIR/inv.yaml" "$TEST_DIR/inv-os.yaml" "$(cd "$(dirname "$0")/../.." && pwd)" <<'PY'
import sys
s = open(sys.argv[1]).read()
assert "\n  vars:\n" in s, "sim inventory changed shape"
s = s.replace("\n  vars:\n", """
  vars:
    openshift:
      user_namespaces: [ml]
      csi: { local: { gui_host: gui, secret: s, gui_ca_file: "ROOT/inventory/certs/redbook-poc-gui-local-ca.pem" } }
      volumes: [ { name: data, dir: d, storage: 1Gi } ]
      rdma: { image: "registry.example/rdma-plugin:1.2" }
""".replace("ROOT", sys.argv[3]), 1)
open(sys.argv[2], "w").write(s)
PY
out=$("$BRINGUP" bundle --offline -i "$TEST_DIR/inv-os.yaml" --ofed "$TEST_DIR/ofed" -o "$TEST_DIR/os.tar.gz" 2>&1) ||
	fail "bundle --offline with openshift: $out"
echo "$out" | grep -qx 'images: 1 in images.txt' || fail "images line: $out"
[ "$(tar -xzOf "$TEST_DIR/os.tar.gz" bringup-offline/images.txt)" = "registry.example/rdma-plugin:1.2" ] ||
	fail "images.txt: $(tar -xzOf "$TEST_DIR/os.tar.gz" bringup-offline/images.txt)"

# dgx02 on another distribution: refused at creation, naming it alone.
python3 - "$TEST_DIR/inv.yaml" "$TEST_DIR/inv-mixed.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = '  "dgx[01-02]":\n    address: "127.0.1.[1-2]"\n    hardware: dgx1-edr\n'
assert old in s, "sim inventory changed shape"
s = s.replace(old, '  dgx01:\n    address: "127.0.1.1"\n    hardware: dgx1-edr\n'
              '  dgx02:\n    address: "127.0.1.2"\n    hardware: dgx1-edr\n'
              '    vars: { os_version_id: "8.8", kernel: "4.18.0-477.el8.x86_64" }\n')
open(sys.argv[2], "w").write(s)
PY
out=$("$BRINGUP" bundle --offline -i "$TEST_DIR/inv-mixed.yaml" --ofed "$TEST_DIR/ofed" -o "$TEST_DIR/m.tar.gz" 2>&1)
[ $? -eq 2 ] || fail "a bundle missing rhel8.8 was not refused: $out"
echo "$out" | grep -q 'no OFED tarball for rhel8.8 kernel 4.18.0-477.el8.x86_64: dgx02$' ||
	fail "the refusal does not name dgx02: $out"
[ -e "$TEST_DIR/m.tar.gz" ] && fail "a refused bundle was written"
sed 's/^    kernel: .*//' "$TEST_DIR/inv.yaml" >"$TEST_DIR/inv-nokernel.yaml"
out=$("$BRINGUP" bundle --offline -i "$TEST_DIR/inv-nokernel.yaml" --ofed "$TEST_DIR/ofed" -o "$TEST_DIR/m.tar.gz" 2>&1)
echo "$out" | grep -q 'distribution or kernel unknown.*: dgx\[01-02\]' || fail "unknown kernel: $out"

# deploy from the bundle alone: the tarball it was made from is gone.
rm -rf "$TEST_DIR/ofed" "$BRINGUP_SIM_DIR/cluster/ofed"
cat >"$TEST_DIR/pb.yaml" <<YAML
name: ofed-offline
stages:
  - name: ofed
    module: ofed
    hosts: gpu_worker
YAML
out=$("$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" \
	--from-bundle "$TEST_DIR/b.tar.gz" 2>&1) || fail "deploy --from-bundle: $out"
echo "$out" | grep -q "^from-bundle: .* checked" || fail "no from-bundle line: $out"
echo "$out" | grep -Eq '^  ofed +changed +dgx\[01-02\]$' || fail "ofed not installed from the bundle: $out"
sim_ssh 127.0.1.2 ofed_info -s | grep -q 'MLNX_OFED_LINUX-4.7-3.2.9.0' || fail "dgx02 has no OFED"

# nv_peer_mem built from the bundle's sources on hosts that have none (OFED
# was installed without them; the directory they were packed from is gone).
NODES=$BRINGUP_SIM_DIR/nodes
rm -rf "$TEST_DIR/nvsrc" "$NODES"/dgx0[12]/root/usr/src/nv_peer_memory
cat >"$TEST_DIR/pm.yaml" <<YAML
name: peermem-offline
stages:
  - name: peermem
    module: peermem
    hosts: gpu_worker
    params:
      module: nv_peer_mem
YAML
pm() { "$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$TEST_DIR/pm.yaml" --state-dir "$STATE" "$@" 2>&1; }
out=$(pm --check)
echo "$out" | grep -q 'no nv_peer_memory sources at /usr/src/nv_peer_memory' || fail "no sources not said: $out"
out=$(pm --check --from-bundle "$TEST_DIR/b.tar.gz")
echo "$out" | grep -q 'upload .*/peermem/nv_peer_memory.tar.gz and unpack it into /usr/src/nv_peer_memory' ||
	fail "--check does not say the sources come from the bundle: $out"
[ -e "$NODES/dgx01/root/usr/src/nv_peer_memory" ] && fail "--check changed dgx01"
out=$(pm --from-bundle "$TEST_DIR/b.tar.gz") || fail "peermem from the bundle: $out"
echo "$out" | grep -Eq '^  peermem +changed +dgx\[01-02\]$' || fail "peermem not built from the bundle: $out"
for n in dgx01 dgx02; do
	[ -x "$NODES/$n/root/usr/src/nv_peer_memory/build_module.sh" ] || fail "$n: sources not unpacked"
	[ -e "$NODES/$n/root/usr/src/nv_peer_memory.bringup.tar.gz" ] && fail "$n: the upload was left behind"
	grep -qx nv_peer_mem "$NODES/$n/state/modules/loaded" || fail "$n: nv_peer_mem not loaded"
done
out=$(pm --from-bundle "$TEST_DIR/b.tar.gz") || fail "second peermem run: $out"
echo "$out" | grep -Eq '^  peermem +ok +dgx\[01-02\]$' || fail "second peermem run changed something: $out"

# A bundle changed after it was made is refused before any host is touched.
echo "# changed" >>"$top/manifests/playbooks/deploy.yaml"
tar -czf "$TEST_DIR/bad.tar.gz" -C "$TEST_DIR/x" bringup-offline
out=$("$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" \
	--from-bundle "$TEST_DIR/bad.tar.gz" 2>&1) && fail "a changed bundle was used: $out"
echo "$out" | grep -q 'manifests/playbooks/deploy.yaml does not match SHA256SUMS' || fail "not named: $out"
echo "ok: offline bundle"
