#!/usr/bin/env bash
# The live part of `make test` (root): the vm lab has been booting in the
# background since before the unit tests (tests/vmlab/boot.sh start).  Three
# lanes then run side by side, as they mostly wait on Ganeti and its VMs:
#   - the namespace-lab tests (make integration-tests);
#   - the vm-lab tests, once the vm lab is up;
#   - COMMAND (make test: the checks, the version matrix and the molecule
#     scenario, which brings up a lab of its own).
# One after the other they took more than CI's hour.  The output of the
# vm-lab lane and of COMMAND is kept in files and printed after.
#
#   tests/run_labs.sh [COMMAND...]
#
# The VMs keep their priority (boot.sh gives their session's autogroup -10).
# Both labs are gone at the end, whatever failed; the exit status is non-zero
# if anything did.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
MAKE=${MAKE:-make}

# with HTOOLS_PHASE_LOG set (.ci/run), when each part ended: "epoch what"
mark() { [[ -z ${HTOOLS_PHASE_LOG:-} ]] || echo "$(date +%s) $*" >>"$HTOOLS_PHASE_LOG"; }

vm_log=$(mktemp /tmp/htools-vmlab-tests.XXXXXX)
(
  tests/vmlab/boot.sh wait || exit 1
  mark "  vm lab up"
  HTOOLS_VMLAB_REUSE=1 "$MAKE" --no-print-directory vmlab
  rc=$?
  mark "  vm lab tests done"
  exit $rc
) >"$vm_log" 2>&1 &
vm_pid=$!

beside_log=$(mktemp /tmp/htools-beside.XXXXXX)
beside_pid=
if (( $# )); then
  (
    "$@"
    rc=$?
    mark "  checks, molecule and the version matrix done (exit $rc)"
    exit $rc
  ) >"$beside_log" 2>&1 &
  beside_pid=$!
fi

"$MAKE" --no-print-directory integration-tests
lab_rc=$?
mark "  namespace lab tests done"
beside_rc=0
if [[ -n $beside_pid ]]; then
  wait "$beside_pid"
  beside_rc=$?
  echo "== $* (run beside the lab tests), exit $beside_rc:"
  cat "$beside_log"
fi
rm -f "$beside_log"
wait "$vm_pid"
vm_rc=$?
echo "== vm lab tests (run beside the namespace-lab tests), exit $vm_rc:"
cat "$vm_log"
rm -f "$vm_log"
tests/vmlab/boot.sh stop
VMLAB_KEEP_LOGS=${HTOOLS_VMLAB_LOGS:-} tests/vmlab/down.sh >/dev/null || vm_rc=1
echo "== labs: namespace-lab tests exit $lab_rc, vm-lab tests exit $vm_rc${1:+, beside them $* exit $beside_rc}"
[[ $lab_rc == 0 && $vm_rc == 0 && $beside_rc == 0 ]]
