#!/usr/bin/env bash
# tests/fresh-machine.sh [-root-only] [-user-only] [-setup-only] [-keep] [-- TESTS-RUN-ARGS...]
#
# Proves that README.md's set-up is all a fresh Debian 12 machine needs for
# ./tests/run. It builds a Debian 12 root file system with mmdebstrap
# (variant minbase, packages from deb.debian.org only; kept as a tarball in
# $SIGNALTTY_TEST_TOOLS/fresh/, default ~/.cache/signaltty-tests, and built
# again when older than a week), unpacks a new copy of it for each run,
# copies this checkout (its tracked files, as they are in the work tree) to
# /src/signaltty in it, and runs there, in a private mount and PID
# namespace (nothing the runs start outlives them; the copy is deleted):
#   1. as root: the set-up block of README.md ("As root"), then ./tests/run,
#   2. as a user (uid 1000 without sudo, added inside the copy only): the
#      block again by root (the packages are installed by root), then
#      ./tests/run as the user, with the runtime directory /run/user/1000
#      that logind makes at a login.
# It fails when a run fails, or when the user's run skipped a test that the
# root run did not skip for any reason other than needing root (so the
# user's reduced set is exactly the root-only tests, which its summary
# names). Logs: $SIGNALTTY_TEST_TOOLS/fresh/{root,user}.log.
#
#   -root-only / -user-only   one of the two runs
#   -setup-only               stop after the README's set-up (and go version),
#                             without ./tests/run: a quick check of the set-up
#   -keep                     keep the root file systems (their paths are printed)
# SIGNALTTY_FRESH_HOST_CA=0 leaves out this machine's trusted certificates,
# which are otherwise added to the copy (a network behind a TLS-inspecting
# proxy needs its authority there to reach the Go module proxy).
# Needs root, mmdebstrap (apt-get install mmdebstrap), network access to
# deb.debian.org and the Go module proxy, and time: each run is a whole
# tests/run plus the set-up (about 15-25 minutes on 2 cores).
set -uo pipefail
cd "$(dirname "$(readlink -f "$0")")/.." || exit 1
SRC=$PWD
runs=(root user) keep= setup_only= args=()
while [ $# -gt 0 ]; do
  case $1 in
    -root-only|--root-only) runs=(root) ;;
    -user-only|--user-only) runs=(user) ;;
    -setup-only|--setup-only) setup_only=1 ;;
    -keep|--keep) keep=1 ;;
    --) shift; args=("$@"); break ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh-machine.sh: unknown argument $1 (see -h)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine.sh: needs root (mmdebstrap, chroot, mounts)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "fresh-machine.sh: needs mmdebstrap: apt-get install mmdebstrap" >&2; exit 1; }
OUT=${SIGNALTTY_TEST_TOOLS:-$HOME/.cache/signaltty-tests}/fresh
mkdir -p "$OUT"
# One at a time: the logs and the skip lists are per run kind, not per call.
exec 9>"$OUT/lock"
flock -n 9 || { echo "fresh-machine.sh: another tests/fresh-machine.sh is running ($OUT/lock)" >&2; exit 1; }
TAR=$OUT/bookworm-minbase.tar
if [ ! -s "$TAR" ] || [ -n "$(find "$TAR" -mtime +7)" ]; then
  echo "fresh-machine.sh: building a Debian 12 root file system (mmdebstrap --variant=minbase bookworm)"
  mmdebstrap --variant=minbase --include=ca-certificates bookworm "$OUT/new.tar" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" || exit 1
  mv "$OUT/new.tar" "$TAR"
fi

# The README's set-up for root: the sh block after the line "As root:" in
# the "Set up" section.
setup=$(awk '/^## Set up/{s=1} s&&/^As root/{r=1} r&&/^```sh$/{b=1; next} b&&/^```$/{exit} b' README.md)
[ -n "$setup" ] || { echo "fresh-machine.sh: no \"As root:\" sh block in README.md's \"Set up\"" >&2; exit 1; }

