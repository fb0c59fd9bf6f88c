#!/bin/sh
# Proves the Spectrum Scale stand-ins the scale stages drive, from bare
# nodes to a mounted, RDMA-tuned client cluster: the installer bundle's
# packages through rpm/dpkg, mmbuildgpl (headers needed; its failure text
# against the real capture), mmcrcluster/mmaddnode/mmchlicense/node
# classes, arbitrating before active and quorum, mmchconfig's -i/restart
# semantics as mmdiag --config shows them, RDMA in mmdiag --network, the key
# exchange with the remote storage cluster, and each GPFS fault with its
# clear. Runs the stand-ins directly, no sshd.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../fixtures/sim-gpu/mknode.sh"
command -v flock >/dev/null || skip "flock not installed"
K=3.10.0-957.el7.x86_64
# a started daemon arbitrates for more than 4 s here (1 by default), so that
# a loaded machine still sees it arbitrate; the waits below allow 60 s
SIM_GPFS_ARBITRATE_S=4
export SIM_GPFS_ARBITRATE_S
# wait_active N: until N nodes are active (bounded)
wait_active() {
	i=0
	until [ "$(on "$A" mmgetstate -a | grep -c ' active$')" = "$1" ]; do
		i=$((i + 1)); [ $i -lt 240 ] || fail "never $1 active: $(on "$A" mmgetstate -a)"; sleep 0.25
	done
}

for i in 1 2 3 4 5; do
	mknode "$D/dgx0$i" dgx0$i $((i - 1)) 5 bare dgx1
	initnode "$D/dgx0$i" "$CLUSTER" || fail "init of dgx0$i failed"
done
A=$D/dgx01 E=$D/dgx05

# --- install from the bundle ------------------------------------------------------
B=$CLUSTER/scale/5.0.4.3
[ -f "$B/gpfs_rpms/gpfs.base-5.0.4-3.x86_64.rpm" ] && [ -f "$B/gpfs_debs/gpfs.msg.en-us_5.0.4-3_all.deb" ] ||
	fail "no installer bundle in $B: $(ls -R "$CLUSTER/scale")"
