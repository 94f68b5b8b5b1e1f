"""Differential test: a node without live values (null over RAPI) vs ``hbal -m file://DIR``.

Ganeti answers null for the live fields of a node whose node daemon did not
answer the master in time.  Each seed's generated cluster
(``tests/gen/cluster_gen.py``) is written as saved RAPI responses, then one
online node gets some of its live fields nulled (drawn per seed, one or
several, each of ``mtotal mnode mfree ctotal cnos dtotal dfree spfree``), and

    hbal -m file://DIR <options> -C

decides: when it refuses the data (a memory or CPU field is null), ours must
refuse too, naming the node and every one of its null memory/CPU fields;
when it plans (only disk fields are null, taken as 0), ours must give the
same plan - initial score, every step, the end message, the ``-C`` listing -
and warn naming the node and the fields taken as 0.

``HTOOLS_NULL_CASES`` (default 30) sets the number of seeds.
"""

from __future__ import annotations

import json
import os
import random

import pytest

from kit.backend_docs import model_to_rapi, write_rapi_dir
from kit.paths import HBAL
from kit.plan_compare import plan_differences

N_CASES = int(os.environ.get("HTOOLS_NULL_CASES", "30"))
SEEDS = list(range(1, N_CASES + 1))
REQUIRED = ("mtotal", "mnode", "mfree", "ctotal", "cnos")
ZEROED = ("dtotal", "dfree", "spfree")


def _null_some(directory, rng):
    """Null some live fields of one online, vm-capable node: (node name, fields)."""
    path = os.path.join(directory, "nodes.json")
    with open(path, encoding="utf-8") as handle:
        nodes = json.load(handle)
    live = [n for n in nodes if not n.get("offline") and n.get("vm_capable", True)]
    node = rng.choice(live)
    # half the seeds only disk fields (hbal plans), the others a memory or CPU one too
    pool = ZEROED if rng.random() < 0.5 else REQUIRED + ZEROED
    fields = sorted(set(rng.sample(pool, rng.randint(1, 3))))
    for field in fields:
        node[field] = None
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(nodes, handle)
    return node["name"], fields


def _case(seed, tmp_path, balance_gen):
    from ansible_collections.ganeti.htools.plugins.module_utils.backend.text import load_text
    opts = balance_gen.balance_options(seed)
    rng = random.Random("null-%d" % seed)
    directory = write_rapi_dir(model_to_rapi(load_text(opts["case"].data, "<gen>"), rng, "xen-pvm"),
                               tmp_path / "rapi")
    name, fields = _null_some(str(directory), rng)
    return opts, str(directory), name, fields


@pytest.mark.parametrize("seed", SEEDS, ids=["seed%d" % s for s in SEEDS])
def test_null_live_values_as_hbal_reads_them(seed, tmp_path, balance_gen, balance_oracle,
                                             require_hbal, htools_balance):
    from ansible_collections.ganeti.htools.plugins.module_utils.errors import DataError
    plan_balance, BalanceOptions, _hs_fixed = htools_balance
    opts, directory, name, fields = _case(seed, tmp_path, balance_gen)
    argv = [HBAL, "-m", "file://" + os.path.abspath(directory)] + list(opts["argv"]) + ["-C"]
    hb = balance_oracle.run_balance(argv)
    label = "seed %d, %s null on %s\n  hbal: %s" % (seed, ", ".join(fields), name, hb.command)
    kwargs = dict(opts["plan_kwargs"])
    required = [f for f in REQUIRED if f in fields]
    if hb.returncode != 0:
        assert required, label + "\n  hbal refused data with only disk fields null"
        with pytest.raises(DataError) as err:
            plan_balance(directory, options=BalanceOptions(**opts["balance_options"]), **kwargs)
        message = str(err.value)
        assert "node %s has no live %s (null)" % (name, ", ".join(required)) in message, label
        assert "did not answer the master" in message
        return
    assert not required, label + "\n  hbal planned with a memory or CPU field null"
    if hb.cluster_empty:
        pytest.skip("seed %d: the cluster is empty" % seed)
    res = plan_balance(directory, options=BalanceOptions(**opts["balance_options"]), **kwargs)
    problems = plan_differences(hb, res)
    assert not problems, "%s\n  %s" % (label, "\n  ".join(problems))
    zeroed = [f for f in ZEROED if f in fields]
    assert any(w.startswith("node %s has no live %s (null), taken as 0 as hbal -m does"
                            % (name, ", ".join(zeroed))) for w in res["warnings"]), label


def test_both_outcomes_are_compared(balance_gen, tmp_path):
    """The seeds above include refused and planned data."""
    kinds = set()
    for seed in SEEDS:
        _opts, _directory, _name, fields = _case(seed, tmp_path / str(seed), balance_gen)
        kinds.add(bool(set(fields) & set(REQUIRED)))
    assert kinds == {True, False}
