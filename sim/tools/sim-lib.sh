#!/bin/sh
# sim-lib.sh: helpers shared by the InfiniBand/OFED/kernel-module stand-ins.
# Sourced, never run. Everything is found through $BRINGUP_SIM_NODE and
# $BRINGUP_SIM_CLUSTER (see notes/sim-contract.md); the node's state is a
# tree of small files so that other scripts and the C tests can read it:
#
#   state/ofed_version          installed MLNX_OFED version (absent: none)
#   state/gpu_driver            GPU driver a runfile installed (sim-nvidia-installer;
#                               absent: node.conf's GPU_DRIVER, the OS image's)
#   state/gpu_driver_loaded     version of the nvidia kernel module running, written
#                               when modprobe loads it (absent: the image's)
#   state/hca/NAME/FIELD        node_guid port_guid sys_guid ca_type fw_ver
#                               board_id part_id cap_mask lid (one value each)
#   state/modules/available     modules present under /lib/modules/KERNEL
#   state/modules/loaded        loaded modules, in load order
#   state/services/UNIT/active  active|inactive|failed (dir exists: installed)
#   state/services/UNIT/enabled enabled|disabled
#   state/selinux state/uname_v state/stash/...
#   state/boot_id state/boot_time  this boot (sim-node-boot renews them)
#   state/reboot-requested      a reboot asked for, not begun (sim-boot)
#   state/ofed_fw_pending       HCA firmware flashed, active after a reboot
#   CLUSTER/fabric/sm/GUID      one running SM: GUID LID PRIORITY NODE ROGUE START
#   CLUSTER/fabric/faults/KIND.NODE  fabric-wide faults raised from NODE

sim_die() { echo "$*" >&2; exit 2; }

# sim_log_start NAME [ARGS...]: one line per installer start in
# N/log/installers.log ("TIME NAME pid=PID ARGS"), so that a test can count
# how many times an installer ran on a node (issue 24: never twice at once,
# never again for work a killed run left done).
sim_log_start() {
	mkdir -p "$N/log" && echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $1 pid=$$${2:+ }$(shift; echo "$*")" \
		>>"$N/log/installers.log"
}

# sim_load: sets N (node dir), C (cluster dir), S (state dir) and sources
# node.conf. Stand-ins call it first.
sim_load() {
	N=${BRINGUP_SIM_NODE:?BRINGUP_SIM_NODE is not set}
	C=${BRINGUP_SIM_CLUSTER:?BRINGUP_SIM_CLUSTER is not set}
	S=$N/state
	[ -r "$N/node.conf" ] || sim_die "sim: $N/node.conf missing"
	. "$N/node.conf"
	# A driver a runfile installed replaces the image's on disk (userspace,
	# module files); the running module stays what was loaded (sim_gpu_kmod_get).
	GPU_DRIVER_IMAGE=${GPU_DRIVER-}
	if [ -f "$S/gpu_driver" ]; then
		sim_read GPU_DRIVER "$S/gpu_driver"
		sim_cuda_of_driver "$GPU_DRIVER"
	fi
	# driver-drift [VER]: this node alone installed and runs another driver
	# of its branch (default MAJOR.54.14), as after a hand-run installer.
	SIM_DRIVER_DRIFT=
	if [ -e "$N/faults/driver-drift" ]; then
		sim_read SIM_DRIVER_DRIFT "$N/faults/driver-drift"
		[ -n "$SIM_DRIVER_DRIFT" ] || SIM_DRIVER_DRIFT=${GPU_DRIVER%%.*}.54.14
		GPU_DRIVER=$SIM_DRIVER_DRIFT
		sim_cuda_of_driver "$GPU_DRIVER"
	fi
	return 0
}

