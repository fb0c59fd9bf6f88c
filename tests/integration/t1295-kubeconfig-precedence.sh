#!/bin/sh
# Which kubeconfig `apply` reads (issue 25, item 6): the inventory's
# openshift.kubeconfig names the cluster it describes, so it wins over a
# $KUBECONFIG that the admin's shell set for another cluster (it used to be
# the other way round: deploy and upgrade talked to that other cluster);
# --kubeconfig wins over both, and $KUBECONFIG is still read when the
# inventory names none. Each refusal names where the kubeconfig came from.
# A cluster's proxy-url carries the requests, as kubectl's does.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
kube_state
kube_up --namespaces default,kube-system,ibm-spectrum-scale-csi-driver,adas
sed "s|^    openshift:\$|    openshift:\n      kubeconfig: \"$KCFG\"|" "$root/inventory/redbook-poc.yaml" \
	>"$TEST_DIR/inv.yaml"
grep -q "kubeconfig: \"$KCFG\"" "$TEST_DIR/inv.yaml" || fail "inventory with a kubeconfig"
# another cluster's kubeconfig in the environment: a server nothing listens on
sed "s|server: https://127.0.0.1:$API_PORT|server: https://127.0.0.1:1|" "$KCFG" >"$TEST_DIR/other"

KUBECONFIG="$TEST_DIR/other" "$BRINGUP" apply -i "$TEST_DIR/inv.yaml" --state-dir "$STATE" \
	>"$TEST_DIR/a1.out" 2>&1 || fail "\$KUBECONFIG won over the inventory's: $(cat "$TEST_DIR/a1.out")"
grep -q "^apply: 15 objects, 15 changed" "$TEST_DIR/a1.out" || fail "$(cat "$TEST_DIR/a1.out")"

KUBECONFIG="$KCFG" "$BRINGUP" apply -i "$TEST_DIR/inv.yaml" --kubeconfig "$TEST_DIR/nothing" \
	--state-dir "$STATE" >"$TEST_DIR/a2.out" 2>&1 && fail "--kubeconfig was not read"
grep -q "kubeconfig from --kubeconfig: " "$TEST_DIR/a2.out" || fail "$(cat "$TEST_DIR/a2.out")"

KUBECONFIG="$TEST_DIR/nothing" "$BRINGUP" apply -i "$root/inventory/redbook-poc.yaml" \
	--state-dir "$STATE" >"$TEST_DIR/a3.out" 2>&1 && fail "\$KUBECONFIG was not read"
grep -q "kubeconfig from KUBECONFIG: " "$TEST_DIR/a3.out" || fail "$(cat "$TEST_DIR/a3.out")"

# proxy-url: the requests go through it (an HTTP CONNECT proxy that logs
# each tunnel), as kubectl sends them; a scheme it does not take is refused.
python3 - "$TEST_DIR/proxy.log" "$TEST_DIR/proxy.port" <<'PY' &
import select, socket, sys, threading
log, portf = sys.argv[1], sys.argv[2]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
open(portf + ".tmp", "w").write(str(srv.getsockname()[1]))
import os; os.rename(portf + ".tmp", portf)
def tunnel(c):
    head = b""
    while b"\r\n\r\n" not in head:
        d = c.recv(4096)
        if not d:
            return
        head += d
    line = head.split(b"\r\n")[0].decode()
    open(log, "a").write(line + "\n")
    host, port = line.split()[1].rsplit(":", 1)
    u = socket.create_connection((host, int(port)))
    c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    socks = [c, u]
    while True:
        r, _, _ = select.select(socks, [], [], 30)
        if not r:
            return
        for s in r:
            d = s.recv(65536)
            if not d:
                return
            (u if s is c else c).sendall(d)
while True:
    c, _ = srv.accept()
    threading.Thread(target=tunnel, args=(c,), daemon=True).start()
PY
PROXY_PID=$!
trap 'kill $PROXY_PID 2>/dev/null; kube_cleanup' EXIT INT TERM
i=0; while [ ! -s "$TEST_DIR/proxy.port" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$TEST_DIR/proxy.port" ] || fail "the proxy did not start"
sed "s|^    server: \(.*\)$|    server: \1\n    proxy-url: http://127.0.0.1:$(cat "$TEST_DIR/proxy.port")|" "$KCFG" \
	>"$KDIR/kc-proxy"
grep -q "proxy-url" "$KDIR/kc-proxy" || fail "kubeconfig with proxy-url"
"$BRINGUP" apply -i "$root/inventory/redbook-poc.yaml" --kubeconfig "$KDIR/kc-proxy" \
	--state-dir "$STATE" >"$TEST_DIR/p.out" 2>&1 || fail "apply through the proxy: $(cat "$TEST_DIR/p.out")"
grep -q "^CONNECT 127.0.0.1:$API_PORT HTTP/1.1\$" "$TEST_DIR/proxy.log" ||
	fail "apply did not go through proxy-url: $(cat "$TEST_DIR/proxy.log" 2>&1)"
sed "s|proxy-url: http://|proxy-url: ftp://|" "$KDIR/kc-proxy" >"$KDIR/kc-ftp"
"$BRINGUP" apply -i "$root/inventory/redbook-poc.yaml" --kubeconfig "$KDIR/kc-ftp" \
	--state-dir "$STATE" >"$TEST_DIR/f.out" 2>&1 && fail "an ftp proxy-url was taken"
grep -q "proxy-url 'ftp://127.0.0.1:[0-9]*' is not an http://, https:// or socks5:// URL" \
	"$TEST_DIR/f.out" || fail "$(cat "$TEST_DIR/f.out")"
kube_down
exit 0
