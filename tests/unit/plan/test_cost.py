# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a plan costs (plan/cost.py): read from the opcodes, totalled per
jobset as the slowest of its parallel moves, and the summary's line; and
on a real plan: a disk move copies its instance's disks, a migration its
memory, a failover nothing."""

from __future__ import annotations

import pytest

from kit.paths import EXAMPLE
from kit.plans import plan_balance

from ansible_collections.ganeti.htools.plugins.module_utils.plan.cost import (
    cost_line, duration_text, move_cost, plan_cost, rates_of, size_text)

MIGRATE = {"OP_ID": "OP_INSTANCE_MIGRATE"}
FAILOVER = {"OP_ID": "OP_INSTANCE_FAILOVER"}
REPLACE = {"OP_ID": "OP_INSTANCE_REPLACE_DISKS"}
MOVE = {"OP_ID": "OP_INSTANCE_MOVE"}


@pytest.mark.parametrize("opcodes, data, memory", [
    ([FAILOVER], 0, 0),
    ([MIGRATE], 0, 4096),
    ([REPLACE], 10240, 0),
    ([MIGRATE, REPLACE, MIGRATE], 10240, 8192),
    ([MOVE], 10240, 0),
])
def test_a_move_costs_what_its_opcodes_copy_and_migrate(opcodes, data, memory):
    cost = move_cost(opcodes, 4096, 10240, (64.0, 32.0))
    assert (cost["data_copied_mib"], cost["memory_migrated_mib"]) == (data, memory)
    assert cost["estimated_seconds"] == round(data / 64.0 + memory / 32.0, 1)


def test_a_jobset_takes_as_long_as_its_slowest_move():
    moves = [dict(index=k, opcodes=ops, **move_cost(ops, 1024, 6000, (60.0, 32.0)))
             for k, ops in ((1, [REPLACE]), (2, [MIGRATE]), (3, [MIGRATE, REPLACE]))]
    cost = plan_cost(moves, [[1, 2], [3]], (60.0, 32.0))
    assert cost["jobset_seconds"] == [100.0, 132.0]
    assert cost["estimated_seconds"] == 232.0
    assert (cost["data_copied_mib"], cost["memory_migrated_mib"], cost["disk_copies"]) == \
        (12000, 2048, 2)


def test_rates_default_to_ganetis_own():
    assert rates_of({}) == (60.0, 32.0)
    assert rates_of({"disk_copy_rate": 100, "migration_rate": None}) == (100.0, 32.0)


@pytest.mark.parametrize("mib, text", [
    (512, "512 MiB"), (1536, "1.5 GiB"), (20 * 1024 * 1024, "20.0 TiB")])
def test_sizes_read_as_an_operator_reads_them(mib, text):
    assert size_text(mib) == text


@pytest.mark.parametrize("seconds, text", [(45, "45 s"), (720, "12 min"),
                                           (3 * 3600 + 300, "3 h 05 min"),
                                           (52 * 3600 + 1800, "2 d 5 h")])
def test_durations_read_as_an_operator_reads_them(seconds, text):
    assert duration_text(seconds) == text


def test_a_plan_without_copies_or_migrations_says_so():
    assert cost_line(plan_cost([], [], (60.0, 32.0))) == \
        "moves copy no disk data and migrate no memory"


def test_the_example_plan_costs_its_moves_disks_and_memory():
    report = plan_balance(EXAMPLE)
    sizes = {i["name"]: i for i in report["instances_before"]}
    for move in report["moves"]:
        inst = sizes[move["instance"]]
        kinds = [op["OP_ID"] for op in move["opcodes"]]
        assert move["data_copied_mib"] == kinds.count("OP_INSTANCE_REPLACE_DISKS") * inst["disk"]
        running = inst["status"] == "running"
        assert move["memory_migrated_mib"] == \
            kinds.count("OP_INSTANCE_MIGRATE") * inst["memory"] * running
    cost = report["cost"]
    assert cost["data_copied_mib"] == sum(m["data_copied_mib"] for m in report["moves"])
    assert len(cost["jobset_seconds"]) == len(report["jobsets"])
    assert cost_line(cost) in report["summary"].splitlines()[1]
    slower = plan_balance(EXAMPLE, disk_copy_rate=30.0)
    assert slower["moves"] == [dict(m, estimated_seconds=s["estimated_seconds"])
                               for m, s in zip(report["moves"], slower["moves"])]
    assert slower["cost"]["estimated_seconds"] > cost["estimated_seconds"]
