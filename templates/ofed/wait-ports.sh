# ofed stage: waits up to $1 seconds for the InfiniBand ports to train again
# after openibd restarted the stack (they go down for a while). A port is up
# when its physical state is LinkUp: ACTIVE needs a subnet manager, which a
# later stage starts. Prints port=CA/1 STATE PHYSICAL for each port.
end=$(( $(date +%s) + $1 ))
while :; do
	out= down=
	for ca in $(ibstat -l 2>/dev/null); do
		info=$(ibstat "$ca" 1 2>/dev/null)
		echo "$info" | grep -q '^Link layer: InfiniBand' || continue
		st=$(echo "$info" | sed -n 's/^State: //p')
		ph=$(echo "$info" | sed -n 's/^Physical state: //p')
		out="${out}port=$ca/1 $st $ph
"
		[ "$ph" = LinkUp ] || down=1
	done
	[ -z "$down" ] && [ -n "$out" ] && break
	[ "$(date +%s)" -lt "$end" ] || break
	sleep 1
done
printf '%s' "$out"
