"""How the tg-server test files load one another (test-tg-server.py and the files it runs).

Their names have hyphens, so `import` cannot load them: each is loaded by path, as a module of
its own (with its own SERVER global, which the loading file sets). Run from this folder's
scripts, which put the folder first on sys.path.
"""
import importlib.util
import os
from types import ModuleType

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name: str, file: str) -> ModuleType:
    """The test file `file` of this folder, run as a fresh module called `name`."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
