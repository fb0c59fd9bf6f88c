#!/bin/sh
# openshift-inventory.sh KUBECONFIG IN OUT: the simulated cluster's inventory
# IN with the Redpaper PoC's cluster var `openshift` (kubeconfig KUBECONFIG,
# nodes named dgxNN.sim.example.com, no openshift.scale: deploy records it)
# written to OUT. For `make demo` and the Kubernetes API tests (kube-lib.sh).
[ $# -eq 3 ] || { echo "usage: $0 KUBECONFIG IN OUT" >&2; exit 2; }
# The GUIs' CAs are the repository's placeholders (inventory/certs/).
certs=$(cd "$(dirname "$0")/../inventory/certs" && pwd)
awk -v kcfg="$1" -v certs="$certs" '
{ print }
/^  vars:$/ && !done {
	print "    openshift:"
	print "      kubeconfig: \"" kcfg "\""
	print "      user_namespaces: [adas]"
	print "      node_domain: sim.example.com"
	print "      csi:"
	print "        local: { gui_host: 192.168.1.30, secret: csisecret-local, gui_ca_file: \"" certs "/redbook-poc-gui-local-ca.pem\" }"
	print "        remote:"
	print "          - { id: \"215057217487177715\", gui_host: 192.168.1.52, secret: csisecret-remote, gui_ca_file: \"" certs "/redbook-poc-gui-remote-ca.pem\" }"
	print "      volumes:"
	print "        - { name: adas-data, dir: adas, storage: 100Gi }"
	done = 1
}' "$2" >"$3"