cmp -s "$CLUSTER/scale/ess3000.pub" "$CLUSTER/gpfs/storage/key" || fail "gpfs_remote_key is the storage key"
on "$A" mmlscluster 2>/dev/null; [ $? -eq 127 ] || fail "bare node: mm commands absent"
for i in 1 2 3 4 5; do
	on "$D/dgx0$i" rpm -Uvh --replacepkgs "$B"/gpfs_rpms/*.rpm >"$OUT/rpm" || fail "rpm: $(cat "$OUT/rpm")"
done
[ "$(on "$A" rpm -q gpfs.base)" = gpfs.base-5.0.4-3.x86_64 ] || fail "rpm -q gpfs.base"
[ -x "$A/root/usr/lpp/mmfs/bin/mmcrcluster" ] || fail "gpfs.base brings /usr/lpp/mmfs/bin"
# the self-extracting file unpacks the same tree
"$CLUSTER"/scale/Spectrum_Scale_Data_Management-5.0.4.3-*-Linux-install --silent --dir "$OUT/x" >/dev/null &&
	[ -f "$OUT/x/gpfs_rpms/gpfs.gpl-5.0.4-3.noarch.rpm" ] || fail "self-extracting installer"
# Ubuntu: dpkg and dpkg-query
mknode "$D/u1" ubu01 0 1 bare dgx1
sed -i "s/^OS_ID=.*/OS_ID='ubuntu'/" "$D/u1/node.conf"
on "$D/u1" dpkg -i "$B"/gpfs_debs/*.deb >/dev/null || fail "dpkg -i"
[ "$(on "$D/u1" dpkg-query -W gpfs.base)" = "$(printf 'gpfs.base\t5.0.4-3')" ] || fail "dpkg-query -W"
on "$D/u1" dpkg-query -W gpfs.nothere 2>"$OUT/err" && fail "dpkg-query of a missing package"
grep -qx 'dpkg-query: no packages found matching gpfs.nothere' "$OUT/err" || fail "dpkg-query message"

# --- portability layer ---------------------------------------------------------------------
on "$A" mmbuildgpl >"$OUT/gpl" && fail "mmbuildgpl without headers must fail"
grep -q '^  Cannot find a valid kernel header file' "$OUT/gpl" || fail "no header message: $(cat "$OUT/gpl")"
for i in 1 2 3 4 5; do
	on "$D/dgx0$i" yum install -y kernel-devel-$K >/dev/null || fail "yum kernel-devel"
done
# with the make World failure, the output is the real capture's (kernel, release, dates masked)
mask() { sed 's/ at .* 20[0-9][0-9]\./ at DATE./; s/([0-9.]*) module/(REL) module/; s/[0-9][0-9]*\.[0-9][0-9]*\.[0-9]-[0-9.]*\(el[0-9_]*\.\)\{0,1\}x86_64/KERNEL/g; s/[0-9][0-9]*\.[0-9][0-9]*\.[0-9]-[0-9.]*[0-9]/KREL/g; s/= [0-9]* ([0-9]*,/= CODE (CODE,/'; }
"$TOOLS/sim-fault" "$A" "$CLUSTER" mmbuildgpl-fail || fail "fault"
on "$A" mmbuildgpl >"$OUT/gpl" && fail "mmbuildgpl-fail must fail"
mask <"$FIX/real/mmbuildgpl_5_0_4_1_rhel8_make_world_failed_missing_elfutils_libelf_devel.txt" >"$OUT/want"
mask <"$OUT/gpl" | diff -u "$OUT/want" - || fail "mmbuildgpl failure differs from the capture"
"$TOOLS/sim-fault" "$A" "$CLUSTER" clear mmbuildgpl-fail
for i in 1 2 3 4 5; do
	on "$D/dgx0$i" mmbuildgpl >"$OUT/gpl" || fail "mmbuildgpl on dgx0$i: $(cat "$OUT/gpl")"
done
grep -q '^mmbuildgpl: Building GPL module completed successfully at ' "$OUT/gpl" || fail "no success line"
[ -f "$A/root/usr/lib/modules/$K/extra/mmfs26.ko" ] || fail "mmfs26.ko not built"
[ "$(cat "$CLUSTER/gpfs/gpl/dgx01")" = "$K" ] || fail "the layer's kernel is recorded"

# --- cluster, licences, node classes ----------------------------------------------------------
on "$A" mmcrcluster -N dgx01:quorum-manager,dgx02:quorum-manager,dgx03:quorum -C dgx01 \
	-r /usr/bin/ssh -R /usr/bin/scp -A >"$OUT/cr" || fail "mmcrcluster: $(cat "$OUT/cr")"
diff -u "$FIX/real/mmcrcluster_ccr_disable_2_nodes_license_warning_4_2_2.txt" "$OUT/cr" ||
	fail "mmcrcluster output differs from the capture"
on "$A" mmaddnode -N dgx04:client,dgx05:client >"$OUT/add" || fail "mmaddnode"
sed 's/^.*: mmaddnode:/STAMP: mmaddnode:/' "$OUT/add" >"$OUT/a"
{ sed -n '1s/^.*: mmaddnode:/STAMP: mmaddnode:/p' "$FIX/real/mmaddnode_one_client_success_license_warning.txt" | sed 's/c03/dgx04/'
  sed -n '1s/^.*: mmaddnode:/STAMP: mmaddnode:/p' "$FIX/real/mmaddnode_one_client_success_license_warning.txt" | sed 's/c03/dgx05/'
  sed 1d "$FIX/real/mmaddnode_one_client_success_license_warning.txt"; } | diff -u - "$OUT/a" ||
	fail "mmaddnode of two nodes differs from the capture's layout"
on "$A" mmchlicense server --accept -N dgx01,dgx02,dgx03 >/dev/null || fail "mmchlicense server"
on "$A" mmchlicense client --accept -N dgx04,dgx05 >"$OUT/lic" || fail "mmchlicense client"
on "$A" mmlscluster | grep -q 'dgx03 *quorum$' || fail "designation quorum"
on "$A" mmcrnodeclass dgx -N dgx01,dgx02,dgx03,dgx04 >/dev/null || fail "mmcrnodeclass"
on "$A" mmcrnodeclass dgx -N dgx05 >/dev/null 2>&1 && fail "a class is created once"
on "$A" mmchnodeclass dgx add -N dgx05 >/dev/null || fail "mmchnodeclass add"
on "$A" mmlsnodeclass >"$OUT/a"
sed 's/nsdserver            /dgx                  /; s/node01\.gpfs\.mgt/dgx01,dgx02,dgx03,dgx04,dgx05/' \
	"$FIX/real/mmlsnodeclass_one_user_class_nsdserver.txt" | diff -u - "$OUT/a" || fail "mmlsnodeclass layout"
[ "$(on "$A" mmlsnodeclass --all | grep -c '^quorumnodes  *dgx01,dgx02,dgx03$')" = 1 ] || fail "system classes"

# --- start: arbitrating, then active; quorum -----------------------------------------------
on "$A" mmstartup -N dgx >/dev/null || fail "mmstartup -N dgx"
on "$A" mmgetstate -N quorumnodes >"$OUT/st"
grep -q 'dgx01  *arbitrating$' "$OUT/st" || fail "a started daemon arbitrates first: $(cat "$OUT/st")"
grep -q 'dgx04' "$OUT/st" && fail "-N quorumnodes lists the quorum nodes only"
wait_active 5
on "$A" mmshutdown -N dgx02,dgx03 >/dev/null || fail "mmshutdown"
on "$A" mmgetstate -a >"$OUT/st"
grep -q 'dgx01  *arbitrating$' "$OUT/st" && grep -q 'dgx05  *arbitrating$' "$OUT/st" ||
	fail "without a quorum majority the nodes arbitrate: $(cat "$OUT/st")"
on "$A" mmstartup -N dgx02 >/dev/null
on "$A" mmgetstate -a | grep -q 'dgx05  *active$' || fail "quorum back with 2 of 3"
on "$A" mmstartup -N dgx03 >/dev/null

# --- configuration: -i and restarts ----------------------------------------------------------
on "$A" mmchconfig verbsPorts="mlx5_0/1 mlx5_1/1" -N dgx -i >/dev/null 2>"$OUT/err" && fail "verbsPorts with -i"
grep -q 'not valid for attribute verbsPorts' "$OUT/err" || fail "-i refusal message: $(cat "$OUT/err")"
on "$A" mmchconfig verbsRdma=enable,verbsRdmaSend=yes,verbsPorts="mlx5_0/1 mlx5_1/1",pagepool=16G -N dgx >/dev/null ||
	fail "mmchconfig -N dgx"
on "$A" mmchconfig maxMBpS=20000,controlSetxattrImmutableSELinux=yes -i >/dev/null || fail "mmchconfig -i"
on "$A" mmlsconfig | sed -n '/^\[dgx\]$/,/^adminMode/p' >"$OUT/a"
printf '%s\n' '[dgx]' 'verbsRdma enable' 'verbsRdmaSend yes' 'verbsPorts mlx5_0/1 mlx5_1/1' 'pagepool 16G' \
	'[common]' 'maxMBpS 20000' 'controlSetxattrImmutableSELinux yes' 'adminMode central' | diff -u - "$OUT/a" ||
	fail "mmlsconfig stanzas"
on "$A" mmdiag --config >"$OUT/cfg"
grep -qx ' ! maxMBpS 20000' "$OUT/cfg" || fail "-i reaches the running daemon"
# every attribute is listed (defaults without "!"); none of these changed yet
grep -q '^ ! pagepool\|^ ! verbsPorts' "$OUT/cfg" && fail "without -i nothing changes before a restart"
grep -qx '   pagepool 1073741824' "$OUT/cfg" || fail "the default pagepool, as a number: $(cat "$OUT/cfg")"
on "$A" mmfsadm test verbs status | grep -qx 'VERBS RDMA status: disabled' || fail "verbs before restart"
on "$A" mmchconfig pagepool=1G -i -N dgx03 >/dev/null || fail "pagepool -i"
on "$A" mmlsconfig pagepool | grep -qx 'pagepool 1G \[dgx03\]' || fail "[dgx03] stanza"
on "$A" mmchconfig pagepool=DEFAULT -i -N dgx03 >/dev/null
on "$A" mmlsconfig | grep -q '^\[dgx03\]' && fail "=DEFAULT removes the node stanza"
for n in dgx01 dgx02 dgx03 dgx04 dgx05; do	# restarts, one node at a time
	on "$A" mmshutdown -N $n >/dev/null && on "$A" mmstartup -N $n >/dev/null || fail "restart $n"
done
on "$A" mmdiag --config | grep -qx ' ! verbsPorts mlx5_0/1 mlx5_1/1' || fail "after restart verbsPorts is loaded"
on "$A" mmfsadm test verbs status | grep -qx 'VERBS RDMA status: started' || fail "RDMA started"
on "$A" mmdiag --network | grep -c '^  Fabric 0 - Device mlx5_[01] Port 1 Width 4x Speed EDR lid ' | grep -qx 2 ||
	fail "RDMA devices in mmdiag --network: $(on "$A" mmdiag --network)"
wait_active 5

# --- remote mount -------------------------------------------------------------------------------
KEY=$CLUSTER/scale/ess3000.pub
on "$A" mmauth show . | grep -qx 'SHA digest:          (undefined)' || fail "no key yet"
on "$A" mmremotecluster add ess3000.bda.scale.ibm.com -n fscc-fab3-3-a-priv.bda.scale.com,fscc-fab3-3-b-priv.bda.scale.com \
	-k "$KEY" >/dev/null || fail "mmremotecluster add"
on "$A" mmremotefs add ess3000_4M -f ess3000_4M -C ess3000.bda.scale.ibm.com -T /gpfs/ess3000_4M -A yes >/dev/null ||
	fail "mmremotefs add"
on "$A" mmmount ess3000_4M -N dgx01 >/dev/null 2>"$OUT/err" && fail "no key: no remote mount"
grep -qx 'mmmount: Remote mounts are not enabled within this cluster.' "$OUT/err" || fail "no-key message"
on "$A" mmauth genkey new >/dev/null && on "$A" mmauth update . -l AUTHONLY >/dev/null || fail "mmauth"
on "$A" mmauth show . | grep -q '^SHA digest:          [0-9a-f]\{64\}$' || fail "key digest"
echo "not the key" >"$OUT/bad.pub"
on "$A" mmremotecluster update ess3000.bda.scale.ibm.com -n fscc-fab3-3-a-priv.bda.scale.com -k "$OUT/bad.pub" >/dev/null
on "$A" mmmount ess3000_4M -N dgx01 >/dev/null 2>"$OUT/err" && fail "a wrong storage key must not mount"
grep -q 'The key used by the cluster named ess3000.bda.scale.ibm.com has changed' "$OUT/err" || fail "key message"
on "$A" mmremotecluster update ess3000.bda.scale.ibm.com -n fscc-fab3-3-a-priv.bda.scale.com,fscc-fab3-3-b-priv.bda.scale.com \
	-k "$KEY" >/dev/null
# the Redpaper's mmremotecluster show, the digest being the key's
on "$A" mmremotecluster show all >"$OUT/a"
printf '%s\n' 'Cluster name:    ess3000.bda.scale.ibm.com' \
	'Contact nodes:   fscc-fab3-3-a-priv.bda.scale.com,fscc-fab3-3-b-priv.bda.scale.com' \
	"SHA digest:      $(sha256sum <"$KEY" | cut -c1-64)" 'File systems:    ess3000_4M (ess3000_4M)' |
	diff -u - "$OUT/a" || fail "mmremotecluster show all"
"$TOOLS/sim-fault" "$E" "$CLUSTER" remote-key-refused
on "$A" mmmount ess3000_4M -N dgx01 >/dev/null 2>"$OUT/err" && fail "a refused key must not mount"
grep -q 'has not authorized this cluster' "$OUT/err" && grep -qx 'dgx01:  mount: Permission denied' "$OUT/err" ||
	fail "refusal messages: $(cat "$OUT/err")"
"$TOOLS/sim-fault" "$E" "$CLUSTER" clear
on "$A" mmmount ess3000_4M -N dgx >"$OUT/m" 2>&1 || fail "mmmount: $(cat "$OUT/m")"
on "$A" mmlsmount ess3000_4M -L >"$OUT/a"
printf '%s\n' '' \
	'File system ess3000_4M (ess3000.bda.scale.ibm.com:ess3000_4M) is mounted on 7 nodes:' \
	'  127.0.255.1     fscc-fab3-3-a-priv.bda    ess3000.bda.scale.ibm.com' \
	'  127.0.255.2     fscc-fab3-3-b-priv.bda    ess3000.bda.scale.ibm.com' >"$OUT/want"
head -4 "$OUT/a" | diff -u "$OUT/want" - || fail "mmlsmount -L"
on "$A" mmlsfs ess3000_4M --uid | grep -qx ' --uid              099B6A7A:5EB99743        File system UID' ||
	fail "mmlsfs --uid: $(on "$A" mmlsfs ess3000_4M --uid)"
on "$A" mmlsfs ess3000_4M -B | grep -q '^ -B  *4194304  *Block size$' || fail "mmlsfs -B"
on "$A" mmdiag --network | grep -c '^    fscc-fab3-3-[ab]-priv.bda.scale.com  *[01]   N  RTS' | grep -qx 4 ||
	fail "RDMA connections to the NSD servers"

# --- faults --------------------------------------------------------------------------------------
"$TOOLS/sim-fault" "$D/dgx02" "$CLUSTER" verbs-bad-port || fail "verbs-bad-port"
on "$D/dgx02" mmfsadm test verbs status | grep -qx 'VERBS RDMA status: not started' || fail "bad port: not started"
printf '%s\n' 'RDMA Connections between nodes:' '  (none)' >"$OUT/want"
on "$D/dgx02" mmdiag --network | sed -n '/^RDMA Connections/,$p' | diff -u "$OUT/want" - ||
	fail "bad port: no RDMA devices"
on "$A" mmlsconfig verbsPorts | grep -qx 'verbsPorts mlx5_4/1 \[dgx02\]' || fail "the bad port shows in mmlsconfig"
on "$D/dgx02" mmhealth node show | grep -q '^NETWORK  *DEGRADED .*ib_rdma_port_not_found$' || fail "mmhealth"
"$TOOLS/sim-fault" "$D/dgx02" "$CLUSTER" clear
on "$D/dgx02" mmfsadm test verbs status | grep -qx 'VERBS RDMA status: started' || fail "clear: RDMA back"
on "$A" mmlsconfig | grep -q '^\[dgx02\]' && fail "clear removes the bad stanza"

# --- manager roles: mmlsmgr's table (the IBM example's layout), mmchmgr's
# orderly move with IBM's messages, and the takeover when a manager stops --------
"$TOOLS/sim-gpfs-fsmgr" "$A" "$CLUSTER" scratch dgx01 || fail "sim-gpfs-fsmgr"
on "$A" mmlsmgr >"$OUT/mgr"
sed -n 1,2p "$OUT/mgr" >"$OUT/mgr.h"
sed -n 1,2p "$(dirname "$0")/../fixtures/sim/mmlsmgr_fs1_ibm_docs_excerpt.txt" | sed 's/ *\[from .*//' | diff -u - "$OUT/mgr.h" ||
	fail "mmlsmgr's header differs from IBM's"
