# sim-gpu-lib.sh: helpers shared by the GPU, GPFS and benchmark stand-ins
# (nvidia-smi, lspci, dmesg, mm*, ib_write_bw, all_reduce_perf,
# tf_cnn_benchmarks). Sourced, never run. Everything is found through
# $BRINGUP_SIM_NODE (node.conf, state/, faults/) and $BRINGUP_SIM_CLUSTER,
# through sim-lib.sh (the IB stand-ins' helpers), which this file sources.
#
# State written by sim-init-gpu (one file per GPU, shell-sourceable):
#   state/gpu/N.conf   BUS SERIAL UUID SOCKET GEN_MAX GEN_CUR WIDTH_MAX
#                      WIDTH_CUR REMAP_CORR REMAP_UNCORR REMAP_PENDING
#                      REMAP_FAILURE PERSISTENCE
#   state/gpu/hcas     "name bus gen width socket" per HCA, for lspci/topo
# Faults are applied when printing, never written into state, so that
# `sim-fault clear` restores the node.

case $0 in */*) SIM_BIN=${0%/*};; *) SIM_BIN=.;; esac
. "$SIM_BIN/sim-lib.sh"

# sim_load_node: sim_load (node.conf, $N $C $S) plus the names used here.
sim_load_node() {
	sim_load
	SIM_STATE=$S
	SIM_FAULTS=$N/faults
}

# sim_fault_word KIND N DEFAULT: Nth word of the fault's argument, or DEFAULT.
sim_fault_word() {
	_w=$(awk -v n="$2" '{ for (i = 1; i <= NF; i++) w[++c] = $i }
		END { if (n <= c) print w[n] }' "$SIM_FAULTS/$1" 2>/dev/null)
	[ -n "$_w" ] && echo "$_w" || echo "$3"
}

# gpu_model MODEL: sets the per-model facts the tools print or derive from.
gpu_model() {
	case $1 in
	*V100*)
		G_ARCH=Volta G_BRAND=Tesla G_GEN=3 G_PWR=300 G_MIG=N/A
		G_DEVID=0x1DB510DE G_SUBSYS=0x124910DE G_PCIID=1db5
		G_LSPCI="NVIDIA Corporation GV100GL [Tesla V100 SXM2 32GB] (rev a1)"
		G_MEM=32510 G_BANKS=0 G_NVLINK=v100 G_BUSBW=130 G_IMGS=360
		G_BUSES="06 07 0A 0B 85 86 89 8A" G_HCABUS="05 0C 84 8B"
		G_AFF0=0-19,40-59 G_AFF1=20-39,60-79
		case $1 in *16GB*) G_MEM=16160 G_DEVID=0x1DB110DE G_PCIID=1db1
			G_LSPCI="NVIDIA Corporation GV100GL [Tesla V100 SXM2 16GB] (rev a1)";;
		esac;;
	*A100*)
		G_ARCH=Ampere G_BRAND=NVIDIA G_GEN=4 G_PWR=400 G_MIG=Disabled
		G_DEVID=0x20B010DE G_SUBSYS=0x134F10DE G_PCIID=20b0
		G_LSPCI="NVIDIA Corporation GA100 [A100 SXM4 40GB] (rev a1)"
		G_MEM=40536 G_BANKS=640 G_NVLINK=NV12 G_BUSBW=230 G_IMGS=780
		G_BUSES="07 0F 47 4E 87 90 B7 BD" G_HCABUS="0C 12 4B 54 8D 94 BA CC"
		G_AFF0=0-63,128-191 G_AFF1=64-127,192-255
		case $1 in *80GB*) G_MEM=81920 G_DEVID=0x20B210DE G_PCIID=20b2
			G_LSPCI="NVIDIA Corporation GA100 [A100 SXM4 80GB] (rev a1)";;
		esac;;
	*H100*)
		G_ARCH=Hopper G_BRAND=NVIDIA G_GEN=5 G_PWR=700 G_MIG=Disabled
		G_DEVID=0x233010DE G_SUBSYS=0x16C110DE G_PCIID=2330
		G_LSPCI="NVIDIA Corporation Device 2330 (rev a1)"
		G_MEM=81559 G_BANKS=2560 G_NVLINK=NV18 G_BUSBW=480 G_IMGS=1400
		G_BUSES="19 3B 4C 5D 9B BB CB DB" G_HCABUS="1A 3C 4D 5E 9C BC CC DC"
		G_AFF0=0-55,112-167 G_AFF1=56-111,168-223;;
	*)
		# unknown model: a V100-like board under a generic name
		gpu_model V100
		G_LSPCI="NVIDIA Corporation Device 1db5 (rev a1)"
		G_NVLINK=NV1 G_BUSBW=100 G_IMGS=300;;
	esac
}

# driver_major: the major number of GPU_DRIVER (e.g. 450 for 450.80.02).
driver_major() {
	echo "${GPU_DRIVER%%.*}"
}

# gen_speed GEN: PCIe link speed string as lspci prints it.
gen_speed() {
	case $1 in
	1) echo 2.5GT/s;; 2) echo 5GT/s;; 3) echo 8GT/s;; 4) echo 16GT/s;;
	*) echo 32GT/s;;
	esac
}

# gpu_load I: sources state/gpu/I.conf and applies this GPU's faults:
# sets THROTTLE (Active|Not Active) and the effective PCIe link.
gpu_load() {
	[ -f "$SIM_STATE/gpu/$1.conf" ] || return 1
	PERSISTENCE=Enabled
	. "$SIM_STATE/gpu/$1.conf"
	THROTTLE="Not Active"
	if sim_fault gpu-throttle && [ "$(sim_fault_word gpu-throttle 1 0)" = "$1" ]; then
		THROTTLE=Active
	fi
	if sim_fault row-remap-pending && [ "$(sim_fault_word row-remap-pending 1 0)" = "$1" ]; then
		REMAP_PENDING=Yes
		REMAP_UNCORR=$((REMAP_UNCORR + 1))
	fi
	if sim_fault pcie-degraded && [ "$(sim_fault_word pcie-degraded 1 0)" = "$1" ]; then
		GEN_CUR=$((GEN_MAX - 1))
		WIDTH_CUR=$((WIDTH_MAX / 2))
	fi
	return 0
}

# gpu_count: number of GPUs this node really has (state, not node.conf).
gpu_count() {
	_n=0
	while [ -f "$SIM_STATE/gpu/$_n.conf" ]; do _n=$((_n + 1)); done
	echo "$_n"
}

# gpu_count_get VAR: VAR=$(gpu_count), without a process.
gpu_count_get() {
	_gc_n=0
	while [ -f "$SIM_STATE/gpu/$_gc_n.conf" ]; do _gc_n=$((_gc_n + 1)); done
	eval "$1=\$_gc_n"
}

# hex_case VAR STRING lower|upper: VAR=$(echo STRING | tr 'A-F' 'a-f')
# (or 'a-f' 'A-F'), for the short bus numbers, without a process.
hex_case() {
	_hc_s=$2 _hc_r=
	while [ -n "$_hc_s" ]; do
		_hc_c=${_hc_s%"${_hc_s#?}"}
		_hc_s=${_hc_s#?}
		case $3$_hc_c in
		lowerA) _hc_c=a;; lowerB) _hc_c=b;; lowerC) _hc_c=c;;
		lowerD) _hc_c=d;; lowerE) _hc_c=e;; lowerF) _hc_c=f;;
		uppera) _hc_c=A;; upperb) _hc_c=B;; upperc) _hc_c=C;;
		upperd) _hc_c=D;; uppere) _hc_c=E;; upperf) _hc_c=F;;
		esac
		_hc_r=$_hc_r$_hc_c
	done
	eval "$1=\$_hc_r"
}

# comma_split VAR STRING: VAR=$(echo STRING | tr ',' ' ') for a one-line
# STRING, without a process.
comma_split() {
	_cs_s=$2 _cs_r=
	while :; do
		case $_cs_s in
		*,*) _cs_r="$_cs_r${_cs_s%%,*} " _cs_s=${_cs_s#*,};;
		*) _cs_r=$_cs_r$_cs_s; break;;
		esac
	done
	eval "$1=\$_cs_r"
}

# gpu_slowest_factor N: speed factor of the slowest of the first N GPUs
# (collectives and synchronous training run at the pace of the slowest).
gpu_slowest_factor() {
	_f=100
	_i=0
	while [ "$_i" -lt "$1" ]; do
		gpu_load "$_i" && [ "$THROTTLE" = Active ] && _f=45
		_i=$((_i + 1))
	done
	echo "$_f"
}
