#!/bin/sh
# make chaos (issue 24, item 7): a seeded soak of interrupted runs on a bare
# simulated cluster (CHAOS_NODES, 8). Each cycle starts one run (a deploy
# from bare, or a rolling upgrade to the next OFED or Spectrum Scale
# release), stops it at a random moment with SIGKILL, SIGINT, a double
# SIGINT or SIGTERM (sometimes with a node's sshd stopped or a node hung
# first), then runs `--resume` and a plain deploy, and checks the
# invariants (tests/soak/chaos-check.sh): every installer and create-once
# GPFS command ran at most once per node in the cycle, the resume finished,
# the plain deploy changed nothing, precheck is green (once the inventory
# names what the upgrade installed, as the upgrade says to), GPFS quorum
# was never lost (mmgetstate -a sampled all through), no remote process
# is left, an interrupted journal does not say "running".
#
# CHAOS_SEED=N replays a soak (printed first); CHAOS_RUNS (cycles, default
# 12) and CHAOS_MINUTES (no new cycle after that, default none) bound it.
# A failure prints the seed, the cycle and the invariant, and exits 1.
# Not part of `make check`; `make chaos-sample` is its two-minute sample.
. "$(dirname "$0")/../integration/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
SEED=${CHAOS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RUNS=${CHAOS_RUNS:-12}
MINUTES=${CHAOS_MINUTES:-}
NODES=${CHAOS_NODES:-8}
T0=$(date +%s)
echo "chaos: seed $SEED, $NODES nodes, $RUNS cycles${MINUTES:+ (at most $MINUTES min)} (CHAOS_SEED=$SEED replays it)"
FIXTURES=$(cd "$here/../fixtures/ofed" && pwd)
STATE=$TEST_DIR/state
CYCLE=0
export CHAOS_SEED_NOW=$SEED
# die INVARIANT TEXT: the failure line a replay starts from.
die() {
	stop_sampler
	fail "chaos seed $SEED cycle $CYCLE ($WHAT): $1: $2 (CHAOS_SEED=$SEED CHAOS_NODES=$NODES replays it)"
}

# rnd I N: the seed's I-th number in [0, N) (a hash: near seeds differ)
rnd() { echo $(( 0x$(printf '%s-%s' "$SEED" "$1" | sha256sum | cut -c1-8) % $2 )); }

# A run started in the background of a script has SIGINT ignored (POSIX
# sh); an admin's ^C reaches a foreground one with the default action.
# (exec: $! is then the run itself, not a subshell around it)
sigdfl() { exec env --default-signal=INT,TERM "$@"; }
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }
upgrade() {
	"$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
		${UP_OFED:+--ofed-tarball "$UP_OFED"} ${UP_SCALE:+--scale-installer "$UP_SCALE"} "$@"
}
ncommands() { cat "$BRINGUP_SIM_DIR"/nodes/*/log/commands.log 2>/dev/null | wc -l; }

# The quorum sampler: mmgetstate -a as a node's admin would run it, every
# 0.2 s, into $TEST_DIR/samples ("ACTIVE_QUORUM_NODES node=state..."); a
# "reset" line where the cluster is made again from bare.
QUORUM=
sample() {
	while [ ! -e "$TEST_DIR/stop" ]; do
		BRINGUP_SIM_NODE="$BRINGUP_SIM_DIR/nodes/$LAST_NODE" BRINGUP_SIM_CLUSTER="$BRINGUP_SIM_DIR/cluster" \
			"$BRINGUP_SIM_DIR/bin/mmgetstate" -a 2>/dev/null | awk -v q=" $QUORUM " '
			$2 ~ /^[a-z]+[0-9]+$/ { s = s " " $2 "=" $3; if (index(q, " " $2 " ") && $3 == "active") n++ }
			END { if (s != "") print n + 0 s }' >>"$TEST_DIR/samples"
		sleep 0.2
	done
	rm -f "$TEST_DIR/stop"
}
SAMPLER=
start_sampler() { rm -f "$TEST_DIR/stop"; sample & SAMPLER=$!; }
stop_sampler() {
	[ -n "$SAMPLER" ] || return 0
	touch "$TEST_DIR/stop"; wait "$SAMPLER"; SAMPLER=
}

# A cluster from bare: the sim (again) and its inventory; the version
# ladders start from the profile's releases.
fresh() {
	stop_sampler
	"$BRINGUP" sim down >/dev/null 2>&1
	rm -rf "$STATE"
	sim_up -n "$NODES" --state bare
	# the ladders' releases are the sim's bundles, outside the support
	# matrix: an admin running them says so
	sed -i '0,/^  vars:$/s//  vars:\n    precheck_severity: { kernel.supported: warn }/' "$INV"
	LAST_NODE=$(ls "$BRINGUP_SIM_DIR/nodes" | tail -n 1)
	QUORUM=$(ls "$BRINGUP_SIM_DIR/nodes" | head -n 3 | tr '\n' ' ')
	DEPLOYED=0 OFED_STEP=0 SCALE_STEP=0
	echo reset >>"$TEST_DIR/samples"
	start_sampler
}
OFED_LADDER="5.0-2.1.8.0 5.1-2.5.8.0 5.2-2.2.0.0 5.3-1.0.0.1 5.4-1.0.3.0"
SCALE_LADDER="5.1.2.1 5.1.2.2 5.1.2.3 5.1.2.4 5.1.2.5"
nth() { echo "$2" | tr ' ' '\n' | sed -n "$(($1 + 1))p"; }

# The admin does what the finished upgrade says: the inventory names the
# release it installed.
follow_upgrade() {
	case $1 in
	ofed)
		sed -i -e "s|^    ofed_version: .*|    ofed_version: \"MLNX_OFED_LINUX-$2\"|" \
			-e "s|^    ofed_tarball: .*|    ofed_tarball: \"$UP_OFED\"|" "$INV";;
	scale) sed -i "s|^    gpfs_installer: .*|    gpfs_installer: \"$UP_SCALE\"|" "$INV";;
	esac
}

: >"$TEST_DIR/samples"
fresh
while [ "$CYCLE" -lt "$RUNS" ]; do
	if [ -n "$MINUTES" ] && [ $(( $(date +%s) - T0 )) -ge $((MINUTES * 60)) ]; then
		echo "chaos: $MINUTES minutes spent, no new cycle"
		break
	fi
	CYCLE=$((CYCLE + 1))
	c0=$(date +%s)
	# what this cycle does
	op=deploy UP_OFED= UP_SCALE= TO=
	if [ "$DEPLOYED" = 1 ]; then
		r=$(rnd "op$CYCLE" 5)
		# both ladders climbed to the top: the cluster starts again from
		# bare (an upgrade to no release would fail on the harness's side)
		[ "$OFED_STEP" -ge 5 ] && [ "$SCALE_STEP" -ge 5 ] && r=0
		case $r in
		0) fresh;;
		1 | 2) if [ "$OFED_STEP" -lt 5 ]; then op=ofed; else op=scale; fi;;
		*) if [ "$SCALE_STEP" -lt 5 ]; then op=scale; else op=ofed; fi;;
		esac
		if [ $op = ofed ]; then
			v=$(nth "$OFED_STEP" "$OFED_LADDER"); OFED_STEP=$((OFED_STEP + 1))
			UP_OFED=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed$CYCLE" "$v" rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
				fail "make-bundle $v"
			TO="ofed=MLNX_OFED_LINUX-$v"
		elif [ $op = scale ]; then
			v=$(nth "$SCALE_STEP" "$SCALE_LADDER"); SCALE_STEP=$((SCALE_STEP + 1))
			UP_SCALE=$("$BRINGUP_SIM_DIR/bin/sim-scale-bundle" "$TEST_DIR/scale$CYCLE" "$v" dm x86_64) ||
				fail "sim-scale-bundle $v"
			TO="scale=$v"
		fi
	fi
	sigs="KILL INT INT2 TERM"
	sig=$(nth "$(rnd "sig$CYCLE" 4)" "$sigs")
	if [ $op = deploy ]; then per=60; else per=40; fi
	K=$(( $(rnd "k$CYCLE" $((per * NODES))) + 1 ))
	S=$(rnd "s$CYCLE" 30 | awk '{ printf "%.1f", $1 / 10 }')
	fault=none
	case $(rnd "fault$CYCLE" 6) in
	0) fault=unreachable;;
	1) fault=hang;;
	esac
	fnode=$(ls "$BRINGUP_SIM_DIR/nodes" | sed -n "$(( $(rnd "fn$CYCLE" $((NODES - 1))) + 2 ))p")
	WHAT="$op${TO:+ to $TO}, $sig after command $K + ${S}s"
	[ "$fault" = none ] || WHAT="$WHAT (${fault} $fnode at command $((K / 2)))"
	echo "chaos: cycle $CYCLE: $WHAT"

	sh "$here/chaos-check.sh" begin "$BRINGUP_SIM_DIR" "$TEST_DIR/mark"
	base=$(ncommands)
	if [ $op = deploy ]; then
		sigdfl "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
			>"$TEST_DIR/run.out" 2>&1 &
	else
		sigdfl "$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
			${UP_OFED:+--ofed-tarball "$UP_OFED"} ${UP_SCALE:+--scale-installer "$UP_SCALE"} \
			--to "$TO" --batch 3 >"$TEST_DIR/run.out" 2>&1 &
	fi
	pid=$!
	was_cut=0 faulted=0
	# (a run that has ended is a zombie until waited for: kill -0 still works)
	alive() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat")" != Z ]; }
	while alive $pid; do
		n=$(( $(ncommands) - base ))
		if [ "$fault" != none ] && [ $faulted = 0 ] && [ "$n" -ge $((K / 2)) ]; then
			"$BRINGUP" sim fault "$fnode" "$fault" >/dev/null || die fault "sim fault $fnode $fault"
			faulted=1
		fi
		if [ "$n" -ge "$K" ]; then
			sleep "$S"
			alive $pid || break
			was_cut=1
			case $sig in
			KILL) kill -KILL $pid;;
			INT) kill -INT $pid;;
			TERM) kill -TERM $pid;;
			# (the first ^C may have ended it already)
			INT2) kill -INT $pid; sleep 0.$(rnd "int2$CYCLE" 10); kill -INT $pid 2>/dev/null;;
			esac
			break
		fi
		sleep 0.05
	done
	# an interrupted run stops promptly; one that does not is killed and
	# named (it would hang an admin's terminal)
	i=0
	while kill -0 $pid 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $(( $(slow 180) * 10 )) ]; then
			kill -KILL $pid
			die "stops on $sig" "still running 180 s after the signal: $(tail -n 5 "$TEST_DIR/run.out")"
		fi
		sleep 0.1
	done
	wait $pid; rc=$?
	[ "$fault" = none ] || "$BRINGUP" sim fault "$fnode" clear >/dev/null || die fault "sim fault $fnode clear"
	if [ $was_cut = 1 ]; then
		st=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"])' "$STATE/last/journal.json" 2>/dev/null)
		case $sig in
		KILL) ;;
		*) [ "$st" != running ] || die "journal after $sig" "the journal says running";;
		esac
		echo "chaos: cycle $CYCLE: cut (exit $rc, journal ${st:-none}) after $(( $(ncommands) - base )) commands"
	else
		echo "chaos: cycle $CYCLE: the run ended (exit $rc) before command $K"
	fi

	# --resume finishes what the cut run left (once: a second try would
	# hide a resume that does not)
	if [ $was_cut = 1 ] || [ $rc != 0 ]; then
		if [ $op = deploy ]; then
			deploy --resume >"$TEST_DIR/resume.out" 2>&1; rc=$?
		else
			upgrade --resume >"$TEST_DIR/resume.out" 2>&1; rc=$?
			# an upgrade cut while it read the cluster and planned (or
			# after it finished) left nothing to resume, and says so:
			# the admin starts it again
			if [ $rc = 2 ] && grep -Eq -- "--resume: no upgrade (was begun|is in progress) in " "$TEST_DIR/resume.out"; then
				echo "chaos: cycle $CYCLE: nothing to resume ($(grep -o 'no upgrade [a-z ]*' "$TEST_DIR/resume.out" | head -n 1)): the upgrade again"
				upgrade --to "$TO" --batch 3 >"$TEST_DIR/resume.out" 2>&1; rc=$?
			fi
		fi
		[ $rc = 0 ] || die "resume finishes" "--resume exit $rc: $(tail -n 25 "$TEST_DIR/resume.out")"
	fi
	DEPLOYED=1
	deploy >"$TEST_DIR/plain.out" 2>&1 || die "converges" "plain deploy: $(tail -n 25 "$TEST_DIR/plain.out")"
	grep -q "changed=0 failed=0" "$TEST_DIR/plain.out" ||
		die "converges" "the plain deploy changed something: $(tail -n 22 "$TEST_DIR/plain.out")"
	[ $op = deploy ] || follow_upgrade "$op" "$v"
	# Green is the invariant, not speed: on a loaded 2-core box the fabric
	# host (iblinkinfo, the mpirun peers) has taken more than the default 60 s.
	"$BRINGUP" precheck -i "$INV" -t "$(slow 120)" >"$TEST_DIR/pre.out" 2>&1 ||
		die "precheck green" "$(grep -v '^ok ' "$TEST_DIR/pre.out" | head -n 20)"
	msg=$(sh "$here/chaos-check.sh" end "$BRINGUP_SIM_DIR" "$TEST_DIR/mark" "$TEST_DIR/samples" 2>&1) ||
		die "$(echo "$msg" | head -n 1)" "$(echo "$msg" | tail -n +2)"
	echo "chaos: cycle $CYCLE: ok, $(( $(date +%s) - c0 )) s${msg:+; $msg}"
done
stop_sampler
echo "chaos: seed $SEED: $CYCLE cycles, every invariant held, $(( $(date +%s) - T0 )) s"
exit 0
