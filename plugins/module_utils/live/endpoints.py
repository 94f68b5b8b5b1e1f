# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a Ganeti cluster's services listen by default.

Kept apart from the clients (luxi.py, mond.py) so that option tables and the
source selection can name them without importing the network code: a run on
a saved data file never loads it (the module's start-up is part of its speed).
"""

from __future__ import annotations

# Where luxid listens on a Ganeti master (hbal -L's default).
DEFAULT_SOCKET = "/var/run/ganeti/socket/ganeti-query"
# The port of a node's monitoring daemon (hbal --mond's).
MOND_PORT = 1815
