# ssh_peer NAME:PORT...: tries, from this node, a key-based login to each
# peer as mpirun's plm_rsh_agent does (BatchMode: no password, no prompt,
# the host key must be known) and prints "NAME ok" or "NAME fail RC
# LAST-LINE-OF-SSH's-STDERR", one line a peer, sorted by name. Sixteen at a
# time (precheck sends 16 peers at most: one round; a large cluster does not
# flood this node with logins), each under BRINGUP_PEER_LIMIT seconds (default 15;
# precheck gives a third of its command timeout), so that a hung peer costs
# that once, not the launcher's own facts.
ssh_peer() {
	_sp_d=$(mktemp -d "${TMPDIR:-/tmp}/bringup-peer.XXXXXX") || return 1
	_sp_l=${BRINGUP_PEER_LIMIT:-15}
	_sp_n=0
	for _sp_p in "$@"; do
		(
			_sp_e=$(timeout "$_sp_l" ssh -n -o BatchMode=yes -o ConnectTimeout="$_sp_l" \
				-p "${_sp_p##*:}" "${_sp_p%:*}" true 2>&1 >/dev/null)
			_sp_rc=$?
			if [ "$_sp_rc" = 0 ]; then
				echo "${_sp_p%:*} ok"
			else
				[ "$_sp_rc" = 124 ] && _sp_e="timed out after $_sp_l s"
				echo "${_sp_p%:*} fail $_sp_rc $(printf '%s\n' "$_sp_e" | tr -d '\r' | sed '/^$/d' | tail -n 1)"
			fi
		) >"$_sp_d/${_sp_p%:*}" &
		_sp_n=$((_sp_n + 1))
		[ $((_sp_n % 16)) = 0 ] && wait
	done
	wait
	cat "$_sp_d"/* 2>/dev/null
	rm -rf "$_sp_d"
}
