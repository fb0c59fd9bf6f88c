#!/bin/sh
# Proves the Spectrum Scale stand-ins (mm* commands) of the simulated nodes:
# a ready cluster prints what the real commands print (layouts checked
# against real captures in tests/fixtures/sim-gpu/real, outputs against the
# reviewed ones in .../expected); the state is cluster-wide, so a node
# joined with mmaddnode on one node shows up in mmlscluster on another;
# mmchconfig -N changes mmlsconfig; on a bare node the commands are absent
# until GPFS is installed; the read-only commands precheck runs print the
# same without sim-gpfs-admin.sh. Runs the stand-ins directly, no sshd.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../fixtures/sim-gpu/mknode.sh"
command -v flock >/dev/null || skip flock

for i in 1 2 3 4; do
	st=ready
	[ $i = 4 ] && st=bare
	mknode "$D/dgx0$i" dgx0$i $((i - 1)) 4 $st dgx1
done
for i in 4 2 3 1; do	# any order: node 0 names the cluster
	initnode "$D/dgx0$i" "$CLUSTER" || fail "init of dgx0$i failed"
done
A=$D/dgx01 B=$D/dgx02 BARE=$D/dgx04
[ -x "$A/root/usr/lpp/mmfs/bin/mmlscluster" ] &&
	grep -qx 'exec /run/bringup-sim/bin/mmlscluster "$@"' "$A/root/usr/lpp/mmfs/bin/mmlscluster" ||
	fail "a ready node has /usr/lpp/mmfs/bin/mmlscluster"
[ -e "$BARE/root/usr/lpp/mmfs" ] && fail "a bare node has no /usr/lpp/mmfs"

same_as() {
	diff -u "$FIX/expected/$1" "$OUT/$1" || fail "$1 differs from expected"
}

# --- a ready cluster ---------------------------------------------------------------
on "$B" mmlscluster >"$OUT/mmlscluster.txt" || fail "mmlscluster failed"
same_as mmlscluster.txt
on "$A" mmgetstate -a >"$OUT/mmgetstate-a.txt"
same_as mmgetstate-a.txt
on "$A" mmlsmount all -L >"$OUT/mmlsmount-all-L.txt"
same_as mmlsmount-all-L.txt
on "$A" mmremotecluster show all >"$OUT/mmremotecluster-show-all.txt"
same_as mmremotecluster-show-all.txt
on "$A" mmremotefs show all >"$OUT/mmremotefs-show-all.txt"
same_as mmremotefs-show-all.txt
on "$A" mmlsconfig >"$OUT/mmlsconfig.txt"
same_as mmlsconfig.txt

# --- bare node: not installed, then installed but no member --------------------------
on "$BARE" mmlscluster 2>"$OUT/err"
[ $? -eq 127 ] || fail "mm commands must be absent on a bare node"
grep -q 'mmlscluster: command not found' "$OUT/err" || fail "no command-not-found message"
"$TOOLS/sim-gpfs-install" "$BARE" "$CLUSTER" || fail "sim-gpfs-install failed"
on "$BARE" mmlscluster >/dev/null 2>"$OUT/err"
[ $? -eq 1 ] || fail "a node outside the cluster: mmlscluster exits 1"
printf '%s\n' "mmlscluster: This node does not belong to a GPFS cluster." \
	"mmlscluster: Command failed.  Examine previous error messages to determine cause." |
	diff -u - "$OUT/err" || fail "wrong not-a-member message"

# --- joining a node from A, seen from B -------------------------------------------------
on "$A" mmaddnode -N dgx04 >"$OUT/add" || fail "mmaddnode failed: $(cat "$OUT/add")"
grep -q '^mmaddnode: Command successfully completed$' "$OUT/add" || fail "no success line"
on "$B" mmlscluster | tail -n 1 | grep -q '^   4   dgx04             10\.10\.1\.4   dgx04$' ||
	fail "dgx04 not in B's mmlscluster: $(on "$B" mmlscluster | tail -n 2)"
