#!/usr/bin/env bash
# The live part of `make test` (root): the vm lab has just started booting in
# the background (tests/vmlab/boot.sh start, after the unit tests); here the
# namespace-lab tests (make integration-tests) and, once the vm lab is up,
# the vm-lab tests run side by side: both mostly wait on Ganeti and its VMs,
# and one after the other they took more than half of CI's hour.  The vm-lab
# output is kept in a file and printed after.
#
#   RUN_LABS_AFTER_VMLAB="make checks" tests/run_labs.sh [COMMAND...]
#
# RUN_LABS_AFTER_VMLAB (make test: the checks that need no lab) runs as soon
# as the vm-lab tests are done, beside the rest of the namespace-lab tests
# (which outlast them by a quarter of an hour in CI).  COMMAND (make test:
# the molecule scenario, which brings up a lab of its own, and the version
# matrix) runs once the namespace-lab tests are done.  The VMs keep their
# priority (boot.sh gives their session's autogroup -10).
# Both labs are gone at the end, whatever failed; the exit status is non-zero
# if anything did.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
MAKE=${MAKE:-make}

# with HTOOLS_PHASE_LOG set (.ci/run), when each part ended: "epoch what"
mark() { [[ -z ${HTOOLS_PHASE_LOG:-} ]] || echo "$(date +%s) $*" >>"$HTOOLS_PHASE_LOG"; }

vm_log=$(mktemp /tmp/htools-vmlab-tests.XXXXXX)
after_vm_log=$(mktemp /tmp/htools-after-vmlab.XXXXXX)
after_vm_rc=$(mktemp /tmp/htools-after-vmlab-rc.XXXXXX)
(
  (
    tests/vmlab/boot.sh wait || exit 1
    mark "  vm lab up"
    HTOOLS_VMLAB_REUSE=1 "$MAKE" --no-print-directory vmlab
  )
  rc=$?
  mark "  vm lab tests done (exit $rc)"
  # down at once: idle emulated VMs still take CPU from what runs next
  tests/vmlab/boot.sh stop
  VMLAB_KEEP_LOGS=${HTOOLS_VMLAB_LOGS:-} tests/vmlab/down.sh >/dev/null || rc=1
  if [[ -n ${RUN_LABS_AFTER_VMLAB:-} ]]; then
    # the vm lab is done with, booted or not: its CPU goes to the checks
    bash -c "$RUN_LABS_AFTER_VMLAB" >"$after_vm_log" 2>&1
    echo $? >"$after_vm_rc"
    mark "  $RUN_LABS_AFTER_VMLAB done (exit $(cat "$after_vm_rc"))"
  fi
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
  mark "  molecule and the version matrix done (exit $beside_rc)"
fi
wait "$vm_pid"
vm_rc=$?
echo "== vm lab tests (run beside the namespace-lab tests), exit $vm_rc:"
cat "$vm_log"
after_rc=0
if [[ -n ${RUN_LABS_AFTER_VMLAB:-} ]]; then
  after_rc=$(cat "$after_vm_rc" 2>/dev/null)
  after_rc=${after_rc:-1}
  echo "== $RUN_LABS_AFTER_VMLAB (run after the vm-lab tests), exit $after_rc:"
  cat "$after_vm_log"
fi
rm -f "$vm_log" "$after_vm_log" "$after_vm_rc"
# down already, unless its subshell was cut short
tests/vmlab/boot.sh stop
VMLAB_KEEP_LOGS=${HTOOLS_VMLAB_LOGS:-} tests/vmlab/down.sh >/dev/null || vm_rc=1
echo "== labs: namespace-lab tests exit $lab_rc, vm-lab tests exit $vm_rc${RUN_LABS_AFTER_VMLAB:+, then $RUN_LABS_AFTER_VMLAB exit $after_rc}${1:+; after them $* exit $beside_rc}"
[[ $lab_rc == 0 && $vm_rc == 0 && $after_rc == 0 && $beside_rc == 0 ]]