sed -n 3p "$OUT/mgr" | grep -qx 'scratch          10\.10\.1\.1 (dgx01)' || fail "mmlsmgr row: $(cat "$OUT/mgr")"
tail -n 1 "$OUT/mgr" | grep -qx 'Cluster manager node: 10\.10\.1\.1 (dgx01)' || fail "mmlsmgr: $(cat "$OUT/mgr")"
"$BRINGUP" parse mmlsmgr "$OUT/mgr" | grep -q '"device": "scratch"' || fail "parse mmlsmgr: $(cat "$OUT/mgr")"
on "$A" mmchmgr scratch dgx02 >"$OUT/ch" || fail "mmchmgr scratch dgx02: $(cat "$OUT/ch")"
printf '%s\n' "GPFS: 6027-628 Sending migrate request to current manager node 10.10.1.1 (dgx01)." \
	"GPFS: 6027-629 [N] Node 10.10.1.1 (dgx01) resigned as manager for scratch." \
	"GPFS: 6027-630 [N] Node 10.10.1.2 (dgx02) appointed as manager for scratch." | diff -u - "$OUT/ch" ||
	fail "mmchmgr's messages"
on "$A" mmchmgr nosuchfs dgx02 2>"$OUT/ch" && fail "mmchmgr of an unknown file system succeeds"
grep -q 'nosuchfs is not known to the GPFS cluster' "$OUT/ch" || fail "mmchmgr unknown: $(cat "$OUT/ch")"
on "$A" mmshutdown -N dgx02 >/dev/null
on "$A" mmlsmgr scratch | grep -qx 'scratch          10\.10\.1\.1 (dgx01)' ||
	fail "takeover to the active manager node dgx01: $(on "$A" mmlsmgr)"
