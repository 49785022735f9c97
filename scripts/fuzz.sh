#!/usr/bin/env bash
# Runs every Go fuzz target of the repository in turn, each for FUZZTIME
# (default 10m: the documented long run; .ci/run uses a few seconds each).
# A failing input is written under the package's testdata/fuzz/FuzzX/ and
# the script stops: commit it as a regression case once fixed.
#
#   scripts/fuzz.sh                  # every target, 10 minutes each
#   FUZZTIME=30s scripts/fuzz.sh     # every target, briefly
#   scripts/fuzz.sh ./sandbox        # the targets of one package
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10m}"
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
fi
for pkg in "${pkgs[@]}"; do
	for target in $(grep -h '^func Fuzz' "$pkg"/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
		echo "+ go test -run '^\$' -fuzz '^$target\$' -fuzztime $fuzztime $pkg"
		go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg"
	done
done
