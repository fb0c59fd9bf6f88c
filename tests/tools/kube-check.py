#!/usr/bin/env python3
"""Checks a `bringup render` directory (tests t1200-t1249):

  kube-check.py schema DIR SCHEMA_DIR
      every object (also under jobs/ and operators/) validates against its
      kind's upstream schema (Kubernetes
      JSON schemas and the OpenShift/IBM CRDs, tests/fixtures/openshift/
      schema/) with python3-jsonschema; an object of a kind without a schema
      fails.
  kube-check.py compare DIR FIXTURE_DIR
      every fixture (YAML transcribed from the Redpaper) has a rendered
      object of the same kind, namespace and name, equal field for field
      (a ConfigMap's config.json compared as JSON).
  kube-check.py policy DIR
      every Role grants only `use` on SecurityContextConstraints, naming one
      SCC that is rendered; no pod template adds capabilities other than
      IPC_LOCK or runs privileged (operators/ left out: compared with
      upstream's manifest), except the RDMA shared device plugin
      DaemonSet named in PRIVILEGED_OK (upstream needs /dev and the kubelet's
      socket).

Prints one line per problem and exits 1 when there is any.
"""
import glob
import json
import os
import sys

import jsonschema
import yaml

PRIVILEGED_OK = {("DaemonSet", "kube-system", "rdma-shared-dp-ds")}

SCHEMAS = {
    ("v1", "Namespace"): "namespace-v1.json",
    ("v1", "ServiceAccount"): "serviceaccount-v1.json",
    ("v1", "ConfigMap"): "configmap-v1.json",
    ("v1", "Node"): "node-v1.json",
    ("v1", "PersistentVolume"): "persistentvolume-v1.json",
    ("v1", "PersistentVolumeClaim"): "persistentvolumeclaim-v1.json",
    ("apps/v1", "DaemonSet"): "daemonset-apps-v1.json",
    ("rbac.authorization.k8s.io/v1", "Role"): "role-rbac-v1.json",
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): "rolebinding-rbac-v1.json",
    ("security.openshift.io/v1", "SecurityContextConstraints"):
        "securitycontextconstraints-security-v1.json",
    ("csi.ibm.com/v1", "CSIScaleOperator"): "csiscaleoperator-csi-v1.json",
    ("kubeflow.org/v1alpha2", "MPIJob"): "mpijob-kubeflow-v1alpha2.json",
    ("batch/v1", "Job"): "job-batch-v1.json",
    ("apps/v1", "Deployment"): "deployment-apps-v1.json",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): "clusterrole-rbac-v1.json",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "clusterrolebinding-rbac-v1.json",
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"):
        "customresourcedefinition-apiextensions-v1.json",
}


def load_dir(d, operators=True):
    objs = []
    subs = ["jobs", "operators"] if operators else ["jobs"]
    for path in sorted(glob.glob(os.path.join(d, "*.yaml")) +
                       [p for s in subs for p in glob.glob(os.path.join(d, s, "*.yaml"))]):
        with open(path) as f:
            objs.append((path, yaml.safe_load(f)))
    return objs


def key(o):
    m = o.get("metadata") or {}
    return (o.get("kind"), m.get("namespace"), m.get("name"))


def norm(o):
    if o.get("kind") == "ConfigMap":
        o = json.loads(json.dumps(o))
        for k, v in (o.get("data") or {}).items():
            if k.endswith(".json"):
                o["data"][k] = json.loads(v)
    return o


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append("%s.%s: missing in render (Redpaper: %r)" % (path, k, b[k]))
            elif k not in b:
                out.append("%s.%s: not in the Redpaper (render: %r)" % (path, k, a[k]))
            else:
                diff(a[k], b[k], "%s.%s" % (path, k), out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (path, i), out)
    elif a != b or type(a) != type(b):
        out.append("%s: render %r, Redpaper %r" % (path, a, b))


