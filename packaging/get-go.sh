#!/usr/bin/env bash
# packaging/get-go.sh [DEST]   (DEST default: $HOME/.local/go-toolchain)
# Puts the Go toolchain signaltty needs (go.mod's `go` line, 1.26) into DEST
# on machines whose packaged Go is older (Debian 12: golang-go 1.19; Debian
# 13: 1.24), and prints the PATH line to use:
#   eval "$(packaging/get-go.sh)"   # then: go version
# The toolchain is the official one, as the go command itself fetches it
# with GOTOOLCHAIN: the module golang.org/toolchain@v0.0.1-go<V>.linux-<arch>
# from the Go module proxy ($GOPROXY's first entry, default
# https://proxy.golang.org). The zip's module hash (h1:, as in go.sum) is
# checked against sum.golang.org when that answers, else against the hash
# pinned below for the default version (computed from the proxy's zip;
# compare: curl https://sum.golang.org/lookup/golang.org/toolchain@v0.0.1-go1.26.8.linux-amd64).
# Needs curl, unzip and python3. Idempotent.
set -euo pipefail
V=${SIGNALTTY_GO_VERSION:-1.26.8}
PINNED_V=1.26.8
declare -A PINNED=(
  [amd64]=h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM=
)
DEST=${1:-$HOME/.local/go-toolchain}
case $(uname -m) in
  x86_64) ARCH=amd64 ;; aarch64) ARCH=arm64 ;; *) echo "get-go.sh: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
MOD=golang.org/toolchain@v0.0.1-go$V.linux-$ARCH
GOROOT_DIR=$DEST/go$V
if [ -x "$GOROOT_DIR/bin/go" ]; then echo "export PATH=$GOROOT_DIR/bin:\$PATH"; exit 0; fi
PROXY=${GOPROXY:-https://proxy.golang.org}; PROXY=${PROXY%%,*}; PROXY=${PROXY%%|*}
case $PROXY in off|direct|"") PROXY=https://proxy.golang.org ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "get-go.sh: fetching $MOD (${SIGNALTTY_GO_ZIP:-from $PROXY})" >&2
if [ -n "${SIGNALTTY_GO_ZIP:-}" ]; then cp "$SIGNALTTY_GO_ZIP" "$tmp/go.zip"   # the same zip, fetched elsewhere
else curl -fsSL -o "$tmp/go.zip" "$PROXY/golang.org/toolchain/@v/v0.0.1-go$V.linux-$ARCH.zip"; fi
# h1: module hash: sha256 over the sorted "sha256  name" lines of the zip's files.
got=$(python3 - "$tmp/go.zip" <<'PY'
import base64, hashlib, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
lines = "".join("%s  %s\n" % (hashlib.sha256(z.read(n)).hexdigest(), n)
                for n in sorted(i.filename for i in z.infolist() if not i.is_dir()))
print("h1:" + base64.b64encode(hashlib.sha256(lines.encode()).digest()).decode())
PY
)
want=
if sum=$(curl -fsS -m 20 "https://sum.golang.org/lookup/$MOD" 2>/dev/null); then
  want=$(echo "$sum" | awk -v m="${MOD%@*}" -v v="${MOD#*@}" '$1==m && $2==v {print $3}')
elif [ "$V" = "$PINNED_V" ]; then
  want=${PINNED[$ARCH]:-}
fi
if [ -z "$want" ]; then
  echo "get-go.sh: cannot check $MOD: sum.golang.org does not answer and no hash is pinned for it" >&2; exit 1
fi
if [ "$got" != "$want" ]; then
  echo "get-go.sh: $MOD has hash $got, want $want: not installed" >&2; exit 1
fi
mkdir -p "$DEST"
unzip -q "$tmp/go.zip" -d "$tmp/x"
mv "$tmp/x/$MOD" "$GOROOT_DIR"
chmod -R a+rX,u+w "$GOROOT_DIR"; chmod a+x "$GOROOT_DIR"/bin/* "$GOROOT_DIR"/pkg/tool/*/* 2>/dev/null || true
echo "get-go.sh: $("$GOROOT_DIR/bin/go" version) in $GOROOT_DIR" >&2
echo "export PATH=$GOROOT_DIR/bin:\$PATH"
