# scale_rdma stage: what the GPFS daemon on this node runs with and how it
# talks: its running configuration and its network diagnostics, what the
# daemon says of verbs RDMA, and the configuration it should run with, each
# after a marker line "@@NAME" and followed by "@@rc=STATUS".
for what in config network; do
	echo "@@$what"
	/usr/lpp/mmfs/bin/mmdiag --$what 2>&1
	echo "@@rc=$?"
done
echo "@@verbs"
/usr/lpp/mmfs/bin/mmfsadm test verbs status 2>&1
echo "@@rc=$?"
echo "@@lsconfig"
/usr/lpp/mmfs/bin/mmlsconfig 2>&1
echo "@@rc=$?"
