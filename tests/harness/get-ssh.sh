#!/usr/bin/env bash
# get-ssh.sh DEST
# Installs an OpenSSH client ≥ 9.4 (Debian trixie's) as DEST/bin/ssh on Debian 12, whose
# ssh 9.2 cannot forward stdio to a remote AF_UNIX socket (`ssh -W /path host`, which
# ssh-unix: addresses use). Same method as get-varlinkctl.sh: apt with a throw-away
# config downloads the .debs, they are only unpacked (dpkg-deb -x) into DEST/root, and a
# wrapper runs ssh through trixie's own dynamic loader. Nothing on the system changes.
# Exits at once when the system's ssh or DEST/bin/ssh is already new enough.
set -euo pipefail
DEST=$(realpath -m "${1:?usage: $0 DEST}")
ROOT=$DEST/root WRAP=$DEST/bin/ssh
new_enough() { "$1" -V 2>&1 | grep -qE '^OpenSSH_(9\.([4-9]|[1-9][0-9])|[1-9][0-9]+\.)'; }
if new_enough ssh; then mkdir -p "$DEST/bin"; ln -sf "$(command -v ssh)" "$WRAP"; echo "system ssh is new enough"; exit 0; fi
if [ -x "$WRAP" ] && new_enough "$WRAP"; then echo "already installed: $WRAP"; exit 0; fi
PKGS=(openssh-client libc6 libssl3t64)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP"/{lists/partial,cache/archives/partial,parts,debs}
cat >"$TMP/parts/trixie.sources" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
: >"$TMP/empty.list"
APT=(apt-get -q -o Dir::Etc::sourcelist="$TMP/empty.list" -o Dir::Etc::sourceparts="$TMP/parts"
     -o Dir::State::Lists="$TMP/lists" -o Dir::Cache="$TMP/cache" -o Acquire::Languages=none -o APT::Sandbox::User=root)
"${APT[@]}" update >/dev/null
(cd "$TMP/debs" && "${APT[@]}" download "${PKGS[@]/%//trixie}" >/dev/null)
rm -rf "$ROOT"; mkdir -p "$ROOT"
for d in "$TMP"/debs/*.deb; do dpkg-deb -x "$d" "$ROOT"; done
LD=$ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
mkdir -p "$DEST/bin"
cat >"$WRAP" <<WRAPPER
#!/bin/sh
# ssh from Debian trixie, run via trixie's loader; see get-ssh.sh
exec "$LD" --library-path "$ROOT/usr/lib/x86_64-linux-gnu" "$ROOT/usr/bin/ssh" "\$@"
WRAPPER
chmod +x "$WRAP"
"$WRAP" -V
