# subnet_manager stage: the SM side of this host and what its ports see.
# Prints opensm=yes|no (installed), active= and enabled= (systemctl),
# guid= (port GUID of the first InfiniBand port: where opensm binds),
# port=CA/PORT STATE for every InfiniBand port, and sminfo= (its line, or
# its error): the master SM as this host's first port sees it.
if command -v opensm >/dev/null 2>&1; then echo opensm=yes; else echo opensm=no; fi
echo "active=$(systemctl is-active opensm 2>/dev/null)"
echo "enabled=$(systemctl is-enabled opensm 2>/dev/null)"
command -v ibstat >/dev/null 2>&1 || exit 0
guid=
for ca in $(ibstat -l 2>/dev/null); do
	info=$(ibstat "$ca" 1 2>/dev/null)
	echo "$info" | grep -q '^Link layer: InfiniBand' || continue
	[ -n "$guid" ] || guid=$(echo "$info" | sed -n 's/^Port GUID: //p')
	echo "port=$ca/1 $(echo "$info" | sed -n 's/^State: //p')"
done
echo "guid=$guid"
echo "sminfo=$(sminfo 2>&1 | tail -n 1)"
