#!/bin/sh
# t0300: the InfiniBand/OFED/kernel-module stand-ins of sim/tools, run
# directly (no sshd) on node dirs built by sim-node-init: outputs equal the
# real tools' layouts (fixtures under tests/fixtures/sim), every fault
# changes exactly what it should and `clear` restores it, modprobe/rmmod and
# systemctl change node and fabric state, a bare node has no OFED.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
TOOLS=$(cd "$here/../../sim/tools" && pwd)
FIX=$(cd "$here/../fixtures/sim" && pwd)
EXP=$FIX/expected
D=$TEST_DIR/sim
CL=$D/cluster
command -v flock >/dev/null || skip flock

# node NAME INDEX STATE SM_HOST: writes a dgx1-edr node.conf and inits it.
node() {
	mkdir -p "$D/nodes/$1"
	cat >"$D/nodes/$1/node.conf" <<EOF
NODE_NAME='$1'
NODE_INDEX='$2'
NODE_COUNT='3'
NODE_ADDR='127.0.0.$(($2 + 1))'
PROFILE='dgx1-edr'
STATE='$3'
OS_ID='rhel'
OS_VERSION_ID='7.6'
OS_PRETTY_NAME='Red Hat Enterprise Linux Server 7.6 (Maipo)'
KERNEL='3.10.0-957.el7.x86_64'
GPU_COUNT='8'
GPU_MODEL='Tesla V100-SXM2-32GB'
GPU_DRIVER='418.87.01'
CUDA_VERSION='10.1'
HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3'
HCA_mlx5_0='InfiniBand 100 4X EDR compute'
HCA_mlx5_1='InfiniBand 100 4X EDR compute'
HCA_mlx5_2='InfiniBand 100 4X EDR storage'
HCA_mlx5_3='InfiniBand 100 4X EDR storage'
OFED_VERSION='MLNX_OFED_LINUX-4.7-3.2.9.0'
PEERMEM_MODULE='nv_peer_mem'
SM_HOST='$4'
EOF
	"$TOOLS/sim-node-init" "$D/nodes/$1" "$CL" || fail "sim-node-init $1"
}

# on NODE TOOL ARGS...: runs a stand-in the way a command on NODE would.
on() {
	n=$1; shift
	BRINGUP_SIM_NODE=$D/nodes/$n BRINGUP_SIM_CLUSTER=$CL PATH="$TOOLS:$PATH" "$@"
}
fault() { n=$1; shift; "$TOOLS/sim-fault" "$D/nodes/$n" "$CL" "$@"; }

# same NAME EXPECTED_FILE ACTUAL_FILE: byte-for-byte comparison.
same() {
	cmp -s "$2" "$3" && return 0
	diff -u "$2" "$3" >&2
	fail "$1: output differs from $(basename "$2")"
}
# out NODE CMD...: stdout of a stand-in into $TEST_DIR/out, status in $rc.
out() { on "$@" >"$TEST_DIR/out" 2>"$TEST_DIR/err"; rc=$?; }

node dgx01 0 ready 0
node dgx02 1 ready 1
node dgx03 2 bare 0

# Give dgx01 the identity of the seed's DGX-1 (port GUIDs, LIDs) and the SM
# on dgx02 the seed's SM lid 9: ibstatus must then be the fixture, byte for byte.
H=$D/nodes/dgx01/state/hca
set -- 0xec0d9a030044d2d0 11 0xec0d9a030044d608 13 0xec0d9a03006efef2 12 0xec0d9a030044bda4 14
for i in 0 1 2 3; do
	echo "$1" >"$H/mlx5_$i/port_guid"; echo "$2" >"$H/mlx5_$i/lid"; shift 2
done
echo 9 >"$D/nodes/dgx02/state/hca/mlx5_0/lid"
on dgx02 systemctl restart opensm || fail "systemctl restart opensm"

