"""python3 -m traditional_games.tests [unittest options]: the whole suite, verbose."""

import sys
import unittest

if __name__ == "__main__":
    unittest.main(module="traditional_games.tests", argv=[sys.argv[0], "-v", *sys.argv[1:]])
