# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deterministic fuzzing of every loader (text, saved RAPI, IAllocator, -U).

Valid inputs come from the cluster generator (text), the test-side RAPI and
IAllocator converters, and -U files naming the generated instances.  Each is
corrupted by 1-3 seeded mutations (line and field surgery, garbage, huge and
negative numbers, bad flags, unknown names, JSON type changes and missing
keys, non-UTF-8 bytes, truncation, empty files) and fed through
``datasource.load_data_file`` + ``pipeline.prepare`` + ``select_group`` +
``cluster_info`` (and ``loader_util.parse_util`` for -U files).

The only acceptable outcomes are success, or an ``HtoolsError`` whose message
is non-empty and names the path of an input file.  Anything else fails the
test, listing the mutation seed, the mutation, the exception and where it was
raised; the corrupted input is kept under the test's tmp_path.

Total mutations: HTOOLS_FUZZ_MUTATIONS (default 2000), split between the
four input kinds.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
import shutil
import traceback

import pytest

from kit.plans import cluster_info
from ansible_collections.ganeti.htools.plugins.module_utils.backend.detect import load_data_file
from ansible_collections.ganeti.htools.plugins.module_utils.errors import HtoolsError
from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
from ansible_collections.ganeti.htools.plugins.module_utils.backend.dynutil import parse_util
from ansible_collections.ganeti.htools.plugins.module_utils.backend.prepare import prepare, select_group

from kit import tools
from kit.backend_docs import model_to_ialloc, model_to_rapi
from kit.paths import REPO_ROOT

TOTAL = int(os.environ.get("HTOOLS_FUZZ_MUTATIONS", "2000"))
SHARE = (("text", 0.4), ("rapi", 0.225), ("ialloc", 0.225), ("util", 0.15))
PER_CHUNK = 50
BASE_SEEDS = 200          # generator seeds the valid inputs are drawn from
PLUGINS_MARK = os.sep + "plugins" + os.sep

CHUNKS = []
for _kind, _share in SHARE:
    _count = max(1, int(round(TOTAL * _share)))
    for _start in range(0, _count, PER_CHUNK):
        CHUNKS.append((_kind, _start, min(PER_CHUNK, _count - _start)))

GARBAGE = ("", "abc", "1.5", "-1", "0", "-999999", "1e3", "1e400", "-1e400", "NaN",
           "Infinity", "-Infinity", "?", "Y", "N", "M", "y", "0x10", " 5", "5 ", "+5",
           ".5", "5.", "\u0663", "nosuch", "9" * 40, "1" + "0" * 400, "9" * 5000,
           "1,2", "a|b", "\t", "-0", "00012", "1_000")
BAD_FLAGS = ("y", "n", "yes", "no", "1", "0", "", "YY", "true", " Y")
JSON_VALUES = (None, "str", "", 0, 1, -1, -(10 ** 6), 1.5, True, False, [], {}, [1], ["x"],
               {"a": 1}, 10 ** 400, -(10 ** 30), 1e308, float("nan"), float("inf"),
               float("-inf"), "NaN", "nosuch", "x" * 300)


# ---------------------------------------------------------------------------
# valid inputs


@functools.lru_cache(maxsize=None)
def _case(seed):
    return tools.cluster_gen.generate(seed)


def _base_seed(rng):
    for _try in range(20):
        seed = rng.randint(1, BASE_SEEDS)
        case = _case(seed)
        if "no_instances" not in case.features:
            return seed
    return seed


def _util_text(case, rng):
    if case.util is not None and rng.random() < 0.5:
        return case.util
    data = load_text(case.data, "<gen>")
    values = ("0", "0.5", "1", "2.5", "10", "1e2")
    lines = [" ".join([i.name] + [rng.choice(values) for _k in range(4)])
             for i in data.instances]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# text mutations (line and field surgery); they work on a list of lines


def _pick_line(rng, lines, need_fields=False):
    candidates = [k for k, line in enumerate(lines)
                  if line and (not need_fields or "|" in line or " " in line)]
    if not candidates:
        return None
    return rng.choice(candidates)