out dgx01 ibstatus
same "ibstatus (ready)" "$FIX/ibstatus_dgx1_4x_edr100_healthy_seed_reconstructed.txt" "$TEST_DIR/out"
out dgx01 ibstat
same "ibstat (ready)" "$EXP/ibstat_dgx1_ready.txt" "$TEST_DIR/out"
cp "$TEST_DIR/out" "$TEST_DIR/ibstat.base"
out dgx01 ibstat mlx5_1 1
same "ibstat mlx5_1 1" "$EXP/ibstat_mlx5_1_port1.txt" "$TEST_DIR/out"
out dgx01 ibstat -l
printf 'mlx5_0\nmlx5_1\nmlx5_2\nmlx5_3\n' | same "ibstat -l" - "$TEST_DIR/out"
out dgx01 ibv_devinfo -d mlx5_0
same "ibv_devinfo -d mlx5_0" "$EXP/ibv_devinfo_mlx5_0.txt" "$TEST_DIR/out"
out dgx01 ofed_info -s
printf 'MLNX_OFED_LINUX-4.7-3.2.9.0:\n' | same "ofed_info -s" - "$TEST_DIR/out"
# Same shape as the real 4.7 output in the fixture.
sed 's/[0-9]/N/g' "$FIX/ofed_info_s_mlnx_ofed_4_7.txt" >"$TEST_DIR/shape"
sed 's/[0-9]/N/g' "$TEST_DIR/out" | same "ofed_info -s shape" "$TEST_DIR/shape" -
out dgx01 lsmod
same "lsmod (ready)" "$EXP/lsmod_dgx1_ready.txt" "$TEST_DIR/out"
grep '^nv_peer_mem ' "$TEST_DIR/out" >"$TEST_DIR/line"
head -n 1 "$FIX/lsmod_grep_peer_nv_peer_mem_dgx1_rhel76_seed_reconstructed.txt" |
	same "lsmod nv_peer_mem line" - "$TEST_DIR/line"

# sminfo: master on dgx02, in the layout of the fixture.
out dgx01 sminfo
[ "$rc" -eq 0 ] || fail "sminfo exit $rc"
grep -q '^sminfo: sm lid 9 sm guid 0xec0d9a0300000200, activity count [0-9]* priority 14 state 3 SMINFO_MASTER$' \
	"$TEST_DIR/out" || fail "sminfo: $(cat "$TEST_DIR/out")"
sed 's/0x[0-9a-f]*/G/; s/[0-9][0-9]*/N/g' "$FIX/sminfo_master_healthy.txt" >"$TEST_DIR/shape"
sed 's/0x[0-9a-f]*/G/; s/[0-9][0-9]*/N/g' "$TEST_DIR/out" | same "sminfo shape" "$TEST_DIR/shape" -

# ---- faults: each changes exactly its output, clear restores it --------
restored() {
	fault dgx01 clear || fail "sim-fault clear"
	out dgx01 ibstat
	same "ibstat after clear of $1" "$TEST_DIR/ibstat.base" "$TEST_DIR/out"
}

fault dgx01 port-down mlx5_1 || fail "sim-fault port-down"
out dgx01 ibstat
same "ibstat port-down" "$EXP/ibstat_dgx1_port_down_mlx5_1.txt" "$TEST_DIR/out"
# The down port's values are those of the real CX-6 capture.
block() { awk '/^CA /{ on = ($2 == "'"'"'mlx5_1'"'"'") } on && /State:/, on && /SM lid:/' "$1"; }
block "$TEST_DIR/out" | tr -d '\t' >"$TEST_DIR/a"
block "$FIX/ibstat_cx6_hdr200_one_active_one_down_disabled_excerpt.txt" | sed 's/^ *//' >"$TEST_DIR/b"
same "port-down values" "$TEST_DIR/b" "$TEST_DIR/a"
out dgx01 ibv_devinfo -d mlx5_1
grep -q "$(printf '\t\t\tstate:\t\t\tPORT_DOWN (1)')" "$TEST_DIR/out" || fail "ibv_devinfo port-down"
restored port-down

fault dgx01 port-down mlx5_3:polling
out dgx01 ibstat mlx5_3 1
grep -qx 'Physical state: Polling' "$TEST_DIR/out" || fail "port-down :polling"
restored port-down:polling

