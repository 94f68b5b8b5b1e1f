#!/usr/bin/env bash
# Remove every trace of the vm lab built by up.sh (same environment).
# Only the lab's own processes are stopped: the host-side relays by their
# pidfiles (after checking each really is that relay), the VMs and the inner
# relays because they run inside the lab's own network namespace.  The image
# cache (VMLAB_CACHE) stays.  Exits non-zero if a trace remains.
#
# Env: VMLAB_NS, VMLAB_BASE, VMLAB_CACHE as for up.sh;
#      VMLAB_KEEP_LOGS=DIR  copy the console logs and cluster.log there first
set -u

NS=${VMLAB_NS:-htools-vmlab}
BASE=${VMLAB_BASE:-/tmp/htools-vmlab}
CACHE=${VMLAB_CACHE:-/var/cache/htools-vmlab}
RUN=$BASE/run
START_MS=$(date +%s%3N)

ns_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF "$NS"; }
ns_pids() { ip netns pids "$NS" 2>/dev/null; }
mounts_under() { awk -v d="$1/" 'index($2, d) == 1 {print $2}' /proc/self/mounts; }

# Is PID (from a pidfile of this lab) still the process this lab started?
ours() {
  [[ -r /proc/$1/cmdline ]] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$BASE/"
}

stop_host_relays() {
  local f pid
  for f in "$RUN"/relay-*-host.pid; do
    [[ -s $f ]] || continue
    pid=$(<"$f")
    # setsid made each relay a process-group leader: the group is the
    # listener and its per-connection children
    if ours "$pid"; then kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null; fi
    rm -f "$f"
  done
}

# The VMs first by their pidfiles (a hard power-off: the lab is thrown away),
# then whatever else runs in the namespace, which is the lab's by construction.
stop_namespace() {
  local f pid sig
  for f in "$RUN"/qemu-node*.pid; do
    [[ -s $f ]] || continue
    pid=$(<"$f")
    ours "$pid" && kill "$pid" 2>/dev/null
  done
  ns_exists || return 0
  for sig in TERM TERM KILL; do
    mapfile -t pids < <(ns_pids)
    (( ${#pids[@]} )) || break
    kill -"$sig" "${pids[@]}" 2>/dev/null
    for _ in $(seq 1 30); do [[ -z $(ns_pids) ]] && break; sleep 0.1; done
  done
  ip netns del "$NS" 2>/dev/null || ! ns_exists || echo "down.sh: could not delete namespace $NS" >&2
}

keep_logs() {
  [[ -n ${VMLAB_KEEP_LOGS:-} && -d $BASE ]] || return 0
  mkdir -p "$VMLAB_KEEP_LOGS"
  cp -r "$BASE/console/." "$VMLAB_KEEP_LOGS/" 2>/dev/null
  cp "$BASE/cluster.log" "$BASE/timings" "$VMLAB_KEEP_LOGS/" 2>/dev/null
  return 0
}

# An image build killed hard may leave its chroot's /proc mounted; only when
# no build holds the cache's lock.
unmount_stale_builds() {
  local m
  [[ -d $CACHE ]] || return 0
  (
    flock -n 9 || exit 0
    for m in $(mounts_under "$CACHE"); do umount "$m" || umount -l "$m"; done
    rm -rf --one-file-system "$CACHE"/build.*
  ) 9>"$CACHE/.lock"
}

verify() {
  local left=() stray
  ns_exists && left+=("namespace $NS")
  [[ -e /run/netns/$NS ]] && left+=("/run/netns/$NS")
  [[ -e $BASE ]] && left+=("$BASE")
  [[ -n $(mounts_under "$BASE") ]] && left+=("mounts under $BASE: $(mounts_under "$BASE")")
  [[ -d $CACHE && -n $(mounts_under "$CACHE") ]] && left+=("mounts under $CACHE: $(mounts_under "$CACHE")")
  stray=$(pgrep -af -- "$BASE/")
  [[ -n $stray ]] && { sleep 1; stray=$(pgrep -af -- "$BASE/"); }   # still exiting?
  [[ -n $stray ]] && left+=("processes mentioning $BASE/: $stray")
  if (( ${#left[@]} )); then
    printf 'down.sh: left behind: %s\n' "${left[@]}" >&2
    return 1
  fi
}

[[ $(id -u) == 0 ]] || { echo "down.sh: must run as root" >&2; exit 1; }
keep_logs
stop_host_relays
stop_namespace
unmount_stale_builds
rm -rf --one-file-system "$BASE"
rmdir /run/netns 2>/dev/null || true     # empty and unused now (ip netns recreates it)
verify || exit 1
ms=$(( $(date +%s%3N) - START_MS ))
echo "htools vm lab '$NS' removed in $((ms / 1000)).$((ms % 1000 / 100))s"