def _sep_of(line):
    return "|" if "|" in line else " "


def _mutate_fields(rng, lines, how):
    k = _pick_line(rng, lines, need_fields=True)
    if k is None:
        return "no line to change"
    sep = _sep_of(lines[k])
    fields = lines[k].split(sep)
    pos = rng.randrange(len(fields))
    old = fields[pos]
    if how == "drop":
        del fields[pos]
        desc = "drop field %d (%r)" % (pos + 1, old)
    elif how == "add":
        value = rng.choice(GARBAGE)
        fields.insert(rng.randrange(len(fields) + 1), value)
        desc = "add field %s" % _short(value)
    elif how == "garbage":
        fields[pos] = rng.choice(GARBAGE)
        desc = "field %d %r -> %s" % (pos + 1, old, _short(fields[pos]))
    elif how == "number":
        numeric = [p for p, f in enumerate(fields)
                   if f.replace(".", "", 1).lstrip("-").isdigit()]
        if not numeric:
            return "no numeric field on line %d" % (k + 1)
        pos = rng.choice(numeric)
        old = fields[pos]
        fields[pos] = rng.choice((
            "-" + old, "-1", "0", str(10 ** rng.choice((9, 18, 30, 308, 400))),
            "9" * 5000, "1e400", "-1e400", "NaN", "Infinity", old + ".5", old + "x",
            "1e-400", "-0.0"))
        desc = "number field %d %r -> %s" % (pos + 1, old, _short(fields[pos]))
    elif how == "flag":
        flags = [p for p, f in enumerate(fields) if f in ("Y", "N", "M")]
        if not flags:
            return "no flag field on line %d" % (k + 1)
        pos = rng.choice(flags)
        old = fields[pos]
        fields[pos] = rng.choice(BAD_FLAGS)
        desc = "flag field %d %r -> %r" % (pos + 1, old, fields[pos])
    else:  # unknown names: an instance's node, a node's group, a util name
        pos = rng.choice([p for p in (0, 6, 7, 8) if p < len(fields)])
        old = fields[pos]
        fields[pos] = rng.choice(("nosuch-node", "nosuch-group", old + "x", old.upper()))
        desc = "name field %d %r -> %r" % (pos + 1, old, fields[pos])
    lines[k] = sep.join(fields)
    return "line %d: %s" % (k + 1, desc)


def mutate_lines(rng, text):
    """One line-level mutation of a text (data or util file); returns (text, desc)."""
    lines = text.split("\n")
    op = rng.choice(("delete", "duplicate", "swap", "blank", "unblank", "drop", "add",
                     "garbage", "number", "number", "flag", "name", "crlf", "tab",
                     "dup_section"))
    if op in ("drop", "add", "garbage", "number", "flag", "name"):
        desc = _mutate_fields(rng, lines, op)
    elif op == "delete":
        k = rng.randrange(len(lines))
        desc = "delete line %d (%r)" % (k + 1, lines.pop(k)[:60])
    elif op == "duplicate":
        k = rng.randrange(len(lines))
        lines.insert(k, lines[k])
        desc = "duplicate line %d" % (k + 1)
    elif op == "swap":
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
        desc = "swap lines %d and %d" % (a + 1, b + 1)
    elif op == "blank":
        k = rng.randrange(len(lines) + 1)
        lines.insert(k, "")
        desc = "insert an empty line at %d" % (k + 1)
    elif op == "unblank":
        blanks = [k for k, line in enumerate(lines[:-1]) if line == ""]
        if not blanks:
            return text, "no empty line to remove"
        k = rng.choice(blanks)
        del lines[k]
        desc = "remove empty line %d" % (k + 1)
    elif op == "crlf":
        return text.replace("\n", "\r\n"), "CRLF line ends"
    elif op == "tab":
        k = _pick_line(rng, lines, need_fields=True)
        if k is None:
            return text, "no line for a tab"
        lines[k] = lines[k].replace(_sep_of(lines[k]), "\t", 1)
        desc = "line %d: first separator -> tab" % (k + 1)
    else:
        blanks = [k for k, line in enumerate(lines) if line == ""]
        start = rng.choice([0] + [k + 1 for k in blanks])
        end = min([k for k in blanks if k >= start] + [len(lines)])
        lines[end:end] = [""] + lines[start:end]
        desc = "duplicate the section at line %d" % (start + 1)
    return "\n".join(lines), desc


