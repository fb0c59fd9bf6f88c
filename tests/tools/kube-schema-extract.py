#!/usr/bin/env python3
"""Makes the self-contained JSON schemas of tests/fixtures/openshift/schema/
from the upstream Kubernetes JSON schemas that kubernetes-validate ships
(github.com/willthames/kubernetes-validate, src/kubernetes_validate/
kubernetes-json-schema/VERSION-local-strict/, generated from the Kubernetes
OpenAPI document). Each kind's schema keeps only the definitions it reaches,
its $refs pointing into its own $defs. Not run by the tests: run it again to
move to another Kubernetes version.

    kube-schema-extract.py SRC_DIR OUT_DIR KIND-FILE...
"""
import json
import os
import sys

src, out, kinds = sys.argv[1], sys.argv[2], sys.argv[3:]
defs = json.load(open(os.path.join(src, "_definitions.json")))
defs = defs.get("$defs") or defs.get("definitions")


def refs(node, found):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and "#/" in r:
            name = r.rsplit("/", 1)[1]
            node["$ref"] = "#/$defs/" + name
            if name not in found:
                found[name] = json.loads(json.dumps(defs[name]))
                refs(found[name], found)
        for v in node.values():
            refs(v, found)
    elif isinstance(node, list):
        for v in node:
            refs(v, found)


for k in kinds:
    schema = json.load(open(os.path.join(src, k)))
    found = {}
    refs(schema, found)
    schema["$defs"] = dict(sorted(found.items()))
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    with open(os.path.join(out, k), "w") as f:
        json.dump(schema, f, indent=1, sort_keys=True)
        f.write("\n")
