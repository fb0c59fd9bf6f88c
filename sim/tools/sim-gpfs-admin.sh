# sim-gpfs-admin.sh: the GPFS stand-ins' commands that change the cluster
# (mmcrcluster, mmaddnode, mmstartup, mmchconfig, mmmount, mmauth, ...) and
# the read-only ones precheck does not run on every node, with their
# helpers. Sourced by sim-gpfs-lib.sh, whose header describes the state
# they read and change, for every caller but its own read-only commands.

# gpfs_mark_installed: what installing the gpfs.base package does to the
# node, including /usr/lpp/mmfs/bin (in the node's /usr overlay) whose
# entries hand over to the stand-ins, for callers that use the full path.
gpfs_mark_installed() {
	mkdir -p "$S/gpfs" "$G/installed" "$N/root/usr/lpp/mmfs/bin"
	echo "$GPFS_VERSION" >"$S/gpfs/installed"
	echo "$GPFS_VERSION" >"$G/installed/$NODE_NAME"
	_mi_files=
	for f in "$SIM_BIN"/mm*; do
		printf '#!/bin/sh\nexec /run/bringup-sim/bin/%s "$@"\n' "${f##*/}" \
			>"$N/root/usr/lpp/mmfs/bin/${f##*/}"
		_mi_files="$_mi_files ${f##*/}"
	done
	# one chmod for all (the names have no blanks)
	# shellcheck disable=SC2086
	[ -z "$_mi_files" ] || (cd "$N/root/usr/lpp/mmfs/bin" && chmod 755 $_mi_files)
}

# gpfs_mark_removed: the node without the package.
gpfs_mark_removed() {
	for _mr_f in "$S/gpfs" "$N/root/usr/lpp/mmfs" "$G/installed/$NODE_NAME"; do
		[ -e "$_mr_f" ] || [ -L "$_mr_f" ] || continue
		rm -rf "$S/gpfs" "$N/root/usr/lpp/mmfs" "$G/installed/$NODE_NAME"
		return
	done
}

# gpfs_locked CMD...: runs CMD under the cluster lock; a failing CMD (its
# message already printed) ends the stand-in with its status.
gpfs_locked() {
	(flock 9 && "$@") 9>"$G/.lock" || exit $?
}

gpfs_stamp() {
	sim_date '+%a %b %e %H:%M:%S %Z %Y'
}

gpfs_propagating() {
	echo "$CMD: Propagating the cluster configuration data to all"
	echo "  affected nodes.  This is an asynchronous process."
}

# gpfs_resolve NAME|ADDRESS: prints "name address" of a simulated node.
gpfs_resolve() {
	awk -v x="$1" '$1 == x || $2 == x || index($1, x ".") == 1 { print $1, $2; exit }' "$G/hosts"
}

gpfs_cluster_id() {
	printf '%s' "$1" | cksum | awk '{ printf "835838%013d\n", $1 }'
}

gpfs_sha() {
	printf '%s' "$1" | sha256sum | cut -c1-64
}

# gpfs_designation NODEDESC: the designation of "name[:designation]" as
# mmlscluster shows it ("-" for a plain client).
gpfs_designation() {
	case $1 in
	*:manager-quorum) echo quorum-manager;;
	*:client | *:nonquorum | *:nonquorum-client | *:) echo -;;
	*:*) echo "${1#*:}";;
	*) echo -;;
	esac
}

# gpfs_add_node NAME ADDRESS DESIGNATION LICENSE: appends with the next number.
gpfs_add_node() {
	num=$(awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m + 1 }' "$G/nodes" 2>/dev/null)
	echo "$num $1 $2 ${3:--} ${4:-none}" >>"$G/nodes"
	[ -f "$G/daemon/$1" ] || echo down >"$G/daemon/$1"
}

gpfs_license_warning() {
	awk '$5 == "none" { f = 1 } END { exit !f }' "$G/nodes" || return 0
	echo "$CMD: Warning: Not all nodes have proper GPFS license designations."
	echo "    Use the mmchlicense command to designate licenses as needed."
}

# gpfs_storage_make NAME ID FS:UID:BLOCKSIZE ADDR:NODE...: (re)writes the
# remote storage cluster (see the layout above); its key is a function of
# its name, so every sim up makes the same one.
gpfs_storage_make() {
	_sm_d=$G/storage
	mkdir -p "$_sm_d/faults"
	echo "$1 $2" >"$_sm_d/cluster"
	{
		echo "-----BEGIN PUBLIC KEY-----"
		printf '%s' "$1" | sha512sum | cut -c1-64
		echo "-----END PUBLIC KEY-----"
	} >"$_sm_d/key"
	_sm_fs=$3
	shift 3
	# FS:UID:BLOCKSIZE, the UID itself being HEX:HEX
	echo "${_sm_fs%%:*} ${_sm_fs#*:}" | sed 's/:\([0-9]*\)$/ \1/' >"$_sm_d/fs"
	: >"$_sm_d/nodes"
	for _sm_n; do echo "${_sm_n%%:*} ${_sm_n#*:} quorum-manager" >>"$_sm_d/nodes"; done
	: >"$_sm_d/clients"
	: >"$_sm_d/autogrant"
}

# gpfs_storage_mmauth ARGS: mmauth on the storage cluster, run by its admin
# (sim-gpfs-storage-admin): add CLUSTER -k KEYFILE, grant CLUSTER -f FS|all,
# deny CLUSTER -f FS, delete CLUSTER, show.
gpfs_storage_mmauth() {
	_sa_d=$G/storage
	[ -f "$_sa_d/cluster" ] || gpfs_fail "There is no storage cluster."
	touch "$_sa_d/clients"
	_sa_sub=${1-} _sa_c=${2-} _sa_k= _sa_f=
	[ $# -ge 2 ] && shift 2
	while [ $# -gt 0 ]; do case $1 in -k) shift; _sa_k=${1-};; -f) shift; _sa_f=${1-};; esac; shift; done
	_sa_row=$(awk -F '\t' -v c="$_sa_c" '$1 == c { print; exit }' "$_sa_d/clients")
	case $_sa_sub in
	add)
		[ -n "$_sa_c" ] && [ -r "$_sa_k" ] || gpfs_fail "Missing or unreadable key file (-k)."
		[ -z "$_sa_row" ] || gpfs_fail "Cluster $_sa_c is already authorized; use mmauth update."
		printf '%s\t%s\t\n' "$_sa_c" "$(sha256sum <"$_sa_k" | cut -c1-64)" >>"$_sa_d/clients";;
	grant | deny)
		[ -n "$_sa_row" ] || gpfs_fail "Cluster $_sa_c is not authorized; use mmauth add first."
		[ -n "$_sa_f" ] || gpfs_fail "Missing file system (-f)."
		_sa_fs=$(printf '%s' "$_sa_row" | cut -f3 | tr ',' '\n' | grep -vx "$_sa_f" | paste -sd, -)
		[ "$_sa_sub" = grant ] && _sa_fs=${_sa_fs:+$_sa_fs,}$_sa_f
		gpfs_table_del "$_sa_d/clients" "$_sa_c"
		printf '%s\t%s\t%s\n' "$_sa_c" "$(printf '%s' "$_sa_row" | cut -f2)" "$_sa_fs" >>"$_sa_d/clients";;
	delete) gpfs_table_del "$_sa_d/clients" "$_sa_c";;
	show) cat "$_sa_d/clients"; return 0;;
	*) echo "Usage: mmauth {add | grant | deny | delete | show} ..." >&2; exit 1;;
	esac
	echo "mmauth: Command successfully completed"
}

# --- commands ----------------------------------------------------------------

mmlscluster() {
	gpfs_require_member
	echo
	echo "GPFS cluster information"
	echo "========================"
	echo "  GPFS cluster name:         $CL_NAME"
	echo "  GPFS cluster id:           $CL_ID"
	echo "  GPFS UID domain:           $CL_NAME"
	echo "  Remote shell command:      $CL_RSH"
	echo "  Remote file copy command:  $CL_RCP"
	echo "  Repository type:           CCR"
	echo
	# nodes is kept in sort -n order: sort only when it is not
	if gpfs_nodes_sorted; then gpfs_lscluster_table <"$G/nodes"
	else sort -n "$G/nodes" | gpfs_lscluster_table; fi
}

# gpfs_lscluster_table: mmlscluster's node table from the sorted nodes on stdin.
gpfs_lscluster_table() {
	awk '
	{ num[NR] = $1; name[NR] = $2; ip[NR] = $3; des[NR] = ($4 == "-" ? "" : $4) }
	function max(a, b) { return a > b ? a : b }
	END {
		wn = 16; wi = 10; wd = 11
		for (i = 1; i <= NR; i++) {
			wn = max(wn, length(name[i])); wi = max(wi, length(ip[i]))
			wd = max(wd, length(des[i]))
		}
		wn += 2; wi += 2
		printf " Node  %-" wn "s%-" wi "s%-" wn "s%s\n", "Daemon node name", "IP address", "Admin node name", "Designation"
		dash = ""
		for (i = 0; i < 7 + wn + wi + wn + wd; i++) dash = dash "-"
		print dash
		for (i = 1; i <= NR; i++) {
			line = sprintf("%4d   %-" wn "s%-" wi "s%-" wn "s%s", num[i], name[i], ip[i], name[i], des[i])
			sub(/ +$/, "", line)
			print line
		}
	}'
}

