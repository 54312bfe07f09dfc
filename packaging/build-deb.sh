#!/usr/bin/env bash
# packaging/build-deb.sh OUTDIR
# Builds the signaltty .deb the way README.md ("Packages") does, from a
# copy of this checkout (tracked and new files; the checkout is left
# untouched), with the `go` on PATH (Go 1.26; packaging/get-go.sh), and
# puts the .deb and the build log into OUTDIR. Needs debhelper, meson,
# ninja-build, groff-base and the Go modules in the module cache
# (go mod download).
set -euo pipefail
OUT=$(realpath -m "${1:?usage: $0 OUTDIR}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir "$work/signaltty"
(cd "$ROOT" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$work/signaltty"
cd "$work/signaltty"
cp -r packaging/debian debian
go mod download
# The user's Go build cache (content-addressed): a rebuild compiles only
# what changed (debian/rules keeps a GOCACHE it is given).
export GOCACHE=${GOCACHE:-$(go env GOCACHE)}
dpkg-buildpackage -b -us -uc -Ppkg.signaltty.upstream-go >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log" >&2; exit 1; }
cp "$work"/signaltty_*.deb "$OUT"/
ls "$OUT"/signaltty_*.deb
