"""Prepares JSON schemas for kubeconform from what the package registries carry (GitHub, their usual
home, is out of reach). Called by tools.sh install.

  kube-schemas.py kubernetes DIR       kubernetes-validate's schema sets, rewritten in place
  kube-schemas.py crds OUT CRD.yaml... CustomResourceDefinitions -> <kind>-<group>-<version>.json
"""
import json
import pathlib
import sys

import yaml


def kubernetes(root):
    # kubernetes-validate resolves "$ref": "/api/_definitions.json#..." against each schema's $id
    # (https://kubernetes.io/api/...) with a resolver of its own; without the $id, a relative ref
    # makes kubeconform read _definitions.json from the same directory.
    for path in pathlib.Path(root).glob('*/*.json'):
        schema = json.loads(path.read_text())
        schema.pop('$id', None)
        path.write_text(json.dumps(schema).replace('"/api/_definitions.json#', '"_definitions.json#'))


def strict(node):
    # As kubeconform's own openapi2jsonschema does for -strict: an object with declared properties
    # takes no others, unless the CRD keeps unknown fields on purpose.
    if isinstance(node, dict):
        if 'properties' in node and 'additionalProperties' not in node and not node.get('x-kubernetes-preserve-unknown-fields'):
            node['additionalProperties'] = False
        for value in node.values():
            strict(value)
    elif isinstance(node, list):
        for value in node:
            strict(value)
    return node


def crds(out, files):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for file in files:
        crd = yaml.safe_load(pathlib.Path(file).read_text())
        kind = crd['spec']['names']['kind'].lower()
        group = crd['spec']['group'].split('.')[0]
        for version in crd['spec']['versions']:
            schema = strict(version['schema']['openAPIV3Schema'])
            (out / f"{kind}-{group}-{version['name']}.json").write_text(json.dumps(schema))


if __name__ == '__main__':
    if sys.argv[1] == 'kubernetes':
        kubernetes(sys.argv[2])
    elif sys.argv[1] == 'crds':
        crds(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
