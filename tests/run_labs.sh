#!/usr/bin/env bash
# The live part of `make test` (root): the namespace-lab tests (make
# integration-tests) and, with RUN_LABS_VMLAB=1 (make test TEST_VMLAB=1),
# the vm-lab tests side by side: the vm lab has just started booting in the
# background (tests/vmlab/boot.sh start, after the unit tests), and its tests
# run once it is up; both mostly wait on Ganeti and its VMs.  The vm-lab
# output is kept in a file and printed after.
#
#   RUN_LABS_VMLAB=0 RUN_LABS_AFTER_FIRST="make checks" tests/run_labs.sh [COMMAND...]
#
# RUN_LABS_AFTER_FIRST (make test: the checks that need no lab) runs beside
# the namespace-lab tests from the start when there is no vm lab; with it, as
# soon as the first of the two labs' tests are done, beside the other's:
# which one ends first depends on the machine (on a quiet one the vm lab's,
# by a quarter of an hour; where the emulated VMs crawl, the namespace lab's).
# COMMAND (make test: the molecule scenario, which brings up a lab of its
# own, and the version matrix) runs once the namespace-lab tests are done.
# The VMs keep their priority (boot.sh gives their session's autogroup -10).
# Both labs are gone at the end, whatever failed; the exit status is non-zero
# if anything did.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
MAKE=${MAKE:-make}

# with HTOOLS_PHASE_LOG set (.ci/run), when each part ended: "epoch what"
mark() { [[ -z ${HTOOLS_PHASE_LOG:-} ]] || echo "$(date +%s) $*" >>"$HTOOLS_PHASE_LOG"; }

vm_log=$(mktemp /tmp/htools-vmlab-tests.XXXXXX)
first_log=$(mktemp /tmp/htools-after-first.XXXXXX)
first_rc=$(mktemp /tmp/htools-after-first-rc.XXXXXX)
# who runs RUN_LABS_AFTER_FIRST: the first to make this directory
first_claim=$first_rc.claim

after_first() {  # WHY: when it starts, for the timeline
  [[ -n ${RUN_LABS_AFTER_FIRST:-} ]] || return 0
  mkdir "$first_claim" 2>/dev/null || return 0
  mark "  $RUN_LABS_AFTER_FIRST starts ($1)"
  bash -c "$RUN_LABS_AFTER_FIRST" >"$first_log" 2>&1
  echo $? >"$first_rc"
  mark "  $RUN_LABS_AFTER_FIRST done (exit $(cat "$first_rc"))"
}

vmlab=${RUN_LABS_VMLAB:-1}

vm_tests() {  # once the vm lab is up, its tests; then the lab down at once
  (
    tests/vmlab/boot.sh wait || exit 1
    mark "  vm lab up"
    HTOOLS_VMLAB_REUSE=1 "$MAKE" --no-print-directory vmlab
  )
  local rc=$?
  mark "  vm lab tests done (exit $rc)"
  # down at once: idle emulated VMs still take CPU from what runs next
  tests/vmlab/boot.sh stop
  VMLAB_KEEP_LOGS=${HTOOLS_VMLAB_LOGS:-} tests/vmlab/down.sh >/dev/null || rc=1
  # the vm lab is done with, booted or not: its CPU goes to the checks
  after_first "the vm-lab tests done first"
  return $rc
}

if [[ $vmlab != 0 ]]; then
  vm_tests >"$vm_log" 2>&1 &
else
  # no vm lab: the checks start beside the namespace-lab tests
  after_first "beside the namespace-lab tests: no vm lab" &
fi
vm_pid=$!

"$MAKE" --no-print-directory integration-tests
lab_rc=$?
mark "  namespace lab tests done"
after_first "the namespace-lab tests done first" &
beside_rc=0
if (( $# )); then
  "$@"
  beside_rc=$?
  mark "  molecule and the version matrix done (exit $beside_rc)"
fi
wait "$vm_pid"
vm_rc=$?
wait        # the checks, when the namespace-lab tests ended first
if [[ $vmlab != 0 ]]; then
  echo "== vm lab tests (run beside the namespace-lab tests), exit $vm_rc:"
  cat "$vm_log"
fi
first_status=0
if [[ -n ${RUN_LABS_AFTER_FIRST:-} ]]; then
  first_status=$(cat "$first_rc" 2>/dev/null)
  first_status=${first_status:-1}
  echo "== $RUN_LABS_AFTER_FIRST (the checks), exit $first_status:"
  cat "$first_log"
fi
rm -rf "$vm_log" "$first_log" "$first_rc" "$first_claim"
# down already, unless its subshell was cut short
vm_status="vm lab not run"
if [[ $vmlab != 0 ]]; then
  tests/vmlab/boot.sh stop
  VMLAB_KEEP_LOGS=${HTOOLS_VMLAB_LOGS:-} tests/vmlab/down.sh >/dev/null || vm_rc=1
  vm_status="vm-lab tests exit $vm_rc"
fi
echo "== labs: namespace-lab tests exit $lab_rc, $vm_status${RUN_LABS_AFTER_FIRST:+, $RUN_LABS_AFTER_FIRST exit $first_status}${1:+; after them $* exit $beside_rc}"
[[ $lab_rc == 0 && $vm_rc == 0 && $first_status == 0 && $beside_rc == 0 ]]
