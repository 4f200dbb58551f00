"""Finding and loading the shared library, and declaring each function the package calls."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from ctypes import (POINTER, c_bool, c_char_p, c_double, c_int, c_size_t, c_uint, c_uint32,
                    c_uint64, c_void_p)
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Union

if TYPE_CHECKING:
    from ctypes import Array, _CArgObject, c_char

    # What the C functions take, for Api's annotations (checked by mypy, never evaluated).
    CHandle = Union[c_void_p, int, None]
    OutPtr = _CArgObject
    MoveBuf = Array[c_uint32]
    DoubleBuf = Array[c_double]
    TextBuf = Array[c_char]
    TextFunction = Callable[[CHandle, Optional[TextBuf], int, Optional[OutPtr]], int]

# The SONAME's number: a library of another major version has another ABI.
SUPPORTED_MAJOR = 0


class LibraryNotFoundError(ImportError):
    """The shared library could not be loaded, or is not a compatible version."""


def bundled_library_name() -> str:
    """The file name the build gives the copy of the library inside the package (it matches
    the name in bindings/python/meson.build)."""
    if sys.platform == "darwin":
        return "libtraditional-games.%d.dylib" % SUPPORTED_MAJOR
    if sys.platform == "win32":
        # The DLL's name as mingw-w64 builds it (lib prefix, major version after a hyphen).
        return "libtraditional-games-%d.dll" % SUPPORTED_MAJOR
    return "libtraditional-games.so.%d" % SUPPORTED_MAJOR


def bundled_library_path() -> str:
    """Where a wheel or `pip install` puts the library: beside this module."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), bundled_library_name())


def _load() -> Tuple[ctypes.CDLL, str]:
    env = os.environ.get("TG_LIBRARY")
    if env:
        # An explicit choice is honoured or reported, never silently replaced by another copy.
        try:
            return ctypes.CDLL(env), env
        except OSError as e:
            raise LibraryNotFoundError(
                "libtraditional-games: cannot load TG_LIBRARY=%r: %s" % (env, e)) from None
    bundled = bundled_library_path()
    if os.path.exists(bundled):
        # By absolute path, so the loader's search (LD_LIBRARY_PATH, ldconfig) cannot put an
        # installed library of another version in place of the one built with this package.
        # On Windows the DLL imports only KERNEL32.dll and msvcrt.dll, which the system
        # directory holds: no os.add_dll_directory is needed for its dependencies.
        try:
            return ctypes.CDLL(bundled), bundled
        except OSError as e:
            raise LibraryNotFoundError(
                "libtraditional-games: the package's own copy %r does not load: %s"
                % (bundled, e)) from None
    # A source checkout has no bundled copy: use the C library installed on the system.
    tried = []
    candidates = []
    found = ctypes.util.find_library("traditional-games")
    if found:
        candidates.append(found)
    candidates.append("libtraditional-games-%d.dll" % SUPPORTED_MAJOR if sys.platform == "win32"
                      else "libtraditional-games.so.%d" % SUPPORTED_MAJOR)
    for name in candidates:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            tried.append("%s (%s)" % (name, e))
    raise LibraryNotFoundError(
        "libtraditional-games: shared library not found; set TG_LIBRARY to the path of "
        "%s (tried: %s)" % ("libtraditional-games-%d.dll" % SUPPORTED_MAJOR
                            if sys.platform == "win32" else "libtraditional-games.so",
                            "; ".join(tried)))


_p = c_void_p
_pp = POINTER(c_void_p)
_u64p = POINTER(c_uint64)
_sizep = POINTER(c_size_t)
_movep = POINTER(c_uint32)

