#!/usr/bin/env python3
"""Validates every JSON output of cardline against the published schemas (schema/*.schema.json):
--print and --print-fd (the library's JSON writer: `cardline` hands cards over through
CardPrompt's JSON calls), --encrypt-to in both forms (and each JWE's plaintext), `check` in
every mode (one file, several, --unmasked, --encrypt-to) and `replay --json` over examples/.
The cards cover a plain, a co-badged (Visa/Dankort), a swiped, a CVV-only, a named and a
postal-coded card. Exits 1 on any line that does not validate, or when a command wrote fewer
JSON lines than it should (a run that writes nothing proves nothing).

    Tests/check_json_outputs.py BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.abspath(sys.argv[1])
schemas = {}
for name in ("card", "check", "replay", "rules-diff"):
    schema = json.load(open(os.path.join(root, "schema", f"{name}.schema.json"), encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    schemas[name] = jsonschema.Draft202012Validator(schema)
problems = []
checked = 0
work = tempfile.mkdtemp()
home = os.path.join(work, "home")
os.mkdir(home)
env = {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}


def run(arguments, stdin="", fds=None):
    """cardline with `arguments`, `stdin` on a pipe; its standard output (and fd 3's, with `fds`)."""
    if fds:  # the cards on descriptor 3, read through a shell's redirection; stdout dropped
        result = subprocess.run(
            ["/bin/sh", "-c", 'exec "$@" --print-fd 3 3>&1 >/dev/null', "sh", binary] + arguments,
            input=stdin.encode(), capture_output=True, env=env, timeout=120)
        return result.stdout.decode()
    result = subprocess.run([binary] + arguments, input=stdin.encode(), capture_output=True, env=env, timeout=120)
    return result.stdout.decode()


def validate(what, schema, output, lines):
    """Each line of `output` against `schema`; at least `lines` of them."""
    global checked
    objects = [line for line in output.split("\n") if line]
    if len(objects) < lines:
        problems.append(f"{what}: {len(objects)} JSON lines, expected {lines} or more")
    for line in objects:
        try:
            value = json.loads(line)
        except ValueError as error:
            problems.append(f"{what}: not JSON ({error}): {line[:80]}")
            continue
        checked += 1
        for error in schemas[schema].iter_errors(value):
            problems.append(f"{what}: {error.message} at {list(error.absolute_path)}: {line[:160]}")
        # An encrypted card's JWE holds the card record itself.
        for key, member in value.items() if isinstance(value, dict) else []:
            if key == "jwe":
                plaintexts.append((what, member))


plaintexts = []
today = ["--today", "2026-11", "--no-history"]
swipe = "%B4111111111111111^LOVELACE/ADA^3012201000000000000?;4111111111111111=30122010000000000?\n"
cards = {
    "plain": ([], "4111111111111111 12/30 123\n"),
    "co-badged": ([], "4571000000000001 12/30 123\n"),
    "swiped": ([], swipe + "123\n"),
    "cvv-only": (["--cvv-only", "--network", "amex"], "1234\n"),
    "named and postal-coded": (["--name", "--postal-code", "US"], "4111111111111111\t12/30\t123\tJane Doe\t94105\n"),
}
keys = os.path.join(work, "keys")
subprocess.run([sys.executable, os.path.join(root, "Tests", "tools", "jwe-check.py"), "keys", keys], check=True)
for name, (options, stdin) in cards.items():
    validate(f"--print, {name}", "card", run(today + ["--print"] + options, stdin), 1)
    validate(f"--print-fd, {name}", "card", run(today + options, stdin, fds=True), 1)
    for form, key in (("jwe", "public.pem"), ("adyen", "adyen.txt")):
        sealed = ["--print", "--encrypt-to", os.path.join(keys, key), "--encrypt-format", form]
        validate(f"--encrypt-format {form}, {name}", "card", run(today + sealed + options, stdin), 1)

records = os.path.join(work, "records.txt")
with open(records, "w") as file:
    file.write("4111111111111111,12/30,123\n4111111111111112,12/30\n378282246310005 01/29 12\n"
               "4571000000000001,12/30,123\n12345\n99999999999999999999\n4111 1111 1111 1111 13/30\n"
               '{"network":"visa","number":"4111111111111111","expiry":{"month":12,"year":2030},"cvv":"123"}\n'
               '{"number": 4111}\nnot a card\n5019000000000008,12/20\n')
other = os.path.join(work, "other.txt")
with open(other, "w") as file:
    file.write("5555555555554444,12/30,123\n")
check = ["check", "--today", "2026-11"]
validate("check", "check", run(check + [records]), 11)
validate("check, two files", "check", run(check + [records, other]), 12)
validate("check --unmasked", "check", run(check + ["--unmasked", records]), 11)
for form, key in (("jwe", "public.pem"), ("adyen", "adyen.txt")):
    sealed = ["--encrypt-to", os.path.join(keys, key), "--encrypt-format", form]
    validate(f"check --encrypt-format {form}", "check", run(check + sealed + [records, other]), 12)

replayed = run(["replay", "--json", os.path.join(root, "examples")])
validate("replay --json examples/", "replay", replayed, 20)
if not any(json.loads(line)["cards"] for line in replayed.split("\n") if line):
    problems.append("replay --json examples/: no script accepted a card")

# rules diff --json: a network added (with its patterns) and the stretch it takes.
mine = os.path.join(work, "acme")
os.mkdir(mine)
with open(os.path.join(mine, "acme-pay.json"), "w", encoding="utf-8") as f:
    f.write('{"id": "acme-pay", "name": "Acme Pay", "logo": "ACME", "ranges": [["880000", "880999"]], '
            '"lengths": [16], "cvv": {"name": "CVV", "length": 3}, "note": "inside UnionPay 88"}\n')
validate("rules diff --bundled --json", "rules-diff", run(["rules", "diff", "--bundled", mine, "--json"]), 2)

# Every JWE's plaintext, decrypted by the independent tool, is a card record too.
decrypted = subprocess.run(
    [sys.executable, os.path.join(root, "Tests", "tools", "jwe-check.py"), "decrypt",
     os.path.join(keys, "private.pem")],
    input="".join(json.dumps({"jwe": jwe}) + "\n" for _, jwe in plaintexts).encode(), capture_output=True)
if decrypted.returncode != 0 or not plaintexts:
    problems.append(f"decrypting the JWEs failed: {decrypted.stderr.decode()[-300:]}")
for (what, _), line in zip(plaintexts, decrypted.stdout.decode().split("\n")):
    checked += 1
    for error in schemas["card"].iter_errors(json.loads(line)["jwe"]["plaintext"]):
        problems.append(f"{what}, the JWE's plaintext: {error.message}")

for problem in problems:
    print("check_json_outputs: " + problem, file=sys.stderr)
print(f"check_json_outputs: {checked} JSON objects checked against schema/*.schema.json, {len(problems)} problems")
sys.exit(1 if problems else 0)
