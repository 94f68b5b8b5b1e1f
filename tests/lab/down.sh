#!/usr/bin/env bash
# Remove every trace of the lab built by up.sh (same environment variables).
# Only the lab's own processes are stopped: the host-side relay by its
# pidfile (after checking it really is that relay), everything else because it
# runs inside the lab's own network namespace.  Exits non-zero if a trace
# remains.
set -u

NS=${GNTLAB_NS:-htools-lab}
BASE=${GNTLAB_BASE:-/tmp/htools-lab}
VC=$BASE/vc
HERE=$(cd "$(dirname "$0")" && pwd)
export GNTLAB_BASE=$BASE
ns_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF "$NS"; }
ns_pids() { ip netns pids "$NS" 2>/dev/null; }

[[ $(id -u) == 0 ]] || { echo "down.sh: must run as root" >&2; exit 1; }

# 1. the host-side relays: the only lab processes outside the namespace
"$HERE/relay.sh" stop main >/dev/null 2>&1
"$HERE/relay.sh" stop helper >/dev/null 2>&1

# 2. Ganeti daemons, node by node (daemon-util uses each node's own pidfiles)
if ns_exists && [[ -d $VC ]]; then
  for d in "$VC"/node*; do
    [[ -x $d/cmd ]] || continue
    timeout 60 ip netns exec "$NS" "$d/cmd" /usr/lib/ganeti/daemon-util stop-all >/dev/null 2>&1 &
  done
  wait
fi

# 3. whatever still runs inside the namespace (sshd, the inner relay, instance
#    helpers) is the lab's by construction
if ns_exists; then
  for sig in TERM TERM KILL; do
    mapfile -t pids < <(ns_pids)
    (( ${#pids[@]} )) || break
    kill -"$sig" "${pids[@]}" 2>/dev/null
    for _ in $(seq 1 20); do [[ -z $(ns_pids) ]] && break; sleep 0.1; done
  done
  ip netns del "$NS" 2>/dev/null || ! ns_exists || echo "down.sh: could not delete namespace $NS" >&2
fi
rm -f "/run/sshd-$NS.pid"

# 4. files (the storage directories are tmpfs mounts: unmounted first)
if [[ -d $BASE ]]; then
  while read -r mnt; do
    umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
  done < <(awk -v base="$BASE/" 'index($2, base) == 1 {print $2}' /proc/self/mounts | sort -r)
fi
rm -rf "/etc/netns/$NS" "$BASE"
rmdir /etc/netns 2>/dev/null || true
rmdir /run/netns 2>/dev/null || true     # empty and unused now (ip netns recreates it)

# 5. verify
left=()
ns_exists && left+=("namespace $NS")
[[ -e /run/netns/$NS ]] && left+=("/run/netns/$NS")
[[ -e /etc/netns/$NS ]] && left+=("/etc/netns/$NS")
[[ -e $BASE ]] && left+=("$BASE")
grep -qF " $BASE/" /proc/self/mounts && left+=("mounts under $BASE")
stray=$(pgrep -af -- "$BASE/")
[[ -n $stray ]] && { sleep 1; stray=$(pgrep -af -- "$BASE/"); }   # still exiting?
[[ -n $stray ]] && left+=("processes mentioning $BASE/: $stray")
if (( ${#left[@]} )); then
  printf 'down.sh: left behind: %s\n' "${left[@]}" >&2
  exit 1
fi
echo "htools lab '$NS' removed"