# name without "tg_": (restype, argtypes). Every C function this package calls, and only those.
SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "status_string": (c_char_p, [c_int]),
    "version": (c_uint, []),
    "version_string": (c_char_p, []),
    "game_count": (c_size_t, []),
    "game_id": (c_char_p, [c_size_t]),
    "game_name": (c_char_p, [c_size_t]),
    "game_option_count": (c_size_t, [c_size_t]),
    "game_option_key": (c_char_p, [c_size_t, c_size_t]),
    "game_option_values": (c_char_p, [c_size_t, c_size_t]),
    "game_option_default": (c_char_p, [c_size_t, c_size_t]),
    "rules_new": (c_int, [c_char_p, _pp]),
    "rules_free": (None, [_p]),
    "rules_spec": (c_char_p, [_p]),
    "rules_game_id": (c_char_p, [_p]),
    "rules_rows": (c_int, [_p]),
    "rules_cols": (c_int, [_p]),
    "rules_max_moves": (c_size_t, [_p]),
    "state_new": (c_int, [_p, _pp]),
    "state_clone": (c_int, [_p, _pp]),
    "state_copy": (c_int, [_p, _p]),
    "state_free": (None, [_p]),
    "state_rules": (_p, [_p]),
    "state_player": (c_int, [_p]),
    "state_turn": (c_int, [_p]),
    "state_is_terminal": (c_bool, [_p]),
    "state_winner": (c_int, [_p]),
    "state_score": (c_int, [_p, c_int]),
    "state_returns": (c_int, [_p, POINTER(c_double)]),
    "state_ply": (c_size_t, [_p]),
    "state_history": (c_int, [_p, _movep, c_size_t, _sizep]),
    "state_moves": (c_int, [_p, _movep, c_size_t, _sizep]),
    "state_chance": (c_int, [_p, _movep, POINTER(c_double), c_size_t, _sizep]),
    "state_is_legal": (c_bool, [_p, c_uint32]),
    "state_apply": (c_int, [_p, c_uint32]),
    "state_undo": (c_int, [_p]),
    "state_apply_random": (c_int, [_p, _u64p]),
    "state_count": (c_int, [_p, c_int, c_int]),
    "state_owner": (c_int, [_p, c_int, c_int]),
    "state_flags": (c_uint, [_p, c_int, c_int]),
    "move_to_string": (c_int, [_p, c_uint32, c_char_p, c_size_t, _sizep]),
    "move_from_string": (c_int, [_p, c_char_p, _movep]),
    "state_to_string": (c_int, [_p, c_char_p, c_size_t, _sizep]),
    "state_from_string": (c_int, [_p, c_char_p, _pp]),
    "state_render": (c_int, [_p, c_char_p, c_size_t, _sizep]),
    "state_hash": (c_uint64, [_p]),
    "state_equal": (c_bool, [_p, _p]),
    "state_playout": (c_int, [_p, _u64p, c_size_t, _sizep]),
    "perft": (c_uint64, [_p, c_uint]),
    # Added in 0.2.0 (symbol version TG_0.2): optional, so that a 0.1 library still loads.
    "bot_choose": (c_int, [_p, c_char_p, _u64p, _movep]),
    "bot_check": (c_int, [c_char_p]),
    # Added in 0.4.0 (symbol version TG_0.3): stories, end reasons, records.
    "state_story": (c_int, [_p, c_size_t, _movep, c_size_t, _sizep]),
    "state_end_reason": (c_int, [_p]),
    "end_reason_name": (c_char_p, [c_int]),
    "state_record": (c_int, [_p, c_char_p, c_char_p, c_size_t, _sizep]),
    "state_from_record": (c_int, [c_char_p, _pp]),
    # Added in 0.4.0: stoppable searches and analysis.
    "search_new": (c_int, [c_char_p, _pp]),
    "search_free": (None, [_p]),
    "search_choose": (c_int, [_p, _p, _u64p, _movep]),
    "search_analyse": (c_int, [_p, _p, _u64p]),
    "search_result_count": (c_size_t, [_p]),
    "search_result": (c_int, [_p, c_size_t, _movep, POINTER(c_double), POINTER(c_bool)]),
    "search_result_line": (c_int, [_p, c_size_t, c_char_p, c_size_t, _sizep]),
    "search_stats": (c_int, [_p, _u64p, POINTER(c_uint32)]),
    "search_stop": (c_int, [_p]),
    # Added in 0.5.0 (symbol version TG_0.5; native builds): endgame databases.
    "egtb_status_string": (c_char_p, [c_int]),
    "egtb_build": (c_int, [_p, c_char_p, c_int, c_uint, _p, _p]),
    "egtb_open": (c_int, [c_char_p, _p, _pp]),
    "egtb_close": (None, [_p]),
    "egtb_max_counters": (c_int, [_p]),
    "egtb_reader_new": (c_int, [_p, _pp]),
    "egtb_reader_probe": (c_int, [_p, _p, _p]),
    "egtb_reader_free": (None, [_p]),
    "search_set_egtb": (c_int, [_p, _p]),
    "search_egtb_status": (c_int, [_p]),
    "search_result_exact": (c_int, [_p, c_size_t, _p, POINTER(c_bool)]),
}
# The release that added each function the package can do without (a library of an older
# release still loads; the methods that need one raise NotImplementedError).
ADDED_IN = {"bot_choose": "0.2.0", "bot_check": "0.2.0", "state_story": "0.4.0",
            "state_end_reason": "0.4.0", "end_reason_name": "0.4.0", "state_record": "0.4.0",
            "state_from_record": "0.4.0", "search_new": "0.4.0", "search_free": "0.4.0",
            "search_choose": "0.4.0", "search_analyse": "0.4.0", "search_result_count": "0.4.0",
            "search_result": "0.4.0", "search_result_line": "0.4.0", "search_stats": "0.4.0",
            "search_stop": "0.4.0", "egtb_status_string": "0.5.0", "egtb_build": "0.5.0",
            "egtb_open": "0.5.0",
            "egtb_close": "0.5.0", "egtb_max_counters": "0.5.0", "egtb_reader_new": "0.5.0",
            "egtb_reader_probe": "0.5.0", "egtb_reader_free": "0.5.0",
            "search_set_egtb": "0.5.0", "search_egtb_status": "0.5.0",
            "search_result_exact": "0.5.0"}