grep -qx 'scratch dgx02 dgx01 takeover' "$CLUSTER/gpfs/fsmgr.log" || fail "takeover log: $(cat "$CLUSTER/gpfs/fsmgr.log")"
on "$A" mmstartup -N dgx02 >/dev/null
wait_active 5
# ess3000_4M is automount yes (mmremotefs add -A yes above): the daemon
# mounts it as it starts, no mmmount (IBM, "Deciding how the file system is
# mounted": yes = "When the GPFS daemon starts"); -A no: never; a mount the
# storage cluster refuses leaves it unmounted, mmstartup still exits 0 (the
# daemon logs it)
mounted_on() { on "$A" mmlsmount ess3000_4M -L | grep -q " $1 "; }
mounted_on dgx02 || fail "automount yes: dgx02 not mounted at startup: $(on "$A" mmlsmount ess3000_4M -L)"
restart_dgx02() {
	on "$A" mmshutdown -N dgx02 >/dev/null && on "$A" mmstartup -N dgx02 >/dev/null ||
		fail "restart dgx02"
	wait_active 5
}
# update changes only the options it names (IBM, mmremotefs command:
# "update Device [-f RemoteDevice] [-C RemoteClusterName] [-T MountPoint]
# ..."); a device never defined is refused
remotefs() {
	on "$A" mmremotefs update ess3000_4M -A "$1" >/dev/null || fail "mmremotefs update -A $1"
	on "$A" mmremotefs show ess3000_4M | grep -Eq "^ess3000_4M +ess3000_4M +ess3000\.bda\.scale\.ibm\.com +/gpfs/ess3000_4M +rw +$1 " ||
		fail "mmremotefs update -A $1 changed more: $(on "$A" mmremotefs show all)"
}
on "$A" mmremotefs update nosuchfs -A no >/dev/null 2>&1 && fail "mmremotefs update of an undefined file system"
remotefs no
restart_dgx02
mounted_on dgx02 && fail "automount no: dgx02 mounted at startup"
remotefs yes
"$TOOLS/sim-fault" "$E" "$CLUSTER" remote-key-refused
restart_dgx02
mounted_on dgx02 && fail "a refused key mounted dgx02 at startup"
"$TOOLS/sim-fault" "$E" "$CLUSTER" clear
on "$A" mmmount ess3000_4M -N dgx02 >/dev/null || fail "remount on dgx02"
mounted_on dgx02 || fail "mmmount of dgx02"

