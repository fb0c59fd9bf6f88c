# sim-gpfs-lib.sh: the IBM Spectrum Scale (GPFS) admin commands of the
# simulated nodes. Each mm* stand-in is a two-line script that sources this
# file and calls gpfs_main with its own name. Real ones live in
# /usr/lpp/mmfs/bin; here they sit in the stand-in PATH directory and act
# as "command not found" (exit 127) until GPFS is installed on the node.
# This file holds the state the commands share and the read-only commands
# precheck runs on every node (mmgetstate, mmlsmount, mmlsconfig, mmdiag,
# mmfsadm, mmhealth); the rest, and every command that changes the cluster,
# are in sim-gpfs-admin.sh, which this file sources for any other caller.
#
# Node state:    state/gpfs/installed      Spectrum Scale version (absent: not installed)
#                root/usr/lpp/mmfs/bin/mm* exec the stand-ins (installed nodes)
# Cluster state, under $C/gpfs/ (read-modify-write under flock $C/gpfs/.lock):
#   hosts                 "name address" of every simulated node (for -N)
#   installed/NAME        nodes with GPFS installed (mmaddnode checks it)
#   gpl/NAME              the kernel NAME's portability layer was built for (mmbuildgpl)
#   cluster               NAME ID RSH RCP AUTOLOAD (absent: no cluster)
#   nodes                 "number name address designation license"
#   nodeclass             "class<TAB>member,member,..." (mmcrnodeclass)
#   daemon/NAME           active | down | starting EPOCH (arbitrating for
#                         GPFS_ARBITRATE_S seconds, then active when quorum holds)
#   loaded/NAME           "attribute value" the node's daemon runs with (its
#                         configuration at mmstartup, plus mmchconfig -i/-I)
#   config                "label<TAB>attribute<TAB>value", label common, a node class or a node
#   auth                  "SHA CIPHERLIST" of this cluster's key (mmauth genkey new)
#   remote                "cluster<TAB>contact nodes<TAB>sha digest of the key given with -k"
#   remotefs              "local<TAB>remote<TAB>cluster<TAB>mount point<TAB>options<TAB>automount"
#   mounts/FS             names of the nodes that have FS mounted
#   faults/KIND.NAME      cluster-wide view of node faults (gpfs-down, quorum-loss,
#                         gpfs-stop-at, verbs-off)
# The remote storage cluster (state only, no sshd), under $C/gpfs/storage/:
#   cluster               NAME ID
#   nodes                 "address name designation" (its NSD servers, the contact nodes)
#   key                   its public key (what gpfs_remote_key names); SHA = sha256 of it
#   fs                    "device uid blocksize" of the file systems it owns
#   faults/remote-key-refused  it refuses every client key
#   clients               "cluster<TAB>sha<TAB>fs,fs" the client clusters its admin
#                         authorised: mmauth add CLUSTER -k KEY (the key's digest),
#                         mmauth grant CLUSTER -f FS (sim-gpfs-storage-admin)
#   autogrant             present: its admin authorises any client cluster's key
#                         as it appears, out of band (the default, so that a demo
#                         and the tests that are not about it mount); absent
#                         (sim-gpfs-storage-admin policy strict): only clients
# A client mounts when its mmremotecluster key is the storage key, it has a
# key, no fault refuses, and (autogrant, or) the storage's clients row holds
# its key's digest and grants the file system, as mmauth add and grant do on
# a real owning cluster (IBM, "Mounting a remote GPFS file system").

