#!/usr/bin/env bash
# The live part of `make test` (root): the vm lab has been booting in the
# background since before the unit tests (tests/vmlab/boot.sh start); here the
# namespace-lab tests (make integration-tests) and, once the vm lab is up,
# the vm-lab tests run side by side: both mostly wait on Ganeti and its VMs,
# and one after the other they took more than half of CI's hour.  The vm-lab
# output is kept in a file and printed after.
#
#   tests/run_labs.sh [COMMAND...]
#
# COMMAND (make test: the checks, the version matrix and the molecule
# scenario, which brings up a lab of its own) runs once the namespace-lab
# tests are done, while the vm-lab tests go on.  The VMs keep
# their priority (boot.sh gives their session's autogroup -10).
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

"$MAKE" --no-print-directory integration-tests
lab_rc=$?
mark "  namespace lab tests done"
beside_rc=0
if (( $# )); then
  "$@"
  beside_rc=$?
  mark "  checks and the version matrix done (exit $beside_rc)"
fi
wait "$vm_pid"
vm_rc=$?
echo "== vm lab tests (run beside the namespace-lab tests), exit $vm_rc:"
cat "$vm_log"
rm -f "$vm_log"
tests/vmlab/boot.sh stop
VMLAB_KEEP_LOGS=${HTOOLS_VMLAB_LOGS:-} tests/vmlab/down.sh >/dev/null || vm_rc=1
echo "== labs: namespace-lab tests exit $lab_rc, vm-lab tests exit $vm_rc${1:+, beside them $* exit $beside_rc}"
[[ $lab_rc == 0 && $vm_rc == 0 && $beside_rc == 0 ]]