# inside ROOT WHO: runs the set-up and tests/run in a new copy; WHO is root
# or user. Prints the run's log to $OUT/WHO.log.
inside() {
  local who=$1 R
  R=$(mktemp -d "$OUT/root-$who.XXXXXX")
  current_root=$R
  tar -C "$R" -xf "$TAR" || return 1
  mkdir -p "$R/src/signaltty"
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -C "$R/src/signaltty" -xf - || return 1
  # A clone's checkout: build-deb.sh lists the files with git.
  git -C "$R/src/signaltty" init -q && git -C "$R/src/signaltty" add -A &&
    git -C "$R/src/signaltty" -c user.name=fresh-machine -c user.email=fresh@localhost commit -qm checkout || return 1
  cp /etc/resolv.conf "$R/etc/resolv.conf"
  # This machine's trusted certificates too, unless SIGNALTTY_FRESH_HOST_CA=0:
  # a network behind a TLS-inspecting proxy needs its authority inside.
  if [ "${SIGNALTTY_FRESH_HOST_CA:-1}" != 0 ] && [ -s /etc/ssl/certs/ca-certificates.crt ]; then
    cp /etc/ssl/certs/ca-certificates.crt "$R/usr/local/share/ca-certificates/fresh-machine-host.crt" &&
      chroot "$R" update-ca-certificates >/dev/null 2>&1 || return 1
  fi
  cat >"$R/run-inside.sh" <<INNER
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root
cd /src/signaltty
if [ "$who" = root ]; then
  echo "=== fresh-machine: README.md set-up, as root"
  ( set -e
$setup
  ) || { echo "fresh-machine: the README's set-up failed"; exit 1; }
  . <(grep '^export PATH=' /root/.profile)
  go version || exit 1
  [ -z "$setup_only" ] || exit 0
  echo "=== fresh-machine: ./tests/run as root"
  SIGNALTTY_TEST_SKIPS=/src/signaltty/.fresh-skips ./tests/run ${args[*]@Q}
else
  echo "=== fresh-machine: README.md set-up: its apt-get lines and tests/debian-packages by root"
  ( set -e
$(printf '%s\n' "$setup" | grep apt-get)
    apt-get install -y --no-install-recommends \$(sed 's/#.*//' tests/debian-packages) ) ||
    { echo "fresh-machine: the README's set-up failed"; exit 1; }
  useradd -m -u 1000 -s /bin/bash tester
  chown -R tester: /src/signaltty
  echo "=== fresh-machine: the rest of the set-up and ./tests/run as a user without sudo"
  cat >/run-user.sh <<'USER'
cd /src/signaltty || exit 1
( set -e
$(printf '%s\n' "$setup" | grep -v apt-get)
) || { echo "fresh-machine: the README's set-up failed"; exit 1; }
. <(grep '^export PATH=' ~/.profile)
go version || exit 1
[ -z "$setup_only" ] || exit 0
./tests/run "\$@"
USER
  # The runtime directory logind makes for a user's login (pam_systemd),
  # and the XDG_RUNTIME_DIR it sets.
  install -d -m 0700 -o tester -g tester /run/user/1000
  setpriv --reuid=tester --regid=tester --init-groups env -i HOME=/home/tester USER=tester LOGNAME=tester \
    XDG_RUNTIME_DIR=/run/user/1000 PATH="\$PATH" LANG=C.UTF-8 TERM=dumb SIGNALTTY_TEST_SKIPS=/src/signaltty/.fresh-skips \
    bash /run-user.sh ${args[*]@Q}
fi
INNER
  echo "fresh-machine.sh: run as $who in $R (log: $OUT/$who.log)"
  # A private mount and PID namespace: the proc, dev, sys and tmp mounts, and
  # every process the run leaves, end with it (--kill-child: also when
  # unshare itself is ended, as the trap below does). The copy becomes the
  # namespace's root file system (bound onto itself, then pivot_root), as
  # on a machine, not a chroot: the harness's `unshare --propagation
  # private` (a private user manager, a private logind) fails with EINVAL
  # where / is not a mount point, and the kernel refuses a new user
  # namespace (Codex's bubblewrap sandbox) to a chrooted process.
  unshare --mount --propagation private --pid --fork --kill-child sh -c '
    R=$1
    mount -n --bind "$R" "$R" && mount -n -t proc proc "$R/proc" && mount -n --rbind /dev "$R/dev" && mount -n --rbind /sys "$R/sys" &&
    mount -n -t tmpfs -o mode=755 tmpfs "$R/run" && mount -n -t tmpfs -o mode=1777 tmpfs "$R/tmp" || exit 1
    cd "$R" && mkdir -p .host && pivot_root . .host && cd / && umount -n -l /.host && rmdir /.host || exit 1
    exec env -i TERM=dumb bash /run-inside.sh' sh "$R" >"$OUT/$who.log" 2>&1 </dev/null &
  inner=$!
  wait "$inner"
  local rc=$?
  inner=
  tail -40 "$OUT/$who.log"
  cp "$R/src/signaltty/.fresh-skips" "$OUT/$who.skips" 2>/dev/null || true
  if [ -n "$keep" ]; then echo "fresh-machine.sh: kept $R"; else rm -rf --one-file-system "$R"; fi
  current_root=
  return $rc
}

# Interrupted (INT, TERM, HUP): the run's namespace ends with unshare, and
# the copy of the root file system is deleted (unless -keep).
current_root= inner=
interrupted() {
  echo "fresh-machine.sh: interrupted; ending the run and removing its copy" >&2
  # unshare may outlive a TERM (util-linux 2.38 with --kill-child: "sigprocmask
  # unblock failed"); KILL after 10 s ends it, and --kill-child the run with it.
  if [ -n "$inner" ]; then
    kill "$inner" 2>/dev/null
    local i; for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$inner" 2>/dev/null || break; sleep 1; done
    kill -KILL "$inner" 2>/dev/null; wait "$inner" 2>/dev/null
  fi
  if [ -n "$current_root" ] && [ -z "$keep" ]; then rm -rf --one-file-system "$current_root"; fi
  exit 130
}
trap interrupted INT TERM HUP

failed=()
for who in "${runs[@]}"; do
  start=$SECONDS
  if inside "$who"; then echo "fresh-machine.sh: as $who: passed ($((SECONDS - start)) s)"
  else echo "fresh-machine.sh: as $who: FAILED ($((SECONDS - start)) s)"; failed+=("$who"); fi
done
# The user's run may skip more than root's only for needing root.
if [ ${#runs[@]} = 2 ] && [ -s "$OUT/root.skips" ] && [ -s "$OUT/user.skips" ]; then
  extra=$(comm -13 <(cut -f1 "$OUT/root.skips" | sort -u) <(grep -v $'\troot$' "$OUT/user.skips" | cut -f1 | sort -u))
  if [ -n "$extra" ]; then
    echo "fresh-machine.sh: skipped as a user but not as root, for another reason than root:"; printf '  %s\n' $extra
    failed+=(difference)
  fi
fi
[ ${#failed[@]} -eq 0 ] || { echo "fresh-machine.sh: FAILED: ${failed[*]}"; exit 1; }
echo "fresh-machine.sh: passed: ${runs[*]}"
