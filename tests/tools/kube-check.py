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
      Where bringup departs from the Redpaper on purpose, DEVIATIONS names
      the field and why; a deviation that no longer shows is itself a
      problem (the list cannot hide more than it says). bringup's ownership
      label (applyset.kubernetes.io/part-of) is left out of the comparison.
  kube-check.py policy DIR
      every Role grants only `use` on SecurityContextConstraints, naming one
      SCC that is rendered; every SCC is restricted-v2 plus IPC_LOCK (no
      users, no groups: granted only through Roles; no privilege
      escalation, ALL dropped, seccomp runtime/default, runAsUser
      MustRunAsRange); no pod template sets runAsUser (the namespace's
      range decides), allows privilege escalation, adds capabilities other
      than IPC_LOCK or runs privileged (operators/ left out: compared with
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
    ("kubeflow.org/v2beta1", "MPIJob"): "mpijob-kubeflow-v2beta1.json",
    ("batch/v1", "Job"): "job-batch-v1.json",
    ("apps/v1", "Deployment"): "deployment-apps-v1.json",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): "clusterrole-rbac-v1.json",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "clusterrolebinding-rbac-v1.json",
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"):
        "customresourcedefinition-apiextensions-v1.json",
}


PART_OF = "applyset.kubernetes.io/part-of"

