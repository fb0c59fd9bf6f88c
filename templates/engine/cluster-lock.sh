# The cluster lock's node side (engine/rundir/cluster-lock.c): one lease per
# node, /var/lib/bringup/run.lock, naming the cluster and the run that holds
# it. Read, judged and rewritten under flock on run.lock.flock, so two
# clients that arrive together see each other. The lease lasts until its
# `expires` (this node's clock, so the client's clock never matters); the
# holder refreshes it while it runs.
#   $1 take|refresh|release  $2 cluster  $3 run  $4 client  $5 pid
#   $6 pid start (ticks)  $7 ttl (s)  $8 a run whose lease may be taken over
# Prints one line: TAKEN|REFRESHED|RELEASED [previous holder], or
# HELD|LOST <holder> now=<epoch>.
set -e
op=$1 cluster=$2 run=$3 client=$4 pid=$5 pstart=$6 ttl=$7 over=${8:-}
dir=/var/lib/bringup lease=/var/lib/bringup/run.lock
mkdir -p "$dir"
exec 9>>"$lease.flock"
flock 9
now=$(date +%s)
cur=$(cat "$lease" 2>/dev/null || true)
h_run= h_client= h_pid= h_pstart= h_expires=0
for kv in $cur; do
	case $kv in
	run=*) h_run=${kv#run=} ;;
	client=*) h_client=${kv#client=} ;;
	pid=*) h_pid=${kv#pid=} ;;
	pstart=*) h_pstart=${kv#pstart=} ;;
	expires=*) h_expires=${kv#expires=} ;;
	esac
done
# this very process (an upgrade hands its lease to the deploy it runs)
self=no
[ "$h_client" = "$client" ] && [ "$h_pid" = "$pid" ] && [ "$h_pstart" = "$pstart" ] && self=yes
write() { # RUN STARTED
	printf 'cluster=%s run=%s client=%s pid=%s pstart=%s started=%s expires=%s\n' \
		"$cluster" "$1" "$client" "$pid" "$pstart" "$2" $((now + ttl)) >"$lease.new"
	mv -f "$lease.new" "$lease"
}
case $op in
take)
	if [ -z "$cur" ] || [ "$h_expires" -lt "$now" ] || [ "$h_run" = "$run" ] ||
		[ $self = yes ] || { [ -n "$over" ] && [ "$h_run" = "$over" ]; }; then
		write "$run" "$now"
		echo "TAKEN $cur"
	else
		echo "HELD $cur now=$now"
	fi ;;
refresh)
	if [ "$h_run" = "$run" ] || [ $self = yes ]; then
		# the run named stays (an upgrade's lease refreshed for the deploy it runs)
		started=$now
		for kv in $cur; do case $kv in started=*) started=${kv#started=} ;; esac; done
		write "$h_run" "$started"
		echo REFRESHED
	else
		echo "LOST $cur now=$now"
	fi ;;
release)
	if [ "$h_run" = "$run" ] || [ $self = yes ]; then
		rm -f "$lease"
		echo RELEASED
	else
		echo "LOST $cur now=$now"
	fi ;;
esac
