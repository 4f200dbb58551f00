#!/usr/bin/env python3
"""Check a built wheel by its contents, for a platform other than the build machine's:

    python3 bindings/python/check-wheel.py WHEEL TAG LIBRARY [EXTRACT_TO]

e.g. `check-wheel.py dist/traditional_games-0.4.0-py3-none-win_amd64.whl py3-none-win_amd64
libtraditional-games-0.dll`. scripts/test-platforms.sh runs it on the Windows wheel, which wine
cannot test by installing (Debian has no Windows Python), and on the aarch64 wheel before
installing it under qemu-user. It requires:
- TAG as the file name's tag and as the WHEEL file's only Tag line;
- the library traditional_games/LIBRARY, and no other shared library (.so, .dylib, .dll);
- for a .dll, a PE32+ x86-64 DLL when TAG ends in win_amd64 (its PE header);
- for a .so and a manylinux TAG, an ELF shared library (ET_DYN) for the tag's machine: its
  ELF header's e_machine, class and byte order (aarch64: 183, 64-bit, little-endian);
- a RECORD that lists every other file of the wheel, each with its right sha256 and size.
With EXTRACT_TO, writes the library there, for checks with the target's tools (its exports).
Prints what it checked; exits non-zero, naming the first problem, otherwise.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import struct
import sys
import zipfile
from typing import Dict, List, Optional

SHARED_LIBRARY = re.compile(r"(\.so(\.\d+)*|\.dylib|\.dll|\.pyd)$")
PE32_PLUS = 0x20B  # the optional header's magic of a 64-bit image
PE_MACHINE_AMD64 = 0x8664
PE_DLL = 0x2000  # IMAGE_FILE_DLL


class WheelProblem(Exception):
    """What is wrong with the wheel."""


def check_pe_amd64_dll(name: str, data: bytes) -> None:
    """A 64-bit (PE32+) x86-64 DLL, from its headers."""
    if data[:2] != b"MZ" or len(data) < 0x40:
        raise WheelProblem("%s is not a PE file (no MZ header)" % name)
    (pe,) = struct.unpack_from("<I", data, 0x3C)
    if len(data) < pe + 26 or data[pe:pe + 4] != b"PE\0\0":
        raise WheelProblem("%s has no PE header" % name)
    machine, = struct.unpack_from("<H", data, pe + 4)
    characteristics, = struct.unpack_from("<H", data, pe + 22)
    magic, = struct.unpack_from("<H", data, pe + 24)
    if machine != PE_MACHINE_AMD64 or magic != PE32_PLUS:
        raise WheelProblem("%s is not PE32+ x86-64 (machine 0x%04x, magic 0x%03x)"
                           % (name, machine, magic))
    if not characteristics & PE_DLL:
        raise WheelProblem("%s is a Windows program, not a DLL" % name)


# The ELF header's (e_machine, EI_CLASS, EI_DATA) of each manylinux machine (PEP 599).
ELF_MACHINES = {"x86_64": (62, 2, 1), "aarch64": (183, 2, 1), "i686": (3, 1, 1),
                "armv7l": (40, 1, 1), "ppc64le": (21, 2, 1), "s390x": (22, 2, 2)}
ELF_SHARED_OBJECT = 3  # ET_DYN
MANYLINUX_TAG = re.compile(r"-manylinux_\d+_\d+_([a-z0-9_]+)$")


def check_elf_library(name: str, data: bytes, arch: str) -> None:
    """An ELF shared library for the manylinux machine arch, from its ELF header."""
    if len(data) < 20 or data[:4] != b"\x7fELF":
        raise WheelProblem("%s is not an ELF file (no ELF magic)" % name)
    if arch not in ELF_MACHINES:
        raise WheelProblem("no ELF machine known for the tag's %s" % arch)
    elf_class, order = data[4], data[5]
    e_type, machine = struct.unpack_from("<HH" if order == 1 else ">HH", data, 16)
    if (machine, elf_class, order) != ELF_MACHINES[arch]:
        raise WheelProblem("%s is not an ELF library for %s (machine %d, class %d, byte order %d)"
                           % (name, arch, machine, elf_class, order))
    if e_type != ELF_SHARED_OBJECT:
        raise WheelProblem("%s is not a shared library (ELF type %d)" % (name, e_type))


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def check_record(wheel: zipfile.ZipFile, record_name: str) -> int:
    """Every file but RECORD listed once with its hash and size; nothing listed that is absent.
    Returns the number of files checked."""
    rows = list(csv.reader(io.StringIO(wheel.read(record_name).decode("utf-8"))))
    listed: Dict[str, List[str]] = {}
    for row in rows:
        if not row:
            continue
        if len(row) != 3:
            raise WheelProblem("RECORD: malformed line %r" % ",".join(row))
        if row[0] in listed:
            raise WheelProblem("RECORD lists %s twice" % row[0])
        listed[row[0]] = row[1:]
    files = [n for n in wheel.namelist() if not n.endswith("/")]
    for name in files:
        if name == record_name:
            continue
        if name not in listed:
            raise WheelProblem("RECORD does not list %s" % name)
        data = wheel.read(name)
        digest, size = listed.pop(name)
        if digest != record_hash(data) or size != str(len(data)):
            raise WheelProblem("RECORD's hash or size of %s is wrong" % name)
    listed.pop(record_name, None)
    if listed:
        raise WheelProblem("RECORD lists files not in the wheel: %s" % ", ".join(sorted(listed)))
    return len(files) - 1


def check_wheel(path: str, tag: str, library: str, extract_to: Optional[str] = None) -> str:
    base = os.path.basename(path)
    m = re.match(r"^([^-]+)-([^-]+)-(.+)\.whl$", base)
    if not m:
        raise WheelProblem("not a wheel file name: %s" % base)
    if m.group(3) != tag:
        raise WheelProblem("%s: the file name's tag is %s, not %s" % (base, m.group(3), tag))
    dist_info = "%s-%s.dist-info/" % (m.group(1), m.group(2))
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        if dist_info + "WHEEL" not in names or dist_info + "RECORD" not in names:
            raise WheelProblem("%s has no %sWHEEL or RECORD" % (base, dist_info))
        tags = re.findall(r"^Tag: (\S+)$", wheel.read(dist_info + "WHEEL").decode(), re.M)
        if tags != [tag]:
            raise WheelProblem("WHEEL's tags are %s, not [%s]" % (tags, tag))
        wanted = "traditional_games/" + library
        libraries = sorted(n for n in names if SHARED_LIBRARY.search(n))
        if libraries != [wanted]:
            raise WheelProblem("shared libraries in the wheel: %s; expected only %s"
                               % (libraries, wanted))
        data = wheel.read(wanted)
        manylinux = MANYLINUX_TAG.search(tag)
        if library.endswith(".dll") and tag.endswith("win_amd64"):
            check_pe_amd64_dll(wanted, data)
        elif ".so" in library and manylinux:
            check_elf_library(wanted, data, manylinux.group(1))
        count = check_record(wheel, dist_info + "RECORD")
    if extract_to:
        with open(extract_to, "wb") as f:
            f.write(data)
    return "%s: tag %s, %s (%d bytes) alone, RECORD right for %d files" % (
        base, tag, library, len(data), count)


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        raise SystemExit("usage: check-wheel.py WHEEL TAG LIBRARY [EXTRACT_TO]")
    try:
        print(check_wheel(*sys.argv[1:]))
    except (WheelProblem, zipfile.BadZipFile, OSError) as e:
        raise SystemExit("check-wheel.py: %s" % e)
