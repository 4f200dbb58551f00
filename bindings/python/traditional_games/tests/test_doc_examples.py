"""The examples of docs/python.md and docs/learning.md, run as written so that they cannot
rot: each ```python block right after a line `<!-- test_doc_examples: run -->`, in a fresh
interpreter with this one's environment (bindings/python/test-conformance.sh puts Gymnasium
and PettingZoo on its path). Reads the source tree's docs/, so it is not installed with the
package; skipped where Gymnasium or PettingZoo is missing, unless TG_REQUIRE_ANCHORS is set."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import unittest
from typing import List

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
MARK = "<!-- test_doc_examples: run -->"
DOCS = ["docs/python.md", "docs/learning.md"]
HAVE_LIBRARIES = all(importlib.util.find_spec(name) is not None
                     for name in ("numpy", "gymnasium", "pettingzoo"))


def marked_blocks(text: str) -> List[str]:
    """The ```python blocks that follow the mark, in order."""
    blocks: List[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != MARK:
            continue
        if i + 1 >= len(lines) or lines[i + 1].strip() != "```python":
            raise ValueError("line %d: the mark must be followed by a ```python line" % (i + 1))
        end = lines.index("```", i + 2)
        blocks.append("\n".join(lines[i + 2:end]) + "\n")
    return blocks


@unittest.skipIf(not HAVE_LIBRARIES and not os.environ.get("TG_REQUIRE_ANCHORS"),
                 "numpy, gymnasium or pettingzoo is not installed")
class TestDocExamples(unittest.TestCase):
    def test_marked_examples_run(self) -> None:
        counts = {}
        for doc in DOCS:
            with open(os.path.join(TOP, doc), encoding="utf-8") as f:
                blocks = marked_blocks(f.read())
            counts[doc] = len(blocks)
            for number, code in enumerate(blocks, 1):
                with self.subTest(doc=doc, example=number):
                    run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                         text=True, timeout=300)
                    self.assertEqual(run.returncode, 0, "%s example %d:\n%s"
                                     % (doc, number, run.stderr))
                    self.assertTrue(run.stdout.strip(), "%s example %d printed nothing"
                                    % (doc, number))
        # The Gymnasium and PettingZoo examples of both documents (and learning.md's first).
        self.assertEqual(counts, {"docs/python.md": 1, "docs/learning.md": 3})


if __name__ == "__main__":
    unittest.main()
