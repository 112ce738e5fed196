#!/usr/bin/env python3
"""Keeps the README true to the tree: the counts it states (the bundled networks, the files
`rules lint` reports in the rule-author example, the broken rule cases of Tests/RuleCatalogue)
must equal what is there, each sentence must still be there (a rewording updates this script
too), and with a cardline binary as argument every `.session` script the README shows whole
(a code block starting with a `#` comment line and holding `@expect` lines) must pass
`cardline replay`. Exits 1 on any difference."""
import glob, os, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
networks = len([f for f in glob.glob(os.path.join(root, "rules", "*.json")) if not f.endswith("schema.json")])
cases = sorted(glob.glob(os.path.join(root, "Tests", "RuleCatalogue", "*", "expected.txt")))
schema_cases = sum(1 for case in cases if open(case).readline().strip() == "# schema: rejects")

checks = [
    (r"\*\*Bundled networks \((\d+)\):\*\*", networks, "bundled networks (files in rules/)"),
    (r"checked (\d+) files in 2 folders", networks + 1, "files `rules lint` checks in the rule-author example"),
    (r"on the \d+ of the (\d+) broken cases", len(cases), "broken cases in Tests/RuleCatalogue"),
    (r"on the (\d+) of the \d+ broken cases", schema_cases, "broken cases marked `# schema: rejects`"),
    (r"loader's messages for all (\d+)", len(cases), "broken cases in Tests/RuleCatalogue"),
]
problems = []
for pattern, actual, what in checks:
    stated = [int(n) for n in re.findall(pattern.replace(" ", r"\s+"), readme)]
    if not stated:
        problems.append(f"README.md no longer matches /{pattern}/ ({what}: {actual}); update it or Tests/check_readme.py")
    for number in stated:
        if number != actual:
            problems.append(f"README.md says {number} for {what}; there are {actual}")
scripts = [block for block in re.findall(r"^```\n(#.*?)^```", readme, re.S | re.M) if "\n@expect " in block]
if len(sys.argv) > 1:
    if not scripts:
        problems.append("README.md shows no whole .session script to replay")
    with tempfile.TemporaryDirectory() as folder:
        for number, script in enumerate(scripts, 1):
            path = os.path.join(folder, f"readme-{number}.session")
            open(path, "w", encoding="utf-8").write(script)
            run = subprocess.run([sys.argv[1], "replay", path], capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"the README's script starting `{script.splitlines()[0]}` fails to replay:\n{run.stdout}{run.stderr}")
for problem in problems:
    print("check_readme: " + problem, file=sys.stderr)
print(f"readme: {len(checks)} stated counts checked, {len(scripts) if len(sys.argv) > 1 else 0} scripts replayed, {len(problems)} wrong")
sys.exit(1 if problems else 0)
