# sim-fabric-lib.sh: the whole fabric as iblinkinfo, ibnetdiscover and
# ibhosts discover it, for those three stand-ins only (they source it after
# sim-lib.sh): every other stand-in, dozens a node in every precheck, would
# otherwise parse its 9 KB (dash parses a sourced file whole).

# --- fabric discovery (iblinkinfo, ibnetdiscover, ibhosts) -----------------

# sim_fabric_ports: one line per IB port of every node, in node order:
#   INDEX HCA# NODE HCA LID GUID STATE WIDTH SPEED NODE_GUID SYS_GUID CA_TYPE
# Inside a node's namespace the other nodes are at /run/bringup-sim/fabric
# (read-only); outside it, beside this node.
sim_fabric_ports() {
	_fp_fabric=/run/bringup-sim/fabric
	[ -d "$_fp_fabric" ] || _fp_fabric=${N%/*}
	# The SM registry is the fabric's, the same for every port: read it once
	# (with two masters each port asked it anew: 14 s for 24 ports). Set by
	# the caller, it outlives this function's subshell.
	[ -n "${SIM_SM_LIST_CACHE+x}" ] || SIM_SM_LIST_CACHE=$(sim_sm_list)
	for nd in "$_fp_fabric"/*/; do
		nd=${nd%/}
		[ -r "$nd/node.conf" ] || continue
		(
			BRINGUP_SIM_NODE=$nd
			sim_load
			i=0
			# other-fabric [HCA]: cabled to another fabric, not discovered here
			_fp_away=
			sim_fault other-fabric && _fp_away=" $(sim_fault_arg other-fabric) "
			[ "$_fp_away" = "  " ] && _fp_away=" $HCAS "
			for h in $HCAS; do
				sim_hca_conf "$h"
				case $_fp_away in *" $h "*) LL=away;; esac
				if [ "$LL" = InfiniBand ]; then
					sim_port "$h" 1
					sim_hca_get _fp_ng "$h" node_guid
					sim_hca_get _fp_sg "$h" sys_guid
					sim_hca_get _fp_ct "$h" ca_type
					echo "$NODE_INDEX $i $NODE_NAME $h $P_LID $P_GUID $P_STATE $P_WIDTH $P_SPEED" \
						"$_fp_ng $_fp_sg $_fp_ct"
				fi
				i=$((i + 1))
			done
		) 2>/dev/null
	done | sort -n -k1,1 -k2,2
}

