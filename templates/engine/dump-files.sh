# Appended by the engine to a module's probe script (mod_probe): after the
# marker line, each file named in $__bringup_files as "MODE LENGTH" and its
# bytes, or "- 0" when it does not exist. One round trip reads them all.
printf '\001bringup-files\n'
for __f in $__bringup_files; do
	__f=$(printf '%s' "$__f" | sed 's/%20/ /g')
	if [ -f "$__f" ] && [ -r "$__f" ]; then
		printf '%s %s\n' "$(stat -c %a -- "$__f")" "$(wc -c <"$__f")"
		cat -- "$__f"
	else
		printf -- '- 0\n'
	fi
done
