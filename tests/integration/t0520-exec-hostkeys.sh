#!/bin/sh
# Host keys: unknown keys are refused by default and recorded only with
# --accept-new-host-keys; a changed key is refused always, with the fix; a key
# marked @revoked is refused always and never recorded; a host that only a
# @cert-authority line vouches for is refused with a message saying why.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready
kh=$(sed -n 's/^ *known_hosts: *//p' "$INV" | head -n 1 | tr -d '"')
[ -f "$kh" ] || fail "inventory has no known_hosts file ($kh)"

# Unknown: an inventory pointing at an empty known_hosts.
empty="$TEST_DIR/empty_known_hosts"
: >"$empty"
sed "s|known_hosts: .*|known_hosts: $empty|" "$INV" >"$TEST_DIR/unknown.yaml"
out=$("$BRINGUP" exec -i "$TEST_DIR/unknown.yaml" -- true 2>&1)
[ $? -eq 3 ] || fail "unknown keys must give exit 3: $out"
echo "$out" | grep -q 'unknown host key' || fail "no 'unknown host key' message: $out"
[ ! -s "$empty" ] || fail "known_hosts written without --accept-new-host-keys"

out=$("$BRINGUP" exec -i "$TEST_DIR/unknown.yaml" --accept-new-host-keys -- true 2>&1) ||
	fail "--accept-new-host-keys did not connect: $out"
[ "$(wc -l <"$empty")" -eq 3 ] || fail "expected 3 recorded keys, got: $(cat "$empty")"
"$BRINGUP" exec -i "$TEST_DIR/unknown.yaml" -- true >/dev/null || fail "recorded keys not used"

# Changed: give dgx01's entry the key of dgx02.
changed="$TEST_DIR/changed_known_hosts"
k1=$(sed -n '1p' "$kh" | cut -d' ' -f1)
k2=$(sed -n '2p' "$kh" | cut -d' ' -f2-)
{ echo "$k1 $k2"; sed -n '2,$p' "$kh"; } >"$changed"
sed "s|known_hosts: .*|known_hosts: $changed|" "$INV" >"$TEST_DIR/changed.yaml"
for flag in "" --accept-new-host-keys; do
	out=$("$BRINGUP" exec -i "$TEST_DIR/changed.yaml" $flag -- true 2>&1)
	[ $? -eq 3 ] || fail "changed key accepted ($flag): $out"
	echo "$out" | grep -q 'host key has changed' || fail "no 'changed' message: $out"
	echo "$out" | grep -q "ssh-keygen -f '$changed' -R" || fail "no fix given: $out"
	echo "$out" | grep -qx 'exit 0: dgx\[02-03\]' || fail "other hosts not run: $out"
done

# @revoked: dgx01's own key, revoked, with and without its plain line.
k1line=$(sed -n '1p' "$kh")
k1key=$(echo "$k1line" | cut -d' ' -f2-)
revoked="$TEST_DIR/revoked_known_hosts"
sed "s|known_hosts: .*|known_hosts: $revoked|" "$INV" >"$TEST_DIR/revoked.yaml"
for plain in no yes; do
	{ echo "@revoked * $k1key"; [ $plain = yes ] && echo "$k1line"; sed -n '2,$p' "$kh"; } >"$revoked"
	cp "$revoked" "$TEST_DIR/revoked.before"
	for flag in "" --accept-new-host-keys; do
		out=$("$BRINGUP" exec -i "$TEST_DIR/revoked.yaml" $flag -- true 2>&1)
		[ $? -eq 3 ] || fail "revoked key accepted (plain line: $plain, $flag): $out"
		echo "$out" | grep -q "REFUSED: its host key .* is marked @revoked in $revoked line 1" ||
			fail "no '@revoked' message (plain line: $plain, $flag): $out"
		echo "$out" | grep -qx 'exit 0: dgx\[02-03\]' || fail "other hosts not run: $out"
		cmp -s "$revoked" "$TEST_DIR/revoked.before" ||
			fail "known_hosts changed ($flag): $(cat "$revoked")"
	done
done

# @cert-authority: bringup cannot check host certificates, so a host that only a
# CA line covers is refused (never silently treated as unknown and recorded).
ca="$TEST_DIR/ca_known_hosts"
k2key=$(sed -n '2p' "$kh" | cut -d' ' -f2-)
{ echo "@cert-authority [127.0.1.*]:$PORT $k2key"; sed -n '2,$p' "$kh"; } >"$ca"
cp "$ca" "$TEST_DIR/ca.before"
sed "s|known_hosts: .*|known_hosts: $ca|" "$INV" >"$TEST_DIR/ca.yaml"
for flag in "" --accept-new-host-keys; do
	out=$("$BRINGUP" exec -i "$TEST_DIR/ca.yaml" $flag -- true 2>&1)
	[ $? -eq 3 ] || fail "host under @cert-authority accepted ($flag): $out"
	echo "$out" | grep -q "$ca line 1 is a @cert-authority line for this host" ||
		fail "no '@cert-authority' message ($flag): $out"
	echo "$out" | grep -qx 'exit 0: dgx\[02-03\]' || fail "hosts with plain keys not run: $out"
	cmp -s "$ca" "$TEST_DIR/ca.before" || fail "known_hosts changed ($flag): $(cat "$ca")"
done
exit 0
