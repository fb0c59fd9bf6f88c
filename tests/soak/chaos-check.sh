#!/bin/sh
# The invariants of one chaos cycle (tests/soak/chaos-soak.sh), read from
# what the simulated cluster D logged, not from bringup's own account:
#   chaos-check.sh begin D MARK           remember where each node's logs end
#   chaos-check.sh end D MARK SAMPLES     check what the cycle added
# end exits 1 with the broken invariant on its first line and the evidence
# after it; on success it prints one line of counts.
#  - an installer (NODE/log/installers.log: "TIME NAME pid=PID ARGS", one
#    line per start, written by the stand-ins) started at most once per node
#    with the same arguments: one cycle is one intended change;
#  - a create-once GPFS command (mmcrcluster, mmcrnodeclass, mmremotecluster
#    add, mmremotefs add: once per cluster; mmaddnode: once per node named)
#    ran at most once in the cycle (NODE/log/commands.log, sim-shell's);
#  - GPFS quorum was never lost: in SAMPLES (the soak's mmgetstate -a
#    sampler: "ACTIVE_QUORUM_NODES node=state ...", "reset" where the
#    cluster was made again), once a majority of the 3 quorum nodes was
#    active, no later sample has fewer;
#  - no remote process is left: no process runs in one of D's nodes (its
#    mounts name D/nodes/NAME) once the cycle's last run has ended.
set -u
what=$1 D=$2 MARK=$3
case $what in
begin)
	mkdir -p "$MARK"
	for n in "$D"/nodes/*; do
		b=${n##*/}
		cat "$n/log/installers.log" 2>/dev/null | wc -l >"$MARK/$b.inst"
		cat "$n/log/commands.log" 2>/dev/null | wc -l >"$MARK/$b.cmd"
	done
	exit 0;;
end) SAMPLES=$4;;
*) echo "usage: chaos-check.sh begin|end D MARK [SAMPLES]" >&2; exit 2;;
esac

bad() { echo "$1"; shift; printf '%s\n' "$@" | head -n 20; exit 1; }
new() { # FILE MARKFILE: the lines FILE gained since begin
	tail -n +$(( $(cat "$2" 2>/dev/null || echo 0) + 1 )) "$1" 2>/dev/null
}

inst=0
for n in "$D"/nodes/*; do
	b=${n##*/}
	lines=$(new "$n/log/installers.log" "$MARK/$b.inst")
	[ -n "$lines" ] || continue
	inst=$((inst + $(echo "$lines" | wc -l)))
	twice=$(echo "$lines" | sed 's/^[^ ]* \([^ ]*\) pid=[0-9]*/\1/' | sort | uniq -d)
	[ -z "$twice" ] || bad "an installer ran twice on $b" "$twice" "$lines"
done

cmds=$(for n in "$D"/nodes/*; do new "$n/log/commands.log" "$MARK/${n##*/}.cmd"; done)
for c in mmcrcluster mmcrnodeclass "mmremotecluster'[^a-z]*'add" "mmremotefs'[^a-z]*'add"; do
	k=$(echo "$cmds" | grep -c "/mmfs/bin/$c")
	[ "$k" -le 1 ] || bad "a cluster command ran twice" "$c ran $k times:" "$(echo "$cmds" | grep "/mmfs/bin/$c")"
done
added=$(echo "$cmds" | grep "/mmfs/bin/mmaddnode'" | sed "s/.*mmaddnode'//" |
	grep -o '[a-z][a-z]*[0-9][0-9]*:' | sort | uniq -d)
[ -z "$added" ] || bad "a node was added twice (mmaddnode)" $added

lost=$(awk '
	$1 == "reset" { up = 0; next }
	{ n++ }
	$1 >= 2 { up = 1 }
	up && $1 < 2 { print "sample " n ": " $0; exit 1 }' "$SAMPLES") || bad "GPFS quorum lost" "$lost"

# remote processes: the cycle's last run has ended; its sessions' processes
# may take a moment to go (sshd closing the channels)
left() {
	for p in /proc/[0-9]*; do
		{ tr '\0' '\n' <"$p/environ" | grep -q '^BRINGUP_SIM_NODE='; } 2>/dev/null || continue
		node=$(grep -o " $D/nodes/[^/ ]*" "$p/mountinfo" 2>/dev/null | head -n 1) || continue
		[ -n "$node" ] || continue
		echo "pid ${p#/proc/} on ${node##*/}: $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null | cut -c1-160)"
	done
}
i=0
while procs=$(left) && [ -n "$procs" ]; do
	i=$((i + 1))
	[ $i -le 30 ] || bad "a remote process is left" "$procs"
	sleep 0.2
done
echo "$inst installer starts, $(echo "$cmds" | grep -c .) commands, $(grep -vc reset "$SAMPLES") quorum samples so far"
exit 0