fault dgx01 link-degraded || fail "sim-fault link-degraded"
out dgx01 ibstatus
same "ibstatus link-degraded" "$EXP/ibstatus_dgx1_link_degraded.txt" "$TEST_DIR/out"
out dgx01 ibv_devinfo -v -d mlx5_0
grep -q "$(printf 'active_width:\t\t1X (1)')" "$TEST_DIR/out" || fail "ibv_devinfo -v: width not 1X"
grep -q "$(printf 'active_speed:\t\t25.0 Gbps (32)')" "$TEST_DIR/out" || fail "ibv_devinfo -v speed"
restored link-degraded
fault dgx01 link-degraded mlx5_2:speed
out dgx01 ibstatus mlx5_2
grep -q "$(printf 'rate:\t\t 56 Gb/sec (4X FDR)')" "$TEST_DIR/out" || fail "link-degraded speed: $(cat "$TEST_DIR/out")"
restored link-degraded:speed

fault dgx01 ofed-drift
out dgx01 ofed_info -s
printf 'MLNX_OFED_LINUX-4.6-1.0.1.1:\n' | same "ofed-drift" - "$TEST_DIR/out"
fault dgx01 clear
out dgx01 ofed_info -n
printf '4.7-3.2.9.0\n' | same "ofed_info -n after clear" - "$TEST_DIR/out"

fault dgx01 module-missing
out dgx01 lsmod
grep -v '^nv_peer_mem ' "$EXP/lsmod_dgx1_ready.txt" |
	sed 's/^nvidia \( *[0-9]*\)  3 nv_peer_mem,/nvidia \1  2 /; s/^ib_core\( *[0-9]*\)  9 \(.*\)nv_peer_mem,/ib_core\1  8 \2/' |
	same "lsmod module-missing" - "$TEST_DIR/out"
out dgx01 modprobe nv_peer_mem
[ "$rc" -eq 1 ] || fail "modprobe of a missing module exit $rc"
echo "modprobe: FATAL: Module nv_peer_mem not found in directory /lib/modules/3.10.0-957.el7.x86_64" |
	same "modprobe missing" - "$TEST_DIR/err"
fault dgx01 clear
out dgx01 lsmod
same "lsmod after clear" "$EXP/lsmod_dgx1_ready.txt" "$TEST_DIR/out"

grep -qx 'blacklist nouveau' "$D/nodes/dgx01/root/etc/modprobe.d/blacklist-nouveau.conf" ||
	fail "ready node does not blacklist nouveau"
fault dgx01 nouveau-loaded
out dgx01 lsmod
sed -n 2p "$TEST_DIR/out" | grep -q '^nouveau  *1896005  0 $' || fail "nouveau-loaded: $(sed -n 2p "$TEST_DIR/out")"
on dgx01 rmmod nouveau || fail "rmmod nouveau"
out dgx01 lsmod
same "lsmod after rmmod nouveau" "$EXP/lsmod_dgx1_ready.txt" "$TEST_DIR/out"

hdr=$D/nodes/dgx01/root/usr/src/kernels/3.10.0-957.el7.x86_64
[ -d "$hdr" ] || fail "ready node has no kernel headers"
fault dgx01 no-kernel-headers
[ ! -e "$hdr" ] || fail "no-kernel-headers left $hdr"
fault dgx01 clear
[ -d "$hdr" ] || fail "clear did not restore the kernel headers"

lim=$D/nodes/dgx01/root/etc/security/limits.d/99-memlock.conf
grep -qx '\* hard memlock unlimited' "$lim" || fail "ready node has no memlock limits file"
fault dgx01 memlock-limited
[ -e "$D/nodes/dgx01/faults/memlock-limited" ] || fail "memlock-limited not recorded"
[ ! -e "$lim" ] || fail "memlock-limited left $lim"
[ "$(BRINGUP_SIM_NODE=$D/nodes/dgx01 BRINGUP_SIM_CLUSTER=$CL sh -c ". '$TOOLS/sim-lib.sh'; sim_load; sim_memlock")" = 64 ] ||
	fail "memlock-limited: sim_memlock is not 64"
fault dgx01 clear
[ -e "$lim" ] || fail "clear did not restore $lim"

fault dgx01 slow
[ "$(cat "$D/nodes/dgx01/faults/slow")" = 5 ] || fail "slow: default 5 seconds not recorded"
fault dgx01 clear
[ -z "$(ls "$D/nodes/dgx01/faults")" ] || fail "clear left faults: $(ls "$D/nodes/dgx01/faults")"

