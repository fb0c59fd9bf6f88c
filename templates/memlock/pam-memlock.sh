# memlock stage: the memlock limits a login of each USER argument gets, read
# from /etc/security/limits.conf and then limits.d/*.conf (C order) the way
# pam_limits applies them: an entry naming the user beats a @group entry,
# which beats `*`; among equals the later line wins; `*` and groups do not
# apply to root. Groups are matched with `id -Gn`. A login shell on a
# simulated node does not go through PAM, so this reads the files instead of
# asking `ulimit -l`.
# Prints "USER SOFT HARD" per user; "-" where nothing sets a value.
for user in "$@"; do
	groups=$(id -Gn "$user" 2>/dev/null)
	files=/etc/security/limits.conf
	for f in $(LC_ALL=C ls /etc/security/limits.d/*.conf 2>/dev/null); do
		files="$files $f"
	done
	cat $files 2>/dev/null | awk -v user="$user" -v groups=" $groups " '
		function set(type, prio, value) {
			if (type == "soft" || type == "-") {
				if (prio <= sp) { sp = prio; soft = value }
			}
			if (type == "hard" || type == "-") {
				if (prio <= hp) { hp = prio; hard = value }
			}
		}
		BEGIN { sp = hp = 9; soft = hard = "-" }
		/^[ \t]*#/ || NF < 4 { next }
		$3 != "memlock" { next }
		{
			d = $1; v = ($4 == "infinity" ? "unlimited" : $4)
			if (d == user) set($2, 1, v)
			else if (user == "root") next
			else if (d ~ /^@/ && index(groups, " " substr(d, 2) " ")) set($2, 2, v)
			else if (d == "*") set($2, 4, v)
		}
		END { print user, soft, hard }'
done
