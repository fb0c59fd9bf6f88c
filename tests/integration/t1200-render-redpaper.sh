#!/bin/sh
# `render` of the Redpaper PoC inventory, with the records a deploy of its
# Spectrum Scale stages leaves (the Redpaper's cluster ID and file system
# UID), produces field for field what the Redpaper applies (fixtures
# transcribed from it, typos corrected and noted); every object validates
# against its kind's upstream schema; the Role grants only `use` on the one
# SCC and no pod adds a capability beyond IPC_LOCK; the SCC is restricted-v2
# plus IPC_LOCK with no users or groups, no pod sets runAsUser (the
# Redpaper's own SCC and jobs are refused: kube-check.py DEVIATIONS lists
# where bringup departs from it, and why); a second render is byte
# for byte the first. The schema check is shown to bite: the Redpaper's own
# RoleBinding (roleRef.namespace, userNames) is refused, and so is a typo in
# an MPIJob's pod template. Also the NCCL and ResNet-50 MPIJobs of 4.4 and
# 4.5 and the training job of 5.2 (jobs/) as kubeflow.org/v2beta1 (valid
# against MPI Operator v0.8.0's CRD, a typo refused); with --with-operators
# the MPI Operator (operators/), field for field upstream's v0.8.0 manifest;
# v1alpha2 and v0.2.3's manifest (Redpaper 3.4.4) only when the inventory
# asks for a legacy operator (openshift.mpi_operator.api).
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
inv="$root/inventory/redbook-poc.yaml"
fx="$root/tests/fixtures/openshift"
# inventories written here keep redbook-poc.yaml's relative GUI CA paths
ln -s "$root/inventory/certs" "$TEST_DIR/certs"
check="python3 $root/tests/tools/kube-check.py"
python3 -c 'import jsonschema, yaml' 2>/dev/null || skip python3-jsonschema "tools/install-deps.sh"

state="$TEST_DIR/state"
mkdir -p "$state/runs/r1"
cp "$fx/state/journal.json" "$state/runs/r1/"
ln -s runs/r1 "$state/last"

# Without the records there is nothing to build the volumeHandle from.
"$BRINGUP" render -i "$inv" -o "$TEST_DIR/none" --state-dir "$TEST_DIR/empty" \
	>"$TEST_DIR/none.out" 2>&1 && fail "render without records succeeded"
grep -q "no recorded scale.cluster_id: run \`bringup deploy\`" "$TEST_DIR/none.out" ||
	fail "no actionable message: $(cat "$TEST_DIR/none.out")"

"$BRINGUP" render -i "$inv" -o "$TEST_DIR/r1" --state-dir "$state" >"$TEST_DIR/r1.out" ||
	fail "render failed: $(cat "$TEST_DIR/r1.out")"
