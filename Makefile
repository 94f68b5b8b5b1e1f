# Build and test entry points of the ganeti.htools collection.
#
#   make example   plan a balance (check mode) of the bundled example cluster
#   make test      the whole suite: pytest, integration (as root), ansible-test
#                  sanity, ansible-lint, build
#   make integration   tests against a real Ganeti 3.0.2 cluster (tests/lab), as root
#   make integration-3.1   the same tests against a Ganeti 3.1 cluster, as root
#   make vmlab     tests on a Ganeti cluster of QEMU VMs: real DRBD, LVM and
#                  reboots (tests/vmlab), as root
#
# Sub-targets: venv deps hbal chromium unit integration molecule vmlab sanity
# sanity-matrix lint build docs clean distclean.
# Only `hbal` and `chromium` (and so `test` and `unit`) may need root: they
# apt-install ganeti-htools-3.0 when the real hbal is missing, and chromium
# (for the browser test of the HTML plan report) when it is missing.  `integration` needs root:
# its lab (tests/lab/up.sh) apt-installs Ganeti and builds an isolated network
# namespace; `make test` runs it only as root and says so otherwise.  So does
# `vmlab`: its lab (tests/vmlab/up.sh) apt-installs QEMU and debootstrap and
# builds (or takes from its cache) a Debian image for the VMs.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYTHON ?= python3
VENV ?= .venv
BIN := $(CURDIR)/$(VENV)/bin
VPY := $(BIN)/python
HBAL ?= /usr/lib/ganeti/3.0/usr/bin/hbal
HTOOLS_DEB ?= ganeti-htools-3.0
CHROMIUM ?= /usr/bin/chromium

COLLECTIONS_DIR := $(CURDIR)/.cache/collections
COLL_LINK := $(COLLECTIONS_DIR)/ansible_collections/ganeti/htools
SANITY_TOP := $(CURDIR)/.cache/ansible-test
DIST_DIR := $(CURDIR)/dist

PYTEST_ARGS ?=
INTEGRATION_ARGS ?=
VMLAB_ARGS ?=
SANITY_ARGS ?=
# The ansible-core release lines of `make sanity-matrix`, besides the one of
# requirements.txt (2.19) that `make sanity` tests: every release line
# requires_ansible claims that installs on this Python (2.20 needs 3.12+).
SANITY_MATRIX ?= 2.16 2.17 2.18
# the releases that need Python 3.12+ (on Debian 12: in a Debian 13 root, as
# root; hacking/sanity_matrix.sh)
SANITY_MATRIX_NEW ?= 2.20 2.21

# Every ansible command run by make sees the collection through the symlink
# .cache/collections/ansible_collections/ganeti/htools -> repository root.
export ANSIBLE_COLLECTIONS_PATH := $(COLLECTIONS_DIR)
export ANSIBLE_NOCOLOR := 1
export ANSIBLE_FORCE_COLOR := 0
export HBAL
export PATH := $(BIN):$(PATH)
export PIP_DISABLE_PIP_VERSION_CHECK := 1

APT_GET := DEBIAN_FRONTEND=noninteractive apt-get -y -q

.PHONY: help example test deps venv hbal chromium link unit integration integration-3.1 integration-long molecule vmlab vmlab-roll sanity sanity-matrix checks new-matrix differential-3.1 checks-lane matrix-lane matrix-all-lane molecule-lane lint build ee docs clean distclean

help:
	@echo "make example   plan a balance (check mode) of playbooks/files/example.data"
	@echo "make test      whole suite (needs root once, to apt-install $(HTOOLS_DEB);"
	@echo "               the integration tests run only as root)"
	@echo "make integration  tests against a real Ganeti cluster in an isolated netns (root)"
	@echo "make integration-3.1  the namespace-lab tests on Ganeti 3.1 (root; not in make test)"
	@echo "make vmlab     tests on a cluster of QEMU VMs: real DRBD, LVM, reboots (root)"
	@echo "make sanity-matrix  ansible-test sanity and the example on ansible-core $(SANITY_MATRIX)"
	@echo "                    (SANITY_MATRIX=\"$(SANITY_MATRIX_NEW)\": the releases needing Python 3.12+)"
	@echo "make differential-3.1  the differential tests against Ganeti 3.1's htools (bookworm-backports)"
	@echo "sub-targets:   venv deps hbal chromium unit integration vmlab sanity sanity-matrix lint build docs clean distclean"

