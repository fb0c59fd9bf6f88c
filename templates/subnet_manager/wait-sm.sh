# subnet_manager stage: waits up to $1 seconds for the fabric to settle
# after (re)starting opensm: a master answering sminfo and every
# InfiniBand port of this host ACTIVE. Prints what it last saw, in the
# format of state.sh.
end=$(( $(date +%s) + $1 ))
while :; do
	s=$(sminfo 2>&1 | tail -n 1)
	down=
	for ca in $(ibstat -l 2>/dev/null); do
		info=$(ibstat "$ca" 1 2>/dev/null)
		echo "$info" | grep -q '^Link layer: InfiniBand' || continue
		echo "$info" | grep -q '^State: Active' || down="$down $ca/1"
	done
	case $s in *"sm guid"*) [ -z "$down" ] && break;; esac
	[ "$(date +%s)" -lt "$end" ] || break
	sleep 1
done
echo "sminfo=$s"
echo "down=${down# }"
