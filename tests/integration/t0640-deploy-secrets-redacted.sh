#!/bin/sh
# Inventory secrets reach no output and no file: secrets declared in the
# inventory (a cluster var and a group var named *password*, *token*) are
# planted in a managed file (so deploy --check's diff would show them), in a
# host's error message (so a failed stage's reason and the journal would hold
# them) and in a command's output (exec) and in facts (precheck). Every run
# prints and writes: the secrets must appear nowhere, the places they were
# show ********, and the run directory, the facts and the bundle are readable
# by their owner only.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready
SEC1=S3cr3t-Bmc-0451
SEC2=tok-7Hq2-Zr9x
STATE=$TEST_DIR/state
OUT=$TEST_DIR/out
mkdir -p "$OUT"

# Declared in the inventory: a cluster var and a gpu_worker group var.
python3 - "$INV" "$TEST_DIR/inv.yaml" "$SEC1" "$SEC2" <<'PY' || fail "cannot edit the inventory"
import sys
src, dst, s1, s2 = sys.argv[1:]
text = open(src).read()
text = text.replace("\n  vars:\n", '\n  vars:\n    bmc_password: "%s"\n' % s1, 1)
text = text.replace("\n  gpu_worker:\n", '\n  gpu_worker:\n    vars:\n      api_token: "%s"\n' % s2, 1)
assert s1 in text and s2 in text
open(dst, "w").write(text)
PY
INV=$TEST_DIR/inv.yaml

# A custom playbook: two stages that manage files and run commands.
cat >"$TEST_DIR/pb.yaml" <<'YAML'
name: deploy
description: memlock and nouveau, for the redaction test
stages:
  - name: memlock
    module: memlock
    hosts: gpu_worker
  - name: nouveau
    module: nouveau
    hosts: gpu_worker
YAML

# The managed file memlock writes holds SEC1 on dgx01 (an admin's note).
sim_ssh 127.0.1.1 "echo '# bmc $SEC1' >/etc/security/limits.d/99-bringup-memlock.conf" ||
	fail "cannot plant the managed file"
# On dgx02 the initramfs must be rebuilt, and dracut fails quoting SEC2 (a
# broken dracut.conf.d line, as bash reports it): the stage's reason.
sim_ssh 127.0.1.2 'rm -f /boot/initramfs-$(uname -r).img' || fail "cannot remove the initramfs"
real=$BRINGUP_SIM_DIR/bin/dracut
mv "$real" "$real.real"
cat >"$real" <<SH
#!/bin/sh
if [ "\$(hostname)" = dgx02 ]; then
	echo "/etc/dracut.conf.d/bmc.conf: line 1: $SEC2: command not found" >&2
	exit 1
fi
exec "\$(dirname "\$0")/dracut.real" "\$@"
SH
chmod +x "$real"
# A file whose content exec prints; an os-release that precheck's OS check
# quotes (found ...) and its facts hold.
sim_ssh 127.0.1.1 "echo 'api_token=$SEC2 password=$SEC1' >/root/creds.txt" || fail "cannot plant creds"
sim_ssh 127.0.1.1 "sed -i 's/^VERSION_ID=.*/VERSION_ID=\"7.6-$SEC1\"/' /etc/os-release" ||
	fail "cannot plant os-release"

run() { # NAME CMD...: stdout and stderr of CMD into $OUT/NAME.{out,err}
	name=$1; shift
	"$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	echo $? >"$OUT/$name.rc"
}
run check "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --check
run check-json "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --check -o json
run deploy "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE"
run deploy-json "$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --resume -o json
run exec "$BRINGUP" exec -i "$INV" -- 'cat /root/creds.txt; cat /root/creds.txt >&2'
run exec-json "$BRINGUP" exec -i "$INV" -o json -- 'cat /root/creds.txt; cat /root/creds.txt >&2'
run exec-fail "$BRINGUP" exec -i "$INV" -- 'cat /root/creds.txt >&2; exit 3'
for f in text json junit prom; do
	run "precheck-$f" "$BRINGUP" precheck -i "$INV" -o "$f" --facts "$STATE/facts.json" \
		--timeout 60
done
# A log written before the secret was declared (or by an older bringup): the
# bundle redacts again what it packs when it has the inventory.
old="$STATE/$(readlink "$STATE/last")/hosts/written-before.log"
echo "password $SEC1 token $SEC2" >"$old"
chmod 600 "$old"
run bundle "$BRINGUP" bundle -i "$INV" --state-dir "$STATE" -o "$TEST_DIR/bundle.tar.gz"
rm -f "$old"
mv "$real.real" "$real"

# The secrets really went through: redaction marks are where they were.
grep -q '^-# bmc \*\*\*\*\*\*\*\*$' "$OUT/check.out" || fail "no redacted diff line: $(cat "$OUT/check.out")"
grep -q "dracut exited 1: .*: \*\*\*\*\*\*\*\*: command not found" "$OUT/deploy.out" ||
	fail "the failed stage's reason is not there: $(cat "$OUT/deploy.out")"
[ "$(cat "$OUT/deploy.rc")" -eq 1 ] || fail "deploy should fail on dgx02"
grep -qx 'api_token=\*\*\*\*\*\*\*\* password=\*\*\*\*\*\*\*\*' "$OUT/exec.out" ||
	fail "exec output not shown redacted: $(cat "$OUT/exec.out")"
for f in text json junit; do
	grep -q '\*\*\*\*\*\*\*\*' "$OUT/precheck-$f.out" ||
		fail "precheck -o $f does not show the redacted OS release: $(cat "$OUT/precheck-$f.out")"
done
grep -q '\*\*\*\*\*\*\*\*' "$STATE/facts.json" || fail "facts without the redacted os-release"
[ "$(cat "$OUT/bundle.rc")" -eq 0 ] || fail "bundle failed: $(cat "$OUT/bundle.err")"

# Nowhere: not in anything printed, not in any file of the state dir, not in the bundle.
mkdir "$TEST_DIR/unpacked"
tar -xzf "$TEST_DIR/bundle.tar.gz" -C "$TEST_DIR/unpacked" || fail "cannot unpack the bundle"
[ -n "$(find "$TEST_DIR/unpacked" -name journal.json)" ] || fail "bundle without a journal"
grep -rqx 'password \*\*\*\*\*\*\*\* token \*\*\*\*\*\*\*\*' "$TEST_DIR/unpacked" ||
	fail "the old log is not in the bundle, redacted"
for s in "$SEC1" "$SEC2"; do
	hits=$(grep -rl -- "$s" "$OUT" "$STATE" "$TEST_DIR/unpacked")
	[ -z "$hits" ] || fail "secret $s found in: $hits"
	zcat "$TEST_DIR/bundle.tar.gz" | grep -q -- "$s" && fail "secret $s in the bundle"
done

# Owner only: the bundle, the facts, every file and directory of the state dir.
[ "$(stat -c %a "$TEST_DIR/bundle.tar.gz")" = 600 ] ||
	fail "bundle is mode $(stat -c %a "$TEST_DIR/bundle.tar.gz")"
bad=$(find "$STATE" -mindepth 1 \( -type f ! -perm 600 \) -o \( -type d ! -perm 700 \))
[ -z "$bad" ] || fail "not owner-only: $(ls -ld $bad)"
exit 0
