#!/bin/sh
# `make install PREFIX=/usr DESTDIR=D` lays out the binary, bringup(1), bash
# and zsh completion and the example inventories the way the packages do,
# and the installed bash completion completes commands, options, choices
# and the inventory's group and host names (through `bringup complete`).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
obj=$(dirname "$BRINGUP")
root=$TEST_DIR/root

make -s -C "$top" O="$obj" install PREFIX=/usr DESTDIR="$root" >"$TEST_DIR/make.log" 2>&1 ||
	fail "make install: $(tail -n 5 "$TEST_DIR/make.log")"
for f in usr/bin/bringup usr/share/man/man1/bringup.1 \
	usr/share/bash-completion/completions/bringup usr/share/zsh/site-functions/_bringup \
	usr/share/doc/bringup/README.md usr/share/doc/bringup/reference.md \
	usr/share/doc/bringup/examples/README.md \
	usr/share/doc/bringup/examples/redbook-poc.yaml \
	usr/share/doc/bringup/examples/real-cluster-template.yaml; do
	[ -f "$root/$f" ] || fail "make install left out /$f"
done
[ -x "$root/usr/bin/bringup" ] || fail "/usr/bin/bringup not executable"
"$root/usr/bin/bringup" --version | grep -q '^bringup [0-9]' || fail "installed --version"
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$root/usr/share/man/man1/bringup.1" 2>/dev/null | grep -q 'precheck' ||
		fail "man -l cannot render the installed page"
fi

inv=$root/usr/share/doc/bringup/examples/redbook-poc.yaml
for f in "$root"/usr/share/doc/bringup/examples/*.yaml; do
	"$root/usr/bin/bringup" inventory check -i "$f" >/dev/null || fail "example $f does not check"
done
# comp WORDS...: what the installed bash completion offers for the last word.
comp() {
	PATH="$root/usr/bin:$PATH" bash -c '
		. "$1"; shift
		COMP_WORDS=(bringup "$@"); COMP_CWORD=$#
		_bringup
		printf "%s\n" "${COMPREPLY[@]}"' sh "$root/usr/share/bash-completion/completions/bringup" "$@"
}
comp pre | grep -qx precheck || fail "commands: $(comp pre)"
comp deploy --re | grep -qx -- --resume || fail "options: $(comp deploy --re)"
comp precheck -o '' | sort | tr '\n' ' ' | grep -qx 'json junit prom text ' ||
	fail "choices: $(comp precheck -o '')"
got=$(comp exec -i "$inv" --limit '' | sort | tr '\n' ' ')
for want in gpu_worker scale_client dgx01 dgx02 scale00 master01; do
	case " $got" in *" $want "*) ;; *) fail "--limit lacks $want: $got";; esac
done
comp exec -i "$inv" --limit dgx01,sc | grep -qx 'dgx01,scale00' || fail "comma lists"
comp precheck -i "$inv" --checks ib.port_s | grep -qx 'ib.port_state' || fail "check ids"
# -i takes a file: the shell's own file completion.
comp precheck -i "$root/usr/share/doc/bringup/examples/redbook" |
	grep -qx "$inv" || fail "file completion of -i"
# An option added to a table reaches completion with no script change: every
# option --help lists is offered.
for o in $("$BRINGUP" deploy --help | sed -n 's/^  \(-., \)\{0,1\} *\(--[a-z-]*\).*/\2/p'); do
	comp deploy "$o" | grep -qx -- "$o" || fail "deploy $o not completed"
done
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$root/usr/share/zsh/site-functions/_bringup" || fail "zsh script does not parse"
fi
echo "ok: install layout and completion"
