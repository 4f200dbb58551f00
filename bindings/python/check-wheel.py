#!/usr/bin/env python3
"""Check a built wheel by its contents, whatever platform it is for:

    python3 bindings/python/check-wheel.py WHEEL TAG LIBRARY [EXTRACT_TO]

e.g. `check-wheel.py dist/traditional_games-0.4.0-py3-none-win_amd64.whl py3-none-win_amd64
libtraditional-games-0.dll`. scripts/test-platforms.sh runs it on the Windows wheel, which wine
cannot test by installing (Debian has no Windows Python), and on the aarch64 wheel before
installing it under qemu-user; bindings/python/test-wheel.sh on the native wheel before
installing it. It requires:
- TAG as the file name's tag and as the WHEEL file's only Tag line;
- the library traditional_games/LIBRARY, and no other shared library (.so, .dylib, .dll);
- for a .dll, a PE32+ x86-64 DLL when TAG ends in win_amd64 (its PE header);
- for a .so and a manylinux TAG, an ELF shared library (ET_DYN) for the tag's machine: its
  ELF header's e_machine, class and byte order (aarch64: 183, 64-bit, little-endian); and
  one that needs (DT_NEEDED, read from its dynamic section) only libraries of the manylinux
  policy's list (MANYLINUX_LIBRARIES below): a manylinux wheel must load on any Linux with a
  new enough glibc, which need not have libzstd.so.1, say;
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
from typing import Dict, List, Optional, Tuple

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


# The libraries a manylinux library may need without carrying them, as PEP 599 lists them
# for manylinux2014 and auditwheel's policy (its policy.json, "lib_whitelist") keeps for every
# manylinux_X_Y tag since (PEP 600 makes auditwheel's policy the definition): glibc's own
# libraries, libgcc_s, libstdc++, and the X11, OpenGL and GLib ones a desktop has. Anything
# else (libzstd.so.1, say) must be linked in or carried inside the wheel.
MANYLINUX_LIBRARIES = frozenset({
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libutil.so.1",
    "libnsl.so.1", "libresolv.so.2", "libgcc_s.so.1", "libstdc++.so.6",
    "libX11.so.6", "libXext.so.6", "libXrender.so.1", "libICE.so.6", "libSM.so.6",
    "libGL.so.1", "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0"})
PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5


def elf_needed(name: str, data: bytes) -> List[str]:
    """The libraries an ELF shared library needs (its DT_NEEDED entries, in order), read from
    the dynamic segment, whose string table is found by its address through the PT_LOAD
    segments. The header is known to be ELF of a known class and byte order."""
    order = "<" if data[5] == 1 else ">"
    wide = data[4] == 2
    word, sword = (order + "Q", order + "q") if wide else (order + "I", order + "i")

    def unpack(fmt: str, offset: int) -> int:
        if offset < 0 or offset + struct.calcsize(fmt) > len(data):
            raise WheelProblem("%s is truncated (offset %d)" % (name, offset))
        (value,) = struct.unpack_from(fmt, data, offset)
        return int(value)

    phoff = unpack(word, 32 if wide else 28)
    phentsize = unpack(order + "H", 54 if wide else 42)
    phnum = unpack(order + "H", 56 if wide else 44)
    loads: List[Tuple[int, int, int]] = []  # (address, file offset, size in the file)
    dynamic: Optional[Tuple[int, int]] = None  # (file offset, size)
    for i in range(phnum):
        at = phoff + i * phentsize
        p_type = unpack(order + "I", at)
        if wide:
            p_offset, p_vaddr, p_filesz = (unpack(word, at + 8), unpack(word, at + 16),
                                           unpack(word, at + 32))
        else:
            p_offset, p_vaddr, p_filesz = (unpack(word, at + 4), unpack(word, at + 8),
                                           unpack(word, at + 16))
        if p_type == PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        raise WheelProblem("%s has no dynamic segment: not a shared library one can load" % name)
    entry = 16 if wide else 8
    needed_offsets: List[int] = []
    strtab_address: Optional[int] = None
    for at in range(dynamic[0], dynamic[0] + dynamic[1] - entry + 1, entry):
        tag, value = unpack(sword, at), unpack(word, at + entry // 2)
        if tag == DT_NULL:
            break
        if tag == DT_NEEDED:
            needed_offsets.append(value)
        elif tag == DT_STRTAB:
            strtab_address = value
    if not needed_offsets:
        return []
    strtab = next((offset + strtab_address - address for address, offset, size in loads
                   if strtab_address is not None and address <= strtab_address < address + size),
                  None)
    if strtab is None:
        raise WheelProblem("%s: its dynamic string table is in no loaded segment" % name)
    names = []
    for offset in needed_offsets:
        start = strtab + offset
        end = data.find(b"\0", start)
        if start >= len(data) or end < 0:
            raise WheelProblem("%s is truncated (a needed library's name)" % name)
        names.append(data[start:end].decode("utf-8", "replace"))
    return names


def check_elf_library(name: str, data: bytes, arch: str) -> List[str]:
    """An ELF shared library for the manylinux machine arch, from its ELF header, that needs
    only the libraries the manylinux policy allows. Returns those it needs."""
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
    needed = elf_needed(name, data)
    outside = [lib for lib in needed if lib not in MANYLINUX_LIBRARIES]
    if outside:
        raise WheelProblem("%s needs %s, outside the manylinux policy's libraries: link it in "
                           "(pyproject.toml's -Dstatic_zstd=true for libzstd) or carry it"
                           % (name, ", ".join(outside)))
    return needed


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
        needs = ""
        if library.endswith(".dll") and tag.endswith("win_amd64"):
            check_pe_amd64_dll(wanted, data)
        elif ".so" in library and manylinux:
            needs = " needing %s," % (", ".join(check_elf_library(wanted, data,
                                                                  manylinux.group(1))) or "nothing")
        count = check_record(wheel, dist_info + "RECORD")
    if extract_to:
        with open(extract_to, "wb") as f:
            f.write(data)
    return "%s: tag %s, %s (%d bytes) alone,%s RECORD right for %d files" % (
        base, tag, library, len(data), needs, count)


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        raise SystemExit("usage: check-wheel.py WHEEL TAG LIBRARY [EXTRACT_TO]")
    try:
        print(check_wheel(*sys.argv[1:]))
    except (WheelProblem, zipfile.BadZipFile, OSError) as e:
        raise SystemExit("check-wheel.py: %s" % e)
