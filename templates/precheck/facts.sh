# facts.sh: gathers in one round trip what precheck and the later stages read.
# Sent on stdin to `sh -s` (nothing of it shows in a process list). Each fact
# is framed by marker lines that engine/facts/facts.c splits on; every tool runs
# under `timeout` so that one hung tool cannot eat the whole command's time.
# BRINGUP_FACTS (space-separated) selects the optional families: ib gpu scale
# (BRINGUP_DEEP=1 adds the GPU diagnostics);
# BRINGUP_USER is the login user (whose memlock limits matter), BRINGUP_NAME
# the host's inventory name (which must resolve to its inventory address).
PATH="$PATH:/usr/lpp/mmfs/bin:/usr/sbin:/sbin"
export PATH LC_ALL=C

fact() {
	name=$1; shift
	printf '\n::bringup-fact:: %s\n' "$name"
	timeout 20 "$@" 2>&1
	printf '\n::bringup-rc:: %s %d\n' "$name" "$?"
}
# The same, for a shell function (pam_memlock, prepended by facts.c from
# templates/memlock/pam-memlock.sh): it only reads files, so no timeout.
factf() {
	name=$1; shift
	printf '\n::bringup-fact:: %s\n' "$name"
	"$@" 2>&1
	printf '\n::bringup-rc:: %s %d\n' "$name" "$?"
}
want() { case " $BRINGUP_FACTS " in *" $1 "*) return 0;; esac; return 1; }
# A fact whose tool already ran (name, exit status, output), framed as fact
# frames it: the output's lines, then the end marker after a blank line.
factv() {
	printf '\n::bringup-fact:: %s\n' "$1"
	[ -z "$3" ] || printf '%s\n' "$3"
	printf '\n::bringup-rc:: %s %d\n' "$1" "$2"
}

# First, and read before its marker is printed, so that the reading lies
# between the admin host's send and the arrival of the first byte: the skew
# is then bounded on both sides, however slowly the host started the shell.
_d=$(date +%s.%N); printf '\n::bringup-fact:: date\n%s\n\n::bringup-rc:: date 0\n' "$_d"

