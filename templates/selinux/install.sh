# selinux_ib stage: compiles the type-enforcement source $1 (NAME.te) into a
# policy package beside it and installs it. The binary .pp depends on the
# host's policy version, so it is built there, never shipped.
set -e
te=$1
dir=$(dirname "$te")
name=$(basename "$te" .te)
for t in checkmodule semodule_package semodule; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "$t not found: install checkpolicy and policycoreutils; the policy source is $te" >&2
		exit 3
	fi
done
checkmodule -M -m -o "$dir/$name.mod" "$te"
semodule_package -o "$dir/$name.pp" -m "$dir/$name.mod"
semodule -i "$dir/$name.pp"
