#!/bin/sh
# sim-lib.sh: helpers shared by the InfiniBand/OFED/kernel-module stand-ins.
# Sourced, never run. Everything is found through $BRINGUP_SIM_NODE and
# $BRINGUP_SIM_CLUSTER (see notes/sim-contract.md); the node's state is a
# tree of small files so that other scripts and the C tests can read it:
#
#   state/ofed_version          installed MLNX_OFED version (absent: none)
#   state/hca/NAME/FIELD        node_guid port_guid sys_guid ca_type fw_ver
#                               board_id part_id cap_mask lid (one value each)
#   state/modules/available     modules present under /lib/modules/KERNEL
#   state/modules/loaded        loaded modules, in load order
#   state/services/UNIT/active  active|inactive|failed (dir exists: installed)
#   state/services/UNIT/enabled enabled|disabled
#   state/selinux state/uname_v state/stash/...
#   CLUSTER/fabric/sm/GUID      one running SM: GUID LID PRIORITY NODE ROGUE START
#   CLUSTER/fabric/faults/KIND.NODE  fabric-wide faults raised from NODE

sim_die() { echo "$*" >&2; exit 2; }

# sim_load: sets N (node dir), C (cluster dir), S (state dir) and sources
# node.conf. Stand-ins call it first.
sim_load() {
	N=${BRINGUP_SIM_NODE:?BRINGUP_SIM_NODE is not set}
	C=${BRINGUP_SIM_CLUSTER:?BRINGUP_SIM_CLUSTER is not set}
	S=$N/state
	[ -r "$N/node.conf" ] || sim_die "sim: $N/node.conf missing"
	. "$N/node.conf"
}

sim_fault() { [ -e "$N/faults/$1" ]; }
sim_fault_arg() { cat "$N/faults/$1" 2>/dev/null; }

# Userland of an EL7-era OS (bash 4.2, kmod 20) words some things older.
sim_old_userland() {
	case $OS_ID/$OS_VERSION_ID in rhel/7*|centos/7*|ubuntu/1[0-9].*) return 0;; esac
	return 1
}

# The real tools are simply absent when the package is not installed; the
# login shell running the command says so (bash >= 5.1 adds "line 1:").
sim_not_installed() {
	if sim_old_userland; then
		echo "bash: $1: command not found" >&2
	else
		echo "bash: line 1: $1: command not found" >&2
	fi
	exit 127
}
sim_have_ofed() { [ -s "$S/ofed_version" ]; }
sim_require_ofed() { sim_have_ofed || sim_not_installed "$1"; }

# Exclusive lock on the cluster state around a read-modify-write.
sim_locked() {
	mkdir -p "$C"
	(flock 9 && "$@") 9>"$C/.lock"
}

sim_hca() { cat "$S/hca/$1/$2" 2>/dev/null; }

# sim_hca_conf HCA: sets LL RATE WIDTH SPEED USE from node.conf's HCA_<name>.
sim_hca_conf() {
	eval "set -- \${HCA_$1-}"
	LL=${1:-InfiniBand} RATE=${2:-100} WIDTH=${3:-4X} SPEED=${4:-EDR}
	USE=${5:-compute}
}

sim_hcas_sorted() { for h in $HCAS; do echo "$h"; done | LC_ALL=C sort; }

# First InfiniBand HCA of the node: where the SM binds and sminfo asks.
sim_first_ib() {
	for h in $HCAS; do
		sim_hca_conf "$h"
		[ "$LL" = InfiniBand ] && { echo "$h"; return 0; }
	done
	return 1
}

# Per-lane rate of an IB speed; 4X of it is the port rate.
sim_lane_rate() {
	case $1 in
	SDR) echo 2.5;; DDR) echo 5;; QDR|FDR10) echo 10;; FDR) echo 14;;
	EDR) echo 25;; HDR) echo 50;; NDR) echo 100;; XDR) echo 200;; *) echo 25;;
	esac
}
sim_speed_below() {
	case $1 in
	XDR) echo NDR;; NDR) echo HDR;; HDR) echo EDR;; EDR) echo FDR;;
	FDR|FDR10) echo QDR;; QDR) echo DDR;; *) echo SDR;;
	esac
}

# --- fabric (cluster-wide subnet manager state) ----------------------------

sim_sm_field() { sed -n "s/^$2=//p" "$1"; }

