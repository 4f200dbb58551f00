#!/usr/bin/env bash
# Speed against a yardstick, measured in one invocation on one machine.
#
#   scripts/bench-anchor.sh [TG-BENCH-ARGUMENTS...]
#
# Builds the lean Oware random-playout engine ../shared/anchors/lean_oware.cc (override with
# LEAN_OWARE_SRC) with g++ -O3 -DNDEBUG into a temporary directory (never into the project),
# builds the project in release mode in build-bench/ (override with TG_BENCH_BUILD), then runs
# lean_oware and tools/tg-bench --json one after the other: half of lean_oware's runs
# before tg-bench and half after, so that the anchor straddles the measurement on a noisy
# shared machine. It prints tg-bench's tables, the lean numbers (medians of its runs), and the
# issue 10 targets as ratios with PASS or MISS:
#   - Halusa: ns per decision of random playouts <= 0.5 x lean Oware's ns per ply;
#   - Walak-pussa, Hus widths 8 and 16, Hawalis (both variants): ns per sown counter
#     <= 0.25 x lean Oware's ns per sown seed;
#   - Tab (every width): ns per event (decision or chance outcome) <= 1.0 x lean Oware's ns per
#     ply;
#   - every rule set: apply+undo through the public API <= 2 x the apply alone;
#   - every rule set: 2 threads >= 1.8 x the single-thread playout rate;
#   - Hus (every width) and Zanzibar Hawalis: ns per decision of random playouts <= 3 x lean
#     Oware's ns per ply (issue 16: these were 60 x before the lap limit);
# and the cost per decision of Hus at every width.
#
# Environment: BENCH_SECONDS (per run, default 0.5), BENCH_RUNS (default 5), LEAN_OWARE_SRC,
# TG_BENCH_BUILD. Arguments are passed to tg-bench (for example rule sets to measure only those;
# the targets of rule sets not measured are left out).
# Exit status 0 whatever the verdicts (this reports); non-zero only when something could not
# be built or run.
#
# Every rule set finishes in bounded time: under the default lap limit (laps=10000) one move
# is at most about 10,000 laps of work. A spec with laps=0 (exact judgement of endless moves)
# can take minutes: Hus and Zanzibar Hawalis meet cycles of 10^8 laps and more.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)

