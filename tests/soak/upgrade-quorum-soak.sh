#!/bin/sh
# make soak-quorum: issue 28's acceptance, SOAK_RUNS (20) runs of
# tests/soak/upgrade-quorum-run.sh, each with its own seed (SOAK_SEED, then
# +1 per run; printed): a quorum node lost at a random moment of a random
# batch of a rolling Scale upgrade never costs quorum, and --resume
# finishes. Stops at the first failing run, naming its seed. Not part of
# `make check` (about two minutes a run); t1550 is its sample there.
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
RUNS=${SOAK_RUNS:-20}
BASE=${SOAK_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
here=$(cd "$(dirname "$0")" && pwd)
echo "soak-quorum: $RUNS runs from seed $BASE (SOAK_SEED=$BASE replays them)"
i=0
while [ $i -lt "$RUNS" ]; do
	seed=$((BASE + i))
	start=$(date +%s)
	if ! out=$(QUORUM_SEED=$seed sh "$here/upgrade-quorum-run.sh" 2>&1); then
		echo "$out" | tail -n 30
		echo "soak-quorum: run $((i + 1)) failed: QUORUM_SEED=$seed sh tests/soak/upgrade-quorum-run.sh replays it"
		exit 1
	fi
	echo "run $((i + 1)): $(echo "$out" | grep '^quorum-run: [^s]' | sed 's/^quorum-run: //' | tr '\n' ';') $(( $(date +%s) - start )) s"
	i=$((i + 1))
done
echo "soak-quorum: $RUNS runs, quorum never lost"
