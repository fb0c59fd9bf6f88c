#!/bin/sh
# openshift-inventory.sh KUBECONFIG IN OUT: the simulated cluster's inventory
# IN with the Redpaper PoC's cluster var `openshift` (kubeconfig KUBECONFIG,
# nodes named dgxNN.sim.example.com, no openshift.scale: deploy records it)
# written to OUT. For `make demo` and the Kubernetes API tests (kube-lib.sh).
[ $# -eq 3 ] || { echo "usage: $0 KUBECONFIG IN OUT" >&2; exit 2; }
awk -v kcfg="$1" '
{ print }
/^  vars:$/ && !done {
	print "    openshift:"
	print "      kubeconfig: \"" kcfg "\""
	print "      user_namespaces: [adas]"
	print "      node_domain: sim.example.com"
	print "      csi:"
	print "        host_path: /gpfs/ess3000_4M"
	print "        local: { gui_host: 192.168.1.30, secret: csisecret-local, primary_fs: fs0, primary_fset: csifset }"
	print "        remote:"
	print "          - { id: \"215057217487177715\", gui_host: 192.168.1.52, secret: csisecret-remote }"
	print "      volumes:"
	print "        - { name: adas-data, dir: adas, storage: 100Gi }"
	done = 1
}' "$2" >"$3"