# no-sm raised on dgx02 takes the master away from the whole fabric.
fault dgx02 no-sm
out dgx01 ibstat
same "ibstat no-sm" "$EXP/ibstat_dgx1_no_sm.txt" "$TEST_DIR/out"
out dgx01 sminfo
[ "$rc" -eq 255 ] || fail "sminfo without SM exit $rc"
echo "sminfo: iberror: failed: query" | same "sminfo no-sm" - "$TEST_DIR/out"
grep -q '^ibwarn: \[[0-9]*\] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0)$' "$TEST_DIR/err" ||
	fail "sminfo no-sm stderr: $(cat "$TEST_DIR/err")"
fault dgx02 clear
restored no-sm

# two-sm-masters raised on dgx01: dgx01 follows a rogue master, dgx02 its own.
fault dgx01 two-sm-masters
out dgx01 sminfo
grep -q 'state 3 SMINFO_MASTER$' "$TEST_DIR/out" || fail "rogue SM not master: $(cat "$TEST_DIR/out")"
grep -q 'sm guid 0xec0d9a0300000200,' "$TEST_DIR/out" && fail "dgx01 still follows dgx02's SM"
out dgx02 sminfo 9
grep -q '^sminfo: sm lid 9 sm guid 0xec0d9a0300000200, .* state 3 SMINFO_MASTER$' "$TEST_DIR/out" ||
	fail "dgx02's SM no longer master: $(cat "$TEST_DIR/out")"
[ "$(on dgx02 sminfo | grep -c 'state 3 SMINFO_MASTER')" = 1 ] || fail "dgx02 sminfo"
fault dgx01 clear
out dgx01 sminfo
grep -q 'sm lid 9 sm guid 0xec0d9a0300000200,' "$TEST_DIR/out" || fail "clear two-sm-masters: $(cat "$TEST_DIR/out")"

fault dgx01 bogus 2>/dev/null; [ $? -eq 2 ] || fail "unknown fault kind must exit 2"
[ "$("$TOOLS/sim-fault" --list | wc -l)" -eq 41 ] || fail "sim-fault --list"
"$TOOLS/sim-fault" --list | grep -qx refuse-login || fail "sim-fault --list: no refuse-login"
for k in boot-hang openibd-busy install-slow gpfs-down quorum-loss remote-key-refused verbs-bad-port mmbuildgpl-fail \
	port-errors netdev-down nccl-socket-fallback gdr-missing storage-slow peer-ssh-denied; do
	"$TOOLS/sim-fault" --list | grep -qx "$k" || fail "sim-fault --list: no $k"
done
for k in gpfs-conn-down peermem-bad-symbols peermem-weak-updates port-moved other-fabric driver-drift \
	gpfs-stop-at verbs-off; do
	"$TOOLS/sim-fault" --list | grep -qx "$k" || fail "sim-fault --list: no $k"
done

# ---- iblinkinfo: one leaf, then two levels -----------------------------
# shape FILE: each line's kind and the columns of its fields ("[", "==(",
# "/", ")==>", the peer's "["), one per kind and layout: the layout of the
# stand-in must be the real tool's (capture from a QDR Infiniscale-IV).
shape() {
	awk '/^CA: .*:$/ { print "ca-header"; next }
	/^Switch: 0x[0-9a-f]+ .*:$/ { print "switch-header"; next }
	{
		rest = substr($0, index($0, ")==>") + 4)
		kind = $1 ~ /^0x/ ? "ca-port" : /Down\// ? "down-port" : "switch-port"
		print kind, index($0, "["), index($0, "==("), index($0, "/"), index($0, ")==>"),
			index(rest, "[")
	}' "$1" | sort -u
}
REAL=$here/../fixtures/tools/iblinkinfo/iblinkinfo_qdr_infiniscale_iv_switch_ports_down_polling.txt
out dgx01 iblinkinfo
[ "$rc" -eq 0 ] || fail "iblinkinfo exit $rc: $(cat "$TEST_DIR/err")"
grep -c '^Switch: ' "$TEST_DIR/out" | grep -qx 1 || fail "one leaf wanted: $(cat "$TEST_DIR/out")"
shape "$REAL" >"$TEST_DIR/shape.real"
shape "$TEST_DIR/out" >"$TEST_DIR/shape.sim"
same "iblinkinfo layout (one leaf)" "$TEST_DIR/shape.real" "$TEST_DIR/shape.sim"
cp "$TEST_DIR/out" "$TEST_DIR/iblinkinfo.one"