# Prints "GUID LID PRIORITY STATE NODE ROGUE" for every registered SM. STATE is 3
# (master) for the elected one (highest priority, then lowest GUID) and for
# rogue masters, 2 (standby) for the rest. Nothing while a no-sm fault holds.
sim_sm_list() {
	ls "$C"/fabric/faults/no-sm.* >/dev/null 2>&1 && return 0
	for f in "$C"/fabric/sm/*; do
		[ -f "$f" ] || continue
		rogue=$(sim_sm_field "$f" ROGUE)
		echo "$(sim_sm_field "$f" PRIORITY) $(sim_sm_field "$f" GUID)" \
		     "$(sim_sm_field "$f" LID) ${rogue:-0} $(sim_sm_field "$f" NODE)"
	done | LC_ALL=C sort -k4,4n -k1,1nr -k2,2 | {
		elected=
		while read -r prio guid lid rogue node; do
			state=2
			if [ "$rogue" = 1 ]; then
				state=3
			elif [ -z "$elected" ]; then
				state=3 elected=1
			fi
			echo "$guid $lid $prio $state $node $rogue"
		done
	}
}

# LID of the master SM this node's ports follow (a rogue master raised from
# this node wins here), or nothing when the fabric has no master.
sim_sm_lid() {
	sim_sm_list | awk -v n="$NODE_NAME" '
		$6 == 1 && $5 == n { rogue = $2 }
		$4 == 3 && $6 != 1 && master == "" { master = $2 }
		END { print (rogue != "" ? rogue : master) }'
}

# --- ports -----------------------------------------------------------------

# sim_port HCA [PORT]: computes the port as the tools see it now, from
# node.conf, state/ and faults/. Sets P_STATE (1 down, 2 init, 4 active),
# P_PHYS (2 polling, 3 disabled, 5 linkup), P_RATE P_WIDTH P_SPEED P_LID
# P_SMLID P_LL P_GUID P_CAP.
sim_port() {
	sim_hca_conf "$1"
	P_LL=$LL P_WIDTH=$WIDTH P_SPEED=$SPEED P_RATE=$RATE
	P_GUID=$(sim_hca "$1" port_guid)
	P_CAP=$(sim_hca "$1" cap_mask)
	P_STATE=4 P_PHYS=5 P_LID=0 P_SMLID=0
	if sim_port_is_down "$1" "${2:-1}"; then
		P_STATE=1
		case $(sim_fault_arg port-down) in
		*:polling) P_PHYS=2;; *) P_PHYS=3;;
		esac
		[ "$LL" = InfiniBand ] || return 0
		P_RATE=10 P_WIDTH=4X P_SPEED=SDR P_LID=65535
		return 0
	fi
	sim_port_degrade "$1"
	[ "$LL" = InfiniBand ] || return 0
	P_SMLID=$(sim_sm_lid)
	if [ -z "$P_SMLID" ]; then
		P_STATE=2 P_SMLID=0 P_LID=65535
	else
		P_LID=$(sim_hca "$1" lid)
	fi
	sim_port_runs_sm "$P_GUID" &&
		P_CAP=$(printf '0x%08x' $((P_CAP | 2)))
	return 0
}

# port-down ARG: HCA[/PORT][:polling]; default the first HCA, port 1.
sim_port_is_down() {
	sim_fault port-down || return 1
	arg=$(sim_fault_arg port-down)
	arg=${arg%%:*}
	hca=${arg%%/*}
	[ -n "$hca" ] || hca=${HCAS%% *}
	port=1
	case $arg in */*) port=${arg#*/};; esac
	[ "$hca" = "$1" ] && [ "$port" = "$2" ]
}

# link-degraded ARG: HCA[:width|:speed]; default the first IB HCA trained
# at 1X (EDR 100 -> 25 Gb/sec (1X EDR)); `speed` drops one generation at 4X
# instead (EDR -> 56 Gb/sec (4X FDR)).
sim_port_degrade() {
	sim_fault link-degraded || return 0
	arg=$(sim_fault_arg link-degraded)
	hca=${arg%%:*}
	[ -n "$hca" ] || hca=$(sim_first_ib)
	[ "$hca" = "$1" ] || return 0
	case $arg in
	*:speed)
		P_SPEED=$(sim_speed_below "$SPEED")
		P_RATE=$(( ${WIDTH%X} * $(sim_lane_rate "$P_SPEED") ))
		;;
	*)
		P_WIDTH=1X
		P_RATE=$(sim_lane_rate "$SPEED")
		;;
	esac
}

