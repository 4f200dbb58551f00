"""The fit of the search's evaluation is deterministic: a tiny run of
tools/arena/fit_evaluation.py twice with the same seed writes the same table, and a
different seed writes another (so the comparison can fail).

usage: python3 test_fit_evaluation.py TG_EVAL_DATA"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def table(tool: str, seed: int, directory: str) -> str:
    path = os.path.join(directory, "weights-%d.c" % seed)
    subprocess.run([sys.executable, os.path.join(HERE, "fit_evaluation.py"), "--data-tool", tool,
                    "--games", "10", "--seed", str(seed), "--bot", "search:nodes=300",
                    "--game", "halusa", "--game", "hus", "--write", path],
                   check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        return f.read()


def main() -> int:
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        first, again, other = table(tool, 5, d), table(tool, 5, d), table(tool, 6, d)
    assert first == again, "same seed, different tables:\n%s\n%s" % (first, again)
    assert first != other, "another seed gave the same table:\n%s" % first
    rows = [line for line in first.splitlines() if line.startswith("    {&tg__")]
    assert [r.split(",")[0] for r in rows] == ["    {&tg__halusa", "    {&tg__hus"], rows
    assert "--games 10 --seed 5 --bot search:nodes=300" in first, first
    print("ok: the same seed gave the same weights (%d games fitted)" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