# ibhosts: the CAs iblinkinfo shows, one line each in the capture's layout
# (a tab after "Ca", the GUID, "ports N", the description quoted).
out dgx01 ibhosts
[ "$rc" -eq 0 ] || fail "ibhosts exit $rc: $(cat "$TEST_DIR/err")"
sed -n 's/^CA: \(.*\):$/\1/p' "$TEST_DIR/iblinkinfo.one" >"$TEST_DIR/cas.want"
sed -n 's/^Ca\t: 0x[0-9a-f]\{16\} ports 1 "\(.*\)"$/\1/p' "$TEST_DIR/out" >"$TEST_DIR/cas.got"
same "ibhosts: the CAs of iblinkinfo" "$TEST_DIR/cas.want" "$TEST_DIR/cas.got"
[ "$(wc -l <"$TEST_DIR/out")" -eq "$(wc -l <"$TEST_DIR/cas.got")" ] || fail "ibhosts: lines off the layout: $(cat "$TEST_DIR/out")"
grep -q "$(printf '^Ca\t: 0x[0-9a-f]\\{16\\} ports 1 "dgx02 HCA-3"$')" \
	"$here/../fixtures/tools/ibhosts/dgx1_edr_fabric_17_cas_mlx5_0_seed_reconstructed.txt" ||
	fail "the capture no longer has the layout this test holds the stand-in to"

# Leaves of 4 host ports, 2 spines, 2 cables from each leaf to each spine:
# dgx01's 4 ports on leaf01 ports 1-4, dgx02's on leaf02, dgx03's on leaf03;
# leaf ports 5-6 go to spine01, 7-8 to spine02.
echo LEAF_PORTS=4 >"$CL/fabric.conf"
out dgx01 iblinkinfo
[ "$(grep -c '^Switch: ' "$TEST_DIR/out")" -eq 5 ] || fail "3 leaves + 2 spines wanted: $(cat "$TEST_DIR/out")"
shape "$TEST_DIR/out" >"$TEST_DIR/shape.sim"
same "iblinkinfo layout (two levels)" "$TEST_DIR/shape.real" "$TEST_DIR/shape.sim"
grep -q '^CA: dgx02 mlx5_2:$' "$TEST_DIR/out" || fail "no dgx02 mlx5_2"
grep -A1 '^CA: dgx02 mlx5_2:$' "$TEST_DIR/out" | grep -q '==>[ 0-9]*    3\[  \] "MF0;sim-leaf02:MSB7700/U1" ( )$' ||
	fail "dgx02 mlx5_2 not on leaf02 port 3: $(cat "$TEST_DIR/out")"
[ "$(grep -c '==( 4X .*"MF0;sim-spine0[12]:MSB7700/U1" ( )$' "$TEST_DIR/out")" -eq 12 ] ||
	fail "want 12 leaf-to-spine cables at 4X: $(cat "$TEST_DIR/out")"
[ "$(grep -c '==( 4X .*"MF0;sim-leaf0[1-3]:MSB7700/U1" ( )$' "$TEST_DIR/out")" -eq 24 ] ||
	fail "want 12 cables seen from the spines and 12 host ports at 4X: $(cat "$TEST_DIR/out")"
cp "$TEST_DIR/out" "$TEST_DIR/two-level.base"
fault dgx03 isl-degraded bogus 2>/dev/null; [ $? -eq 2 ] || fail "isl-degraded without SWITCH/PORT must exit 2"
fault dgx03 isl-degraded sim-leaf02/7 || fail "fault isl-degraded"
out dgx01 iblinkinfo
# exactly the two ends of that cable changed: leaf02 port 7 and spine02 port 3
diff "$TEST_DIR/two-level.base" "$TEST_DIR/out" | grep '^>' >"$TEST_DIR/isl.diff"
[ "$(wc -l <"$TEST_DIR/isl.diff")" -eq 2 ] || fail "isl-degraded changed: $(cat "$TEST_DIR/isl.diff")"
grep -q '^> *[0-9]*    7\[  \] ==( 1X      25.78125 Gbps Active/  LinkUp)==> *[0-9]*    3\[  \] "MF0;sim-spine02:MSB7700/U1" (Could be 4X )$' \
	"$TEST_DIR/isl.diff" || fail "leaf02 port 7 not 1X: $(cat "$TEST_DIR/isl.diff")"