# ---------------------------------------------------------------- environment

# The venv; a Debian/Ubuntu Python without ensurepip needs python3-venv.
$(VPY):
	@if ! $(PYTHON) -m venv $(VENV); then \
	  rm -rf $(VENV); \
	  pyver=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "== installing python$$pyver-venv"; \
	    $(APT_GET) install python$$pyver-venv python3-venv \
	      || { apt-get update -q && $(APT_GET) install python$$pyver-venv python3-venv; }; \
	    $(PYTHON) -m venv $(VENV); \
	  else \
	    echo "error: '$(PYTHON) -m venv' failed; install python3-venv (as root: apt-get install python3-venv)" >&2; \
	    exit 1; \
	  fi; \
	fi
	$(VPY) -m pip install -q --upgrade pip

$(VENV)/.runtime.stamp: requirements.txt | $(VPY)
	$(VPY) -m pip install -q -r requirements.txt
	@touch $@

$(VENV)/.test.stamp: requirements.txt requirements-test.txt | $(VPY)
	$(VPY) -m pip install -q -r requirements-test.txt
	@touch $@

venv: $(VENV)/.runtime.stamp

deps: $(VENV)/.test.stamp hbal chromium

# The real Ganeti htools (the reference for the differential tests).
hbal:
	@if [ -x "$(HBAL)" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "error: $(HBAL) is missing; as root run: apt-get install -y $(HTOOLS_DEB)" >&2; exit 1; \
	fi; \
	echo "== installing $(HTOOLS_DEB)"; \
	$(APT_GET) install $(HTOOLS_DEB) || { apt-get update -q && $(APT_GET) install $(HTOOLS_DEB); }; \
	test -x "$(HBAL)"

# Debian's chromium, for the browser test of the HTML plan report
# (tests/browser, driven by playwright, which never downloads a browser here).
# Not root and missing: that test skips and says why (under CI=true it fails).
chromium:
	@if [ -x "$(CHROMIUM)" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "== $(CHROMIUM) is missing: the browser test will skip (as root: apt-get install -y chromium)"; exit 0; \
	fi; \
	echo "== installing chromium"; \
	$(APT_GET) install chromium || { apt-get update -q && $(APT_GET) install chromium; }; \
	test -x "$(CHROMIUM)"

# ansible finds the collection through this symlink (relative, so the
# checkout may move).
link:
	@mkdir -p $(dir $(COLL_LINK))
	@if [ ! -e $(COLL_LINK) ] || [ "$$(readlink -f $(COLL_LINK))" != "$$(readlink -f $(CURDIR))" ]; then \
	  rm -rf $(COLL_LINK); ln -s ../../../.. $(COLL_LINK); \
	fi
	@test "$$(readlink -f $(COLL_LINK))" = "$$(readlink -f $(CURDIR))"

# ---------------------------------------------------------------- example

example: venv link
	$(BIN)/ansible-playbook playbooks/balance.yml

# ---------------------------------------------------------------- tests

# The unit tests first, alone (about 4 minutes on two quiet cores, 12 on CI's
# machines of 2026-12).  Then, as root, the namespace-lab tests with the
# checks beside them (tests/run_labs.sh), then molecule and the matrix.
# TEST_VMLAB=1 adds the vm lab (make vmlab: the rolling_reboot role on the
# master's wave over real DRBD): booted in the background beside the
# namespace-lab tests, its tests after, the checks after the first lab's.
# It is out of CI: on CI's emulated 2 cores the boot and that one wave took
# 52 minutes alone (2026-12-02), more than CI has for everything.  Both labs
# are torn down afterwards, also when something fails.
TEST_VMLAB ?= 0
test: deps
	$(call phase,unit tests)
	@$(MAKE) --no-print-directory unit
	$(call phase,lab tests (the namespace lab with the checks beside it$(if $(filter 1,$(TEST_VMLAB)), and the vm lab; the checks after the first lab); then molecule and the matrix))
	@if [ "$$(id -u)" = 0 ] && [ "$(TEST_VMLAB)" = 1 ]; then tests/vmlab/boot.sh start || exit 1; fi
	@if [ "$$(id -u)" = 0 ]; then \
	  MAKE="$(MAKE)" RUN_LABS_VMLAB="$(TEST_VMLAB)" RUN_LABS_AFTER_FIRST="$(AFTER_FIRST_LAB)" \
	    tests/run_labs.sh $(MOLECULE_AND_MATRIX_LANES) || exit 1; \
	else \
	  echo "== make test: integration tests NOT run (they need root: sudo make integration)"; \
	  $(CHECKS_LANES) || exit 1; \
	fi
	$(call phase,end)
	@echo "== make test: all passed"

# The checks and the version matrix in two lanes (-j2: each lane is mostly
# one process at a time, and CI has two cores).  As root, the checks, the
# releases needing Python 3.12+ and the differential tests against Ganeti
# 3.1 run as soon as the first of the two labs' tests are done, beside the
# other's (tests/run_labs.sh); after the namespace-lab tests, the molecule
# scenario (mostly waiting on its own lab) and the version matrix run as two
# lanes.
CHECKS_LANES = $(MAKE) --no-print-directory -j2 --output-sync=target checks-lane matrix-lane
MOLECULE_AND_MATRIX_LANES = $(MAKE) --no-print-directory -j2 --output-sync=target molecule-lane \
  matrix-all-lane

# Where the time of `make test` goes: with HTOOLS_PHASE_LOG set (.ci/run sets
# it and prints the table at its end), each phase appends "epoch name".
phase = @[ -z "$${HTOOLS_PHASE_LOG:-}" ] || echo "$$(date +%s) $(1)" >>"$$HTOOLS_PHASE_LOG"

# The checks that need no lab, one after the other.
checks:
	$(MAKE) --no-print-directory sanity
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory build
	$(MAKE) --no-print-directory docs

# As root, after the first lab's tests, in two lanes (-j2, beside the other
# lab): the checks; the releases that need a newer Python (issue 27: sanity
# and the example; their module tests, SANITY_MATRIX_MODULE_TESTS=1, cost CI
# about ten minutes each on a loaded machine and run by hand); the
# differential tests against Ganeti 3.1.
AFTER_FIRST_LAB = $(MAKE) --no-print-directory -j2 --output-sync=target checks new-matrix differential-3.1
new-matrix:
	$(MAKE) --no-print-directory sanity-matrix SANITY_MATRIX="$(SANITY_MATRIX_NEW)"

# Without root, `make test` runs the checks in two lanes (-j2): in a fresh
# run the checks take about as long as two releases of the matrix, so the
# last release follows them and the others run beside them.  The output of
# each lane is printed when it ends.
checks-lane: checks
	$(MAKE) --no-print-directory sanity-matrix SANITY_MATRIX="$(lastword $(SANITY_MATRIX))"
MATRIX_BESIDE := $(filter-out $(lastword $(SANITY_MATRIX)),$(SANITY_MATRIX))
matrix-lane:
	$(if $(MATRIX_BESIDE),$(MAKE) --no-print-directory sanity-matrix SANITY_MATRIX="$(MATRIX_BESIDE)",@true)
# make test (as root) runs the oldest release of SANITY_MATRIX only, for CI's
# time: with 2.19 (make sanity) it brackets the ones between.
SANITY_MATRIX_CI ?= $(firstword $(SANITY_MATRIX))
matrix-all-lane:
	$(MAKE) --no-print-directory sanity-matrix SANITY_MATRIX="$(SANITY_MATRIX_CI)"
	$(call phase,  version matrix done)
molecule-lane:
	$(MAKE) --no-print-directory molecule
	$(call phase,  molecule done)

unit: deps link
	HTOOLS_CHROMIUM=$(CHROMIUM) $(BIN)/pytest tests/ -n auto --dist worksteal --ignore=tests/integration \
	  --ignore=tests/vmlab $(PYTEST_ARGS)

# The differential tests against Ganeti 3.1's htools (Debian's
# ganeti-htools-3.1 from bookworm-backports, unpacked under .cache by
# hacking/htools31.sh) instead of 3.0.2's: the second oracle of issue 27.
# Its own arguments (DIFF31_ARGS): PYTEST_ARGS names the unit tests' report.
differential-3.1: deps link
	@bin=$$(hacking/htools31.sh) && \
	  HTOOLS_HBAL=$$bin/hbal HAIL=$$(dirname $$bin)/lib/ganeti/iallocators/hail \
	  $(BIN)/pytest tests/differential -n auto --dist worksteal -p no:cacheprovider $(DIFF31_ARGS)

# A real Ganeti 3.0.2 cluster (3 nodes, fake hypervisor) in an isolated network
# namespace, reached over RAPI on 127.0.0.1 only: brought up once, torn down
# at the end (tests/lab/up.sh, down.sh; see tests/integration/conftest.py).
# Fails instead of skipping when the lab cannot run here.
integration: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the integration lab needs root (it builds a network namespace)" >&2; exit 1; \
	fi
	$(MAKE) --no-print-directory integration-tests LAB_MARKS=
	$(MAKE) --no-print-directory molecule

# The namespace-lab tests alone (make test runs molecule beside the checks).
# LAB_WORKERS=2 runs them in two pytest-xdist workers, each with a lab of its
# own (tests/integration/conftest.py).  Not the default: beside the vm lab on
# CI's two cores, two labs starve the emulated master, whose luxid then fails
# to start jobs for minutes ("Timeout in reading a response").
# LAB_MARKS selects among them: make test leaves out the four longest
# rolling-reboot tests (make integration-long runs them), for CI's time.
LAB_WORKERS ?= 0
LAB_MARKS ?= not lab_long
integration-tests: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the integration lab needs root (it builds a network namespace)" >&2; exit 1; \
	fi
	HTOOLS_REQUIRE_LAB=1 $(BIN)/pytest tests/integration \
	  -n $(LAB_WORKERS) --dist loadgroup -m "$(LAB_MARKS)" $(INTEGRATION_ARGS)

# The namespace-lab tests against Ganeti 3.1 (Debian's 3.1.0~rc2 from
# bookworm-backports, put beside the host's 3.0 by hacking/ganeti31.sh; the
# lab alone runs it, GNTLAB_GANETI=3.1 in tests/lab/up.sh), checked against
# 3.1's own htools.  A lab of its own, so that it can run beside the 3.0
# one: namespace htools-lab-31, /tmp/htools-lab-31, RAPI ports 5250-5251
# (the fleet test's second lab: htools-lab-31-fleet, 5252-5253); GNTLAB_NS,
# GNTLAB_BASE and GNTLAB_RAPI_PORT override them.  One lab, no workers.
# Not in make test, for CI's time: 43 minutes in the first run (53 passed),
# on two cores busy with other labs too.
integration-3.1: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the integration lab needs root (it builds a network namespace)" >&2; exit 1; \
	fi
	hacking/ganeti31.sh
	GNTLAB_GANETI=3.1 HTOOLS_HBAL=/usr/lib/ganeti/3.1/usr/bin/hbal \
	  HAIL=/usr/lib/ganeti/3.1/usr/lib/ganeti/iallocators/hail \
	  GNTLAB_NS=$${GNTLAB_NS:-htools-lab-31} GNTLAB_BASE=$${GNTLAB_BASE:-/tmp/htools-lab-31} \
	  GNTLAB_RAPI_PORT=$${GNTLAB_RAPI_PORT:-5250} \
	  HTOOLS_REQUIRE_LAB=1 $(BIN)/pytest $(INTEGRATION_31_TESTS) $(INTEGRATION_ARGS)

INTEGRATION_31_TESTS ?= tests/integration

# The four longest rolling-reboot tests of the namespace lab alone (the master
# failed over and restored, one node at a time, full evacuation, the skipped
# master; about 6 minutes on a quiet machine, three times that on a loaded
# one): out of make test for CI's time; make integration runs them too.
integration-long: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the integration lab needs root (it builds a network namespace)" >&2; exit 1; \
	fi
	HTOOLS_REQUIRE_LAB=1 $(BIN)/pytest tests/integration -m lab_long $(INTEGRATION_ARGS)

# The rolling_reboot role's molecule scenario: its create/destroy bring up and
# tear down a lab of its own (4 nodes, namespace htools-molecule, port 5390).
molecule: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the molecule scenario needs root (it brings up the lab)" >&2; exit 1; \
	fi
	cd roles/rolling_reboot && PATH=$(abspath $(BIN)):$$PATH molecule test

# A Ganeti cluster of 3 QEMU virtual machines (Debian's kernel: real DRBD, LVM
# and reboots) in an isolated network namespace, reached on 127.0.0.1 only:
# booted once, torn down at the end (tests/vmlab/up.sh, down.sh; see
# tests/vmlab/conftest.py).  Fails instead of skipping when it cannot run here.
# It runs the rolling_reboot role on the master's wave there, with 2 DRBD
# instances (make test with TEST_VMLAB=1 too; out of CI for its time).
vmlab: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the vm lab needs root (QEMU VMs in a network namespace)" >&2; exit 1; \
	fi
	VMLAB_SSH_REUSE=1 HTOOLS_REQUIRE_VMLAB=1 $(BIN)/pytest tests/vmlab \
	  -m "vmlab and not vmlab_roll and not vmlab_long" $(VMLAB_ARGS)

# The vm lab's own reboot proof (ansible.builtin.reboot, DRBD resync) and the
# balance of 4 DRBD instances with the compound moves (23 minutes in a loaded
# CI run), out of make test for CI's time.
vmlab-long: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the vm lab needs root (QEMU VMs in a network namespace)" >&2; exit 1; \
	fi
	VMLAB_DRBD=$${VMLAB_DRBD:-4} HTOOLS_REQUIRE_VMLAB=1 $(BIN)/pytest tests/vmlab -m vmlab_long $(VMLAB_ARGS)

# The rolling_reboot role on real DRBD over every node (three waves, about an
# hour and a half under emulation), a disk kept degraded, and disks_in_sync
# against real degraded disks: out of `make test` for CI's time (make vmlab
# rolls the master alone: one wave).
vmlab-roll: deps link
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "error: the vm lab needs root (QEMU VMs in a network namespace)" >&2; exit 1; \
	fi
	VMLAB_DRBD=$${VMLAB_DRBD:-4} VMLAB_SSH_REUSE=1 HTOOLS_REQUIRE_VMLAB=1 $(BIN)/pytest tests/vmlab \
	  -m vmlab_roll $(VMLAB_ARGS)

# ansible-test sanity on the ansible-core of requirements.txt, every test, on a
# copy of the files git knows (hacking/sanity.sh).
sanity: $(VENV)/.test.stamp
	hacking/sanity.sh $(VENV) $(SANITY_TOP) $(SANITY_ARGS)

# The version matrix: ansible-test sanity (all but pylint, pep8 and changelog,
# which `make sanity` runs) and the example playbook on each release line of
# SANITY_MATRIX, each in a venv of its own under .cache/matrix
# (hacking/sanity_matrix.sh).  Fails if any release fails.
sanity-matrix: link
	hacking/sanity_matrix.sh $(SANITY_MATRIX)

# The documentation site (antsibull-docs + Sphinx), in a venv of its own:
# docs lint, build with warnings as errors, then checks of the pages.
DOCS_VENV := .venv-docs
DOCS_OUT := $(CURDIR)/.cache/docs
DOCS_ENV := ANSIBLE_COLLECTIONS_PATH=$(CURDIR)/.cache/collections PATH=$(CURDIR)/$(DOCS_VENV)/bin:$$PATH

$(DOCS_VENV)/.stamp: docs/requirements.txt
	@test -x $(DOCS_VENV)/bin/python || $(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install -q -r docs/requirements.txt
	@touch $@

docs: $(DOCS_VENV)/.stamp $(VENV)/.test.stamp link
	$(DOCS_ENV) antsibull-docs lint-collection-docs --plugin-docs .
	$(DOCS_ENV) docs/build.sh $(DOCS_OUT)
	HTOOLS_DOCS_SITE=$(DOCS_OUT)/html $(BIN)/pytest -q -p no:cacheprovider tests/docs

lint: $(VENV)/.test.stamp link
	$(BIN)/ansible-lint --offline

# The execution environment built with ansible-builder and podman, and the
# example run inside it (root; hacking/ee_build.sh).  Not part of make test.
ee: deps
	hacking/ee_build.sh

build: $(VENV)/.runtime.stamp
	@mkdir -p $(DIST_DIR)
	$(BIN)/ansible-galaxy collection build --force --output-path $(DIST_DIR) .

# ---------------------------------------------------------------- cleaning

clean:
	rm -rf .cache .ansible dist tests/output .pytest_cache
	find . -path ./.venv -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(DOCS_VENV)
