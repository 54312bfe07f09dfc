#!/usr/bin/env bash
# get-sshd.sh DEST
# Unpacks an OpenSSH server (the system's own Debian release's openssh-server, plus the
# libraries it needs beyond those openssh-client brings) into DEST/root, and writes
# DEST/bin/sshd, a wrapper that runs it with those libraries. The remote-daemon tests run
# it on 127.0.0.1 with a private configuration (tests/harness/sshd.go).
# Nothing on the system changes: apt runs with a throw-away configuration (own sources,
# lists and cache in a temporary directory, as get-varlinkctl.sh does), the .debs are
# only unpacked (dpkg-deb -x), no package is installed, no service enabled, no user
# added; it needs no root. Idempotent: exits at once when DEST/bin/sshd already works.
set -euo pipefail
DEST=$(realpath -m "${1:?usage: $0 DEST}")
ROOT=$DEST/root WRAP=$DEST/bin/sshd
if [ -x "$WRAP" ] && "$WRAP" -V 2>&1 | grep -q '^OpenSSH_'; then
  echo "already installed: $WRAP"; exit 0
fi
. /etc/os-release
SUITE=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
# libwrap0 is the one library of openssh-server that a system with openssh-client
# lacks (Debian 12); the others come with the client.
PKGS=(openssh-server libwrap0)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP"/{lists/partial,cache/archives/partial,parts,debs}
cat >"$TMP/parts/$SUITE.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
: >"$TMP/empty.list"
APT=(apt-get -q -o Dir::Etc::sourcelist="$TMP/empty.list" -o Dir::Etc::sourceparts="$TMP/parts"
     -o Dir::State::Lists="$TMP/lists" -o Dir::Cache="$TMP/cache" -o Acquire::Languages=none
     -o APT::Sandbox::User="$(id -un)")
"${APT[@]}" update >/dev/null
(cd "$TMP/debs" && "${APT[@]}" download "${PKGS[@]/%//$SUITE}" >/dev/null)
rm -rf "$ROOT"; mkdir -p "$ROOT"
for d in "$TMP"/debs/*.deb; do dpkg-deb -x "$d" "$ROOT"; done
mkdir -p "$DEST/bin"
# sshd re-executes itself by the absolute path it was started with; the library path
# reaches that copy and the session processes through the environment.
cat >"$WRAP" <<WRAPPER
#!/bin/sh
# sshd unpacked from Debian's openssh-server; see get-sshd.sh
LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$ROOT/usr/sbin/sshd" "\$@"
WRAPPER
chmod +x "$WRAP"
"$WRAP" -V 2>&1 | head -1
