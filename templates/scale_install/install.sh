# scale_install stage: installs the uploaded Spectrum Scale packages.
# $1: the directory they were sent to; $2: rpm or deb; the rest: file names.
# One package-manager call for all of them, so that their dependencies
# among each other resolve (gpfs.gpl needs gpfs.base).
set -e
dir=$1 family=$2
shift 2
cd "$dir"
if [ "$family" = rpm ]; then
	rpm -Uvh --replacepkgs "$@"
else
	dpkg -i "$@"
fi
