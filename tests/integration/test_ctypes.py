#!/usr/bin/env python3
"""FFI test of libtraditional-games through Python ctypes (TAP output).

    test_ctypes.py LIBRARY HEADER [--games N] [--seed S]

LIBRARY is the built shared library, HEADER include/traditional-games.h (read with the topic
headers it includes, as a compiler would). The test

  * declares argtypes/restype for every public function and checks them against the
    TG_API declarations parsed from the header (a function added to the header without a
    binding here fails the test);
  * checks the catalogue, spec parsing, version, status strings and NULL handling;
  * checks the buffer contracts (measure, too small, exact) from Python;
  * plays random games of every registered game through the generic API (legal lists
    ascending, round trips, undo to the root, chance probabilities);
  * and cross-checks every position of many Halusa games, played with
    tg_state_apply_random (whose choices are predicted from the documented splitmix64 +
    Lemire generator) and with moves chosen in Python, against an independent pure-Python
    model of rules/halusa.md: legal move sets, position strings, scores, results, board
    queries, perft counts;
  * and drives the bots (tg_bot_check, tg_bot_choose): specs, legal and deterministic
    choices that leave the state alone, a whole game of greedy against random, errors.

Exit status 0 when every check passed, 1 otherwise.
"""

import argparse
import ctypes
import os
import random
import re
import sys
import zlib
from ctypes import (POINTER, Structure, c_bool, c_char_p, c_double, c_float, c_int, c_int8,
                    c_int32, c_size_t, c_uint, c_uint8, c_uint32, c_uint64)

# --------------------------------------------------------------------------------------------
# TAP reporting


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        self.current = None

    def begin(self, name):
        self.current = [name, [], 0]

    def fail(self, msg):
        cur = self.current
        cur[2] += 1
        if len(cur[1]) < 25:
            cur[1].append(msg)

    def check(self, cond, msg):
        if not cond:
            self.fail(msg)
        return bool(cond)

    def eq(self, got, expected, msg):
        if got != expected:
            self.fail("%s: expected %r, got %r" % (msg, expected, got))
            return False
        return True

    def end(self):
        name, msgs, count = self.current
        self.n += 1
        if count == 0:
            print("ok %d - %s" % (self.n, name))
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name))
            for m in msgs:
                print("#   " + m.replace("\n", "\n#   "))
            if count > len(msgs):
                print("#   ... and %d more failures" % (count - len(msgs)))
        sys.stdout.flush()
        self.current = None

    def run(self, name, fn, *args):
        self.begin(name)
        try:
            fn(*args)
        except Exception as e:  # a crash of the test itself is a failure, not an abort
            import traceback
            self.fail("exception: %r\n%s" % (e, traceback.format_exc()))
        self.end()


T = Tap()

# --------------------------------------------------------------------------------------------
# Bindings


class Rules(Structure):
    """Opaque tg_rules."""


class State(Structure):
    """Opaque tg_state."""


class Search(Structure):
    """Opaque tg_search."""
class Batch(Structure):
    """Opaque tg_batch."""


class Egtb(Structure):
    """Opaque tg_egtb."""


class EgtbReader(Structure):
    """Opaque tg_egtb_reader."""


class EgtbValue(Structure):
    """tg_egtb_value."""
    _fields_ = [("outcome", c_int), ("endless", c_int), ("margin_to_go", c_int),
                ("final_margin", c_int)]


class EgtbTierReport(Structure):
    """tg_egtb_tier_report."""
    _fields_ = [("counters", c_int), ("positions", c_uint64), ("running", c_uint64),
                ("file_bytes", c_uint64), ("seconds", c_double)]


RP = POINTER(Rules)
SP = POINTER(State)
HP = POINTER(Search)
BP = POINTER(Batch)
EP = POINTER(Egtb)
EGTB_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, POINTER(EgtbTierReport))
MOVEP = POINTER(c_uint32)
SIZEP = POINTER(c_size_t)

# name: (restype, argtypes). Every TG_API function of the header must be here.
SIGNATURES = {
    "tg_status_string": (c_char_p, [c_int]),
    "tg_version": (c_uint, []),
    "tg_version_string": (c_char_p, []),
    "tg_game_count": (c_size_t, []),
    "tg_game_id": (c_char_p, [c_size_t]),
    "tg_game_name": (c_char_p, [c_size_t]),
    "tg_game_option_count": (c_size_t, [c_size_t]),
    "tg_game_option_key": (c_char_p, [c_size_t, c_size_t]),
    "tg_game_option_values": (c_char_p, [c_size_t, c_size_t]),
    "tg_game_option_default": (c_char_p, [c_size_t, c_size_t]),
    "tg_rules_new": (c_int, [c_char_p, POINTER(RP)]),
    "tg_rules_free": (None, [RP]),
    "tg_rules_spec": (c_char_p, [RP]),
    "tg_rules_game_id": (c_char_p, [RP]),
    "tg_rules_rows": (c_int, [RP]),
    "tg_rules_cols": (c_int, [RP]),
    "tg_rules_max_moves": (c_size_t, [RP]),
    "tg_state_new": (c_int, [RP, POINTER(SP)]),
    "tg_state_clone": (c_int, [SP, POINTER(SP)]),
    "tg_state_copy": (c_int, [SP, SP]),
    "tg_state_free": (None, [SP]),
    "tg_state_rules": (RP, [SP]),
    "tg_state_player": (c_int, [SP]),
    "tg_state_turn": (c_int, [SP]),
    "tg_state_is_terminal": (c_bool, [SP]),
    "tg_state_winner": (c_int, [SP]),
    "tg_state_score": (c_int, [SP, c_int]),
    "tg_state_returns": (c_int, [SP, POINTER(c_double)]),
    "tg_state_ply": (c_size_t, [SP]),
    "tg_state_history": (c_int, [SP, MOVEP, c_size_t, SIZEP]),
    "tg_state_moves": (c_int, [SP, MOVEP, c_size_t, SIZEP]),
    "tg_state_chance": (c_int, [SP, MOVEP, POINTER(c_double), c_size_t, SIZEP]),
    "tg_state_is_legal": (c_bool, [SP, c_uint32]),
    "tg_state_apply": (c_int, [SP, c_uint32]),
    "tg_state_undo": (c_int, [SP]),
    "tg_state_apply_random": (c_int, [SP, POINTER(c_uint64)]),
    "tg_state_count": (c_int, [SP, c_int, c_int]),
    "tg_state_owner": (c_int, [SP, c_int, c_int]),
    "tg_state_flags": (c_uint, [SP, c_int, c_int]),
    "tg_move_to_string": (c_int, [SP, c_uint32, c_char_p, c_size_t, SIZEP]),
    "tg_move_from_string": (c_int, [SP, c_char_p, MOVEP]),
    "tg_state_to_string": (c_int, [SP, c_char_p, c_size_t, SIZEP]),
    "tg_state_from_string": (c_int, [RP, c_char_p, POINTER(SP)]),
    "tg_state_render": (c_int, [SP, c_char_p, c_size_t, SIZEP]),
    "tg_state_hash": (c_uint64, [SP]),
    "tg_state_equal": (c_bool, [SP, SP]),
    "tg_state_playout": (c_int, [SP, POINTER(c_uint64), c_size_t, SIZEP]),
    "tg_state_playout_stats": (c_int, [SP, POINTER(c_uint64), c_size_t, POINTER(c_uint64),
                                       c_size_t]),
    "tg_perft": (c_uint64, [SP, c_uint]),
    "tg_bot_choose": (c_int, [SP, c_char_p, POINTER(c_uint64), MOVEP]),
    "tg_bot_check": (c_int, [c_char_p]),
    "tg_egtb_status_string": (c_char_p, [c_int]),
    "tg_egtb_supported": (c_int, [RP]),
    "tg_egtb_build": (c_int, [RP, c_char_p, c_int, c_uint, EGTB_PROGRESS, ctypes.c_void_p]),
    "tg_egtb_open": (c_int, [c_char_p, RP, POINTER(EP)]),
    "tg_egtb_max_counters": (c_int, [EP]),
    "tg_egtb_probe": (c_int, [EP, SP, POINTER(EgtbValue)]),
    "tg_egtb_close": (None, [EP]),
    "tg_egtb_reader_new": (c_int, [EP, POINTER(POINTER(EgtbReader))]),
    "tg_egtb_reader_probe": (c_int, [POINTER(EgtbReader), SP, POINTER(EgtbValue)]),
    "tg_egtb_reader_free": (None, [POINTER(EgtbReader)]),
    "tg_search_set_egtb": (c_int, [HP, EP]),
    "tg_search_egtb_status": (c_int, [HP]),
    "tg_search_result_exact": (c_int, [HP, c_size_t, POINTER(EgtbValue), POINTER(c_bool)]),
    "tg_search_new": (c_int, [c_char_p, POINTER(HP)]),
    "tg_search_free": (None, [HP]),
    "tg_search_choose": (c_int, [HP, SP, POINTER(c_uint64), MOVEP]),
    "tg_search_analyse": (c_int, [HP, SP, POINTER(c_uint64)]),
    "tg_search_result_count": (c_size_t, [HP]),
    "tg_search_result": (c_int, [HP, c_size_t, MOVEP, POINTER(c_double), POINTER(c_bool)]),
    "tg_search_result_line": (c_int, [HP, c_size_t, c_char_p, c_size_t, SIZEP]),
    "tg_search_stats": (c_int, [HP, POINTER(c_uint64), POINTER(c_uint32)]),
    "tg_search_stop": (c_int, [HP]),
    "tg_state_story": (c_int, [SP, c_size_t, POINTER(c_uint32), c_size_t, SIZEP]),
    "tg_state_end_reason": (c_int, [SP]),
    "tg_end_reason_name": (c_char_p, [c_int]),
    "tg_state_record": (c_int, [SP, c_char_p, c_char_p, c_size_t, SIZEP]),
    "tg_state_from_record": (c_int, [c_char_p, POINTER(SP)]),
    # The learning interface (docs/learning.md).
    "tg_rules_observation_size": (c_size_t, [RP]),
    "tg_rules_observation_layout": (c_int, [RP, SIZEP, SIZEP]),
    "tg_rules_action_count": (c_size_t, [RP]),
    "tg_state_observation": (c_int, [SP, c_int, POINTER(c_float), c_size_t]),
    "tg_state_action_mask": (c_int, [SP, POINTER(c_uint8), c_size_t]),
    "tg_state_action_to_move": (c_int, [SP, c_uint32, MOVEP]),
    "tg_state_move_to_action": (c_int, [SP, c_uint32, POINTER(c_uint32)]),
    "tg_state_apply_action": (c_int, [SP, c_uint32]),
    "tg_batch_new": (c_int, [RP, c_size_t, c_uint64, POINTER(BP)]),
    "tg_batch_free": (None, [BP]),
    "tg_batch_size": (c_size_t, [BP]),
    "tg_batch_rules": (RP, [BP]),
    "tg_batch_seed": (c_int, [BP, c_uint64]),
    "tg_batch_reset": (c_int, [BP, POINTER(c_float), POINTER(c_uint8), POINTER(c_int8)]),
    "tg_batch_step": (c_int, [BP, POINTER(c_uint32), c_uint32, POINTER(c_float),
                              POINTER(c_uint8), POINTER(c_int8), POINTER(c_float),
                              POINTER(c_float), POINTER(c_uint8), POINTER(c_int32)]),
    "tg_batch_restart": (c_int, [BP, POINTER(c_uint8), POINTER(c_float), POINTER(c_uint8),
                                 POINTER(c_int8)]),
    "tg_batch_get": (c_int, [BP, c_size_t, SP]),
    "tg_batch_set": (c_int, [BP, c_size_t, SP]),
    "tg_batch_rng": (c_int, [BP, c_size_t, POINTER(c_uint64)]),
}

