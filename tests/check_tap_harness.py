#!/usr/bin/env python3
"""Checks the TAP runner of tests/tap_harness.c through its self-test program.

    check_tap_harness.py TEST_TAP_HARNESS

Runs the program (under $MESON_EXE_WRAPPER in a cross build: wine, qemu-user) twice:

- as a group: every passes_* test must be `ok` and every fails_* test `not ok`, numbered
  1..N under the plan 1..N; each "# expect FILE:LINE" the program prints before a check that
  must fail is answered by a diagnostic "# FILE:LINE: ..." before that test's result; nothing
  after a failed check runs; the messages carry the values; the exit status is the number of
  failed tests;
- with `outside`: a check failing outside any test stops the program with status 1.

Prints what it found wrong and exits 1, or exits 0.
"""
import os
import re
import shlex
import subprocess
import sys
from typing import Dict, List

RESULT = re.compile(r"^(ok|not ok) (\d+) - (\S+)$")
PLAN = re.compile(r"^1\.\.(\d+)$")

# Parts of the diagnostics a failing test must print, beyond its place.
MESSAGES = {
    "fails_true": ["2 + 2 == 5 is false"],
    "fails_false": ["2 + 2 == 4 is true"],
    "fails_null": ["&x is not NULL"],
    "fails_non_null": ["NULL is NULL"],
    "fails_ptr_equal": ["&x (", ") != &y ("],
    "fails_int_equal": ["2 + 2 != 5: 4 (0x4) and 5 (0x5)"],
    "fails_int_equal_negative": ["-1 != 1: -1 (0xffffffffffffffff) and 1 (0x1)"],
    "fails_int_not_equal": ["7 == 7: 7 (0x7) and 7 (0x7)"],
    "fails_string_equal": ['"abc" != "abd": "abc" and "abd"'],
    "fails_string_equal_null": ["none is NULL"],
    "fails_string_not_equal": ['"abc" == "abc": "abc" and "abc"'],
    "fails_memory_equal": ["left != right: byte 2 of 4 is 0x03 and 0x09"],
    "fails_fail": ["fail()"],
    "fails_fail_msg": ["the reason, 42"],
    "fails_by_its_setup": ["# the setup of fails_by_its_setup returned -1"],
    "fails_by_its_teardown": ["# the teardown of fails_by_its_teardown returned 1"],
    "fails_then_tears_down": ["# teardown ran"],
}


def run(command: List[str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=300, check=False)


def check_group(command: List[str], problems: List[str]) -> None:
    proc = run(command)
    lines = [line.rstrip() for line in proc.stdout.splitlines()]
    plans = [int(m.group(1)) for m in map(PLAN.match, lines) if m]
    results: List[str] = []
    before: Dict[str, List[str]] = {}  # each test's lines, from the previous result on
    pending: List[str] = []
    for line in lines:
        match = RESULT.match(line)
        if not match:
            pending.append(line)
            continue
        status, number, name = match.groups()
        if int(number) != len(results) + 1:
            problems.append(f"result {number} ({name}) out of order")
        if not name.startswith(("passes_", "fails_")):
            problems.append(f"unexpected test name {name}")
        elif (status == "ok") != name.startswith("passes_"):
            problems.append(f"{name}: {status}")
        results.append(name)
        before[name] = pending
        pending = []
    if plans != [len(results)]:
        problems.append(f"plan {plans} for {len(results)} results")
    if len(results) < 20:
        problems.append(f"only {len(results)} results")

    failing = sum(name.startswith("fails_") for name in results)
    if proc.returncode != failing:
        problems.append(f"exit status {proc.returncode}, expected {failing} (the failed tests)")

    for name, own in before.items():
        text = "\n".join(own)
        if "reached after" in text:
            problems.append(f"{name}: ran on after a failed check")
        for expect in (line[len("# expect "):] for line in own if line.startswith("# expect ")):
            if not any(line.startswith(f"# {expect}: ") for line in own):
                problems.append(f"{name}: no diagnostic at {expect}")
        if name.startswith("fails_") and name not in ("fails_by_its_setup",
                                                       "fails_by_its_teardown"):
            if not any(line.startswith("# expect ") for line in own):
                problems.append(f"{name}: failed with no expected place")
        for part in MESSAGES.get(name, []):
            if part not in text:
                problems.append(f"{name}: no {part!r} in {own}")
    if problems:
        problems.append("stdout was:\n" + proc.stdout + "stderr was:\n" + proc.stderr)


def check_outside(command: List[str], problems: List[str]) -> None:
    proc = run(command + ["outside"])
    lines = [line.rstrip() for line in proc.stdout.splitlines()]
    expects = [line[len("# expect "):] for line in lines if line.startswith("# expect ")]
    if proc.returncode != 1:
        problems.append(f"outside a test: exit status {proc.returncode}, expected 1")
    if len(expects) != 1 or not any(line.startswith(f"# {expects[0]}: argc != 0")
                                    for line in lines):
        problems.append(f"outside a test: no diagnostic at {expects}: {lines}")
    if "reached after" in proc.stdout:
        problems.append("outside a test: ran on after a failed check")
    if "outside the thread running a test" not in proc.stderr:
        problems.append(f"outside a test: no reason on stderr: {proc.stderr!r}")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    command = shlex.split(os.environ.get("MESON_EXE_WRAPPER", "")) + [sys.argv[1]]
    problems: List[str] = []
    check_group(command, problems)
    check_outside(command, problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
