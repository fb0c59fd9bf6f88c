# gpu_driver stage: runs the driver's runfile $1 unattended (--silent
# --dkms), as an admin upgrades a DGX or HGX node.
#
# Never two driver installers at once on a node (issue 24, item 1), as
# ofed/install.sh: everything runs under flock on
# /var/lib/bringup/gpu-driver-install.lock, held by this shell and the
# installer it starts (they share the descriptor), also after the client
# that started them died. A later run that finds it held waits for it and,
# when the holder ran this same runfile to exit 0 (gpu-driver-install.result,
# written before anything else can stop it), adopts that instead of running
# the installer a second time. The installer's output goes to files first
# (a write to a client gone would kill it half way through the DKMS build);
# both come back afterwards, its stderr (warnings, "ERROR: ...") on stderr.
# A holder that died frees the lock with its last descriptor: never stale.
#
# One function, called on the last line: `sh -s` reads it whole before it
# runs, so a client gone in the middle (stdin closed) cuts nothing short.
main() {
	set -e
	run=$1
	state=/var/lib/bringup
	lock=$state/gpu-driver-install.lock result=$state/gpu-driver-install.result
	out=$state/gpu-driver-install.out
	mkdir -p "$state"
	exec 9>>"$lock"
	if ! flock -n 9; then
		echo "waiting for the GPU driver installer already running here" \
			"($(cat "$lock.holder" 2>/dev/null || echo "holder unknown"))" >&2
		flock 9
		# only a holder this run waited for: an old result says nothing now
		if [ "$(cat "$result" 2>/dev/null)" = "$run 0" ]; then
			echo "adopted the driver install that was not seen through: $run, exit 0" >&2
			cat "$out" 2>/dev/null || true
			cat "$out.err" >&2 2>/dev/null || true
			return 0
		fi
	fi
	echo "pid $$, $(basename "$run"), since $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$lock.holder"
	rm -f "$result"
	rc=0
	sh "$run" --silent --dkms >"$out" 2>"$out.err" || rc=$?
	# first, before any output: a write to a client gone kills this shell
	echo "$run $rc" >"$result"
	cat "$out"
	cat "$out.err" >&2
	return "$rc"
}
main "$@"