# C types of the header -> the ctypes type a binding must use.
C_TYPES = {
    "void": None,
    "int": c_int,
    "unsigned": c_uint,
    "unsigned int": c_uint,
    "bool": c_bool,
    "size_t": c_size_t,
    "uint64_t": c_uint64,
    "tg_move": c_uint32,
    "tg_status": c_int,
    "tg_end_reason": c_int,
    "const char *": c_char_p,
    "char *": c_char_p,
    "tg_rules *": RP,
    "const tg_rules *": RP,
    "tg_rules **": POINTER(RP),
    "tg_state *": SP,
    "const tg_state *": SP,
    "tg_state **": POINTER(SP),
    "tg_search *": HP,
    "const tg_search *": HP,
    "tg_search **": POINTER(HP),
    "bool *": POINTER(c_bool),
    "uint32_t *": POINTER(c_uint32),
    "tg_move *": MOVEP,
    "const tg_move *": MOVEP,
    "size_t *": SIZEP,
    "double *": POINTER(c_double),
    "uint64_t *": POINTER(c_uint64),
    "uint32_t": c_uint32,
    "const uint32_t *": POINTER(c_uint32),
    "float *": POINTER(c_float),
    "uint8_t *": POINTER(c_uint8),
    "const uint8_t *": POINTER(c_uint8),
    "int8_t *": POINTER(c_int8),
    "int32_t *": POINTER(c_int32),
    "tg_batch *": BP,
    "const tg_batch *": BP,
    "tg_batch **": POINTER(BP),
    "tg_egtb_status": c_int,
    "tg_egtb *": EP,
    "const tg_egtb *": EP,
    "tg_egtb **": POINTER(EP),
    "tg_egtb_value *": POINTER(EgtbValue),
    "tg_egtb_reader *": POINTER(EgtbReader),
    "tg_egtb_reader **": POINTER(POINTER(EgtbReader)),
    "tg_egtb_progress_fn *": EGTB_PROGRESS,
    "void *": ctypes.c_void_p,
}

OK, INVALID, NO_MEMORY, UNKNOWN_GAME, BAD_OPTION, ILLEGAL, PARSE, TOO_SMALL, NO_HISTORY, \
    GAME_OVER, MISMATCH, BUSY = range(12)
STATUS_NAMES = ["TG_OK", "TG_ERR_INVALID_ARGUMENT", "TG_ERR_NO_MEMORY", "TG_ERR_UNKNOWN_GAME",
                "TG_ERR_BAD_OPTION", "TG_ERR_ILLEGAL_MOVE", "TG_ERR_PARSE",
                "TG_ERR_BUFFER_TOO_SMALL", "TG_ERR_NO_HISTORY", "TG_ERR_GAME_OVER",
                "TG_ERR_RULES_MISMATCH", "TG_ERR_BUSY"]
PLAYER_0, PLAYER_1, CHANCE, TERMINAL = 0, 1, -1, -2
DRAW, NO_WINNER_YET = -3, -4
MOVE_PASS = 0xFFFFFFFE
CELL_LOCKED, CELL_DEAD = 1, 2

SENTINEL_ADDR = 0x5A5A50


def st_name(code):
    return STATUS_NAMES[code] if 0 <= code < len(STATUS_NAMES) else str(code)


def read_header(path, seen=None):
    """The header's text with each `#include "..."` replaced by that file's text, once per file
    (as the include guards do): the API a program gets from this one header."""
    seen = set() if seen is None else seen
    path = os.path.realpath(path)
    if path in seen:
        return ""
    seen.add(path)
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
            if m:
                out.append(read_header(os.path.join(os.path.dirname(path), m.group(1)), seen))
            else:
                out.append(line)
    return "".join(out)


def parse_header(path):
    """The TG_API declarations: {name: (return type, [parameter types])} and the macros."""
    text = read_header(path)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    decls = {}
    for m in re.finditer(r"^\s*TG_API\s+([^;]*?)\b(tg_\w+)\s*\(([^)]*)\)\s*;", text, re.M | re.S):
        ret = " ".join(m.group(1).replace("*", " * ").split()).replace(" *", " *")
        params = []
        body = " ".join(m.group(3).split())
        if body and body != "void":
            for p in body.split(","):
                p = p.strip()
                array = re.search(r"\[\s*\w*\s*\]$", p)
                if array:
                    p = p[:array.start()].strip()
                p = re.sub(r"\b\w+$", "", p).strip()  # drop the parameter name
                if array:
                    p += " *"
                p = " ".join(p.replace("*", " * ").split())
                p = re.sub(r"\* \*", "**", p)
                params.append(p)
        ret = re.sub(r"\* \*", "**", " ".join(ret.split()))
        decls[m.group(2)] = (ret, params)
    macros = dict(re.findall(r"^#define\s+(TG_\w+)\s+(\S+)", text, re.M))
    return decls, macros


def same_ctype(a, b):
    if a is None or b is None:
        return a is b
    if a is b:
        return True
    # POINTER(X) is cached by ctypes, so identity works; compare names as a fallback.
    return getattr(a, "__name__", a) == getattr(b, "__name__", b)


def bind(path):
    lib = ctypes.CDLL(path)
    for name, (res, args) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


L = None  # the library, bound in main()


def sentinel(ptr_type):
    return ctypes.cast(ctypes.c_void_p(SENTINEL_ADDR), ptr_type)


def addr(p):
    return ctypes.cast(p, ctypes.c_void_p).value


# --------------------------------------------------------------------------------------------
# Thin Python wrappers that check the buffer contracts on every call


def new_rules(spec):
    out = RP()
    rc = L.tg_rules_new(spec.encode(), ctypes.byref(out))
    if rc != OK:
        raise RuntimeError("tg_rules_new(%r) = %s" % (spec, st_name(rc)))
    return out


def new_state(rules):
    out = SP()
    rc = L.tg_state_new(rules, ctypes.byref(out))
    if rc != OK:
        raise RuntimeError("tg_state_new = %s" % st_name(rc))
    return out


def text_of(fn, s, *extra, check=True):
    """Reads a text through the buffer contract, checking it as it goes."""
    needed = c_size_t(0xDEAD)
    rc = fn(s, *extra, None, 0, ctypes.byref(needed))
    if rc != OK:
        raise RuntimeError("%s measure = %s" % (fn.__name__, st_name(rc)))
    n = needed.value
    if check:
        # Too small by one (no room for the NUL): nothing but *needed is written.
        buf = ctypes.create_string_buffer(b"\x7f" * (n + 1), n + 1)
        needed2 = c_size_t(0)
        rc = fn(s, *extra, buf, n, ctypes.byref(needed2))
        T.eq(st_name(rc), "TG_ERR_BUFFER_TOO_SMALL", "%s with cap = needed" % fn.__name__)
        T.eq(needed2.value, n, "%s *needed when too small" % fn.__name__)
        T.check(buf.raw == b"\x7f" * (n + 1), "%s wrote into a too small buffer" % fn.__name__)
        if n > 0:
            rc = fn(s, *extra, buf, 1, None)
            T.eq(st_name(rc), "TG_ERR_BUFFER_TOO_SMALL", "%s with cap 1" % fn.__name__)
        rc = fn(s, *extra, None, 5, ctypes.byref(needed2))
        T.eq(st_name(rc), "TG_ERR_INVALID_ARGUMENT", "%s with NULL buffer, cap 5" % fn.__name__)
    buf = ctypes.create_string_buffer(b"\x7f" * (n + 8), n + 8)
    needed3 = c_size_t(0)
    rc = fn(s, *extra, buf, n + 1, ctypes.byref(needed3))
    if rc != OK:
        raise RuntimeError("%s write = %s" % (fn.__name__, st_name(rc)))
    if check:
        T.eq(needed3.value, n, "%s *needed on success" % fn.__name__)
        T.eq(buf.raw[n], 0, "%s NUL terminator" % fn.__name__)
        T.check(buf.raw[n + 1:] == b"\x7f" * 7, "%s wrote past cap" % fn.__name__)
        T.check(b"\0" not in buf.raw[:n], "%s text shorter than *needed" % fn.__name__)
    return buf.raw[:n].decode()


def to_string(s, check=False):
    return text_of(L.tg_state_to_string, s, check=check)


def move_name(s, m, check=False):
    return text_of(L.tg_move_to_string, s, c_uint32(m), check=check)


def move_list(fn, s, check=False):
    count = c_size_t(0xDEAD)
    rc = fn(s, None, 0, ctypes.byref(count))
    if rc != OK:
        raise RuntimeError("%s count = %s" % (fn.__name__, st_name(rc)))
    n = count.value
    if check and n > 0:
        buf = (c_uint32 * n)(*([0xABCDABCD] * n))
        c2 = c_size_t(0)
        rc = fn(s, buf, n - 1, ctypes.byref(c2))
        T.eq(st_name(rc), "TG_ERR_BUFFER_TOO_SMALL", "%s with cap = count - 1" % fn.__name__)
        T.eq(c2.value, n, "%s *count when too small" % fn.__name__)
        T.check(list(buf) == [0xABCDABCD] * n, "%s wrote into a too small buffer" % fn.__name__)
    if check:
        rc = fn(s, None, 3, ctypes.byref(count))
        T.eq(st_name(rc), "TG_ERR_INVALID_ARGUMENT", "%s NULL buffer with cap 3" % fn.__name__)
        rc = fn(s, None, 0, None)
        T.eq(st_name(rc), "TG_ERR_INVALID_ARGUMENT", "%s NULL count" % fn.__name__)
    buf = (c_uint32 * (n + 1))(*([0xABCDABCD] * (n + 1)))
    c3 = c_size_t(0)
    rc = fn(s, buf, n + 1, ctypes.byref(c3))
    if rc != OK:
        raise RuntimeError("%s list = %s" % (fn.__name__, st_name(rc)))
    if check:
        T.eq(c3.value, n, "%s *count" % fn.__name__)
        T.eq(buf[n], 0xABCDABCD, "%s wrote past count" % fn.__name__)
    return list(buf[:n])


def moves_of(s, check=False):
    return move_list(L.tg_state_moves, s, check)


def history_of(s, check=False):
    return move_list(L.tg_state_history, s, check)


def chance_of(s, check=False):
    count = c_size_t(0xDEAD)
    rc = L.tg_state_chance(s, None, None, 0, ctypes.byref(count))
    if rc != OK:
        raise RuntimeError("tg_state_chance count = %s" % st_name(rc))
    n = count.value
    outs = (c_uint32 * (n + 1))()
    probs = (c_double * (n + 1))()
    if check:
        rc = L.tg_state_chance(s, outs, None, n + 1, ctypes.byref(count))
        T.eq(st_name(rc), "TG_ERR_INVALID_ARGUMENT", "tg_state_chance NULL probs with cap > 0")
        if n > 0:
            rc = L.tg_state_chance(s, outs, probs, n - 1, ctypes.byref(count))
            T.eq(st_name(rc), "TG_ERR_BUFFER_TOO_SMALL", "tg_state_chance cap = count - 1")
    rc = L.tg_state_chance(s, outs, probs, n + 1, ctypes.byref(count))
    if rc != OK:
        raise RuntimeError("tg_state_chance = %s" % st_name(rc))
    return list(outs[:n]), list(probs[:n])


def from_string(rules, text):
    out = sentinel(SP)
    rc = L.tg_state_from_string(rules, text.encode(), ctypes.byref(out))
    if rc != OK:
        T.eq(addr(out), SENTINEL_ADDR, "tg_state_from_string touched *out on error")
        return rc, None
    return rc, out


def returns_of(s):
    out = (c_double * 2)(7.0, 7.0)
    rc = L.tg_state_returns(s, out)
    if rc != OK:
        raise RuntimeError("tg_state_returns = %s" % st_name(rc))
    return (out[0], out[1])


# --------------------------------------------------------------------------------------------
# The documented generator: splitmix64, Lemire's bounded index on the high 32 bits