# ---------------------------------------------------------------------------
# byte-level mutations (any file)


def mutate_bytes(rng, raw):
    op = rng.choice(("truncate", "empty", "non_utf8", "latin1", "nul", "bom"))
    if op == "truncate":
        cut = rng.randrange(len(raw) + 1) if raw else 0
        return raw[:cut], "truncate at byte %d of %d" % (cut, len(raw))
    if op == "empty":
        return b"", "empty file"
    pos = rng.randrange(len(raw) + 1) if raw else 0
    insert = {"non_utf8": b"\xff\xfe\x80", "latin1": "\u00e9".encode("latin-1"),
              "nul": b"\x00", "bom": b"\xef\xbb\xbf"}[op]
    if op == "bom":
        pos = 0
    return raw[:pos] + insert + raw[pos:], "insert %r at byte %d" % (insert, pos)


# ---------------------------------------------------------------------------
# JSON mutations


def _json_slots(value, path=()):
    """Every (path, container, key) below ``value``."""
    out = []
    if isinstance(value, dict):
        for key in list(value):
            out.append((path + (key,), value, key))
            out.extend(_json_slots(value[key], path + (key,)))
    elif isinstance(value, list):
        for pos, item in enumerate(value):
            out.append((path + (pos,), value, pos))
            out.extend(_json_slots(item, path + (pos,)))
    return out


def _short(value):
    text = repr(value)
    if len(text) <= 40:
        return text
    return "%s...(%d chars)" % (text[:20], len(str(value)))


def mutate_json(rng, doc):
    """One structural mutation of a decoded JSON document (in place); returns desc."""
    slots = _json_slots(doc)
    if not slots:
        return "nothing to mutate"
    path, container, key = rng.choice(slots)
    where = "/".join(str(p) for p in path)
    old = container[key]
    op = rng.choice(("delete", "delete", "type", "type", "number", "name", "dup", "empty",
                     "rename"))
    if op == "delete":
        del container[key]
        return "delete %s" % where
    if op == "type":
        container[key] = copy.deepcopy(rng.choice(JSON_VALUES))
        return "%s: %s -> %s" % (where, _short(old), _short(container[key]))
    if op == "number":
        numbers = [s for s in slots if isinstance(s[1][s[2]], (int, float))
                   and not isinstance(s[1][s[2]], bool)]
        if not numbers:
            return "no number"
        path, container, key = rng.choice(numbers)
        where = "/".join(str(p) for p in path)
        old = container[key]
        container[key] = rng.choice((-old, -1, 0, old + 0.5, 10 ** 400, 10 ** 18, 1e308,
                                     float("nan"), float("inf"), str(old), True))
        return "number %s: %s -> %s" % (where, _short(old), _short(container[key]))
    if op == "name":
        strings = [s for s in slots if isinstance(s[1][s[2]], str)]
        if not strings:
            return "no string"
        path, container, key = rng.choice(strings)
        where = "/".join(str(p) for p in path)
        old = container[key]
        container[key] = rng.choice(("nosuch", "", old + "x", old.upper(), "n\u00f6de"))
        return "string %s: %s -> %s" % (where, _short(old), _short(container[key]))
    if op == "dup":
        lists = [s for s in slots if isinstance(s[1][s[2]], list) and s[1][s[2]]]
        if not lists:
            return "no list"
        path, container, key = rng.choice(lists)
        target = container[key]
        target.append(copy.deepcopy(rng.choice(target)))
        return "duplicate an element of %s" % "/".join(str(p) for p in path)
    if op == "empty":
        containers = [s for s in slots if isinstance(s[1][s[2]], (list, dict))]
        if not containers:
            return "no container"
        path, container, key = rng.choice(containers)
        container[key] = type(container[key])()
        return "empty %s" % "/".join(str(p) for p in path)
    dicts = [s for s in slots if isinstance(s[1], dict)]
    path, container, key = rng.choice(dicts)
    new_key = rng.choice(("nosuch", key + "x", key.upper(), ""))
    container[new_key] = container.pop(key)
    return "rename key %s -> %r" % ("/".join(str(p) for p in path), new_key)