# gpfs_nodes_sorted: sets quorum and total from $G/nodes (what awk and wc
# -l say) and says whether the file is in `sort -n` order already (numbers
# strictly rising), so that mmlscluster reads it without processes (the
# read-only commands precheck runs take the same from gpfs_load_states).
gpfs_nodes_sorted() {
	quorum=0 total=0 up=0 _ns_last=-1 _ns_ok=0
	while _ns_full=1; IFS= read -r _ns_l || { _ns_full=0; [ -n "$_ns_l" ]; }; do
		[ "$_ns_full" = 1 ] && total=$((total + 1))
		set -f
		set -- $_ns_l
		set +f
		case ${4-} in *quorum*) quorum=$((quorum + 1));; esac
		case ${1-} in '' | *[!0-9]* | 0?*) _ns_ok=1; continue;; esac
		[ "${#1}" -le 9 ] && [ "$1" -gt "$_ns_last" ] || _ns_ok=1
		_ns_last=$1
	done <"$G/nodes"
	quorum=$((quorum / 2 + 1))
	return $_ns_ok
}

mmcrcluster() {
	nodes= name= rsh=/usr/bin/ssh rcp=/usr/bin/scp auto=no
	while [ $# -gt 0 ]; do
		case $1 in
		-N) shift; nodes=$1;; -C) shift; name=$1;; -r) shift; rsh=$1;; -R) shift; rcp=$1;;
		-A) auto=yes;; -U | -p | -s | -c | --profile | --port) shift;;
		--ccr-enable | --use-sudo-wrapper) ;;
		*) gpfs_fail "Incorrect extra argument: $1";;
		esac
		shift
	done
	if [ -z "$nodes" ]; then
		echo "mmcrcluster: Missing arguments." >&2
		echo "Usage:" >&2
		echo "  mmcrcluster -N {NodeDesc[,NodeDesc...] | NodeFile}" >&2
		exit 1
	fi
	gpfs_locked gpfs_crcluster "$nodes" "$name" "$rsh" "$rcp" "$auto"
}

