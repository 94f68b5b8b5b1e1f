#!/usr/bin/env bash
# Host side of the lab's RAPI relays.  Each one is a socat listening on
# 127.0.0.1 only and forwarding to a unix socket under $GNTLAB_BASE, behind
# which a socat inside the isolated namespace connects to the cluster IP.
#
#   main    127.0.0.1:$GNTLAB_RAPI_PORT     -> rapi.sock        (what clients use)
#   helper  127.0.0.1:$GNTLAB_RAPI_PORT+1   -> rapi-helper.sock (the tests' own
#           checks; it reaches RAPI from another source address, so that the
#           RAPI log tells the tests' requests from the collection's)
#
# Tests stop and restart the main relay to simulate an unreachable cluster.
# Usage: relay.sh start|stop|status [main|helper]
set -euo pipefail

BASE=${GNTLAB_BASE:-/tmp/htools-lab}
PORT=${GNTLAB_RAPI_PORT:-5090}
case ${2:-main} in
  main) SOCK=$BASE/rapi.sock; PIDFILE=$BASE/relay-host.pid ;;
  helper) SOCK=$BASE/rapi-helper.sock; PIDFILE=$BASE/relay-helper-host.pid; PORT=$((PORT + 1)) ;;
  *) echo "usage: $0 start|stop|status [main|helper]" >&2; exit 2 ;;
esac

# Is the pid in the pidfile our socat (and not a recycled pid)?
ours() {
  local pid
  [[ -s $PIDFILE ]] || return 1
  pid=$(<"$PIDFILE")
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "UNIX-CONNECT:$SOCK "
}

case ${1:-} in
  start)
    if ours; then echo "relay already running (pid $(<"$PIDFILE"))"; exit 0; fi
    [[ -S $SOCK ]] || { echo "no lab socket $SOCK (is the lab up?)" >&2; exit 1; }
    setsid socat "TCP-LISTEN:$PORT,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$SOCK" \
      </dev/null >/dev/null 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 100); do
      ss -Hltn "src 127.0.0.1 and sport = :$PORT" | grep -q . && exit 0
      sleep 0.05
    done
    echo "relay did not start listening on 127.0.0.1:$PORT" >&2
    exit 1
    ;;
  stop)
    if ours; then
      pid=$(<"$PIDFILE")
      # setsid made socat a process-group leader: the group is the listener
      # and its forked per-connection children (open connections die too)
      kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do pgrep -g "$pid" >/dev/null || break; sleep 0.05; done
    fi
    rm -f "$PIDFILE"
    ;;
  status)
    if ours; then echo "running (pid $(<"$PIDFILE"))"; else echo "stopped"; exit 3; fi
    ;;
  *)
    echo "usage: $0 start|stop|status [main|helper]" >&2; exit 2 ;;
esac
