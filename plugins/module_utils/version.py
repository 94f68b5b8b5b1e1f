# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's version, as galaxy.yml states it (a test keeps the two equal).

An installed collection has no galaxy.yml to read at run time; the jobs'
reason trail names this version.
"""

COLLECTION = "ganeti.htools"
COLLECTION_VERSION = "0.1.0"
