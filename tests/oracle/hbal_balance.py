"""Oracle for balancing runs: run the real ``hbal`` and parse the plan.

``tests/oracle/hbal.py`` parses the initial report (``-v -v -v -p -l 0``);
this module parses what a balancing run prints on stdout at the default
verbosity: the initial score, one step line per step as it is found, the end
message and the solution length::

    Initial score: X
    Trying to minimize the CV...
        1. inst  a:b => c:b  12.34567890 a=r:c          <- step lines
    Cluster score improved from X to Y                  <- or "No solution found"
    Solution length=N

    Commands to run to reach the above solution:        <- with -C
    ...

or, when nothing is to be done, the 4-line ``Cluster is already well
balanced (...)`` message that ends the output.  ``Cluster is empty,
exiting.`` is recognised too.

Public API::

    run_balance(argv, *, timeout=120) -> BalanceRun
    parse_balance_output(stdout, stderr="", argv=(), returncode=0) -> BalanceRun
    first_difference(ours, theirs, what="line", names=("ours", "hbal"))
        -> str | None

The parser is strict (it raises :class:`BalanceParseError`, an
``AssertionError``, like ``HbalParseError`` in ``tests/oracle/hbal.py``) so
that an unexpected output shape can never make a comparison pass.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field

__all__ = ["BalanceRun", "BalanceParseError", "run_balance",
           "parse_balance_output", "first_difference"]


class BalanceParseError(AssertionError):
    """hbal's balancing output does not have the expected structure."""


@dataclass
class BalanceRun:
    """One hbal balancing run.

    ``end_message`` is the end message exactly as printed (4 lines joined
    with ``\\n`` for the well-balanced case).  ``commands`` holds the stdout
    lines from the empty line before ``Commands to run to reach the above
    solution:`` to the end (empty without ``-C`` or when well balanced).
    ``solution_length`` is None when hbal does not print it (well balanced).
    """

    argv: list
    returncode: int
    stdout: str
    stderr: str
    parsed: bool = False
    cluster_empty: bool = False
    well_balanced: bool = False
    initial_score_text: str | None = None
    step_lines: list = field(default_factory=list)
    end_message: str | None = None
    solution_length: int | None = None
    commands: list = field(default_factory=list)
    trailer: list = field(default_factory=list)

    @property
    def command(self):
        return shlex.join(self.argv)


_TRY = "Trying to minimize the CV..."
_WB = "Cluster is already well balanced (initial score "
_RE_STEP = re.compile(r"^ +\d+\. \S")
_RE_IMPROVED = re.compile(r"^Cluster score improved from \S+ to \S+$")
_RE_LEN = re.compile(r"^Solution length=(\d+)$")
_RE_INITIAL = re.compile(r"^Initial score: (\S+)$")
_CMD_TITLES = ("Commands to run to reach the above solution:",
               "First set of jobs:")


def _fail(msg, stdout, stderr):
    raise BalanceParseError(
        f"{msg}\n--- stdout ---\n{stdout}--- stderr ---\n{stderr}")


def parse_balance_output(stdout, stderr="", argv=(), returncode=0):
    """Parse the stdout of a balancing run at verbosity 1 (strict)."""
    res = BalanceRun(list(argv), returncode, stdout, stderr, parsed=True)
    if stdout and not stdout.endswith("\n"):
        _fail("hbal output: stdout does not end with a newline", stdout, stderr)
    lines = stdout.split("\n")[:-1] if stdout else []
    if "Cluster is empty, exiting." in lines:
        res.cluster_empty = True
        return res
    inits = [m for m in map(_RE_INITIAL.match, lines) if m]
    if len(inits) != 1:
        _fail(f"hbal output: {len(inits)} 'Initial score' lines", stdout, stderr)
    res.initial_score_text = inits[0].group(1)

    wb = [k for k, line in enumerate(lines) if line.startswith(_WB)]
    if wb:
        k = wb[0]
        if len(wb) != 1 or _TRY in lines or k + 4 != len(lines) \
                or lines[k + 3] != "Nothing to do, exiting":
            _fail("hbal output: malformed 'already well balanced' message",
                  stdout, stderr)
        res.well_balanced = True
        res.end_message = "\n".join(lines[k:])
        return res

    if lines.count(_TRY) != 1:
        _fail("hbal output: expected exactly one 'Trying to minimize the CV...'",
              stdout, stderr)
    k = lines.index(_TRY) + 1
    while k < len(lines) and _RE_STEP.match(lines[k]):
        res.step_lines.append(lines[k])
        k += 1
    if k >= len(lines):
        _fail("hbal output: no end message", stdout, stderr)
    end = lines[k]
    if end != "No solution found" and not _RE_IMPROVED.match(end):
        _fail(f"hbal output: unexpected line after the steps {end!r}", stdout,
              stderr)
    if (end == "No solution found") != (not res.step_lines):
        _fail("hbal output: end message inconsistent with the step count",
              stdout, stderr)
    res.end_message = end
    k += 1
    m = _RE_LEN.match(lines[k]) if k < len(lines) else None
    if not m:
        _fail("hbal output: no 'Solution length=' line", stdout, stderr)
    res.solution_length = int(m.group(1))
    if res.solution_length != len(res.step_lines):
        _fail("hbal output: Solution length differs from the step count",
              stdout, stderr)
    k += 1
    rest = lines[k:]
    if len(rest) >= 2 and rest[0] == "" and rest[1] in _CMD_TITLES:
        res.commands = rest
    else:
        res.trailer = rest
    return res


def run_balance(argv, *, timeout=120, parse=True):
    """Run hbal with the full ``argv``; parse its output if it exits 0."""
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C.UTF-8")
    proc = subprocess.run([str(a) for a in argv], capture_output=True,
                          text=True, timeout=timeout, env=env, check=False)
    if proc.returncode != 0 or not parse:
        return BalanceRun(list(argv), proc.returncode, proc.stdout, proc.stderr)
    return parse_balance_output(proc.stdout, proc.stderr, argv, proc.returncode)


def first_difference(ours, theirs, what="line", names=("ours", "hbal")):
    """Describe the first differing element of two lists (None if equal)."""
    left, right = names
    ours, theirs = list(ours), list(theirs)
    if ours == theirs:
        return None
    for k in range(max(len(ours), len(theirs))):
        a = ours[k] if k < len(ours) else "<missing>"
        b = theirs[k] if k < len(theirs) else "<missing>"
        if a != b:
            return (f"first difference at {what} {k} ({left} {len(ours)}, "
                    f"{right} {len(theirs)} {what}s):\n      {left}: {a!r}\n"
                    f"      {right}: {b!r}")
    return None
