#!/usr/bin/env bash
# get-agents.sh [DEST]
# Installs the real coding agents of tests/harness/agents.pins from the npm
# registry, each at its pinned version into its own prefix DEST/<name>-<version>
# (DEST default $SIGNALTTY_TEST_TOOLS/agents, SIGNALTTY_TEST_TOOLS default
# ~/.cache/signaltty-tests), and writes DEST/bin/<command>: a wrapper that runs
# the pinned version (on the pinned Node when the machine's is too old for it).
# Idempotent: a prefix that holds its pinned version is kept as it is.
# Prints how long it took. Needs npm (Debian's nodejs/npm, or any npm ≥ 9).
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
TOOLS=${SIGNALTTY_TEST_TOOLS:-$HOME/.cache/signaltty-tests}
DEST=$(realpath -m "${1:-$TOOLS/agents}")
start=$SECONDS
command -v npm >/dev/null || { echo "get-agents.sh: npm is not installed (apt-get install npm)" >&2; exit 1; }
mkdir -p "$DEST/bin"
# npm's cache and logs, and whatever the packages' install scripts put in
# TMPDIR, stay in the test cache or go with this script.
export npm_config_cache="$TOOLS/npm-cache"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch

declare -A pkg ver cmd needs
order=()
while read -r name p v c n; do
  case $name in ''|'#'*) continue ;; esac
  pkg[$name]=$p ver[$name]=$v cmd[$name]=$c needs[$name]=$n
  order+=("$name")
done <"$here/agents.pins"

# install NAME: npm install -g into DEST/NAME-VERSION unless it is there.
install() {
  local name=$1 prefix=$DEST/$1-${ver[$1]}
  local mark=$prefix/.installed
  if [ -e "$mark" ]; then return 0; fi
  rm -rf "$prefix"
  local t=$SECONDS
  npm install -g --prefix "$prefix" --no-audit --no-fund --loglevel=error "${pkg[$name]}@${ver[$name]}" >&2
  echo "${pkg[$name]}@${ver[$name]}" >"$mark"
  echo "get-agents.sh: installed ${pkg[$name]}@${ver[$name]} ($((SECONDS - t))s)"
}

sysnode_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
# The installs run in parallel (they wait mostly on the registry).
pids=()
for name in "${order[@]}"; do
  if [ "$name" = node ]; then
    need=
    for n in "${order[@]}"; do
      [ "${needs[$n]}" != - ] && [ "$sysnode_major" -lt "${needs[$n]}" ] && need=1
    done
    [ -n "$need" ] || continue
  fi
  install "$name" & pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

# opencode installs @opencode-ai/plugin (at its own version) into each of
# its configuration directories at start, from the registry, unless the
# directory already has node_modules and a package-lock.json naming every
# dependency of its package.json. DEST/opencode-config is such a directory,
# made once here; a test gives its opencode a copy of it (node_modules as a
# link) so opencode asks the registry for nothing.
if [ -n "${ver[opencode]:-}" ]; then
  conf=$DEST/opencode-${ver[opencode]}/config
  if [ ! -e "$conf/.installed" ]; then
    rm -rf "$conf" && mkdir -p "$conf"
    t=$SECONDS
    npm install --prefix "$conf" --no-audit --no-fund --loglevel=error --save-exact \
      "@opencode-ai/plugin@${ver[opencode]}" >&2
    echo "@opencode-ai/plugin@${ver[opencode]}" >"$conf/.installed"
    echo "get-agents.sh: installed @opencode-ai/plugin@${ver[opencode]} for opencode's config directory ($((SECONDS - t))s)"
  fi
  ln -sfn "opencode-${ver[opencode]}/config" "$DEST/opencode-config"
fi
for name in "${order[@]}"; do
  [ "$name" = node ] && continue
  prefix=$DEST/$name-${ver[$name]}
  path_dirs=$prefix/bin
  if [ "${needs[$name]}" != - ] && [ "$sysnode_major" -lt "${needs[$name]}" ]; then
    path_dirs=$DEST/node-${ver[node]}/bin:$path_dirs
  fi
  # The wrapper puts the pinned node first on PATH for this agent only.
  cat >"$DEST/bin/${cmd[$name]}.new" <<WRAP
#!/bin/sh
# ${pkg[$name]}@${ver[$name]}, installed by tests/harness/get-agents.sh
PATH=$path_dirs:\$PATH exec "$prefix/bin/${cmd[$name]}" "\$@"
WRAP
  chmod +x "$DEST/bin/${cmd[$name]}.new"
  mv "$DEST/bin/${cmd[$name]}.new" "$DEST/bin/${cmd[$name]}"
done
echo "get-agents.sh: agents in $DEST/bin ($((SECONDS - start))s)"