# The rest, compressed where the admin host asks for it (BRINGUP_GZIP=1) and
# gzip is here: some 80 KB of text a host (nvidia-smi -q alone is 37 KB)
# would otherwise wait in the admin host's SSH buffers for every host in
# flight at once, 256 at precheck's default fan-out (issue 26). The date
# above stays plain: its first byte's arrival bounds the clock skew, and
# gzip holds its output until it has a block or its input ends.
facts_rest() {
	# The slow readings start first and run beside the rest, so that the host's
	# time is the longest of them, not their sum:
	#  - the whole fabric (BRINGUP_FABRIC=1, one node only): iblinkinfo and
	#    ibhosts, in the background into a private directory, printed at the end
	#    (where there is no directory to write to, they run there instead);
	#  - each expected port's error counters (BRINGUP_IB_PORTS "mlx5_0/1 ...")
	#    read twice at least BRINGUP_IB_INTERVAL seconds apart: a count left
	#    from a past incident stays put, a failing link's rises. The first round
	#    is read now, the second at the end, after the other facts (and, when
	#    they took less than the interval, the rest of it).
	_tmp=
	if want ib && [ -n "${BRINGUP_FABRIC-}" ]; then
		_tmp=$(mktemp -d 2>/dev/null) && trap 'rm -rf "$_tmp"' EXIT
		[ -n "$_tmp" ] && { fact iblinkinfo iblinkinfo; fact ibhosts ibhosts; } >"$_tmp/fabric" 2>&1 &
		_fabric=$!
	fi
	if want ib && [ -n "${BRINGUP_IB_PORTS-}" ]; then
		set -f
		for _p in $BRINGUP_IB_PORTS; do
			fact "perfquery-a $_p" perfquery -x -C "${_p%/*}" -P "${_p##*/}"
		done
		set +f
		sleep "${BRINGUP_IB_INTERVAL:-1}" &
		_interval=$!
	fi

	# mpirun's launcher only (BRINGUP_PEERS=NAME:PORT...): node-to-node logins.
	# shellcheck disable=SC2086
	[ -n "${BRINGUP_PEERS-}" ] && factf ssh-peer ssh_peer $BRINGUP_PEERS
	fact hostname hostname
	fact resolve getent hosts "$BRINGUP_NAME"
	fact os-release cat /etc/os-release
	_k=$(uname -r 2>&1); factv kernel $? "$_k"
	_kd=
	for _dir in "/usr/src/kernels/$_k" "/lib/modules/$_k/build"; do
		[ -e "$_dir" ] && _kd="$_kd$_dir
"
	done
	factv kernel-devel 0 "${_kd%?}"
	fact df-tmp df -Pk /tmp
	fact meminfo cat /proc/meminfo
	fact lsmod lsmod
	fact getenforce getenforce
	fact memlock-ulimit sh -c 'ulimit -l'
	factf memlock-pam pam_memlock "$BRINGUP_USER"
	fact memlock-limits sh -c 'cat /etc/security/limits.conf /etc/security/limits.d/*.conf 2>/dev/null; true'
	fact memlock-crio systemctl show crio -p LoadState -p LimitMEMLOCK

	if want ib; then
		fact ofed_info ofed_info -s
		fact ibstatus ibstatus
		fact ibstat ibstat
		fact sminfo sminfo
		fact ibdev2netdev ibdev2netdev
	fi
	if want gpu; then
		fact nvidia-smi-q nvidia-smi -q
		fact nvidia-smi-topo nvidia-smi topo -m
		# the kernel log, read once: the GPU's lines; the module loader's symbol
		# errors (a module built against another ib_core or driver), and
		# dmesg's own refusal to read the log
		_dm=$(timeout 20 dmesg 2>&1)
		_grep50() { printf '%s\n' "$_dm" | grep -E "$1" | tail -n 50; true; }
		factf dmesg-gpu _grep50 'NVRM: Xid|peermem|nv_peer_mem'
		factf dmesg-modules _grep50 ': Unknown symbol |: disagrees about version of symbol |^dmesg: '
		_dm=
		# the peer-memory modules' builds: the kernel each was built for
		# (vermagic), what it links against
		fact modinfo-nv_peer_mem modinfo nv_peer_mem
		fact modinfo-nvidia_peermem modinfo nvidia_peermem
	fi
	if want ib || want gpu; then
		fact lspci lspci -vvv
	fi
	# precheck --deep (BRINGUP_DEEP=1): DCGM's quick diagnostic, which takes
	# seconds to a minute, under a limit of its own
	if [ -n "${BRINGUP_DEEP-}" ] && want gpu; then
		printf '\n::bringup-fact:: %s\n' dcgmi-diag
		timeout "${BRINGUP_DEEP_LIMIT:-120}" dcgmi diag -r 1 2>&1
		printf '\n::bringup-rc:: %s %d\n' dcgmi-diag "$?"
	fi
	if want scale; then
		fact mmgetstate mmgetstate -a
		fact mmlsmount mmlsmount all -L
		fact mmdiag-config mmdiag --config
		fact mmdiag-network mmdiag --network
		fact mmfsadm-verbs mmfsadm test verbs status
		fact mmlsconfig mmlsconfig
		fact mmhealth mmhealth node show
	fi
	if [ -n "${_interval-}" ]; then
		wait "$_interval"
		# the time between the two rounds (the first began after date), for rates
		_t1=$(date +%s.%N)
		printf '\n::bringup-fact:: perfquery-interval\n%s %s\n\n::bringup-rc:: perfquery-interval 0\n' "$_d" "$_t1"
		set -f
		for _p in $BRINGUP_IB_PORTS; do
			fact "perfquery-b $_p" perfquery -x -C "${_p%/*}" -P "${_p##*/}"
		done
		set +f
	fi
	if want ib && [ -n "${BRINGUP_FABRIC-}" ]; then
		if [ -n "$_tmp" ]; then
			wait "$_fabric"
			cat "$_tmp/fabric"
		else
			fact iblinkinfo iblinkinfo
			fact ibhosts ibhosts
		fi
	fi
	exit 0
}
if [ -n "${BRINGUP_GZIP-}" ] && command -v gzip >/dev/null 2>&1; then
	printf '\n::bringup-gzip::\n'
	facts_rest | gzip -1
else
	facts_rest
fi
