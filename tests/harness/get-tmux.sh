#!/usr/bin/env bash
# get-tmux.sh [DEST]
# Installs tmux 3.5a (Debian 13 "trixie"'s build) into DEST (default
# ~/.cache/signaltty-tests/tmux-3.5a) on Debian 12, WITHOUT adding an apt source
# or changing anything on the system: the .debs are downloaded by URL from the
# Debian archive, checked against the SHA-256 sums below, and only unpacked
# (dpkg-deb -x) into DEST/root.
#
# Debian 12 lacks what the trixie binary needs (found with ldd): glibc >= 2.38
# (libc, libm), libtinfo with NCURSES6_TINFO_6.5 symbols, and libjemalloc (not
# installed). libevent-core 2.1.12, libsystemd0 and the rest come from the system.
# trixie's tmux is run through trixie's own dynamic loader with --library-path,
# not with LD_LIBRARY_PATH: that variable would be inherited by the programs in
# the panes, whose (Debian 12) loader cannot use trixie's libc.
#
# Gives: DEST/bin/tmux (a wrapper for people) and DEST/argv (the same command,
# one word a line, for programs that exec it without a shell).
# Idempotent: exits at once when DEST/bin/tmux already reports tmux 3.5a.
set -euo pipefail
DEST=$(realpath -m "${1:-$HOME/.cache/signaltty-tests/tmux-3.5a}")
ROOT=$DEST/root WRAP=$DEST/bin/tmux
if [ -x "$WRAP" ] && [ "$("$WRAP" -V 2>/dev/null)" = "tmux 3.5a" ]; then
  echo "already installed: $WRAP"; exit 0
fi
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# pool path and SHA-256 (from trixie's Packages index)
DEBS=(
  "pool/main/t/tmux/tmux_3.5a-3_amd64.deb e6b6aa51780044e2c4a0e618c33f832b70ec80caa30303e6c254a0c851b5af78"
  "pool/main/g/glibc/libc6_2.41-12+deb13u5_amd64.deb b59b0625cd1a791375d40dab23a4d5d3d0641e3d0a773501becdc3725b7f99cf"
  "pool/main/n/ncurses/libtinfo6_6.5+20250216-2_amd64.deb 8b9f6a7983e9418564e48a627518de4c03917b56efe68d7f3e93bd8fffa1cc10"
  "pool/main/j/jemalloc/libjemalloc2_5.3.0-3_amd64.deb e7d64919e620e8ea46960104efe1e9c977d751e5b610a5d89b0b51aeae9530d7"
)
[ "$(uname -m)" = x86_64 ] || { echo "get-tmux.sh: only amd64 is listed" >&2; exit 1; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
for e in "${DEBS[@]}"; do
  read -r path sum <<<"$e"
  f=$TMP/${path##*/}
  curl -fsS --retry 3 -o "$f" "$MIRROR/$path" || {
    echo "get-tmux.sh: cannot download $MIRROR/$path (a point release may have replaced it: update DEBS from trixie's Packages index)" >&2; exit 1; }
  echo "$sum  $f" | sha256sum -c --quiet - || { echo "get-tmux.sh: SHA-256 mismatch for $path" >&2; exit 1; }
done
rm -rf "$ROOT"; mkdir -p "$ROOT" "$DEST/bin"
for f in "$TMP"/*.deb; do dpkg-deb -x "$f" "$ROOT"; done
LD=$ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
LP=$ROOT/usr/lib/x86_64-linux-gnu
printf '%s\n' "$LD" --library-path "$LP" --argv0 tmux "$ROOT/usr/bin/tmux" >"$DEST/argv"
cat >"$WRAP" <<EOF
#!/bin/sh
# tmux 3.5a (Debian trixie), run via trixie's loader; see get-tmux.sh
exec "$LD" --library-path "$LP" --argv0 tmux "$ROOT/usr/bin/tmux" "\$@"
EOF
chmod +x "$WRAP"
v=$("$WRAP" -V) || { "$LD" --list --library-path "$LP" "$ROOT/usr/bin/tmux" >&2; exit 1; }
[ "$v" = "tmux 3.5a" ] || { echo "get-tmux.sh: got '$v'" >&2; exit 1; }
echo "$v: $WRAP"
