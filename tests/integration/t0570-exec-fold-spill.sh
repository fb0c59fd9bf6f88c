#!/bin/sh
# exec folds output as hosts finish and does not hold large outputs in
# memory: while the commands still run, what they printed is already in the
# spill file under $TMPDIR (unlinked), and the folded report is byte for
# byte what each host printed, distinct outputs apart, identical ones once.
. "$(dirname "$0")/lib.sh"
sim_up -n 8 --state ready
spill="$TEST_DIR/tmp"
mkdir "$spill"
LINES=250000 # "dgx01 250000\n": ~3 MB a host, under the 4 MiB cap

TMPDIR="$spill" "$BRINGUP" exec -i "$INV" -- \
	"seq 1 $LINES | sed \"s/^/\$(hostname) /\"; sleep 6" >"$TEST_DIR/out" 2>&1 &
pid=$!
want=$((8 * LINES * 12)) found=0
for _ in $(seq 1 300); do
	for fd in /proc/$pid/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		"$spill"/*) size=$(stat -L -c %s "$fd" 2>/dev/null || echo 0)
			[ "$size" -ge "$want" ] && found=1 ;;
		esac
	done
	[ $found -eq 1 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.2
done
wait $pid || fail "exec failed: $(tail -n 3 "$TEST_DIR/out")"
[ $found -eq 1 ] || fail "no spill file of $want bytes in \$TMPDIR while the hosts ran"
ls -A "$spill" | grep -q . && fail "spill file left behind: $(ls -A "$spill")"

for n in 01 02 03 04 05 06 07 08; do
	printf -- '---------------\ndgx%s (1)\n---------------\n' $n
	seq 1 $LINES | sed "s/^/dgx$n /"
done >"$TEST_DIR/want"
echo 'exit 0: dgx[01-08]' >>"$TEST_DIR/want"
cmp -s "$TEST_DIR/want" "$TEST_DIR/out" || fail "folded output differs: $(cmp "$TEST_DIR/want" "$TEST_DIR/out")"

# Identical large output: one group, printed once, whole.
TMPDIR="$spill" "$BRINGUP" exec -i "$INV" -- "seq 1 $LINES" >"$TEST_DIR/out" ||
	fail "exec of identical output failed"
{ printf -- '---------------\ndgx[01-08] (8)\n---------------\n'; seq 1 $LINES
  echo 'exit 0: dgx[01-08]'; } >"$TEST_DIR/want"
cmp -s "$TEST_DIR/want" "$TEST_DIR/out" || fail "identical output not folded whole"
exit 0