src=${LEAN_OWARE_SRC:-$top/../shared/anchors/lean_oware.cc}
build=${TG_BENCH_BUILD:-$top/build-bench}
case "$build" in /*) ;; *) build="$top/$build" ;; esac
seconds=${BENCH_SECONDS:-0.5}
runs=${BENCH_RUNS:-5}

die() { echo "bench-anchor.sh: $*" >&2; exit 1; }
[ -f "$src" ] || die "no anchor source at $src (set LEAN_OWARE_SRC)"
command -v g++ >/dev/null 2>&1 || die "g++ not found (scripts/setup-deps.sh installs it)"
command -v meson >/dev/null 2>&1 || die "meson not found (scripts/setup-deps.sh installs it)"
command -v python3 >/dev/null 2>&1 || die "python3 not found (scripts/setup-deps.sh installs it)"
case "$runs" in '' | *[!0-9]*) die "BENCH_RUNS must be a whole number" ;; esac
[ "$runs" -ge 1 ] || die "BENCH_RUNS must be at least 1"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-anchor.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "==== building the anchor $src (g++ -O3 -DNDEBUG, in $tmp)"
g++ -O3 -DNDEBUG -o "$tmp/lean_oware" "$src" || die "could not build $src"

echo "==== building the project (release) in $build"
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" --buildtype=release -Dtests=false -Ddocs=false \
    -Dexamples=true -Dfuzzers=false >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log" >&2; die "meson setup failed"; }
else
  meson setup "$build" --buildtype=release -Dtests=false -Ddocs=false \
    -Dexamples=true -Dfuzzers=false >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log" >&2; die "meson setup failed"; }
fi
meson compile -C "$build" >"$tmp/compile.log" 2>&1 ||
  { cat "$tmp/compile.log" >&2; die "build failed"; }
bench="$build/tools/tg-bench"
[ -x "$bench" ] || die "no $bench after the build"

# One lean_oware run: its whole output line, appended to $tmp/lean.txt.
lean_run() {
  "$tmp/lean_oware" "$seconds" xs >>"$tmp/lean.txt" || die "lean_oware failed"
}
before=$(((runs + 1) / 2))
after=$((runs - before))

echo "==== lean_oware: $before run(s) of 1 s warm-up + $seconds s"
for _ in $(seq "$before"); do lean_run; done
echo "==== tg-bench --json --seconds $seconds --runs $runs $*"
"$bench" --json --seconds "$seconds" --runs "$runs" "$@" >"$tmp/bench.json" ||
  die "tg-bench failed"
echo "==== lean_oware: $after run(s)"
for _ in $(seq "$after"); do lean_run; done

python3 - "$tmp/bench.json" "$tmp/lean.txt" <<'EOF'
import json, re, statistics, sys

bench = json.load(open(sys.argv[1]))
lean_lines = [l.strip() for l in open(sys.argv[2]) if l.strip()]

def field(line, key):
    m = re.search(r'(?:^|\s)' + re.escape(key) + r'=([0-9.eE+-]+)', line)
    if not m:
        sys.exit("bench-anchor.sh: no %s= in lean_oware's output: %r" % (key, line))
    return float(m.group(1))

lean = {k: [field(l, k) for l in lean_lines]
        for k in ("ns/ply", "ns/sown_seed", "playouts/s", "mean_len", "sown/game")}
lean_med = {k: statistics.median(v) for k, v in lean.items()}

def opts(spec):
    game, _, rest = spec.partition(":")
    d = dict(kv.split("=", 1) for kv in rest.split(",") if kv)
    return game, d

def num(x, fmt="%.1f"):
    return "-" if x is None else fmt % x

rs = bench["rule_sets"]

def table(title, head, rows):
    print("\n" + title)
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))

# Human-readable tables of everything tg-bench measured.
table("tg-bench %s: median of %d runs of %g s, seed %d" %
      (bench["version"], bench["runs"], bench["seconds"], bench["seed"]) +
      "\nrandom playouts, one thread",
      ["spec", "playouts/s", "plies/g", "decis/g", "chnc/g", "sown/g", "ns/ply", "ns/dec",
       "ns/chnc", "Msown/s", "ns/sown", "cut"],
      [[r["spec"], num(r["playouts_per_s"], "%.0f"), num(r["plies_per_game"]),
        num(r["decisions_per_game"]), num(r["chance_per_game"]), num(r["sown_per_game"]),
        num(r["ns_per_ply"]), num(r["ns_per_decision"]), num(r["ns_per_chance"]),
        num(None if r["sown_per_s"] is None else r["sown_per_s"] / 1e6),
        num(r["ns_per_sown"], "%.2f"), num(r["cut"], "%d")] for r in rs])
table("perft, copy, apply, undo, MCTS (one thread); %d threads against one" % bench["threads"],
      ["spec", "depth", "perft n/s", "copy/s", "apply/s", "apl+und/s", "(a+u)/a", "mcts it/s",
       "1-thr po/s", "%d-thr po/s" % bench["threads"], "scale"],
      [[r["spec"], num(r["perft_depth"], "%d"), num(r["perft_nodes_per_s"], "%.0f"),
        num(r["copy_per_s"], "%.0f"), num(r["apply_per_s"], "%.0f"),
        num(r["apply_undo_per_s"], "%.0f"), num(r["apply_undo_over_apply"], "%.2f"),
        num(r["mcts_iterations_per_s"], "%.0f"), num(r["threads_1_playouts_per_s"], "%.0f"),
        num(r["threads_n_playouts_per_s"], "%.0f"), num(r["thread_scaling"], "%.2f")]
       for r in rs])

print("\nlean_oware (xs), median of %d runs: %.1f ns/ply, %.2f ns/sown_seed, %.0f playouts/s, "
      "%.1f plies/game, %.1f sown/game" %
      (len(lean_lines), lean_med["ns/ply"], lean_med["ns/sown_seed"], lean_med["playouts/s"],
       lean_med["mean_len"], lean_med["sown/game"]))
print("  runs: ns/ply " + " ".join("%.1f" % x for x in lean["ns/ply"]) +
      "; ns/sown_seed " + " ".join("%.2f" % x for x in lean["ns/sown_seed"]))

# The targets: (label, measured, anchor, target ratio, "max" or "min").
targets = []
for r in rs:
    game, o = opts(r["spec"])
    if game == "halusa":
        targets.append(("%s ns/decision vs lean ns/ply" % r["spec"], r["ns_per_decision"],
                        lean_med["ns/ply"], 0.5, "max"))
    if (game in ("walak-pussa", "hawalis") or
            (game == "hus" and o.get("width") in ("8", "16"))):
        targets.append(("%s ns/sown vs lean ns/sown_seed" % r["spec"], r["ns_per_sown"],
                        lean_med["ns/sown_seed"], 0.25, "max"))
    if game == "tab":
        targets.append(("%s ns/event vs lean ns/ply" % r["spec"], r["ns_per_ply"],
                        lean_med["ns/ply"], 1.0, "max"))
    if game == "hus" or (game == "hawalis" and o.get("variant") == "zanzibar"):
        targets.append(("%s ns/decision vs lean ns/ply" % r["spec"], r["ns_per_decision"],
                        lean_med["ns/ply"], 3.0, "max"))
for r in rs:
    if r["apply_undo_ns"] is not None or r["apply_ns"] is not None:
        targets.append(("%s apply+undo ns vs apply ns" % r["spec"], r["apply_undo_ns"],
                        r["apply_ns"], 2.0, "max"))
for r in rs:
    if r["threads_1_playouts_per_s"] is not None:
        share = r.get("threads_n_cpu_share")
        note = "" if share is None else " (cpu %.0f%%)" % (100 * share)
        targets.append(("%s %d-thread vs 1-thread playouts/s%s" % (r["spec"], bench["threads"], note),
                        r["threads_n_playouts_per_s"], r["threads_1_playouts_per_s"], 1.8, "min"))

rows, passed, missed, unknown = [], 0, 0, 0
for label, measured, anchor, target, sense in targets:
    if measured is None or anchor is None or anchor <= 0:
        ratio, verdict = None, "N/A"
        unknown += 1
    else:
        ratio = measured / anchor
        ok = ratio <= target if sense == "max" else ratio >= target
        verdict = "PASS" if ok else "MISS"
        passed += ok
        missed += not ok
    rows.append([label, num(measured, "%.2f"), num(anchor, "%.2f"), num(ratio, "%.3f"),
                 ("<= " if sense == "max" else ">= ") + "%g" % target, verdict])
table("targets (issues 10 and 16)", ["target", "measured", "anchor", "ratio", "target", "verdict"], rows)
print("%d PASS, %d MISS%s" % (passed, missed, ", %d not measured" % unknown if unknown else ""))
busy = [r["spec"] for r in rs
        if r.get("threads_n_cpu_share") is not None and r["threads_n_cpu_share"] < 0.9]
if busy:
    print("note: in the thread check of %d rule set(s) the threads had well under a core each "
          "(cpu %% above = CPU time over wall-clock time, mean of the threads): the machine was "
          "busy, so those scaling verdicts say more about the machine than the library." % len(busy))

hus = [r for r in rs if opts(r["spec"])[0] == "hus"]
if hus:
    table("Hus: cost per decision by width (random playouts)",
          ["spec", "ns/decision", "x lean ns/ply", "decisions/game", "sown/decision", "ns/sown"],
          [[r["spec"], num(r["ns_per_decision"]),
            num(None if r["ns_per_decision"] is None else r["ns_per_decision"] / lean_med["ns/ply"],
                "%.2f"),
            num(r["decisions_per_game"]),
            num(None if not r["sown_per_game"] or not r["decisions_per_game"]
                else r["sown_per_game"] / r["decisions_per_game"]),
            num(r["ns_per_sown"], "%.2f")] for r in hus])
EOF
