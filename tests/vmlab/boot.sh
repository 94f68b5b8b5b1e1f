#!/usr/bin/env bash
# Boot the vm lab in the background while other work runs (`make test TEST_VMLAB=1` boots it
# during the namespace-lab tests, which mostly wait on Ganeti), then wait for it.
#
#   boot.sh start   run up.sh (3 nodes, VMLAB_DRBD=2 as tests/vmlab/conftest.py
#                   uses) in a session of its own; output in $STATE/log
#   boot.sh wait    until it has finished: its timings, or the end of its log
#                   on failure; exits with up.sh's status
#   boot.sh stop    kill a boot still running (down.sh then removes the lab)
#
# Env: the VMLAB_* settings of up.sh; VMLAB_BOOT_STATE (/tmp/htools-vmlab-boot)
# is where the pid, status and log are kept (not under VMLAB_BASE, which
# down.sh removes).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
STATE=${VMLAB_BOOT_STATE:-/tmp/htools-vmlab-boot}
BASE=${VMLAB_BASE:-/tmp/htools-vmlab}

running() {
  [[ -s $STATE/pid ]] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null
}

case ${1:-} in
  start)
    if running; then
      echo "boot.sh: a boot is already running (pid $(cat "$STATE/pid"))" >&2
      exit 1
    fi
    mkdir -p "$STATE"
    rm -f "$STATE/rc" "$STATE/log"
    export VMLAB_DRBD=${VMLAB_DRBD:-2} VMLAB_PLAIN=${VMLAB_PLAIN:-0}
    # A session of its own is an autogroup of its own: without a weight of
    # its own, the VMs get no more CPU than the unit tests' session (nice
    # does not cross autogroups), and under emulation a starved master's
    # luxid gives up on its job processes ("Timeout in reading a response").
    # shellcheck disable=SC2016 # $1 and $2 belong to the inner shell
    setsid bash -c 'echo -10 >/proc/self/autogroup 2>/dev/null; "$1" 3 >"$2/log" 2>&1
                    echo $? >"$2/rc"' boot "$HERE/up.sh" "$STATE" \
      </dev/null &
    echo $! >"$STATE/pid"
    echo "== vm lab: booting in the background (pid $!, log $STATE/log)"
    ;;
  wait)
    [[ -e $STATE/pid ]] || { echo "boot.sh: no boot was started" >&2; exit 1; }
    start=$(date +%s)
    while [[ ! -s $STATE/rc ]]; do
      if ! running && [[ ! -s $STATE/rc ]]; then
        echo "boot.sh: the boot ended without a status" >&2
        tail -n 40 "$STATE/log" >&2 || true
        exit 1
      fi
      sleep 5
    done
    rc=$(cat "$STATE/rc")
    echo "== vm lab: boot finished with status $rc (waited $(( $(date +%s) - start ))s for it)"
    if [[ $rc != 0 ]]; then
      tail -n 60 "$STATE/log" >&2 || true
      exit "$rc"
    fi
    sed 's/^/   /' "$BASE/timings" 2>/dev/null || true
    ;;
  stop)
    if running; then
      kill -- "-$(cat "$STATE/pid")" 2>/dev/null || true
      for _ in $(seq 1 60); do running || break; sleep 1; done
      echo "== vm lab: background boot stopped"
    fi
    ;;
  *)
    echo "usage: boot.sh start|wait|stop" >&2
    exit 2
    ;;
esac
