#!/bin/sh
# The Spectrum Scale packages are never installed twice at once on a node
# (issue 24, item 1): a deploy SIGKILLed while rpm installs them leaves the
# package install running without its client; a --resume at once finds its
# lock held (flock on /var/lib/bringup/scale-install.lock), waits for it
# and adopts its result instead of starting rpm again. The rpm stand-in
# logs every gpfs.base install (NODE/log/installers.log, gpfs-install):
# one per node. Without the lock the resume's check saw no gpfs.base yet
# and started a second transaction beside the first.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
cat >"$TEST_DIR/pb.yaml" <<'YAML'
name: scale-install
stages:
  - name: scale_install
    module: scale_install
    hosts: scale_client
YAML
deploy() { "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" "$@"; }
starts() { cat "$NODES/$1/log/installers.log" 2>/dev/null | grep -c ' gpfs-install pid='; }

for n in dgx01 dgx02; do
	# the kernel's headers, which mmbuildgpl needs (a full deploy's OFED
	# install brings them)
	sim_ssh 127.0.1.${n#dgx0} yum install -y kernel-devel >/dev/null || fail "$n: yum kernel-devel"
	"$BRINGUP" sim fault $n install-slow 30 >/dev/null || fail "fault install-slow $n"
done
# (bringup itself in the background: $! of a function is a subshell's)
"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" >"$TEST_DIR/cut.out" 2>&1 &
pid=$!
i=0
# the install command has started (the only one naming the packages)
installing() { grep -Eq "rpm[^a-z]{1,16}gpfs[.]base-[0-9]" "$NODES/$1/log/commands.log" 2>/dev/null; }
until installing dgx01 && installing dgx02; do
	kill -0 $pid 2>/dev/null || fail "deploy ended before the installs: $(cat "$TEST_DIR/cut.out")"
	i=$((i + 1)); [ $i -lt 1200 ] || fail "the installs never started"
	sleep 0.05
done
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
for n in dgx01 dgx02; do
	[ "$(starts $n)" = 0 ] || fail "$n: the install ended before the resume; make install-slow longer: $(cat "$NODES/$n/log/installers.log")"
done

out=$(deploy --resume 2>&1) || fail "resume: $out"
echo "$out" | grep -Eq "^  scale_install +changed +dgx\[01-02\]$" || fail "resume: $out"
run=$(readlink "$STATE/last")
for n in dgx01 dgx02; do
	[ "$(starts $n)" = 1 ] || fail "$n: $(starts $n) gpfs.base installs: $(cat "$NODES/$n/log/installers.log")"
	sim_ssh 127.0.1.${n#dgx0} rpm -q gpfs.base | grep -q '^gpfs.base-' || fail "$n: gpfs.base not installed"
done
cat "$STATE/$run/hosts/"*.log | grep -q "waiting for the Spectrum Scale package install already running here (pid [0-9]*, rpm [0-9]* packages, since 20" ||
	fail "the resume waited for no running install: $(cat "$STATE/$run/hosts/"*.log)"
cat "$STATE/$run/hosts/"*.log | grep -q "adopted the package install that was not seen through: exit 0" ||
	fail "the resume did not adopt the install's result"
for n in dgx01 dgx02; do "$BRINGUP" sim fault $n clear install-slow >/dev/null; done
out=$(deploy 2>&1) || fail "deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "not converged: $out"
exit 0
