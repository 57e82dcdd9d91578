#!/usr/bin/env bash
# The public API of Strata's library products, as one line per symbol (module, kind, path,
# declaration), from the symbol graphs the compiler emits (`swift package dump-symbol-graph`, on the
# debug build that `swift build` or `swift test` already made).
#
#   scripts/api-check.sh list           prints the current list
#   scripts/api-check.sh update         writes it to api/public-api.txt (commit it with a release)
#   scripts/api-check.sh check          fails when a symbol of the last release is gone or changed
#
# `check` compares the current list with api/public-api.txt as the last release tag (the newest
# tag named like 0.1.0) holds it: a line of the release missing now is a removed or changed public
# symbol, which breaks programs built against that release. A clone without tags compares with the
# api/public-api.txt it holds, which only a release rewrites. It skips, saying so, when there is no
# list to compare with. To break the API on purpose, copy the reported lines into
# api/accepted-breaks.txt in the same commit and say what changed in CHANGELOG.md; at the next
# release, run `make api-update`, commit the new list and empty api/accepted-breaks.txt before
# tagging. Symbols added since the release are reported, not refused. API_RELEASE_LIST=FILE
# compares with FILE instead of the tag's list (to try the check).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
mode=${1:-check}
list_file=api/public-api.txt
accepted_file=api/accepted-breaks.txt

# The library products' modules (Package.swift's `.library(name:targets:)`), one a line.
library_modules() {
  swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
for product in package["products"]:
    if "library" in product["type"]:
        for target in product["targets"]:
            print(target)
' | sort -u
}

current_list() {
  local output directory
  output=$(swift package dump-symbol-graph --skip-synthesized-members --minimum-access-level public 2>&1) || {
    printf '%s\n' "$output" >&2
    echo "api-check: swift package dump-symbol-graph failed" >&2
    exit 1
  }
  directory=$(printf '%s\n' "$output" | sed -nE 's/^Files written to (.*)$/\1/p' | tail -1)
  if [ -z "$directory" ] || [ ! -d "$directory" ]; then
    printf '%s\n' "$output" >&2
    echo "api-check: found no symbol graph directory in the output above" >&2
    exit 1
  fi
  library_modules | python3 -c '
import glob, json, os, sys
directory = sys.argv[1]
lines = set()
for module in sys.stdin.read().split():
    # Module.symbols.json, and Module@Other.symbols.json for its extensions of other modules types.
    for path in glob.glob(os.path.join(directory, module + ".symbols.json")) + glob.glob(
            os.path.join(directory, module + "@*.symbols.json")):
        graph = json.load(open(path))
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            name = ".".join(symbol["pathComponents"])
            if name.startswith("_") or "._" in name:
                continue
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            declaration = " ".join(declaration.split())
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            lines.add(f"{module} {kind} {name}: {declaration}")
for line in sorted(lines):
    print(line)
' "$directory"
}

case "$mode" in
list)
  current_list
  ;;
update)
  mkdir -p api
  current_list > "$list_file"
  echo "api-check: wrote $(wc -l < "$list_file") public symbols to $list_file"
  ;;
check)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  tag=$(git tag --list '[0-9]*.[0-9]*.[0-9]*' --sort=-v:refname | head -1)
  if [ -n "${API_RELEASE_LIST:-}" ]; then
    tag="in $API_RELEASE_LIST"
    sort "$API_RELEASE_LIST" > "$work/release"
  elif [ -z "$tag" ] && [ -f "$list_file" ]; then
    # A clone without tags (CI clones the branch alone): the list as the last release recorded it
    # (written only at a release, see above).
    tag="recorded in $list_file"
    sort "$list_file" > "$work/release"
  elif [ -z "$tag" ]; then
    echo "api-check: skipped: this clone has no release tag (such as 0.1.0) nor $list_file to compare the public API with"
    exit 0
  elif ! git cat-file -e "$tag:$list_file" 2>/dev/null; then
    echo "api-check: skipped: release $tag has no $list_file to compare the public API with"
    exit 0
  else
    git show "$tag:$list_file" | sort > "$work/release"
  fi
  current_list > "$work/current"
  touch "$work/accepted"
  if [ -f "$accepted_file" ]; then { grep -v '^#' "$accepted_file" || true; } | sed '/^$/d' | sort > "$work/accepted"; fi
  comm -23 "$work/release" "$work/current" | comm -23 - "$work/accepted" > "$work/broken"
  added=$(comm -13 "$work/release" "$work/current" | wc -l)
  if [ -s "$work/broken" ]; then
    echo "api-check: $(wc -l < "$work/broken") public symbols of release $tag are gone or changed:" >&2
    sed 's/^/  /' "$work/broken" >&2
    echo "api-check: programs built against $tag break. Restore them, or, to break the API on purpose," \
      "copy the lines above into $accepted_file and say what changed in CHANGELOG.md" >&2
    exit 1
  fi
  echo "api-check: every public symbol of release $tag is still there ($(wc -l < "$work/current") now, $added added)"
  ;;
*)
  echo "usage: scripts/api-check.sh [list|update|check]" >&2
  exit 64
  ;;
esac
