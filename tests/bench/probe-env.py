#!/usr/bin/env python3
# probe-env.py INVENTORY_JSON OUT_DIR: for the plain-ssh side of the precheck
# benchmark, writes OUT_DIR/host.N (N from 1), one line per host:
# "ADDRESS ENV...", where ENV is the environment bringup gives that host's
# facts.sh (engine/facts/facts.c, gather_task): BRINGUP_FACTS by its
# families, BRINGUP_USER, BRINGUP_NAME, the expected ports and their counter
# interval, BRINGUP_FABRIC on the first host with HCAs, BRINGUP_PEERS (at
# most 16 peers, spread as peers_env spreads them) on the first GPU host,
# BRINGUP_GZIP=1 (the host compresses all but the date when it has gzip).
# Prints the host count. Both sides then run the same script with the
# same environment.
import json
import shlex
import sys

inv = json.load(open(sys.argv[1]))
out = sys.argv[2]
hosts = inv["hosts"]
IB = {"gpu_worker", "scale_client", "nsd_server", "sm_host"}
SCALE = {"scale_client", "scale_quorum", "scale_manager", "nsd_server"}


def families(h):
    roles = set(h["roles"])
    f = []
    if h["hcas"] or roles & IB:
        f.append("ib")
    if h["gpus"]["count"] or "gpu_worker" in roles:
        f.append("gpu")
    if roles & SCALE:
        f.append("scale")
    return " ".join(f)


def ports(h):
    return " ".join("%s/%s" % (c["name"], c["port"]) for c in h["hcas"])


def interval(h):
    v = h["vars"].get("ib_counter_interval_s", 1)
    return v if isinstance(v, (int, float)) and 0 <= v <= 60 else 1


fabric = next((i for i, h in enumerate(hosts) if h["hcas"]), None)
gpu = [i for i, h in enumerate(hosts) if h["gpus"]["count"]]
peers = {}
if len(gpu) > 1:
    n = len(gpu) - 1
    sel = [hosts[i] for k, i in enumerate(gpu[1:])
           if n <= 16 or k * 16 // n != (k + 1) * 16 // n]
    peers[gpu[0]] = " ".join("%s:%s" % (h["name"], h["ssh"]["port"]) for h in sel)

for i, h in enumerate(hosts):
    env = {
        "BRINGUP_FACTS": families(h),
        "BRINGUP_USER": h["ssh"]["user"],
        "BRINGUP_NAME": h["name"],
        "BRINGUP_IB_PORTS": ports(h),
        "BRINGUP_IB_INTERVAL": "%g" % interval(h),
        "BRINGUP_GZIP": "1",
    }
    if i == fabric:
        env["BRINGUP_FABRIC"] = "1"
    if i in peers:
        env["BRINGUP_PEERS"] = peers[i]
        env["BRINGUP_PEER_LIMIT"] = "15"
    with open("%s/host.%d" % (out, i + 1), "w") as f:
        f.write("%s %s\n" % (h["ssh"]["address"],
                             " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())))
print(len(hosts))
