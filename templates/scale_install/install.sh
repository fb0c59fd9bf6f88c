# scale_install stage: installs the uploaded Spectrum Scale packages.
# $1: the directory they were sent to; $2: rpm or deb; the rest: file names.
# One package-manager call for all of them, so that their dependencies
# among each other resolve (gpfs.gpl needs gpfs.base).
#
# Never two package installs at once on a node (issue 24, item 1), as
# ofed/install.sh: everything runs under flock on
# /var/lib/bringup/scale-install.lock, held by this shell and the package
# manager it starts (they share the descriptor), also after the client
# that started them died. A later run that finds it held waits for it and,
# when the holder installed these same packages with exit 0
# (scale-install.result, written before anything else can stop it), adopts
# that instead of running rpm/dpkg a second time. The package manager's
# output goes to files first: rpm -v writing to a client gone would die of
# SIGPIPE half way through its transaction. A holder that died frees the
# lock with its last descriptor: it is never stale.
#
# One function, called on the last line: `sh -s` reads it whole before it
# runs, so a client gone in the middle (stdin closed) cuts nothing short.
main() {
	set -e
	dir=$1 family=$2
	shift 2
	state=/var/lib/bringup
	lock=$state/scale-install.lock result=$state/scale-install.result
	out=$dir/install.out
	key="$family $*"
	mkdir -p "$state"
	exec 9>>"$lock"
	if ! flock -n 9; then
		echo "waiting for the Spectrum Scale package install already running here" \
			"($(cat "$lock.holder" 2>/dev/null || echo "holder unknown"))" >&2
		flock 9
		# only a holder this run waited for: a result from an earlier day
		# says nothing of the packages now
		if [ "$(cat "$result" 2>/dev/null)" = "$key 0" ]; then
			echo "adopted the package install that was not seen through: exit 0" \
				"(its output: $out)" >&2
			cat "$out" 2>/dev/null || true
			cat "$out.err" >&2 2>/dev/null || true
			return 0
		fi
	fi
	echo "pid $$, $family $# packages, since $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$lock.holder"
	rm -f "$result"
	cd "$dir"
	rc=0
	if [ "$family" = rpm ]; then
		rpm -Uvh --replacepkgs "$@" >"$out" 2>"$out.err" || rc=$?
	else
		dpkg -i "$@" >"$out" 2>"$out.err" || rc=$?
	fi
	# first, before any output: a write to a client gone kills this shell
	echo "$key $rc" >"$result"
	cat "$out"
	cat "$out.err" >&2
	return "$rc"
}
main "$@"
