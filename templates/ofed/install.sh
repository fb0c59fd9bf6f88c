# ofed stage: installs MLNX_OFED from the tarball $1 (top directory $2)
# with the installer options that follow. Unpacks beside the tarball,
# afresh each time, so that a run cut in the middle starts the installer
# over cleanly. The installer's output also goes to mlnxofedinstall.out
# there, for ofed/restart.sh.
#
# Never two installers at once on a node (issue 24, item 1): everything
# runs under flock on /var/lib/bringup/ofed-install.lock, held by this
# shell and the installer it starts (they share the descriptor) for as long
# as either runs, also after the client that started them died: the
# installer goes on and so does its lock. A later run that finds it held
# waits for it (the client's install_timeout bounds the wait and kills it,
# never the holder) and then adopts what that installer did: when it ran to
# its end with exit 0 for this release (ofed-install.result, which the
# holder writes before anything else can stop it) and its install was not
# yet seen through (the ofed-install-pending mark restart.sh clears), its
# output is this step's, and no second installer starts. A holder that
# died frees the lock with its last descriptor: it is never stale.
#
# One function, called on the last line: `sh -s` reads it whole before it
# runs, so a client gone in the middle (stdin closed) cuts nothing short.
main() {
	set -e
	tarball=$1 top=$2
	shift 2
	dir=$(dirname "$tarball")
	out=$dir/mlnxofedinstall.out
	state=/var/lib/bringup
	lock=$state/ofed-install.lock result=$state/ofed-install.result
	mark=$state/ofed-install-pending
	mkdir -p "$state"
	exec 9>>"$lock"
	if ! flock -n 9; then
		echo "waiting for the OFED installer already running here" \
			"($(cat "$lock.holder" 2>/dev/null || echo "holder unknown"))" >&2
		flock 9
	fi
	if [ "$(cat "$result" 2>/dev/null)" = "$top 0" ] &&
		[ "$(cat "$mark" 2>/dev/null)" = "$top" ] && [ -s "$out" ]; then
		echo "adopted the installer run that was not seen through: $top installed," \
			"exit 0 (its output: $out)" >&2
		cat "$out"
		return 0
	fi
	echo "pid $$, $top, since $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$lock.holder"
	rm -f "$result"
	# until restart.sh has run, the next check knows this install was begun
	echo "$top" >"$mark"
	rm -rf "$dir/$top"
	tar -xzf "$tarball" -C "$dir"
	rc=0
	"$dir/$top/mlnxofedinstall" "$@" >"$out" || rc=$?
	# first, before any output: a write to a client gone kills this shell
	echo "$top $rc" >"$result"
	cat "$out"
	[ "$rc" = 0 ] || return "$rc"
	rm -rf "$dir/$top"
}
main "$@"
