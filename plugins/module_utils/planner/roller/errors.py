# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The failures of a rolling-reboot plan, worded exactly as hroller words them."""

from __future__ import annotations

from ...errors import HtoolsError

NO_MASTER = "No master node found (maybe not supported by backend)."
NO_GROUP = "Cannot find target group."
NO_GRAPH = "Cannot create node graph"
NO_ROOM_NONREDUNDANT = "Not enough capacity to move non-redundant instances"
NO_MIGRATION = "Failed to migrate instances off nodes"
NO_ROOM_SECONDARIES = "Not enough capacity to move secondaries"


class RollerError(HtoolsError):
    """hroller's `Error: MSG`; str() is MSG (without hroller's trailing newline), and
    `hint` what hroller leaves unsaid (which tags, instance, groups)."""

    def __init__(self, message, hint=None):
        super().__init__(message)
        self.hint = hint


def no_master_hint():
    return ("no node of the data is the master: in the htools text format the master's node "
            "line has M in its 8th field (Y marks an offline node, N any other), and "
            "IAllocator input names no master at all; force: true plans without one (the "
            "master is then in no wave)")


# hbal's failure modes of placing an instance on a node, in words
FAIL_WORDS = {"FailMem": "not enough free memory", "FailDisk": "not enough free disk",
              "FailCPU": "too many virtual CPUs per physical CPU for the instance policy",
              "FailSpindles": "not enough free spindles", "FailN1": "it would fail N+1",
              "FailTags": "an instance with the same exclusion tags is there",
              "FailMig": "the migration tags do not allow it"}


def no_migration_hint(instance, primary, secondary, failure, role):
    """Which instance could not migrate off its primary, and why."""
    taker = secondary if role == "primary" else primary
    return ("full_evacuation migrates every DRBD primary of a wave's nodes to its secondary: "
            "instance %s cannot migrate from %s to %s, as %s cannot take it as %s: %s (%s)"
            % (instance, primary, secondary, taker, role, FAIL_WORDS.get(failure, failure),
               failure))


def no_group_hint(group, data):
    return "no node group is named or has the UUID %s; the groups are %s" % (
        group, ", ".join(g.name for g in data.groups) or "none")


def _tag_list(tags):
    return ", ".join(sorted(tags)) if tags else "none"


def no_graph_hint(data, candidates, node_tags, filters):
    """Why no node is left to plan: the node_tags that matched nothing (and the tags
    the nodes carry), or the filters that left none."""
    if node_tags:
        on_nodes = {t for n in data.nodes for t in n.tags}
        missing = sorted(set(node_tags) - on_nodes)
        if missing:
            return "no node carries the node_tags %s; the nodes' tags are %s" % (
                ", ".join(missing), _tag_list(on_nodes))
        tagged = {t for n in candidates for t in n.tags}
        return ("no online node of the selection carries any of the node_tags %s; the "
                "selected nodes' tags are %s" % (", ".join(node_tags), _tag_list(tagged)))
    return "no node is left once %s are taken away" % " and ".join(filters) \
        if filters else "the data has no online node"


def hs_show_strings(names):
    """Haskell's `show` of a list of strings: ["a","b"] with Haskell escapes."""
    return "[" + ",".join(_hs_show_string(n) for n in names) + "]"


_ESCAPES = {'"': '\\"', '\\': '\\\\', '\a': '\\a', '\b': '\\b', '\f': '\\f',
            '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\x7f': '\\DEL'}
# Haskell names the other control characters (and numbers the non-ASCII ones).
_CONTROL_NAMES = ("NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 "
                  "DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US").split()


def _hs_show_string(text):
    out = []
    for pos, char in enumerate(text):
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 32:
            out.append("\\" + _CONTROL_NAMES[code])
            # "\SO" followed by "H" would read as "\SOH": Haskell separates them
            if _CONTROL_NAMES[code] == "SO" and text[pos + 1:pos + 2] == "H":
                out.append("\\&")
        elif code > 126:
            out.append("\\%d" % code)
            # Haskell separates a numeric escape from a following digit with \&
            if pos + 1 < len(text) and text[pos + 1].isdigit():
                out.append("\\&")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