# sim_fabric_print FORMAT: the fabric as iblinkinfo or ibnetdiscover prints
# it (FORMAT), from sim_fabric_ports on stdin: one topology for both tools.
# Host port slot = 4 * node index + HCA index. While the slots fit on 36
# ports, one leaf (port = slot + 1); beyond that, or when CLUSTER/fabric.conf
# (sim up --leaf-ports N) asks, leaves of N host ports (default 18) and 2
# spines, each leaf cabled to every spine with N / SPINES cables. A port
# that is down is not discovered (its CA is absent, the leaf port
# Down/Polling); without a subnet manager links show Initialize; a link
# trained lower (link-degraded, isl-degraded) shows its width and speed at
# both ends; a port moved to another leaf (port-moved NODE HCA LEAF) takes
# that leaf's first free port. The caller sets SIM_SM_LIST_CACHE; FROM is
# ibnetdiscover's "node GUID port GUID" of the discovering port.
sim_fabric_print() {
	_fb_ports=$(cat)
	# One awk for three figures: the switches' first LID (past every CA's
	# unicast LID), the last host slot and the first port's speed.
	_fb_meta=$(printf '%s\n' "$_fb_ports" | awk '
		$5 + 0 > m && $5 < 49152 { m = $5 }
		{ p = $1 * 4 + $2 + 1; if (p > l) l = p }
		NR == 1 { s = $9 }
		END { print m + 1, l + 0, s }')
	_fb_swlid=${_fb_meta%% *} _fb_meta=${_fb_meta#* }
	_fb_last=${_fb_meta%% *} _fb_speed=${_fb_meta#* }
	case $_fb_speed in
	HDR) _fb_model=MQM8700 _fb_devid=0xd2f0;;
	NDR) _fb_model=MQM9700 _fb_devid=0xd2f2;;
	*) _fb_model=MSB7700 _fb_devid=0xcb20;;
	esac
	LEAF_PORTS= SPINES=
	[ -r "$C/fabric.conf" ] && . "$C/fabric.conf"
	if [ -z "$LEAF_PORTS" ] && [ "$_fb_last" -gt 36 ]; then
		LEAF_PORTS=18
	fi
	# The ISLs trained lower (isl-degraded SWITCH/PORT, from either end) and
	# the host ports moved to another leaf (port-moved: "NODE HCA LEAF").
	# (Read only when such a file exists: no fault, no processes.)
	_fb_degraded= _fb_moved=
	for _fb_f in "$C"/fabric/faults/isl-degraded.*; do
		[ -e "$_fb_f" ] && _fb_degraded=$(cat "$C"/fabric/faults/isl-degraded.* 2>/dev/null | tr '\n' ' ')
		break
	done
	for _fb_f in "$C"/fabric/faults/port-moved.*; do
		[ -e "$_fb_f" ] && _fb_moved=$(cat "$C"/fabric/faults/port-moved.* 2>/dev/null | tr '\n' ';')
		break
	done
	# Without an SM, switch-to-switch links stay in Initialize as the CAs' do.
	sim_sm_lid_get _fb_sm
	sim_date_get _fb_now '+%a %b %e %H:%M:%S %Y'
	printf '%s\n' "$_fb_ports" | awk -v fmt="$1" -v lid0="$_fb_swlid" -v last="$_fb_last" \
		-v model="$_fb_model" -v devid="$_fb_devid" -v lp="${LEAF_PORTS:-0}" \
		-v ns="${SPINES:-2}" -v degraded="$_fb_degraded" -v moved="$_fb_moved" \
		-v sm="$_fb_sm" -v from="${FROM-}" -v now="$_fb_now" '
BEGIN {
	lane["SDR"] = "2.5"; lane["DDR"] = "5.0"; lane["QDR"] = "10.0"; lane["FDR"] = "14.0625"
	lane["EDR"] = "25.78125"; lane["HDR"] = "53.125"; lane["NDR"] = "106.25"
	nd = split(degraded, d, " ")
	for (k = 1; k <= nd; k++) bad[d[k]] = 1
	nm = split(moved, mv, ";")
	for (k = 1; k <= nm; k++)
		if (split(mv[k], m3, " ") == 3) moveto[m3[1] " " m3[2]] = m3[3]
}
function state(s) { return s == 2 ? "Initialize" : s == 3 ? "Armed" : "Active" }
function rate(sp) { return (sp in lane) ? lane[sp] : "25.78125" }
function up(lid, p, w, sp, st, plid, pp, desc, comment) {
	printf "%12d%5d[  ] ==(%3s %13s Gbps %s/  LinkUp)==>%8d%5d[  ] \"%s\" (%s)\n",
		lid, p, w, rate(sp), st, plid, pp, desc, comment
}
function down(lid, p) {
	printf "%12d%5d[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n", lid, p
}
# ibnetdiscover: GUIDs without 0x, widths in lower case ("4x")
function hex(g) { sub(/^0x/, "", g); return g }
function lw(w) { return tolower(w) }
function ids(vend, dev, sys) {
	printf "\nvendid=0x%s\ndevid=%s\nsysimgguid=0x%s\n", vend, dev, hex(sys)
}
{ line[NR] = $0 }
NR == 1 { fsp = $9 }
END {
	n = NR
	if (lp > 0) {
		nl = int((last - 1) / lp) + 1
		c = int(lp / ns); if (c < 1) c = 1
	} else {
		nl = 1; ns = 0
	}
	for (j = 0; j < nl; j++) {
		sname[j] = sprintf("sim-leaf%02d", j + 1)
		slid[j] = lid0 + j
		sguid[j] = sprintf("0x7cfe9003005a%04x", 7681 + j)
		sports[j] = lp > 0 && lp + ns * c > 36 ? lp + ns * c : 36
	}
	for (s = 0; s < ns; s++) {
		j = nl + s
		sname[j] = sprintf("sim-spine%02d", s + 1)
		slid[j] = lid0 + j
		sguid[j] = sprintf("0x7cfe9003005a%04x", 11777 + s)
		sports[j] = nl * c > 36 ? nl * c : 36
	}
	for (j = 0; j < nl + ns; j++) { sdesc[j] = "MF0;" sname[j] ":" model "/U1"; sj[sname[j]] = j }
	if (lp == 0 && last > 36) sports[0] = last
	# ISLs: leaf j port lp + s * c + k + 1 <-> spine s port j * c + k + 1
	for (j = 0; j < nl; j++)
		for (s = 0; s < ns; s++)
			for (k = 0; k < c; k++) {
				lport = lp + s * c + k + 1; sport = j * c + k + 1
				isl[j, lport] = nl + s; islp[j, lport] = sport
				isl[nl + s, sport] = j; islp[nl + s, sport] = lport
				w = "4X"
				if ((sname[j] "/" lport) in bad || (sname[nl + s] "/" sport) in bad) w = "1X"
				islw[j, lport] = w; islw[nl + s, sport] = w
			}
	# host ports: slot g = 4 * node index + HCA index, on leaf g / lp; a
	# moved one on its new leaf, first free port (after the planned ones)
	for (pass = 0; pass < 2; pass++)
		for (r = 1; r <= n; r++) {
			split(line[r], f, " ")
			if (f[1] == "" || f[7] == 1) continue
			mt = (f[3] " " f[4]) in moveto && moveto[f[3] " " f[4]] in sj
			if (mt != pass) continue
			g = f[1] * 4 + f[2]
			j = lp > 0 ? int(g / lp) : 0
			p = lp > 0 ? g % lp + 1 : g + 1
			if (mt) {
				j = sj[moveto[f[3] " " f[4]]]
				for (p = 1; p <= sports[j] && ((j, p) in host || (j, p) in isl); p++) ;
				if (p > sports[j]) sports[j] = p
			}
			host[j, p] = r; caj[r] = j; cap[r] = p
		}
	if (fmt == "ibnetdiscover") {
		split(from, fr, " ")
		printf "#\n# Topology file: generated on %s\n#\n", now
		printf "# Initiated from node %s port %s\n", hex(fr[1]), hex(fr[2])
		for (j = 0; j < nl + ns; j++) {
			ids("2c9", devid, sguid[j])
			printf "switchguid=%s(%s)\n", sguid[j], hex(sguid[j])
			printf "Switch\t%d \"S-%s\"\t\t# \"%s\" enhanced port 0 lid %d lmc 0\n",
				sports[j], hex(sguid[j]), sdesc[j], slid[j]
			for (p = 1; p <= sports[j]; p++)
				if ((j, p) in host) {
					split(line[host[j, p]], f, " ")
					printf "[%d]\t\"H-%s\"[1](%s) \t\t# \"%s %s\" lid %d %s%s\n", p, hex(f[10]),
						hex(f[6]), f[3], f[4], f[5], lw(f[8]), f[9]
				} else if ((j, p) in isl) {
					o = isl[j, p]
					printf "[%d]\t\"S-%s\"[%d]\t\t# \"%s\" lid %d %s%s\n", p, hex(sguid[o]),
						islp[j, p], sdesc[o], slid[o], lw(islw[j, p]), fsp
				}
		}
		for (r = 1; r <= n; r++) {
			if (!(r in caj)) continue
			split(line[r], f, " ")
			j = caj[r]
			dev = f[12]; sub(/^MT/, "", dev)
			ids("2c9", sprintf("0x%x", dev), f[11])
			printf "caguid=0x%s\n", hex(f[10])
			printf "Ca\t1 \"H-%s\"\t\t# \"%s %s\"\n", hex(f[10]), f[3], f[4]
			printf "[1](%s) \t\"S-%s\"[%d]\t\t# lid %d lmc 0 \"%s\" lid %d %s%s\n", hex(f[6]),
				hex(sguid[j]), cap[r], f[5], sdesc[j], slid[j], lw(f[8]), f[9]
		}
		exit
	}
	for (r = 1; r <= n; r++) {
		if (!(r in caj)) continue
		split(line[r], f, " ")
		printf "CA: %s %s:\n", f[3], f[4]
		printf "      %s%7d%5d[  ] ==(%3s %13s Gbps %s/  LinkUp)==>%8d%5d[  ] \"%s\" ( )\n",
			f[6], f[5], 1, f[8], rate(f[9]), state(f[7]), slid[caj[r]], cap[r], sdesc[caj[r]]
	}
	for (j = 0; j < nl + ns; j++) {
		printf "Switch: %s %s:\n", sguid[j], sdesc[j]
		for (p = 1; p <= sports[j]; p++) {
			if ((j, p) in host) {
				split(line[host[j, p]], f, " ")
				up(slid[j], p, f[8], f[9], state(f[7]), f[5], 1, f[3] " " f[4], " ")
			} else if ((j, p) in isl) {
				o = isl[j, p]
				# iblinkinfo notes a link below what both ends support
				up(slid[j], p, islw[j, p], fsp, sm == "" ? "Initialize" : "Active", slid[o],
				   islp[j, p], sdesc[o], islw[j, p] == "4X" ? " " : "Could be 4X ")
			} else {
				down(slid[j], p)
			}
		}
	}
}'
}
