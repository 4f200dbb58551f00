"""The package as installed: its version, which library it loads, and its type information.

TG_EXPECT_BUNDLED=1 (set by scripts/test.sh for the suite run from an installed wheel) makes
the bundled-library checks mandatory instead of skipped."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from typing import Dict, Optional

import traditional_games as tg
from traditional_games import _library

PACKAGE_DIR = os.path.dirname(os.path.abspath(tg.__file__))
EXPECT_BUNDLED = os.environ.get("TG_EXPECT_BUNDLED") == "1"


def run_python(code: str, env_changes: Dict[str, Optional[str]]) -> subprocess.CompletedProcess[str]:
    """code in a fresh interpreter that imports this copy of the package, with the environment
    changed as given (None removes a variable)."""
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    parent = os.path.dirname(PACKAGE_DIR)
    env["PYTHONPATH"] = parent + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)


class TestVersions(unittest.TestCase):
    def test_package_version(self) -> None:
        self.assertRegex(tg.__version__, r"^\d+\.\d+\.\d+$")
        project = os.environ.get("TG_PROJECT_VERSION")  # meson test passes meson.build's
        if project:
            self.assertEqual(tg.__version__, project)
        if EXPECT_BUNDLED:
            import importlib.metadata
            self.assertEqual(importlib.metadata.version("traditional-games"), tg.__version__)

    def test_library_version(self) -> None:
        text = tg.library_version()
        self.assertRegex(text, r"^\d+\.\d+\.\d+$")
        major, minor, patch = (int(x) for x in text.split("."))
        self.assertEqual(tg.library_version_number(), major * 10000 + minor * 100 + patch)
        self.assertEqual(major, _library.SUPPORTED_MAJOR)
        if EXPECT_BUNDLED:  # the library built with the package
            self.assertEqual(text, tg.__version__)


class TestWhichLibrary(unittest.TestCase):
    def bundled_or_skip(self) -> str:
        bundled = _library.bundled_library_path()
        if os.path.exists(bundled):
            return bundled
        if EXPECT_BUNDLED:
            self.fail("no library bundled at %s" % bundled)
        self.skipTest("a source checkout: no bundled library")

    def test_bundled_is_the_default(self) -> None:
        bundled = self.bundled_or_skip()
        self.assertEqual(os.path.dirname(bundled), PACKAGE_DIR)
        proc = run_python("import traditional_games as tg; print(tg.library_path())",
                          {"TG_LIBRARY": None})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), bundled)
        if EXPECT_BUNDLED and "TG_LIBRARY" not in os.environ:
            self.assertEqual(tg.library_path(), bundled)

    def test_bundled_wins_over_the_loader_search(self) -> None:
        self.bundled_or_skip()
        # A file of the library's name that is not a library, first on the loader's path: the
        # package must not even try it.
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "libtraditional-games.so.0"), "w") as f:
                f.write("not a library\n")
            proc = run_python("import traditional_games as tg; print(tg.library_version())",
                              {"TG_LIBRARY": None, "LD_LIBRARY_PATH": tmp})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), tg.library_version())

    def test_tg_library_overrides(self) -> None:
        loaded = tg.library_path()
        if not os.path.isfile(loaded):
            self.skipTest("the library was found by name, not by path: nothing to copy")
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "libtraditional-games-copy.so")
            shutil.copyfile(loaded, copy)
            proc = run_python("import traditional_games as tg; print(tg.library_path())",
                              {"TG_LIBRARY": copy})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), copy)

    def test_bundled_name_per_platform(self) -> None:
        # The names bindings/python/meson.build gives the copy: a Windows wheel (built by the
        # platform matrix, which has no Windows Python to run this) carries the DLL as mingw-w64
        # names it, and the package must look for that name there.
        expected = {"linux": "libtraditional-games.so.0",
                    "darwin": "libtraditional-games.0.dylib",
                    "win32": "libtraditional-games-0.dll"}
        for platform, name in expected.items():
            with unittest.mock.patch.object(sys, "platform", platform):
                self.assertEqual(_library.bundled_library_name(), name, platform)
                self.assertEqual(os.path.basename(_library.bundled_library_path()), name)

    def test_missing_library(self) -> None:
        missing = os.path.join(PACKAGE_DIR, "no-such-dir", "libnope.so")
        proc = run_python("import traditional_games\n", {"TG_LIBRARY": missing})
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("LibraryNotFoundError", proc.stderr)
        self.assertIn("TG_LIBRARY", proc.stderr)
        self.assertIn("libnope.so", proc.stderr)
        # The error is an ImportError that a program can catch.
        proc = run_python("try:\n    import traditional_games\nexcept ImportError as e:\n"
                          "    print('caught', type(e).__name__)\n", {"TG_LIBRARY": missing})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("caught LibraryNotFoundError", proc.stdout)


class TestWheel(unittest.TestCase):
    """The bundled library as a wheel carries it: stripped, and tagged for the glibc it needs
    (bindings/python/wheel-tags.py writes the tag from objdump -T; this reads readelf -V)."""

    def bundled_and_readelf(self) -> str:
        bundled = _library.bundled_library_path()
        if not os.path.exists(bundled):
            if EXPECT_BUNDLED:
                self.fail("no library bundled at %s" % bundled)
            self.skipTest("a source checkout: no bundled library")
        if sys.platform != "linux" or shutil.which("readelf") is None:
            self.skipTest("needs Linux and readelf")
        return bundled

    def readelf(self, *args: str) -> str:
        return subprocess.run(["readelf", *args, self.bundled_and_readelf()], check=True,
                              capture_output=True, text=True).stdout

    def test_bundled_library_is_stripped(self) -> None:
        sections = self.readelf("-S", "-W")
        self.assertIn(".dynsym", sections)     # what ctypes finds functions by
        self.assertNotIn(".symtab", sections)  # gone with strip
        self.assertNotIn(".debug_info", sections)

    def test_bundled_library_needs_only_glibc(self) -> None:
        # A manylinux wheel's library may need only what every Linux has; the endgame
        # databases' libzstd is linked in from libzstd.a (pyproject.toml's -Dstatic_zstd),
        # not needed as libzstd.so.1, which a user's Linux may lack.
        needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                                self.readelf("-d", "-W")))
        self.assertIn("libc.so.6", needed)
        glibc = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1"}
        self.assertLessEqual(needed, glibc)

    def test_platform_tag_is_the_glibc_the_library_needs(self) -> None:
        needs = self.readelf("-V", "-W")
        versions = [(int(a), int(b)) for a, b in re.findall(r"GLIBC_(\d+)\.(\d+)", needs)]
        self.assertTrue(versions, needs)
        major, minor = max(versions)
        if not EXPECT_BUNDLED:
            self.skipTest("not installed from a wheel: no WHEEL file to compare (newest "
                          "glibc symbol: GLIBC_%d.%d)" % (major, minor))
        import importlib.metadata
        wheel = importlib.metadata.distribution("traditional-games").read_text("WHEEL") or ""
        tags = re.findall(r"^Tag: (\S+)$", wheel, re.M)
        machine = os.uname().machine
        self.assertEqual(tags, ["py3-none-manylinux_%d_%d_%s" % (major, minor, machine)])


class TestTyping(unittest.TestCase):
    def test_py_typed_marker(self) -> None:
        # PEP 561: without it, type checkers ignore the package's inline hints.
        self.assertTrue(os.path.isfile(os.path.join(PACKAGE_DIR, "py.typed")))

    def test_every_declared_function_is_typed(self) -> None:
        self.assertEqual(set(_library.Api.__annotations__), set(_library.SIGNATURES))
        lib = ctypes.CDLL(tg.library_path())
        for name in _library.SIGNATURES:
            if name not in _library.OPTIONAL:
                self.assertTrue(hasattr(lib, "tg_" + name), name)

    def test_public_names(self) -> None:
        for name in tg.__all__:
            self.assertTrue(hasattr(tg, name), name)
        for name in ("Rules", "State", "Rng", "TGError", "IllegalMove"):
            self.assertEqual(getattr(tg, name).__module__, "traditional_games")
        self.assertTrue(re.match(r"\d", tg.__version__))


if __name__ == "__main__":
    unittest.main()