grep -q '^> *[0-9]*    3\[  \] ==( 1X      25.78125 Gbps Active/  LinkUp)==> *[0-9]*    7\[  \] "MF0;sim-leaf02:MSB7700/U1" (Could be 4X )$' \
	"$TEST_DIR/isl.diff" || fail "spine02 port 3 not 1X: $(cat "$TEST_DIR/isl.diff")"
fault dgx03 clear isl-degraded
out dgx01 iblinkinfo
same "iblinkinfo after clearing isl-degraded" "$TEST_DIR/two-level.base" "$TEST_DIR/out"

# ---- ibnetdiscover: the same fabric as a topology file -------------------
# nshape FILE: each line with its names, GUIDs, numbers, rates and quoted
# descriptions replaced by placeholders, once each: the stand-in's lines
# must be the real tool's (capture from an NDR MQM9701 leaf: tabs, the
# space before a CA's tab, "enhanced port 0", CA blocks).
nshape() {
	sed -e 's/^# Topology file: generated on .*/# Topology file: generated on DATE/' \
		-e 's/"[SHR]-[0-9a-f]\{16\}"/"X-GUID"/g' -e 's/"[^"]*"/"D"/g' \
		-e 's/0x[0-9a-f]*/0xH/g' -e 's/[0-9a-f]\{12,16\}/GUID/g' \
		-e 's/[0-9][0-9]*x[SDQFEHNX]DR/WxRATE/g' -e 's/[0-9][0-9]*/N/g' "$1" | sort -u
}
out dgx01 ibnetdiscover
[ "$rc" -eq 0 ] || fail "ibnetdiscover exit $rc: $(cat "$TEST_DIR/err")"
nshape "$here/../fixtures/tools/ibnetdiscover/ibnetdiscover_ndr_mqm9701_leaf_dgx_hcas_sharp_node_excerpt.txt" >"$TEST_DIR/nshape.real"
nshape "$TEST_DIR/out" >"$TEST_DIR/nshape.sim"
same "ibnetdiscover layout" "$TEST_DIR/nshape.real" "$TEST_DIR/nshape.sim"
# the links are iblinkinfo's: every switch port line names the same peer
# and port in both tools ("SWITCH PORT PEER PEERPORT")
awk '/^CA: / { sw = "" } /^Switch: / { sw = $3; sub(/:$/, "", sw) } sw != "" && /LinkUp/ { split($0, a, "\""); split(substr($0, index($0, ")==>") + 4), b, "[")
	n = split(b[1], c, " "); print sw, $2 + 0, a[2], c[n] + 0 }' "$TEST_DIR/two-level.base" | sort >"$TEST_DIR/links.lnk"