# sim_cuda_of_driver VERSION: CUDA_VERSION = the CUDA version a driver
# branch reports in nvidia-smi's banner (the newest CUDA it runs), from
# NVIDIA's CUDA toolkit release notes ("CUDA Toolkit and Corresponding
# Driver Versions") and the captures (580.126.09: 13.0, 610.43.03: 13.3); a
# branch between two known ones reports the lower one's.
sim_cuda_of_driver() {
	_cd_m=${1%%.*}
	for _cd_e in 610:13.3 580:13.0 575:12.9 570:12.8 565:12.7 560:12.6 555:12.5 550:12.4 \
		545:12.3 535:12.2 530:12.1 525:12.0 520:11.8 515:11.7 510:11.6 495:11.5 470:11.4 \
		465:11.3 460:11.2 455:11.1 450:11.0 440:10.2 418:10.1 410:10.0; do
		[ "$_cd_m" -ge "${_cd_e%%:*}" ] 2>/dev/null || continue
		CUDA_VERSION=${_cd_e#*:}
		return 0
	done
}

# sim_gpu_kmod_get VAR: VAR=the version of the nvidia kernel module loaded
# (or last loaded): what the kernel runs, while GPU_DRIVER is what is installed.
sim_gpu_kmod_get() {
	if [ -n "$SIM_DRIVER_DRIFT" ]; then
		eval "$1=\$SIM_DRIVER_DRIFT"
	elif [ -f "$S/gpu_driver_loaded" ]; then
		sim_read "$1" "$S/gpu_driver_loaded"
	else
		eval "$1=\$GPU_DRIVER_IMAGE"
	fi
}

# The services that hold /dev/nvidia* open while they run: the nvidia module
# cannot be unloaded under them (its use count, not an lsmod holder).
SIM_GPU_USERS="nvidia-persistenced nvidia-dcgm nvidia-fabricmanager"
# sim_gpu_users_get VAR: VAR=those of them active now, space-separated.
sim_gpu_users_get() {
	_g_v=
	for _g_u in $SIM_GPU_USERS; do
		[ -f "$S/services/$_g_u/active" ] || continue
		sim_read _g_a "$S/services/$_g_u/active"
		[ "$_g_a" = active ] && _g_v=${_g_v:+$_g_v }$_g_u
	done
	eval "$1=\$_g_v"
}

sim_fault() { [ -e "$N/faults/$1" ]; }

# A reboot the node asks for: sim-shell, outside the node, hands it to
# sim-boot once the command that asked has ended.
sim_reboot_request() { : >"$S/reboot-requested"; }
sim_fault_arg() { cat "$N/faults/$1" 2>/dev/null; }

# The stand-ins run for every command on a node, so the helpers below avoid
# processes: a fork costs more than all the shell code of a tool. The *_get
# variants set a variable instead of printing, so callers need no $(...).

# sim_date ARGS...: `date ARGS...`, the node's clock as the date stand-in
# reads it, without the stand-in's own shell when all it would do is exec
# /bin/date (no clock-skew fault): one process a reading, not two.
sim_date() {
	if [ -n "${BRINGUP_SIM_NODE:-}" ] && [ -e "$BRINGUP_SIM_NODE/faults/clock-skew" ]; then
		date "$@"
	else
		/bin/date "$@"
	fi
}
# sim_date_get VAR ARGS...: VAR=$(sim_date ARGS...).
sim_date_get() {
	_dg_v=$1
	shift
	_dg_r=$(sim_date "$@")
	eval "$_dg_v=\$_dg_r"
}

# sim_subst_get VAR FROM TO STRING: VAR=$(echo "STRING" | tr FROM TO) for one
# character FROM and TO (neither a newline) and a STRING without backslashes,
# without a process.
sim_subst_get() {
	_s_in=$4 _s_out=
	while :; do
		case $_s_in in
		*"$2"*) _s_out=$_s_out${_s_in%%"$2"*}$3 _s_in=${_s_in#*"$2"};;
		*) break;;
		esac
	done
	eval "$1=\$_s_out\$_s_in"
}