grep -qx "render: 34 objects in $TEST_DIR/r1" "$TEST_DIR/r1.out" || fail "$(cat "$TEST_DIR/r1.out")"
(cd "$TEST_DIR/r1" && ls *.yaml jobs/*.yaml) >"$TEST_DIR/files"
cat >"$TEST_DIR/want" <<'LIST'
01-securitycontextconstraints-scc-for-mpi.yaml
02-namespace-adas.yaml
03-serviceaccount-mpi.yaml
04-role-mpi.yaml
05-rolebinding-mpi.yaml
06-configmap-rdma-devices.yaml
07-daemonset-rdma-shared-dp-ds.yaml
08-node-dgx01.ocp4.scale.ibm.com.yaml
09-node-dgx02.ocp4.scale.ibm.com.yaml
10-configmap-cacert-16217308676014575381.yaml
11-configmap-cacert-215057217487177715.yaml
12-csiscaleoperator-ibm-spectrum-scale-csi.yaml
13-persistentvolume-adas-data-pv01.yaml
14-persistentvolumeclaim-adas-data-pvc.yaml
15-configmap-bringup-applyset.yaml
jobs/01-mpijob-nccl-test-mpi-01x08-tcp.yaml
jobs/02-mpijob-nccl-test-mpi-01x08-ib.yaml
jobs/03-mpijob-nccl-test-mpi-01x08-ib-gdr.yaml
jobs/04-mpijob-nccl-test-mpi-02x08-tcp.yaml
jobs/05-mpijob-nccl-test-mpi-02x08-ib.yaml
jobs/06-mpijob-nccl-test-mpi-02x08-ib-gdr.yaml
jobs/07-mpijob-nccl-test-mpi-16x01-tcp.yaml
jobs/08-mpijob-nccl-test-mpi-16x01-ib.yaml
jobs/09-mpijob-nccl-test-mpi-16x01-ib-gdr.yaml
jobs/10-mpijob-tf2-resnet50-01x08x01-tcp.yaml
jobs/11-mpijob-tf2-resnet50-01x08x01-ib.yaml
jobs/12-mpijob-tf2-resnet50-01x08x01-ib-gdr.yaml
jobs/13-mpijob-tf2-resnet50-02x08x02-tcp.yaml
jobs/14-mpijob-tf2-resnet50-02x08x02-ib.yaml
jobs/15-mpijob-tf2-resnet50-02x08x02-ib-gdr.yaml
jobs/16-mpijob-tf2-resnet50-16x01x02-tcp.yaml
jobs/17-mpijob-tf2-resnet50-16x01x02-ib.yaml
jobs/18-mpijob-tf2-resnet50-16x01x02-ib-gdr.yaml
jobs/19-mpijob-tf2-a2d2-16x01x02-gpu.yaml
LIST
diff "$TEST_DIR/want" "$TEST_DIR/files" || fail "files are not the apply-ordered objects"

$check compare "$TEST_DIR/r1" "$fx/redpaper" || fail "render differs from the Redpaper"
$check schema "$TEST_DIR/r1" "$fx/schema" || fail "an object fails its upstream schema"
$check policy "$TEST_DIR/r1" || fail "RBAC or capabilities beyond the policy"

"$BRINGUP" render -i "$inv" -o "$TEST_DIR/r2" --state-dir "$state" >/dev/null || fail "render 2"
diff -r "$TEST_DIR/r1" "$TEST_DIR/r2" || fail "two renders differ"

# The MPI Operator only when asked, in its own directory: v0.8.0's manifest
# (kubeflow.org/v2beta1, image pinned to its tag) field for field, each
# object valid against its upstream schema.
"$BRINGUP" render -i "$inv" -o "$TEST_DIR/op" --state-dir "$state" --with-operators \
	>"$TEST_DIR/op.out" || fail "render --with-operators: $(cat "$TEST_DIR/op.out")"
grep -qx "render: 43 objects in $TEST_DIR/op" "$TEST_DIR/op.out" || fail "$(cat "$TEST_DIR/op.out")"
[ -e "$TEST_DIR/r1/operators" ] && fail "operators rendered unasked"
(cd "$TEST_DIR/op/operators" && ls) >"$TEST_DIR/files"
printf '%s\n' 01-namespace-mpi-operator.yaml 02-customresourcedefinition-mpijobs.kubeflow.org.yaml \
	03-serviceaccount-mpi-operator.yaml 04-clusterrole-kubeflow-mpijobs-admin.yaml \
	05-clusterrole-kubeflow-mpijobs-edit.yaml 06-clusterrole-kubeflow-mpijobs-view.yaml \
	07-clusterrole-mpi-operator.yaml 08-clusterrolebinding-mpi-operator.yaml \
	09-deployment-mpi-operator.yaml >"$TEST_DIR/want"
diff "$TEST_DIR/want" "$TEST_DIR/files" || fail "operator files"
$check compare "$TEST_DIR/op" "$fx/mpi-operator-v2" || fail "MPI Operator differs from upstream's v0.8.0"
$check schema "$TEST_DIR/op" "$fx/schema" || fail "an operator object fails its upstream schema"
grep -q "image: mpioperator/mpi-operator:0.8.0$" "$TEST_DIR/op/operators/09-deployment-mpi-operator.yaml" ||
	fail "operator image not pinned"
grep -q "^  - name: v2beta1$" "$TEST_DIR/op/operators/02-customresourcedefinition-mpijobs.kubeflow.org.yaml" ||
	fail "the operator's CRD does not serve v2beta1"
for f in $(cd "$TEST_DIR/r1" && ls *.yaml jobs/*.yaml); do
	cmp -s "$TEST_DIR/r1/$f" "$TEST_DIR/op/$f" || fail "$f changes with --with-operators"
done
# The jobs are v2beta1 and the v2beta1 CRD's schema bites: a misspelt
# field, and v1alpha2's top-level cleanPodPolicy.
grep -q "^apiVersion: kubeflow.org/v2beta1$" "$TEST_DIR/r1/jobs/01-mpijob-nccl-test-mpi-01x08-tcp.yaml" ||
	fail "jobs are not v2beta1"
mkdir -p "$TEST_DIR/badjob/jobs"
sed 's/^  slotsPerWorker:/  slotPerWorker:/' "$TEST_DIR/r1/jobs/01-mpijob-nccl-test-mpi-01x08-tcp.yaml" \
	>"$TEST_DIR/badjob/jobs/01.yaml"
sed 's/^  runPolicy:/  cleanPodPolicy: Running\n  runPolicy:/' \
	"$TEST_DIR/r1/jobs/10-mpijob-tf2-resnet50-01x08x01-tcp.yaml" >"$TEST_DIR/badjob/jobs/10.yaml"
$check schema "$TEST_DIR/badjob" "$fx/schema" >"$TEST_DIR/bad.out" && fail "schema accepted slotPerWorker"
grep -q "01.yaml: spec: Additional properties are not allowed ('slotPerWorker' was unexpected)" \
	"$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
grep -q "10.yaml: spec: Additional properties are not allowed ('cleanPodPolicy' was unexpected)" \
	"$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"

# v1alpha2 (and the v0.2.3 operator of Redpaper 3.4.4) only when the
# inventory asks for a legacy operator; another API is refused.
sed 's/^      jobs:$/      mpi_operator: { api: v1alpha2 }\n      jobs:/' "$inv" >"$TEST_DIR/legacy.yaml"
grep -q "api: v1alpha2" "$TEST_DIR/legacy.yaml" || fail "legacy inventory"
"$BRINGUP" render -i "$TEST_DIR/legacy.yaml" -o "$TEST_DIR/leg" --state-dir "$state" --with-operators \
	>"$TEST_DIR/leg.out" || fail "legacy render: $(cat "$TEST_DIR/leg.out")"
grep -qx "render: 40 objects in $TEST_DIR/leg" "$TEST_DIR/leg.out" || fail "$(cat "$TEST_DIR/leg.out")"
grep -q "^apiVersion: kubeflow.org/v1alpha2$" "$TEST_DIR/leg/jobs/01-mpijob-nccl-test-mpi-01x08-tcp.yaml" ||
	fail "legacy jobs are not v1alpha2"
grep -q "^  cleanPodPolicy: Running$" "$TEST_DIR/leg/jobs/01-mpijob-nccl-test-mpi-01x08-tcp.yaml" ||
	fail "legacy jobs lack v1alpha2's cleanPodPolicy"
(cd "$TEST_DIR/leg/operators" && ls) >"$TEST_DIR/files"
printf '%s\n' 01-customresourcedefinition-mpijobs.kubeflow.org.yaml 02-namespace-mpi-operator.yaml \
	03-clusterrole-mpi-operator.yaml 04-serviceaccount-mpi-operator.yaml \
	05-clusterrolebinding-mpi-operator.yaml 06-deployment-mpi-operator.yaml >"$TEST_DIR/want"
diff "$TEST_DIR/want" "$TEST_DIR/files" || fail "legacy operator files"
$check compare "$TEST_DIR/leg" "$fx/mpi-operator" || fail "MPI Operator differs from upstream's v0.2.3"
$check schema "$TEST_DIR/leg" "$fx/schema" || fail "a legacy object fails its upstream schema"
sed 's/^      jobs:$/      mpi_operator: { api: v1 }\n      jobs:/' "$inv" >"$TEST_DIR/v1.yaml"
"$BRINGUP" render -i "$TEST_DIR/v1.yaml" -o "$TEST_DIR/v1" --state-dir "$state" >"$TEST_DIR/v1.out" 2>&1 &&
	fail "render accepted mpi_operator.api v1"
grep -q "openshift.mpi_operator.api is 'v1': v2beta1" "$TEST_DIR/v1.out" || fail "$(cat "$TEST_DIR/v1.out")"
# The CRD's schema check bites too (a v1beta1-only field).
mkdir "$TEST_DIR/badcrd"
sed 's/^  scope: Namespaced/  scope: Namespaced\n  version: v1alpha2/' \
	"$TEST_DIR/leg/operators/01-customresourcedefinition-mpijobs.kubeflow.org.yaml" >"$TEST_DIR/badcrd/01.yaml"
$check schema "$TEST_DIR/badcrd" "$fx/schema" >"$TEST_DIR/bad.out" && fail "schema accepted spec.version"
grep -q "'version' was unexpected" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"

# The validator bites: the Redpaper's RoleBinding as printed, and a Role
# granting more than `use`.
mkdir "$TEST_DIR/bad"
cat >"$TEST_DIR/bad/05-rolebinding-mpi.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: mpi, namespace: adas }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: mpi, namespace: adas }
subjects: [ { kind: ServiceAccount, name: mpi, namespace: adas } ]
userNames: [ "system:serviceaccount:adas:mpi" ]
YAML
$check schema "$TEST_DIR/bad" "$fx/schema" >"$TEST_DIR/bad.out" && fail "schema accepted roleRef.namespace"
grep -q "'namespace' was unexpected" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
sed 's/- use/- use\n  - create/' "$TEST_DIR/r1/04-role-mpi.yaml" >"$TEST_DIR/bad/04-role-mpi.yaml"
$check policy "$TEST_DIR/bad" >/dev/null && fail "policy accepted a Role granting create"
# ... the Redpaper's SCC (every authenticated user may use it) and a
# rendered one given back to a group; a job that picks its own UID.
rm "$TEST_DIR/bad"/*
cp "$fx/redpaper/scc-for-mpi.yaml" "$TEST_DIR/bad/"
$check policy "$TEST_DIR/bad" >"$TEST_DIR/bad.out" && fail "policy accepted the Redpaper's SCC"
grep -q "grants itself to groups \['system:authenticated'\]" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
grep -q "allowPrivilegeEscalation is True" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
sed 's/^groups: \[\]/groups: [ "system:serviceaccounts" ]/' "$TEST_DIR/r1/01-securitycontextconstraints-scc-for-mpi.yaml" \
	>"$TEST_DIR/bad/scc.yaml"
rm "$TEST_DIR/bad/scc-for-mpi.yaml"
$check policy "$TEST_DIR/bad" >"$TEST_DIR/bad.out" && fail "policy accepted an SCC granted to a group"
grep -q "grants itself to groups" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
rm "$TEST_DIR/bad"/*
mkdir -p "$TEST_DIR/bad/jobs"
cp "$fx/redpaper/mpijob-nccl-test-mpi-01x08-ib-gdr.yaml" "$TEST_DIR/bad/jobs/"
$check policy "$TEST_DIR/bad" >"$TEST_DIR/bad.out" && fail "policy accepted runAsUser"
grep -q "sets runAsUser" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
rm -r "$TEST_DIR/bad/jobs"
# The compare's deviations cannot hide more than they list.
cp -r "$TEST_DIR/r1" "$TEST_DIR/dev"
sed -i 's/^  name: scc-for-mpi/  name: scc-for-mpi\n  uid: extra/' "$TEST_DIR/dev/01-securitycontextconstraints-scc-for-mpi.yaml"
$check compare "$TEST_DIR/dev" "$fx/redpaper" >"$TEST_DIR/bad.out" && fail "compare missed an unlisted field"
grep -q "metadata.uid: not in the Redpaper" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
# A job that asks for its own UID is refused at render time.
sed 's/^        run_as_group: 1075481000/        run_as_user: 1075481000\n        run_as_group: 1075481000/' \
	"$inv" >"$TEST_DIR/uid.yaml"
grep -q run_as_user "$TEST_DIR/uid.yaml" || fail "test inventory without run_as_user"
"$BRINGUP" render -i "$TEST_DIR/uid.yaml" -o "$TEST_DIR/uid" --state-dir "$state" >"$TEST_DIR/uid.out" 2>&1 &&
	fail "render accepted jobs.run_as_user"
grep -q "openshift.jobs.run_as_user: OpenShift runs a pod with a UID from its namespace's range" \
	"$TEST_DIR/uid.out" || fail "$(cat "$TEST_DIR/uid.out")"
# ... and an MPIJob whose worker adds SYS_ADMIN, or has a pod field typo.
rm "$TEST_DIR/bad"/*
mkdir "$TEST_DIR/bad/jobs"
sed 's/add: \[ "IPC_LOCK" \]/add: [ "IPC_LOCK", "SYS_ADMIN" ]/; s/serviceAccountName:/serviceAccountNmae:/' \
	"$TEST_DIR/r1/jobs/03-mpijob-nccl-test-mpi-01x08-ib-gdr.yaml" >"$TEST_DIR/bad/jobs/03.yaml"
$check policy "$TEST_DIR/bad" >"$TEST_DIR/bad.out" && fail "policy accepted SYS_ADMIN"
grep -q "adds \['SYS_ADMIN'\]" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
$check schema "$TEST_DIR/bad" "$fx/schema" >"$TEST_DIR/bad.out" && fail "schema accepted serviceAccountNmae"
grep -q "'serviceAccountNmae' was unexpected" "$TEST_DIR/bad.out" || fail "$(cat "$TEST_DIR/bad.out")"
exit 0
