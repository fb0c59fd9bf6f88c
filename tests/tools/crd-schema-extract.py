#!/usr/bin/env python3
"""Makes a JSON schema of tests/fixtures/openshift/schema/ from an upstream
CustomResourceDefinition's openAPIV3Schema (one version): OpenAPI's
`nullable: true` becomes a "null" type, and every object that lists its
properties refuses others (the API server's strict field validation, what
`oc apply --validate=strict` asks for). apiVersion and kind are pinned.
Not run by the tests.

    crd-schema-extract.py [--loose] CRD.yaml VERSION OUT.json

--loose keeps unknown fields allowed: for CRDs of the apiextensions v1beta1
era that did not prune them (MPIJob v1alpha2), where refusing would be
stricter than the server.
"""
import json
import sys

import yaml

loose = sys.argv[1] == "--loose"
crd_path, version, out = sys.argv[1 + loose:4 + loose]
crd = yaml.safe_load(open(crd_path))
group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
ver = next(v for v in crd["spec"]["versions"] if v["name"] == version)
# apiextensions v1 keeps a schema per version; v1beta1 (CSI 2.0.0) one for all
schema = (ver.get("schema") or crd["spec"].get("validation"))["openAPIV3Schema"]


def fix(node):
    if isinstance(node, dict):
        if node.pop("nullable", False) and "type" in node:
            node["type"] = [node["type"], "null"]
        props = node.get("properties")
        if (not loose and isinstance(props, dict) and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")):
            node["additionalProperties"] = False
        for k in list(node):
            if k.startswith("x-kubernetes-"):
                del node[k]
        for v in node.values():
            fix(v)
    elif isinstance(node, list):
        for v in node:
            fix(v)


fix(schema)
schema.setdefault("properties", {})
schema["properties"]["apiVersion"] = {"type": "string", "enum": [group + "/" + version]}
schema["properties"]["kind"] = {"type": "string", "enum": [kind]}
schema["properties"]["metadata"] = {"type": "object"}
schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
schema["x-source"] = crd_path
with open(out, "w") as f:
    json.dump(schema, f, indent=1, sort_keys=True)
    f.write("\n")