gpfs_crcluster() {
	list=$(gpfs_node_list "$1")
	first=
	for d in $list; do
		r=$(gpfs_resolve "${d%%:*}")
		[ -n "$r" ] || gpfs_fail "Unable to resolve host name ${d%%:*}."
		gpfs_member "${r%% *}" &&
			gpfs_fail "Node ${r%% *} already belongs to a GPFS cluster."
		[ -f "$G/installed/${r%% *}" ] ||
			gpfs_fail "${r%% *}:  /usr/lpp/mmfs/bin/mmremote: No such file or directory"
		[ -n "$first" ] || first=${r%% *}
	done
	# one cluster per simulated cluster: never overwrite another's members
	[ -s "$G/nodes" ] && [ -f "$G/cluster" ] &&
		gpfs_fail "The simulator holds one GPFS cluster and $(awk 'NR == 1 { print $2 }' "$G/nodes") belongs to it; delete it first (mmdelnode -a)."
	echo "mmcrcluster: Performing preliminary node verification ..."
	echo "mmcrcluster: Processing quorum and other critical nodes ..."
	name=${2:-$first}
	: >"$G/nodes"
	: >"$G/config"
	rm -f "$G"/daemon/* "$G"/mounts/*
	echo "$name $(gpfs_cluster_id "$name") $3 $4 $5" >"$G/cluster"
	for d in $list; do
		r=$(gpfs_resolve "${d%%:*}")
		des=$(gpfs_designation "$d")
		gpfs_add_node $r "$des" none
	done
	echo "mmcrcluster: Finalizing the cluster data structures ..."
	echo "mmcrcluster: Command successfully completed"
	gpfs_license_warning
	gpfs_propagating
}

mmaddnode() {
	nodes=
	while [ $# -gt 0 ]; do
		case $1 in -N) shift; nodes=$1;; *) nodes=$1;; esac
		shift
	done
	[ -n "$nodes" ] || { echo "Usage: mmaddnode -N {NodeDesc[,NodeDesc...] | NodeFile}" >&2; exit 1; }
	gpfs_require_member
	gpfs_locked gpfs_addnode "$nodes"
}

# A node the admin node cannot reach over the cluster's remote shell
# ($C/unreachable/NAME: the unreachable or peer-ssh-denied fault) does not
# stop the command: it is processed, named "cannot be reached", listed as
# not added, and the others join; the command still completes (exit 0), as
# in the real capture tests/fixtures/other-tools/mmaddnode/ (SOURCES.md).
# The two messages go to stderr, where GPFS's printErrorMsg writes (the
# capture is a terminal's, both streams). No node added at all fails
# (the sim's wording: no capture of that case).
gpfs_addnode() {
	_an_bad= _an_ok=0
	for d in $(gpfs_node_list "$1"); do
		r=$(gpfs_resolve "${d%%:*}")
		[ -n "$r" ] || gpfs_fail "Incorrect node ${d%%:*} specified for command."
		n=${r%% *}
		gpfs_member "$n" && gpfs_fail "Node $n is already a member of the GPFS cluster."
		[ -f "$G/installed/$n" ] ||
			gpfs_fail "$n:  /usr/lpp/mmfs/bin/mmremote: No such file or directory"
		des=$(gpfs_designation "$d")
		echo "$(gpfs_stamp): mmaddnode: Processing node $n"
		if [ -e "$C/unreachable/$n" ]; then
			_an_bad="$_an_bad $n"
			continue
		fi
		gpfs_add_node $r "$des" none
		_an_ok=1
	done
	if [ -n "$_an_bad" ]; then
		for n in $_an_bad; do echo "mmaddnode: $n cannot be reached." >&2; done
		echo "mmaddnode: The following nodes could not be added to the GPFS cluster:" >&2
		for n in $_an_bad; do printf '\t\t%s\n' "$n" >&2; done
		echo "   Correct the problems and use the mmaddnode command to add these nodes" >&2
		echo "   to the cluster." >&2
		[ "$_an_ok" = 1 ] || gpfs_fail "No nodes were added to the cluster."
	fi
	echo "mmaddnode: Command successfully completed"
	gpfs_license_warning
	gpfs_propagating
}

mmdelnode() {
	gpfs_require_member
	gpfs_parse_targets "$@"
	gpfs_locked gpfs_delnode
}

gpfs_delnode() {
	echo "Verifying GPFS is stopped on all affected nodes ..."
	for n in $TARGETS; do
		case $(cat "$G/daemon/$n" 2>/dev/null) in
		active | starting*) gpfs_fail "GPFS is still active on $n";;
		esac
	done
	for n in $TARGETS; do
		awk -v n="$n" '$2 != n' "$G/nodes" >"$G/nodes.tmp" && mv "$G/nodes.tmp" "$G/nodes"
		rm -f "$G/daemon/$n" "$G/loaded/$n"
	done
	[ -s "$G/nodes" ] || rm -f "$G/cluster" "$G/nodes"
	echo "mmdelnode: Command successfully completed"
	gpfs_propagating
}

# mmchnode --quorum | --nonquorum, --manager | --client, -N NODES: the
# designations mmlscluster shows. Output as in a real session
# (github.com/giovannisciortino/giovannisciortino.github.io, the 2015 post on
# a two-node cluster with tiebreaker disks: "DATE: mmchnode: Processing node
# gpfs02", then the propagation lines). A quorum or manager designation
# needs a server licence (IBM's licence designations: only the server
# licence lets a node be a quorum, manager or NSD server node); the refusal
# is the sim's wording.
mmchnode() {
	q= m= nodes=
	while [ $# -gt 0 ]; do
		case $1 in
		--quorum) q=1;; --nonquorum | --non-quorum) q=0;;
		--manager) m=1;; --client) m=0;;
		-N) shift; nodes=${1-};;
		*) gpfs_fail "Incorrect extra argument: $1";;
		esac
		shift
	done
	if [ -z "$nodes" ] || [ -z "$q$m" ]; then
		echo "mmchnode: Missing arguments." >&2
		echo "Usage: mmchnode {--quorum | --nonquorum} {--manager | --client} -N {Node[,Node...] | NodeFile | NodeClass}" >&2
		exit 1
	fi
	gpfs_require_member
	gpfs_locked gpfs_chnode "$q" "$m" "$nodes"
}

gpfs_chnode() {
	targets=$(gpfs_targets 0 "$3") || exit 1
	for n in $targets; do
		_cn_lic=$(awk -v n="$n" '$2 == n { print $5; f = 1 } END { if (!f) print "?" }' "$G/nodes")
		[ "$_cn_lic" != "?" ] || gpfs_fail "Incorrect node $n specified for command."
		if [ "$1" = 1 ] || [ "$2" = 1 ]; then
			[ "$_cn_lic" = server ] ||
				gpfs_fail "Node $n does not have a server license; a quorum or manager node needs one (mmchlicense server --accept -N $n)."
		fi
	done
	for n in $targets; do
		echo "$(gpfs_stamp): mmchnode: Processing node $n"
		awk -v n="$n" -v q="$1" -v m="$2" '
		$2 == n {
			hq = ($4 ~ /quorum/); hm = ($4 ~ /manager/)
			if (q != "") hq = q + 0
			if (m != "") hm = m + 0
			$4 = hq && hm ? "quorum-manager" : hq ? "quorum" : hm ? "manager" : "-"
		}
		{ print }' "$G/nodes" >"$G/nodes.tmp" && mv "$G/nodes.tmp" "$G/nodes"
	done
	gpfs_propagating
}

mmchlicense() {
	kind= nodes= accept=0
	while [ $# -gt 0 ]; do
		case $1 in
		server | client | fpo) kind=$1;; --accept) accept=1;; -N) shift; nodes=$1;;
		esac
		shift
	done
	if [ -z "$kind" ] || [ -z "$nodes" ]; then
		echo "mmchlicense: Missing arguments." >&2
		echo "Usage:" >&2
		echo "  mmchlicense {client|fpo|server} [--accept] -N {Node[,Node...] | NodeFile | NodeClass}" >&2
		exit 1
	fi
	gpfs_require_member
	gpfs_locked gpfs_chlicense "$kind" "$nodes"
}

gpfs_chlicense() {
	targets=$(gpfs_targets 0 "$2") || exit 1
	echo
	echo "The following nodes will be designated as possessing $1 licenses:"
	_cl_bad=$(printf '%s\n' "$targets" | awk -v nf="$G/nodes" 'FILENAME == nf { m[$2] = 1; next } !($0 in m) { print; exit }' "$G/nodes" -)
	[ -z "$_cl_bad" ] || gpfs_fail "Incorrect node $_cl_bad specified for command."
	for n in $targets; do printf '\t%s\n' "$n"; done
	printf '%s\n' "$targets" | awk -v nf="$G/nodes" -v l="$1" '
	FILENAME != nf { set[$0] = 1; next }
	$2 in set { $5 = l } { print }' - "$G/nodes" >"$G/nodes.tmp" && mv "$G/nodes.tmp" "$G/nodes"
	echo "mmchlicense: Command successfully completed"
	gpfs_propagating
}

# mmlslicense [-Y]: the licence each node needs and has, from the license
# column of $G/nodes (what mmchlicense sets; mmcrcluster and mmaddnode add
# nodes with none). A quorum or manager node needs a server licence, any
# other a client one (IBM's mmchlicense page: the client licence does not
# authorise the quorum, manager, configuration manager or NSD server roles).
# -Y: GPFS's parseable layout, the header and rows as in the real capture
# tests/fixtures/tools/mmlslicense/ (see its SOURCES.md: every row repeats
# the cluster's counts; an unlicensed node's designatedLicense is "none").
# Without -Y: the summary of the real 5.0 capture in
# tests/fixtures/other-tools/mmlslicense/ (labels padded to 65 columns, the
# FPO line, the edition last: Data Management, what sim-scale-bundle's
# gpfs.license.dm installs). -L has no real capture of its layout: refused,
# not guessed.
mmlslicense() {
	_ll_y=0
	while [ $# -gt 0 ]; do
		case $1 in
		-Y) _ll_y=1;;
		-L | --capacity | --formatted | --licensed-usage | --ilmt-data)
			echo "mmlslicense: $1 is not simulated (no real capture of its layout); use -Y" >&2
			exit 2;;
		*) echo "Usage: mmlslicense [-Y] [-L | --capacity [--formatted]]" >&2; exit 1;;
		esac
		shift
	done
	gpfs_require_member
	sort -n "$G/nodes" | awk -v y="$_ll_y" '
	{
		name[NR] = $2; des[NR] = $5
		req[NR] = ($4 ~ /quorum|manager/) ? "server" : "client"
		if (des[NR] == "server") ls++
		else if (des[NR] == "client") lc++
		else if (des[NR] == "fpo") lf++
		if (req[NR] == "server" && des[NR] != "server") us++
		if (req[NR] == "client" && des[NR] == "none") uc++
	}
	END {
		if (y) {
			print "mmlslicense::HEADER:version:reserved:reserved:nodeName:requiredLicense:designatedLicense:totalNodes:licensedServers:licensedClients:unlicensedServers:unlicensedClients:licensedFpo:"
			for (i = 1; i <= NR; i++)
				printf "mmlslicense::0:1:::%s:%s:%s:%d:%d:%d:%d:%d:%d:\n", name[i], req[i], des[i], NR, ls, lc, us, uc, lf
			exit
		}
		print ""
		print " Summary information "
		print "---------------------"
		printf "%-65s%d\n", "Number of nodes defined in the cluster:", NR
		printf "%-65s%d\n", "Number of nodes with server license designation:", ls
		printf "%-65s%d\n", "Number of nodes with FPO license designation:", lf
		printf "%-65s%d\n", "Number of nodes with client license designation:", lc
		printf "%-65s%d\n", "Number of nodes still requiring server license designation:", us
		printf "%-65s%d\n", "Number of nodes still requiring client license designation:", uc
		print "This node runs IBM Spectrum Scale Data Management Edition"
	}'
}

# gpfs_set_license NAME LICENSE: the license column of NAME in $G/nodes,
# changed without any mm command (sim-gpfs-license: what happens behind
# bringup's back). Run under the lock.
gpfs_set_license() {
	gpfs_member "$1" || gpfs_fail "Incorrect node $1 specified for command."
	awk -v n="$1" -v l="$2" '$2 == n { $5 = l } { print }' "$G/nodes" >"$G/nodes.tmp" &&
		mv "$G/nodes.tmp" "$G/nodes"
}

# gpfs_parse_targets ARGS...: sets TARGETS from -a / -N NODES / nothing
# (this node), ignoring the other options.
gpfs_parse_targets() {
	_all=0 _nodes=
	while [ $# -gt 0 ]; do
		case $1 in -a) _all=1;; -N) shift; _nodes=$1;; esac
		shift
	done
	TARGETS=$(gpfs_targets "$_all" "$_nodes") || exit 1
}

mmstartup() {
	gpfs_require_member
	gpfs_parse_targets "$@"
	echo "$(gpfs_stamp): mmstartup: Starting GPFS ..."
	gpfs_locked gpfs_startup
}

# A daemon that cannot run dies at once, after mmstartup said "Starting":
# a gpfs-down fault, or no portability layer (mmbuildgpl) for the node's
# running kernel (mmfs26.ko does not load). mmgetstate then says down.
gpfs_startup() {
	sim_date_get NOW +%s
	for n in $TARGETS; do
		gpfs_stop_at_fired "$n" && { rm -f "$G/faults/gpfs-stop-at.$n"; echo down >"$G/daemon/$n"; }
		if [ -f "$G/daemon/$n" ]; then
			read -r _su_st _su_t <"$G/daemon/$n"
			case $_su_st in active | starting) continue;; esac
		fi
		[ -e "$G/faults/gpfs-down.$n" ] && continue
		[ -f "$G/gpl/$n" ] || continue
		if [ "$n" = "$NODE_NAME" ]; then
			sim_read _su_k "$G/gpl/$n"
			[ "$_su_k" = "$KERNEL" ] || continue
		fi
		echo "starting $NOW" >"$G/daemon/$n"
		mkdir -p "$G/loaded"
		gpfs_effective "$n" >"$G/loaded/$n"
		gpfs_automount "$n"
	done
}

# gpfs_automount NAME: the file systems whose automount setting is yes
# (mmremotefs add/update -A yes) are mounted when NAME's daemon starts
# (IBM, "Deciding how the file system is mounted": yes = "When the GPFS
# daemon starts", no = "Manual mount", automount = "When the file system
# is first accessed"; "Mounting a file system": with -A yes there is no
# mmmount to run after restarting GPFS). NAME joins mounts/FS here, and
# mmlsmount lists it once its daemon is active (after its arbitration,
# with quorum). A mount the owning cluster refuses (gpfs_remote_check)
# fails as mmmount's would, in the daemon's log only: no mmstartup
# message, the file system stays unmounted. -A automount: nothing is
# accessed in the sim, so nothing mounts; -A no: never.
# The file systems are judged once a command (_am_fs: "-" before).
gpfs_automount() {
	if [ "${_am_fs:--}" = - ]; then
		_am_fs=
		[ -s "$G/remotefs" ] &&
			for _am_d in $(awk -F '\t' '$6 == "yes" { print $1 }' "$G/remotefs"); do
				gpfs_remote_check "$_am_d" 2>/dev/null && _am_fs="$_am_fs $_am_d"
			done
		_am_fs=${_am_fs:- }
	fi
	for _am_d in $_am_fs; do gpfs_mount_edit "$G/mounts/$_am_d" "$1" add; done
}

# gpfs_effective NAME: NAME's configuration, "attribute value" a line, as
# its daemon reads it: a stanza naming NAME wins over one of a node class
# NAME is in, which wins over [common].
gpfs_effective() {
	awk -F '\t' -v n="$1" -v ncf="$G/nodeclass" '
	FILENAME == ncf { m = split($2, mem, ","); for (i = 1; i <= m; i++) if (mem[i] == n) incls[$1] = 1; next }
	{
		k = split($1, lab, ","); w = ""
		for (i = 1; i <= k; i++) if (lab[i] == n) w = "node"; else if (w == "" && lab[i] in incls) w = "cls"
		if (w == "" && $1 == "common") w = "com"
		if (w == "") next
		if (!($2 in seen)) { seen[$2] = 1; ord[++no] = $2 }
		val[w, $2] = $3; has[w, $2] = 1
	}
	END {
		for (i = 1; i <= no; i++) {
			a = ord[i]
			if (has["node", a]) print a, val["node", a]
			else if (has["cls", a]) print a, val["cls", a]
			else if (has["com", a]) print a, val["com", a]
		}
	}' "$G/nodeclass" "$G/config"
}

mmshutdown() {
	gpfs_require_member
	gpfs_parse_targets "$@"
	echo "$(gpfs_stamp): mmshutdown: Starting force unmount of GPFS file systems"
	echo "$(gpfs_stamp): mmshutdown: Shutting down GPFS daemons"
	gpfs_locked gpfs_shutdown
	echo "$(gpfs_stamp): mmshutdown: Finished"
}

# The fault gpfs-stop-at (sim-fault): "K S" in faults/gpfs-stop-at.NAME
# counts mmshutdown runs; the K-th one (on any node) fires it, and NAME's
# daemon stops S seconds after that (fractional), as a node lost at a chosen
# moment of an upgrade batch. Fired, the file holds "at T".
gpfs_stop_at_fire() {
	for _sa_f in "$G"/faults/gpfs-stop-at.*; do
		[ -f "$_sa_f" ] || continue
		read -r _sa_k _sa_s <"$_sa_f"
		[ "$_sa_k" != at ] || continue
		_sa_k=$((_sa_k - 1))
		if [ "$_sa_k" -le 0 ]; then
			awk -v now="$(date +%s.%N)" -v s="$_sa_s" 'BEGIN { printf "at %.3f\n", now + s }' >"$_sa_f"
		else
			echo "$_sa_k $_sa_s" >"$_sa_f"
		fi
	done
}

# gpfs_stop_at_fired NAME: NAME's gpfs-stop-at fault has stopped its daemon.
gpfs_stop_at_fired() {
	[ -f "$G/faults/gpfs-stop-at.$1" ] || return 1
	read -r _sf_k _sf_t <"$G/faults/gpfs-stop-at.$1"
	[ "$_sf_k" = at ] && awk -v t="$_sf_t" -v now="$(date +%s.%N)" 'BEGIN { exit !(now >= t) }'
}

gpfs_shutdown() {
	gpfs_stop_at_fire
	for n in $TARGETS; do
		gpfs_stop_at_fired "$n" && rm -f "$G/faults/gpfs-stop-at.$n"
		echo down >"$G/daemon/$n"
		rm -f "$G/loaded/$n"
		for m in "$G"/mounts/*; do
			[ -f "$m" ] || continue
			gpfs_mount_edit "$m" "$n" del
		done
	done
	gpfs_fs_takeover "$TARGETS"
}

# Attributes mmchconfig accepts -i / -I for (they change the running
# daemon); every other attribute takes effect at the node's next mmstartup.
# From IBM's mmchconfig page (4.2.2 and 5.0.2 "-I ... valid only for the
# following attributes", the -i list adds the permanent-only ones such as
# controlSetxattrImmutableSELinux, which the Redpaper sets with -i).
# Needing a restart, for instance: verbsPorts verbsRdma verbsRdmaSend
# subnets workerThreads maxFilesToCache maxStatCache scatterBufferSize.
GPFS_IMMEDIATE=" pagepool maxMBpS ignorePrefetchLUNCount verbsRdmasPerNode
 verbsRdmasPerConnection verbsSendBufferMemoryMB verbsRdmaRoCEToS nsdBufSpace
 nsdInlineWriteMax nsdMultiQueue readReplicaPolicy seqDiscardThreshold
 syncbuffsperiteration systemLogLevel unmountOnDiskFail worker1Threads
 writebehindThreshold pitWorkerThreadsPerNode nfsPrefetchStrategy panicOnIOHang
 deadlockBreakupDelay deadlockDetectionThreshold deadlockOverloadThreshold
 dmapiEventTimeout dmapiMountTimeout dmapiSessionFailureTimeout
 fileHeatLossPercent fileHeatPeriodMinutes lrocData lrocDirectories lrocInodes
 enforceFilesetQuotaOnRoot controlSetxattrImmutableSELinux cesSharedRoot
 restripeOnDiskFailure sudoUser autoload "

mmchconfig() {
	attrs= label=common now=
	while [ $# -gt 0 ]; do
		case $1 in
		-N) shift; label=$1;; -i | -I) now=$1;;
		*=*) attrs=${attrs:+$attrs
}$1;;
		*) gpfs_fail "Incorrect extra argument: $1";;
		esac
		shift
	done
	[ -n "$attrs" ] || { echo "Usage: mmchconfig Attribute=value[,Attribute=value...] [-i | -I] [-N {Node[,Node...] | NodeFile | NodeClass}]" >&2; exit 1; }
	gpfs_require_member
	# -N dgx04,dgx05: each node (or class) gets the value, as mmlsconfig
	# then shows it ([dgx04,dgx05] is two labels sharing it)
	_mc_ifs=$IFS IFS=,
	set -- $label
	IFS=$_mc_ifs
	for label; do
		gpfs_locked gpfs_chconfig "$attrs" "$label" "$now"
	done
}

# gpfs_chconfig ATTRS LABEL [-i|-I]: ATTRS one argument per line, each
# a=v or a comma list of them (a value never holds a comma here: the
# Redpaper's subnets use ';' and verbsPorts blanks).
gpfs_chconfig() {
	_cc_list=$(printf '%s\n' "$1" | tr ',' '\n')
	if [ -n "$3" ]; then
		while IFS= read -r kv; do
			case $GPFS_IMMEDIATE in *" ${kv%%=*} "* | *" ${kv%%=*}
"*) ;;
			*) gpfs_fail "The $3 option is not valid for attribute ${kv%%=*}; it takes effect when GPFS is restarted.";;
			esac
		done <<EOS
$_cc_list
EOS
	fi
	while IFS= read -r kv; do
		[ -n "$kv" ] || continue
		a=${kv%%=*} v=${kv#*=}
		case $v in \"*\") v=${v#\"} v=${v%\"};; esac
		if [ "$a" = autoload ]; then	# a cluster attribute, shown in the header
			awk -v v="$v" '{ $5 = (v == "DEFAULT" ? "no" : v); print }' "$G/cluster" >"$G/cluster.tmp" &&
				mv "$G/cluster.tmp" "$G/cluster"
			continue
		fi
		[ "$3" = -I ] || awk -F '\t' -v OFS='\t' -v l="$2" -v a="$a" -v v="$v" '
		$1 == l && $2 == a { if (v != "DEFAULT") print l, a, v; f = 1; next }
		{ print }
		END { if (!f && v != "DEFAULT") print l, a, v }' "$G/config" >"$G/config.tmp" &&
			mv "$G/config.tmp" "$G/config"
		[ -n "$3" ] && gpfs_load_now "$2" "$a" "$v"
	done <<EOS
$_cc_list
EOS
	echo "mmchconfig: Command successfully completed"
	gpfs_propagating
}

# gpfs_load_now LABEL ATTR VALUE: -i/-I reach the running daemons of LABEL's nodes.
# VALUE DEFAULT deletes LABEL's own value (IBM's mmchconfig page), so the
# daemon runs with what applies without it: the node's class or [common]
# value (gpfs_effective on the configuration just written), else GPFS's
# default (no line: mmdiag --config shows the default).
gpfs_load_now() {
	if [ "$1" = common ]; then _ln_t=$(gpfs_node_list all); else _ln_t=$(gpfs_node_list "$1"); fi
	for _ln_n in $_ln_t; do
		[ -f "$G/loaded/$_ln_n" ] || continue
		_ln_v=$3
		[ "$_ln_v" != DEFAULT ] ||
			_ln_v=$(gpfs_effective "$_ln_n" | awk -v a="$2" '$1 == a { v = substr($0, length(a) + 2) } END { print (v == "" ? "DEFAULT" : v) }')
		awk -v a="$2" -v v="$_ln_v" '
		$1 == a { if (v != "DEFAULT") print a, v; f = 1; next }
		{ print }
		END { if (!f && v != "DEFAULT") print a, v }' "$G/loaded/$_ln_n" >"$G/loaded/$_ln_n.tmp" &&
			mv "$G/loaded/$_ln_n.tmp" "$G/loaded/$_ln_n"
	done
}

mmremotecluster() {
	sub=$1
	[ $# -gt 0 ] && shift
	gpfs_require_member
	case $sub in
	add | update)
		name=$1 contact= key=
		shift
		while [ $# -gt 0 ]; do
			case $1 in -n) shift; contact=$1;; -k) shift; key=$1;; esac
			shift
		done
		[ -n "$name" ] && [ -n "$contact" ] || gpfs_fail "Missing arguments."
		sha=
		if [ -n "$key" ]; then
			[ -r "$key" ] || gpfs_fail "Cannot open file $key.  No such file or directory"
			sha=$(sha256sum <"$key" | cut -c1-64)
		fi
		gpfs_locked gpfs_remote_set "$name" "$contact" "$sha"
		echo "mmremotecluster: Command successfully completed"
		gpfs_propagating;;
	delete)
		gpfs_locked gpfs_table_del "$G/remote" "$1"
		echo "mmremotecluster: Command successfully completed"
		gpfs_propagating;;
	show)
		[ -s "$G/remote" ] || { echo "mmremotecluster: There are no remote cluster definitions."; return 0; }
		want=${1:-all}
		first=1
		while IFS='	' read -r name contact sha; do
			[ "$want" = all ] || [ "$want" = "$name" ] || continue
			[ "$first" = 1 ] || echo
			first=0
			fs=$(awk -F '\t' -v c="$name" '$3 == c { s = s (s ? ", " : "") $1 " (" $2 ")" } END { print s }' "$G/remotefs")
			echo "Cluster name:    $name"
			echo "Contact nodes:   $contact"
			echo "SHA digest:      ${sha:-(undefined)}"
			echo "File systems:    ${fs:-(none defined)}"
		done <"$G/remote";;
	*) echo "Usage: mmremotecluster {add | update | delete | show} ..." >&2; exit 1;;
	esac
}

gpfs_remote_set() {
	gpfs_table_del "$G/remote" "$1"
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$G/remote"
}

# gpfs_table_del FILE KEY: drops the tab-separated rows whose first field is KEY.
gpfs_table_del() {
	awk -F '\t' -v k="$2" '$1 != k' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

mmremotefs() {
	sub=$1
	[ $# -gt 0 ] && shift
	gpfs_require_member
	case $sub in
	add | update)
		# add: -f and -C required; -T defaults to /gpfs/DEVICE, -A to no,
		# -o to rw. update: the file system must be defined, and only the
		# options named change (IBM, mmremotefs command: "update Device
		# [-f RemoteDevice] [-C RemoteClusterName] [-T MountPoint] ...").
		dev=${1:-} rdev= cl= mnt= auto= opts=
		[ $# -gt 0 ] && shift
		while [ $# -gt 0 ]; do
			case $1 in
			-f) shift; rdev=$1;; -C) shift; cl=$1;; -T) shift; mnt=$1;;
			-A) shift; auto=$1;; -o) shift; opts=$1;; esac
			shift
		done
		[ -n "$dev" ] || gpfs_fail "Missing arguments."
		if [ "$sub" = update ]; then
			cur=$(awk -F '\t' -v d="$dev" '$1 == d' "$G/remotefs")
			[ -n "$cur" ] || gpfs_fail "File system $dev is not defined."
			IFS='	' read -r _ c_rdev c_cl c_mnt c_opts c_auto <<-EOF
			$cur
			EOF
			rdev=${rdev:-$c_rdev} cl=${cl:-$c_cl} mnt=${mnt:-$c_mnt} opts=${opts:-$c_opts} auto=${auto:-$c_auto}
		fi
		[ -n "$rdev" ] && [ -n "$cl" ] || gpfs_fail "Missing arguments."
		case ${auto:-no} in yes | no | automount) ;; *) gpfs_fail "Invalid value for -A: $auto";; esac
		awk -F '\t' -v c="$cl" '$1 == c { f = 1 } END { exit !f }' "$G/remote" ||
			gpfs_fail "Cluster $cl is not defined.  Use the mmremotecluster add command."
		gpfs_locked gpfs_remotefs_set "$dev" "$rdev" "$cl" "${mnt:-/gpfs/$dev}" "${opts:-rw}" "${auto:-no}"
		gpfs_propagating;;
	delete)
		gpfs_locked gpfs_table_del "$G/remotefs" "$1"
		gpfs_propagating;;
	show)
		[ -s "$G/remotefs" ] || { echo "mmremotefs: There are no remote file systems."; return 0; }
		echo "Local Name  Remote Name  Cluster name              Mount Point  Mount Options    Automount  Drive  Priority"
		while IFS='	' read -r dev rdev cl mnt opts auto; do
			[ "${1:-all}" = all ] || [ "$1" = "$dev" ] || continue
			printf '%-11s %-12s %-25s %-12s %-16s %-12s %-8s %s\n' "$dev" "$rdev" "$cl" "$mnt" "$opts" "$auto" - 0
		done <"$G/remotefs";;
	*) echo "Usage: mmremotefs {add | update | delete | show} ..." >&2; exit 1;;
	esac
}

gpfs_remotefs_set() {
	gpfs_table_del "$G/remotefs" "$1"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$G/remotefs"
}

# gpfs_lines_without FILE WORD [FIELD]: FILE ends in a newline (or is
# empty) and no line of it is WORD (or has WORD as its FIELDth field), so
# that filtering WORD out of it changes nothing. Only for plain names.
gpfs_lines_without() {
	[ -f "$1" ] || return 1
	case $2 in '' | -* | *[!A-Za-z0-9_-]*) return 1;; esac
	case ${3:-0} in
	0)
		while IFS= read -r _lw_a; do [ "$_lw_a" = "$2" ] && return 1; done <"$1"
		_lw_b= _lw_l=;;
	1)
		while read -r _lw_a _lw_l; do [ "$_lw_a" = "$2" ] && return 1; done <"$1"
		_lw_b=;;
	2)
		while read -r _lw_a _lw_b _lw_l; do [ "$_lw_b" = "$2" ] && return 1; done <"$1";;
	*) return 1;;
	esac
	[ -z "$_lw_a$_lw_b$_lw_l" ]
}

# gpfs_mount_edit FILE NODE add|del
gpfs_mount_edit() {
	# the usual cases change nothing but the end of FILE: no processes
	if gpfs_lines_without "$1" "$2"; then
		if [ "$3" = add ]; then
			echo "$2" >>"$1"
			return
		fi
		[ -s "$1" ] && return
	elif [ "$3" = add ] && [ ! -e "$1" ] && [ ! -L "$1" ]; then
		case $2 in '' | -* | *[!A-Za-z0-9_-]*) ;; *) echo "$2" >"$1"; return;; esac
	fi
	touch "$1"
	touch "$1"
	grep -vx "$2" "$1" >"$1.tmp"
	[ "$3" = add ] && echo "$2" >>"$1.tmp"
	mv "$1.tmp" "$1"
	[ -s "$1" ] || rm -f "$1"
}

gpfs_devices() {
	if [ "$1" = all ]; then cut -f1 "$G/remotefs"; else echo "$1"; fi
}

gpfs_mount_cmd() {
	what=$1 dev=${2:-all}
	[ $# -gt 1 ] && shift 2 || shift $#
	gpfs_require_member
	gpfs_parse_targets "$@"
	for d in $(gpfs_devices "$dev"); do
		cut -f1 "$G/remotefs" | grep -qx "$d" || gpfs_fail "File system $d is not known to the GPFS cluster."
	done
	if [ "$what" = add ]; then
		echo "$(gpfs_stamp): mmmount: Mounting file systems ..."
	else
		echo "$(gpfs_stamp): mmumount: Unmounting file systems ..."
	fi
	rc=0 _mc_ok=
	[ "$what" = add ] && gpfs_load_states
	if [ "$what" = add ]; then
		for d in $(gpfs_devices "$dev"); do
			gpfs_remote_check "$d" && continue
			for n in $TARGETS; do echo "$n:  mount: Permission denied" >&2; done
			echo "mmmount: Command failed.  Examine previous error messages to determine cause." >&2
			return 1
		done
	fi
	for n in $TARGETS; do
		if [ "$what" = add ]; then
			gpfs_state_get _mc_st "$n"
			if [ "$_mc_st" != active ]; then
				echo "$n:  mmmount: GPFS is not active on this node." >&2
				rc=1
				continue
			fi
		fi
		_mc_ok="$_mc_ok $n"
	done
	# one lock for all the nodes' mounts
	[ -z "$_mc_ok" ] || gpfs_locked gpfs_mount_all "$what" "$(gpfs_devices "$dev")" $_mc_ok
	return $rc
}

# gpfs_mount_all add|del DEVICES NODE...: under the cluster lock.
gpfs_mount_all() {
	_ma_w=$1 _ma_d=$2
	shift 2
	for _ma_n; do
		for _ma_x in $_ma_d; do gpfs_mount_edit "$G/mounts/$_ma_x" "$_ma_n" "$_ma_w"; done
	done
}

# gpfs_remote_check FS: the owning cluster lets this cluster mount FS
# (messages of the daemon's log, mmfs.log, printed; no capture of the
# client side's mmmount output for these cases exists in the fixtures).
gpfs_remote_check() {
	_rc_row=$(awk -F '\t' -v d="$1" '$1 == d { print $2 "\t" $3; exit }' "$G/remotefs")
	_rc_fs=${_rc_row%%	*} _rc_cl=${_rc_row#*	}
	_rc_def=$(awk -F '\t' -v c="$_rc_cl" '$1 == c { print $3; exit }' "$G/remote")
	ST=$G/storage
	_rc_sn=
	[ -f "$ST/cluster" ] && read -r _rc_sn _rc_sid <"$ST/cluster"
	if [ "$_rc_sn" != "$_rc_cl" ]; then
		echo "mmmount: Unable to contact any of the contact nodes of cluster $_rc_cl." >&2
		return 1
	fi
	if [ ! -s "$G/auth" ]; then
		echo "mmmount: Remote mounts are not enabled within this cluster." >&2
		return 1
	fi
	if [ "$_rc_def" != "$(gpfs_storage_sha)" ]; then
		echo "mmmount: The key used by the cluster named $_rc_cl has changed. Contact the administrator to obtain the new key and register it using \"mmremotecluster update\"." >&2
		return 1
	fi
	if [ -e "$ST/faults/remote-key-refused" ]; then
		echo "mmmount: Cluster $_rc_cl has not authorized this cluster ($CL_NAME) to access its file systems: the key was refused (mmauth add and mmauth grant on $_rc_cl)." >&2
		return 1
	fi
	if [ ! -e "$ST/autogrant" ]; then
		read -r _rc_sha _rc_cip <"$G/auth"
		_rc_row=$(awk -F '\t' -v c="$CL_NAME" '$1 == c { print $2 "\t" $3; exit }' "$ST/clients" 2>/dev/null)
		if [ -z "$_rc_row" ] || [ "${_rc_row%%	*}" != "$_rc_sha" ]; then
			echo "mmmount: Cluster $_rc_cl has not authorized this cluster ($CL_NAME) to access its file systems: the key was refused (mmauth add and mmauth grant on $_rc_cl)." >&2
			return 1
		fi
		case ",${_rc_row#*	}," in
		*",$_rc_fs,"* | *",all,"*) ;;
		*) echo "mmmount: Cluster $_rc_cl has not granted this cluster ($CL_NAME) access to file system $_rc_fs (mmauth grant on $_rc_cl)." >&2
		   return 1;;
		esac
	fi
	awk -v d="$_rc_fs" '$1 == d { f = 1 } END { exit !f }' "$ST/fs" 2>/dev/null || {
		echo "mmmount: File system $_rc_fs is not known to cluster $_rc_cl." >&2
		return 1
	}
}

gpfs_storage_sha() {
	[ -f "$G/storage/key" ] || return 0
	sha256sum <"$G/storage/key" | cut -c1-64
}

mmmount() { gpfs_mount_cmd add "$@"; }
mmumount() { gpfs_mount_cmd del "$@"; }

# --- node classes --------------------------------------------------------------

mmcrnodeclass() {
	cls=$1 nodes=
	[ $# -gt 0 ] && shift
	while [ $# -gt 0 ]; do case $1 in -N) shift; nodes=$1;; esac; shift; done
	[ -n "$cls" ] && [ -n "$nodes" ] || { echo "Usage: mmcrnodeclass ClassName -N {Node[,Node...] | NodeFile | NodeClass}" >&2; exit 1; }
	gpfs_require_member
	gpfs_locked gpfs_nodeclass_set "$cls" "$nodes" create
	echo "mmcrnodeclass: Propagating the cluster configuration data to all"
	echo "  affected nodes.  This is an asynchronous process."
}

mmchnodeclass() {
	cls=$1 op=${2-} nodes=
	[ $# -gt 1 ] && shift 2
	while [ $# -gt 0 ]; do case $1 in -N) shift; nodes=$1;; esac; shift; done
	case $op in add | delete | replace) ;; *) echo "Usage: mmchnodeclass ClassName {add | delete | replace} -N {Node[,Node...] | NodeFile | NodeClass}" >&2; exit 1;; esac
	[ -n "$nodes" ] || { echo "Usage: mmchnodeclass ClassName {add | delete | replace} -N {Node[,Node...] | NodeFile | NodeClass}" >&2; exit 1; }
	gpfs_require_member
	gpfs_locked gpfs_nodeclass_set "$cls" "$nodes" "$op"
	echo "mmchnodeclass: Propagating the cluster configuration data to all"
	echo "  affected nodes.  This is an asynchronous process."
}

mmdelnodeclass() {
	gpfs_require_member
	awk -F '\t' -v c="$1" '$1 == c { f = 1 } END { exit !f }' "$G/nodeclass" ||
		gpfs_fail "Node class $1 does not exist."
	gpfs_locked gpfs_table_del "$G/nodeclass" "$1"
	echo "mmdelnodeclass: Propagating the cluster configuration data to all"
	echo "  affected nodes.  This is an asynchronous process."
}

# gpfs_nodeclass_set CLASS NODES create|add|delete|replace
gpfs_nodeclass_set() {
	case $1 in
	all | quorumnodes | managernodes | nonquorumnodes | clientnodes | *[!A-Za-z0-9_.-]* | '')
		gpfs_fail "Incorrect node class name $1.";;
	esac
	_nc_old=$(awk -F '\t' -v c="$1" '$1 == c { print $2; f = 1 } END { exit !f }' "$G/nodeclass")
	_nc_have=$?
	[ "$3" = create ] && [ "$_nc_have" = 0 ] && gpfs_fail "Node class $1 already exists."
	[ "$3" != create ] && [ "$_nc_have" != 0 ] && gpfs_fail "Node class $1 does not exist."
	_nc_new=$(gpfs_targets 0 "$2") || exit 1
	for n in $_nc_new; do
		gpfs_member "$n" || gpfs_fail "Node $n does not belong to the GPFS cluster."
	done
	_nc_set=$(printf '%s\n%s\n' "$(echo "$_nc_old" | tr ',' '\n')" "$_nc_new" | awk -v op="$3" -v k="$(echo "$_nc_new" | tr '\n' ',')" '
	BEGIN { m = split(k, nw, ","); for (i = 1; i <= m; i++) if (nw[i] != "") isnew[nw[i]] = 1 }
	$0 == "" || seen[$0]++ { next }
	{ if (op == "delete" && isnew[$0]) next; if (op == "replace" && !isnew[$0]) next; out = out (out ? "," : "") $0 }
	END { print out }')
	[ "$3" = delete ] && [ -z "$_nc_set" ] && gpfs_fail "Node class $1 cannot be empty; use mmdelnodeclass."
	gpfs_table_del "$G/nodeclass" "$1"
	printf '%s\t%s\n' "$1" "$_nc_set" >>"$G/nodeclass"
}

# mmlsnodeclass [CLASS...] [--all]: user classes only unless --all; layout of
# the real capture (tests/fixtures/sim-gpu/real/mmlsnodeclass_*).
mmlsnodeclass() {
	gpfs_require_member
	sys=0 want=
	for a in "$@"; do case $a in --all | --system) sys=1;; --user) ;; -*) ;; *) want="$want $a";; esac; done
	echo "Node Class Name       Members"
	echo "--------------------- -----------------------------------------------------------"
	{
		while IFS='	' read -r c m; do
			[ -z "$want" ] || case "$want " in *" $c "*) ;; *) continue;; esac
			printf '%s\t%s\n' "$c" "$m"
		done <"$G/nodeclass"
		[ "$sys" = 1 ] || exit 0
		for c in clientnodes managernodes nonquorumnodes quorumnodes; do
			printf '%s\t%s\n' "$c" "$(gpfs_node_list "$c" | paste -sd, -)"
		done
	} | gpfs_nodeclass_rows
}

# gpfs_nodeclass_rows: "class<TAB>members" lines as mmlsnodeclass's rows,
# members wrapped after a comma to the 59 columns of the rule, continuation
# lines indented under the first member.
gpfs_nodeclass_rows() {
	awk -F '\t' '{
		k = split($2, m, ","); line = sprintf("%-21s ", $1); w = 0
		for (i = 1; i <= k; i++) {
			item = m[i] (i < k ? "," : "")
			if (w > 0 && w + length(item) > 59) { print line; line = sprintf("%-21s ", ""); w = 0 }
			line = line item; w += length(item)
		}
		print line
	}'
}

# --- mmauth: this cluster's key and the clusters it lets in -----------------------

mmauth() {
	sub=${1-}
	[ $# -gt 0 ] && shift
	gpfs_require_member
	case $sub in
	genkey)
		case ${1-} in new | commit | propagate) ;; *) echo "Usage: mmauth genkey {new | commit | propagate [-N ...]}" >&2; exit 1;; esac
		[ "$1" = new ] && gpfs_locked gpfs_genkey
		echo "mmauth: Command successfully completed";;
	update)
		c=${1-} cipher=
		shift
		while [ $# -gt 0 ]; do case $1 in -l) shift; cipher=$1;; esac; shift; done
		if [ "$c" = . ] || [ "$c" = "$CL_NAME" ]; then
			[ -s "$G/auth" ] || gpfs_fail "No key was generated for this cluster; run mmauth genkey new."
			gpfs_locked gpfs_auth_cipher "${cipher:-AUTHONLY}"
		else
			gpfs_locked gpfs_auth_client "$c" "" "" update
		fi
		echo "mmauth: Command successfully completed";;
	add)
		c=${1-} key=
		shift
		while [ $# -gt 0 ]; do case $1 in -k) shift; key=$1;; esac; shift; done
		[ -n "$c" ] && [ -r "$key" ] || gpfs_fail "Missing or unreadable key file (-k)."
		gpfs_locked gpfs_auth_client "$c" "$(sha256sum <"$key" | cut -c1-64)" "" add
		echo "mmauth: Command successfully completed";;
	grant)
		c=${1-} fs=
		shift
		while [ $# -gt 0 ]; do case $1 in -f) shift; fs=$1;; esac; shift; done
		gpfs_locked gpfs_auth_client "$c" "" "${fs:-all}" grant
		echo "mmauth: Granting cluster $c access to file system ${fs:-all}:"
		echo "        access type rw; root credentials will not be remapped."
		echo
		echo "mmauth: Command successfully completed";;
	deny | delete)
		gpfs_locked gpfs_table_del "$G/auth.clients" "${1-}"
		echo "mmauth: Command successfully completed";;
	show)
		want=${1:-all}
		first=1
		if [ -s "$G/auth.clients" ]; then
			while IFS='	' read -r c sha fs; do
				[ "$want" = all ] || [ "$want" = "$c" ] || continue
				[ "$first" = 1 ] || echo
				first=0
				echo "Cluster name:        $c"
				echo "Cipher list:         AUTHONLY"
				echo "SHA digest:          ${sha:-(undefined)}"
				echo "File system access:  ${fs:-(none authorized)}"
			done <"$G/auth.clients"
		fi
		if [ "$want" = all ] || [ "$want" = . ] || [ "$want" = "$CL_NAME" ]; then
			sha= cipher=
			[ -s "$G/auth" ] && read -r sha cipher <"$G/auth"
			[ "$first" = 1 ] || echo
			echo "Cluster name:        $CL_NAME (this cluster)"
			echo "Cipher list:         ${cipher:-(none specified)}"
			echo "SHA digest:          ${sha:-(undefined)}"
			echo "File system access:  (all rw)"
		fi;;
	*) echo "Usage: mmauth {add | delete | deny | genkey | grant | show | update} ..." >&2; exit 1;;
	esac
}

# The key lands in /var/mmfs/ssl of the node that made it (real GPFS copies
# it to every node; the stand-ins read the cluster's copy).
gpfs_genkey() {
	mkdir -p "$N/root/var/mmfs/ssl"
	{
		echo "-----BEGIN PUBLIC KEY-----"
		printf '%s %s %s' "$CL_NAME" "$CL_ID" "$(date +%s%N)" | sha512sum | cut -c1-64
		echo "-----END PUBLIC KEY-----"
	} >"$N/root/var/mmfs/ssl/id_rsa_new.pub"
	cp "$N/root/var/mmfs/ssl/id_rsa_new.pub" "$N/root/var/mmfs/ssl/id_rsa.pub"
	_gk_c=AUTHONLY
	[ -s "$G/auth" ] && read -r _gk_s _gk_c <"$G/auth"
	echo "$(sha256sum <"$N/root/var/mmfs/ssl/id_rsa.pub" | cut -c1-64) ${_gk_c:-AUTHONLY}" >"$G/auth"
	cp "$N/root/var/mmfs/ssl/id_rsa.pub" "$G/auth.pub"
}

gpfs_auth_cipher() {
	read -r _ac_s _ac_c <"$G/auth"
	echo "$_ac_s $1" >"$G/auth"
}

# gpfs_auth_client CLUSTER SHA FS add|update|grant
gpfs_auth_client() {
	touch "$G/auth.clients"
	_ac_row=$(awk -F '\t' -v c="$1" '$1 == c { print; exit }' "$G/auth.clients")
	[ "$4" = add ] || [ -n "$_ac_row" ] || gpfs_fail "Cluster $1 is not authorized; use mmauth add first."
	_ac_sha=${2:-$(printf '%s' "$_ac_row" | cut -f2)}
	_ac_fs=$(printf '%s' "$_ac_row" | cut -f3)
	[ -n "$3" ] && _ac_fs="$3 (rw, root allowed)"
	gpfs_table_del "$G/auth.clients" "$1"
	printf '%s\t%s\t%s\n' "$1" "$_ac_sha" "$_ac_fs" >>"$G/auth.clients"
}

# --- mmlsfs: the remote file system's attributes, as its owner reports them ---------

# Layout of tests/fixtures/sim-gpu/real/mmlsfs_all_5_1_7_*: the rows a
# client-side deploy reads (-B -V -T --uid and the usual rest); the --uid
# row's wording has no capture (IBM's mmlsfs page lists the flag).
mmlsfs() {
	gpfs_require_member
	dev=${1-}
	[ -n "$dev" ] || { echo "Usage: mmlsfs {Device | all | all_local | all_remote} [-A] [-B] [-T] [-V] [--uid] ..." >&2; exit 1; }
	shift
	flags=$*
	gpfs_devices_get "$dev"
	for d in $DEVICES; do
		row=$(awk -F '\t' -v d="$d" '$1 == d { print $2 "\t" $3 "\t" $4 "\t" $6; exit }' "$G/remotefs")
		[ -n "$row" ] || gpfs_fail "File system $d is not known to the GPFS cluster."
		rfs=$(printf '%s' "$row" | cut -f1) mnt=$(printf '%s' "$row" | cut -f3) auto=$(printf '%s' "$row" | cut -f4)
		srow=$(awk -v d="$rfs" '$1 == d { print $2, $3; exit }' "$G/storage/fs" 2>/dev/null)
		[ -n "$srow" ] || gpfs_fail "File system $d: the owning cluster cannot be reached."
		uid=${srow% *} bs=${srow#* }
		if [ "$dev" = all ] || [ "$dev" = all_remote ]; then
			echo
			h="File system attributes for /dev/$d:"
			echo "$h"
			echo "$h" | sed 's/./=/g'
		fi
		echo "flag                value                    description"
		echo "------------------- ------------------------ -----------------------------------"
		{
			echo "-f|8192|Minimum fragment (subblock) size in bytes"
			echo "-i|4096|Inode size in bytes"
			echo "-m|1|Default number of metadata replicas"
			echo "-r|1|Default number of data replicas"
			echo "-B|$bs|Block size"
			echo "-V|22.00 (5.0.4.0)|File system version"
			echo "-A|$auto|Automatic mount option"
			echo "--uid|$uid|File system UID"
			echo "-T|$mnt|Default mount point"
		} | awk -F '|' -v want="$flags" '
		BEGIN { k = split(want, w, " "); for (i = 1; i <= k; i++) sel[w[i]] = 1 }
		k == 0 || ($1 in sel) { printf " %-18s %-24s %s\n", $1, $2, $3 }'
	done
}

# --- mmbuildgpl ----------------------------------------------------------------------

# Output as the real script's (fixtures mmbuildgpl_*: the 5.0.4 header with
# the release, the kernel version codes, the header search); the failure
# text for missing headers follows the script's "Cannot find a valid kernel
# header file" branch (not captured). Success builds the portability layer
# for the running kernel: /lib/modules/KERNEL/extra/{mmfs26,mmfslinux,tracer}.ko,
# and records KERNEL in the cluster state (mmstartup needs it).
mmbuildgpl() {
	bar=--------------------------------------------------------
	k=$KERNEL rel=${KERNEL%.el*}
	rel=${rel%-generic}
	# version codes: 3.10.0-957 -> 31000957 and 310000957000000
	code=$(echo "$rel" | awk -F '[.-]' '{ printf "%d%02d%02d%03d (%d%02d%03d%03d%03d%03d", $1, $2, $3, $4, $1, $2, $3, $4, $5, $6 }')
	echo "$bar"
	echo "mmbuildgpl: Building GPL ($GPFS_VERSION) module begins at $(gpfs_stamp)."
	echo "$bar"
	echo "Verifying Kernel Header..."
	echo "  kernel version = $code, $k, $rel) "
	echo "  module include dir = /lib/modules/$k/build/include "
	echo "  module build dir   = /lib/modules/$k/build "
	echo "  kernel source dir  = /usr/src/linux-$k/include "
	if [ "$OS_ID" = ubuntu ]; then hd=/usr/src/linux-headers-$k; else hd=/usr/src/kernels/$k; fi
	if [ ! -d "$N/root$hd" ]; then
		echo "  Cannot find a valid kernel header file. One of these files should exist."
		echo "    /lib/modules/$k/build/include/linux/version.h"
		echo "    /usr/src/linux-$k/include/linux/version.h"
		echo "    $hd/include/generated/uapi/linux/version.h"
		echo "    /lib/modules/$k/build/include/generated/uapi/linux/version.h"
		gpfs_gpl_failed
	fi
	echo "  Found valid kernel header file under $hd/include"
	echo "Verifying Compiler..."
	for t in make cpp gcc g++ ld; do echo "  $t is present at /bin/$t"; done
	echo "Verifying Additional System Headers..."
	if [ "$OS_ID" = ubuntu ]; then
		echo "  Verifying linux-headers-$k is installed ..."
		echo "    Command: /usr/bin/dpkg -l | grep linux-headers-$k "
		echo "    The required package linux-headers-$k is installed"
	else
		echo "  Verifying kernel-headers is installed ..."
		echo "    Command: /bin/rpm -q kernel-headers  "
		echo "    The required package kernel-headers is installed"
	fi
	echo "make World ..."
	sim_fault mmbuildgpl-fail && gpfs_gpl_failed
	echo "make InstallImages ..."
	mkdir -p "$N/root/usr/lib/modules/$k/extra"
	for m in mmfs26 mmfslinux tracer; do
		echo "GPFS portability layer $m for $k" >"$N/root/usr/lib/modules/$k/extra/$m.ko"
	done
	mkdir -p "$G/gpl"
	echo "$k" >"$G/gpl/$NODE_NAME"
	echo "$bar"
	echo "mmbuildgpl: Building GPL module completed successfully at $(gpfs_stamp)."
	echo "$bar"
}

gpfs_gpl_failed() {
	echo "$bar"
	echo "mmbuildgpl: Building GPL module failed at $(gpfs_stamp)."
	echo "$bar"
	exit 1
}

# The cluster manager (mmlsmgr -c, mmchmgr -c). State: $G/clmgr, the node
# mmchmgr -c appointed. GPFS elects another quorum node when that one is not
# active: here the first active quorum node in node-number order. Output as
# in IBM's mmlsmgr and mmchmgr command references (tests/fixtures/SOURCES.md).
gpfs_clmgr() {
	gpfs_load_states
	_cm=
	[ -f "$G/clmgr" ] && sim_read _cm "$G/clmgr"
	if [ -n "$_cm" ]; then
		gpfs_state_get _cm_st "$_cm"
		[ "$_cm_st" = active ] || _cm=
	fi
	if [ -z "$_cm" ]; then
		_cm=$(sort -n "$G/nodes" | while read -r _n _name _a _d _l; do
			case $_d in *quorum*) ;; *) continue;; esac
			case $STATES in *"
$_name active"*) echo "$_name"; break;; esac
		done)
	fi
	CLMGR=$_cm
	CLMGR_ADDR=$(awk -v n="$_cm" '$2 == n { print $3; exit }' "$G/nodes")
}

# File system managers ($G/fsmgr, "DEVICE NODE" a line): only for file
# systems this cluster owns. The simulated client cluster owns none (its file
# system is the storage cluster's, whose manager lives there), so the table
# is empty unless a test made one with sim-gpfs-fsmgr. A manager going down
# (mmshutdown) hands its file systems to another active manager node, as
# GPFS's takeover does, and says so in $G/fsmgr.log ("DEVICE FROM TO
# takeover"); mmchmgr's orderly moves go there as "migrate".

# gpfs_fs_takeover NODES: the takeover for the file systems NODES managed.
gpfs_fs_takeover() {
	[ -s "$G/fsmgr" ] || return 0
	gpfs_load_states
	_ft_new=$(awk -v gone=" $(echo $1) " -v states="$STATES" -v nodes="$G/nodes" '
	BEGIN {
		n = split(states, l, "\n")
		for (i = 1; i <= n; i++) { split(l[i], w, " "); st[w[1]] = w[2] }
	}
	FILENAME == nodes {
		if (index(gone, " " $2 " ") || st[$2] != "active") next
		if ($4 ~ /manager/ && mgr == "") mgr = $2
		if (any == "") any = $2
		next
	}
	{
		to = mgr != "" ? mgr : any
		if (!index(gone, " " $2 " ")) print $0
		else if (to != "") { print $1, to; printf "%s %s %s takeover\n", $1, $2, to >> (FILENAME ".log") }
	}' "$G/nodes" "$G/fsmgr")
	printf '%s\n' "$_ft_new" | sed '/^$/d' >"$G/fsmgr.tmp" && mv "$G/fsmgr.tmp" "$G/fsmgr"
}

mmlsmgr() {
	only_c=0 devs=
	while [ $# -gt 0 ]; do
		case $1 in
		-c) only_c=1;;
		-*) echo "Usage: mmlsmgr [Device[ Device...]] | [-c] [-m] [-q]" >&2; exit 2;;
		*) devs="$devs ${1#/dev/}";;
		esac
		shift
	done
	gpfs_require_member
	gpfs_clmgr
	[ -n "$CLMGR" ] || gpfs_fail "GPFS is not active on this node."
	if [ "$only_c" = 0 ]; then
		echo "file system      manager node"
		echo "---------------- ------------------"
		[ -f "$G/fsmgr" ] && awk -v devs="$devs " -v nodes="$G/nodes" '
		FILENAME == nodes { addr[$2] = $3; next }
		devs == " " || index(devs, " " $1 " ") { printf "%-16s %s (%s)\n", $1, addr[$2], $2 }
		' "$G/nodes" "$G/fsmgr"
		[ -n "$devs" ] && return 0
		echo
	fi
	echo "Cluster manager node: $CLMGR_ADDR ($CLMGR)"
}

mmchmgr() {
	[ $# -ge 1 ] && [ $# -le 2 ] && { [ "$1" = -c ] && [ $# -eq 2 ] || [ "${1#-}" = "$1" ]; } ||
		{ echo "Usage: mmchmgr {Device | -c} [Node]" >&2; exit 2; }
	gpfs_require_member
	[ "$1" = -c ] || { gpfs_locked gpfs_chfsmgr "${1#/dev/}" "${2-}"; return; }
	_to=$(gpfs_targets 0 "$2") || exit 1
	_row=$(awk -v n="$_to" '$2 == n { print $3, $4; exit }' "$G/nodes")
	case ${_row#* } in *quorum*) ;; *) gpfs_fail "Node $_to is not a quorum node.";; esac
	gpfs_load_states
	gpfs_state_get _to_st "$_to"
	[ "$_to_st" = active ] || gpfs_fail "GPFS is not active on node $_to."
	echo "Appointing node ${_row%% *} ($_to) as cluster manager"
	echo "$_to" >"$G/clmgr"
	echo "Node ${_row%% *} ($_to) has taken over as cluster manager"
}

# mmchmgr DEVICE [NODE]: the orderly move of a file system manager, with the
# messages of IBM's "Displaying and changing the file system manager node".
# Without NODE GPFS picks the best choice: here the first active manager node.
gpfs_chfsmgr() {
	_cur=$(awk -v d="$1" '$1 == d { print $2; exit }' "$G/fsmgr" 2>/dev/null)
	[ -n "$_cur" ] || gpfs_fail "File system $1 is not known to the GPFS cluster."
	gpfs_load_states
	if [ -n "$2" ]; then
		_to=$(gpfs_targets 0 "$2") || exit 1
	else
		_to=$(awk -v states="$STATES" 'BEGIN { n = split(states, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], w, " "); st[w[1]] = w[2] } }
			$4 ~ /manager/ && st[$2] == "active" { print $2; exit }' "$G/nodes")
	fi
	gpfs_state_get _to_st "$_to"
	[ -n "$_to" ] && [ "$_to_st" = active ] || gpfs_fail "GPFS is not active on node ${_to:-$2}."
	_cur_a=$(awk -v n="$_cur" '$2 == n { print $3; exit }' "$G/nodes")
	if [ "$_to" = "$_cur" ]; then
		echo "GPFS: 6027-633 The best choice node $_cur_a ($_cur) is already the manager for $1."
		return 0
	fi
	_to_a=$(awk -v n="$_to" '$2 == n { print $3; exit }' "$G/nodes")
	echo "GPFS: 6027-628 Sending migrate request to current manager node $_cur_a ($_cur)."
	echo "GPFS: 6027-629 [N] Node $_cur_a ($_cur) resigned as manager for $1."
	awk -v d="$1" -v to="$_to" '$1 == d { $2 = to } { print }' "$G/fsmgr" >"$G/fsmgr.tmp" &&
		mv "$G/fsmgr.tmp" "$G/fsmgr"
	echo "$1 $_cur $_to migrate" >>"$G/fsmgr.log"
	echo "GPFS: 6027-630 [N] Node $_to_a ($_to) appointed as manager for $1."
}