def _dump_json(doc):
    return json.dumps(doc, indent=1).encode("utf-8")


# ---------------------------------------------------------------------------
# building one corrupted input


def _write(path, raw):
    with open(path, "wb") as handle:
        handle.write(raw)


def build_input(kind, mseed, workdir):
    """Write the corrupted input of mutation ``mseed``; return (paths, options, descs)."""
    rng = random.Random("%s-%d" % (kind, mseed))
    seed = _base_seed(rng)
    case = _case(seed)
    options = dict(case.options)
    descs = ["base: generator seed %d" % seed]
    data_path = os.path.join(workdir, "c%d.data" % seed)
    util_path = None
    count = rng.choice((1, 1, 1, 2, 3))

    if kind in ("text", "util"):
        data_text = case.data
        util_text = _util_text(case, rng) if (kind == "util" or case.util is not None) else None
        target = data_text if kind == "text" else util_text
        raw = None
        for _k in range(count):
            if raw is None and rng.random() < 0.85:
                target, desc = mutate_lines(rng, target)
            else:
                raw, desc = mutate_bytes(rng, target.encode("utf-8") if raw is None else raw)
            descs.append(desc)
        if raw is None:
            raw = target.encode("utf-8")
        if kind == "text":
            _write(data_path, raw)
            if util_text is not None:
                util_path = os.path.join(workdir, "u%d.txt" % seed)
                _write(util_path, util_text.encode("utf-8"))
        else:
            _write(data_path, data_text.encode("utf-8"))
            util_path = os.path.join(workdir, "u%d.txt" % seed)
            _write(util_path, raw)
        return (data_path, util_path), options, descs

    data = load_text(case.data, "<gen>")
    online = [n.name for n in data.nodes if not n.offline]
    drained = rng.sample(online, min(len(online), rng.choice((0, 0, 1))))
    not_vm = rng.sample(online, min(len(online), rng.choice((0, 0, 1))))
    hypervisor = rng.choice(("xen-pvm", "kvm"))
    if kind == "rapi":
        docs = model_to_rapi(data, rng, hypervisor, drained, not_vm)
        data_path = os.path.join(workdir, "rapi%d" % seed)
        os.makedirs(data_path)
        raws = {name: _dump_json(doc) for name, doc in docs.items()}
        broken = set()      # files no longer valid JSON: only byte mutations from now on
        for _k in range(count):
            name = rng.choice(sorted(docs))
            r = rng.random()
            if raws[name] is None:
                continue
            if r < 0.75 and name not in broken:
                doc = json.loads(raws[name])
                descs.append("%s.json: %s" % (name, mutate_json(rng, doc)))
                raws[name] = _dump_json(doc)
            elif r < 0.95:
                raws[name], desc = mutate_bytes(rng, raws[name])
                broken.add(name)
                descs.append("%s.json: %s" % (name, desc))
            else:
                raws[name] = None
                descs.append("%s.json: removed" % name)
        for name, raw in raws.items():
            if raw is not None:
                _write(os.path.join(data_path, name + ".json"), raw)
    else:
        doc = model_to_ialloc(data, rng, hypervisor, drained, not_vm)
        raw = _dump_json(doc)
        broken = False
        for _k in range(count):
            if rng.random() < 0.8 and not broken:
                doc = json.loads(raw)
                descs.append(mutate_json(rng, doc))
                raw = _dump_json(doc)
            else:
                raw, desc = mutate_bytes(rng, raw)
                broken = True
                descs.append(desc)
        data_path = os.path.join(workdir, "ialloc%d.json" % seed)
        _write(data_path, raw)
    if case.util is not None:
        util_path = os.path.join(workdir, "u%d.txt" % seed)
        _write(util_path, case.util.encode("utf-8"))
    return (data_path, util_path), options, descs


