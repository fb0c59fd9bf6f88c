# memlock stage: is cri-o running, and with which LimitMEMLOCK?
# Prints "active=STATE" and "limit=VALUE" ("limit=" when systemctl cannot say).
a=$(systemctl is-active crio 2>/dev/null)
echo "active=${a:-unknown}"
if v=$(systemctl show crio -p LimitMEMLOCK 2>/dev/null); then
	echo "limit=${v#LimitMEMLOCK=}"
else
	echo "limit="
fi