awk -F '\t' '/^Switch\t/ { split($2, h, "\""); sw = $0; sub(/.*# "/, "", sw); sub(/".*/, "", sw) }
	/^\[[0-9]+\]\t/ { p = $1; gsub(/[][]/, "", p); d = $NF; sub(/^# "/, "", d); sub(/" lid .*/, "", d)
	pp = $2; sub(/^[^[]*\[/, "", pp); sub(/\].*/, "", pp); print sw, p + 0, d, pp + 0 }' "$TEST_DIR/out" |
	sort >"$TEST_DIR/links.nd"
same "ibnetdiscover links = iblinkinfo links" "$TEST_DIR/links.lnk" "$TEST_DIR/links.nd"
[ "$(wc -l <"$TEST_DIR/links.nd")" -eq 36 ] || fail "want 36 cabled switch ports: $(cat "$TEST_DIR/links.nd")"

# port-moved: dgx02 mlx5_1's cable on leaf03's first free port (9: 1-4
# hosts, 5-8 uplinks), seen alike by iblinkinfo and ibnetdiscover
fault dgx02 port-moved mlx5_1 2>/dev/null; [ $? -eq 2 ] || fail "port-moved without LEAF must exit 2"
fault dgx02 port-moved mlx5_1:sim-leaf03 || fail "fault port-moved"
out dgx01 iblinkinfo
grep -A1 '^CA: dgx02 mlx5_1:$' "$TEST_DIR/out" | grep -q '==>[ 0-9]*    9\[  \] "MF0;sim-leaf03:MSB7700/U1" ( )$' ||
	fail "dgx02 mlx5_1 not on leaf03 port 9: $(cat "$TEST_DIR/out")"
grep -q '^ *[0-9]*    2\[  \] ==(                Down/ Polling)==>' "$TEST_DIR/out" || fail "leaf02 port 2 not free"
out dgx01 ibnetdiscover
grep -q "$(printf '^\\[9\\]\t"H-[0-9a-f]*"\\[1\\]([0-9a-f]*) \t\t# "dgx02 mlx5_1" lid [0-9]* 4xEDR$')" "$TEST_DIR/out" ||
	fail "ibnetdiscover: dgx02 mlx5_1 not on port 9: $(cat "$TEST_DIR/out")"
grep -q "$(printf '\t# lid [0-9]* lmc 0 "MF0;sim-leaf03:MSB7700/U1" lid [0-9]* 4xEDR$')" "$TEST_DIR/out" ||
	fail "ibnetdiscover: no CA on leaf03"
fault dgx02 clear port-moved
out dgx01 iblinkinfo
same "iblinkinfo after clearing port-moved" "$TEST_DIR/two-level.base" "$TEST_DIR/out"

# other-fabric: dgx02 mlx5_3 (then every port of dgx02) gone from the
# fabric for iblinkinfo, ibnetdiscover and ibhosts; its own port stays Active
fault dgx02 other-fabric mlx5_3 || fail "fault other-fabric"
on dgx02 ibstat mlx5_3 | grep -q 'State: Active$' ||
	fail "other-fabric: the port itself must stay Active"
for t in iblinkinfo ibnetdiscover ibhosts; do
	out dgx01 $t
	grep -q 'dgx02 mlx5_3' "$TEST_DIR/out" && fail "$t still sees dgx02 mlx5_3"
	grep -q 'dgx02 mlx5_2' "$TEST_DIR/out" || fail "$t lost dgx02 mlx5_2"
done
fault dgx02 other-fabric || fail "fault other-fabric (every port)"
out dgx01 ibhosts
grep -q 'dgx02' "$TEST_DIR/out" && fail "ibhosts still sees dgx02: $(cat "$TEST_DIR/out")"
fault dgx02 clear other-fabric
out dgx01 iblinkinfo
same "iblinkinfo after clearing other-fabric" "$TEST_DIR/two-level.base" "$TEST_DIR/out"
rm "$CL/fabric.conf"

# ---- modprobe / rmmod ---------------------------------------------------
on dgx01 modprobe -r nv_peer_mem || fail "modprobe -r nv_peer_mem"
on dgx01 lsmod | grep -q '^nv_peer_mem ' && fail "nv_peer_mem still loaded"
out dgx01 rmmod ib_core
[ "$rc" -eq 1 ] || fail "rmmod ib_core exit $rc"
echo "rmmod: ERROR: Module ib_core is in use by: rdma_cm ib_cm iw_cm mlx5_ib ib_umad ib_uverbs rdma_ucm ib_ipoib" |
	same "rmmod in use" - "$TEST_DIR/err"
on dgx01 modprobe nv_peer_mem || fail "modprobe nv_peer_mem"
out dgx01 lsmod
same "lsmod after reload" "$EXP/lsmod_dgx1_ready.txt" "$TEST_DIR/out"
out dgx01 modprobe -r nouveau
echo "modprobe: FATAL: Module nouveau is not in kernel." | same "modprobe -r not loaded" - "$TEST_DIR/err"

# ---- systemctl and the subnet manager ---------------------------------------
[ "$(on dgx02 systemctl is-active opensm)" = active ] || fail "opensm not active on SM host"
on dgx02 systemctl stop opensm
[ "$(on dgx02 systemctl is-active opensm)" = inactive ] || fail "opensm still active"
out dgx01 ibstat
same "ibstat with opensm stopped" "$EXP/ibstat_dgx1_no_sm.txt" "$TEST_DIR/out"
out dgx01 sminfo
[ "$rc" -eq 255 ] || fail "sminfo after stop exit $rc"
on dgx02 systemctl start opensm || fail "systemctl start opensm"
out dgx01 sminfo
grep -q '^sminfo: sm lid 9 .* priority 14 state 3 SMINFO_MASTER$' "$TEST_DIR/out" || fail "sminfo after start"
out dgx01 ibstat
same "ibstat after opensm start" "$TEST_DIR/ibstat.base" "$TEST_DIR/out"
# A second SM with a higher priority wins the election; the old one stands by.
mkdir -p "$D/nodes/dgx01/root/etc/opensm"
echo "sm_priority 15" >"$D/nodes/dgx01/root/etc/opensm/opensm.conf"
on dgx01 systemctl start opensm || fail "start opensm on dgx01"
out dgx02 sminfo
grep -q '^sminfo: sm lid 11 sm guid 0xec0d9a030044d2d0, .* priority 15 state 3 SMINFO_MASTER$' "$TEST_DIR/out" ||
	fail "election: $(cat "$TEST_DIR/out")"
out dgx02 sminfo 9
grep -q 'priority 14 state 2 SMINFO_STANDBY$' "$TEST_DIR/out" || fail "standby: $(cat "$TEST_DIR/out")"
on dgx01 systemctl disable --now opensm 2>/dev/null
[ "$(on dgx01 systemctl is-enabled opensm)" = disabled ] || fail "disable --now"
out dgx01 systemctl status opensm
[ "$rc" -eq 3 ] || fail "status of a stopped unit exit $rc"
out dgx01 systemctl start nosuch
[ "$rc" -eq 5 ] || fail "start of an unknown unit exit $rc"

# openibd restart reloads the IB stack and drops the peer memory module
# (the real gotcha); its own service brings it back.
on dgx01 systemctl stop openibd
out dgx01 sminfo
sed 's/\[[0-9]*\]/[PID]/' "$TEST_DIR/err" "$TEST_DIR/out" >"$TEST_DIR/a"
sed 's/\[[0-9]*\]/[PID]/' "$FIX/sminfo_iberror_cannot_open_umad_port_failure.txt" |
	same "sminfo without IB driver" - "$TEST_DIR/a"
out dgx01 ibstat
[ ! -s "$TEST_DIR/out" ] || fail "ibstat lists CAs without mlx5_ib"
on dgx01 systemctl start openibd
on dgx01 systemctl restart openibd || fail "restart openibd"
on dgx01 lsmod | grep -q '^nv_peer_mem ' && fail "nv_peer_mem survived an openibd restart"
on dgx01 lsmod | grep -q '^mlx5_ib ' || fail "openibd restart left mlx5_ib unloaded"
[ "$(on dgx01 systemctl is-active nv_peer_mem)" = inactive ] || fail "nv_peer_mem service still active"
on dgx01 systemctl start nv_peer_mem || fail "start nv_peer_mem"
on dgx01 lsmod | sort >"$TEST_DIR/out"
sort "$EXP/lsmod_dgx1_ready.txt" | same "lsmod after openibd restart" - "$TEST_DIR/out"

# ---- bare node --------------------------------------------------------------
for t in ofed_info ibstat ibstatus ibv_devinfo sminfo; do
	out dgx03 $t
	[ "$rc" -eq 127 ] || fail "bare: $t exit $rc"
	echo "bash: $t: command not found" | same "bare $t" - "$TEST_DIR/err"
done
out dgx03 lsmod
same "lsmod (bare)" "$EXP/lsmod_dgx1_bare.txt" "$TEST_DIR/out"
out dgx03 modprobe nv_peer_mem
[ "$rc" -eq 1 ] || fail "bare: modprobe nv_peer_mem exit $rc"
[ ! -e "$D/nodes/dgx03/root/usr/src/kernels/3.10.0-957.el7.x86_64" ] || fail "bare node has kernel headers"
[ "$(on dgx03 systemctl is-active opensm)" = unknown ] || fail "bare node has opensm"
grep -qx 'PRETTY_NAME="Red Hat Enterprise Linux Server 7.6 (Maipo)"' "$D/nodes/dgx03/root/etc/os-release" ||
	fail "os-release"
[ "$(on dgx03 uname -r)" = 3.10.0-957.el7.x86_64 ] || fail "uname -r"
[ "$(on dgx03 uname -n)" = dgx03 ] || fail "uname -n"
[ "$(on dgx03 getenforce)" = Enforcing ] || fail "getenforce"
exit 0
