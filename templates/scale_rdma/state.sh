# scale_rdma stage: what the GPFS daemon on this node runs with and how it
# talks: its running configuration and its network diagnostics, each after
# a marker line "@@NAME" and followed by "@@rc=STATUS".
for what in config network; do
	echo "@@$what"
	/usr/lpp/mmfs/bin/mmdiag --$what 2>&1
	echo "@@rc=$?"
done
