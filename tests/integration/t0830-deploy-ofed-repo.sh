#!/bin/sh
# OFED from a package repository the nodes already reach (source repo):
# a node whose repository offers the desired release gets mlnx-ofed-all and
# converges; a node without such a repository, or whose repository offers
# another release, fails in check with what it found, before any change.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state bare
NODES=$BRINGUP_SIM_DIR/nodes
repo() {
	mkdir -p "$NODES/$1/root/etc/yum.repos.d"
	printf '[mlnx_ofed]\nname=MLNX_OFED\nbaseurl=http://repo.example/%s/RPMS\nenabled=1\n' \
		"$2" >"$NODES/$1/root/etc/yum.repos.d/mlnx_ofed.repo"
}
repo dgx01 MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64
repo dgx03 MLNX_OFED_LINUX-4.6-1.0.1.1-rhel7.6-x86_64
cat >"$TEST_DIR/pb.yaml" <<'YAML'
name: ofed-repo
stages:
  - name: ofed
    module: ofed
    hosts: gpu_worker
    params:
      source: repo
YAML
deploy() { "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$TEST_DIR/state" "$@"; }

out=$(deploy) && fail "deploy passed without repositories on dgx02 and dgx03: $out"
echo "$out" | grep -Eq '^  ofed +changed +dgx01$' || fail "dgx01: $out"
echo "$out" | grep -Eq '^  ofed +failed +dgx02: check: no repository offers mlnx-ofed-all on this host' ||
	fail "dgx02: $out"
echo "$out" | grep -Eq '^  ofed +failed +dgx03: check: the repository offers mlnx-ofed-all 4.6-1.0.1.1.rhel7u6, not the desired MLNX_OFED_LINUX-4.7-3.2.9.0$' ||
	fail "dgx03: $out"
[ "$(cat "$NODES/dgx01/state/ofed_version")" = MLNX_OFED_LINUX-4.7-3.2.9.0 ] || fail "dgx01 not installed"
[ ! -e "$NODES/dgx01/state/ofed_fw_updated" ] || fail "dgx01: firmware updated"
for n in dgx02 dgx03; do
	[ ! -e "$NODES/$n/state/ofed_version" ] || fail "$n changed"
done
run=$(readlink "$TEST_DIR/state/last")
grep -q '# stdin: templates/ofed/install-repo.sh' "$TEST_DIR/state/$run/hosts/dgx01.log" ||
	fail "no repository install logged"
out=$(deploy --limit dgx01) || fail "second run on dgx01: $out"
echo "$out" | grep -Eq '^  ofed +ok +dgx01$' || fail "second run changed dgx01: $out"
exit 0
