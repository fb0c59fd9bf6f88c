#!/usr/bin/env python3
"""A stand-in Kubernetes API server for bringup's tests (t1200-t1249).

Speaks the request shapes a real kube-apiserver does, over TLS only
(--cert/--key, signed by a test CA), for the kinds bringup renders:
  - discovery: GET /api, /apis, /api/v1, /apis/GROUP/VERSION (APIResourceList)
  - get and list: GET .../RESOURCE/NAME, GET .../RESOURCE
  - server-side apply: PATCH with Content-Type application/apply-patch+yaml
    (else 415), fieldManager required (else 400), force=true|false;
    managedFields per manager (operation Apply, fieldsV1); a field another
    manager owns with a different value is a 409 Conflict whose causes name
    that manager and the field, exactly as the real server words them;
    resourceVersion changes only when the object does; dryRun=All computes
    the answer and stores nothing
  - namespaced objects need their Namespace (404 otherwise)
  - CustomResourceDefinitions (SCC, CSIScaleOperator, MPIJob) that become
    Established --crd-delay seconds after start; until then their group
    version is not served (404), as on a real server
  - errors on request: --token-file (401 for any other bearer token),
    --forbid VERB:RESOURCE (403 with the server's message), --missing-crd
    NAME (the CRD does not exist), --invalid KIND (422), --seed FILE (objects
    owned by another field manager, "kubectl"), --nodes a,b (existing Nodes)
A DaemonSet, once created, reports its pods ready after --ready-delay
seconds, and the nodes then offer the rdma-devices ConfigMap's resources
and nvidia.com/gpu (what the device plugins do).
--state FILE gets every stored object (JSON) after each change;
--applied-dir DIR every object created by apply, as the client sent it.
Also for `validate --via kubernetes` (t1250-):
  - watch: GET of a list with ?watch=1 streams (chunked) one JSON event a
    line ({"type": ADDED|MODIFIED|DELETED, "object": ...}) for the objects
    that change after ?resourceVersion (fieldSelector metadata.name=X and
    labelSelector k=v,... honoured), until ?timeoutSeconds (default 30)
  - DELETE of an object (MPIJobs take their pods with them; a CRD its kind)
  - the status subresource: PATCH .../NAME/status (merge patch) changes
    only .status; an apply to the object itself leaves .status alone
  - pod logs: GET .../pods/NAME/log (text/plain)
  - a small MPI Operator serving kubeflow.org/v2beta1 (v0.8.0; --mpi-api
    v1alpha2 for the legacy v0.2.3 instead: one version is served, the
    other is not, as a real server with that operator's CRD): an MPIJob
    created gets its worker pods NAME-worker-i (nodeName from the worker's
    nodeSelector kubernetes.io/hostname) and launcher pod NAME-launcher-x,
    labelled training.kubeflow.org/job-name and job-role as v0.8.0's
    defaultLabels() does (mpi_job_name/mpi_role_type as v0.2.3's); the launcher
    runs its mpirun command's program (python SCRIPT: the script) as the
    simulated cluster's stand-in (--sim-dir D: D/bin/PROGRAM with BRINGUP_SIM_NODE=D/nodes/NODE, the -x
    VAR=VALUE settings in its environment), so results follow the nodes'
    faults; its output becomes the launcher's log and the MPIJob's status
    condition Succeeded or Failed follows the exit status.
  - a small Job controller (batch/v1): a Job's pod NAME-h8v2q (label
    job-name) runs its `sh -c SCRIPT` with the node's stand-ins first on
    PATH; its output becomes the pod's log, the Job Complete or Failed.
For cordon and drain (bringup upgrade, t1520): merge patches
(application/merge-patch+json, RFC 7386) of any object, fieldSelector
spec.nodeName=X, PodDisruptionBudgets (policy/v1, minAvailable) and the
pods/eviction subresource (429 TooManyRequests when a budget forbids it,
with the real server's wording; an evicted pod ends after --evict-delay
seconds and, when a ReplicaSet controls it, starts again on a schedulable
node under a new name; a StatefulSet's under the same name with a new uid).
Pods and budgets come from --seed files.
OpenShift's security context constraints (t1270), as "Managing security
context constraints" (docs.openshift.com/container-platform/4.14/
authentication/managing-security-context-constraints.html) describes them:
  - a Namespace gets the annotations openshift.io/sa.scc.uid-range
    (1000650000/10000, the next block for each new one) and
    openshift.io/sa.scc.supplemental-groups, as the cluster policy
    controller sets them;
  - the built-in SCC restricted-v2 (openshift/cluster-kube-apiserver-
    operator, bindata/bootkube/scc-manifests/..._scc-restricted-v2.yaml),
    usable by system:authenticated through the ClusterRole
    system:openshift:scc:restricted-v2, plus the SCCs applied;
  - an SCC is usable by a pod's service account when its users or groups
    name it (groups: system:serviceaccounts, system:serviceaccounts:NS,
    system:authenticated) or RBAC grants `use` on it (a RoleBinding in the
    pod's namespace to a Role with that rule);
  - admission: the pod is admitted by the first usable SCC (restricted-v2
    first, then by name) that allows every container: capabilities added
    only from allowedCapabilities, no privileged container unless allowed,
    no allowPrivilegeEscalation: true unless allowed, a seccomp profile in
    seccompProfiles, volume types in volumes, and with MustRunAsRange a
    runAsUser (pod or container) within the namespace's range; refused
    with the server's wording "unable to validate against any security
    context constraint: [provider ...]". Pods the MPI Operator and the Job
    controller create go through it: a refused MPIJob or Job fails with
    that message (a real controller retries and records an event);
  - POST /apis/authorization.k8s.io/v1/subjectaccessreviews (RBAC only, as
    the real one) and POST /apis/security.openshift.io/v1/namespaces/NS/
    podsecuritypolicysubjectreviews (`oc policy scc-subject-review`:
    status.allowedBy names the SCC that admits spec.template for
    spec.user, or the template's service account).
Field validation of the kinds with a structural schema (MPIJob v2beta1 of
MPI Operator v0.8.0, CSIScaleOperator of Scale CSI 3.0.0, OpenShift's
SecurityContextConstraints: tests/fixtures/openshift/schema/, SOURCES.md
there), as kubernetes.io/docs/reference/using-api/api-concepts/
#field-validation says: a field the schema does not know is refused with
?fieldValidation=Strict (400 BadRequest, in an apply's wording 'failed to
create typed patch object (NS/NAME; GROUP/VERSION, Kind=KIND): .spec.x:
field not declared in schema', structured-merge-diff typed/validate.go),
pruned with a Warning header ('unknown field "spec.x"') under Warn (the
default) and pruned silently under Ignore; then, in every mode, what is left
is validated as apiextensions-apiserver does (422 Invalid: 'PATH: Invalid
value: "string": PATH in body must be of type boolean: "string"',
'Unsupported value', 'Required value').
Transient failures on demand (t1520): --fault-file F, read at every
request, holds lines "CODE COUNT PATH-SUBSTRING [RETRY-AFTER]"; the next
COUNT requests whose path holds the substring are answered CODE (429
TooManyRequests, 503 ServiceUnavailable "etcdserver: leader changed", as
a real server answers during an etcd leader election or under API Priority
and Fairness) with that Retry-After header when given; the request log
marks them "injected".
Every request is logged as one JSON line to --log (method, path, query,
content type, whether a bearer token came; never the token).
Prints "ready PORT" once listening.
"""
import argparse
import copy
import json
import os
import subprocess
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

