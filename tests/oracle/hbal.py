"""Oracle: run the real ``hbal`` (Ganeti 3.0.2) and parse its output.

Public API::

    HBAL_PATH                         default binary (env HTOOLS_HBAL or HBAL
                                      overrides)
    METRIC_NAMES                      the 20 metric names in hbal's order
    hbal_available() -> bool
    hbal_argv(data_path, util_path=None, group=None, offline_nodes=(),
              exclusion_tags=(), ignore_dynu=False, extra_args=(),
              hbal_path=None) -> list[str]
    run_hbal(data_path, util_path=None, group=None, offline_nodes=(),
             exclusion_tags=(), ignore_dynu=False, extra_args=(), *,
             hbal_path=None, check=True, parse=True, timeout=120) -> HbalResult
    run_hbal_rapi(directory, extra_args=(), util_path=None, *, hbal_path=None,
                  check=True, parse=True, timeout=120) -> HbalResult
    parse_output(stdout, stderr, argv=(), returncode=0) -> HbalResult
    HbalError, HbalParseError

The default invocation is ``hbal -t FILE -v -v -v -p -l 0`` plus the options;
``-l 0`` allows no balancing step, so hbal stops right after the initial
report; ``-p`` prints the ``Initial cluster status:`` table on stderr, and
``-v -v -v`` (verbosity above 2) the ``Initial coefficients`` metric table on
stdout instead of the single ``Initial score:`` line.

The parser is strict: if the expected structure is missing it raises
:class:`HbalParseError`, so a broken oracle cannot make a comparison pass.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field

from kit.paths import HBAL

__all__ = [
    "HBAL_PATH", "METRIC_NAMES", "HbalError", "HbalParseError", "HbalResult",
    "hbal_available", "hbal_argv", "run_hbal", "run_hbal_rapi", "parse_output",
]

# the tests' one hbal path (kit/paths.py): HTOOLS_HBAL, then HBAL, then the Debian path
HBAL_PATH = HBAL

METRIC_NAMES = (
    "free_mem_cv", "free_disk_cv", "n1_cnt", "reserved_mem_cv",
    "offline_all_cnt", "offline_pri_cnt", "vcpu_ratio_cv", "cpu_load_cv",
    "mem_load_cv", "disk_load_cv", "net_load_cv", "pri_tags_score",
    "spindles_cv", "free_mem_cv_forth", "free_disk_cv_forth",
    "vcpu_ratio_cv_forth", "spindles_cv_forth", "location_score",
    "location_exclusion_score", "reserved_mem_rtotal",
)

BASE_ARGS = ("-v", "-v", "-v", "-p", "-l", "0")


class HbalError(RuntimeError):
    """hbal exited with a non-zero code (with ``check=True``)."""


class HbalParseError(AssertionError):
    """hbal's output does not have the expected structure."""


@dataclass
class HbalResult:
    """Parsed result of one hbal run.

    ``metrics_text`` holds ``(name, value_text, weight_text)`` exactly as
    printed, e.g. ``("offline_pri_cnt", "2.00000000", "x16.00")``.
    ``node_table_lines`` holds the ``Initial cluster status:`` table lines
    verbatim (header first, each line starting with a space), without the
    trailing blank lines.  ``warnings`` holds the load warnings without the
    ``"  - "`` prefix (``warning_lines`` keeps them verbatim).  Fields that
    hbal did not print are None (counts) or empty (lists).
    """

    argv: list
    returncode: int
    stdout: str
    stderr: str
    parsed: bool = False
    cluster_empty: bool = False
    loaded_nodes: int | None = None
    loaded_instances: int | None = None
    stripped_suffix: str | None = None
    group_nodes: int | None = None
    group_instances: int | None = None
    group_name: str | None = None
    bad_nodes: int | None = None
    bad_instances: int | None = None
    n1_unhappy: bool = False
    policy_violating: int | None = None
    initial_score_text: str | None = None
    metrics_text: list = field(default_factory=list)
    node_table_lines: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    warning_lines: list = field(default_factory=list)
    split_instances: list = field(default_factory=list)
    well_balanced: bool = False

    @property
    def command(self):
        """The shell command that reproduces this run."""
        return shlex.join(self.argv)

    @property
    def metrics_dict(self):
        """{name: value_text} in printed order."""
        return {row[0]: row[1] for row in self.metrics_text}


def hbal_available(hbal_path=None):
    """True if the hbal binary exists and is executable."""
    path = hbal_path or HBAL_PATH
    if os.sep not in path:
        path = shutil.which(path) or ""
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def hbal_argv(data_path, util_path=None, group=None, offline_nodes=(),
              exclusion_tags=(), ignore_dynu=False, extra_args=(),
              hbal_path=None):
    """Build the hbal command line used by :func:`run_hbal`."""
    if isinstance(offline_nodes, str) or isinstance(exclusion_tags, str):
        raise TypeError("offline_nodes/exclusion_tags must be sequences")
    argv = [hbal_path or HBAL_PATH, "-t", str(data_path), *BASE_ARGS]
    if util_path is not None:
        argv += ["-U", str(util_path)]
    if group is not None:
        argv += ["-G", str(group)]
    for name in offline_nodes:
        argv += ["-O", str(name)]
    if exclusion_tags:
        argv.append("--exclusion-tags=" + ",".join(exclusion_tags))
    if ignore_dynu:
        argv.append("--ignore-dynu")
    argv += [str(a) for a in extra_args]
    return argv