case $0 in */*) SIM_BIN=${0%/*};; *) SIM_BIN=.;; esac
. "$SIM_BIN/sim-lib.sh"

GPFS_VERSION=5.0.4.3

# Every mm* call runs this: processes only when something is missing.
gpfs_setup() {
	sim_load
	G=$C/gpfs
	[ -d "$G/installed" ] && [ -d "$G/daemon" ] && [ -d "$G/mounts" ] ||
		mkdir -p "$G/installed" "$G/daemon" "$G/mounts"
	for _f in "$G/hosts" "$G/config" "$G/remote" "$G/remotefs" "$G/nodeclass"; do
		[ -e "$_f" ] || touch "$_f"
	done
}

gpfs_installed() {
	[ -s "$S/gpfs/installed" ]
}

# gpfs_underline TEXT: a line of '-' as long as TEXT (what sed 's/./-/g'
# printed for these ASCII headings), without a process.
gpfs_underline() {
	_u_s=$1 _u_o=
	while [ -n "$_u_s" ]; do
		_u_s=${_u_s#?} _u_o=$_u_o-
	done
	printf '%s\n' "$_u_o"
}

gpfs_fail() {
	echo "$CMD: $*" >&2
	echo "$CMD: Command failed.  Examine previous error messages to determine cause." >&2
	exit 1
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

# gpfs_require_member_states: gpfs_require_member then gpfs_load_states, for
# the commands that read the states anyway: the states' awk says whether
# this node is listed, so the node table is read once, not twice.
gpfs_require_member_states() {
	# without a cluster or a node table gpfs_require_member fails, in its words
	[ -f "$G/cluster" ] && [ -f "$G/nodes" ] || gpfs_require_member
	gpfs_load_states
	[ "$MEMBER" = 1 ] || gpfs_fail "This node does not belong to a GPFS cluster."
	read -r CL_NAME CL_ID CL_RSH CL_RCP CL_AUTO <"$G/cluster"
}

# gpfs_node_list SPEC: node names of -N SPEC (comma list, "all", a node
# file of descriptors, node classes and the system classes quorumnodes,
# managernodes, nonquorumnodes, clientnodes), one a line. Designations
# after ':' are kept. One awk for all of it.
gpfs_node_list() {
	if [ "$1" = all ]; then
		awk '{ print $2 }' "$G/nodes"
	elif [ -f "$1" ]; then
		sed 's/#.*//; /^[[:space:]]*$/d; s/[[:space:]]//g' "$1"
	else
		[ -f "$G/nodeclass" ] || : >"$G/nodeclass"
		awk -v spec="$1" -v ncf="$G/nodeclass" '
		FILENAME == ncf { split($0, f, "\t"); cls[f[1]] = f[2]; next }
		{ name[NR] = $2; des[NR] = $4; n = NR }
		function sys(k, i, d) {
			for (i = 1; i <= n; i++) {
				d = des[i]
				if (k == "quorumnodes" && d ~ /quorum/ || k == "managernodes" && d ~ /manager/ ||
				    k == "nonquorumnodes" && d !~ /quorum/ || k == "clientnodes" && d !~ /manager/ ||
				    k == "all")
					print name[i]
			}
		}
		END {
			k = split(spec, item, ",")
			for (j = 1; j <= k; j++) {
				x = item[j]
				if (x ~ /^(all|quorumnodes|managernodes|nonquorumnodes|clientnodes)$/) sys(x)
				else if (x in cls) { m = split(cls[x], mem, ","); for (i = 1; i <= m; i++) print mem[i] }
				else print x
			}
		}' "$G/nodeclass" "$([ -f "$G/nodes" ] && echo "$G/nodes" || echo /dev/null)"
	fi
}

