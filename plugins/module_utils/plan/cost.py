# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What running a plan costs: the disk data it copies, the memory it
migrates, and about how long that takes at the operator's rates.

Read from the opcodes a move submits, so every planner's moves are costed
the same way:

- a replace-disks (new secondary) or an instance move copies the
  instance's whole disks to another node;
- a live migration transfers the instance's memory once (pages written
  again during the migration are not counted); an instance that is not
  running is failed over instead, and its planner passes no memory;
- a failover transfers nothing: the secondary already holds the disks.

These are estimates.  The default rates are Ganeti's own defaults: the
DRBD resync rate (61440 KiB/s) and KVM's migration bandwidth (32 MiB/s).
A jobset's moves run in parallel, so a jobset takes as long as its
slowest move, and the plan as long as its jobsets one after the other.
"""

from __future__ import annotations

from ..options import Option

DISK_COPY_RATE = 60.0       # MiB/s: Ganeti's default DRBD resync-rate
MIGRATION_RATE = 32.0       # MiB/s: Ganeti's default KVM migration_bandwidth

COST_OPTIONS = (
    Option("disk_copy_rate", "float", DISK_COPY_RATE, above=0),
    Option("migration_rate", "float", MIGRATION_RATE, above=0),
)
COST_OPTION_NAMES = tuple(o.name for o in COST_OPTIONS)

COPYING_OPCODES = frozenset(("OP_INSTANCE_REPLACE_DISKS", "OP_INSTANCE_MOVE"))
MIGRATING_OPCODES = frozenset(("OP_INSTANCE_MIGRATE",))

MIB_PER_GIB = 1024.0


def rates_of(options):
    """(disk copy MiB/s, migration MiB/s) from a plan's options."""
    disk = options.get("disk_copy_rate")
    memory = options.get("migration_rate")
    return (DISK_COPY_RATE if disk is None else float(disk),
            MIGRATION_RATE if memory is None else float(memory))


def disk_copies(opcodes):
    """How many times these opcodes copy an instance's disks."""
    return sum(1 for op in opcodes if op.get("OP_ID") in COPYING_OPCODES)


def move_cost(opcodes, memory_mib, disk_mib, rates):
    """The cost fields of one move: what its opcodes copy and migrate
    (`memory_mib` 0 for an instance that is not running)."""
    migrations = sum(1 for op in opcodes if op.get("OP_ID") in MIGRATING_OPCODES)
    data = disk_copies(opcodes) * disk_mib
    memory = migrations * memory_mib
    return {"data_copied_mib": data, "memory_migrated_mib": memory,
            "estimated_seconds": round(data / rates[0] + memory / rates[1], 1)}


def jobset_seconds(move_seconds, jobsets):
    """Each jobset's estimated seconds, its slowest move's: `move_seconds`
    maps the moves of `jobsets` (lists of move keys) to theirs."""
    return [round(max([move_seconds[i] for i in js] or [0.0]), 1) for js in jobsets]


def plan_cost(moves, jobsets, rates):
    """Totals of a plan whose moves carry their opcodes and move_cost's
    fields; `jobsets` hold move indices (1-based), each jobset's moves
    running in parallel."""
    seconds = jobset_seconds({m["index"]: m["estimated_seconds"] for m in moves}, jobsets)
    return {"data_copied_mib": sum(m["data_copied_mib"] for m in moves),
            "memory_migrated_mib": sum(m["memory_migrated_mib"] for m in moves),
            "disk_copies": sum(disk_copies(m["opcodes"]) for m in moves),
            "estimated_seconds": round(sum(seconds), 1),
            "jobset_seconds": seconds,
            "disk_copy_rate": rates[0], "migration_rate": rates[1]}


def size_text(mib):
    """A data size as an operator reads it: 512 MiB, 3.5 GiB, 19.5 TiB."""
    if mib < MIB_PER_GIB:
        return "%d MiB" % round(mib)
    gib = mib / MIB_PER_GIB
    if gib < 1024:
        return "%.1f GiB" % gib
    return "%.1f TiB" % (gib / 1024)


def duration_text(seconds):
    """About how long: 45 s, 12 min, 3 h 05 min, 2 d 4 h."""
    seconds = int(round(seconds))
    if seconds < 60:
        return "%d s" % seconds
    minutes = (seconds + 30) // 60
    if minutes < 60:
        return "%d min" % minutes
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return "%d h %02d min" % (hours, minutes)
    days, hours = divmod(hours + (minutes >= 30), 24)
    return "%d d %d h" % (days, hours)


def cost_line(cost):
    """The summary's line on the cost of a plan."""
    if not cost["data_copied_mib"] and not cost["memory_migrated_mib"]:
        return "moves copy no disk data and migrate no memory"
    return ("copies %s of disk data (%d disk cop%s) and migrates %s of memory: about %s "
            "at %g MiB/s per disk copy and %g MiB/s per migration" % (
                size_text(cost["data_copied_mib"]), cost["disk_copies"],
                "y" if cost["disk_copies"] == 1 else "ies",
                size_text(cost["memory_migrated_mib"]),
                duration_text(cost["estimated_seconds"]),
                cost["disk_copy_rate"], cost["migration_rate"]))


BUDGET_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def gain_curve(initial_score, moves):
    """[(disk data copied so far in MiB, score)] before the plan and after each
    of its moves in order: how much balance the plan's prefixes buy."""
    points, copied = [(0, initial_score)], 0
    for move in moves:
        copied += move["data_copied_mib"]
        points.append((copied, move["score"]))
    return points


def gain_by_budget(initial_score, moves, reference=None):
    """For 10 %, 20 % ... 100 % of the disk data the plan copies, the share of
    its score gain that the longest prefix within that budget reaches.

    With `reference` (another plan's moves, hbal's), the budgets and the
    gain are that plan's, so that the two tables compare row by row."""
    curve = gain_curve(initial_score, moves)
    base = curve if reference is None else gain_curve(initial_score, reference)
    total_data, total_gain = base[-1][0], initial_score - base[-1][1]
    rows = []
    for fraction in BUDGET_FRACTIONS:
        budget = fraction * total_data
        reached = max((initial_score - score for data, score in curve if data <= budget),
                      default=0.0)
        rows.append({"data_fraction": fraction, "data_copied_mib": int(budget),
                     "gain_fraction": round(reached / total_gain, 4) if total_gain > 0 else 1.0})
    return rows