def run_hbal(data_path, util_path=None, group=None, offline_nodes=(),
             exclusion_tags=(), ignore_dynu=False, extra_args=(), *,
             hbal_path=None, check=True, parse=True, timeout=120):
    """Run hbal on a text-format file and parse its initial report.

    With ``check`` (default) a non-zero exit raises :class:`HbalError`.
    With ``parse`` (default) the output of a successful run is parsed
    strictly (see :func:`parse_output`); with ``parse=False`` only argv,
    returncode, stdout and stderr are filled in.
    """
    argv = hbal_argv(data_path, util_path, group, offline_nodes,
                     exclusion_tags, ignore_dynu, extra_args, hbal_path)
    return _run(argv, check, parse, timeout)


def run_hbal_rapi(directory, extra_args=(), util_path=None, *, hbal_path=None,
                  check=True, parse=True, timeout=120):
    """``hbal -m file://DIR -v -v -v -p -l 0 [-U UTIL] EXTRA``, like :func:`run_hbal`.

    DIR holds the four RAPI answers as ``{groups,nodes,instances,info}.json``.
    """
    argv = [hbal_path or HBAL_PATH, "-m", "file://" + os.path.abspath(str(directory)),
            *BASE_ARGS]
    if util_path is not None:
        argv += ["-U", str(util_path)]
    argv += [str(a) for a in extra_args]
    return _run(argv, check, parse, timeout)


def _run(argv, check, parse, timeout):
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C.UTF-8")
    proc = subprocess.run(argv, capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)
    if proc.returncode != 0:
        if check:
            raise HbalError(
                f"hbal exited with {proc.returncode}: {shlex.join(argv)}\n"
                f"--- stdout ---\n{proc.stdout}--- stderr ---\n{proc.stderr}")
        return HbalResult(argv, proc.returncode, proc.stdout, proc.stderr)
    if not parse:
        return HbalResult(argv, proc.returncode, proc.stdout, proc.stderr)
    return parse_output(proc.stdout, proc.stderr, argv, proc.returncode)


# ---------------------------------------------------------------------------
# parsing

_RE_LOADED = re.compile(r"^Loaded (\d+) nodes, (\d+) instances$")
_RE_SUFFIX = re.compile(r"^Note: Stripping common suffix of '(.*)' from names$")
_RE_GSIZE = re.compile(r"^Group size (\d+) nodes, (\d+) instances$")
_RE_GROUP = re.compile(r"^Selected node group: (.*)$")
_RE_CHECK = re.compile(
    r"^Initial check done: (\d+) bad nodes, (\d+) bad instances\.$")
_RE_POLICY = re.compile(r"^The cluster contains (\d+) policy-violating nodes\.$")
_RE_INITIAL = re.compile(r"^Initial coefficients: overall (\S+)$")
_RE_MHEADER = re.compile(r"^   Field +Value Weight$")
_RE_MROW = re.compile(r"^   (\S+) +(\S+) +(x\S+)$")
_RE_NUM = re.compile(r"^(-?\d+\.\d{8}|NaN|-?Infinity)$")
_RE_WEIGHT = re.compile(r"^x\d+\.\d\d$")
_N1_MSG = ("Cluster is not N+1 happy, continuing but no guarantee that the "
           "cluster will end N+1 happy.")
_WB_PREFIX = "Cluster is already well balanced (initial score "
_TRY = "Trying to minimize the CV..."


def _fail(msg, stdout, stderr):
    raise HbalParseError(
        f"{msg}\n--- stdout ---\n{stdout}--- stderr ---\n{stderr}")


def _find_unique(lines, regex, what, stdout, stderr, required=True):
    """(index, match) of the only line matching ``regex`` (or (None, None))."""
    hits = [(i, m) for i, line in enumerate(lines)
            for m in [regex.match(line)] if m]
    if len(hits) > 1:
        _fail(f"hbal output: {what} printed {len(hits)} times", stdout, stderr)
    if not hits:
        if required:
            _fail(f"hbal output: no {what} line", stdout, stderr)
        return None, None
    return hits[0]


def _match(lines, regex, what, stdout, stderr, required=True):
    """The match of the only line matching ``regex`` (or None)."""
    return _find_unique(lines, regex, what, stdout, stderr, required)[1]


