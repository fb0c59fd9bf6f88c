#!/bin/sh
# The stand-ins the deploy modules use on simulated nodes, run directly on a
# plain node directory (no sshd, as sim/README.md allows): checkmodule,
# semodule_package, semodule, setenforce and dracut keep their state under
# state/ and answer as the real tools do, errors included.
. "$(dirname "$0")/lib.sh"
TOOLS=$(cd "$(dirname "$0")/../../sim/tools" && pwd)
TE=$(cd "$(dirname "$0")/../../templates/selinux" && pwd)/infiniband.te
N=$TEST_DIR/node C=$TEST_DIR/cluster W=$TEST_DIR/work
mkdir -p "$N/state" "$N/faults" "$C" "$W"
cat >"$N/node.conf" <<'CONF'
NODE_NAME='dgx01'
NODE_INDEX='0'
KERNEL='3.10.0-957.el7.x86_64'
HCAS=''
CONF
echo Enforcing >"$N/state/selinux"
export BRINGUP_SIM_NODE=$N BRINGUP_SIM_CLUSTER=$C

out=$("$TOOLS/checkmodule" -M -m -o "$W/ib.mod" "$TE") || fail "checkmodule: $out"
echo "$out" | grep -qx "checkmodule:  writing binary representation (version 17) to $W/ib.mod" ||
	fail "checkmodule wording: $out"
printf 'allow x y:z w;\n' >"$W/bad.te"
out=$("$TOOLS/checkmodule" -M -m -o "$W/bad.mod" "$W/bad.te" 2>&1) && fail "bad .te compiled"
echo "$out" | grep -q "ERROR 'syntax error'" || fail "no syntax error: $out"
[ ! -e "$W/bad.mod" ] || fail "a failed compile wrote its output"

"$TOOLS/semodule_package" -o "$W/ib.pp" -m "$W/ib.mod" || fail "semodule_package"
"$TOOLS/semodule_package" -o "$W/x.pp" -m "$TE" 2>/dev/null && fail "packaged a non-module"

"$TOOLS/semodule" -l | grep -q '^infiniband' && fail "installed before -i"
"$TOOLS/semodule" -l | grep -q "^container	" || fail "no base modules listed"
"$TOOLS/semodule" -i "$W/ib.pp" || fail "semodule -i"
"$TOOLS/semodule" -l | grep -qx "infiniband	1.0" || fail "not listed after -i: $("$TOOLS/semodule" -l)"
"$TOOLS/semodule" -i "$W/bad.te" 2>/dev/null && fail "installed a non-package"
"$TOOLS/semodule" -r infiniband || fail "semodule -r"
"$TOOLS/semodule" -l | grep -q '^infiniband' && fail "still listed after -r"
"$TOOLS/semodule" -r infiniband 2>/dev/null && fail "removed twice"

"$TOOLS/setenforce" 0 || fail "setenforce 0"
[ "$("$TOOLS/getenforce")" = Permissive ] || fail "getenforce after setenforce 0"
"$TOOLS/setenforce" Enforcing && [ "$("$TOOLS/getenforce")" = Enforcing ] || fail "setenforce Enforcing"
"$TOOLS/setenforce" maybe 2>/dev/null && fail "setenforce took a bad mode"
echo Disabled >"$N/state/selinux"
out=$("$TOOLS/setenforce" 1 2>&1) && fail "setenforce on a disabled node"
echo "$out" | grep -qx "setenforce: SELinux is disabled" || fail "wording: $out"
out=$("$TOOLS/semodule" -l 2>&1) && fail "semodule on a disabled node"
echo "$out" | grep -q "SELinux policy is not managed" || fail "wording: $out"

img=$W/initramfs.img
"$TOOLS/dracut" -f "$img" 3.10.0-957.el7.x86_64 || fail "dracut -f"
head -n 1 "$img" | grep -qx '# simulated initramfs for 3.10.0-957.el7.x86_64' || fail "image: $(cat "$img")"
out=$("$TOOLS/dracut" "$img" 3.10.0-957.el7.x86_64 2>&1) && fail "dracut replaced an image without -f"
echo "$out" | grep -q "Will not override existing initramfs ($img) without --force" || fail "wording: $out"
"$TOOLS/dracut" --force "$img" 3.10.0-957.el7.x86_64 || fail "dracut --force"
[ "$(cat "$N/state/initramfs/3.10.0-957.el7.x86_64.builds")" = 2 ] || fail "builds not counted"
exit 0