OPTIONAL = frozenset(ADDED_IN)


class Api:
    """The C functions with the Python types they take and return, so that mypy checks every
    call. A handle is a c_void_p, or the int (None for NULL) that ctypes returns for one; an
    out-parameter is a byref() of a ctypes scalar; buffers are ctypes arrays."""

    status_string: Callable[[int], bytes]
    version: Callable[[], int]
    version_string: Callable[[], bytes]
    game_count: Callable[[], int]
    game_id: Callable[[int], bytes]
    game_name: Callable[[int], bytes]
    game_option_count: Callable[[int], int]
    game_option_key: Callable[[int, int], bytes]
    game_option_values: Callable[[int, int], bytes]
    game_option_default: Callable[[int, int], bytes]
    rules_new: Callable[[bytes, OutPtr], int]
    rules_free: Callable[[CHandle], None]
    rules_spec: Callable[[CHandle], bytes]
    rules_game_id: Callable[[CHandle], bytes]
    rules_rows: Callable[[CHandle], int]
    rules_cols: Callable[[CHandle], int]
    rules_max_moves: Callable[[CHandle], int]
    state_new: Callable[[CHandle, OutPtr], int]
    state_clone: Callable[[CHandle, OutPtr], int]
    state_copy: Callable[[CHandle, CHandle], int]
    state_free: Callable[[CHandle], None]
    state_rules: Callable[[CHandle], Optional[int]]
    state_player: Callable[[CHandle], int]
    state_turn: Callable[[CHandle], int]
    state_is_terminal: Callable[[CHandle], bool]
    state_winner: Callable[[CHandle], int]
    state_score: Callable[[CHandle, int], int]
    state_returns: Callable[[CHandle, DoubleBuf], int]
    state_ply: Callable[[CHandle], int]
    state_history: Callable[[CHandle, Optional[MoveBuf], int, OutPtr], int]
    state_moves: Callable[[CHandle, Optional[MoveBuf], int, OutPtr], int]
    state_chance: Callable[[CHandle, Optional[MoveBuf], Optional[DoubleBuf], int, OutPtr], int]
    state_is_legal: Callable[[CHandle, int], bool]
    state_apply: Callable[[CHandle, int], int]
    state_undo: Callable[[CHandle], int]
    state_apply_random: Callable[[CHandle, OutPtr], int]
    state_count: Callable[[CHandle, int, int], int]
    state_owner: Callable[[CHandle, int, int], int]
    state_flags: Callable[[CHandle, int, int], int]
    move_to_string: Callable[[CHandle, int, Optional[TextBuf], int, Optional[OutPtr]], int]
    move_from_string: Callable[[CHandle, bytes, OutPtr], int]
    state_to_string: TextFunction
    state_from_string: Callable[[CHandle, bytes, OutPtr], int]
    state_render: TextFunction
    state_hash: Callable[[CHandle], int]
    state_equal: Callable[[CHandle, CHandle], bool]
    state_playout: Callable[[CHandle, OutPtr, int, Optional[OutPtr]], int]
    perft: Callable[[CHandle, int], int]
    bot_choose: Optional[Callable[[CHandle, bytes, OutPtr, OutPtr], int]]
    bot_check: Optional[Callable[[bytes], int]]
    state_story: Optional[Callable[[CHandle, int, Optional[MoveBuf], int, OutPtr], int]]
    state_end_reason: Optional[Callable[[CHandle], int]]
    end_reason_name: Optional[Callable[[int], bytes]]
    state_record: Optional[Callable[[CHandle, Optional[bytes], Optional[TextBuf], int,
                                     Optional[OutPtr]], int]]
    state_from_record: Optional[Callable[[bytes, OutPtr], int]]
    search_new: Optional[Callable[[bytes, OutPtr], int]]
    search_free: Optional[Callable[[CHandle], None]]
    search_choose: Optional[Callable[[CHandle, CHandle, OutPtr, OutPtr], int]]
    search_analyse: Optional[Callable[[CHandle, CHandle, OutPtr], int]]
    search_result_count: Optional[Callable[[CHandle], int]]
    search_result: Optional[Callable[[CHandle, int, OutPtr, OutPtr, OutPtr], int]]
    search_result_line: Optional[Callable[[CHandle, int, Optional[TextBuf], int,
                                           Optional[OutPtr]], int]]
    search_stats: Optional[Callable[[CHandle, OutPtr, OutPtr], int]]
    search_stop: Optional[Callable[[CHandle], int]]
    egtb_status_string: Optional[Callable[[int], bytes]]
    egtb_build: Optional[Callable[[CHandle, bytes, int, int, None, None], int]]
    egtb_open: Optional[Callable[[bytes, CHandle, OutPtr], int]]
    egtb_close: Optional[Callable[[CHandle], None]]
    egtb_max_counters: Optional[Callable[[CHandle], int]]
    egtb_reader_new: Optional[Callable[[CHandle, OutPtr], int]]
    egtb_reader_probe: Optional[Callable[[CHandle, CHandle, OutPtr], int]]
    egtb_reader_free: Optional[Callable[[CHandle], None]]
    search_set_egtb: Optional[Callable[[CHandle, CHandle], int]]
    search_egtb_status: Optional[Callable[[CHandle], int]]
    search_result_exact: Optional[Callable[[CHandle, int, OutPtr, OutPtr], int]]


