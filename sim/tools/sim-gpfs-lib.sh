# sim-gpfs-lib.sh: the IBM Spectrum Scale (GPFS) admin commands of the
# simulated nodes. Each mm* stand-in is a two-line script that sources this
# file and calls gpfs_main with its own name. Real ones live in
# /usr/lpp/mmfs/bin; here they sit in the stand-in PATH directory and act
# as "command not found" (exit 127) until GPFS is installed on the node.
#
# Node state:    state/gpfs/installed      Spectrum Scale version (absent: not installed)
#                root/usr/lpp/mmfs/bin/mm* exec the stand-ins (installed nodes)
# Cluster state, under $C/gpfs/ (read-modify-write under flock $C/gpfs/.lock):
#   hosts                 "name address" of every simulated node (for -N)
#   installed/NAME        nodes with GPFS installed (mmaddnode checks it)
#   cluster               NAME ID RSH RCP AUTOLOAD (absent: no cluster)
#   nodes                 "number name address designation license"
#   daemon/NAME           active | down
#   config                "label<TAB>attribute<TAB>value", label common or the -N value
#   remote                "cluster<TAB>contact nodes<TAB>sha digest"
#   remotefs              "local<TAB>remote<TAB>cluster<TAB>mount point<TAB>options<TAB>automount"
#   mounts/FS             names of the nodes that have FS mounted

case $0 in */*) SIM_BIN=${0%/*};; *) SIM_BIN=.;; esac
. "$SIM_BIN/sim-lib.sh"

GPFS_VERSION=5.0.4.3

# Every mm* call runs this: processes only when something is missing.
gpfs_setup() {
	sim_load
	G=$C/gpfs
	[ -d "$G/installed" ] && [ -d "$G/daemon" ] && [ -d "$G/mounts" ] ||
		mkdir -p "$G/installed" "$G/daemon" "$G/mounts"
	for _f in "$G/hosts" "$G/config" "$G/remote" "$G/remotefs"; do
		[ -e "$_f" ] || touch "$_f"
	done
}

gpfs_installed() {
	[ -s "$S/gpfs/installed" ]
}

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
	date '+%a %b %e %H:%M:%S %Z %Y'
}

gpfs_fail() {
	echo "$CMD: $*" >&2
	echo "$CMD: Command failed.  Examine previous error messages to determine cause." >&2
	exit 1
}

gpfs_propagating() {
	echo "$CMD: Propagating the cluster configuration data to all"
	echo "  affected nodes.  This is an asynchronous process."
}

# gpfs_plain WORD: WORD is a name awk's == compares as a string (no
# number, no escape), so that a shell string test gives awk's answer.
gpfs_plain() {
	case $1 in
	*[!A-Za-z0-9_.-]* | [iI][nN][fF] | [iI][nN][fF][iI][nN][iI][tT][yY] | [nN][aA][nN]) return 1;;
	[A-Za-z]*) return 0;;
	esac
	return 1
}

gpfs_member() {
	[ -f "$G/cluster" ] || return 1
	[ -f "$G/nodes" ] || { awk -v n="$1" '$2 == n { f = 1 } END { exit !f }' "$G/nodes"; return; }
	gpfs_plain "$1" || { awk -v n="$1" '$2 == n { f = 1 } END { exit !f }' "$G/nodes"; return; }
	while read -r _g_a _g_b _g_r || [ -n "$_g_a" ]; do
		[ "$_g_b" = "$1" ] && return 0
	done <"$G/nodes"
	return 1
}

gpfs_require_member() {
	gpfs_member "$NODE_NAME" || gpfs_fail "This node does not belong to a GPFS cluster."
	read -r CL_NAME CL_ID CL_RSH CL_RCP CL_AUTO <"$G/cluster"
}

# gpfs_resolve NAME|ADDRESS: prints "name address" of a simulated node.
gpfs_resolve() {
	awk -v x="$1" '$1 == x || $2 == x || index($1, x ".") == 1 { print $1, $2; exit }' "$G/hosts"
}

# gpfs_node_list SPEC: node names of -N SPEC (comma list, "all", or a
# node file of descriptors), one a line. Designations after ':' are kept.
gpfs_node_list() {
	if [ "$1" = all ]; then
		awk '{ print $2 }' "$G/nodes"
	elif [ -f "$1" ]; then
		sed 's/#.*//; /^[[:space:]]*$/d; s/[[:space:]]//g' "$1"
	else
		echo "$1" | tr ',' '\n'
	fi
}