def exercise(paths, options):
    """Run the input through every loading entry point (raises on bad input)."""
    data_path, util_path = paths
    util = None
    if util_path is not None and not options["ignore_dynu"]:
        with open(util_path, "rb") as handle:
            raw = handle.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            util = parse_util(text, util_path)
    data, _fmt = load_data_file(data_path)
    prepare(data, util=util, ignore_dynu=options["ignore_dynu"],
            exclusion_tags=options["exclusion_tags"], offline_nodes=options["offline_nodes"],
            util_source=util_path or "<util>")
    select_group(data, options["group"])
    cluster_info(data_path, util_file=util_path, group=options["group"],
                 offline_nodes=options["offline_nodes"],
                 exclusion_tags=options["exclusion_tags"], ignore_dynu=options["ignore_dynu"])


def _where(frame):
    path = os.path.realpath(frame.filename)
    if path.startswith(REPO_ROOT + os.sep):
        path = os.path.relpath(path, REPO_ROOT)
    return "%s:%d in %s" % (path, frame.lineno, frame.name)


def _crash_site(exc):
    """Innermost frame, then the collection's frames that led to it (innermost first)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames[:-1] if PLUGINS_MARK in os.path.realpath(f.filename)]
    site = _where(frames[-1])
    if ours:
        site += " <- " + " <- ".join(_where(f) for f in reversed(ours[-3:]))
    return site


def check_one(kind, mseed, workdir):
    """None if the outcome is acceptable, else a description of the problem."""
    os.makedirs(workdir)
    paths, options, descs = build_input(kind, mseed, workdir)
    try:
        exercise(paths, options)
    except HtoolsError as exc:
        message = str(exc)
        names = [p for p in paths if p is not None]
        if message.strip() and any(p in message for p in names):
            shutil.rmtree(workdir)
            return None
        problem = "BAD MESSAGE %s: %r (names none of %s)" % (
            type(exc).__name__, message[:300], names)
    except Exception as exc:  # pylint: disable=broad-except
        problem = "CRASH %s: %s at %s" % (type(exc).__name__, str(exc)[:200], _crash_site(exc))
    else:
        shutil.rmtree(workdir)
        return None
    return "%s mutation %d [%s]: %s\n      input kept in %s; options %s" % (
        kind, mseed, "; ".join(descs), problem, workdir, options)


@pytest.mark.parametrize("kind,start,count", CHUNKS,
                         ids=["%s-%d" % (k, s) for k, s, _c in CHUNKS])
def test_fuzz_loaders(kind, start, count, tmp_path):
    problems = []
    for mseed in range(start, start + count):
        problem = check_one(kind, mseed, str(tmp_path / ("m%d" % mseed)))
        if problem:
            problems.append(problem)
    assert not problems, "%d of %d %s mutations were not handled cleanly:\n  %s" % (
        len(problems), count, kind, "\n  ".join(problems))


def _read_tree(path):
    if path is None:
        return None
    if os.path.isdir(path):
        return {name: _read_tree(os.path.join(path, name)) for name in sorted(os.listdir(path))}
    with open(path, "rb") as handle:
        return handle.read()


def test_mutations_are_deterministic(tmp_path):
    """The same mutation seed always builds the same corrupted input."""
    for kind in ("text", "rapi", "ialloc", "util"):
        built = []
        for copy_name in ("a", "b"):
            workdir = tmp_path / (kind + copy_name)
            workdir.mkdir()
            paths, options, descs = build_input(kind, 7, str(workdir))
            built.append((descs, options, [_read_tree(p) for p in paths]))
        assert built[0] == built[1], kind