M64 = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def uniform_below(state, n):
    state, draw = splitmix64(state)
    m = (draw >> 32) * n
    low = m & 0xFFFFFFFF
    if low < n:
        threshold = ((1 << 32) - n) % n
        while low < threshold:
            state, draw = splitmix64(state)
            m = (draw >> 32) * n
            low = m & 0xFFFFFFFF
    return state, m >> 32


# --------------------------------------------------------------------------------------------
# An independent model of Halusa, written from rules/halusa.md

RING = [0, 1, 2, 3, 4, 5, 11, 10, 9, 8, 7, 6]  # a1 b1 c1 d1 e1 f1 f2 e2 d2 c2 b2 a2
RING_AT = {cell: i for i, cell in enumerate(RING)}
CELL_NAMES = ["%s%d" % ("abcdef"[c % 6], c // 6 + 1) for c in range(12)]


class Halusa:
    TOTAL = 72
    # What the model has seen happen, so the test can show its games reached every rule.
    seen = {}

    def __init__(self, remainder="last-mover", quiet_limit=100):
        self.remainder = remainder
        self.quiet_limit = quiet_limit
        self.cells = [6] * 12
        self.side = 0
        self.score = [0, 0]
        self.quiet = 0
        self.over = False
        self.winner = None  # 0, 1 or "draw"

    @property
    def spec(self):
        return "halusa:remainder=%s,quiet=%d" % (self.remainder, self.quiet_limit)

    def copy(self):
        h = Halusa(self.remainder, self.quiet_limit)
        h.cells = list(self.cells)
        h.side = self.side
        h.score = list(self.score)
        h.quiet = self.quiet
        h.over = self.over
        h.winner = self.winner
        return h

    @staticmethod
    def row(cells, player):
        return cells[6 * player:6 * player + 6]

    def sow(self, move):
        """The board after sowing `move` and capturing, and the counters captured."""
        me = self.side
        cells = list(self.cells)
        n = cells[move]
        cells[move] = 0
        at = RING_AT[move]
        for _ in range(n):
            at = (at + 1) % 12
            cells[RING[at]] += 1
        taken = 0
        while True:
            cell = RING[at]
            if cell // 6 != me or cells[cell] == 0 or cells[cell] % 2 != 0:
                break
            taken += cells[cell]
            cells[cell] = 0
            at = (at - 1) % 12
        return cells, taken

    def legal(self):
        if self.over:
            return []
        out = []
        for cell in range(6 * self.side, 6 * self.side + 6):
            if self.cells[cell] == 0:
                continue
            after, _ = self.sow(cell)
            if sum(self.row(after, 1 - self.side)) > 0:  # must feed
                out.append(cell)
        return out

    def finish(self):
        self.cells = [0] * 12
        self.over = True
        s0, s1 = self.score
        self.winner = 0 if s0 > s1 else 1 if s1 > s0 else "draw"

    def note(self, what):
        Halusa.seen[what] = Halusa.seen.get(what, 0) + 1

    def apply(self, move):
        legal = self.legal()
        assert move in legal
        me = self.side
        if len(legal) < sum(1 for c in self.row(self.cells, me) if c):
            self.note("must-feed excluded a move")
        if self.cells[move] >= 12:
            self.note("a sowing of a full lap or more")
        before = self.cells
        self.cells, taken = self.sow(move)
        if sum(1 for i in range(12) if before[i] and not self.cells[i] and i != move) >= 2:
            self.note("a capture chain of two holes or more")
        self.score[me] += taken
        self.quiet = 0 if taken else self.quiet + 1
        self.side = 1 - me
        if not self.legal():
            if self.remainder == "last-mover":
                self.score[me] += sum(self.cells)
            else:
                self.score[0] += sum(self.row(self.cells, 0))
                self.score[1] += sum(self.row(self.cells, 1))
            self.note("an end without a legal move, remainder=%s%s" % (
                self.remainder, ", counters left" if sum(self.cells) else ""))
            if sum(self.row(self.cells, self.side)):
                self.note("an end by an unfed opponent row")
            self.finish()
        elif self.quiet_limit and self.quiet >= self.quiet_limit:
            self.score[0] += sum(self.row(self.cells, 0))
            self.score[1] += sum(self.row(self.cells, 1))
            self.note("an end by the quiet limit")
            self.finish()
        if self.over:
            self.note("a %s" % ("draw" if self.winner == "draw" else "win of player %d" %
                                self.winner))

    def to_string(self):
        board = ",".join(map(str, self.cells[6:12])) + "/" + ",".join(map(str, self.cells[0:6]))
        text = "%s %s %s %d,%d quiet=%d" % (self.spec, board, "-" if self.over else self.side,
                                            self.score[0], self.score[1], self.quiet)
        if self.over:
            text += " winner=%s" % self.winner
        return text

    @classmethod
    def from_string(cls, text):
        spec, board, to_move, scores, quiet = text.split()[:5]
        opts = dict(kv.split("=") for kv in spec.split(":")[1].split(","))
        h = cls(opts["remainder"], int(opts["quiet"]))
        north, south = board.split("/")
        h.cells = [int(x) for x in south.split(",")] + [int(x) for x in north.split(",")]
        h.over = to_move == "-"
        h.side = 0 if h.over else int(to_move)
        h.score = [int(x) for x in scores.split(",")]
        h.quiet = int(quiet.split("=")[1])
        if h.over:
            w = text.split()[5].split("=")[1]
            h.winner = w if w == "draw" else int(w)
        return h

    def player(self):
        return TERMINAL if self.over else self.side

    def winner_code(self):
        if not self.over:
            return NO_WINNER_YET
        return DRAW if self.winner == "draw" else self.winner

    def returns(self):
        if not self.over or self.winner == "draw":
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    def perft(self, depth):
        if depth == 0:
            return 1
        moves = self.legal()
        if depth == 1:
            return len(moves)
        total = 0
        for m in moves:
            child = self.copy()
            child.apply(m)
            total += child.perft(depth - 1)
        return total


HALUSA_SPECS = [
    ("halusa", "last-mover", 100),
    ("halusa:remainder=owner", "owner", 100),
    ("halusa:quiet=0", "last-mover", 0),
    ("halusa:quiet=1", "last-mover", 1),
    ("halusa:quiet=12", "last-mover", 12),
    ("halusa:remainder=owner,quiet=7", "owner", 7),
    ("halusa:remainder=last-mover,quiet=1000", "last-mover", 1000),
]

# --------------------------------------------------------------------------------------------
# Checks


def check_signatures(header):
    decls, _ = parse_header(header)
    T.check(len(decls) >= 40, "only %d TG_API declarations parsed from the header" % len(decls))
    for name in sorted(set(decls) - set(SIGNATURES)):
        T.fail("%s is in the header but has no ctypes binding here" % name)
    for name in sorted(set(SIGNATURES) - set(decls)):
        T.fail("%s has a binding but is not a TG_API function of the header" % name)
    for name in sorted(set(decls) & set(SIGNATURES)):
        ret, params = decls[name]
        res, args = SIGNATURES[name]
        if ret not in C_TYPES:
            T.fail("%s: return type %r unknown to this test" % (name, ret))
        elif not same_ctype(C_TYPES[ret], res):
            T.fail("%s: header returns %r, binding says %r" % (name, ret, res))
        if len(params) != len(args):
            T.fail("%s: header has %d parameters, binding %d" % (name, len(params), len(args)))
            continue
        for i, (p, a) in enumerate(zip(params, args)):
            if p not in C_TYPES:
                T.fail("%s: parameter %d type %r unknown to this test" % (name, i, p))
            elif not same_ctype(C_TYPES[p], a):
                T.fail("%s: parameter %d is %r in the header, binding says %r" % (name, i, p, a))
    # And the library really exports them all (getattr raises otherwise).
    for name in SIGNATURES:
        T.check(hasattr(L, name), "%s not exported" % name)


def check_version(header):
    _, macros = parse_header(header)
    major, minor, patch = (int(macros["TG_VERSION_" + k]) for k in ("MAJOR", "MINOR", "PATCH"))
    T.eq(L.tg_version(), major * 10000 + minor * 100 + patch, "tg_version()")
    T.eq(L.tg_version_string(), ("%d.%d.%d" % (major, minor, patch)).encode(),
         "tg_version_string()")


def check_status_strings():
    seen = set()
    for code in range(12):
        text = L.tg_status_string(code)
        T.check(text is not None and len(text) > 0, "tg_status_string(%d) empty" % code)
        T.check(text not in seen, "tg_status_string(%d) = %r repeats another" % (code, text))
        T.check(text != b"unknown status", "tg_status_string(%d) says unknown" % code)
        seen.add(text)
    for code in (12, 99, -1, 2 ** 31 - 1):
        T.eq(L.tg_status_string(code), b"unknown status", "tg_status_string(%d)" % code)


def check_catalogue():
    n = L.tg_game_count()
    T.check(n >= 1, "tg_game_count() = %d" % n)
    ids = [L.tg_game_id(i) for i in range(n)]
    T.check(all(i is not None for i in ids), "a NULL game id below the count")
    T.eq(len(set(ids)), len(ids), "game ids unique")
    T.check(b"halusa" in ids, "halusa is registered")
    for bad in (n, n + 1, 2 ** 63):
        T.eq(L.tg_game_id(bad), None, "tg_game_id(%d)" % bad)
        T.eq(L.tg_game_name(bad), None, "tg_game_name(%d)" % bad)
        T.eq(L.tg_game_option_count(bad), 0, "tg_game_option_count(%d)" % bad)
        T.eq(L.tg_game_option_key(bad, 0), None, "tg_game_option_key(%d, 0)" % bad)
        T.eq(L.tg_game_option_values(bad, 0), None, "tg_game_option_values(%d, 0)" % bad)
        T.eq(L.tg_game_option_default(bad, 0), None, "tg_game_option_default(%d, 0)" % bad)
    for i, gid in enumerate(ids):
        gid = gid.decode()
        T.check(re.fullmatch(r"[a-z][a-z0-9-]*", gid), "game id %r" % gid)
        T.check(L.tg_game_name(i), "tg_game_name(%d)" % i)
        k = L.tg_game_option_count(i)
        keys, defaults = [], []
        for j in range(k):
            key, values, default = (L.tg_game_option_key(i, j), L.tg_game_option_values(i, j),
                                    L.tg_game_option_default(i, j))
            if not T.check(key and values and default, "%s option %d has NULL text" % (gid, j)):
                continue
            key, values, default = key.decode(), values.decode(), default.decode()
            keys.append(key)
            defaults.append(default)
            rng = re.fullmatch(r"(\d+)\.\.(\d+)", values)
            if rng:
                T.check(int(rng.group(1)) <= int(default) <= int(rng.group(2)),
                        "%s %s default %s outside %s" % (gid, key, default, values))
            else:
                T.check(default in values.split("|"),
                        "%s %s default %s not in %s" % (gid, key, default, values))
        T.eq(L.tg_game_option_key(i, k), None, "%s option key past the count" % gid)
        T.eq(L.tg_game_option_values(i, k), None, "%s option values past the count" % gid)
        T.eq(L.tg_game_option_default(i, k), None, "%s option default past the count" % gid)
        # The bare id takes the defaults, and the canonical spec spells them all out in order.
        r = new_rules(gid)
        canonical = gid + (":" + ",".join("%s=%s" % kv for kv in zip(keys, defaults))
                           if keys else "")
        T.eq(L.tg_rules_spec(r).decode(), canonical, "canonical spec of %s" % gid)
        T.eq(L.tg_rules_game_id(r).decode(), gid, "tg_rules_game_id")
        r2 = new_rules(canonical)
        T.eq(L.tg_rules_spec(r2), L.tg_rules_spec(r), "spec of the canonical spec")
        T.check(L.tg_rules_rows(r) > 0 and L.tg_rules_cols(r) > 0, "%s board size" % gid)
        T.check(L.tg_rules_max_moves(r) > 0, "%s max moves" % gid)
        L.tg_rules_free(r2)
        L.tg_rules_free(r)
    hi = ids.index(b"halusa")
    T.eq(L.tg_game_name(hi), b"Halusa", "Halusa display name")
    T.eq([L.tg_game_option_key(hi, j) for j in range(L.tg_game_option_count(hi))],
         [b"remainder", b"quiet"], "Halusa option keys")
    T.eq(L.tg_game_option_values(hi, 0), b"last-mover|owner", "Halusa remainder values")
    T.eq(L.tg_game_option_default(hi, 0), b"last-mover", "Halusa remainder default")
    T.eq(L.tg_game_option_values(hi, 1), b"0..1000", "Halusa quiet values")
    T.eq(L.tg_game_option_default(hi, 1), b"100", "Halusa quiet default")


def check_specs():
    good = {
        "halusa": "halusa:remainder=last-mover,quiet=100",
        "halusa:remainder=owner": "halusa:remainder=owner,quiet=100",
        "halusa:quiet=0": "halusa:remainder=last-mover,quiet=0",
        "halusa:quiet=1000": "halusa:remainder=last-mover,quiet=1000",
        "halusa:remainder=owner,quiet=5": "halusa:remainder=owner,quiet=5",
        "halusa:remainder=last-mover,quiet=100": "halusa:remainder=last-mover,quiet=100",
    }
    for spec, canonical in good.items():
        out = sentinel(RP)
        rc = L.tg_rules_new(spec.encode(), ctypes.byref(out))
        if T.eq(st_name(rc), "TG_OK", "tg_rules_new(%r)" % spec):
            T.eq(L.tg_rules_spec(out).decode(), canonical, "canonical spec of %r" % spec)
            T.eq(L.tg_rules_rows(out), 2, "rows of %r" % spec)
            T.eq(L.tg_rules_cols(out), 6, "cols of %r" % spec)
            T.check(L.tg_rules_max_moves(out) >= 6, "max moves of %r" % spec)
            L.tg_rules_free(out)
    bad = {
        "": UNKNOWN_GAME, "nosuch": UNKNOWN_GAME, "halus": UNKNOWN_GAME,
        "nosuch:quiet=1": UNKNOWN_GAME,
        "halusa:quiet=1001": BAD_OPTION, "halusa:quiet=01": BAD_OPTION,
        "halusa:quiet=-1": BAD_OPTION, "halusa:quiet=": BAD_OPTION,
        "halusa:quiet": BAD_OPTION, "halusa:foo=1": BAD_OPTION,
        "halusa:remainder=nobody": BAD_OPTION, "halusa:quiet=5,quiet=6": BAD_OPTION,
        "halusa:Remainder=owner": BAD_OPTION, "halusa:remainder=Owner": BAD_OPTION,
        "halusa:quiet=5 ": BAD_OPTION, "halusa:quiet= 5": BAD_OPTION,
        "halusa:=5": BAD_OPTION, "halusa:quiet=5,": BAD_OPTION,
        "halusa:quiet=99999999999999999999": BAD_OPTION,
    }
    for spec, code in bad.items():
        out = sentinel(RP)
        rc = L.tg_rules_new(spec.encode(), ctypes.byref(out))
        T.eq(st_name(rc), st_name(code), "tg_rules_new(%r)" % spec)
        T.eq(addr(out), SENTINEL_ADDR, "tg_rules_new(%r) touched *out on error" % spec)
        if rc == OK:
            L.tg_rules_free(out)
    out = sentinel(RP)
    T.eq(st_name(L.tg_rules_new(None, ctypes.byref(out))), "TG_ERR_INVALID_ARGUMENT",
         "tg_rules_new(NULL)")
    T.eq(addr(out), SENTINEL_ADDR, "tg_rules_new(NULL) touched *out")
    T.eq(st_name(L.tg_rules_new(b"halusa", None)), "TG_ERR_INVALID_ARGUMENT",
         "tg_rules_new(spec, NULL)")


def check_null_handling():
    r = new_rules("halusa")
    s = new_state(r)
    L.tg_rules_free(None)
    L.tg_state_free(None)
    T.eq(L.tg_rules_spec(None), None, "tg_rules_spec(NULL)")
    T.eq(L.tg_rules_game_id(None), None, "tg_rules_game_id(NULL)")
    T.eq(L.tg_rules_rows(None), -1, "tg_rules_rows(NULL)")
    T.eq(L.tg_rules_cols(None), -1, "tg_rules_cols(NULL)")
    T.eq(L.tg_rules_max_moves(None), 0, "tg_rules_max_moves(NULL)")
    out = sentinel(SP)
    T.eq(st_name(L.tg_state_new(None, ctypes.byref(out))), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_new(NULL)")
    T.eq(addr(out), SENTINEL_ADDR, "tg_state_new(NULL) touched *out")
    T.eq(st_name(L.tg_state_new(r, None)), "TG_ERR_INVALID_ARGUMENT", "tg_state_new(r, NULL)")
    T.eq(st_name(L.tg_state_clone(None, ctypes.byref(out))), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_clone(NULL)")
    T.eq(addr(out), SENTINEL_ADDR, "tg_state_clone(NULL) touched *out")
    T.eq(st_name(L.tg_state_clone(s, None)), "TG_ERR_INVALID_ARGUMENT", "tg_state_clone(s, NULL)")
    T.eq(st_name(L.tg_state_copy(None, s)), "TG_ERR_INVALID_ARGUMENT", "tg_state_copy(NULL, s)")
    T.eq(st_name(L.tg_state_copy(s, None)), "TG_ERR_INVALID_ARGUMENT", "tg_state_copy(s, NULL)")
    T.check(not L.tg_state_rules(None), "tg_state_rules(NULL) not NULL")
    T.eq(L.tg_state_player(None), TERMINAL, "tg_state_player(NULL)")
    T.eq(L.tg_state_turn(None), TERMINAL, "tg_state_turn(NULL)")
    T.eq(L.tg_state_is_terminal(None), True, "tg_state_is_terminal(NULL)")
    T.eq(L.tg_state_winner(None), NO_WINNER_YET, "tg_state_winner(NULL)")
    T.eq(L.tg_state_score(None, 0), -1, "tg_state_score(NULL, 0)")
    T.eq(L.tg_state_score(s, 2), -1, "tg_state_score(s, 2)")
    T.eq(L.tg_state_score(s, -1), -1, "tg_state_score(s, -1)")
    T.eq(st_name(L.tg_state_returns(None, (c_double * 2)())), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_returns(NULL, out)")
    T.eq(st_name(L.tg_state_returns(s, None)), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_returns(s, NULL)")
    T.eq(L.tg_state_ply(None), 0, "tg_state_ply(NULL)")
    cnt = c_size_t(0)
    for fn in (L.tg_state_history, L.tg_state_moves):
        T.eq(st_name(fn(None, None, 0, ctypes.byref(cnt))), "TG_ERR_INVALID_ARGUMENT",
             "%s(NULL)" % fn.__name__)
    T.eq(st_name(L.tg_state_chance(None, None, None, 0, ctypes.byref(cnt))),
         "TG_ERR_INVALID_ARGUMENT", "tg_state_chance(NULL)")
    T.eq(st_name(L.tg_state_chance(s, None, None, 0, None)), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_chance(s, NULL count)")
    T.eq(L.tg_state_is_legal(None, 0), False, "tg_state_is_legal(NULL)")
    T.eq(st_name(L.tg_state_apply(None, 0)), "TG_ERR_INVALID_ARGUMENT", "tg_state_apply(NULL)")
    T.eq(st_name(L.tg_state_undo(None)), "TG_ERR_INVALID_ARGUMENT", "tg_state_undo(NULL)")
    rng = c_uint64(5)
    T.eq(st_name(L.tg_state_apply_random(None, ctypes.byref(rng))), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_apply_random(NULL)")
    T.eq(st_name(L.tg_state_apply_random(s, None)), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_apply_random(s, NULL)")
    T.eq(rng.value, 5, "rng advanced by a failed tg_state_apply_random")
    T.eq(L.tg_state_ply(s), 0, "a failed call changed the state")
    T.eq(L.tg_state_count(None, 0, 0), -1, "tg_state_count(NULL)")
    T.eq(L.tg_state_owner(None, 0, 0), -1, "tg_state_owner(NULL)")
    T.eq(L.tg_state_flags(None, 0, 0), 0, "tg_state_flags(NULL)")
    for row, col in ((-1, 0), (0, -1), (2, 0), (0, 6), (100, 100), (-2 ** 31, 0)):
        T.eq(L.tg_state_count(s, row, col), -1, "tg_state_count(s, %d, %d)" % (row, col))
        T.eq(L.tg_state_owner(s, row, col), -1, "tg_state_owner(s, %d, %d)" % (row, col))
        T.eq(L.tg_state_flags(s, row, col), 0, "tg_state_flags(s, %d, %d)" % (row, col))
    need = c_size_t(0)
    for fn in (L.tg_state_to_string, L.tg_state_render):
        T.eq(st_name(fn(None, None, 0, ctypes.byref(need))), "TG_ERR_INVALID_ARGUMENT",
             "%s(NULL)" % fn.__name__)
        T.eq(st_name(fn(s, None, 0, None)), "TG_OK", "%s measuring with NULL needed" % fn.__name__)
    T.eq(st_name(L.tg_move_to_string(None, 0, None, 0, ctypes.byref(need))),
         "TG_ERR_INVALID_ARGUMENT", "tg_move_to_string(NULL)")
    mv = c_uint32(0xABCD)
    T.eq(st_name(L.tg_move_from_string(None, b"a1", ctypes.byref(mv))), "TG_ERR_INVALID_ARGUMENT",
         "tg_move_from_string(NULL, ...)")
    T.eq(st_name(L.tg_move_from_string(s, None, ctypes.byref(mv))), "TG_ERR_INVALID_ARGUMENT",
         "tg_move_from_string(s, NULL, ...)")
    T.eq(st_name(L.tg_move_from_string(s, b"a1", None)), "TG_ERR_INVALID_ARGUMENT",
         "tg_move_from_string(s, text, NULL)")
    T.eq(mv.value, 0xABCD, "tg_move_from_string touched *out on error")
    T.eq(st_name(L.tg_state_from_string(None, b"x", ctypes.byref(out))),
         "TG_ERR_INVALID_ARGUMENT", "tg_state_from_string(NULL, ...)")
    T.eq(st_name(L.tg_state_from_string(r, None, ctypes.byref(out))),
         "TG_ERR_INVALID_ARGUMENT", "tg_state_from_string(r, NULL, ...)")
    T.eq(st_name(L.tg_state_from_string(r, to_string(s).encode(), None)),
         "TG_ERR_INVALID_ARGUMENT", "tg_state_from_string(r, text, NULL)")
    T.eq(addr(out), SENTINEL_ADDR, "a failed call touched *out")
    T.eq(L.tg_state_hash(None), 0, "tg_state_hash(NULL)")
    T.eq(L.tg_state_equal(None, s), False, "tg_state_equal(NULL, s)")
    T.eq(L.tg_state_equal(s, None), False, "tg_state_equal(s, NULL)")
    T.eq(L.tg_state_equal(None, None), False, "tg_state_equal(NULL, NULL)")
    T.eq(L.tg_perft(None, 1), 0, "tg_perft(NULL, 1)")
    T.eq(st_name(L.tg_state_playout(None, ctypes.byref(rng), 10, None)), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_playout(NULL)")
    T.eq(st_name(L.tg_state_playout(s, None, 10, None)), "TG_ERR_INVALID_ARGUMENT",
         "tg_state_playout(s, NULL rng)")
    T.eq(L.tg_state_ply(s), 0, "a failed call changed the state")
    L.tg_state_free(s)
    L.tg_rules_free(r)


def check_buffers():
    """The buffer contract on a start position and one with history."""
    r = new_rules("halusa")
    s = new_state(r)
    to_string(s, check=True)
    text_of(L.tg_state_render, s, check=True)
    for m in range(12):
        T.eq(move_name(s, m, check=True), CELL_NAMES[m], "tg_move_to_string(%d)" % m)
    T.eq(moves_of(s, check=True), list(range(6)), "start moves")
    T.eq(history_of(s, check=True), [], "start history")
    T.eq(chance_of(s, check=True), ([], []), "no chance outcomes in Halusa")
    need = c_size_t(77)
    for bad in (12, 13, 0xFFFFFFFF, 0x01000001):
        rc = L.tg_move_to_string(s, bad, None, 0, ctypes.byref(need))
        T.eq(st_name(rc), "TG_ERR_INVALID_ARGUMENT", "tg_move_to_string of move %#x" % bad)
    rng = c_uint64(99)
    for _ in range(9):
        L.tg_state_apply_random(s, ctypes.byref(rng))
    T.eq(len(history_of(s, check=True)), 9, "history after 9 moves")
    moves_of(s, check=True)
    # Zero-capacity with a non-NULL buffer is "too small", not invalid.
    buf = ctypes.create_string_buffer(4)
    rc = L.tg_state_to_string(s, buf, 0, ctypes.byref(need))
    T.eq(st_name(rc), "TG_ERR_BUFFER_TOO_SMALL", "tg_state_to_string with a buffer and cap 0")
    L.tg_state_free(s)
    L.tg_rules_free(r)


def check_notation():
    r = new_rules("halusa")
    s = new_state(r)
    for m, name in enumerate(CELL_NAMES):
        mv = c_uint32(0xABCD)
        rc = L.tg_move_from_string(s, name.encode(), ctypes.byref(mv))
        T.eq((st_name(rc), mv.value), ("TG_OK", m), "tg_move_from_string(%r)" % name)
    for bad in ("", "a", "1", "g1", "a3", "a0", "a01", "aa1", "a1 ", " a1", "a1x", "z9", "a-1",
                "a99999999999999999999"):
        mv = c_uint32(0xABCD)
        rc = L.tg_move_from_string(s, bad.encode(), ctypes.byref(mv))
        T.eq(st_name(rc), "TG_ERR_PARSE", "tg_move_from_string(%r)" % bad)
        T.eq(mv.value, 0xABCD, "tg_move_from_string(%r) touched *out" % bad)
    # A legal cell of the wrong player parses (legality is apply's business).
    mv = c_uint32(0)
    T.eq(st_name(L.tg_move_from_string(s, b"c2", ctypes.byref(mv))), "TG_OK", "parse c2 at start")
    T.eq(st_name(L.tg_state_apply(s, mv.value)), "TG_ERR_ILLEGAL_MOVE", "apply c2 at start")
    L.tg_state_free(s)
    L.tg_rules_free(r)


def check_position_strings():
    r = new_rules("halusa")
    start = "halusa:remainder=last-mover,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0"
    s = new_state(r)
    T.eq(to_string(s), start, "start position string")
    spellings = [start, start.replace("halusa:remainder=last-mover,quiet=100", "halusa", 1),
                 start.replace("halusa:remainder=last-mover,quiet=100", "halusa:quiet=100", 1),
                 start.replace("halusa:remainder=last-mover,quiet=100",
                               "halusa:remainder=last-mover", 1)]
    for text in spellings:
        rc, t = from_string(r, text)
        if T.eq(st_name(rc), "TG_OK", "tg_state_from_string(%r)" % text):
            T.check(L.tg_state_equal(s, t), "%r not equal to the start" % text)
            T.eq(to_string(t), start, "canonical string of %r" % text)
            L.tg_state_free(t)
    mismatched = ["halusa:remainder=owner,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
                  "halusa:quiet=99 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0"]
    for text in mismatched:
        T.eq(st_name(from_string(r, text)[0]), "TG_ERR_RULES_MISMATCH", "from_string(%r)" % text)
    h = "halusa:remainder=last-mover,quiet=100 "
    bad = [
        "", "halusa", h.strip(), "nosuch 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:quiet=1001 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:bogus=1 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0",                       # quiet field missing
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 ",              # trailing space
        h + "6,6,6,6,6,6/6,6,6,6,6,6  0 0,0 quiet=0",              # double space
        h + "6,6,6,6,6,6/6,6,6,6,6,7 0 0,0 quiet=0",               # 73 counters
        h + "6,6,6,6,6,6/6,6,6,6,6,5 0 0,0 quiet=0",               # 71
        h + "6,6,6,6,6,6/6,6,6,6,6 0 0,0 quiet=0",                 # short row
        h + "6,6,6,6,6,6/6,6,6,6,6,6,0 0 0,0 quiet=0",             # long row
        h + "6,6,6,6,6,6/6,6,6,6,6,6/0,0,0,0,0,0 0 0,0 quiet=0",   # three rows
        h + "6,6,6,6,6,6/6,6,6,6,6,6 2 0,0 quiet=0",               # no player 2
        h + "6,6,6,6,6,6/6,6,6,6,6,6 c0 0,0 quiet=0",              # no chance in Halusa
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=x",
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 winner=0",      # running game with a result
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0 quiet=0",
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0,0 quiet=0",
        h + "6,6,6,6,6,6/06,6,6,6,6,6 0 0,0 quiet=0",              # leading zero
        h + "6,6,6,6,6,6/-6,6,6,6,6,18 0 0,0 quiet=0",
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 foo=1",
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 36,36 quiet=0",             # finished without a winner
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 36,36 quiet=0 winner=0",    # wrong winner
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=0 winner=1",
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=0 winner=",
        h + "1,0,0,0,0,0/0,0,0,0,0,0 - 40,31 quiet=0 winner=0",    # finished, board not empty
        h + "0,0,0,0,0,0/0,0,0,0,0,2 1 40,30 quiet=0",             # player 1 to move, row empty
        h + "0,0,0,0,0,0/0,0,0,2,0,0 0 40,30 quiet=0",             # must feed: d1 (2) can't
        h + "6,0,0,0,0,0/0,0,0,0,0,0 0 36,30 quiet=0",             # player 0 row empty
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=100",             # the limit ends a game
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=1001",
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 36,36 quiet=101 winner=draw",
    ]
    for text in bad:
        rc, t = from_string(r, text)
        T.eq(st_name(rc), "TG_ERR_PARSE", "tg_state_from_string(%r)" % text)
        if t:
            L.tg_state_free(t)
    good = [
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 36,36 quiet=0 winner=draw",
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=0",
        h + "0,0,0,0,0,0/0,0,0,0,1,1 0 40,30 quiet=0",             # must feed: f1, not e1
        h + "1,0,0,0,0,0/0,0,0,0,0,1 1 36,34 quiet=5",
        h + "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=99",
        h + "0,0,0,0,0,0/0,0,0,0,0,0 - 37,35 quiet=100 winner=0",  # odd: remainders
    ]
    for text in good:
        rc, t = from_string(r, text)
        if T.eq(st_name(rc), "TG_OK", "tg_state_from_string(%r)" % text):
            T.eq(to_string(t), text, "round trip of %r" % text)
            T.eq(L.tg_state_ply(t), 0, "ply of a state from a string")
            T.eq(history_of(t), [], "history of a state from a string")
            T.eq(st_name(L.tg_state_undo(t)), "TG_ERR_NO_HISTORY", "undo of a state from a string")
            model = Halusa.from_string(text)
            T.eq(moves_of(t), model.legal(), "legal moves of %r" % text)
            L.tg_state_free(t)
    L.tg_state_free(s)
    L.tg_rules_free(r)


def check_worked_examples():
    """rules/halusa.md, 'Worked examples'."""
    h = "halusa:remainder=last-mover,quiet=100 "
    r = new_rules("halusa")

    def play(start, moves, expect_board=None, expect=None, legal_after=None, name=""):
        if start is None:
            s = new_state(r)
        else:
            rc, s = from_string(r, start)
            if not T.eq(st_name(rc), "TG_OK", "%s: from_string" % name):
                return
        for mv_text in moves:
            mv = c_uint32(0)
            rc = L.tg_move_from_string(s, mv_text.encode(), ctypes.byref(mv))
            rc = rc or L.tg_state_apply(s, mv.value)
            if not T.eq(st_name(rc), "TG_OK", "%s: play %s" % (name, mv_text)):
                L.tg_state_free(s)
                return
        text = to_string(s)
        if expect_board is not None:
            T.eq(text.split()[1], expect_board, "%s: board" % name)
        if expect is not None:
            T.eq(text, expect, "%s: position" % name)
        if legal_after is not None:
            T.eq([move_name(s, m) for m in moves_of(s)], legal_after, "%s: legal moves" % name)
        L.tg_state_free(s)
        return text

    play(None, ["b1"], "6,6,6,6,7,7/6,0,7,7,7,7", name="example 1 (Hyde's opening)")
    play(None, ["b1", "b2"], "7,0,6,6,7,7/7,1,8,8,8,7", name="example 2 (Hyde's reply)")
    play(h + "1,0,0,0,0,1/2,1,3,0,0,0 0 32,32 quiet=0", ["a1"],
         expect=h + "1,0,0,0,0,1/0,0,0,0,0,0 1 38,32 quiet=0", legal_after=["a2"],
         name="example 3 (backward chain)")
    play(h + "0,0,0,0,0,0/0,0,0,1,1,2 0 34,34 quiet=0", [], legal_after=["f1"],
         name="example 4 (must feed)")
    play(h + "0,1,1,1,1,1/12,1,1,1,1,1 0 26,24 quiet=0", ["a1"],
         expect=h + "1,2,2,2,2,2/1,2,2,2,2,2 1 26,24 quiet=1", name="example 5 (full lap)")
    start6 = h + "1,0,0,0,0,0/0,0,0,0,0,1 0 32,38 quiet=0"
    cycle = ["f1", "a2", "a1", "f2", "b1", "e2", "c1", "d2", "d1", "c2", "e1", "b2"]
    rc, s = from_string(r, start6)
    if T.eq(st_name(rc), "TG_OK", "example 6: from_string"):
        for ply in range(100):
            legal = [move_name(s, m) for m in moves_of(s)]
            if not T.eq(legal, [cycle[ply % 12]], "example 6: legal moves at ply %d" % ply):
                break
            L.tg_state_apply(s, moves_of(s)[0])
            if ply == 11:
                T.eq(to_string(s), start6.replace("quiet=0", "quiet=12"), "example 6: ply 12")
        T.eq(to_string(s), h + "0,0,0,0,0,0/0,0,0,0,0,0 - 33,39 quiet=100 winner=1",
             "example 6: the quiet limit")
        T.eq(L.tg_state_winner(s), 1, "example 6: winner")
        T.eq((L.tg_state_score(s, 0), L.tg_state_score(s, 1)), (33, 39), "example 6: scores")
        L.tg_state_free(s)
    L.tg_rules_free(r)


def api_matches_model(s, model, where, rules_max):
    """Every query of the API against the model at one position. Returns the legal list."""
    text = to_string(s)
    if not T.eq(text, model.to_string(), "%s: position string" % where):
        return None
    legal = moves_of(s)
    T.eq(legal, model.legal(), "%s: legal moves" % where)
    T.check(len(legal) <= rules_max, "%s: more moves than tg_rules_max_moves" % where)
    T.eq(L.tg_state_player(s), model.player(), "%s: tg_state_player" % where)
    T.eq(L.tg_state_turn(s), model.player(), "%s: tg_state_turn" % where)
    T.eq(L.tg_state_is_terminal(s), model.over, "%s: tg_state_is_terminal" % where)
    T.eq(L.tg_state_winner(s), model.winner_code(), "%s: tg_state_winner" % where)
    T.eq([L.tg_state_score(s, 0), L.tg_state_score(s, 1)], model.score, "%s: scores" % where)
    T.eq(returns_of(s), model.returns(), "%s: tg_state_returns" % where)
    T.eq(chance_of(s), ([], []), "%s: chance outcomes" % where)
    for cell in range(12):
        row, col = divmod(cell, 6)
        T.eq(L.tg_state_count(s, row, col), model.cells[cell], "%s: count %s" % (where,
                                                                                 CELL_NAMES[cell]))
        T.eq(L.tg_state_owner(s, row, col), row, "%s: owner %s" % (where, CELL_NAMES[cell]))
        T.eq(L.tg_state_flags(s, row, col), 0, "%s: flags %s" % (where, CELL_NAMES[cell]))
    for m in list(range(13)) + [MOVE_PASS, 0xFFFFFFFF, 1 << 24]:
        T.eq(L.tg_state_is_legal(s, m), m in legal, "%s: tg_state_is_legal(%#x)" % (where, m))
    return legal


def check_round_trip(rules, s, where):
    rc, t = from_string(rules, to_string(s))
    if not T.eq(st_name(rc), "TG_OK", "%s: from_string(to_string)" % where):
        return
    T.check(L.tg_state_equal(s, t), "%s: from_string(to_string) not equal" % where)
    T.eq(L.tg_state_hash(t), L.tg_state_hash(s), "%s: hash after round trip" % where)
    T.eq(to_string(t), to_string(s), "%s: string after round trip" % where)
    L.tg_state_free(t)


def check_illegal_applies(s, legal, where):
    before = (to_string(s), L.tg_state_hash(s), L.tg_state_ply(s), len(history_of(s)))
    terminal = L.tg_state_is_terminal(s)
    for m in [m for m in range(12) if m not in legal] + [12, MOVE_PASS, 0xFFFFFFFF]:
        rc = L.tg_state_apply(s, m)
        T.eq(st_name(rc), "TG_ERR_GAME_OVER" if terminal else "TG_ERR_ILLEGAL_MOVE",
             "%s: apply of %#x" % (where, m))
    after = (to_string(s), L.tg_state_hash(s), L.tg_state_ply(s), len(history_of(s)))
    T.eq(after, before, "%s: a refused apply changed the state" % where)


def play_halusa_game(spec, remainder, quiet, seed, mode, max_plies=3000):
    """One game: mode 'random' (tg_state_apply_random, choice predicted) or 'python'."""
    rules = new_rules(spec)
    rules_max = L.tg_rules_max_moves(rules)
    s = new_state(rules)
    model = Halusa(remainder, quiet)
    T.eq(L.tg_rules_spec(rules).decode(), model.spec, "canonical spec of %r" % spec)
    rng = c_uint64(seed)
    predicted = seed
    pyrng = random.Random(seed)
    texts = [model.to_string()]
    ply_hashes = []
    played = []
    hashes = {}
    ply = 0
    while True:
        where = "%s seed %d (%s) ply %d [%s]" % (spec, seed, mode, ply, texts[-1])
        legal = api_matches_model(s, model, where, rules_max)
        if legal is None:
            break
        T.eq(L.tg_state_ply(s), ply, "%s: tg_state_ply" % where)
        # Equal positions have equal hashes.
        h = L.tg_state_hash(s)
        ply_hashes.append(h)
        if texts[-1] in hashes:
            T.eq(h, hashes[texts[-1]], "%s: hash of a repeated position" % where)
        hashes[texts[-1]] = h
        if ply % 7 == 0 or model.over:
            check_round_trip(rules, s, where)
        if ply % 11 == 3 or model.over:
            check_illegal_applies(s, legal, where)
        if model.over or ply >= max_plies:
            break
        if mode == "random":
            predicted, index = uniform_below(predicted, len(legal))
            rc = L.tg_state_apply_random(s, ctypes.byref(rng))
            T.eq(st_name(rc), "TG_OK", "%s: apply_random" % where)
            T.eq(rng.value, predicted, "%s: generator state after apply_random" % where)
            predicted = rng.value
            got = history_of(s)[-1]
            T.eq(got, legal[index], "%s: apply_random's choice (splitmix64 + Lemire)" % where)
            move = got
        else:
            move = pyrng.choice(model.legal())
            if pyrng.random() < 0.5:
                mv = c_uint32(0xFFFF)
                rc = L.tg_move_from_string(s, CELL_NAMES[move].encode(), ctypes.byref(mv))
                T.eq((st_name(rc), mv.value), ("TG_OK", move), "%s: parse %s" % (where,
                                                                               CELL_NAMES[move]))
            T.eq(move_name(s, move), CELL_NAMES[move], "%s: move name" % where)
            rc = L.tg_state_apply(s, move)
            if not T.eq(st_name(rc), "TG_OK", "%s: apply %s" % (where, CELL_NAMES[move])):
                break
        if move not in model.legal():
            T.fail("%s: the library played %r, which the model says is illegal" % (where, move))
            break
        model.apply(move)
        played.append(move)
        texts.append(model.to_string())
        ply += 1

    # After the end: no moves, refusals, history, undo all the way back.
    if model.over:
        before = rng.value
        T.eq(st_name(L.tg_state_apply_random(s, ctypes.byref(rng))), "TG_ERR_GAME_OVER",
             "%s seed %d: apply_random after the end" % (spec, seed))
        T.eq(rng.value, before, "%s seed %d: rng advanced at the end" % (spec, seed))
        n = c_size_t(99)
        T.eq((st_name(L.tg_state_playout(s, ctypes.byref(rng), 10, ctypes.byref(n))), n.value),
             ("TG_OK", 0), "%s seed %d: playout of a finished game" % (spec, seed))
        # That playout cleared the history (documented), so check it on a replay instead.
        L.tg_state_free(s)
        s = new_state(rules)
        for m in played:
            L.tg_state_apply(s, m)
    T.eq(history_of(s), played, "%s seed %d: history" % (spec, seed))
    clone = SP()
    T.eq(st_name(L.tg_state_clone(s, ctypes.byref(clone))), "TG_OK", "clone")
    for i in range(len(played), 0, -1):
        rc = L.tg_state_undo(clone)
        if not T.eq(st_name(rc), "TG_OK", "%s seed %d: undo to ply %d" % (spec, seed, i - 1)):
            break
        if not T.eq(to_string(clone), texts[i - 1], "%s seed %d: undo to ply %d" % (spec, seed,
                                                                                    i - 1)):
            break
        T.eq(L.tg_state_ply(clone), i - 1, "ply after undo")
        T.eq(L.tg_state_hash(clone), ply_hashes[i - 1], "hash after undo to ply %d" % (i - 1))
    T.eq(st_name(L.tg_state_undo(clone)), "TG_ERR_NO_HISTORY", "undo at the root")
    T.eq(to_string(s), texts[-1], "undo on a clone changed the original")
    L.tg_state_free(clone)
    L.tg_state_free(s)
    L.tg_rules_free(rules)
    return played, texts


def check_halusa_games(games, base_seed):
    Halusa.seen = {}
    for i in range(games):
        spec, remainder, quiet = HALUSA_SPECS[i % len(HALUSA_SPECS)]
        mode = "random" if i % 2 == 0 else "python"
        seed = (base_seed * 1000003 + i * 0x9E3779B1) & M64
        play_halusa_game(spec, remainder, quiet, seed, mode)
    if games >= 100:
        for what in ("must-feed excluded a move", "a sowing of a full lap or more",
                     "a capture chain of two holes or more",
                     "an end without a legal move, remainder=last-mover, counters left",
                     "an end without a legal move, remainder=owner, counters left",
                     "an end by an unfed opponent row", "an end by the quiet limit",
                     "a draw", "a win of player 0", "a win of player 1"):
            T.check(Halusa.seen.get(what, 0) > 0, "the random games never reached %s" % what)
    print("# Halusa model saw: " + "; ".join("%s %d" % kv for kv in sorted(Halusa.seen.items())))


def check_playout(games, base_seed):
    """tg_state_playout draws as tg_state_apply_random does: same seed, same game."""
    for i in range(games):
        spec = HALUSA_SPECS[i % len(HALUSA_SPECS)][0]
        seed = (base_seed + 7919 * i) & M64
        rules = new_rules(spec)
        a = new_state(rules)
        b = new_state(rules)
        limit = 500 if i % 3 == 0 else 5000
        ra, rb = c_uint64(seed), c_uint64(seed)
        steps = 0
        while not L.tg_state_is_terminal(a) and steps < limit:
            L.tg_state_apply_random(a, ctypes.byref(ra))
            steps += 1
        plies = c_size_t(12345)
        rc = L.tg_state_playout(b, ctypes.byref(rb), limit, ctypes.byref(plies))
        T.eq(st_name(rc), "TG_OK", "playout")
        T.eq(plies.value, steps, "%s seed %d: playout plies" % (spec, seed))
        T.eq(rb.value, ra.value, "%s seed %d: generator after playout" % (spec, seed))
        T.eq(to_string(b), to_string(a), "%s seed %d: playout's final position" % (spec, seed))
        T.check(L.tg_state_equal(a, b), "%s seed %d: playout equal" % (spec, seed))
        T.eq(L.tg_state_ply(b), steps, "ply after playout")
        T.eq(history_of(b), [], "history after playout")
        # The counting playout plays the same game.
        d = new_state(rules)
        rd = c_uint64(seed)
        stats = (c_uint64 * 4)()
        rc = L.tg_state_playout_stats(d, ctypes.byref(rd), limit, stats, 4)
        T.eq(st_name(rc), "TG_OK", "playout_stats")
        T.eq((to_string(d), rd.value), (to_string(a), ra.value), "playout_stats plays the same game")
        T.eq((stats[0], stats[1] + stats[2], stats[2]), (steps, steps, 0),
             "playout_stats: plies, decisions + chance, chance (Halusa has none)")
        T.check(stats[3] >= stats[1], "playout_stats: every Halusa move sows")
        L.tg_state_free(d)
        T.eq(st_name(L.tg_state_undo(b)), "TG_ERR_NO_HISTORY", "undo after playout")
        # A max of 0 makes no move; a small max stops early.
        c = new_state(rules)
        T.eq((st_name(L.tg_state_playout(c, ctypes.byref(rb), 0, ctypes.byref(plies))),
              plies.value, L.tg_state_ply(c)), ("TG_OK", 0, 0), "playout with max 0")
        rc = L.tg_state_playout(c, ctypes.byref(rb), 3, None)
        T.eq(st_name(rc), "TG_OK", "playout with max 3 and NULL plies")
        T.check(L.tg_state_ply(c) == 3 or (L.tg_state_ply(c) < 3 and L.tg_state_is_terminal(c)),
                "%s: playout with max 3 made %d plies" % (spec, L.tg_state_ply(c)))
        for st in (a, b, c):
            L.tg_state_free(st)
        L.tg_rules_free(rules)


def check_perft(base_seed):
    for spec, remainder, quiet in HALUSA_SPECS:
        rules = new_rules(spec)
        s = new_state(rules)
        model = Halusa(remainder, quiet)
        for depth in range(0, 6):
            T.eq(L.tg_perft(s, depth), model.perft(depth), "%s perft(start, %d)" % (spec, depth))
        # Positions along a random game.
        rng = c_uint64((base_seed ^ zlib.crc32(spec.encode())) & M64)
        ply = 0
        while not L.tg_state_is_terminal(s):
            ply += 1
            L.tg_state_apply_random(s, ctypes.byref(rng))
            if ply % 9 == 0:
                m = Halusa.from_string(to_string(s))
                for depth in (1, 2, 3):
                    T.eq(L.tg_perft(s, depth), m.perft(depth),
                         "%s perft(%s, %d)" % (spec, to_string(s), depth))
        T.eq(L.tg_perft(s, 0), 1, "perft of a finished game at depth 0")
        T.eq(L.tg_perft(s, 1), 0, "perft of a finished game at depth 1")
        L.tg_state_free(s)
        L.tg_rules_free(rules)


def check_state_lifetimes():
    r = new_rules("halusa:remainder=owner,quiet=50")
    s = new_state(r)
    L.tg_rules_free(r)  # the state keeps its own copy
    sr = L.tg_state_rules(s)
    T.eq(L.tg_rules_spec(sr), b"halusa:remainder=owner,quiet=50", "rules of a state outlive r")
    rng = c_uint64(3)
    for _ in range(10):
        L.tg_state_apply_random(s, ctypes.byref(rng))
    c = SP()
    L.tg_state_clone(s, ctypes.byref(c))
    T.eq(history_of(c), history_of(s), "clone keeps the history")
    T.eq(L.tg_state_ply(c), 10, "clone keeps the ply")
    T.check(L.tg_state_equal(c, s), "clone equal")
    L.tg_state_apply_random(c, ctypes.byref(rng))
    T.eq(L.tg_state_ply(s), 10, "a move on the clone moved the original")
    # copy: position and ply, history cleared; into itself: only the history is cleared.
    d = new_state(L.tg_state_rules(s))
    T.eq(st_name(L.tg_state_copy(d, s)), "TG_OK", "copy")
    T.check(L.tg_state_equal(d, s), "copy equal")
    T.eq(L.tg_state_ply(d), 10, "copy keeps the ply")
    T.eq(history_of(d), [], "copy clears the history")
    T.eq(st_name(L.tg_state_copy(c, c)), "TG_OK", "copy into itself")
    T.eq(history_of(c), [], "copy into itself clears the history")
    T.eq(L.tg_state_ply(c), 11, "copy into itself keeps the ply")
    other_rules = new_rules("halusa")
    o = new_state(other_rules)
    before = to_string(o)
    T.eq(st_name(L.tg_state_copy(o, s)), "TG_ERR_RULES_MISMATCH", "copy across rule sets")
    T.eq(to_string(o), before, "a refused copy changed the state")
    T.check(not L.tg_state_equal(o, s), "states of different rule sets equal")
    for st in (s, c, d, o):
        L.tg_state_free(st)
    L.tg_rules_free(other_rules)


def check_every_game(games_per_game, base_seed):
    """Generic checks that hold for every registered game, chance games included."""
    for gi in range(L.tg_game_count()):
        gid = L.tg_game_id(gi).decode()
        rules = new_rules(gid)
        rows, cols = L.tg_rules_rows(rules), L.tg_rules_cols(rules)
        max_moves = L.tg_rules_max_moves(rules)
        for g in range(games_per_game):
            s = new_state(rules)
            rng = c_uint64((base_seed * 31 + g) & M64)
            texts = [to_string(s)]
            ply = 0
            while True:
                where = "%s game %d ply %d [%s]" % (gid, g, ply, texts[-1])
                player, turn = L.tg_state_player(s), L.tg_state_turn(s)
                to_move = texts[-1].split()[2]
                moves = moves_of(s, check=(ply % 13 == 0))
                outs, probs = chance_of(s, check=(ply % 13 == 0))
                if player == TERMINAL:
                    T.eq(to_move, "-", "%s: TO_MOVE of a finished game" % where)
                    T.eq((turn, moves, outs), (TERMINAL, [], []), "%s: finished" % where)
                    T.check(L.tg_state_is_terminal(s), "%s: is_terminal" % where)
                    w = L.tg_state_winner(s)
                    T.check(w in (0, 1, DRAW), "%s: winner %d" % (where, w))
                    T.check(texts[-1].split()[-1] == "winner=%s" % ("draw" if w == DRAW else w),
                            "%s: winner field last" % where)
                elif player == CHANCE:
                    T.eq(to_move, "c%d" % turn, "%s: TO_MOVE at chance" % where)
                    T.eq(moves, [], "%s: decisions at a chance state" % where)
                    T.check(len(outs) > 0, "%s: no outcomes at a chance state" % where)
                    T.check(abs(sum(probs) - 1.0) < 1e-9, "%s: probabilities sum" % where)
                    T.check(all(p > 0 for p in probs), "%s: probabilities positive" % where)
                    T.eq(outs, sorted(set(outs)), "%s: outcomes ascending" % where)
                    T.check(len(outs) <= max_moves, "%s: outcomes above max" % where)
                else:
                    T.check(player in (0, 1) and turn == player, "%s: player %d turn %d" % (
                        where, player, turn))
                    T.eq(to_move, str(player), "%s: TO_MOVE" % where)
                    T.eq(outs, [], "%s: outcomes at a decision" % where)
                    T.check(len(moves) > 0, "%s: no decisions" % where)
                    T.eq(moves, sorted(set(moves)), "%s: decisions ascending, unique" % where)
                    T.check(len(moves) <= max_moves, "%s: decisions above max" % where)
                    T.eq(L.tg_state_winner(s), NO_WINNER_YET, "%s: winner while running" % where)
                for m in moves + outs:
                    name = move_name(s, m)
                    mv = c_uint32(0)
                    rc = L.tg_move_from_string(s, name.encode(), ctypes.byref(mv))
                    T.eq((st_name(rc), mv.value), ("TG_OK", m), "%s: parse %r" % (where, name))
                    T.check(L.tg_state_is_legal(s, m), "%s: %s not legal" % (where, name))
                for row in range(rows):
                    for col in range(cols):
                        T.check(L.tg_state_count(s, row, col) >= 0, "%s: count(%d, %d)" % (
                            where, row, col))
                if ply % 5 == 0 or player == TERMINAL:
                    check_round_trip(rules, s, where)
                if player == TERMINAL or ply > 20000:
                    break
                rc = L.tg_state_apply_random(s, ctypes.byref(rng))
                if not T.eq(st_name(rc), "TG_OK", "%s: apply_random" % where):
                    break
                T.check(history_of(s)[-1] in moves + outs, "%s: random move not offered" % where)
                texts.append(to_string(s))
                ply += 1
            for i in range(len(texts) - 1, 0, -1):
                if L.tg_state_undo(s) != OK or to_string(s) != texts[i - 1]:
                    T.fail("%s game %d: undo to ply %d gave %s" % (gid, g, i - 1, to_string(s)))
                    break
            T.eq(L.tg_state_undo(s), NO_HISTORY, "%s: undo at the root" % gid)
            L.tg_state_free(s)
        L.tg_rules_free(rules)


# --------------------------------------------------------------------------------------------
# Bots

GOOD_BOT_SPECS = ["random", "greedy", "mcts", "mcts:iterations=1", "mcts:iterations=10000000",
                  "mcts:c=0", "mcts:c=1.4", "mcts:c=100", "mcts:iterations=5,c=0.25",
                  "mcts:c=0.25,iterations=5", "mcts:c=99.999999"]
BAD_BOT_SPECS = ["", "Random", "MCTS", "minimax", "random:", "greedy:iterations=5", "mcts:",
                 "mcts:iterations", "mcts:iterations=", "mcts:iterations=0",
                 "mcts:iterations=10000001", "mcts:iterations=-1", "mcts:iterations=+5",
                 "mcts:iterations=05", "mcts:iterations=1e3", "mcts:iterations=5,",
                 "mcts:,iterations=5", "mcts:iterations=5,iterations=5", "mcts:c=1,c=1",
                 "mcts:c=100.5", "mcts:c=.5", "mcts:c=1.", "mcts:c=1.1234567", "mcts:c=1000",
                 "mcts:seed=1", "mcts: iterations=5", "mcts:iterations=5x",
                 "mcts:iterations=" + "9" * 10000, "greedy" + "x" * 10000]
MOVE_SENTINEL = 0xA5A5A5A5
RNG_SENTINEL = 0x0123456789ABCDEF


def bot_choose(s, spec, seed):
    """(status, move, rng after) of one tg_bot_choose call."""
    rng = c_uint64(seed)
    out = c_uint32(MOVE_SENTINEL)
    rc = L.tg_bot_choose(s, None if spec is None else spec.encode(), ctypes.byref(rng),
                         ctypes.byref(out))
    return rc, out.value, rng.value


def snapshot(s):
    return (to_string(s), L.tg_state_hash(s), L.tg_state_ply(s), history_of(s))


def check_bot_specs():
    for spec in GOOD_BOT_SPECS:
        T.eq(st_name(L.tg_bot_check(spec.encode())), "TG_OK", "tg_bot_check(%r)" % spec)
    for spec in BAD_BOT_SPECS:
        T.eq(st_name(L.tg_bot_check(spec.encode())), "TG_ERR_BAD_OPTION",
             "tg_bot_check(%r)" % spec[:40])
    T.eq(st_name(L.tg_bot_check(None)), "TG_ERR_INVALID_ARGUMENT", "tg_bot_check(NULL)")


def check_bot_start_positions():
    bots = ["random", "greedy", "mcts:iterations=50", "mcts:iterations=1,c=0"]
    for i in range(L.tg_game_count()):
        gid = L.tg_game_id(i).decode()
        rules = new_rules(gid)
        s = new_state(rules)
        L.tg_state_apply_random(s, ctypes.byref(c_uint64(i)))  # a short history
        before = snapshot(s)
        player = L.tg_state_player(s)
        for bot in bots:
            for seed in (1, 2, 0xFFFFFFFFFFFFFFFF):
                where = "%s, %s, seed %d [%s]" % (gid, bot, seed, before[0])
                rc, m, rng = bot_choose(s, bot, seed)
                if not T.eq(st_name(rc), "TG_OK", where):
                    continue
                T.check(L.tg_state_is_legal(s, m), "%s: move %d not legal" % (where, m))
                if player == CHANCE:
                    T.check(m in chance_of(s)[0], "%s: not a chance outcome" % where)
                T.eq(snapshot(s), before, "%s: the state changed" % where)
                T.eq(bot_choose(s, bot, seed), (rc, m, rng), "%s: not deterministic" % where)
                if bot == "random" or player == CHANCE:
                    c = SP()
                    T.eq(L.tg_state_clone(s, ctypes.byref(c)), OK, "clone")
                    r = c_uint64(seed)
                    L.tg_state_apply_random(c, ctypes.byref(r))
                    T.eq((history_of(c)[-1], r.value), (m, rng),
                         "%s: not as tg_state_apply_random" % where)
                    L.tg_state_free(c)
        L.tg_state_free(s)
        L.tg_rules_free(rules)


def check_bot_game():
    """Greedy against random in Halusa, every move of both through tg_bot_choose."""
    rules = new_rules("halusa")
    results = []
    for game in range(4):
        s = new_state(rules)
        rng = c_uint64(7000 + game)
        greedy_seat = game % 2
        plies = 0
        while not L.tg_state_is_terminal(s) and plies < 10000:
            bot = b"greedy" if L.tg_state_turn(s) == greedy_seat else b"random"
            out = c_uint32(MOVE_SENTINEL)
            before = rng.value
            rc = L.tg_bot_choose(s, bot, ctypes.byref(rng), ctypes.byref(out))
            if not T.eq(st_name(rc), "TG_OK", "game %d ply %d: %s" % (game, plies, bot)):
                break
            if bot == b"random":
                T.check(rng.value != before, "game %d ply %d: random did not draw" % (game, plies))
            T.eq(st_name(L.tg_state_apply(s, out.value)), "TG_OK",
                 "game %d ply %d: apply %s's move" % (game, plies, bot))
            plies += 1
        T.check(L.tg_state_is_terminal(s), "game %d did not end" % game)
        w = L.tg_state_winner(s)
        results.append(1 if w == greedy_seat else (-1 if w == 1 - greedy_seat else 0))
        print("# ctypes greedy vs random, halusa game %d: %d plies, winner %d, scores %d-%d" % (
            game, plies, w, L.tg_state_score(s, 0), L.tg_state_score(s, 1)))
        # The finished game: nothing to choose, and nothing touched.
        before = snapshot(s)
        for bot in ("random", "greedy", "mcts"):
            T.eq(bot_choose(s, bot, RNG_SENTINEL), (GAME_OVER, MOVE_SENTINEL, RNG_SENTINEL),
                 "game %d finished: %s" % (game, bot))
        T.eq(snapshot(s), before, "game %d: a failed choice changed the state" % game)
        L.tg_state_free(s)
    T.check(sum(results) > 0, "greedy did not beat random over 4 games: %r" % results)
    L.tg_rules_free(rules)


def check_bot_errors():
    rules = new_rules("hus")
    s = new_state(rules)
    L.tg_state_apply_random(s, ctypes.byref(c_uint64(3)))
    before = snapshot(s)
    for spec in BAD_BOT_SPECS:
        T.eq(bot_choose(s, spec, RNG_SENTINEL), (BAD_OPTION, MOVE_SENTINEL, RNG_SENTINEL),
             "tg_bot_choose(%r)" % spec[:40])
    T.eq(bot_choose(s, None, RNG_SENTINEL), (INVALID, MOVE_SENTINEL, RNG_SENTINEL),
         "tg_bot_choose with a NULL spec")
    T.eq(bot_choose(None, "greedy", RNG_SENTINEL), (INVALID, MOVE_SENTINEL, RNG_SENTINEL),
         "tg_bot_choose with a NULL state")
    rng = c_uint64(RNG_SENTINEL)
    out = c_uint32(MOVE_SENTINEL)
    T.eq(L.tg_bot_choose(s, b"greedy", None, ctypes.byref(out)), INVALID, "NULL rng")
    T.eq(L.tg_bot_choose(s, b"greedy", ctypes.byref(rng), None), INVALID, "NULL out")
    T.eq((rng.value, out.value), (RNG_SENTINEL, MOVE_SENTINEL), "NULL arguments touched outputs")
    T.eq(snapshot(s), before, "a failed tg_bot_choose changed the state")
    L.tg_state_free(s)
    L.tg_rules_free(rules)


def check_egtb():
    """A Halusa database built, opened and probed through ctypes: every probe agrees with a
    minimax written here over the public move API; bad arguments and foreign positions are
    refused with their statuses."""
    import shutil
    import tempfile
    spec = b"halusa:remainder=last-mover,quiet=3"
    rules = RP()
    T.eq(L.tg_rules_new(spec, ctypes.byref(rules)), OK, "tg_rules_new")
    T.eq(L.tg_egtb_supported(rules), 0, "halusa with a quiet limit is supported")
    other = RP()
    T.eq(L.tg_rules_new(b"hus", ctypes.byref(other)), OK, "tg_rules_new hus")
    T.eq(L.tg_egtb_supported(other), 2, "hus: TG_EGTB_UNSUPPORTED")
    directory = tempfile.mkdtemp(prefix="tg-egtb-ctypes-")
    tiers = []
    progress = EGTB_PROGRESS(lambda ctx, report: tiers.append(report.contents.counters))
    try:
        T.eq(L.tg_egtb_build(None, directory.encode(), 4, 1, progress, None), 1,
             "build without rules: TG_EGTB_BAD_ARGUMENT")
        T.eq(L.tg_egtb_build(rules, directory.encode(), 4, 2, progress, None), 0, "build")
        T.eq(tiers, [2, 4], "one progress report per counter number (Halusa's are even)")
        db = EP()
        T.eq(L.tg_egtb_open(directory.encode(), rules, ctypes.byref(db)), 0, "open")
        T.eq(L.tg_egtb_max_counters(db), 4, "max counters")
        T.eq(L.tg_egtb_max_counters(None), 0, "max counters of NULL")
        T.check(L.tg_egtb_status_string(5), "a status string for TG_EGTB_DAMAGED")
        value = EgtbValue()
        start = SP()
        T.eq(L.tg_state_new(rules, ctypes.byref(start)), OK, "tg_state_new")
        T.eq(L.tg_egtb_probe(db, start, ctypes.byref(value)), 3,
             "the start (48 counters): TG_EGTB_NOT_IN_DATABASE")
        T.eq(L.tg_egtb_probe(db, None, ctypes.byref(value)), 1, "probe NULL state")
        L.tg_state_free(start)
        memo = {}

        def margin(state, seat):
            """seat's final score minus the other's, both sides maximising their own."""
            if L.tg_state_is_terminal(state):
                return L.tg_state_score(state, seat) - L.tg_state_score(state, 1 - seat)
            buf = ctypes.create_string_buffer(256)
            T.eq(L.tg_state_to_string(state, buf, 256, None), OK, "tg_state_to_string")
            key = (buf.value, seat)
            if key in memo:
                return memo[key]
            mover = L.tg_state_player(state)
            moves, n = (c_uint32 * 64)(), c_size_t()
            T.eq(L.tg_state_moves(state, moves, 64, ctypes.byref(n)), OK, "tg_state_moves")
            best = None
            for i in range(n.value):
                T.eq(L.tg_state_apply(state, moves[i]), OK, "apply")
                v = margin(state, mover)
                T.eq(L.tg_state_undo(state), OK, "undo")
                best = v if best is None else max(best, v)
            memo[key] = best if mover == seat else -best
            return memo[key]

        reader = POINTER(EgtbReader)()
        T.eq(L.tg_egtb_reader_new(db, ctypes.byref(reader)), 0, "tg_egtb_reader_new")
        handle = HP()
        T.eq(L.tg_search_new(b"search:depth=2", ctypes.byref(handle)), OK, "tg_search_new")
        T.eq(L.tg_search_set_egtb(handle, db), OK, "tg_search_set_egtb")
        rng = random.Random(44)
        probed = 0
        searched = 0
        for _ in range(400):
            counters = rng.choice([2, 4])
            holes = [0] * 12
            for _k in range(counters):
                holes[rng.randrange(12)] += 1
            banked = 72 - counters
            south = rng.randrange(banked + 1)
            text = "%s %s/%s %d %d,%d quiet=%d" % (
                spec.decode(), ",".join(map(str, holes[:6])), ",".join(map(str, holes[6:])),
                rng.randrange(2), south, banked - south, rng.randrange(3))
            state = SP()
            if L.tg_state_from_string(rules, text.encode(), ctypes.byref(state)) != OK:
                continue
            if L.tg_state_is_terminal(state):
                T.eq(L.tg_egtb_probe(db, state, ctypes.byref(value)), 3,
                     "a finished position is not in the database: " + text)
                L.tg_state_free(state)
                continue
            T.eq(L.tg_egtb_probe(db, state, ctypes.byref(value)), 0, "probe " + text)
            through_reader = EgtbValue()
            T.eq(L.tg_egtb_reader_probe(reader, state, ctypes.byref(through_reader)), 0,
                 "reader probe " + text)
            T.eq(bytes(through_reader), bytes(value), "the reader and the probe agree: " + text)
            if searched < 40:
                nodes = c_uint64()
                T.eq(L.tg_search_analyse(handle, state, ctypes.byref(nodes)), OK,
                     "analyse with the database: " + text)
                T.eq(L.tg_search_egtb_status(handle), 0, "no probe failed: " + text)
                best, exact = EgtbValue(), c_bool()
                T.eq(L.tg_search_result_exact(handle, 0, ctypes.byref(best), ctypes.byref(exact)),
                     OK, "tg_search_result_exact")
                T.check(exact.value, "a covered root's best move is exact: " + text)
                T.eq(best.final_margin, value.final_margin,
                     "the best move's exact margin is the position's: " + text)
                searched += 1
            if not value.endless:
                expected = margin(state, L.tg_state_player(state))
                T.eq(value.final_margin, expected, "final margin of " + text)
                T.eq(value.outcome, (expected > 0) - (expected < 0), "outcome of " + text)
                probed += 1
            L.tg_state_free(state)
        T.check(probed >= 100, "only %d positions probed and checked" % probed)
        T.check(searched == 40, "only %d positions searched with the database" % searched)
        T.eq(L.tg_search_set_egtb(handle, None), OK, "detach")
        L.tg_search_free(handle)
        L.tg_egtb_reader_free(reader)
        L.tg_egtb_reader_free(None)
        print("# endgame database through ctypes: %d positions agree with the minimax" % probed)
        L.tg_egtb_close(db)
        L.tg_egtb_close(None)
        db = EP()
        T.eq(L.tg_egtb_open(directory.encode(), other, ctypes.byref(db)), 2,
             "opening for Hus: TG_EGTB_UNSUPPORTED")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        L.tg_rules_free(rules)
        L.tg_rules_free(other)


def check_learning():
    """The learning interface through ctypes: at every ply of a random game of each game, the
    mask's ones are the legal moves; a batch steps, and refuses NULL and bad actions."""
    for i in range(L.tg_game_count()):
        spec = L.tg_game_id(i).decode()
        rules = new_rules(spec)
        s = new_state(rules)
        actions = L.tg_rules_action_count(rules)
        size = L.tg_rules_observation_size(rules)
        mask = (c_uint8 * actions)()
        obs = (c_float * size)()
        rng = c_uint64(7)
        for _ in range(300):
            if L.tg_state_is_terminal(s):
                break
            T.eq(L.tg_state_action_mask(s, mask, actions), OK, "%s: mask" % spec)
            count = c_size_t()
            T.eq(L.tg_state_moves(s, None, 0, ctypes.byref(count)), OK, "moves")
            T.eq(sum(mask), count.value, "%s: mask ones against legal moves" % spec)
            T.eq(L.tg_state_observation(s, 1, obs, size), OK, "%s: observation" % spec)
            T.eq(L.tg_state_apply_random(s, ctypes.byref(rng)), OK, "apply_random")
        batch = BP()
        T.eq(L.tg_batch_new(rules, 2, 5, ctypes.byref(batch)), OK, "%s: tg_batch_new" % spec)
        T.eq(L.tg_batch_size(batch), 2, "tg_batch_size")
        masks = (c_uint8 * (2 * actions))()
        T.eq(L.tg_batch_reset(batch, None, masks, None), OK, "tg_batch_reset")
        chosen = (c_uint32 * 2)(list(masks[:actions]).index(1), actions)
        status = (c_int32 * 2)()
        T.eq(L.tg_batch_step(batch, chosen, 0, None, masks, None, None, None, None, status),
             INVALID, "%s: tg_batch_step with an action out of range" % spec)
        T.eq(list(status), [OK, INVALID], "%s: per-state statuses" % spec)
        T.eq(L.tg_batch_step(None, chosen, 0, None, None, None, None, None, None, None), INVALID,
             "tg_batch_step(NULL)")
        L.tg_batch_free(batch)
        L.tg_state_free(s)
        L.tg_rules_free(rules)


def main():
    global L
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("library")
    ap.add_argument("header")
    ap.add_argument("--games", type=int, default=600, help="Halusa games against the model")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    try:
        L = bind(args.library)
    except (OSError, AttributeError) as e:
        print("1..1\nnot ok 1 - load and bind %s\n#   %s" % (args.library, e))
        return 1

    T.run("ctypes signatures match the header's TG_API declarations", check_signatures,
          args.header)
    T.run("version", check_version, args.header)
    T.run("status strings", check_status_strings)
    T.run("catalogue and canonical specs", check_catalogue)
    T.run("rule specs: accepted, canonical, rejected", check_specs)
    T.run("NULL and out-of-range arguments", check_null_handling)
    T.run("buffer contracts from Python", check_buffers)
    T.run("move notation", check_notation)
    T.run("position strings: spellings, invariants, rejections", check_position_strings)
    T.run("rules/halusa.md worked examples", check_worked_examples)
    T.run("state lifetimes, clone and copy", check_state_lifetimes)
    T.run("every registered game: generic random-game checks", check_every_game, 4, args.seed)
    T.run("Halusa perft against the model", check_perft, args.seed)
    T.run("tg_state_playout draws as tg_state_apply_random", check_playout, 40, args.seed)
    T.run("%d Halusa games cross-checked against the Python model at every ply" % args.games,
          check_halusa_games, args.games, args.seed)
    T.run("bots: tg_bot_check accepts and rejects specs", check_bot_specs)
    T.run("bots: every game from the start, legal, deterministic, state untouched",
          check_bot_start_positions)
    T.run("bots: whole games of greedy against random", check_bot_game)
    T.run("bots: error statuses change nothing", check_bot_errors)
    T.run("learning interface: masks, observations, a batch", check_learning)
    T.run("endgame database: built, probed, checked against a minimax", check_egtb)
    print("1..%d" % T.n)
    if T.failed:
        print("# %d of %d failed" % (T.failed, T.n))
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
