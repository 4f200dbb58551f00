"""The C library called directly, independently of the package: its own ctypes declarations,
its own states. Tests play the same seeded games here and through the package and compare."""

from __future__ import annotations

import ctypes
from ctypes import (POINTER, byref, c_bool, c_char_p, c_double, c_int, c_size_t, c_uint32,
                    c_uint64, c_void_p)
from typing import List, Optional, Sequence, Tuple

import traditional_games as tg

_lib = ctypes.CDLL(tg.library_path())
_pp = POINTER(c_void_p)
_sizep = POINTER(c_size_t)

_DECL = {
    "tg_rules_new": (c_int, [c_char_p, _pp]),
    "tg_rules_free": (None, [c_void_p]),
    "tg_state_new": (c_int, [c_void_p, _pp]),
    "tg_state_free": (None, [c_void_p]),
    "tg_state_apply": (c_int, [c_void_p, c_uint32]),
    "tg_state_from_string": (c_int, [c_void_p, c_char_p, _pp]),
    "tg_state_story": (c_int, [c_void_p, c_size_t, POINTER(c_uint32), c_size_t, _sizep]),
    "tg_state_end_reason": (c_int, [c_void_p]),
    "tg_end_reason_name": (c_char_p, [c_int]),
    "tg_state_record": (c_int, [c_void_p, c_char_p, c_char_p, c_size_t, _sizep]),
    "tg_bot_choose": (c_int, [c_void_p, c_char_p, POINTER(c_uint64), POINTER(c_uint32)]),
    "tg_search_new": (c_int, [c_char_p, _pp]),
    "tg_search_free": (None, [c_void_p]),
    "tg_search_analyse": (c_int, [c_void_p, c_void_p, POINTER(c_uint64)]),
    "tg_search_result_count": (c_size_t, [c_void_p]),
    "tg_search_result": (c_int, [c_void_p, c_size_t, POINTER(c_uint32), POINTER(c_double),
                                 POINTER(c_bool)]),
    "tg_search_result_line": (c_int, [c_void_p, c_size_t, c_char_p, c_size_t, _sizep]),
}
for _name, (_res, _args) in _DECL.items():
    if hasattr(_lib, _name):
        _fn = getattr(_lib, _name)
        _fn.restype, _fn.argtypes = _res, _args


def has(name: str) -> bool:
    return hasattr(_lib, name)


RawEvent = Tuple[int, int, int, int]


class CGame:
    """A tg_state of the library's own, made from a spec and a list of moves."""

    def __init__(self, spec: str, moves: Sequence[int]) -> None:
        rules = c_void_p()
        assert _lib.tg_rules_new(spec.encode(), byref(rules)) == 0
        self.ptr = c_void_p()
        assert _lib.tg_state_new(rules, byref(self.ptr)) == 0
        _lib.tg_rules_free(rules)
        for m in moves:
            assert _lib.tg_state_apply(self.ptr, m) == 0

    @classmethod
    def from_string(cls, spec: str, text: str) -> CGame:
        """A state of the library's own read from a position string."""
        self = cls.__new__(cls)
        rules = c_void_p()
        assert _lib.tg_rules_new(spec.encode(), byref(rules)) == 0
        self.ptr = c_void_p()
        status = _lib.tg_state_from_string(rules, text.encode(), byref(self.ptr))
        _lib.tg_rules_free(rules)
        assert status == 0
        return self

    def close(self) -> None:
        _lib.tg_state_free(self.ptr)

    def __enter__(self) -> CGame:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def story(self, index: int) -> List[RawEvent]:
        n = c_size_t()
        assert _lib.tg_state_story(self.ptr, index, None, 0, byref(n)) == 0
        buf = (c_uint32 * (4 * n.value + 4))()
        assert _lib.tg_state_story(self.ptr, index, buf, n.value, byref(n)) == 0
        return [tuple(buf[4 * i:4 * i + 4]) for i in range(n.value)]  # type: ignore[misc]

    def story_status(self, index: int) -> int:
        n = c_size_t()
        return int(_lib.tg_state_story(self.ptr, index, None, 0, byref(n)))

    def end_reason(self) -> Tuple[int, str]:
        r = _lib.tg_state_end_reason(self.ptr)
        return r, _lib.tg_end_reason_name(r).decode()

    def record(self, tags: Optional[str]) -> str:
        n = c_size_t()
        t = None if tags is None else tags.encode()
        assert _lib.tg_state_record(self.ptr, t, None, 0, byref(n)) == 0
        buf = ctypes.create_string_buffer(n.value + 1)
        assert _lib.tg_state_record(self.ptr, t, buf, len(buf), None) == 0
        return buf.value.decode()

    def bot(self, spec: str, seed: int) -> int:
        rng = c_uint64(seed)
        out = c_uint32()
        assert _lib.tg_bot_choose(self.ptr, spec.encode(), byref(rng), byref(out)) == 0
        return out.value

    def bot_with_rng(self, spec: str, seed: int) -> Tuple[int, int]:
        """tg_bot_choose's move and the generator state after it."""
        rng = c_uint64(seed)
        out = c_uint32()
        assert _lib.tg_bot_choose(self.ptr, spec.encode(), byref(rng), byref(out)) == 0
        return out.value, rng.value

    def analyse(self, spec: str, seed: int) -> List[Tuple[int, float, bool, str]]:
        """tg_search_analyse's results: (move, value, proven, line) best first."""
        h = c_void_p()
        assert _lib.tg_search_new(spec.encode(), byref(h)) == 0
        try:
            rng = c_uint64(seed)
            assert _lib.tg_search_analyse(h, self.ptr, byref(rng)) == 0
            results = []
            for i in range(_lib.tg_search_result_count(h)):
                m, v, p = c_uint32(), c_double(), c_bool()
                assert _lib.tg_search_result(h, i, byref(m), byref(v), byref(p)) == 0
                n = c_size_t()
                assert _lib.tg_search_result_line(h, i, None, 0, byref(n)) == 0
                buf = ctypes.create_string_buffer(n.value + 1)
                assert _lib.tg_search_result_line(h, i, buf, len(buf), None) == 0
                results.append((m.value, v.value, bool(p.value), buf.value.decode()))
            return results
        finally:
            _lib.tg_search_free(h)