# gpfs_targets ALL NODES: names a command acts on: -a, -N list, or this
# node. Run it in $(...) || exit: an unknown node fails the command.
gpfs_targets() {
	if [ "$1" = 1 ]; then
		gpfs_node_list all
	elif [ -n "$2" ]; then
		for n in $(gpfs_node_list "$2"); do
			r=$(gpfs_resolve "${n%%:*}")
			[ -n "$r" ] || gpfs_fail "Incorrect node ${n%%:*} specified for command."
			echo "${r%% *}"
		done
	else
		echo "$NODE_NAME"
	fi
}

# gpfs_targets_get ALL: targets=$(gpfs_targets ALL "") without processes.
gpfs_targets_get() {
	if [ "$1" != 1 ]; then
		targets=$NODE_NAME
		return
	fi
	targets= _t_nl=
	while IFS= read -r _t_l || [ -n "$_t_l" ]; do
		set -f
		set -- $_t_l
		set +f
		targets=$targets$_t_nl${2-}
		_t_nl='
'
	done <"$G/nodes"
	while :; do
		case $targets in
		*'
') targets=${targets%?};;
		*) break;;
		esac
	done
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

mmgetstate() {
	all=0 nodes= long=0
	while [ $# -gt 0 ]; do
		case $1 in
		-a) all=1;; -N) shift; nodes=$1;; -L) long=1;; -s | -v) ;;
		*) echo "Usage: mmgetstate [-a | -N {Node[,Node...] | NodeFile | NodeClass}] [-L] [-s] [-v]" >&2; exit 2;;
		esac
		shift
	done
	gpfs_require_member
	if [ "$all" = 1 ] || [ -z "$nodes" ]; then
		gpfs_targets_get "$all"
	else
		targets=$(gpfs_targets "$all" "$nodes") || exit 1
	fi
	echo
	if [ "$long" = 1 ]; then
		echo " Node number  Node name       Quorum  Nodes up  Total nodes  GPFS state    Remarks"
		echo "-----------------------------------------------------------------------------------"
	else
		echo " Node number  Node name        GPFS state  "
		echo "-------------------------------------------"
	fi
	if gpfs_nodes_sorted; then
		gpfs_getstate_rows <"$G/nodes"
	else
		sort -n "$G/nodes" | gpfs_getstate_rows
	fi
}

