#!/usr/bin/env python3
"""Tests of wheel-tags.py and check-wheel.py on small wheels made here (the meson test `python
wheel tools`): the Windows wheel's tag from the DLL's PE header, an ELF library's from its
header and the glibc versions it needs (with a real aarch64 library where Debian's
gcc-aarch64-linux-gnu is installed), and each problem check-wheel.py must find. The real
wheels are built by test-wheel.sh (native) and test-platforms.sh (Windows, aarch64).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zipfile
from types import ModuleType
from typing import Dict, List, Optional, Sequence, Tuple

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


def fake_elf(machine: int = 183, elf_class: int = 2, order: int = 1, e_type: int = 3,
             needed: Sequence[str] = ("libm.so.6", "libc.so.6"),
             dynamic: bool = True) -> bytes:
    """An ELF file as far as the tools read it: the header's magic, class (2: 64-bit), byte
    order (1: little-endian), e_type (3: a shared object) and e_machine (183: aarch64); a
    PT_LOAD segment mapping the whole file at 0x10000 and, with dynamic, a PT_DYNAMIC one
    whose DT_NEEDED entries name the libraries needed, in a string table found by its
    address (DT_STRTAB), as the dynamic loader finds it."""
    wide = elf_class == 2
    end = "<" if order == 1 else ">"
    word = end + ("Q" if wide else "I")
    header_size, phentsize = (64, 56) if wide else (52, 32)
    phnum = 2 if dynamic else 1
    strtab_at = header_size + phnum * phentsize
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n in needed)
    dynamic_at = (strtab_at + len(strtab) + 7) // 8 * 8
    base = 0x10000
    entries = [(1, 1 + sum(len(n) + 1 for n in needed[:i])) for i in range(len(needed))]
    entries += [(5, base + strtab_at), (0, 0)]
    dyn = b"".join(struct.pack(word + word[1], tag, value) for tag, value in entries)
    data = bytearray(dynamic_at + len(dyn))
    data[0:4] = b"\x7fELF"
    data[4], data[5], data[6] = elf_class, order, 1
    struct.pack_into(end + "HH", data, 16, e_type, machine)
    struct.pack_into(word, data, 32 if wide else 28, header_size)
    struct.pack_into(end + "HH", data, 54 if wide else 42, phentsize, phnum)

    def program_header(index: int, p_type: int, offset: int, size: int) -> None:
        at = header_size + index * phentsize
        struct.pack_into(end + "I", data, at, p_type)
        if wide:
            struct.pack_into(end + "QQQQQ", data, at + 8, offset, base + offset, base + offset,
                             size, size)
        else:
            struct.pack_into(end + "IIIII", data, at + 4, offset, base + offset, base + offset,
                             size, size)

    program_header(0, 1, 0, len(data))
    if dynamic:
        program_header(1, 2, dynamic_at, len(dyn))
    data[strtab_at:strtab_at + len(strtab)] = strtab
    data[dynamic_at:] = dyn
    return bytes(data)


# What `objdump -T` prints of a library's dynamic symbols, shortened.
OBJDUMP_T = """
libtraditional-games.so.0:     file format elf64-littleaarch64