# (group, version, resource, kind, namespaced)
BUILTIN = [
    ("", "v1", "namespaces", "Namespace", False),
    ("", "v1", "nodes", "Node", False),
    ("", "v1", "serviceaccounts", "ServiceAccount", True),
    ("", "v1", "configmaps", "ConfigMap", True),
    ("", "v1", "secrets", "Secret", True),
    ("", "v1", "persistentvolumes", "PersistentVolume", False),
    ("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True),
    ("", "v1", "pods", "Pod", True),
    ("apps", "v1", "daemonsets", "DaemonSet", True),
    ("batch", "v1", "jobs", "Job", True),
    ("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    ("rbac.authorization.k8s.io", "v1", "roles", "Role", True),
    ("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False),
    ("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", False),
    ("security.openshift.io", "v1", "podsecuritypolicysubjectreviews",
     "PodSecurityPolicySubjectReview", True),
]

# OpenShift 4.14's restricted-v2 (source in the docstring), granted to
# system:authenticated by a ClusterRoleBinding.
RESTRICTED_V2 = {
    "apiVersion": "security.openshift.io/v1", "kind": "SecurityContextConstraints",
    "metadata": {"name": "restricted-v2"},
    "allowHostDirVolumePlugin": False, "allowHostIPC": False, "allowHostNetwork": False,
    "allowHostPID": False, "allowHostPorts": False, "allowPrivilegeEscalation": False,
    "allowPrivilegedContainer": False, "allowedCapabilities": ["NET_BIND_SERVICE"],
    "defaultAddCapabilities": None, "fsGroup": {"type": "MustRunAs"}, "groups": [],
    "priority": None, "readOnlyRootFilesystem": False, "requiredDropCapabilities": ["ALL"],
    "runAsUser": {"type": "MustRunAsRange"}, "seLinuxContext": {"type": "MustRunAs"},
    "seccompProfiles": ["runtime/default"], "supplementalGroups": {"type": "RunAsAny"},
    "users": [], "volumes": ["configMap", "downwardAPI", "emptyDir", "persistentVolumeClaim",
                             "projected", "secret"]}
UID_BLOCK = [1000650000]
CRDS = [
    ("security.openshift.io", "v1", "securitycontextconstraints", "SecurityContextConstraints", False),
    ("csi.ibm.com", "v1", "csiscaleoperators", "CSIScaleOperator", True),
    ("kubeflow.org", "v1alpha2", "mpijobs", "MPIJob", True),
]

lock = threading.Lock()
store = {}          # (group, resource, ns, name) -> object
managed = {}        # same key -> {manager: {path_tuple: value}}
rv = [1000]
logs = {}           # (ns, pod name) -> the pod's log (bytes)
deleted = []        # (key, object) of deleted objects, for watches
events_cv = threading.Condition(lock)
args = None
started = time.time()


def crd_name(c):
    return "%s.%s" % (c[2], c[0])


def served():
    out = list(BUILTIN)
    for c in CRDS:
        if crd_name(c) not in args.missing_crd and time.time() - started >= args.crd_delay:
            out.append(c)
    return out


def status(code, reason, message, details=None):
    s = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
         "message": message, "reason": reason, "code": code}
    if details:
        s["details"] = details
    return code, s


def leaves(obj, prefix=()):
    """Leaf paths of an applied configuration (lists are atomic)."""
    if isinstance(obj, dict) and obj:
        for k, v in obj.items():
            yield from leaves(v, prefix + (k,))
    else:
        yield prefix, obj


def get_path(obj, path):
    for k in path:
        if not isinstance(obj, dict) or k not in obj:
            return None, False
        obj = obj[k]
    return obj, True


def set_path(obj, path, value):
    for k in path[:-1]:
        obj = obj.setdefault(k, {})
    obj[path[-1]] = copy.deepcopy(value)


def del_path(obj, path):
    parents = []
    for k in path[:-1]:
        if not isinstance(obj, dict) or k not in obj:
            return
        parents.append((obj, k))
        obj = obj[k]
    if isinstance(obj, dict):
        obj.pop(path[-1], None)
    for parent, k in reversed(parents):
        if parent[k] == {}:
            del parent[k]


def fields_v1(paths):
    out = {}
    for p in paths:
        node = out
        for k in p:
            node = node.setdefault("f:" + k, {})
    return out


BOOKKEEPING = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation")


def content(obj):
    o = copy.deepcopy(obj)
    for k in BOOKKEEPING:
        o.get("metadata", {}).pop(k, None)
    return o


def ident(p):
    return (".%s" % ".".join(p)) if p else "."


def apply(key, res, body, manager, force, dry):
    live = store.get(key)
    owners = copy.deepcopy(managed.get(key, {}))
    mine = {p: v for p, v in leaves(body) if p[:2] != ("metadata", "managedFields")}
    conflicts = []
    for p, v in mine.items():
        if p in (("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "namespace")):
            continue
        for other, paths in owners.items():
            if other != manager and p in paths:
                cur, ok = get_path(live or {}, p)
                if ok and cur != v:
                    conflicts.append((other, p))
    if conflicts and not force:
        causes = [{"reason": "FieldManagerConflict",
                   "message": 'conflict with "%s" using %s' % (o, body.get("apiVersion")),
                   "field": ident(p)} for o, p in conflicts]
        return status(409, "Conflict", "Apply failed with %d conflict%s: %s" % (
            len(causes), "" if len(causes) == 1 else "s",
            "; ".join("%s: %s" % (c["message"], c["field"]) for c in causes)),
            {"name": key[3], "group": key[0], "kind": res[2], "causes": causes})
    new = copy.deepcopy(live) if live else {}
    for p in owners.get(manager, {}):
        if p not in mine and not any(p in ps for o, ps in owners.items() if o != manager):
            del_path(new, p)
    for p, v in mine.items():
        if p[:1] == ("status",) and live is not None and res[3] == "MPIJob":
            continue  # the status subresource: only PATCH .../status writes it
        set_path(new, p, v)
    for other in list(owners):
        if force and other != manager:
            for p in list(owners[other]):
                if p in mine:
                    del owners[other][p]
    owners[manager] = mine
    if res[3] == "Namespace" and live is None:
        uid_range(new)
    changed = live is None or content(new) != content(live) or \
        managed.get(key, {}).get(manager) != mine
    meta = new.setdefault("metadata", {})
    if changed:
        if not dry:
            rv[0] += 1
        meta["resourceVersion"] = str(rv[0] + (1 if dry else 0))
    meta.setdefault("uid", "uid-%s-%s" % (key[2] or "", key[3]))
    meta.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
    meta["managedFields"] = [{"manager": m, "operation": "Apply", "apiVersion": body.get("apiVersion"),
                              "fieldsType": "FieldsV1", "fieldsV1": fields_v1(ps)}
                             for m, ps in sorted(owners.items()) if ps]
    if not dry:
        store[key] = new
        managed[key] = owners
        if args.applied_dir and live is None:
            # what the client sent, for the tests' schema and policy checks
            with open(os.path.join(args.applied_dir, "%s-%s.yaml" % (res[3].lower(), key[3])),
                      "w") as f:
                yaml.safe_dump(body, f)
        if res[3] == "DaemonSet" and live is None:
            threading.Thread(target=plugin_ready, args=(key,), daemon=True).start()
        if res[3] == "MPIJob" and live is None:
            threading.Thread(target=mpi_operator, args=(key,), daemon=True).start()
        if res[3] == "Job" and live is None:
            threading.Thread(target=job_controller, args=(key,), daemon=True).start()
        save_state()
        events_cv.notify_all()
    return (201 if live is None else 200), new


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    warnings = []
    extra_headers = []

    def send(self, code, obj):
        text = isinstance(obj, bytes)
        data = obj if text else json.dumps(obj).encode()
        self.send_response(code)
        for k, v in self.extra_headers:
            self.send_header(k, v)
        self.extra_headers = []
        for w in self.warnings:
            self.send_header("Warning", '299 - "%s"' % w.replace('"', '\\"'))
        self.warnings = []
        self.send_header("Content-Type", "text/plain" if text else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        body = b""
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            body = self.rfile.read(n)
        auth = self.headers.get("Authorization") or ""
        fault = take_fault(u.path)
        with open(args.log, "a") as f:
            f.write(json.dumps({"method": method, "path": u.path, "query": q,
                                "content_type": self.headers.get("Content-Type"),
                                "bearer": auth.startswith("Bearer "),
                                "injected": fault[0] if fault else None}) + "\n")
        if fault:
            code, retry_after = fault
            reason, msg = {429: ("TooManyRequests", "Too many requests, please try again later."),
                           503: ("ServiceUnavailable", "etcdserver: leader changed")}.get(
                               code, ("InternalError", "injected by the test"))
            if retry_after is not None:
                self.extra_headers = [("Retry-After", str(retry_after))]
            return self.send(*status(code, reason, msg))
        if auth != "Bearer " + args.token:
            return self.send(*status(401, "Unauthorized", "Unauthorized"))
        if method == "GET" and (q.get("watch") or [""])[0] in ("1", "true"):
            return self.watch(u.path, q)
        with lock:
            return self.send(*self.route(method, u.path, q, body))

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def watch(self, path, q):
        """A watch of a list: the events after resourceVersion, streamed."""
        with lock:
            code, lst = self.route("GET", path, {k: v for k, v in q.items() if k != "watch"}, b"")
        if code != 200 or "items" not in lst:
            return self.send(code, lst)
        parts = [p for p in path.split("/") if p]
        ns = parts[parts.index("namespaces") + 1] if "namespaces" in parts[:-1] else None
        resource = parts[-1]
        since = int((q.get("resourceVersion") or ["0"])[0] or 0)
        until = time.time() + float((q.get("timeoutSeconds") or ["30"])[0])
        sent = {}
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while True:
                with lock:
                    cur = {k: o for k, o in store.items() if k[1] == resource and
                           (ns is None or k[2] == ns) and selected(o, q)}
                    events = []
                    for k, o in sorted(cur.items(), key=lambda kv: str(kv[0])):
                        r = int(o["metadata"].get("resourceVersion") or 0)
                        if r > since and sent.get(k) != r:
                            events.append({"type": "MODIFIED" if k in sent else "ADDED",
                                           "object": o})
                            sent[k] = r
                    for k, o in deleted:
                        if k in sent and k not in cur:
                            events.append({"type": "DELETED", "object": o})
                            del sent[k]
                    left = until - time.time()
                    if not events and left > 0:
                        events_cv.wait(min(left, 0.5))
                for e in events:
                    self.chunk(json.dumps(e).encode() + b"\n")
                if time.time() >= until:
                    break
            self.chunk(b"")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True

    def route(self, method, path, q, body):
        parts = [p for p in path.split("/") if p]
        res_all = served()
        if parts == ["api"]:
            return 200, {"kind": "APIVersions", "versions": ["v1"]}
        if parts == ["apis"]:
            groups = sorted({(g, v) for g, v, *_ in res_all if g})
            return 200, {"kind": "APIGroupList", "groups": [
                {"name": g, "versions": [{"groupVersion": "%s/%s" % (g, v), "version": v}]}
                for g, v in groups]}
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return status(404, "NotFound", "the server could not find the requested resource")
        gv = [r for r in res_all if r[0] == group and r[1] == version]
        if not gv:
            return status(404, "NotFound", "the server could not find the requested resource")
        if not rest:
            return 200, {"kind": "APIResourceList", "groupVersion": "%s/%s" % (group, version)
                         if group else version, "resources": [
                {"name": r[2], "kind": r[3], "namespaced": r[4],
                 "verbs": ["get", "list", "patch", "create", "update", "delete"]} for r in gv]}
        ns = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            ns, rest = rest[1], rest[2:]
        res = next((r for r in gv if r[2] == rest[0]), None)
        if not res:
            return status(404, "NotFound", "the server could not find the requested resource")
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        gr = "%s.%s" % (res[2], group) if group else res[2]
        verb = {"GET": "get" if name else "list", "PATCH": "patch", "POST": "create"}.get(
            method, method.lower())
        if "%s:%s" % (verb, gr) in args.forbid:
            where = ' in the namespace "%s"' % ns if ns else " at the cluster scope"
            return status(403, "Forbidden", '%s "%s" is forbidden: User "bringup-test" cannot %s '
                          'resource "%s" in API group "%s"%s' % (
                              gr, name or "", verb, res[2], group, where),
                          {"name": name, "group": group, "kind": res[2]})
        key = (group, res[2], ns, name)
        if sub == "log" and res[3] == "Pod" and method == "GET":
            if key not in store:
                return status(404, "NotFound", 'pods "%s" not found' % name)
            return 200, logs.get((ns, name), b"")
        if sub == "status" and method == "PATCH":
            if key not in store:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            patch = json.loads(body or b"{}")
            store[key]["status"] = patch.get("status", store[key].get("status"))
            bump(key)
            return 200, store[key]
        if sub == "eviction" and method == "POST" and res[3] == "Pod":
            return evict(key)
        if method == "POST" and not name and res[3] == "SubjectAccessReview":
            return subject_access_review(json.loads(body or b"{}"))
        if method == "POST" and not name and res[3] == "PodSecurityPolicySubjectReview":
            return scc_subject_review(ns, json.loads(body or b"{}"))
        if sub:
            return status(404, "NotFound", "the server could not find the requested resource")
        if method == "DELETE" and name:
            if key not in store:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            gone = delete(key)
            if res[3] == "CustomResourceDefinition":
                args.missing_crd.append(name)  # its kind is no longer served
            return 200, gone
        if method == "GET" and name is None:
            items = [o for k, o in sorted(store.items(), key=lambda kv: str(kv[0]))
                     if k[0] == group and k[1] == res[2] and (ns is None or k[2] == ns)
                     and selected(o, q)]
            return 200, {"kind": res[3] + "List", "apiVersion": version if not group
                         else "%s/%s" % (group, version), "metadata": {"resourceVersion": str(rv[0])},
                         "items": items}
        if method == "GET":
            if key in store:
                return 200, store[key]
            return status(404, "NotFound", '%s "%s" not found' % (gr, name),
                          {"name": name, "group": group, "kind": res[2]})
        if method != "PATCH":
            return status(405, "MethodNotAllowed", "only GET and PATCH here")
        ct = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if ct == "application/merge-patch+json":
            if key not in store:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            new = merge_patch(copy.deepcopy(store[key]), json.loads(body or b"{}"))
            if content(new) != content(store[key]):
                store[key] = new
                bump(key)
            return 200, store[key]
        if ct != "application/apply-patch+yaml":
            return status(415, "UnsupportedMediaType",
                          "the body of the request was in an unknown format - accepted media "
                          "types include: application/json-patch+json, application/merge-patch+json, "
                          "application/apply-patch+yaml")
        manager = (q.get("fieldManager") or [""])[0]
        if not manager:
            return status(400, "BadRequest", "PATCH requests with apply content type must "
                          "have a fieldManager query parameter")
        force = (q.get("force") or ["false"])[0] == "true"
        dry = (q.get("dryRun") or [""])[0] == "All"
        try:
            obj = yaml.safe_load(body)
        except yaml.YAMLError as e:
            return status(400, "BadRequest", "error decoding YAML: %s" % e)
        meta = obj.get("metadata") or {} if isinstance(obj, dict) else {}
        if not isinstance(obj, dict) or obj.get("kind") != res[3] or meta.get("name") != name \
                or (res[4] and meta.get("namespace", ns) != ns):
            return status(400, "BadRequest", "the name, kind or namespace of the object "
                          "does not match the request")
        refused, warnings = field_validation(group, version, res[3], obj,
                                             (q.get("fieldValidation") or ["Warn"])[0])
        if refused:
            return refused
        self.warnings = warnings
        if obj.get("kind") in args.invalid:
            return status(422, "Invalid", '%s "%s" is invalid: spec: Invalid value: '
                          '"object": rejected by the stand-in on request' % (res[3], name),
                          {"name": name, "kind": res[3], "causes": [
                              {"reason": "FieldValueInvalid", "field": "spec"}]})
        if res[4] and ("", "namespaces", None, ns) not in store:
            return status(404, "NotFound", 'namespaces "%s" not found' % ns,
                          {"name": ns, "kind": "namespaces"})
        if res[3] == "Node" and key not in store:
            # a real kubelet registers nodes; an apply creating one is a mistake
            return status(422, "Invalid", 'Node "%s" would be created by apply' % name)
        return apply(key, res, obj, manager, force, dry)

    def do_GET(self):
        self.handle_any("GET")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")


def selected(o, q):
    """fieldSelector metadata.name=X and labelSelector k=v,... (equality only)."""
    m = o.get("metadata") or {}
    for f in filter(None, (q.get("fieldSelector") or [""])[0].split(",")):
        k, _, v = f.partition("=")
        if k == "metadata.name" and m.get("name") != v:
            return False
        if k == "spec.nodeName" and (o.get("spec") or {}).get("nodeName") != v:
            return False
    labels = m.get("labels") or {}
    for f in filter(None, (q.get("labelSelector") or [""])[0].split(",")):
        k, _, v = f.partition("=")
        if labels.get(k) != v:
            return False
    return True


fault_lock = threading.Lock()


def take_fault(path):
    """(code, retry_after or None) of the --fault-file entry this request uses up."""
    if not args.fault_file or not os.path.exists(args.fault_file):
        return None
    with fault_lock:
        lines = [l.split() for l in open(args.fault_file) if l.strip()]
        for e in lines:
            if int(e[1]) > 0 and e[2] in path:
                e[1] = str(int(e[1]) - 1)
                with open(args.fault_file, "w") as f:
                    f.write("".join(" ".join(x) + "\n" for x in lines))
                return int(e[0]), (int(e[3]) if len(e) > 3 else None)
    return None


def uid_range(ns_obj):
    """What OpenShift's cluster policy controller gives a new namespace."""
    ann = ns_obj.setdefault("metadata", {}).setdefault("annotations", {})
    if "openshift.io/sa.scc.uid-range" not in ann:
        ann["openshift.io/sa.scc.uid-range"] = "%d/10000" % UID_BLOCK[0]
        ann["openshift.io/sa.scc.supplemental-groups"] = "%d/10000" % UID_BLOCK[0]
        UID_BLOCK[0] += 10000


def rule_allows(rule, verb, group, resource, name):
    def has(lst, v):
        return "*" in (lst or []) or v in (lst or [])
    return (has(rule.get("verbs"), verb) and has(rule.get("apiGroups"), group)
            and has(rule.get("resources"), resource)
            and (not rule.get("resourceNames") or name in rule["resourceNames"]))


def rbac_allows(user, groups, ns, verb, group, resource, name):
    """RBAC (lock held): RoleBindings in ns to Roles there; and the built-in
    grant of restricted-v2 to system:authenticated."""
    if (group, resource, verb, name) == ("security.openshift.io", "securitycontextconstraints",
                                         "use", "restricted-v2") and \
            "system:authenticated" in groups:
        return True
    for k, rb in store.items():
        if k[1] != "rolebindings" or k[2] != ns:
            continue
        subj = False
        for sj in rb.get("subjects") or []:
            if sj.get("kind") == "ServiceAccount" and user == "system:serviceaccount:%s:%s" % (
                    sj.get("namespace") or ns, sj.get("name")):
                subj = True
            if sj.get("kind") == "User" and sj.get("name") == user:
                subj = True
            if sj.get("kind") == "Group" and sj.get("name") in groups:
                subj = True
        ref = rb.get("roleRef") or {}
        if not subj or ref.get("kind") != "Role":
            continue
        role = store.get(("rbac.authorization.k8s.io", "roles", ns, ref.get("name")))
        if role and any(rule_allows(r, verb, group, resource, name) for r in role.get("rules") or []):
            return True
    return False


def sa_groups(ns):
    return ["system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"]


def subject_access_review(body):
    spec = body.get("spec") or {}
    ra = spec.get("resourceAttributes") or {}
    user = spec.get("user") or ""
    groups = spec.get("groups") or (sa_groups(user.split(":")[2])
                                    if user.startswith("system:serviceaccount:") else [])
    ok = rbac_allows(user, groups, ra.get("namespace"), ra.get("verb"), ra.get("group", ""),
                     ra.get("resource"), ra.get("name"))
    return 201, {"kind": "SubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                 "spec": spec, "status": {"allowed": ok, "reason": "RBAC: allowed by RoleBinding"
                                          if ok else ""}}


def all_sccs():
    stored = sorted((o for k, o in store.items() if k[1] == "securitycontextconstraints"),
                    key=lambda o: o["metadata"]["name"])
    return [RESTRICTED_V2] + stored


def scc_usable(scc, user, groups, ns):
    return (user in (scc.get("users") or []) or set(groups) & set(scc.get("groups") or [])
            or rbac_allows(user, groups, ns, "use", "security.openshift.io",
                           "securitycontextconstraints", scc["metadata"]["name"]))


def scc_problems(scc, spec, ns):
    """Why scc does not admit pod spec `spec` in namespace ns ([] when it does)."""
    out = []
    psc = spec.get("securityContext") or {}
    lo = hi = None
    ann = ((store.get(("", "namespaces", None, ns)) or {}).get("metadata") or {}).get("annotations") or {}
    rng = ann.get("openshift.io/sa.scc.uid-range")
    if rng:
        base, _, size = rng.partition("/")
        lo, hi = int(base), int(base) + int(size or 1) - 1
    seccomp = {"RuntimeDefault": "runtime/default", "Unconfined": "unconfined"}
    for i, c in enumerate(spec.get("containers") or []):
        sc = c.get("securityContext") or {}
        where = "spec.containers[%d].securityContext" % i
        allowed = set(scc.get("allowedCapabilities") or []) | set(scc.get("defaultAddCapabilities") or [])
        for cap in (sc.get("capabilities") or {}).get("add") or []:
            if cap not in allowed and "*" not in allowed:
                out.append('%s.capabilities.add: Invalid value: "%s": capability may not be '
                           'added' % (where, cap))
        if sc.get("privileged") and not scc.get("allowPrivilegedContainer"):
            out.append("%s.privileged: Invalid value: true: Privileged containers are not "
                       "allowed" % where)
        if sc.get("allowPrivilegeEscalation") and not scc.get("allowPrivilegeEscalation", True):
            out.append("%s.allowPrivilegeEscalation: Invalid value: true: Allowing privilege "
                       "escalation for containers is not allowed" % where)
        uid = sc.get("runAsUser", psc.get("runAsUser"))
        if (scc.get("runAsUser") or {}).get("type") == "MustRunAsRange" and uid is not None:
            if lo is None:
                out.append("unable to find annotation openshift.io/sa.scc.uid-range")
            elif not lo <= int(uid) <= hi:
                out.append("%s.runAsUser: Invalid value: %s: must be in the ranges: [%d, %d]"
                           % (where, uid, lo, hi))
        prof = (sc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type")
        if prof and scc.get("seccompProfiles") is not None and \
                seccomp.get(prof, prof) not in scc["seccompProfiles"] and "*" not in scc["seccompProfiles"]:
            out.append("%s.seccompProfile.type: Forbidden: %s is not an allowed seccomp "
                       "profile" % (where, prof))
    for v in spec.get("volumes") or []:
        kinds = [k for k in v if k != "name"]
        for k in kinds:
            if k not in (scc.get("volumes") or []) and "*" not in (scc.get("volumes") or []):
                out.append('spec.volumes[%s]: Invalid value: "%s": %s volumes are not allowed '
                           'to be used' % (v.get("name"), k, k))
    return out


def scc_admit(ns, spec, user=None):
    """(SCC name or None, the refusal message) for a pod spec in ns (lock held)."""
    sa = spec.get("serviceAccountName") or spec.get("serviceAccount") or "default"
    user = user or "system:serviceaccount:%s:%s" % (ns, sa)
    groups = sa_groups(ns)
    reasons = []
    for scc in all_sccs():
        name = scc["metadata"]["name"]
        if not scc_usable(scc, user, groups, ns):
            reasons.append('provider "%s": Forbidden: not usable by user or serviceaccount' % name)
            continue
        probs = scc_problems(scc, spec, ns)
        if not probs:
            return name, ""
        reasons += ['provider "%s": %s' % (name, p) for p in probs]
    return None, "unable to validate against any security context constraint: [%s]" % \
        ", ".join(reasons)


def scc_subject_review(ns, body):
    spec = body.get("spec") or {}
    tmpl = spec.get("template") or {}
    name, why = scc_admit(ns, tmpl.get("spec") or {}, spec.get("user") or None)
    st = {"allowedBy": {"kind": "SecurityContextConstraints", "name": name}} if name else \
        {"reason": why}
    return 201, {"kind": "PodSecurityPolicySubjectReview", "apiVersion": "security.openshift.io/v1",
                 "spec": spec, "status": st}


def merge_patch(target, patch):
    """RFC 7386: null removes a key, objects merge, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = merge_patch(target.get(k), v)
    return target


def evict(key):
    """POST .../pods/NAME/eviction (lock held), as the real server answers it:
    429 when a PodDisruptionBudget whose selector matches the pod would fall
    below minAvailable healthy pods, else 201 and the pod ends after
    --evict-delay seconds; a pod a ReplicaSet controls is started again on
    a schedulable node (its replacement Running after the same delay)."""
    if key not in store:
        return status(404, "NotFound", 'pods "%s" not found' % key[3])
    pod = store[key]
    labels = pod["metadata"].get("labels") or {}
    if not pod["metadata"].get("deletionTimestamp"):
        for k, pdb in store.items():
            if k[1] != "poddisruptionbudgets" or k[2] != key[2]:
                continue
            sel = ((pdb.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
            if any(labels.get(a) != b for a, b in sel.items()):
                continue
            healthy = [o for kk, o in store.items() if kk[1] == "pods" and kk[2] == key[2] and
                       all((o["metadata"].get("labels") or {}).get(a) == b for a, b in sel.items())
                       and (o.get("status") or {}).get("phase") == "Running"
                       and not o["metadata"].get("deletionTimestamp")]
            need = int(pdb["spec"].get("minAvailable", 0))
            if len(healthy) - 1 < need:
                return status(429, "TooManyRequests", "Cannot evict pod as it would violate the "
                              "pod's disruption budget.", {"causes": [{
                                  "reason": "DisruptionBudget",
                                  "message": "The disruption budget %s needs %d healthy pods "
                                  "and has %d currently" % (k[3], need, len(healthy))}]})
        pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        bump(key)
        threading.Thread(target=evicted, args=(key,), daemon=True).start()
    return 201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}


def evicted(key):
    time.sleep(args.evict_delay)
    with lock:
        if key not in store:
            return
        gone = delete(key)
        owner = next((o for o in gone["metadata"].get("ownerReferences") or []
                      if o.get("controller") and o.get("kind") in ("ReplicaSet", "StatefulSet")),
                     None)
        nodes = sorted(k[3] for k, o in store.items() if k[1] == "nodes" and
                       not (o.get("spec") or {}).get("unschedulable"))
        old = (gone.get("spec") or {}).get("nodeName")
        node = next((n for n in nodes if n != old), None)
        if not owner or not node:
            return
        # A StatefulSet's replacement keeps the pod's name (its identity)
        # with a new uid (kubernetes.io/docs/concepts/workloads/controllers/
        # statefulset/#pod-identity); a ReplicaSet's gets a new name.
        if owner["kind"] == "StatefulSet":
            name = key[3]
        else:
            name = "%s-%s" % (owner["name"], format(rv[0], "x")[-5:])
        new = {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "namespace": key[2], "labels": gone["metadata"].get("labels") or {},
            "uid": "uid-pod-%s-%d" % (name, rv[0]), "ownerReferences": [owner]},
            "spec": {"nodeName": node}, "status": {"phase": "Pending"}}
        store[("", "pods", key[2], name)] = new
        bump(("", "pods", key[2], name))
    time.sleep(args.evict_delay)
    with lock:
        k = ("", "pods", key[2], name)
        if k in store:
            store[k]["status"]["phase"] = "Running"
            bump(k)


def bump(key):
    """A change to a stored object (lock held): new resourceVersion, watchers woken."""
    rv[0] += 1
    store[key]["metadata"]["resourceVersion"] = str(rv[0])
    save_state()
    events_cv.notify_all()


def delete(key):
    """Deletes an object (lock held); an MPIJob's pods go with it (ownerReferences)."""
    gone = store.pop(key)
    managed.pop(key, None)
    rv[0] += 1
    gone["metadata"]["resourceVersion"] = str(rv[0])
    deleted.append((key, gone))
    if key[1] in ("mpijobs", "jobs"):
        label = MPI_LABELS[args.mpi_api][0] if key[1] == "mpijobs" else "job-name"
        for k in [k for k, o in store.items() if k[1] == "pods" and k[2] == key[2] and
                  (o["metadata"].get("labels") or {}).get(label) == key[3]]:
            delete(k)
    save_state()
    events_cv.notify_all()
    return gone


def put_pod(ns, name, labels, node, phase):
    key = ("", "pods", ns, name)
    store[key] = {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "namespace": ns, "labels": labels, "uid": "uid-pod-" + name},
        "spec": {"nodeName": node}, "status": {"phase": phase}}
    bump(key)


def pod_done(ns, name, rc, out):
    """A pod's program ended (lock held): its output is its log."""
    logs[(ns, name)] = out
    if ("", "pods", ns, name) in store:
        store[("", "pods", ns, name)]["status"]["phase"] = "Succeeded" if rc == 0 else "Failed"
        bump(("", "pods", ns, name))


def launcher_run(cmd, node):
    """The launcher's mpirun: its program run as the simulated node's stand-in."""
    env = {"PATH": "/usr/bin:/bin"}
    i = 1 if cmd[:1] == ["mpirun"] else 0
    while i < len(cmd) and cmd[i].startswith("-"):
        if cmd[i] == "-x" and "=" in cmd[i + 1]:
            k, _, v = cmd[i + 1].partition("=")
            env[k] = v
        i += 1 if cmd[i] in ("--allow-run-as-root", "--oversubscribe") else 2
    if i < len(cmd) and cmd[i] == "-mca":
        i += 3
    prog = cmd[i:] if i < len(cmd) else ["true"]
    if len(prog) > 1 and os.path.basename(prog[0]) in ("python", "python3"):
        prog = prog[1:]  # the interpreter runs the script: the script's stand-in
    short = node.split(".")[0]
    env["BRINGUP_SIM_NODE"] = os.path.join(args.sim_dir, "nodes", short)
    env["BRINGUP_SIM_CLUSTER"] = os.path.join(args.sim_dir, "cluster")
    exe = os.path.join(args.sim_dir, "bin", os.path.basename(prog[0]))
    if not args.sim_dir or not os.path.isdir(env["BRINGUP_SIM_NODE"]) or not os.path.exists(exe):
        return 1, ("launcher: %s: not found on node %s\n" % (prog[0], node)).encode()
    try:
        p = subprocess.run([exe] + prog[1:], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=300)
    except subprocess.TimeoutExpired:
        return 124, b"launcher: timed out\n"
    return p.returncode, p.stdout


MPI_LABELS = {"v2beta1": ("training.kubeflow.org/job-name", "training.kubeflow.org/job-role"),
              "v1alpha2": ("mpi_job_name", "mpi_role_type")}


def mpi_labels(name, role):
    n, r = MPI_LABELS[args.mpi_api]
    out = {n: name, r: role}
    if args.mpi_api == "v2beta1":
        out["training.kubeflow.org/operator-name"] = "mpi-operator"
    return out


SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                          "openshift", "schema")
# The kinds whose upstream schema the stand-in enforces (SOURCES.md there
# names each one's release): the CRDs a real server validates with their
# openAPIV3Schema (structural, so unknown fields are pruned or refused).
STRUCTURAL = {("kubeflow.org", "v2beta1", "MPIJob"): "mpijob-kubeflow-v2beta1.json",
              ("csi.ibm.com", "v1", "CSIScaleOperator"): "csiscaleoperator-csi-v1.json",
              ("security.openshift.io", "v1", "SecurityContextConstraints"):
                  "securitycontextconstraints-security-v1.json"}
_schemas = {}


def unknown_fields(node, schema, path=""):
    """Paths of fields the (inline, CRD-style) schema does not list."""
    out = []
    if isinstance(schema, dict) and schema.get("x-kubernetes-preserve-unknown-fields"):
        return out
    if isinstance(node, dict) and isinstance(schema, dict):
        props = schema.get("properties")
        for k, v in node.items():
            p = "%s.%s" % (path, k) if path else k
            if props is not None and k not in props:
                if schema.get("additionalProperties") is False or \
                        schema.get("additionalProperties") is None and props:
                    out.append(p)
                elif isinstance(schema.get("additionalProperties"), dict):
                    out += unknown_fields(v, schema["additionalProperties"], p)
            elif props is not None:
                out += unknown_fields(v, props[k], p)
    elif isinstance(node, list) and isinstance(schema, dict) and "items" in schema:
        for i, v in enumerate(node):
            out += unknown_fields(v, schema["items"], "%s[%d]" % (path, i))
    return out


JSON_TYPES = {"string": str, "boolean": bool, "object": dict, "array": list,
              "integer": int, "number": (int, float)}


def type_name(v):
    return {str: "string", bool: "boolean", dict: "object", list: "array", int: "integer",
            float: "number", type(None): "null"}.get(type(v), "string")


def invalid_fields(node, schema, path=""):
    """(path, message) of what the CRD validation of apiextensions-apiserver
    refuses after decoding: a wrong type, a value outside an enum, a missing
    required field (its wording: "PATH in body must be of type T: \"U\"",
    "Unsupported value", "Required value")."""
    out = []
    if not isinstance(schema, dict):
        return out
    want = schema.get("type")
    if want:
        kinds = want if isinstance(want, list) else [want]
        ok = any(k == "null" and node is None or k in JSON_TYPES and
                 isinstance(node, JSON_TYPES[k]) and
                 not (k in ("integer", "number") and isinstance(node, bool))
                 for k in kinds)
        if not ok:
            return [(path, 'Invalid value: "%s": %s in body must be of type %s: "%s"' % (
                type_name(node), path, kinds[0], type_name(node)))]
    if "enum" in schema and node not in schema["enum"]:
        out.append((path, 'Unsupported value: %s: supported values: %s' % (
            json.dumps(node), ", ".join(json.dumps(e) for e in schema["enum"]))))
    if isinstance(node, dict):
        for r in schema.get("required") or []:
            if r not in node:
                out.append(("%s.%s" % (path, r) if path else r, "Required value"))
        props = schema.get("properties") or {}
        for k, v in node.items():
            sub = props.get(k)
            if sub is None and isinstance(schema.get("additionalProperties"), dict):
                sub = schema["additionalProperties"]
            if sub is not None:
                out += invalid_fields(v, sub, "%s.%s" % (path, k) if path else k)
    elif isinstance(node, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(node):
            out += invalid_fields(v, schema["items"], "%s[%d]" % (path, i))
    return out


def prune_fields(obj, paths):
    for p in paths:
        parts = p.replace("]", "").replace("[", ".").split(".")
        node = obj
        for k in parts[:-1]:
            node = node[int(k)] if isinstance(node, list) else node.get(k)
        if isinstance(node, dict):
            node.pop(parts[-1], None)


def field_validation(group, version, kind, obj, mode):
    """(status, None) for Strict with unknown fields, else (None, warnings)."""
    name = STRUCTURAL.get((group, version, kind))
    if not name:
        return None, []
    if name not in _schemas:
        with open(os.path.join(SCHEMA_DIR, name)) as f:
            _schemas[name] = json.load(f)
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    meta = obj.get("metadata") or {}
    bad = unknown_fields(body, _schemas[name])
    warnings = []
    if bad and mode == "Strict":
        # An apply builds a typed patch with the schema first
        # (structured-merge-diff, typed/validate.go: ".PATH: field not
        # declared in schema"); under Strict (KEP-2885, "Server Side Unknown
        # Field Validation") that is a 400 BadRequest naming every field.
        return status(400, "BadRequest", "failed to create typed patch object (%s%s; %s/%s, "
                      "Kind=%s): %s" % (meta.get("namespace") and meta["namespace"] + "/" or "",
                                        meta.get("name"), group, version, kind,
                                        ", ".join(".%s: field not declared in schema" % b
                                                  for b in bad)),
                      {"kind": kind, "causes": [{"reason": "FieldValueInvalid", "field": b,
                                                 "message": "field not declared in schema"}
                                                for b in bad]}), []
    if bad:
        prune_fields(obj, bad)
        body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        warnings = [] if mode == "Ignore" else ['unknown field "%s"' % b for b in bad]
    # Then the CRD's validation of the pruned object, whatever the mode: 422.
    top = dict(_schemas[name])
    top["required"] = [r for r in top.get("required") or []
                       if r not in ("apiVersion", "kind", "metadata")]
    wrong = invalid_fields(body, top)
    if wrong:
        return status(422, "Invalid", '%s.%s "%s" is invalid: %s' % (
            kind, group, meta.get("name"), ", ".join("%s: %s" % w for w in wrong)),
            {"kind": kind, "causes": [{"reason": "FieldValueInvalid", "field": w[0],
                                       "message": w[1]} for w in wrong]}), []
    return None, warnings


def mpi_operator(key):
    """What the MPI Operator and the kubelets do with a new MPIJob."""
    time.sleep(args.mpi_delay)
    with lock:
        job = store.get(key)
        if not job:
            return
        ns, name = key[2], key[3]
        specs = job.get("spec", {}).get("mpiReplicaSpecs", {})
        wspec = specs.get("Worker", {})
        wsel = wspec.get("template", {}).get("spec", {}).get("nodeSelector") or {}
        node = wsel.get("kubernetes.io/hostname")
        nodes = sorted(k[3] for k in store if k[1] == "nodes")
        node = node or (nodes[0] if nodes else "")
        for role in ("Launcher", "Worker"):
            pspec = (specs.get(role) or {}).get("template", {}).get("spec", {})
            scc, why = scc_admit(ns, pspec)
            if not scc:
                pod = "%s-%s" % (name, "launcher" if role == "Launcher" else "worker-0")
                job["status"] = {"conditions": [{"type": "Failed", "status": "True",
                                                 "reason": "FailedCreatePod",
                                                 "message": 'pods "%s" is forbidden: %s' % (pod, why)}]}
                bump(key)
                return
        for i in range(int(wspec.get("replicas", 1))):
            put_pod(ns, "%s-worker-%d" % (name, i), mpi_labels(name, "worker"), node, "Running")
        launcher = "%s-launcher-x7k2p" % name
        put_pod(ns, launcher, mpi_labels(name, "launcher"), node, "Running")
        job["status"] = {"conditions": [{"type": "Created", "status": "True"},
                                        {"type": "Running", "status": "True"}]}
        bump(key)
        cmd = (specs.get("Launcher", {}).get("template", {}).get("spec", {})
               .get("containers") or [{}])[0].get("command") or []
    rc, out = launcher_run(cmd, node)
    with lock:
        job = store.get(key)
        if not job:
            return
        pod_done(ns, launcher, rc, out)
        done = "Succeeded" if rc == 0 else "Failed"
        job["status"] = {"conditions": [{"type": "Created", "status": "True"},
                                        {"type": "Running", "status": "False"},
                                        {"type": done, "status": "True",
                                         "reason": "MPIJob" + done,
                                         "message": "MPIJob %s/%s %s." % (ns, name, done.lower())}],
                         "replicaStatuses": {"Launcher": {"succeeded" if rc == 0 else "failed": 1}}}
        bump(key)


def job_controller(key):
    """What the Job controller and the kubelet do with a new batch/v1 Job:
    one pod NAME-xxxxx labelled job-name, on the node of its nodeSelector
    kubernetes.io/hostname (or nodeName); a `sh -c SCRIPT` container runs
    SCRIPT with the simulated node's stand-ins first on PATH. The pod's
    output is its log; the Job gets condition Complete or Failed."""
    time.sleep(args.mpi_delay)
    with lock:
        job = store.get(key)
        if not job:
            return
        ns, name = key[2], key[3]
        pspec = job.get("spec", {}).get("template", {}).get("spec", {})
        node = (pspec.get("nodeSelector") or {}).get("kubernetes.io/hostname") or pspec.get("nodeName", "")
        pod = "%s-h8v2q" % name
        scc, why = scc_admit(ns, pspec)
        if not scc:
            job["status"] = {"conditions": [{"type": "Failed", "status": "True",
                                             "reason": "FailedCreatePod",
                                             "message": 'pods "%s" is forbidden: %s' % (pod, why)}],
                             "failed": 1}
            bump(key)
            return
        put_pod(ns, pod, {"job-name": name, "controller-uid": "uid-" + name}, node, "Running")
        job["status"] = {"active": 1}
        bump(key)
        cmd = (pspec.get("containers") or [{}])[0].get("command") or []
    short = node.split(".")[0]
    env = {"PATH": "%s:/usr/bin:/bin" % os.path.join(args.sim_dir or "", "bin"),
           "BRINGUP_SIM_NODE": os.path.join(args.sim_dir or "", "nodes", short),
           "BRINGUP_SIM_CLUSTER": os.path.join(args.sim_dir or "", "cluster")}
    if not args.sim_dir or not os.path.isdir(env["BRINGUP_SIM_NODE"]) or cmd[:2] != ["sh", "-c"]:
        rc, out = 1, ("pod: cannot run %s on node %s\n" % (cmd[:1], node)).encode()
    else:
        try:
            p = subprocess.run(cmd[:3], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=300)
            rc, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired:
            rc, out = 124, b"pod: timed out\n"
    with lock:
        job = store.get(key)
        if not job:
            return
        pod_done(ns, pod, rc, out)
        done = "Complete" if rc == 0 else "Failed"
        job["status"] = {"conditions": [{"type": done, "status": "True"}],
                         "succeeded" if rc == 0 else "failed": 1}
        bump(key)


def plugin_ready(key):
    """What the RDMA shared device plugin does once its pods run: the
    DaemonSet reports them ready and every node offers the ConfigMap's
    resources (and, the GPU operator being there, nvidia.com/gpu)."""
    time.sleep(args.ready_delay)
    with lock:
        nodes = [k for k in store if k[1] == "nodes"]
        ds = store.get(key)
        if not ds:
            return
        ds["status"] = {"desiredNumberScheduled": len(nodes), "numberReady": len(nodes)}
        rv[0] += 1
        ds["metadata"]["resourceVersion"] = str(rv[0])
        cm = store.get(("", "configmaps", key[2], "rdma-devices")) or {}
        conf = json.loads((cm.get("data") or {}).get("config.json") or "{}")
        for k in nodes:
            alloc = {"nvidia.com/gpu": "8"}
            for c in conf.get("configList", []):
                alloc["rdma/" + c["resourceName"]] = "0" if args.rdma_zero_delay else str(c["rdmaHcaMax"])
            store[k].setdefault("status", {})["allocatable"] = alloc
            rv[0] += 1
            store[k]["metadata"]["resourceVersion"] = str(rv[0])
        save_state()
    if args.rdma_zero_delay:
        # --rdma-zero-delay: the plugin first registers its resources at 0
        # (no device found yet), the devices come D seconds later
        time.sleep(args.rdma_zero_delay)
        with lock:
            for k in nodes:
                if k in store:
                    for c in conf.get("configList", []):
                        store[k]["status"]["allocatable"]["rdma/" + c["resourceName"]] = str(c["rdmaHcaMax"])
                    rv[0] += 1
                    store[k]["metadata"]["resourceVersion"] = str(rv[0])
            save_state()


def save_state():
    """The stored objects, for tests that compare the server before and after."""
    if args.state:
        with open(args.state + ".tmp", "w") as f:
            json.dump([store[k] for k in sorted(store, key=str)], f, indent=1, sort_keys=True)
        import os
        os.replace(args.state + ".tmp", args.state)


def seed_crds():
    for c in CRDS:
        if crd_name(c) in args.missing_crd:
            continue
        est = time.time() - started >= args.crd_delay
        store[("apiextensions.k8s.io", "customresourcedefinitions", None, crd_name(c))] = {
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": crd_name(c), "resourceVersion": "1"},
            "spec": {"group": c[0], "names": {"kind": c[3], "plural": c[2]}},
            "status": {"conditions": [{"type": "Established", "status": "True" if est else "False"}]}}


def crd_timer():
    while time.time() - started < args.crd_delay:
        time.sleep(0.05)
    with lock:
        seed_crds()


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--token-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--crd-delay", type=float, default=0)
    p.add_argument("--missing-crd", action="append", default=[])
    p.add_argument("--forbid", action="append", default=[])
    p.add_argument("--invalid", action="append", default=[])
    p.add_argument("--seed", action="append", default=[])
    p.add_argument("--nodes", default="")
    p.add_argument("--state", default="")
    p.add_argument("--ready-delay", type=float, default=0)
    p.add_argument("--namespaces", default="default,kube-system")
    p.add_argument("--sim-dir", default="")
    p.add_argument("--applied-dir", default="")
    p.add_argument("--mpi-delay", type=float, default=0.2)
    p.add_argument("--evict-delay", type=float, default=0.5)
    p.add_argument("--mpi-api", choices=("v2beta1", "v1alpha2"), default="v2beta1")
    p.add_argument("--fault-file", default="")
    p.add_argument("--rdma-zero-delay", type=float, default=0)
    args = p.parse_args()
    CRDS[:] = [(g, args.mpi_api if k == "MPIJob" else v, r, k, n) for g, v, r, k, n in CRDS]
    args.token = open(args.token_file).read().strip()
    seed_crds()
    if args.crd_delay:
        threading.Thread(target=crd_timer, daemon=True).start()
    for n in filter(None, args.namespaces.split(",")):
        store[("", "namespaces", None, n)] = {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"name": n, "resourceVersion": "3"}}
        uid_range(store[("", "namespaces", None, n)])
    for n in filter(None, args.nodes.split(",")):
        store[("", "nodes", None, n)] = {"apiVersion": "v1", "kind": "Node", "metadata": {
            "name": n, "resourceVersion": "5", "labels": {"kubernetes.io/hostname": n}}}
        managed[("", "nodes", None, n)] = {"kubelet": {("metadata", "labels", "kubernetes.io/hostname"): n}}
    for f in args.seed:
        for obj in yaml.safe_load_all(open(f)):
            if not obj:
                continue
            res = next(r for r in BUILTIN + CRDS if r[3] == obj["kind"])
            m = obj["metadata"]
            key = (res[0], res[2], m.get("namespace") if res[4] else None, m["name"])
            with lock:
                apply(key, res, obj, "kubectl", False, False)
    save_state()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("ready %d" % srv.server_address[1], flush=True)
    srv.serve_forever()


main()
