"""The package's own tests (unittest, standard library only), installed with it so that an
installation can be checked where it is used:

    python3 -m traditional_games.tests          (or: python3 -m unittest traditional_games.tests)

They load the library the package loads (TG_LIBRARY, else the bundled copy, else the
system's)."""

from __future__ import annotations

import os
import unittest
from typing import Optional


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite,
               pattern: Optional[str]) -> unittest.TestSuite:
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))
    suite = unittest.TestSuite()
    suite.addTests(loader.discover(here, pattern=pattern or "test_*.py", top_level_dir=top))
    return suite