# gpfs_nodes_sorted: sets quorum and total from $G/nodes (what awk and wc
# -l say) and says whether the file is in `sort -n` order already (numbers
# strictly rising), so that mmgetstate reads it without processes.
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
	for f in "$G"/daemon/*; do
		[ -f "$f" ] || continue
		sim_read _ns_st "$f"
		[ "$_ns_st" = active ] && up=$((up + 1))
	done
	return $_ns_ok
}

# gpfs_getstate_rows: mmgetstate's table rows from "num name ip des lic"
# lines on stdin, for the names in $targets.
gpfs_getstate_rows() {
	while read -r num name ip des lic || [ -n "$num" ]; do
		case $name in
		'' | -* | *[!A-Za-z0-9_-]*) echo "$targets" | grep -qx "$name" || continue;;
		*) case "
$targets
" in *"
$name
"*) ;; *) continue;; esac;;
		esac
		if [ -f "$G/daemon/$name" ] && [ -r "$G/daemon/$name" ]; then
			sim_read st "$G/daemon/$name"
		else
			st=$(cat "$G/daemon/$name" 2>/dev/null || echo unknown)
		fi
		if [ "$long" = 1 ]; then
			rem=
			case $des in quorum*) rem="quorum node";; esac
			q=$quorum u=$up
			[ "$st" = active ] || q=0 u=0
			case $rem$st in
			*[!\ ]) if [ -n "$rem" ]; then
				printf '%8d      %-16s %4s %9s %10s      %-13s %s\n' "$num" "$name" "$q" "$u" "$total" "$st" "$rem"
			else	# no padding to strip after the state
				printf '%8d      %-16s %4s %9s %10s      %s\n' "$num" "$name" "$q" "$u" "$total" "$st"
			fi;;
			*) printf '%8d      %-16s %4s %9s %10s      %-13s %s\n' "$num" "$name" "$q" "$u" "$total" "$st" "$rem" | sed 's/ *$//';;
			esac
		else
			printf '%8d      %-17s%s\n' "$num" "$name" "$st"
		fi
	done
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

gpfs_addnode() {
	for d in $(gpfs_node_list "$1"); do
		r=$(gpfs_resolve "${d%%:*}")
		[ -n "$r" ] || gpfs_fail "Incorrect node ${d%%:*} specified for command."
		n=${r%% *}
		gpfs_member "$n" && gpfs_fail "Node $n is already a member of the GPFS cluster."
		[ -f "$G/installed/$n" ] ||
			gpfs_fail "$n:  /usr/lpp/mmfs/bin/mmremote: No such file or directory"
		des=$(gpfs_designation "$d")
		echo "$(gpfs_stamp): mmaddnode: Processing node $n"
		gpfs_add_node $r "$des" none
	done
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
		[ "$(cat "$G/daemon/$n" 2>/dev/null)" = active ] &&
			gpfs_fail "GPFS is still active on $n"
	done
	for n in $TARGETS; do
		awk -v n="$n" '$2 != n' "$G/nodes" >"$G/nodes.tmp" && mv "$G/nodes.tmp" "$G/nodes"
		rm -f "$G/daemon/$n"
	done
	[ -s "$G/nodes" ] || rm -f "$G/cluster" "$G/nodes"
	echo "mmdelnode: Command successfully completed"
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
	for n in $targets; do
		gpfs_member "$n" || gpfs_fail "Incorrect node $n specified for command."
		printf '\t%s\n' "$n"
		awk -v n="$n" -v l="$1" '$2 == n { $5 = l } { print }' "$G/nodes" >"$G/nodes.tmp" &&
			mv "$G/nodes.tmp" "$G/nodes"
	done
	echo "mmchlicense: Command successfully completed"
	gpfs_propagating
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
	for n in $TARGETS; do
		echo active >"$G/daemon/$n"
	done
}

mmshutdown() {
	gpfs_require_member
	gpfs_parse_targets "$@"
	echo "$(gpfs_stamp): mmshutdown: Starting force unmount of GPFS file systems"
	echo "$(gpfs_stamp): mmshutdown: Shutting down GPFS daemons"
	for n in $TARGETS; do
		echo down >"$G/daemon/$n"
		for m in "$G"/mounts/*; do
			[ -f "$m" ] || continue
			gpfs_locked gpfs_mount_edit "$m" "$n" del
		done
	done
	echo "$(gpfs_stamp): mmshutdown: Finished"
}

mmlsconfig() {
	gpfs_require_member
	if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
		awk -F '\t' -v a="$1" '$2 == a { print a, $3 ($1 == "common" ? "" : " [" $1 "]") }' "$G/config"
		return 0
	fi
	h="Configuration data for cluster $CL_NAME:"
	echo "$h"
	echo "$h" | sed 's/./-/g'
	echo "clusterName $CL_NAME"
	echo "clusterId $CL_ID"
	echo "autoload $CL_AUTO"
	echo "dmapiFileHandleSize 32"
	echo "minReleaseLevel ${GPFS_VERSION%.*}.0"
	echo "ccrEnabled yes"
	echo "cipherList AUTHONLY"
	awk -F '\t' '
	{ lab[NR] = $1; line[NR] = $2 " " $3 }
	END {
		for (i = 1; i <= NR; i++) if (lab[i] != "common" && !(lab[i] in done)) {
			done[lab[i]] = 1
			print "[" lab[i] "]"
			for (j = i; j <= NR; j++) if (lab[j] == lab[i]) print line[j]
		}
		print "[common]"
		for (i = 1; i <= NR; i++) if (lab[i] == "common") print line[i]
		print "adminMode central"
	}' "$G/config"
	echo
	h="File systems in cluster $CL_NAME:"
	echo "$h"
	echo "$h" | sed 's/./-/g'
	echo "(none)"
}

mmchconfig() {
	attrs= label=common
	while [ $# -gt 0 ]; do
		case $1 in
		-N) shift; label=$1;; -i | -I) ;;
		*=*) attrs=${attrs:+$attrs,}$1;;
		*) gpfs_fail "Incorrect extra argument: $1";;
		esac
		shift
	done
	[ -n "$attrs" ] || { echo "Usage: mmchconfig Attribute=value[,Attribute=value...] [-i | -I] [-N {Node[,Node...] | NodeFile | NodeClass}]" >&2; exit 1; }
	gpfs_require_member
	gpfs_locked gpfs_chconfig "$attrs" "$label"
}

gpfs_chconfig() {
	echo "$1" | tr ',' '\n' | while IFS= read -r kv; do
		a=${kv%%=*} v=${kv#*=}
		v=$(echo "$v" | sed 's/^"\(.*\)"$/\1/')
		if [ "$a" = autoload ]; then	# a cluster attribute, shown in the header
			awk -v v="$v" '{ $5 = (v == "DEFAULT" ? "no" : v); print }' "$G/cluster" >"$G/cluster.tmp" &&
				mv "$G/cluster.tmp" "$G/cluster"
			continue
		fi
		awk -F '\t' -v OFS='\t' -v l="$2" -v a="$a" -v v="$v" '
		$1 == l && $2 == a { if (v != "DEFAULT") print l, a, v; f = 1; next }
		{ print }
		END { if (!f && v != "DEFAULT") print l, a, v }' "$G/config" >"$G/config.tmp" &&
			mv "$G/config.tmp" "$G/config"
	done
	echo "mmchconfig: Command successfully completed"
	gpfs_propagating
}

mmremotecluster() {
	sub=$1
	[ $# -gt 0 ] && shift
	gpfs_require_member
	case $sub in
	add | update)
		name=$1 contact=
		shift
		while [ $# -gt 0 ]; do
			case $1 in -n) shift; contact=$1;; -k) shift;; esac
			shift
		done
		[ -n "$name" ] && [ -n "$contact" ] || gpfs_fail "Missing arguments."
		gpfs_locked gpfs_remote_set "$name" "$contact"
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
			echo "SHA digest:      $sha"
			echo "File systems:    ${fs:-(none defined)}"
		done <"$G/remote";;
	*) echo "Usage: mmremotecluster {add | update | delete | show} ..." >&2; exit 1;;
	esac
}

gpfs_remote_set() {
	gpfs_table_del "$G/remote" "$1"
	printf '%s\t%s\t%s\n' "$1" "$2" "$(gpfs_sha "$1")" >>"$G/remote"
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
		dev=$1 rdev= cl= mnt= auto=no opts=rw
		shift
		while [ $# -gt 0 ]; do
			case $1 in
			-f) shift; rdev=$1;; -C) shift; cl=$1;; -T) shift; mnt=$1;;
			-A) shift; auto=$1;; -o) shift; opts=$1;; esac
			shift
		done
		[ -n "$dev" ] && [ -n "$rdev" ] && [ -n "$cl" ] || gpfs_fail "Missing arguments."
		awk -F '\t' -v c="$cl" '$1 == c { f = 1 } END { exit !f }' "$G/remote" ||
			gpfs_fail "Cluster $cl is not defined.  Use the mmremotecluster add command."
		gpfs_locked gpfs_remotefs_set "$dev" "$rdev" "$cl" "${mnt:-/gpfs/$dev}" "$opts" "$auto"
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
	rc=0
	for n in $TARGETS; do
		if [ "$what" = add ] && [ "$(cat "$G/daemon/$n" 2>/dev/null)" != active ]; then
			echo "$n:  mmmount: GPFS is not active on this node." >&2
			rc=1
			continue
		fi
		for d in $(gpfs_devices "$dev"); do
			gpfs_locked gpfs_mount_edit "$G/mounts/$d" "$n" "$what"
		done
	done
	return $rc
}

mmmount() { gpfs_mount_cmd add "$@"; }
mmumount() { gpfs_mount_cmd del "$@"; }

mmlsmount() {
	dev=${1:-all} long=0
	[ $# -gt 0 ] && shift
	for a in "$@"; do [ "$a" = -L ] && long=1; done
	gpfs_require_member
	[ -s "$G/remotefs" ] || { echo "mmlsmount: No file systems were found."; return 1; }
	gpfs_devices_get "$dev"
	for d in $DEVICES; do
		gpfs_fs_row "$d"
		[ -n "$row" ] || gpfs_fail "File system $d is not known to the GPFS cluster."
		n=0
		[ -f "$G/mounts/$d" ] && gpfs_wc_l n "$G/mounts/$d"
		[ "$long" = 1 ] && echo
		if [ "$n" -eq 0 ]; then
			echo "File system $d ($row) is not mounted."
			continue
		fi
		if [ "$long" = 0 ]; then
			echo "File system $d ($row) is mounted on $n nodes."
			continue
		fi
		echo "File system $d ($row) is mounted on $n nodes:"
		gpfs_mounted_on "$G/mounts/$d"
		if gpfs_nodes_sorted; then
			gpfs_lsmount_rows "$G/mounts/$d" <"$G/nodes"
		else
			sort -n "$G/nodes" | gpfs_lsmount_rows "$G/mounts/$d"
		fi
	done
}

# gpfs_lsmount_rows MOUNTS: mmlsmount -L's rows from "num name ip des lic"
# lines on stdin, for the nodes in the file MOUNTS ($mounted read from it).
gpfs_lsmount_rows() {
	while read -r num name ip des lic || [ -n "$num" ]; do
		case $name in
		'' | -* | *[!A-Za-z0-9_-]*) grep -qx "$name" "$1" || continue;;
		*) case $mounted in *"
$name
"*) ;; *) continue;; esac;;
		esac
		# like the real one: the node name cut after its second label
		case $name in
		*.*.*) short=${name%%.*} rest=${name#*.} short=$short.${rest%%.*};;
		*) short=$name;;
		esac
		printf '  %-15s %-25s %s\n' "$ip" "$short" "$CL_NAME"
	done
}

# gpfs_mounted_on FILE: sets mounted to FILE's lines, each between newlines.
gpfs_mounted_on() {
	mounted='
'
	while IFS= read -r _mo_l || [ -n "$_mo_l" ]; do
		mounted=$mounted$_mo_l'
'
	done <"$1"
}

# gpfs_wc_l VAR FILE: VAR=$(wc -l <FILE) (newline-ended lines).
gpfs_wc_l() {
	_wc_n=0
	while IFS= read -r _wc_l; do _wc_n=$((_wc_n + 1)); done <"$2"
	eval "$1=\$_wc_n"
}

# gpfs_devices_get DEV: DEVICES=$(gpfs_devices DEV) without processes.
gpfs_devices_get() {
	DEVICES=$1
	[ "$1" = all ] || return 0
	DEVICES=
	while IFS= read -r _dv_l || [ -n "$_dv_l" ]; do
		DEVICES="$DEVICES${_dv_l%%	*}
"
	done <"$G/remotefs"
}

# gpfs_fs_row FS: row=CLUSTER:REMOTE of FS in remotefs (the awk below).
gpfs_fs_row() {
	gpfs_plain "$1" || {
		row=$(awk -F '\t' -v d="$1" '$1 == d { print $3 ":" $2 }' "$G/remotefs")
		return
	}
	row= _fr_nl=
	while IFS= read -r _fr_l || [ -n "$_fr_l" ]; do
		[ "${_fr_l%%	*}" = "$1" ] || continue
		case $_fr_l in *'	'*) _fr_r=${_fr_l#*	};; *) _fr_r=;; esac
		_fr_2=${_fr_r%%	*}
		case $_fr_r in *'	'*) _fr_r=${_fr_r#*	};; *) _fr_r=;; esac
		row=$row$_fr_nl${_fr_r%%	*}:$_fr_2
		_fr_nl='
'
	done <"$G/remotefs"
}

mmbuildgpl() {
	bar=--------------------------------------------------------
	echo "$bar"
	echo "mmbuildgpl: Building GPL module begins at $(gpfs_stamp)."
	echo "$bar"
	echo "Verifying Kernel Header..."
	echo "  kernel version = ${KERNEL:-$(uname -r)}"
	echo "make World ..."
	echo "make InstallImages ..."
	echo "$bar"
	echo "mmbuildgpl: Building GPL module completed successfully at $(gpfs_stamp)."
	echo "$bar"
}

# gpfs_main NAME ARGS...: entry point of every mm* stand-in.
gpfs_main() {
	CMD=$1
	shift
	gpfs_setup
	gpfs_installed || sim_not_installed "$CMD"
	"$CMD" "$@"
}
