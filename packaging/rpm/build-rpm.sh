#!/usr/bin/env bash
# packaging/rpm/build-rpm.sh OUTDIR
# Builds signaltty.spec with `rpmbuild -bb` from a copy of this checkout:
# Source0 is the tree, Source1 its `go mod vendor`. On Fedora the real
# macros are used; elsewhere (Debian with the rpm package) macros.stand-in
# provides %meson, %_userunitdir and the completion directories, and
# --nodeps skips the BuildRequires check (they name Fedora packages).
# Needs rpmbuild, meson, ninja and Go 1.26 on PATH; on Debian the rpm,
# debugedit and elfutils packages (find-debuginfo and eu-strip make the
# -debuginfo package). Lint what it made with
#   rpmlint -r packaging/rpm/signaltty-rpm.rpmlintrc OUTDIR/*.rpm
# (rpmlint 2.4, Debian 12's, stops with a UnicodeDecodeError on the
# -debuginfo package: a .debug file's program interpreter is in a section
# without contents, so `readelf -l` prints bytes that are not UTF-8; lint
# OUTDIR/signaltty-[0-9]*.rpm there.)
set -euo pipefail
OUT=$(realpath -m "${1:?usage: $0 OUTDIR}")
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../.." && pwd)
V=$(sed -n 's/^Version: *//p' "$HERE/signaltty.spec")
top=$(mktemp -d); trap 'rm -rf "$top"' EXIT
mkdir -p "$top"/{SOURCES,BUILD,RPMS,SRPMS,src/signaltty-$V} "$OUT"
(cd "$ROOT" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$top/src/signaltty-$V"
tar -czf "$top/SOURCES/signaltty-$V.tar.gz" -C "$top/src" "signaltty-$V"
(cd "$top/src/signaltty-$V" && go mod vendor && tar -czf "$top/SOURCES/signaltty-$V-vendor.tar.gz" vendor)
extra=()
if [ -z "$(rpm --eval '%{?_userunitdir}')" ]; then extra=(--nodeps --load "$HERE/macros.stand-in"); fi
rpmbuild -bb --define "_topdir $top" "${extra[@]}" "$HERE/signaltty.spec" >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log" >&2; exit 1; }
find "$top/RPMS" -name '*.rpm' -exec cp {} "$OUT"/ \;
ls "$OUT"/*.rpm
