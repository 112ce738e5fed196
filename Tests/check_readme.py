#!/usr/bin/env python3
"""Keeps the README (and docs/RULE-DATA.md, where its reference on rule data moved) true to the
tree: the counts they state (the bundled networks, the files `rules lint` reports in the
rule-author example, the broken rule cases of Tests/RuleCatalogue) must equal what is there,
each sentence must still be there (a rewording updates this script too), and with a cardline
binary as argument:
- every `.session` script the README shows whole (a code block starting with a `#` comment
  line and holding `@expect` lines) must pass `cardline replay`;
- every command the README shows in a ```console block (a line starting with `$ `; one ending
  in a here-document, `<<'EOF'`, runs to its `EOF` line) is run, in order, by one bash in the
  repository's folder, with that binary first on PATH, an empty HOME of its own, no XDG or
  CARDLINE variable and a UTF-8 locale; what it writes (stdout and stderr together, that HOME
  shown as `~`) must be the lines shown under it, exactly;
- every `card=$(make run ARGS="…")` in a ```sh block must capture the card's JSON alone.
Exits 1 on any difference."""
import datetime, glob, os, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
stated_text = readme + open(os.path.join(root, "docs", "RULE-DATA.md"), encoding="utf-8").read()
networks = len([f for f in glob.glob(os.path.join(root, "rules", "*.json")) if not f.endswith("schema.json")])
cases = sorted(glob.glob(os.path.join(root, "Tests", "RuleCatalogue", "*", "expected.txt")))
schema_cases = sum(1 for case in cases if open(case).readline().strip() == "# schema: rejects")

checks = [
    (r"\*\*Bundled networks \((\d+)\):\*\*", networks, "bundled networks (files in rules/)"),
    (r"cardline ships (\d+) \(in `rules/`\)", networks, "bundled networks (files in rules/)"),
    (r"checked (\d+) files in 2 folders", networks + 1, "files `rules lint` checks in the rule-author example"),
    (r"on the \d+ of the (\d+) broken cases", len(cases), "broken cases in Tests/RuleCatalogue"),
    (r"on the (\d+) of the \d+ broken cases", schema_cases, "broken cases marked `# schema: rejects`"),
    (r"loader's messages for all (\d+)", len(cases), "broken cases in Tests/RuleCatalogue"),
]
problems = []
for pattern, actual, what in checks:
    stated = [int(n) for n in re.findall(pattern.replace(" ", r"\s+"), stated_text)]
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

def console_commands(text):
    """The (command, expected output lines) pairs of the ```console blocks, in order."""
    pairs = []
    for block in re.findall(r"^```console\n(.*?)^```", text, re.S | re.M):
        lines = block.split("\n")[:-1]
        index = 0
        while index < len(lines):
            line = lines[index]
            if not line.startswith("$ "):
                if not pairs:
                    problems.append(f"README.md: a console block starts with output, not a `$ ` command: {line}")
                    return []
                pairs[-1][1].append(line)
                index += 1
                continue
            command = line[2:]
            index += 1
            if command.endswith("<<'EOF'"):
                while index < len(lines) and lines[index] != "EOF":
                    command += "\n" + lines[index]
                    index += 1
                command += "\nEOF"
                index += 1
            pairs.append((command, []))
    return pairs

commands = console_commands(readme)
if len(sys.argv) > 1:
    if not commands:
        problems.append("README.md shows no command in a console block")
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as home:
        home = os.path.realpath(home)
        # One bash runs every command, so variables and files carry over as they would for a
        # reader typing them; a NUL-delimited marker before each separates their outputs.
        script = "exec 2>&1\n" + "".join(f"printf '\\0%s\\0' {number}\n{command}\n" for number, (command, _) in enumerate(commands))
        environment = {"HOME": home, "PATH": os.path.dirname(binary) + ":/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
        run = subprocess.run(["bash", "-c", script], cwd=root, env=environment, capture_output=True, timeout=300)
        outputs = run.stdout.decode("utf-8", "replace").split("\0")[1:]
        for number, (command, expected) in enumerate(commands):
            got = outputs[2 * number + 1] if 2 * number + 1 < len(outputs) else ""
            got_lines = [line.rstrip() for line in got.replace(home, "~").split("\n")]
            while got_lines and got_lines[-1] == "":
                got_lines.pop()
            want = [line.rstrip() for line in expected]
            if got_lines != want:
                problems.append(f"the README's `$ {command.splitlines()[0]}` shows:\n  " + "\n  ".join(want)
                                + "\nbut cardline writes:\n  " + "\n  ".join(got_lines))

# The ```sh blocks' `card=$(make run ARGS="…")` lines, run by bash with a card piped in and
# `make` building a copy of that binary (its build command says so, as a build would);
# `card` must then hold the card's JSON alone, the build's words kept off standard output.
make_runs = [line.split("  #")[0] for block in re.findall(r"^```sh\n(.*?)^```", readme, re.S | re.M)
             for line in block.splitlines() if "=$(make run" in line]
if len(sys.argv) > 1:
    if not make_runs:
        problems.append("README.md shows no `card=$(make run ARGS=…)` in a ```sh block")
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, "cardline")
        subprocess.run(["cp", os.path.abspath(sys.argv[1]), copy], check=True)
        year = datetime.date.today().year % 100 + 4
        for line in make_runs:
            script = (f"make() {{ command make -B RELEASE_BINARY={copy} RELEASE_BUILD='echo building cardline' \"$@\"; }}\n"
                      f"{line}\nprintf '%s' \"$card\"")
            run = subprocess.run(["bash", "-c", script], cwd=root, env={"HOME": folder, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
                                 input=f"4111111111111111 12/{year} 123\n", capture_output=True, text=True, timeout=60)
            if not re.fullmatch(r'\{"network":"visa",[^\n]*\}', run.stdout):
                problems.append(f"the README's `{line}` captures, for a piped card:\n  {run.stdout!r}\n(standard error: {run.stderr.strip()!r})")

for problem in problems:
    print("check_readme: " + problem, file=sys.stderr)
ran = len(commands) if len(sys.argv) > 1 else 0
print(f"readme: {len(checks)} stated counts checked, {len(scripts) if len(sys.argv) > 1 else 0} scripts replayed, {ran} commands run and their output compared, {len(make_runs) if len(sys.argv) > 1 else 0} make runs captured, {len(problems)} wrong")
sys.exit(1 if problems else 0)
