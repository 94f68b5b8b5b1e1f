# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The test kit: what more than one test suite needs, importable as ``kit``
(tests/ is on ``sys.path``: tests/conftest.py lives there).

* ``kit.paths``: the checkout, the test data, the real htools binaries (the
  only place that names them);
* ``kit.tools``: the cluster and option generators (tests/gen) and the hbal
  oracles (tests/oracle);
* ``kit.model_snapshot``: a comparable image of a loaded model;
* ``kit.backend_docs``: a model written as RAPI answers or an IAllocator request;
* ``kit.report_parity``: our initial cluster report against hbal's;
* ``kit.fakes``: a scripted HTTP session under the RAPI client;
* ``kit.ansible_cli``: modules and playbooks run through the ansible CLI;
* ``kit.lab``: the integration lab (tests/lab) as the tests see it.
"""