DYNAMIC SYMBOL TABLE:
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.17) memcpy
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.29) log
0000000000000000      DF *UND*  0000000000000000 (GLIBC_PRIVATE) __libc_x
0000000000012340 g    DF .text  0000000000000024  TG_0.1      tg_version
"""

SO = "traditional_games/libtraditional-games.so.0"


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
                 "neither a Windows DLL nor an ELF library": b"plain text\n",
                 "no manylinux tag for ELF machine 243 (64-bit, little-endian)":
                     fake_elf(machine=243),
                 "no manylinux tag for ELF machine 22 (64-bit, little-endian)":
                     fake_elf(machine=22),
                 "bad ELF class 3": fake_elf(elf_class=3)}
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


    def test_elf_machines(self) -> None:
        self.assertEqual(wheel_tags.elf_machine("x", fake_elf()), ("aarch64", "aarch64-linux-gnu"))
        self.assertEqual(wheel_tags.elf_machine("x", fake_elf(machine=62)),
                         ("x86_64", "x86_64-linux-gnu"))
        self.assertEqual(wheel_tags.elf_machine("x", fake_elf(machine=40, elf_class=1)),
                         ("armv7l", "arm-linux-gnueabihf"))
        # e_machine is read in the file's byte order: s390x is big-endian.
        self.assertEqual(wheel_tags.elf_machine("x", fake_elf(machine=22, order=2)),
                         ("s390x", "s390x-linux-gnu"))
        with self.assertRaises(SystemExit) as caught:
            wheel_tags.elf_machine("x", fake_elf(machine=183, elf_class=1))
        self.assertIn("ELF machine 183 (32-bit, little-endian)", str(caught.exception))

    def test_newest_glibc(self) -> None:
        self.assertEqual(wheel_tags.newest_glibc("x", OBJDUMP_T), (2, 29))
        self.assertEqual(wheel_tags.newest_glibc("x", "(GLIBC_2.9) a\n(GLIBC_2.17) b\n"),
                         (2, 17))  # numbers, not strings: 2.9 is older than 2.17
        with self.assertRaises(SystemExit) as caught:
            wheel_tags.newest_glibc("x", "(GLIBC_PRIVATE) __libc_x\n")
        self.assertIn("needs no versioned glibc symbol", str(caught.exception))

    def test_aarch64_library_gives_manylinux_aarch64(self) -> None:
        # A real aarch64 library from Debian's cross compiler: log() is log@GLIBC_2.29 there
        # too, memcpy GLIBC_2.17, aarch64's first glibc.
        gcc = shutil.which("aarch64-linux-gnu-gcc")
        if gcc is None:
            self.skipTest("no aarch64-linux-gnu-gcc (scripts/setup-deps.sh installs it)")
        source = os.path.join(self.tmp.name, "lib.c")
        library = os.path.join(self.tmp.name, "lib.so")
        with open(source, "w") as f:
            f.write("#include <math.h>\n#include <string.h>\n"
                    "double tg_log(double x, char *d, const char *s) "
                    "{ memcpy(d, s, (size_t)x); return log(x); }\n")
        subprocess.run([gcc, "-shared", "-fPIC", "-O1", "-o", library, source, "-lm"],
                       check=True)
        with open(library, "rb") as f:
            data = f.read()
        wheel = make_wheel(self.tmp.name, files={"traditional_games/__init__.py": b"#\n",
                                                 SO: data})
        retagged = wheel_tags.retag(wheel)
        self.assertEqual(os.path.basename(retagged),
                         "traditional_games-0.4.0-py3-none-manylinux_2_29_aarch64.whl")
        check_wheel.check_wheel(retagged, "py3-none-manylinux_2_29_aarch64",
                                "libtraditional-games.so.0")


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

    def test_elf_libraries(self) -> None:
        tag, name = "py3-none-manylinux_2_29_aarch64", "libtraditional-games.so.0"

        def check(library: bytes, wheel_tag: str = tag) -> str:
            with tempfile.TemporaryDirectory() as folder:
                wheel = make_wheel(folder, wheel_tag, files={SO: library})
                result: str = check_wheel.check_wheel(wheel, wheel_tag, name)
                return result

        self.assertIn("RECORD right for 2 files", check(fake_elf()))
        self.assertIn(name, check(fake_elf(machine=22, order=2),
                                  "py3-none-manylinux_2_17_s390x"))
        for library, message in (
                (fake_elf(machine=62), "not an ELF library for aarch64 (machine 62, class 2"),
                (fake_elf(elf_class=1), "(machine 183, class 1, byte order 1)"),
                (fake_elf(order=2), "(machine 183, class 2, byte order 2)"),
                (fake_elf(e_type=2), "not a shared library (ELF type 2)"),
                (fake_pe(), "not an ELF file")):
            with self.subTest(message), self.assertRaises(check_wheel.WheelProblem) as caught:
                check(library)
            self.assertIn(message, str(caught.exception))
        with self.assertRaises(check_wheel.WheelProblem) as caught:
            check(fake_elf(), "py3-none-manylinux_2_29_riscv64")
        self.assertIn("no ELF machine known for the tag's riscv64", str(caught.exception))

    def test_needed_libraries(self) -> None:
        tag, name = "py3-none-manylinux_2_34_x86_64", "libtraditional-games.so.0"

        def check(library: bytes, wheel_tag: str = tag) -> str:
            with tempfile.TemporaryDirectory() as folder:
                wheel = make_wheel(folder, wheel_tag, files={SO: library})
                result: str = check_wheel.check_wheel(wheel, wheel_tag, name)
                return result

        self.assertIn("needing libm.so.6, libc.so.6, RECORD right", check(fake_elf(machine=62)))
        self.assertIn("needing libpthread.so.0, libc.so.6,", check(fake_elf(
            machine=40, elf_class=1, needed=["libpthread.so.0", "libc.so.6"]),
            "py3-none-manylinux_2_17_armv7l"))
        self.assertIn("needing libc.so.6,", check(fake_elf(machine=22, order=2,
                                                           needed=["libc.so.6"]),
                                                  "py3-none-manylinux_2_17_s390x"))
        self.assertIn("needing nothing,", check(fake_elf(machine=62, needed=[])))
        for library, message in (
                (fake_elf(machine=62, needed=["libm.so.6", "libzstd.so.1", "libc.so.6"]),
                 "needs libzstd.so.1, outside the manylinux policy's libraries"),
                (fake_elf(machine=62, needed=["libzstd.so.1", "libcrypto.so.3"]),
                 "needs libzstd.so.1, libcrypto.so.3, outside"),
                # Big-endian and 32-bit dynamic sections are read as such.
                (fake_elf(machine=22, order=2, needed=["libzstd.so.1"]), "needs libzstd.so.1"),
                (fake_elf(machine=3, elf_class=1, needed=["libzstd.so.1"]), "needs libzstd.so.1"),
                (fake_elf(machine=62, dynamic=False), "has no dynamic segment"),
                (fake_elf(machine=62)[:100], "is truncated")):
            arch = {62: "x86_64", 22: "s390x", 3: "i686"}[struct.unpack_from(
                "<H" if library[5] == 1 else ">H", library, 18)[0]]
            with self.subTest(message), self.assertRaises(check_wheel.WheelProblem) as caught:
                check(library, "py3-none-manylinux_2_17_" + arch)
            self.assertIn(message, str(caught.exception))

    def test_real_library_needing_libzstd_is_refused(self) -> None:
        # Libraries made by the build machine's compiler, as the native wheel's is: one that
        # needs only libc and libm passes, one that also needs libzstd.so.1 (what the wheel's
        # library needed before it linked libzstd.a in) does not.
        gcc = shutil.which("gcc")
        if gcc is None:
            self.skipTest("no gcc")
        source = os.path.join(self.tmp.name, "lib.c")
        with open(source, "w") as f:
            f.write("#include <math.h>\ndouble tg_log(double x) { return log(x); }\n")
        tag, name = "py3-none-manylinux_2_29_x86_64", "libtraditional-games.so.0"
        cases: List[Tuple[List[str], Optional[str]]] = [([], None),
                                                        (["-lzstd"], "needs libzstd.so.1")]
        for extra, message in cases:
            library = os.path.join(self.tmp.name, "lib.so")
            subprocess.run([gcc, "-shared", "-fPIC", "-O1", "-o", library, source,
                            "-Wl,--no-as-needed", "-lm"] + extra, check=True)
            with open(library, "rb") as f:
                data = f.read()
            with self.subTest(message), tempfile.TemporaryDirectory() as folder:
                wheel = make_wheel(folder, tag, files={SO: data})
                if message is None:
                    self.assertIn("libm.so.6", check_wheel.check_wheel(wheel, tag, name))
                else:
                    with self.assertRaises(check_wheel.WheelProblem) as caught:
                        check_wheel.check_wheel(wheel, tag, name)
                    self.assertIn(message, str(caught.exception))

    def test_not_a_wheel(self) -> None:
        path = os.path.join(self.tmp.name, "traditional_games-0.4.0-%s.whl" % self.TAG)
        with open(path, "wb") as f:
            f.write(b"not a zip")
        with self.assertRaises(zipfile.BadZipFile):
            self.check(path)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:], verbosity=2)
