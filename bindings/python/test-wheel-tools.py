#!/usr/bin/env python3
"""Tests of wheel-tags.py and check-wheel.py on small wheels made here (the meson test `python
wheel tools`): the Windows wheel's tag from the DLL's PE header, and each problem check-wheel.py
must find. The real wheels are built by test-wheel.sh (native) and test-platforms.sh (Windows).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import struct
import sys
import tempfile
import unittest
import zipfile
from types import ModuleType
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))


def load(file_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(file_name.replace("-", "_")[:-3],
                                                  os.path.join(HERE, file_name))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wheel_tags = load("wheel-tags.py")
check_wheel = load("check-wheel.py")

DLL = "traditional_games/libtraditional-games-0.dll"
DIST_INFO = "traditional_games-0.4.0.dist-info/"


def fake_pe(machine: int = 0x8664, magic: int = 0x20B, characteristics: int = 0x2022) -> bytes:
    """The headers of a PE image, as far as the tools read them."""
    data = bytearray(0x200)
    data[0:2] = b"MZ"
    struct.pack_into("<I", data, 0x3C, 0x80)
    data[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<H", data, 0x84, machine)
    struct.pack_into("<H", data, 0x96, characteristics)
    struct.pack_into("<H", data, 0x98, magic)
    return bytes(data)


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def make_wheel(folder: str, tag: str = "cp311-cp311-linux_x86_64",
               files: Optional[Dict[str, bytes]] = None, wheel_tag: Optional[str] = None,
               record_extra: Optional[List[str]] = None, unlisted: Optional[str] = None,
               bad_hash: Optional[str] = None) -> str:
    contents = {"traditional_games/__init__.py": b"# package\n", DLL: fake_pe()}
    if files is not None:
        contents = files
    contents[DIST_INFO + "WHEEL"] = ("Wheel-Version: 1.0\nGenerator: meson\nRoot-Is-Purelib: "
                                     "false\nTag: %s\n" % (wheel_tag or tag)).encode()
    record = [record_line(n, d) for n, d in contents.items() if n != unlisted]
    if bad_hash:
        record = [record_line(n, b"other" + d) if n == bad_hash else record_line(n, d)
                  for n, d in contents.items()]
    record += (record_extra or []) + [DIST_INFO + "RECORD,,"]
    path = os.path.join(folder, "traditional_games-0.4.0-%s.whl" % tag)
    with zipfile.ZipFile(path, "w") as z:
        for name, data in contents.items():
            z.writestr(name, data)
        z.writestr(DIST_INFO + "RECORD", "\n".join(record) + "\n")
    return path


class TestWheelTags(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_windows_dll_gives_win_amd64(self) -> None:
        wheel = make_wheel(self.tmp.name)
        retagged = wheel_tags.retag(wheel)
        self.assertEqual(os.path.basename(retagged),
                         "traditional_games-0.4.0-py3-none-win_amd64.whl")
        self.assertFalse(os.path.exists(wheel))
        # The rewritten WHEEL and RECORD pass the checks the platform matrix makes.
        check_wheel.check_wheel(retagged, "py3-none-win_amd64", "libtraditional-games-0.dll")

    def test_other_pe_machines(self) -> None:
        self.assertEqual(wheel_tags.pe_platform("x", fake_pe(machine=0xAA64)), "win_arm64")
        self.assertEqual(wheel_tags.pe_platform("x", fake_pe(machine=0x14C, magic=0x10B)),
                         "win32")

    def test_bad_dlls_are_refused_and_the_wheel_left_alone(self) -> None:
        cases = {"unknown PE machine 0x01c4": fake_pe(machine=0x1C4),
                 "not a DLL": fake_pe(characteristics=0x0022),
                 "no PE header": fake_pe()[:0x82],
                 "truncated DOS header": b"MZ\x90\0",
                 "neither a Windows DLL nor an ELF library": b"plain text\n"}
        for message, dll in cases.items():
            with self.subTest(message), tempfile.TemporaryDirectory() as folder:
                wheel = make_wheel(folder, files={DLL: dll})
                with open(wheel, "rb") as f:
                    before = f.read()
                with self.assertRaises(SystemExit) as caught:
                    wheel_tags.retag(wheel)
                self.assertIn(message, str(caught.exception))
                with open(wheel, "rb") as f:
                    self.assertEqual(f.read(), before)
                self.assertEqual(os.listdir(folder), [os.path.basename(wheel)])


class TestCheckWheel(unittest.TestCase):
    TAG = "py3-none-win_amd64"
    NAME = "libtraditional-games-0.dll"

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def check(self, wheel: str, extract_to: Optional[str] = None) -> str:
        result: str = check_wheel.check_wheel(wheel, self.TAG, self.NAME, extract_to)
        return result

    def refused(self, wheel: str, message: str) -> None:
        with self.assertRaises(check_wheel.WheelProblem) as caught:
            self.check(wheel)
        self.assertIn(message, str(caught.exception))

    def test_a_good_wheel(self) -> None:
        out = os.path.join(self.tmp.name, "bundled.dll")
        self.assertIn("RECORD right for 3 files", self.check(make_wheel(self.tmp.name, self.TAG),
                                                             out))
        with open(out, "rb") as f:
            self.assertEqual(f.read(), fake_pe())

    def test_the_tags(self) -> None:
        self.refused(make_wheel(self.tmp.name), "the file name's tag is cp311-cp311-linux_x86_64")
        self.refused(make_wheel(self.tmp.name, self.TAG, wheel_tag="cp311-cp311-linux_x86_64"),
                     "WHEEL's tags are ['cp311-cp311-linux_x86_64']")

    def test_the_library(self) -> None:
        so = {"traditional_games/libtraditional-games.so.0": fake_pe()}
        self.refused(make_wheel(self.tmp.name, self.TAG, files=so),
                     "['traditional_games/libtraditional-games.so.0']; expected only")
        both = {DLL: fake_pe(), "traditional_games/libtraditional-games.so.0": b"\x7fELF"}
        self.refused(make_wheel(self.tmp.name, self.TAG, files=both), "expected only")
        self.refused(make_wheel(self.tmp.name, self.TAG, files={DLL: fake_pe(0x14C, 0x10B)}),
                     "not PE32+ x86-64 (machine 0x014c, magic 0x10b)")
        self.refused(make_wheel(self.tmp.name, self.TAG, files={DLL: fake_pe(
            characteristics=0x22)}), "not a DLL")
        self.refused(make_wheel(self.tmp.name, self.TAG, files={DLL: b"\x7fELF" + bytes(100)}),
                     "not a PE file")

    def test_the_record(self) -> None:
        self.refused(make_wheel(self.tmp.name, self.TAG, unlisted=DLL),
                     "RECORD does not list " + DLL)
        self.refused(make_wheel(self.tmp.name, self.TAG, bad_hash=DLL),
                     "RECORD's hash or size of " + DLL)
        self.refused(make_wheel(self.tmp.name, self.TAG,
                                record_extra=["traditional_games/gone.py,sha256=x,1"]),
                     "files not in the wheel: traditional_games/gone.py")

    def test_not_a_wheel(self) -> None:
        path = os.path.join(self.tmp.name, "traditional_games-0.4.0-%s.whl" % self.TAG)
        with open(path, "wb") as f:
            f.write(b"not a zip")
        with self.assertRaises(zipfile.BadZipFile):
            self.check(path)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:], verbosity=2)
