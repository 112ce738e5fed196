#!/usr/bin/env python3
"""Keeps rules/schema.json and cardline's loader in step: every bundled and example rule
file is valid against the schema, and every catalogue case marked `# schema: rejects` is
rejected by it (the Swift tests check that the loader rejects all of them). Exits 1 on any
disagreement, 2 when a folder it needs is empty."""
import glob, json, os, sys

import jsonschema

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
schema = json.load(open(os.path.join(root, "rules", "schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
problems = []

good = [f for f in glob.glob(os.path.join(root, "rules", "*.json")) if not f.endswith("schema.json")]
good += glob.glob(os.path.join(root, "examples", "rules", "*.json"))
good += glob.glob(os.path.join(root, "examples", "lengths-for", "*.json"))
good += glob.glob(os.path.join(root, "examples", "co-badged", "*.json"))
for path in sorted(good):
    for error in validator.iter_errors(json.load(open(path))):
        problems.append(f"{os.path.relpath(path, root)}: valid for cardline but not for the schema: {error.message}")

cases = sorted(glob.glob(os.path.join(root, "Tests", "RuleCatalogue", "*", "expected.txt")))
rejecting = 0
for expected in cases:
    if open(expected).readline().strip() != "# schema: rejects":
        continue
    rejecting += 1
    for path in sorted(glob.glob(os.path.join(os.path.dirname(expected), "*.json"))):
        try:
            data = json.loads(open(path, encoding="utf-8").read())
        except ValueError:
            continue  # not JSON at all: rejected
        if validator.is_valid(data):
            problems.append(f"{os.path.relpath(path, root)}: rejected by cardline but accepted by the schema")

if len(good) < 20 or rejecting < 20:
    print(f"check_schema: found only {len(good)} good files and {rejecting} rejecting cases", file=sys.stderr)
    sys.exit(2)
for problem in problems:
    print(problem, file=sys.stderr)
print(f"schema: {len(good)} rule files valid; of the {len(cases)} broken cases in Tests/RuleCatalogue, "
      f"the {rejecting} a schema can catch rejected; {len(problems)} disagreements")
sys.exit(1 if problems else 0)