# sim_read VAR FILE: VAR=$(cat FILE 2>/dev/null), without a process.
sim_read() {
	_r_v= _r_l= _r_nl=
	{
		while IFS= read -r _r_l; do
			_r_v=$_r_v$_r_nl$_r_l
			_r_nl='
'
		done
		_r_v=$_r_v$_r_nl$_r_l
	} 2>/dev/null <"$2"
	while :; do
		case $_r_v in
		*'
') _r_v=${_r_v%?};;
		*) break;;
		esac
	done
	eval "$1=\$_r_v"
}
sim_fault_get() { sim_read "$1" "$N/faults/$2"; }

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
sim_hca_get() { sim_read "$1" "$S/hca/$2/$3"; }

# sim_hca_conf HCA: sets LL RATE WIDTH SPEED USE from node.conf's HCA_<name>.
sim_hca_conf() {
	eval "set -- \${HCA_$1-}"
	LL=${1:-InfiniBand} RATE=${2:-100} WIDTH=${3:-4X} SPEED=${4:-EDR}
	USE=${5:-compute}
}

sim_hcas_sorted() { for h in $HCAS; do echo "$h"; done | LC_ALL=C sort; }

# sim_hcas_sorted_get VAR: VAR=$(sim_hcas_sorted). Names that differ only in
# an ascending last digit (mlx5_0 ... mlx5_9, every profile) are in order
# already; anything else goes through sort.
sim_hcas_sorted_get() {
	_s_v= _s_pre= _s_d=
	for _s_h in $HCAS; do
		case $_s_h in *[!0-9][0-9]) ;; *) _s_v=; break;; esac
		if [ -n "$_s_v" ]; then
			[ "${_s_h%?}" = "$_s_pre" ] && [ "${_s_h#"$_s_pre"}" -gt "$_s_d" ] ||
				{ _s_v=; break; }
		fi
		_s_pre=${_s_h%?} _s_d=${_s_h#"${_s_h%?}"}
		_s_v=${_s_v:+$_s_v
}$_s_h
	done
	[ -n "$_s_v" ] || [ -z "$HCAS" ] || _s_v=$(sim_hcas_sorted)
	eval "$1=\$_s_v"
}

# First InfiniBand HCA of the node: where the SM binds and sminfo asks.
sim_first_ib() {
	for h in $HCAS; do
		sim_hca_conf "$h"
		[ "$LL" = InfiniBand ] && { echo "$h"; return 0; }
	done
	return 1
}

