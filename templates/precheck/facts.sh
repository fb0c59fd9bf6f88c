# facts.sh: gathers in one round trip what precheck and the later stages read.
# Sent on stdin to `sh -s` (nothing of it shows in a process list). Each fact
# is framed by marker lines that engine/facts.c splits on; every tool runs
# under `timeout` so that one hung tool cannot eat the whole command's time.
# BRINGUP_FACTS (space-separated) selects the optional families: ib gpu scale;
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

# First, so that the admin host can pair it with the arrival of these bytes.
fact date date +%s.%N
fact hostname hostname
fact resolve getent hosts "$BRINGUP_NAME"
fact os-release cat /etc/os-release
fact kernel uname -r
fact kernel-devel sh -c 'k=$(uname -r); for d in /usr/src/kernels/$k /lib/modules/$k/build; do [ -e "$d" ] && echo "$d"; done; true'
fact df-tmp df -Pk /tmp
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
fi
if want gpu; then
	fact nvidia-smi-q nvidia-smi -q
	fact nvidia-smi-topo nvidia-smi topo -m
	fact dmesg-gpu sh -c "dmesg 2>/dev/null | grep -E 'NVRM: Xid|peermem|nv_peer_mem' | tail -n 50; true"
fi
if want ib || want gpu; then
	fact lspci lspci -vvv
fi
if want scale; then
	fact mmgetstate mmgetstate -a
	fact mmlsmount mmlsmount all -L
fi
exit 0