# (kind, field path as diff() prints it after the kind): bringup's
# deliberate departures from the Redpaper's objects, and why.
_W = "MPIJob.spec.mpiReplicaSpecs.Worker.template.spec."
_L = "MPIJob.spec.mpiReplicaSpecs.Launcher.template.spec."
DEVIATIONS = {
    # The Redpaper's SCC grants itself to every authenticated user and keeps
    # "restricted"'s escalation and capabilities; bringup's is restricted-v2
    # (OpenShift 4.11+) plus IPC_LOCK, granted only by the namespaced Roles.
    "SecurityContextConstraints.allowPrivilegeEscalation": "restricted-v2: no escalation",
    "SecurityContextConstraints.allowedCapabilities": "IPC_LOCK only when a pod asks",
    "SecurityContextConstraints.defaultAddCapabilities": "no capability added unasked",
    "SecurityContextConstraints.groups": "no group: system:authenticated made it everyone's",
    "SecurityContextConstraints.users": "no user: the Roles' `use` grants it",
    "SecurityContextConstraints.requiredDropCapabilities": "restricted-v2: drop ALL",
    "SecurityContextConstraints.seccompProfiles": "restricted-v2: runtime/default",
    "SecurityContextConstraints.metadata.annotations.kubernetes.io/description": "says so",
    # Pods that restricted-v2-based admission accepts: the UID from the
    # namespace's range (runAsUser outside it is refused), the data
    # directory's group as a supplemental group.
    _W + "containers[0].securityContext.runAsUser": "MustRunAsRange decides",
    _W + "containers[0].securityContext.runAsGroup": "supplementalGroups instead",
    _W + "containers[0].securityContext.allowPrivilegeEscalation": "restricted-v2",
    _W + "containers[0].securityContext.capabilities.drop": "restricted-v2: drop ALL",
    _W + "securityContext": "runAsNonRoot, seccomp RuntimeDefault, supplementalGroups",
    _L + "securityContext": "runAsNonRoot, seccomp RuntimeDefault",
    _L + "containers[0].securityContext": "no escalation, drop ALL",
    # The MPI Operator removed v1alpha2 in 2021 (v0.3); v2beta1 moved
    # cleanPodPolicy under runPolicy and names the MPI implementation.
    "MPIJob.apiVersion": "kubeflow.org/v2beta1 (MPI Operator v0.8.0)",
    "MPIJob.spec.cleanPodPolicy": "v2beta1: runPolicy.cleanPodPolicy",
    "MPIJob.spec.runPolicy": "v2beta1",
    "MPIJob.spec.mpiImplementation": "v2beta1: OpenMPI, as the Redpaper's images",
    # Scale CSI 3.0.0's resource (the Redpaper's is CSI 2.0.0's): the local
    # cluster is localScaleCluster (3.0 removed primary), scaleHostpath is
    # gone since 2.2, each GUI is verified with its CA ConfigMap, the driver
    # image pinned; the static volumeHandle in the 2.5+ layout.
    "CSIScaleOperator.spec.localScaleCluster": "CSI 3.0: the local cluster",
    "CSIScaleOperator.spec.clusters[0].primary": "CSI 3.0 removed primary",
    "CSIScaleOperator.spec.scaleHostpath": "CSI 2.2 removed it",
    "CSIScaleOperator.spec.spectrumScale": "the driver image, pinned by tag",
    "CSIScaleOperator.spec.clusters[0].secureSslMode": "the GUI's TLS verified",
    "CSIScaleOperator.spec.clusters[1].secureSslMode": "the GUI's TLS verified",
    "CSIScaleOperator.spec.clusters[0].cacert": "the GUI's CA (ConfigMap)",
    "CSIScaleOperator.spec.clusters[1].cacert": "the GUI's CA (ConfigMap)",
    "PersistentVolume.spec.csi.volumeHandle": "CSI 2.5+: 0;0;CLUSTER;FS;;;PATH",
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


def unowned(o):
    """The object without bringup's ownership label."""
    o = json.loads(json.dumps(o))
    m = o.get("metadata") or {}
    (m.get("labels") or {}).pop(PART_OF, None)
    if m.get("labels") == {}:
        del m["labels"]
    return o


def cmd_compare(d, fdir):
    bad, seen, kinds = [], set(), set()
    rendered = {key(o): (p, o) for p, o in load_dir(d)}
    for fpath, want in load_dir(fdir):
        got = rendered.get(key(want))
        if not got:
            bad.append("%s: no rendered %s %s/%s" % ((fpath,) + key(want)))
            continue
        out = []
        kinds.add(key(want)[0])
        diff(norm(unowned(got[1])), norm(want), key(want)[0], out)
        for x in out:
            field = x.split(":")[0]
            if field in DEVIATIONS:
                seen.add(field)
            else:
                bad.append("%s vs %s: %s" % (got[0], os.path.basename(fpath), x))
    bad += ["deviation %s (%s) no longer shows: drop it from DEVIATIONS" % (f, why)
            for f, why in sorted(DEVIATIONS.items())
            if f not in seen and f.split(".")[0] in kinds]
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
        if o.get("kind") == "SecurityContextConstraints":
            bad += ["%s: %s" % (path, x) for x in scc_problems(o)]
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
                if "runAsUser" in sc:
                    bad.append("%s: container %s sets runAsUser (the namespace's range "
                               "decides)" % (path, c.get("name")))
                if key(o) not in PRIVILEGED_OK and sc.get("allowPrivilegeEscalation") is not False:
                    bad.append("%s: container %s does not set allowPrivilegeEscalation: "
                               "false" % (path, c.get("name")))
            if "runAsUser" in (spec.get("securityContext") or {}):
                bad.append("%s: pod sets runAsUser (the namespace's range decides)" % path)
    return bad


def scc_problems(o):
    """What keeps an SCC from being restricted-v2 plus IPC_LOCK, granted by Roles only."""
    out = []
    for f in ("users", "groups"):
        if o.get(f):
            out.append("grants itself to %s %r (only the namespaced Roles' `use` may)" % (f, o[f]))
    want = {"allowPrivilegeEscalation": False, "allowPrivilegedContainer": False,
            "requiredDropCapabilities": ["ALL"], "seccompProfiles": ["runtime/default"],
            "runAsUser": {"type": "MustRunAsRange"}, "seLinuxContext": {"type": "MustRunAs"},
            "allowHostDirVolumePlugin": False, "allowHostIPC": False,
            "allowHostNetwork": False, "allowHostPID": False, "allowHostPorts": False}
    for f, v in want.items():
        if o.get(f) != v:
            out.append("%s is %r, restricted-v2 has %r" % (f, o.get(f), v))
    for f in ("allowedCapabilities", "defaultAddCapabilities"):
        extra = [c for c in o.get(f) or [] if c != "IPC_LOCK"]
        if extra:
            out.append("%s adds %r beyond IPC_LOCK" % (f, extra))
    return out


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