# sim_first_ib_get VAR: VAR=$(sim_first_ib), status the same; leaves LL
# and the other sim_hca_conf variables alone.
sim_first_ib_get() {
	_f_var=$1
	eval "$_f_var="
	for _f_h in $HCAS; do
		eval "set -- \${HCA_$_f_h-}"
		[ "${1:-InfiniBand}" = InfiniBand ] && { eval "$_f_var=\$_f_h"; return 0; }
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
	# A tool that reads many ports at once (iblinkinfo) lists the registry
	# once: SIM_SM_LIST_CACHE set (even empty) is that list.
	if [ -n "${SIM_SM_LIST_CACHE+x}" ]; then
		[ -z "$SIM_SM_LIST_CACHE" ] || printf '%s\n' "$SIM_SM_LIST_CACHE"
		return 0
	fi
	ls "$C"/fabric/faults/no-sm.* >/dev/null 2>&1 && return 0
	# Fields read by the shell, not one sed per field: every port of every
	# tool asks this while two masters run (each fork counts on 2 cores).
	for f in "$C"/fabric/sm/*; do
		[ -f "$f" ] || continue
		_l_g= _l_l= _l_p= _l_n= _l_r=
		while IFS= read -r _l_x || [ -n "$_l_x" ]; do
			case $_l_x in
			GUID=*) _l_g=${_l_x#GUID=};;
			LID=*) _l_l=${_l_x#LID=};;
			PRIORITY=*) _l_p=${_l_x#PRIORITY=};;
			NODE=*) _l_n=${_l_x#NODE=};;
			ROGUE=*) _l_r=${_l_x#ROGUE=};;
			esac
		done <"$f"
		echo "$_l_p $_l_g $_l_l ${_l_r:-0} $_l_n"
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

# sim_sm_scan: the registry read without processes when it holds exactly
# one well-formed SM (the usual fabric). Status 0: SM_FILE SM_GUID SM_LID
# SM_PRIO SM_NODE SM_ROGUE SM_START are set, and sim_sm_list would print the
# one line "SM_GUID SM_LID SM_PRIO 3 SM_NODE SM_ROGUE"; 1: it prints
# nothing (no SM, or no-sm); 2: anything else, ask sim_sm_list.
sim_sm_scan() {
	for _q_f in "$C"/fabric/faults/no-sm.*; do
		[ -e "$_q_f" ] || [ -L "$_q_f" ] && return 1
	done
	_q_n=0
	for _q_f in "$C"/fabric/sm/*; do
		[ -f "$_q_f" ] || continue
		_q_n=$((_q_n + 1)) SM_FILE=$_q_f
	done
	[ "$_q_n" = 0 ] && return 1
	[ "$_q_n" = 1 ] || return 2
	SM_GUID= SM_LID= SM_PRIO= SM_NODE= SM_ROGUE= SM_START= _q_k=
	while IFS= read -r _q_l || [ -n "$_q_l" ]; do
		case $_q_l in
		GUID=*) SM_GUID=${_q_l#*=} _q_k=${_q_k}G;;
		LID=*) SM_LID=${_q_l#*=} _q_k=${_q_k}L;;
		PRIORITY=*) SM_PRIO=${_q_l#*=} _q_k=${_q_k}P;;
		NODE=*) SM_NODE=${_q_l#*=} _q_k=${_q_k}N;;
		ROGUE=*) SM_ROGUE=${_q_l#*=} _q_k=${_q_k}R;;
		START=*) SM_START=${_q_l#*=} _q_k=${_q_k}S;;
		esac
	done <"$SM_FILE"
	case $_q_k in *G*G* | *L*L* | *P*P* | *N*N* | *R*R* | *S*S*) return 2;; esac
	for _q_f in "$SM_GUID" "$SM_LID" "$SM_PRIO" "$SM_NODE"; do
		case $_q_f in '' | *[' 	']*) return 2;; esac
	done
	case $SM_ROGUE in '' | 0 | 1) ;; *) return 2;; esac
	SM_ROGUE=${SM_ROGUE:-0}
	return 0
}

# sim_sm_lid_get VAR: VAR=$(sim_sm_lid).
sim_sm_lid_get() {
	sim_sm_scan
	case $? in
	0)
		if [ "$SM_ROGUE" != 1 ] || [ "$SM_NODE" = "$NODE_NAME" ]; then
			eval "$1=\$SM_LID"
		else
			eval "$1="
		fi;;
	1) eval "$1=";;
	*) eval "$1=\$(sim_sm_lid)";;
	esac
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
	sim_hca_get P_GUID "$1" port_guid
	sim_hca_get P_CAP "$1" cap_mask
	P_STATE=4 P_PHYS=5 P_LID=0 P_SMLID=0
	if sim_port_is_down "$1" "${2:-1}"; then
		P_STATE=1
		sim_fault_get _p_arg port-down
		case $_p_arg in
		*:polling) P_PHYS=2;; *) P_PHYS=3;;
		esac
		[ "$LL" = InfiniBand ] || return 0
		P_RATE=10 P_WIDTH=4X P_SPEED=SDR P_LID=65535
		return 0
	fi
	if sim_port_training; then
		P_STATE=1 P_PHYS=2
		[ "$LL" = InfiniBand ] && P_RATE=10 P_WIDTH=4X P_SPEED=SDR P_LID=65535
		return 0
	fi
	sim_port_degrade "$1"
	[ "$LL" = InfiniBand ] || return 0
	sim_sm_lid_get P_SMLID
	if [ -z "$P_SMLID" ]; then
		P_STATE=2 P_SMLID=0 P_LID=65535
	else
		sim_hca_get P_LID "$1" lid
	fi
	sim_port_runs_sm "$P_GUID" &&
		sim_hex8 P_CAP $((P_CAP | 2))
	return 0
}

# sim_hex8 VAR N: VAR=$(printf '0x%08x' N).
sim_hex8() {
	_x_n=$2 _x_s=
	if [ "$_x_n" -lt 0 ] || [ "$_x_n" -gt 4294967295 ]; then
		eval "$1=\$(printf '0x%08x' \"\$_x_n\")"
		return
	fi
	for _x_i in 1 2 3 4 5 6 7 8; do
		case $((_x_n % 16)) in
		10) _x_d=a;; 11) _x_d=b;; 12) _x_d=c;; 13) _x_d=d;; 14) _x_d=e;; 15) _x_d=f;;
		*) _x_d=$((_x_n % 16));;
		esac
		_x_s=$_x_d$_x_s _x_n=$((_x_n / 16))
	done
	eval "$1=0x\$_x_s"
}

# After an openibd (re)start every port polls until state/links_up_at; the
# file goes once that time has passed, so the common case costs no process.
sim_port_training() {
	[ -s "$S/links_up_at" ] || return 1
	sim_read _t_at "$S/links_up_at"
	sim_date_get _t_now +%s
	[ "$_t_now" -lt "$_t_at" ] && return 0
	rm -f "$S/links_up_at"
	return 1
}

# port-down ARG: HCA[/PORT][:polling]; default the first HCA, port 1.
sim_port_is_down() {
	sim_fault port-down || return 1
	sim_fault_get arg port-down
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
	sim_fault_get arg link-degraded
	hca=${arg%%:*}
	[ -n "$hca" ] || sim_first_ib_get hca
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
	sim_date_get _sr_now +%s
	mkdir -p "$C/fabric/sm"
	printf 'GUID=%s\nLID=%s\nPRIORITY=%s\nNODE=%s\nROGUE=0\nSTART=%s\n' \
		"$guid" "$(sim_hca "$hca" lid)" "${prio:-0}" "$NODE_NAME" "$_sr_now" \
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
	[ -f "$C/fabric/sm/$1" ] || return 1
	_u_v= _u_k=
	while IFS= read -r _u_l || [ -n "$_u_l" ]; do
		case $_u_l in ROGUE=*) _u_v=${_u_l#ROGUE=} _u_k=$_u_k.;; esac
	done <"$C/fabric/sm/$1"
	case $_u_k in
	..*) [ "$(sim_sm_field "$C/fabric/sm/$1" ROGUE)" != 1 ];;
	*) [ "$_u_v" != 1 ];;
	esac
}

# --- kernel modules ----------------------------------------------------------

# name size depends (comma list). Holders are printed in the order of this
# table, which reproduces the order of the lsmod fixtures.
SIM_MODDB='rdma_cm 59555 ib_core,ib_cm,iw_cm
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
nouveau 1896005 -'
sim_peermem_hidden() { sim_fault module-missing || sim_fault peermem-bad-symbols; }

# sim_mod_deps_get VAR MODULE: VAR=MODULE's dependencies, blank-separated,
# read in the shell (openibd's start loads ten modules and their
# dependencies: a process per lookup added up).
sim_mod_deps_get() {
	_d_rest="$SIM_MODDB
" _d_v=
	while [ -n "$_d_rest" ]; do
		_d_line=${_d_rest%%"
"*}
		_d_rest=${_d_rest#*"
"}
		case $_d_line in "$2 "*) ;; *) continue;; esac
		_d_v=${_d_line#* } _d_v=${_d_v#* }
		[ "$_d_v" = - ] && _d_v=
		_d_rest=$_d_v _d_v=
		while [ -n "$_d_rest" ]; do
			_d_v="$_d_v ${_d_rest%%,*}"
			case $_d_rest in *,*) _d_rest=${_d_rest#*,};; *) _d_rest=;; esac
		done
		_d_v=${_d_v# }
		break
	done
	eval "$1=\$_d_v"
}
sim_mod_deps() { sim_mod_deps_get _dp_v "$1"; echo "$_dp_v"; }
# sim_mod_name_get VAR NAME: VAR=NAME with '-' as '_' (kmod takes both).
sim_mod_name_get() {
	_n_in=$2 _n_out=
	while :; do
		case $_n_in in
		*-*) _n_out=$_n_out${_n_in%%-*}_ _n_in=${_n_in#*-};;
		*) break;;
		esac
	done
	eval "$1=\$_n_out\$_n_in"
}

# Loaded modules as the tools see them: faults hide the peer memory module
# (module-missing; peermem-bad-symbols: it cannot load) and add nouveau
# without touching state/modules/loaded.
sim_mods_loaded() {
	while read -r m; do
		[ "$m" = "$PEERMEM_MODULE" ] && sim_peermem_hidden && continue
		echo "$m"
	done <"$S/modules/loaded" 2>/dev/null
	sim_fault nouveau-loaded && ! grep -qx nouveau "$S/modules/loaded" 2>/dev/null &&
		echo nouveau
	return 0
}
# sim_mods_loaded_get VAR: VAR=what sim_mods_loaded prints (a line each).
sim_mods_loaded_get() {
	_l_v=
	while read -r _l_m; do
		[ "$_l_m" = "$PEERMEM_MODULE" ] && sim_peermem_hidden && continue
		_l_v=$_l_v$_l_m'
'
	done <"$S/modules/loaded" 2>/dev/null
	sim_fault nouveau-loaded && ! grep -qx nouveau "$S/modules/loaded" 2>/dev/null &&
		_l_v=${_l_v}nouveau'
'
	eval "$1=\$_l_v"
}
sim_mod_is_loaded() {
	case $1 in '' | *[!A-Za-z0-9_]*) sim_mods_loaded | grep -qx "$1"; return;; esac
	sim_mods_loaded_get _i_l
	case "
$_i_l" in *"
$1
"*) return 0;; esac
	return 1
}
sim_mod_available() {
	[ "$1" = "$PEERMEM_MODULE" ] && sim_fault module-missing && return 1
	while read -r _a_m; do
		[ "$_a_m" = "$1" ] && return 0
	done <"$S/modules/available" 2>/dev/null
	return 1
}

# sim_mod_holders_in LOADED MODULE: sets MOD_HOLDERS to what
# sim_mod_holders MODULE prints, LOADED being sim_mods_loaded_get's list
# (MODULE a plain name); MOD_SIZE to its size in the table (empty: none).
sim_mod_holders_in() {
	MOD_HOLDERS= MOD_SIZE= _h_rest="$SIM_MODDB
"
	while [ -n "$_h_rest" ]; do
		_h_name=${_h_rest%%"
"*}
		_h_rest=${_h_rest#*"
"}
		_h_deps=${_h_name#* } _h_name=${_h_name%% *}
		_h_size=${_h_deps%% *} _h_deps=${_h_deps#* }
		[ "$_h_name" = "$2" ] && [ -z "$MOD_SIZE" ] && MOD_SIZE=$_h_size
		case ",$_h_deps," in *",$2,"*) ;; *) continue;; esac
		case "
$1" in *"
$_h_name
"*) MOD_HOLDERS=${MOD_HOLDERS:+$MOD_HOLDERS,}$_h_name;; esac
	done
}

# Holders of a module, comma-separated, in table order.
sim_mod_holders() {
	sim_mods_loaded_get _ho_l
	sim_mod_holders_in "$_ho_l" "$1"
	echo "$MOD_HOLDERS"
}

# --- memory lock ---------------------------------------------------------

# Effective `ulimit -l` of a login on this node, in kB or "unlimited"
# (perftest stand-ins use it to fail registration like the real one).
sim_memlock() {
	pam=$(dirname "$0")/sim-pam-limits
	[ -x "$pam" ] || pam=sim-pam-limits
	if sim_fault memlock-limited; then echo 64; else _m_l=$("$pam"); echo "${_m_l%% *}"; fi
}