def _bind(lib: ctypes.CDLL, path: str) -> Api:
    api = Api()
    missing = []
    for name, (restype, argtypes) in SIGNATURES.items():
        try:
            fn = getattr(lib, "tg_" + name)
        except AttributeError:
            if name not in OPTIONAL:
                missing.append("tg_" + name)
            setattr(api, name, None)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
        setattr(api, name, fn)
    if missing:
        raise LibraryNotFoundError("libtraditional-games at %r lacks %s"
                                   % (path, ", ".join(missing)))
    major = api.version() // 10000
    if major != SUPPORTED_MAJOR:
        raise LibraryNotFoundError(
            "libtraditional-games at %r is version %s; this package needs major version %d"
            % (path, api.version_string().decode(), SUPPORTED_MAJOR))
    return api


_lib, LIBRARY_PATH = _load()
tg = _bind(_lib, LIBRARY_PATH)


def library_version() -> str:
    """The loaded C library's version as text, e.g. "0.2.0" (tg_version_string)."""
    return tg.version_string().decode("ascii")


def library_version_number() -> int:
    """The loaded C library's version as MAJOR*10000 + MINOR*100 + PATCH (tg_version)."""
    return tg.version()


def library_path() -> str:
    """The path (or, found through the loader's search, the name) the library was loaded
    from: TG_LIBRARY if set, else the package's bundled copy, else the system's."""
    return LIBRARY_PATH