def cmd_schema(d, sdir):
    bad = []
    for path, o in load_dir(d):
        name = SCHEMAS.get((o.get("apiVersion"), o.get("kind")))
        if not name:
            bad.append("%s: no schema for %s %s" % (path, o.get("apiVersion"), o.get("kind")))
            continue
        with open(os.path.join(sdir, name)) as f:
            schema = json.load(f)
        v = jsonschema.Draft202012Validator(schema)
        for e in sorted(v.iter_errors(o), key=lambda e: list(e.path)):
            bad.append("%s: %s: %s" % (path, "/".join(map(str, e.path)), e.message))
        # The MPIJob v1alpha2 CRD does not describe its pod templates: each is
        # a Kubernetes PodTemplateSpec, checked against that upstream schema.
        for rname, r in ((o.get("spec") or {}).get("mpiReplicaSpecs") or {}).items():
            for e in pod_template_validator(sdir).iter_errors(r.get("template")):
                bad.append("%s: spec/mpiReplicaSpecs/%s/template/%s: %s" % (
                    path, rname, "/".join(map(str, e.path)), e.message))
    return bad


def pod_template_validator(sdir):
    with open(os.path.join(sdir, "daemonset-apps-v1.json")) as f:
        defs = json.load(f)["$defs"]
    return jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/io.k8s.api.core.v1.PodTemplateSpec", "$defs": defs})


def cmd_compare(d, fdir):
    bad = []
    rendered = {key(o): (p, o) for p, o in load_dir(d)}
    for fpath, want in load_dir(fdir):
        got = rendered.get(key(want))
        if not got:
            bad.append("%s: no rendered %s %s/%s" % ((fpath,) + key(want)))
            continue
        out = []
        diff(norm(got[1]), norm(want), key(want)[0], out)
        bad += ["%s vs %s: %s" % (got[0], os.path.basename(fpath), x) for x in out]
    return bad


def pod_specs(o):
    spec = o.get("spec") or {}
    if o.get("kind") in ("DaemonSet", "Deployment", "Job"):
        yield spec.get("template", {}).get("spec", {})
    if o.get("kind") == "MPIJob":
        for r in (spec.get("mpiReplicaSpecs") or {}).values():
            yield r.get("template", {}).get("spec", {})
    if o.get("kind") == "Pod":
        yield spec


def cmd_policy(d):
    # The operators' own RBAC (operators/) is upstream's contract, compared
    # with its manifest instead; this is the users' side.
    bad, objs = [], load_dir(d, operators=False)
    sccs = {o["metadata"]["name"] for _, o in objs if o.get("kind") == "SecurityContextConstraints"}
    for path, o in objs:
        if o.get("kind") in ("Role", "ClusterRole"):
            for r in o.get("rules") or []:
                if (r.get("verbs") != ["use"] or r.get("apiGroups") != ["security.openshift.io"]
                        or r.get("resources") != ["securitycontextconstraints"]
                        or len(r.get("resourceNames") or []) != 1
                        or r["resourceNames"][0] not in sccs):
                    bad.append("%s: rule grants more than `use` on one rendered SCC: %r" % (path, r))
        for spec in pod_specs(o):
            for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
                sc = c.get("securityContext") or {}
                caps = (sc.get("capabilities") or {}).get("add") or []
                extra = [x for x in caps if x != "IPC_LOCK"]
                if extra:
                    bad.append("%s: container %s adds %s" % (path, c.get("name"), extra))
                if sc.get("privileged") and key(o) not in PRIVILEGED_OK:
                    bad.append("%s: container %s is privileged" % (path, c.get("name")))
    return bad


def main():
    what = sys.argv[1]
    if what == "schema":
        bad = cmd_schema(sys.argv[2], sys.argv[3])
    elif what == "compare":
        bad = cmd_compare(sys.argv[2], sys.argv[3])
    elif what == "policy":
        bad = cmd_policy(sys.argv[2])
    else:
        sys.exit("usage: kube-check.py schema|compare|policy DIR [DIR]")
    for b in bad:
        print(b)
    print("kube-check %s: %d problem(s)" % (what, len(bad)))
    sys.exit(1 if bad else 0)


main()