"$TOOLS/sim-fault" "$D/dgx04" "$CLUSTER" gpfs-down
on "$A" mmgetstate -N dgx04 | grep -q 'dgx04  *down$' || fail "gpfs-down: down"
on "$A" mmlsmount ess3000_4M | grep -q 'is mounted on 6 nodes\.$' || fail "a down node has nothing mounted"
on "$D/dgx04" mmhealth node show | grep -q '^GPFS  *FAILED .*gpfs_down$' || fail "mmhealth gpfs_down"
on "$A" mmshutdown -N dgx04 >/dev/null; on "$A" mmstartup -N dgx04 >/dev/null
on "$A" mmgetstate -N dgx04 | grep -q 'dgx04  *down$' || fail "gpfs-down: mmstartup cannot start it"
"$TOOLS/sim-fault" "$D/dgx04" "$CLUSTER" clear
on "$A" mmstartup -N dgx04 >/dev/null

"$TOOLS/sim-fault" "$A" "$CLUSTER" quorum-loss
on "$A" mmgetstate -a >"$OUT/st"
grep -q 'dgx02  *down$' "$OUT/st" && grep -q 'dgx01  *arbitrating$' "$OUT/st" && grep -q 'dgx05  *arbitrating$' "$OUT/st" ||
	fail "quorum-loss: $(cat "$OUT/st")"
on "$A" mmlsmount ess3000_4M | grep -q 'is not mounted\.$' || fail "quorum lost: nothing mounted"
on "$A" mmmount ess3000_4M -N dgx05 >/dev/null 2>&1 && fail "quorum lost: mmmount fails"
"$TOOLS/sim-fault" "$A" "$CLUSTER" clear
on "$A" mmgetstate -N dgx05 | grep -q 'dgx05  *active$' || fail "quorum back after clear"
exit 0