on "$BARE" mmlscluster >/dev/null || fail "the joined node now belongs to the cluster"
on "$B" mmgetstate -a | grep -q '^       4      dgx04            down$' || fail "new node must be down"
on "$A" mmaddnode -N dgx04 >/dev/null 2>&1 && fail "adding a member twice must fail"
on "$A" mmaddnode -N nosuch >/dev/null 2>&1 && fail "adding an unknown node must fail"
on "$A" mmchlicense client --accept -N dgx04 >/dev/null || fail "mmchlicense failed"
on "$A" mmstartup -N nosuch >/dev/null 2>"$OUT/err" && fail "mmstartup of an unknown node must fail"
grep -q '^mmstartup: Incorrect node nosuch specified for command\.$' "$OUT/err" || fail "unknown node message"
on "$BARE" mmstartup >/dev/null || fail "mmstartup failed"
on "$A" mmgetstate -N dgx04 | grep -q 'dgx04  *down$' ||
	fail "without the portability layer the daemon cannot start"
on "$BARE" mmbuildgpl >"$OUT/gpl" && fail "mmbuildgpl without kernel headers must fail"
grep -q '^mmbuildgpl: Building GPL module failed at ' "$OUT/gpl" || fail "no mmbuildgpl failure line"
mkdir -p "$BARE/root/usr/src/kernels/3.10.0-957.el7.x86_64"
on "$BARE" mmbuildgpl >"$OUT/gpl" || fail "mmbuildgpl failed: $(cat "$OUT/gpl")"
[ -f "$BARE/root/usr/lib/modules/3.10.0-957.el7.x86_64/extra/mmfs26.ko" ] || fail "no mmfs26.ko"
on "$BARE" mmstartup >/dev/null || fail "mmstartup failed"
# waits_active NODE-DIR NAME: arbitrating first, then active (bounded)
waits_active() {
	i=0
	until on "$1" mmgetstate -N "$2" | grep -q "$2 *active\$"; do
		i=$((i + 1))
		[ $i -lt 40 ] || fail "$2 never became active: $(on "$1" mmgetstate -N "$2")"
		sleep 0.25
	done
}
waits_active "$A" dgx04
on "$BARE" mmmount ess3000_4M >/dev/null || fail "mmmount failed"
on "$B" mmlsmount all -L | grep -q '^File system ess3000_4M (ess3000.bda.scale.ibm.com:ess3000_4M) is mounted on 6 nodes:$' ||
	fail "dgx04's mount not seen"

# --- configuration per node class ---------------------------------------------------------
on "$A" mmchconfig verbsRdma=enable,verbsRdmaSend=yes,verbsPorts="mlx5_0/1 mlx5_1/1" -N dgx04 >/dev/null ||
	fail "mmchconfig failed"
# the values dgx04 shares with its class [dgx] print once, under both names
on "$B" mmlsconfig | sed -n '/^\[dgx,dgx04\]$/,/^\[common\]$/p' >"$OUT/a"
printf '%s\n' '[dgx,dgx04]' 'verbsRdma enable' 'verbsRdmaSend yes' '[dgx04]' 'verbsPorts mlx5_0/1 mlx5_1/1' '[common]' |
	diff -u - "$OUT/a" || fail "mmchconfig -N stanza wrong"
on "$B" mmlsconfig verbsRdma | grep -qx 'verbsRdma enable \[dgx,dgx04\]' || fail "mmlsconfig ATTR of a shared value"
on "$B" mmlsconfig verbsPorts | grep -qx 'verbsPorts mlx5_0/1 mlx5_1/1 \[dgx04\]' || fail "mmlsconfig ATTR"
on "$A" mmchconfig autoload=no >/dev/null || fail "mmchconfig autoload failed"
[ "$(on "$B" mmlsconfig | grep -c '^autoload')" -eq 1 ] && on "$B" mmlsconfig | grep -qx 'autoload no' ||
	fail "autoload is a cluster attribute shown once"