# sim_sm_register [PRIORITY]: records this node's opensm as a running SM
# bound to the first InfiniBand port; priority default from the node's
# /etc/opensm/opensm.conf, else 0 like opensm.
sim_sm_register() {
	hca=$(sim_first_ib) || return 1
	conf=$N/root/etc/opensm/opensm.conf
	prio=$(sed -n 's/^[[:space:]]*sm_priority[[:space:]]*\([0-9]*\).*/\1/p' "$conf" 2>/dev/null | tail -n 1)
	[ -n "${1-}" ] && prio=$1
	guid=$(sim_hca "$hca" port_guid)
	mkdir -p "$C/fabric/sm"
	printf 'GUID=%s\nLID=%s\nPRIORITY=%s\nNODE=%s\nROGUE=0\nSTART=%s\n' \
		"$guid" "$(sim_hca "$hca" lid)" "${prio:-0}" "$NODE_NAME" "$(date +%s)" \
		>"$C/fabric/sm/$guid.tmp" && mv "$C/fabric/sm/$guid.tmp" "$C/fabric/sm/$guid"
}

# sim_sm_unregister [ROGUE]: drops the SMs this node runs (ROGUE=1: the
# rogue master a two-sm-masters fault raised from it).
sim_sm_unregister() {
	for f in "$C"/fabric/sm/*; do
		[ -f "$f" ] || continue
		[ "$(sim_sm_field "$f" NODE)" = "$NODE_NAME" ] || continue
		[ "$(sim_sm_field "$f" ROGUE)" = "${1:-0}" ] && rm -f "$f"
	done
	return 0
}

sim_port_runs_sm() {
	[ -f "$C/fabric/sm/$1" ] && [ "$(sim_sm_field "$C/fabric/sm/$1" ROGUE)" != 1 ]
}

# --- kernel modules ----------------------------------------------------------

# name size depends (comma list). Holders are printed in the order of this
# table, which reproduces the order of the lsmod fixtures.
sim_moddb() {
	cat <<'EOF'
rdma_cm 59555 ib_core,ib_cm,iw_cm
ib_cm 53141 ib_core
iw_cm 43918 ib_core
nv_peer_mem 13163 ib_core,nvidia
nvidia_modeset 1109636 nvidia
mlx5_ib 314512 ib_core,mlx5_core,ib_uverbs
ib_umad 27744 ib_core
nvidia_peermem 13163 ib_core,nvidia
nvidia_uvm 939731 nvidia
ib_uverbs 102208 ib_core
rdma_ucm 26837 ib_core,rdma_cm,ib_uverbs
ib_ipoib 168064 ib_core
ib_core 368807 mlx_compat
mlx5_core 1068540 mlx_compat,mlxfw,devlink
mlxfw 18227 -
devlink 60067 -
mlx_compat 47479 -
nvidia 19893032 -
nouveau 1896005 -
EOF
}

sim_mod_deps() { sim_moddb | awk -v m="$1" '$1 == m { gsub(/-/, "", $3); gsub(/,/, " ", $3); print $3 }'; }

# Loaded modules as the tools see them: faults hide the peer memory module
# and add nouveau without touching state/modules/loaded.
sim_mods_loaded() {
	while read -r m; do
		[ "$m" = "$PEERMEM_MODULE" ] && sim_fault module-missing && continue
		echo "$m"
	done <"$S/modules/loaded" 2>/dev/null
	sim_fault nouveau-loaded && ! grep -qx nouveau "$S/modules/loaded" 2>/dev/null &&
		echo nouveau
	return 0
}
sim_mod_is_loaded() { sim_mods_loaded | grep -qx "$1"; }
sim_mod_available() {
	[ "$1" = "$PEERMEM_MODULE" ] && sim_fault module-missing && return 1
	grep -qx "$1" "$S/modules/available" 2>/dev/null
}

# Holders of a module, comma-separated, in table order.
sim_mod_holders() {
	loaded=$(sim_mods_loaded)
	sim_moddb | while read -r name size deps; do
		case ",$deps," in *",$1,"*) ;; *) continue;; esac
		echo "$loaded" | grep -qx "$name" && echo "$name"
	done | paste -sd, -
}

# --- memory lock ---------------------------------------------------------

# Effective `ulimit -l` of a login on this node, in kB or "unlimited"
# (perftest stand-ins use it to fail registration like the real one).
sim_memlock() {
	pam=$(dirname "$0")/sim-pam-limits
	[ -x "$pam" ] || pam=sim-pam-limits
	if sim_fault memlock-limited; then echo 64; else "$pam" | cut -d' ' -f1; fi
}