def parse_output(stdout, stderr, argv=(), returncode=0):
    """Parse the output of ``hbal ... -v -v -v -p`` (strict).

    Raises :class:`HbalParseError` when an expected element is missing.
    """
    res = HbalResult(list(argv), returncode, stdout, stderr, parsed=True)
    out = stdout.split("\n")
    err = stderr.split("\n")

    # -- stderr: load warnings (nodes whose memory or disk do not add up) --
    if "Warning: cluster has inconsistent data:" in err:
        k = err.index("Warning: cluster has inconsistent data:") + 1
        while k < len(err) and err[k].startswith("  - "):
            res.warning_lines.append(err[k])
            res.warnings.append(err[k][4:])
            k += 1
        if not res.warnings or k >= len(err) or err[k] != "":
            _fail("hbal output: malformed warning block", stdout, stderr)
    elif any(line.startswith("  - ") for line in err):
        _fail("hbal output: warning lines without header", stdout, stderr)

    # -- stderr: split instances (listed at verbosity above 1) ------------
    if "Found instances belonging to multiple node groups:" in err:
        k = err.index("Found instances belonging to multiple node groups:") + 1
        while k < len(err) and err[k].startswith("  "):
            res.split_instances.append(err[k][2:])
            k += 1
        if k >= len(err) or err[k] != "These instances will not be moved.":
            _fail("hbal output: malformed split-instance block", stdout, stderr)

    # -- empty cluster ----------------------------------------------------
    if "Cluster is empty, exiting." in out:
        res.cluster_empty = True
        if any(_RE_LOADED.match(x) for x in out) or \
                "Initial cluster status:" in err:
            _fail("hbal output: 'Cluster is empty' with a report", stdout,
                  stderr)
        return res

    m = _match(out, _RE_LOADED, "'Loaded N nodes'", stdout, stderr)
    res.loaded_nodes, res.loaded_instances = int(m.group(1)), int(m.group(2))
    m = _match(out, _RE_SUFFIX, "suffix note", stdout, stderr, required=False)
    if m:
        res.stripped_suffix = m.group(1)
    m = _match(out, _RE_GSIZE, "'Group size'", stdout, stderr)
    res.group_nodes, res.group_instances = int(m.group(1)), int(m.group(2))
    m = _match(out, _RE_GROUP, "'Selected node group'", stdout, stderr)
    res.group_name = m.group(1)
    m = _match(out, _RE_CHECK, "'Initial check done'", stdout, stderr)
    res.bad_nodes, res.bad_instances = int(m.group(1)), int(m.group(2))
    res.n1_unhappy = _N1_MSG in out
    if res.n1_unhappy != (res.bad_nodes > 0):
        _fail("hbal output: N+1 message inconsistent with bad node count",
              stdout, stderr)
    m = _match(out, _RE_POLICY, "policy message", stdout, stderr,
               required=False)
    if m:
        res.policy_violating = int(m.group(1))

    # -- stdout: initial score and metric table (name, value, weight) -----
    idx, m = _find_unique(out, _RE_INITIAL, "'Initial coefficients'", stdout,
                          stderr)
    res.initial_score_text = m.group(1)
    if not _RE_NUM.match(res.initial_score_text):
        _fail("hbal output: bad initial score "
              f"{res.initial_score_text!r}", stdout, stderr)
    k = idx + 1
    if k >= len(out) or not _RE_MHEADER.match(out[k]):
        _fail("hbal output: no metric table header", stdout, stderr)
    width = len(out[k])
    k += 1
    while k < len(out):
        m = _RE_MROW.match(out[k])
        if not m:
            break
        name, value, weight = m.groups()
        if not _RE_NUM.match(value) or not _RE_WEIGHT.match(weight):
            _fail(f"hbal output: bad metric row {out[k]!r}", stdout, stderr)
        if len(out[k]) != width:
            _fail(f"hbal output: misaligned metric row {out[k]!r}", stdout,
                  stderr)
        res.metrics_text.append((name, value, weight))
        k += 1
    names = tuple(row[0] for row in res.metrics_text)
    if names and names != METRIC_NAMES:
        _fail(f"hbal output: unexpected metric names {names}", stdout, stderr)
    if k >= len(out):
        _fail("hbal output: truncated after the metric table", stdout, stderr)
    if out[k].startswith(_WB_PREFIX):
        res.well_balanced = True
    elif out[k] != _TRY:
        _fail(f"hbal output: unexpected line after metrics {out[k]!r}",
              stdout, stderr)

    # -- stderr: initial node table (cells padded to their column's width) -
    if err.count("Initial cluster status:") != 1:
        _fail("hbal output: expected exactly one 'Initial cluster status:'",
              stdout, stderr)
    title = err.index("Initial cluster status:")
    k = title + 1
    if title == 0 or err[title - 1] != "":
        _fail("hbal output: no blank line before the node table", stdout,
              stderr)
    while k < len(err) and err[k] != "":
        res.node_table_lines.append(err[k])
        k += 1
    if k >= len(err):
        _fail("hbal output: node table not terminated by a blank line",
              stdout, stderr)
    lines = res.node_table_lines
    if not lines or not lines[0].startswith(" F Name "):
        _fail("hbal output: node table header missing", stdout, stderr)
    if len(lines) != 1 + res.group_nodes:
        _fail(f"hbal output: node table has {len(lines) - 1} rows, "
              f"group has {res.group_nodes} nodes", stdout, stderr)
    if any(len(x) != len(lines[0]) or not x.startswith(" ") for x in lines):
        _fail("hbal output: misaligned node table", stdout, stderr)
    return res