# gpfs_targets ALL NODES: names a command acts on: -a, -N list, or this
# node. Run it in $(...) || exit: an unknown node fails the command.
gpfs_targets() {
	if [ "$1" = 1 ]; then
		gpfs_node_list all
	elif [ -n "$2" ]; then
		# one awk resolves the whole list (as gpfs_resolve does each name)
		_tg=$(gpfs_node_list "$2" | awk -v hosts="$G/hosts" '
		FILENAME == hosts { name[++n] = $1; addr[n] = $2; next }
		{
			x = $0; sub(/:.*/, "", x); r = ""
			for (i = 1; i <= n; i++)
				if (name[i] == x || addr[i] == x || index(name[i], x ".") == 1) { r = name[i]; break }
			if (r == "") { print "!" x; exit }
			print r
		}' "$G/hosts" -)
		case $_tg in
		'!'* | *'
!'*) _tg=${_tg##*!}; gpfs_fail "Incorrect node $_tg specified for command.";;
		esac
		[ -z "$_tg" ] || echo "$_tg"
	else
		echo "$NODE_NAME"
	fi
}

# How long a started daemon arbitrates before it can be active: more than
# this many whole seconds (so 1 gives 1-2 s).
GPFS_ARBITRATE_S=${SIM_GPFS_ARBITRATE_S:-1}

# gpfs_load_states: STATES ("\nname state\n" for every member: active,
# arbitrating or down), QUORUM_NEED (majority of the quorum nodes, or one
# with tiebreaker disks), QUORUM_UP (quorum nodes whose daemon runs), UP
# (active nodes). A started daemon arbitrates first; every running daemon
# stays arbitrating while fewer than QUORUM_NEED quorum nodes run. With
# `tiebreakerDisks` in [common] and at most eight quorum nodes, one running
# quorum node keeps quorum (IBM's "node quorum with tiebreaker disks"; the
# capture in tests/fixtures/tools/SOURCES.md, mmlsconfig/, shows a two-node
# cluster staying up with one node shut down); the sim's client cluster has
# no disks of its own, so every quorum node is taken to reach them. Faults:
# gpfs-down.NAME keeps NAME's daemon down; quorum-loss names the one quorum
# node left; gpfs-stop-at.NAME "at T" (fired, see gpfs_stop_at_fire): NAME's
# daemon stopped at T (epoch seconds, fractional) until mmstartup.
# The same pass reads what the table commands would otherwise read with a
# shell loop each (dash reads a byte per system call; at 256 nodes each loop
# cost more than the awk): MEMBER (1 when this node is listed), NODE_NUM
# (its node number), NODES_TOTAL (the lines of $G/nodes, every writer ends
# them) and NODES_SORTED (0 when the node numbers rise strictly, as
# gpfs_nodes_sorted says it).
gpfs_load_states() {
	[ -n "${NOW:-}" ] || sim_date_get NOW +%s
	_ls_nowf=$NOW
	set -- "$G"/faults/gpfs-stop-at.*
	[ -e "$1" ] && sim_date_get _ls_nowf +%s.%N
	# the nodes with a gpfs-down or gpfs-stop-at fault, from one glob each:
	# not two opens a node in the awk, which failed for nearly every node
	# (512 a call at 256 nodes, six calls a node in every precheck)
	_ls_nl='
'
	_ls_down=$_ls_nl _ls_stop=$_ls_nl
	for _ls_f in "$G"/faults/gpfs-down.*; do
		[ -e "$_ls_f" ] && _ls_down=$_ls_down${_ls_f#"$G"/faults/gpfs-down.}$_ls_nl
	done
	for _ls_f in "$@"; do
		[ -e "$_ls_f" ] && _ls_stop=$_ls_stop${_ls_f#"$G"/faults/gpfs-stop-at.}$_ls_nl
	done
	# one awk for the table, the daemon files and the faults: the shell
	# reads a byte per system call, and the table grows with the cluster
	STATES=$(GPFS_AWK_DOWN=$_ls_down GPFS_AWK_STOP=$_ls_stop awk -v now="$NOW" \
		-v nowf="$_ls_nowf" -v arb="$GPFS_ARBITRATE_S" -v g="$G" -v me="${NODE_NAME-}" '
	function listed(list, n) { return index(ENVIRON[list], "\n" n "\n") > 0 }
	{
		if ($2 == me && !member) { member = 1; mynum = $1 }
		if ($1 !~ /^[0-9]+$/ || $1 ~ /^0./ || length($1) > 9 || $1 + 0 <= last) unsorted = 1
		last = $1 + 0
		name[NR] = $2; r = "down"; f = g "/daemon/" $2
		if ((getline l < f) > 0) {
			split(l, w, " ")
			if (w[1] == "active") r = "up"
			else if (w[1] == "starting") r = (now - w[2] > arb) ? "up" : "arb"
		}
		close(f)
		if (listed("GPFS_AWK_DOWN", $2)) r = "down"
		sf = g "/faults/gpfs-stop-at." $2
		if (listed("GPFS_AWK_STOP", $2) && (getline l < sf) > 0) {
			split(l, w, " ")
			if (w[1] == "at" && nowf + 0 >= w[2] + 0) r = "down"
		}
		close(sf)
		if ($4 ~ /quorum/) {
			qt++
			if (keep != "" && keep != $2) r = "down"
			if (r != "down") qu++
		}
		raw[NR] = r
	}
	BEGIN {
		last = -1
		kf = g "/faults/quorum-loss"; if ((getline keep < kf) <= 0) keep = ""; close(kf)
		cf = g "/config"; tb = 0
		while ((getline l < cf) > 0) {
			split(l, w, "\t")
			if (w[1] == "common" && w[2] == "tiebreakerDisks" && w[3] != "" && w[3] != "no" && w[3] != "DEFAULT") tb = 1
		}
		close(cf)
	}
	END {
		need = (tb && qt <= 8) ? 1 : int(qt / 2) + 1; ok = (qt == 0 || qu >= need); up = 0
		for (i = 1; i <= NR; i++) {
			r = raw[i]
			if (r == "up") { if (ok) { r = "active"; up++ } else r = "arbitrating" }
			else if (r == "arb") r = "arbitrating"
			print name[i], r
			if (name[i] == me && mystate == "") mystate = r
		}
		print "#", need, qu + 0, up, member + 0, NR, unsorted + 0, (mystate == "" ? "-" : mystate),
			(mynum == "" ? "-" : mynum)
	}' "$G/nodes")
	set -f
	set -- ${STATES##*"# "}
	set +f
	QUORUM_NEED=$1 QUORUM_UP=$2 UP=$3 MEMBER=$4 NODES_TOTAL=$5 NODES_SORTED=$6
	MY_STATE=$7 NODE_NUM=$8
	[ "$NODE_NUM" != - ] || NODE_NUM=
	# this node's state, as gpfs_state_get would find it (awk's -v reads
	# backslashes, so only for a name of letters, digits, _ . -)
	[ "$MY_STATE" != - ] && gpfs_plain "${NODE_NAME-}" || MY_STATE=
	STATES="
${STATES%"# "*}"
}

# gpfs_state_get VAR NAME: VAR=NAME's state from STATES (gpfs_load_states).
# This node's from MY_STATE: dash matches ${STATES#*"NAME "} by trying every
# prefix, O(n^2) in the table's size (some 20 ms at 256 nodes for a node
# late in it, three calls a node in every precheck).
gpfs_state_get() {
	if [ -n "${MY_STATE-}" ] && [ "$2" = "${NODE_NAME-}" ]; then
		eval "$1=\$MY_STATE"
		return
	fi
	_sg=${STATES#*"
$2 "}
	if [ "$_sg" = "$STATES" ]; then _sg=unknown; else _sg=${_sg%%"
"*}; fi
	eval "$1=\$_sg"
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
	gpfs_require_member_states
	if [ "$all" = 1 ]; then
		targets= # every row (gpfs_getstate_rows)
	elif [ -z "$nodes" ]; then
		targets=$NODE_NAME
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
	quorum=$QUORUM_NEED up=$UP total=$NODES_TOTAL
	if [ "$NODES_SORTED" = 0 ]; then
		gpfs_getstate_rows "$all" <"$G/nodes"
	else
		sort -n "$G/nodes" | gpfs_getstate_rows "$all"
	fi
}

# gpfs_states_awk: awk functions that load STATES (gpfs_load_states) into
# st[] for the row writers below: one awk a table, not one shell lookup a
# row (dash scans the whole of STATES for each, which made `mmgetstate -a`
# on a 256-node cluster cost 3 s of CPU on every node).
gpfs_states_awk='
function load_states(text,   n, l, i, k) {
	n = split(text, l, "\n")
	for (i = 1; i <= n; i++) {
		k = index(l[i], " ")
		if (k > 1 && !(substr(l[i], 1, k - 1) in st))
			st[substr(l[i], 1, k - 1)] = substr(l[i], k + 1)
	}
}
function state(name) { return (name in st) ? st[name] : "unknown" }
# on[]: the names in a mounts/FS file, a line each
function load_mounts(file,   l) {
	while ((getline l < file) > 0) on[l] = 1
	close(file)
}
'

# gpfs_getstate_rows ALL: mmgetstate's table rows from "num name ip des lic"
# lines on stdin, for the names in $targets, or every line when ALL is 1.
gpfs_getstate_rows() {
	GPFS_AWK_T=$targets GPFS_AWK_S=$STATES awk -v all="$1" -v long="$long" \
		-v quorum="$quorum" -v up="$up" -v total="$total" "$gpfs_states_awk"'
	BEGIN {
		n = split(ENVIRON["GPFS_AWK_T"], t, "\n")
		for (i = 1; i <= n; i++) want[t[i]] = 1
		load_states(ENVIRON["GPFS_AWK_S"])
	}
	{
		if (all != 1 && !($2 in want)) next
		s = state($2)
		if (long != 1) { printf "%8d      %-17s%s\n", $1, $2, s; next }
		rem = ($4 ~ /^quorum/) ? "quorum node" : ""
		q = quorum; u = up
		if (s != "active") { q = 0; u = 0 }
		line = sprintf("%8d      %-16s %4s %9s %10s      %-13s %s", $1, $2, q, u, total, s, rem)
		sub(/ +$/, "", line)
		print line
	}'
}

mmlsconfig() {
	gpfs_require_member
	if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
		# one line per value, naming every node or class that has it
		awk -F '\t' -v a="$1" '$2 == a {
			if (!($3 in who)) { ord[++n] = $3; who[$3] = "" }
			if ($1 == "common") com[$3] = 1
			else who[$3] = who[$3] (who[$3] == "" ? "" : ",") $1
		}
		END { for (i = 1; i <= n; i++) {
			v = ord[i]
			if (v in com) print a, v
			if (who[v] != "") print a, v " [" who[v] "]"
		} }' "$G/config"
		return 0
	fi
	h="Configuration data for cluster $CL_NAME:"
	echo "$h"
	gpfs_underline "$h"
	echo "clusterName $CL_NAME"
	echo "clusterId $CL_ID"
	echo "autoload $CL_AUTO"
	echo "dmapiFileHandleSize 32"
	echo "minReleaseLevel ${GPFS_VERSION%.*}.0"
	echo "ccrEnabled yes"
	echo "cipherList AUTHONLY"
	# GPFS prints one stanza for the nodes and classes that share an
	# attribute's value, "[dgx01,dgx02]" (the administrator's report in
	# issue 28, which bringup's parser did not read): each value's labels,
	# then the lines grouped by label set.
	awk -F '\t' '
	{ lab[NR] = $1; line[NR] = $2 " " $3 }
	END {
		for (i = 1; i <= NR; i++) if (lab[i] != "common") {
			k = line[i]
			if (!(k in set)) { ord[++nk] = k; set[k] = lab[i] }
			else set[k] = set[k] "," lab[i]
		}
		for (j = 1; j <= nk; j++) {
			s = set[ord[j]]
			if (!(s in body)) { sord[++ns] = s; body[s] = "" }
			body[s] = body[s] ord[j] "\n"
		}
		for (j = 1; j <= ns; j++) {
			print "[" sord[j] "]"
			printf "%s", body[sord[j]]
		}
		print "[common]"
		for (i = 1; i <= NR; i++) if (lab[i] == "common") print line[i]
		print "adminMode central"
	}' "$G/config"
	echo
	h="File systems in cluster $CL_NAME:"
	echo "$h"
	gpfs_underline "$h"
	echo "(none)"
}

mmlsmount() {
	dev=${1:-all} long=0
	[ $# -gt 0 ] && shift
	for a in "$@"; do [ "$a" = -L ] && long=1; done
	gpfs_require_member_states
	[ -s "$G/remotefs" ] || { echo "mmlsmount: No file systems were found."; return 1; }
	gpfs_devices_get "$dev"
	for d in $DEVICES; do
		gpfs_fs_row "$d"
		[ -n "$row" ] || gpfs_fail "File system $d is not known to the GPFS cluster."
		n=0 sn=0
		[ -f "$G/mounts/$d" ] && gpfs_wc_l n "$G/mounts/$d"
		[ "$n" -gt 0 ] && gpfs_active_count n "$G/mounts/$d"
		# the owning cluster's nodes (its NSD servers) have it mounted too
		_lm_sn=
		[ -f "$G/storage/cluster" ] && read -r _lm_sn _lm_sid <"$G/storage/cluster"
		[ "$n" -gt 0 ] && [ -f "$G/storage/nodes" ] && [ "${row%%:*}" = "$_lm_sn" ] &&
			gpfs_wc_l sn "$G/storage/nodes"
		[ "$long" = 1 ] && echo
		n=$((n + sn))
		if [ "$n" -eq 0 ]; then
			echo "File system $d ($row) is not mounted."
			continue
		fi
		if [ "$long" = 0 ]; then
			echo "File system $d ($row) is mounted on $n nodes."
			continue
		fi
		echo "File system $d ($row) is mounted on $n nodes:"
		[ "$sn" -gt 0 ] && while read -r sa sname sdes; do
			gpfs_short_get short "$sname"
			printf '  %-15s %-25s %s\n' "$sa" "$short" "${row%%:*}"
		done <"$G/storage/nodes"
		if [ "$NODES_SORTED" = 0 ]; then
			gpfs_lsmount_rows "$G/mounts/$d" <"$G/nodes"
		else
			sort -n "$G/nodes" | gpfs_lsmount_rows "$G/mounts/$d"
		fi
	done
}

# gpfs_lsmount_rows MOUNTS: mmlsmount -L's rows from "num name ip des lic"
# lines on stdin, for the active nodes in the file MOUNTS; the node name cut
# after its second label, as gpfs_short_get does.
gpfs_lsmount_rows() {
	GPFS_AWK_S=$STATES GPFS_AWK_C=$CL_NAME GPFS_AWK_M=$1 awk "$gpfs_states_awk"'
	BEGIN {
		cl = ENVIRON["GPFS_AWK_C"]
		load_mounts(ENVIRON["GPFS_AWK_M"])
		load_states(ENVIRON["GPFS_AWK_S"])
	}
	($2 in on) && state($2) == "active" {
		n = split($2, w, ".")
		short = (n > 2) ? w[1] "." w[2] : $2
		printf "  %-15s %-25s %s\n", $3, short, cl
	}'
}

# gpfs_active_count VAR MOUNTS: VAR=how many of the nodes in the file MOUNTS
# are active in STATES (read as gpfs_lsmount_rows reads them).
gpfs_active_count() {
	_ac=$(GPFS_AWK_S=$STATES GPFS_AWK_M=$2 awk "$gpfs_states_awk"'
	BEGIN {
		load_mounts(ENVIRON["GPFS_AWK_M"])
		load_states(ENVIRON["GPFS_AWK_S"])
		for (x in on) if (state(x) == "active") c++
		print c + 0
	}')
	eval "$1=\$_ac"
}

# gpfs_short_get VAR NAME: like the real mmlsmount -L, the node name cut
# after its second label.
gpfs_short_get() {
	case $2 in
	*.*.*) _sh=${2%%.*} _sh_r=${2#*.} _sh=$_sh.${_sh_r%%.*};;
	*) _sh=$2;;
	esac
	eval "$1=\$_sh"
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

# --- mmdiag, mmfsadm, mmhealth: what the running daemon says ---------------------------

# gpfs_verbs: from this node's loaded configuration (loaded/NAME), sets
# VERBS (started | disabled | not started), PORTS_OK (the verbsPorts entries
# that name a port this node has, up: InfiniBand, or RoCE with verbsRdmaCm
# enable) and PORTS_BAD (the rest).
# As the real daemon: RDMA starts when verbsRdma is enabled and at least
# one port of verbsPorts opens; a port that does not exist is skipped (its
# traffic silently goes over TCP).
gpfs_verbs() {
	VERBS=disabled PORTS_OK= PORTS_BAD=
	_vb_rdma= _vb_ports= _vb_cm=
	[ -f "$G/loaded/$NODE_NAME" ] || { VERBS=down; return 0; }
	# verbs-off: the daemon runs without verbs RDMA, configured or not
	[ -e "$G/faults/verbs-off.$NODE_NAME" ] && return 0
	while read -r _vb_a _vb_v; do
		case $_vb_a in
		verbsRdma) _vb_rdma=$_vb_v;; verbsPorts) _vb_ports=$_vb_v;; verbsRdmaCm) _vb_cm=$_vb_v;;
		esac
	done <"$G/loaded/$NODE_NAME"
	[ "$_vb_rdma" = enable ] || return 0
	for _vb_p in $_vb_ports; do
		_vb_h=${_vb_p%%/*} _vb_n=${_vb_p#*/} _vb_n=${_vb_n%%/*}
		[ "$_vb_n" = "$_vb_p" ] && _vb_n=1
		case " $HCAS " in
		*" $_vb_h "*)
			sim_hca_conf "$_vb_h"
			# a RoCE port opens only through the RDMA connection
			# manager (mmchconfig verbsRdmaCm: enable for RoCE)
			if [ "$_vb_n" = 1 ] && ! sim_port_is_down "$_vb_h" 1 &&
				{ [ "$LL" = InfiniBand ] || [ "$_vb_cm" = enable ]; }; then
				PORTS_OK="$PORTS_OK $_vb_h/$_vb_n"
				continue
			fi;;
		esac
		PORTS_BAD="$PORTS_BAD $_vb_p"
	done
	if [ -n "$PORTS_OK" ]; then VERBS=started; else VERBS="not started"; fi
}

# What the running daemon uses, every attribute, as mmdiag --config lists
# it: " ! NAME VALUE" for one the configuration changed, "   NAME VALUE" for
# a default, sorted by name, sizes as plain numbers. The numbers follow the
# real capture in treydock/gpfs_exporter's collectors tests (`mmdiag --config
# -Y`: pagepool 4294967296, changed; pagepoolMaxPhysMemPct 75, default);
# the defaults are IBM's mmchconfig documentation's. The fault verbs-off
# makes the daemon run with verbsRdma disable whatever the configuration.
GPFS_DEFAULTS="ignorePrefetchLUNCount no
maxFilesToCache 4000
maxMBpS 2048
maxStatCache 1000
nsdMaxWorkerThreads 512
pagepool 1073741824
pagepoolMaxPhysMemPct 75
verbsPorts
verbsRdma disable
verbsRdmaCm disable
verbsRdmaSend no
workerThreads 48"
gpfs_running_config() {
	_rc_off=0
	[ -e "$G/faults/verbs-off.$NODE_NAME" ] && _rc_off=1
	# one awk: the defaults (from the environment, so that awk leaves their
	# backslashes alone), then the loaded file, each line read as "D LINE"
	# or "L LINE" (split the same way as a line of that pipe would be)
	_rc_f=$G/loaded/$NODE_NAME
	# (sed says what it always said when the file is missing)
	[ -r "$_rc_f" ] || { sed 's/^/L /' "$_rc_f"; _rc_f=/dev/null; }
	GPFS_AWK_D=$GPFS_DEFAULTS awk -v off="$_rc_off" '
	function num(v,   m, k) {
		if (v !~ /^[0-9]+[KkMmGgTtPp]$/) return v
		m = 1; k = index("KMGTP", toupper(substr(v, length(v))))
		while (k-- > 0) m *= 1024
		return sprintf("%.0f", substr(v, 1, length(v) - 1) * m)
	}
	function line(l,   f, a, v) {
		split(l, f); a = f[2]; v = l; sub(/^[DL] [^ ]+ ?/, "", v)
		if (f[1] == "D") { val[a] = v; chg[a] = 0 }
		else { val[a] = num(v); chg[a] = 1 }
	}
	BEGIN {
		n = split(ENVIRON["GPFS_AWK_D"], d, "\n")
		for (i = 1; i <= n; i++) line("D " d[i])
	}
	{ line("L " $0) }
	END {
		if (off) { val["verbsRdma"] = "disable"; chg["verbsRdma"] = 0 }
		n = 0
		for (a in val) names[++n] = a
		for (i = 2; i <= n; i++) for (j = i; j > 1 && names[j - 1] > names[j]; j--) {
			t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
		}
		for (i = 1; i <= n; i++) printf "%s %s %s\n", chg[names[i]] ? " !" : "  ", names[i], val[names[i]]
	}' "$_rc_f"
}

# Layout reconstructed from IBM's mmdiag documentation and field notes: no
# capture of a verbs-enabled mmdiag --network is in the fixtures
# (SOURCES.md, "still not found").
mmdiag() {
	gpfs_require_member_states
	gpfs_state_get st "$NODE_NAME"
	if [ "$st" = down ]; then
		echo "mmdiag: Connection failed to the GPFS daemon: the daemon is not running." >&2
		exit 1
	fi
	case ${1-} in
	--config)
		echo
		echo "=== mmdiag: config ==="
		gpfs_running_config;;
	--network)
		gpfs_verbs
		num=$NODE_NUM
		echo
		echo "=== mmdiag: network ==="
		echo
		echo "Pending messages:"
		echo "  (none)"
		echo "Inter-node communication configuration:"
		echo "  tscTcpPort      1191"
		echo "  my address      $NODE_ADDR/8 (lo) <c0n$((num - 1))>"
		echo "  my addr list    $NODE_ADDR/8 (lo)"
		echo "  my node number  $num"
		echo "TCP Connections between nodes:"
		echo "  Device lo:"
		echo "    hostname                            node     destination     status     err  sock  sent(MB)  recvd(MB)  ostype"
		awk -v me="$NODE_NAME" -v states="$STATES" '
		BEGIN { k = split(states, l, "\n"); for (i = 1; i <= k; i++) { split(l[i], w, " "); st[w[1]] = w[2] } }
		$2 != me && st[$2] == "active" {
			printf "    %-35s <c0n%d>   %-15s connected  0    %-4d  0         0          Linux/L\n", $2, $1 - 1, $3, 30 + $1
		}' "$G/nodes"
		mounted=0
		for m in "$G"/mounts/*; do
			[ -f "$m" ] && grep -qx "$NODE_NAME" "$m" && mounted=1
		done
		if [ "$mounted" = 1 ] && [ -f "$G/storage/nodes" ]; then
			i=0
			while read -r sa sname sdes; do
				printf '    %-35s <c1n%d>   %-15s connected  0    %-4d  0         0          Linux/L\n' "$sname" "$i" "$sa" $((60 + i))
				i=$((i + 1))
			done <"$G/storage/nodes"
		fi
		echo "RDMA Connections between nodes:"
		if [ "$VERBS" != started ]; then
			echo "  (none)"
			return 0
		fi
		for p in $PORTS_OK; do
			h=${p%/*}
			sim_hca_conf "$h"
			sim_hca_get lid "$h" lid
			echo "  Fabric 0 - Device $h Port 1 Width ${WIDTH%X}x Speed $SPEED lid ${lid:-0}"
			echo "    hostname                            idx CM state VS buff RDMA_CT(ERR) RDMA_RCV_MB RDMA_SND_MB VERBS_RCV_MB VERBS_SND_MB"
			[ "$mounted" = 1 ] && [ -f "$G/storage/nodes" ] || continue
			i=0
			while read -r sa sname sdes; do
				printf '    %-35s %-3d N  RTS   (Y)903   0 (0)        0           0           0            0\n' "$sname" "$i"
				i=$((i + 1))
			done <"$G/storage/nodes"
		done;;
	*) echo "Usage: mmdiag [--config | --network | ...]" >&2; exit 1;;
	esac
}

# mmfsadm test verbs status: the daemon's verbs state in one line.
mmfsadm() {
	case "$*" in
	"test verbs status") gpfs_require_member_states;;
	*) gpfs_require_member; echo "Usage: mmfsadm test verbs status" >&2; exit 1;;
	esac
	gpfs_state_get st "$NODE_NAME"
	[ "$st" = down ] && { echo "mmfsadm: The GPFS daemon is not running." >&2; exit 1; }
	gpfs_verbs
	# a blank line first, as in treydock/gpfs_exporter's captures
	# (collectors/verbs_test.go: "VERBS RDMA status: started|disabled")
	echo
	echo "VERBS RDMA status: $VERBS"
}

# Layout of tests/fixtures/sim-gpu/real/mmhealth_node_show_*.
mmhealth() {
	gpfs_require_member_states
	[ "${1-} ${2-}" = "node show" ] || { echo "Usage: mmhealth node show [Component]" >&2; exit 1; }
	gpfs_state_get st "$NODE_NAME"
	gst=HEALTHY greason=- node=HEALTHY
	case $st in
	down) gst=FAILED greason=gpfs_down node=FAILED;;
	arbitrating) gst=DEGRADED greason=quorum_down node=DEGRADED;;
	esac
	fst=HEALTHY freason=-
	if [ "$st" = active ]; then
		gpfs_verbs
		[ -n "$PORTS_BAD" ] && [ "$VERBS" != disabled ] && fst=DEGRADED freason=ib_rdma_port_not_found
	fi
	# gpfs-conn-down [NODE]: this daemon's connections to NODE (default: the
	# first other member) are all down, a GPFS event of severity WARNING
	# that degrades the component (the wording of the eventlog fixture).
	conn_ip=
	if [ "$st" = active ] && sim_fault gpfs-conn-down; then
		conn_to=$(sim_fault_arg gpfs-conn-down)
		conn_ip=$(awk -v me="$NODE_NAME" -v to="$conn_to" '
			$2 != me && (to == "" || $2 == to || index($2, to ".") == 1) { print $3; exit }' "$G/nodes")
		[ -n "$conn_ip" ] && gst=DEGRADED greason=cluster_connections_down node=DEGRADED
	fi
	echo
	echo "Node name:      $NODE_NAME"
	echo "Node status:    $node"
	echo "Status Change:  2 hours ago"
	echo
	echo "Component      Status        Status Change     Reasons & Notices"
	echo "----------------------------------------------------------------"
	printf '%-14s %-13s %-17s %s\n' GPFS "$gst" "2 hours ago" "$greason" NETWORK "$fst" "2 hours ago" "$freason"
	[ "$st" = active ] && printf '%-14s %-13s %-17s %s\n' FILESYSTEM HEALTHY "2 hours ago" -
	# The event table follows when an event is active (layout of
	# mmhealth_node_show_ces_degraded; Parameter holds the event's
	# identifier, the peer's address, as in mmhealth -Y's identifier field).
	if [ -n "$conn_ip" ]; then
		echo
		echo
		echo "Event                        Parameter   Severity    Active Since         Event Message"
		echo "----------------------------------------------------------------------------------------------------------------"
		printf '%-28s %-11s %-11s %-20s %s\n' cluster_connections_down "$conn_ip" WARNING "2 hours ago" \
			"Connection to cluster node $conn_ip has all 1 connection(s) down. (Maximum 1)."
	fi
	return 0
}

# gpfs_main NAME ARGS...: entry point of every mm* stand-in.
gpfs_main() {
	CMD=$1
	shift
	gpfs_setup
	gpfs_installed || sim_not_installed "$CMD"
	"$CMD" "$@"
}

# The read-only commands above leave sim-gpfs-admin.sh unread: dash parses a
# sourced file whole, and it is two thirds of the library (about 1.2 ms of
# CPU a call, seven calls a node in every precheck).
case ${0##*/} in
mmgetstate | mmlsmount | mmlsconfig | mmdiag | mmfsadm | mmhealth) ;;
*) . "$SIM_BIN/sim-gpfs-admin.sh";;
esac
