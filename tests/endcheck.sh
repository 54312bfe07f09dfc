# tests/endcheck.sh: the end check of tests/run (sourced). endcheck_snapshot
# DIR records what the machine has before the tests; endcheck DIR lists
# what is there after them and was not before, and fails when anything is:
#   - a process started by the run (it carries $STT_TESTS_RUN in its
#     environment) that is not part of tests/run itself,
#   - a mount point, a user, a group, a systemd unit loaded by the system's
#     or the user's manager,
#   - a file in /etc, /run, /usr/local, /var/lib, $HOME (down to three
#     levels, outside the test cache $TOOLS and Go's caches), a signaltty
#     directory in /tmp, or anything in the run's own temporary directory
#     ($RUN_TMP) besides its programs, events, .deb and snapshot.

# endcheck_list prints one sorted line per thing the check compares.
endcheck_list() {
  local prune=() d
  for d in "$TOOLS" "$(go env GOCACHE 2>/dev/null)" "$(go env GOMODCACHE 2>/dev/null)" "$(go env GOPATH 2>/dev/null)" \
    "$RUN_TMP" "$HOME/.cache/go-build"; do
    [ -n "$d" ] && prune+=(-path "$d" -prune -o)
  done
  {
    awk '{print "mount " $5}' /proc/self/mountinfo
    cut -d: -f1 /etc/passwd | sed 's/^/user /'
    cut -d: -f1 /etc/group | sed 's/^/group /'
    if [ -d /run/systemd/system ] && [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
      systemctl list-units --all --no-legend --plain 2>/dev/null | awk '{print "unit " $1}'
    fi
    if [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/systemd/private" ]; then
      systemctl --user list-units --all --no-legend --plain 2>/dev/null | awk '{print "user-unit " $1}'
    fi
    find /etc /run /usr/local /var/lib -xdev "${prune[@]}" -maxdepth 3 -print 2>/dev/null | grep -v '^/run/user/[0-9]*/\|^/var/lib/apt/\|^/var/lib/dpkg/\|^/var/lib/systemd/deb-systemd' | sed 's/^/file /'
    find "$HOME" -xdev "${prune[@]}" -maxdepth 3 -print 2>/dev/null | sed 's/^/file /'
    find /tmp -maxdepth 1 \( -name 'signaltty*' -o -name 'stt-*' -o -name 'usd*' \) -not -path "$RUN_TMP" -print 2>/dev/null | sed 's/^/file /'
  } | sort -u
}

endcheck_snapshot() { mkdir -p "$1" && endcheck_list >"$1/list"; }

# endcheck_processes prints the processes started by this run that are still
# alive, except tests/run and its own children (the check itself).
endcheck_processes() {
  local p pid ppid
  for p in $(grep -lzx "STT_TESTS_RUN=$STT_TESTS_RUN" /proc/[0-9]*/environ 2>/dev/null); do
    pid=${p#/proc/}; pid=${pid%/environ}
    # ancestors up to PID 1: is tests/run one of them?
    ppid=$pid
    while [ -n "$ppid" ] && [ "$ppid" -gt 1 ] && [ "$ppid" != $$ ]; do
      ppid=$(awk '{print $4}' "/proc/$ppid/stat" 2>/dev/null | head -1)
    done
    [ "$ppid" = $$ ] && continue
    grep -qs '^[0-9]* (.*) [^Z]' "/proc/$pid/stat" || continue  # gone or a zombie
    echo "process $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
  done
}

endcheck() {
  local before=$1/list left
  left=$( {
    comm -13 "$before" <(endcheck_list)
    endcheck_processes
    find "$RUN_TMP" -mindepth 1 -maxdepth 1 -not -name bin -not -name events -not -name deb -not -name "$(basename "$1")" -print | sed 's/^/file /'
  } )
  if [ -n "$left" ]; then
    echo "tests/run: the run left these behind (not there before it):"
    printf '%s\n' "$left" | sed 's/^/  /'
    return 1
  fi
  echo "tests/run: nothing left behind (processes, mounts, users, groups, units, files)"
}