on "$A" mmchconfig autoload=yes >/dev/null
on "$A" mmchconfig verbsPorts=DEFAULT -N dgx04 >/dev/null
on "$B" mmlsconfig | grep -q 'mlx5_0/1 mlx5_1/1$' && fail "DEFAULT must remove the value"

# --- leaving again -------------------------------------------------------------------------
on "$A" mmdelnode -N dgx04 >/dev/null 2>&1 && fail "deleting an active node must fail"
on "$BARE" mmshutdown >/dev/null || fail "mmshutdown failed"
on "$A" mmlsmount ess3000_4M | grep -q 'is mounted on 5 nodes\.$' || fail "shutdown must unmount"
on "$A" mmdelnode -N dgx04 >/dev/null || fail "mmdelnode failed"
on "$B" mmlscluster | diff -u "$FIX/expected/mmlscluster.txt" - || fail "cluster not back to ready"
on "$BARE" mmcrcluster -N dgx04 >/dev/null 2>&1 && fail "a second cluster must not replace the first"
on "$A" mmcrcluster -N dgx01,dgx04 >/dev/null 2>"$OUT/err" && fail "a member cannot create a cluster"
grep -q '^mmcrcluster: Node dgx01 already belongs to a GPFS cluster\.$' "$OUT/err" || fail "member message"
on "$B" mmlscluster | diff -u "$FIX/expected/mmlscluster.txt" - || fail "failed mmcrcluster changed the cluster"

# --- layouts of a cluster built like the real captures' ----------------------------------
CLUSTER=$TEST_DIR/cnsa
i=1
for w in 15 16 18; do
	mknode "$D/w$i" worker0$i.ocp4.scale.ibm.com $((i - 1)) 3 bare dgx1
	sed -i "s/^NODE_ADDR=.*/NODE_ADDR='10.10.1.$w'/" "$D/w$i/node.conf"
	initnode "$D/w$i" "$CLUSTER" && "$TOOLS/sim-gpfs-install" "$D/w$i" "$CLUSTER" || fail "init w$i"
	mkdir -p "$D/w$i/root/usr/src/kernels/3.10.0-957.el7.x86_64"
	on "$D/w$i" mmbuildgpl >/dev/null || fail "mmbuildgpl on w$i"
	i=$((i + 1))
done
W=$D/w1
on "$W" mmcrcluster -N worker01.ocp4.scale.ibm.com:quorum-manager-perfmon,worker02.ocp4.scale.ibm.com:quorum-manager-perfmon,worker03.ocp4.scale.ibm.com:quorum-manager-perfmon \
	-C ibm-spectrum-scale.ibm-spectrum-scale.ocp4.scale.ibm.com >"$OUT/cr" || fail "mmcrcluster failed: $(cat "$OUT/cr")"
on "$W" mmstartup -a >/dev/null
for w in 1 2 3; do waits_active "$W" worker0$w.ocp4.scale.ibm.com; done
on "$D/w2" mmlscluster | sed 's/\(cluster id: *\).*/\1ID/' >"$OUT/a"
sed 's/\(cluster id: *\).*/\1ID/; s/worker04\.ocp4/worker03.ocp4/' "$FIX/real/mmlscluster_cnsa_3_workers_quorum_manager.txt" |
	diff -u - "$OUT/a" || fail "mmlscluster layout differs from the CNSA capture"
# the real capture names its nodes by short name in mmgetstate
on "$W" mmgetstate -a | sed 's/\.ocp4\.scale\.ibm\.com/         /; s/ *$//' >"$OUT/a"
sed 's/ *$//' "$FIX/real/mmgetstate_a_3_nodes_active.txt" | diff -u - "$OUT/a" ||
	fail "mmgetstate -a layout differs from the capture"
