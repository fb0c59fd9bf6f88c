# selinux_ib stage: SELinux mode and whether policy module $1 is installed.
# Prints selinux=Enforcing|Permissive|Disabled|absent and installed=yes|no.
if command -v getenforce >/dev/null 2>&1; then
	echo "selinux=$(getenforce 2>/dev/null)"
else
	echo selinux=absent
fi
# RHEL 7 lists "name<TAB>version", later releases just the name.
if semodule -l 2>/dev/null | awk -v m="$1" '$1 == m { found = 1 } END { exit !found }'; then
	echo installed=yes
else
	echo installed=no
fi
