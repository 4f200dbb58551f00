#!/usr/bin/env python3
"""Give a built wheel the tags its contents need, and rename it to match:

    python3 bindings/python/wheel-tags.py dist/traditional_games-*.whl

The package is ctypes over a shared library: no extension module, so it runs on any Python 3
(`py3-none`), but only on a platform the bundled library loads on. meson-python 0.12 (Debian
12's) tags every wheel that installs into platlib as one CPython version's
(`cp311-cp311-linux_x86_64`), and has no setting for this case, so the tags are rewritten
here, the way `wheel tags` would: the WHEEL file's Tag line, its line in RECORD, the file name.

The platform tag is computed from the library itself, so that a cross build (whose Python,
and so meson-python's tag, is the build machine's) is tagged for the machine it was built for:
- an ELF library gives `manylinux_X_Y_ARCH`: ARCH from the machine in its ELF header (x86_64,
  aarch64, ...), GLIBC_X.Y the newest glibc symbol version it needs, e.g. log@GLIBC_2.29 gives
  manylinux_2_29_x86_64. The versions are read with `objdump -T`, the target's own
  (aarch64-linux-gnu-objdump, from binutils-aarch64-linux-gnu) where it is installed, else the
  build machine's, which reads any ELF's dynamic symbols but names a foreign one's format only
  "elf64-little": hence the machine from the header, not from objdump;
- a Windows DLL (libtraditional-games-0.dll, from cross/x86_64-w64-mingw32.txt) gives the tag of
  the machine in its PE header: `win_amd64` for x86-64.
Prints the new wheel's path.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from typing import List, Optional, Tuple

LIBRARY = re.compile(r"^traditional_games/libtraditional-games(\.so\.\d+|-\d+\.dll)$")

# The ELF header's (e_machine, EI_CLASS, EI_DATA) as the manylinux platform tags name the
# machines (PEP 599), with the GNU triplet of each one's binutils.
ELF_MACHINES = {(62, 2, 1): ("x86_64", "x86_64-linux-gnu"),
                (183, 2, 1): ("aarch64", "aarch64-linux-gnu"),
                (3, 1, 1): ("i686", "i686-linux-gnu"),
                (40, 1, 1): ("armv7l", "arm-linux-gnueabihf"),
                (21, 2, 1): ("ppc64le", "powerpc64le-linux-gnu"),
                (22, 2, 2): ("s390x", "s390x-linux-gnu")}
ELF_CLASSES = {1: "32-bit", 2: "64-bit"}
ELF_ORDERS = {1: "little-endian", 2: "big-endian"}


def elf_machine(library: str, data: bytes) -> Tuple[str, str]:
    """The manylinux name of an ELF library's machine and its GNU triplet, from the header:
    e_machine (offset 18, in the file's own byte order), the class and the byte order."""
    if len(data) < 20 or data[:4] != b"\x7fELF":
        raise SystemExit("wheel-tags.py: %s: neither a Windows DLL nor an ELF library" % library)
    elf_class, order = data[4], data[5]
    if elf_class not in ELF_CLASSES or order not in ELF_ORDERS:
        raise SystemExit("wheel-tags.py: %s: bad ELF class %d or byte order %d"
                         % (library, elf_class, order))
    (machine,) = struct.unpack_from("<H" if order == 1 else ">H", data, 18)
    if (machine, elf_class, order) not in ELF_MACHINES:
        raise SystemExit("wheel-tags.py: %s: no manylinux tag for ELF machine %d (%s, %s)"
                         % (library, machine, ELF_CLASSES[elf_class], ELF_ORDERS[order]))
    return ELF_MACHINES[(machine, elf_class, order)]


def newest_glibc(library: str, objdump_output: str) -> Tuple[int, int]:
    """The newest GLIBC_X.Y among the versions objdump -T lists (GLIBC_PRIVATE aside)."""
    versions = [(int(a), int(b))
                for a, b in re.findall(r"\bGLIBC_(\d+)\.(\d+)\b", objdump_output)]
    if not versions:
        raise SystemExit("wheel-tags.py: %s: needs no versioned glibc symbol: not a library "
                         "linked against glibc" % library)
    return max(versions)


def glibc_needed(library: str, triplet: str) -> Tuple[int, int]:
    """The newest GLIBC_X.Y version among the library's dynamic symbols, read with the
    target's objdump if it is installed, else the build machine's."""
    objdump = shutil.which(triplet + "-objdump") or shutil.which("objdump")
    if objdump is None:
        raise SystemExit("wheel-tags.py: neither %s-objdump nor objdump found (binutils)"
                         % triplet)
    proc = subprocess.run([objdump, "-T", library], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("wheel-tags.py: %s: %s -T failed: %s"
                         % (library, objdump, proc.stderr.strip()))
    return newest_glibc(library, proc.stdout)


# The PE header's Machine field, as the wheel platform tags name Windows machines.
PE_MACHINES = {0x8664: "win_amd64", 0xAA64: "win_arm64", 0x014C: "win32"}
PE_DLL = 0x2000  # IMAGE_FILE_DLL in the header's Characteristics


def pe_platform(library: str, data: bytes) -> str:
    """The platform tag of a Windows DLL, from its PE header (the COFF header after the "PE"
    signature, whose offset the DOS header gives at 0x3c)."""
    if len(data) < 0x40:
        raise SystemExit("wheel-tags.py: %s: truncated DOS header" % library)
    (pe_offset,) = struct.unpack_from("<I", data, 0x3C)
    if len(data) < pe_offset + 24 or data[pe_offset:pe_offset + 4] != b"PE\0\0":
        raise SystemExit("wheel-tags.py: %s: no PE header" % library)
    machine, = struct.unpack_from("<H", data, pe_offset + 4)
    characteristics, = struct.unpack_from("<H", data, pe_offset + 22)
    if not characteristics & PE_DLL:
        raise SystemExit("wheel-tags.py: %s: a Windows program, not a DLL" % library)
    if machine not in PE_MACHINES:
        raise SystemExit("wheel-tags.py: %s: unknown PE machine 0x%04x" % (library, machine))
    return PE_MACHINES[machine]


def platform_tag(library: str) -> str:
    with open(library, "rb") as f:
        data = f.read()
    if data[:2] == b"MZ":
        return pe_platform(library, data)
    arch, triplet = elf_machine(library, data)
    major, minor = glibc_needed(library, triplet)
    return "manylinux_%d_%d_%s" % (major, minor, arch)


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def retag(wheel: str) -> str:
    with zipfile.ZipFile(wheel) as zin:
        names = zin.namelist()
        libs = [n for n in names if LIBRARY.match(n)]
        if len(libs) != 1:
            raise SystemExit("wheel-tags.py: expected one bundled library in %s, found %s"
                             % (wheel, libs))
        with tempfile.TemporaryDirectory() as tmp:
            lib_path = os.path.join(tmp, "lib.so")
            with open(lib_path, "wb") as f:
                f.write(zin.read(libs[0]))
            tag = "py3-none-" + platform_tag(lib_path)
        base = os.path.basename(wheel)
        m = re.match(r"^([^-]+)-([^-]+)-.+\.whl$", base)
        if not m:
            raise SystemExit("wheel-tags.py: not a wheel file name: %s" % base)
        target = os.path.join(os.path.dirname(wheel), "%s-%s-%s.whl" % (m.group(1), m.group(2),
                                                                         tag))
        dist_info = "%s-%s.dist-info/" % (m.group(1), m.group(2))
        wheel_name, record_name = dist_info + "WHEEL", dist_info + "RECORD"
        new_wheel: Optional[bytes] = None
        new_record: List[str] = []
        tmp_target = target + ".part"
        with zipfile.ZipFile(tmp_target, "w", zipfile.ZIP_DEFLATED) as zout:
            for info in zin.infolist():
                data = zin.read(info)
                if info.filename == wheel_name:
                    lines = [ln for ln in data.decode().splitlines() if not ln.startswith("Tag:")]
                    lines.append("Tag: " + tag)
                    data = new_wheel = ("\n".join(lines) + "\n").encode()
                elif info.filename == record_name:
                    for ln in data.decode().splitlines():
                        if ln.startswith(wheel_name + ","):
                            continue
                        new_record.append(ln)
                    continue  # written last, with the new WHEEL's hash
                zout.writestr(info, data)
            if new_wheel is None:
                raise SystemExit("wheel-tags.py: %s has no %s" % (wheel, wheel_name))
            rec = [ln for ln in new_record if not ln.startswith(record_name + ",")]
            rec += [record_line(wheel_name, new_wheel), record_name + ",,"]
            zout.writestr(zin.getinfo(record_name), "\n".join(rec) + "\n")
    os.replace(tmp_target, target)
    if os.path.abspath(target) != os.path.abspath(wheel):
        os.remove(wheel)
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: wheel-tags.py WHEEL")
    print(retag(sys.argv[1]))