# the capture's storage cluster: its three nodes have the file system mounted
"$TOOLS/sim-gpfs-storage" "$W" "$CLUSTER" ess3000.bda.scale.ibm.com 215057217487177715 \
	ess3k_fs1:099B6A7A:5EB99743:4194304 10.10.1.123:ess3000-3b.bda.scale.ibm.com \
	10.10.1.122:ess3000-3a.bda.scale.ibm.com 10.10.1.52:ems3000.bda.scale.ibm.com || fail "storage"
on "$W" mmauth genkey new >/dev/null || fail "mmauth genkey new failed"
on "$W" mmremotecluster add ess3000.bda.scale.ibm.com -n ess3000-3a.bda.scale.ibm.com,ess3000-3b.bda.scale.ibm.com,ems3000.bda.scale.ibm.com -k "$CLUSTER/gpfs/storage/key" >/dev/null ||
	fail "mmremotecluster add failed"
on "$W" mmremotefs add fs1 -f ess3k_fs1 -C ess3000.bda.scale.ibm.com -T /mnt/fs1 -A yes >/dev/null ||
	fail "mmremotefs add failed"
on "$W" mmremotefs show all | diff -u "$FIX/real/mmremotefs_show_all.txt" - ||
	fail "mmremotefs show all differs from the capture"
on "$W" mmremotecluster show all | sed 's/\(SHA digest: *\).*/\1SHA/' >"$OUT/a"
sed 's/\(SHA digest: *\).*/\1SHA/' "$FIX/real/mmremotecluster_show_all_ess3000.txt" | diff -u - "$OUT/a" ||
	fail "mmremotecluster show all differs from the capture"
on "$W" mmmount fs1 -a >/dev/null || fail "mmmount -a failed"
on "$W" mmlsmount all -L >"$OUT/a"
# the capture lists the storage cluster's own nodes first (and says 7 for
# the 6 nodes it lists, as published)
sed 's/on 7 nodes/on 6 nodes/; s/10\.10\.1\.17 /10.10.1.18 /' "$FIX/real/mmlsmount_all_L_remote_fs_mounted.txt" |
	diff -u - "$OUT/a" || fail "mmlsmount all -L differs from the capture"

# --- the read-only commands read sim-gpfs-admin.sh not at all ----------------
# The six commands precheck runs on every node source sim-gpfs-lib.sh alone
# (its tail): with sim-gpfs-admin.sh gone they must print, byte for byte,
# what they print with it, here and on the cluster with a mounted file system.
LEAN=$D/lean-tools
mkdir -p "$LEAN" && cp "$TOOLS"/* "$LEAN"/ && rm "$LEAN/sim-gpfs-admin.sh" || fail "lean copy"
lean() { TOOLS=$LEAN on "$@"; }
# the copy lacks it: any other command fails there, so this part can fail
lean "$A" mmlscluster >/dev/null 2>&1 && fail "mmlscluster ran without sim-gpfs-admin.sh"
for n in "$A" "$W"; do
	for c in "mmgetstate" "mmgetstate -a" "mmgetstate -a -L" "mmgetstate -N quorumnodes -L" \
		"mmgetstate -N nosuchnode" "mmlsmount all" "mmlsmount all -L" "mmlsmount fs1 -L" \
		"mmlsconfig" "mmlsconfig pagepool" "mmdiag --config" "mmdiag --network" "mmdiag" \
		"mmfsadm test verbs status" "mmfsadm dump" "mmhealth node show" "mmhealth"; do
		# shellcheck disable=SC2086 # the command's words
		on "$n" $c >"$OUT/full" 2>&1
		rc=$?
		# shellcheck disable=SC2086
		lean "$n" $c >"$OUT/lean" 2>&1
		[ $? = "$rc" ] && cmp -s "$OUT/full" "$OUT/lean" ||
			{ diff -u "$OUT/full" "$OUT/lean" >&2; fail "$c on ${n##*/} differs without sim-gpfs-admin.sh"; }
	done
done
exit 0
