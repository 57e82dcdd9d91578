#!/usr/bin/env bash
# Runs docs/Tutorial.md as a reader would, in a new temporary directory against this checkout, and
# fails when a step fails. Every fenced block of the tutorial is used:
#   ```swift  written to the file the paragraph before it names last (`Sources/Trips/main.swift`:)
#   ```sh     each line run in order, in one shell (so `cd` holds for the lines after it)
#   ```text   each line must be a line of what the ```sh block before it printed
# The checkout is linked as ../Strata beside the tutorial's package, as the tutorial asks.
#
#   scripts/tutorial-check.sh            keeps nothing; prints each step and the time it took
#   KEEP_TUTORIAL_DIR=1 scripts/...      leaves the directory for a look (its path is printed)
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
tutorial="$checkout/docs/Tutorial.md"
started=$(date +%s)
work=$(mktemp -d)
if [ -z "${KEEP_TUTORIAL_DIR:-}" ]; then trap 'rm -rf "$work"' EXIT; fi
ln -s "$checkout" "$work/Strata"

# Turns the tutorial into a shell script of its steps.
python3 - "$tutorial" > "$work/steps.sh" <<'PY'
import re, shlex, sys

text = open(sys.argv[1]).read()
fence = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
print("set -euo pipefail")
position, step, last_output = 0, 0, None
for match in fence.finditer(text):
    kind, body = match.group(1), match.group(2)
    prose = text[position:match.start()]
    position = match.end()
    if kind == "swift":
        paths = re.findall(r"`([\w./-]+\.swift)`", prose)
        if not paths:
            sys.exit(f"tutorial-check: no file named before the Swift block at offset {match.start()}")
        path = paths[-1]
        print(f"echo '== write {path}'")
        print(f"mkdir -p \"$(dirname {shlex.quote(path)})\"")
        print(f"cat > {shlex.quote(path)} <<'STRATA_TUTORIAL_EOF'\n{body}STRATA_TUTORIAL_EOF")
    elif kind == "sh":
        for line in body.splitlines():
            if not line.strip():
                continue
            step += 1
            last_output = f"\"$STEPS/{step}.out\""
            print(f"echo {shlex.quote('== $ ' + line)}")
            print(f"begin=$(date +%s)")
            # Not in a pipeline, which would run it in a subshell: a `cd` must hold for what follows.
            print(f"if {{ {line}\n}} > {last_output} 2>&1; then cat {last_output}; "
                  f"else status=$?; cat {last_output}; echo \"tutorial-check: failed ($status)\" >&2; exit 1; fi")
            print(f"echo \"   ($(( $(date +%s) - begin ))s)\"")
    elif kind == "text":
        if last_output is None:
            sys.exit("tutorial-check: an output block before any command")
        for line in body.splitlines():
            print(f"grep -Fxq -- {shlex.quote(line)} {last_output} || "
                  f"{{ echo {shlex.quote('tutorial-check: expected the line: ' + line)} >&2; exit 1; }}")
    else:
        sys.exit(f"tutorial-check: a block of unknown kind '{kind}' at offset {match.start()}")
if step == 0:
    sys.exit("tutorial-check: no command found in the tutorial")
PY

mkdir "$work/steps"
cd "$work"
STEPS="$work/steps" bash "$work/steps.sh"
echo "tutorial-check: every step of docs/Tutorial.md passed in $(( $(date +%s) - started ))s ($work)"
