"""The emu's memory counters beside Nsight Compute's, kernel launch by kernel launch, for
`make profile` (grader/measure/profile_banks.py): ncu's CSV read per kernel, the two launch lists
lined up, a verdict per counter, and a Markdown table for grader/emu/README.md.

Which rows are exact comparisons:
  - global load and store requests and sectors: exact (the emu counts them as an H100 does);
  - shared wavefronts by instruction: exact. ncu's smsp__sass_l1tex_data_pipe_lsu_wavefronts_
    mem_shared_op_{ld,st} counts, for every shared load or store a warp executes, the wavefronts
    its addresses need, as the emu does;
  - shared wavefronts and bank conflicts as the L1 counts them (l1tex__...): agree when the
    emu's count is within 10% of ncu's, or when ncu's is above the emu's by no more than ncu's
    contention: the L1's wavefronts beyond the by-instruction count. With several blocks
    resident on an SM, their warps' shared accesses meet in the banks and the L1 counts the
    extra passes as wavefronts and bank conflicts, although no instruction's addresses
    conflict (grader/emu/README.md, "Contention"); the emu models no timing, so it counts none.
    With one block per SM the two counts are equal;
  - global loads of a launch in which the emu saw volatile loads (a decoupled look-back
    polling its neighbours' status words): not an exact comparison. The number of polls
    depends on timing on the GPU. The emu runs with one worker, so every look-back finds its
    predecessors published and reads each window once, the fewest reads a look-back can make:
    ncu's count must be at least the emu's (a lower bound), and the emu's count without its
    volatile sectors (the data) is shown beside it. Stores and shared counters of these
    launches are compared as above; the profiles also run each look-back on one tile, which
    polls nothing, as an exact case.

Used only by profile_banks.py; no state of its own.
"""
import csv
import io
import re

# (ncu metric name, label, short label, kind): kind "global" is exact, "shared" within 10%.
METRICS = [
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global loads: requests", "gld req", "global"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global loads: sectors", "gld sect", "global"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global stores: requests", "gst req", "global"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global stores: sectors", "gst sect", "global"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared loads: wavefronts", "sld wf", "shared"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared loads: bank conflicts", "sld conf", "shared"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared stores: wavefronts", "sst wf", "shared"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared stores: bank conflicts", "sst conf", "shared"),
]
METRIC_NAMES = [m[0] for m in METRICS]
# ncu's by-instruction shared wavefronts (SASS-level counts of each executed instruction's
# passes, which contention does not change), and the emu's metric each equals.
INSTR_METRICS = [
    ("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared loads: wavefronts by instr.",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared stores: wavefronts by instr.",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
]
NCU_METRIC_NAMES = METRIC_NAMES + [m[0] for m in INSTR_METRICS]
SHARED_TOLERANCE = 0.10
VOLATILE = "global_ld_volatile_sectors"  # the emu's own fields (runtime/probe.cpp): volatile loads,
REREAD = "global_ld_volatile_rereads"    # and those that read a sector again (polling)


class ProfileError(Exception):
    """An output that cannot be read, or launches that do not line up: the caller fails."""


def base_name(name):
    """A kernel's bare name from ncu's (demangled, function or mangled) or the emu's spelling:
    `void scanTilesKernel<(bool)1>(const int *, int *, unsigned long, int *)`, `scanTilesKernel`,
    `_ZL15scanTilesKernelILb1EEvPKiPimS1_` and `scanTilesKernel<true>` all give
    `scanTilesKernel`."""
    name = name.strip().replace("(anonymous namespace)::", "")
    m = re.match(r"_Z(?:L|N)?(\d+)", name)
    if m:
        return name[m.end():m.end() + int(m.group(1))]
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        if ch in "<(" and depth == 0:
            cut = i
            break
    head = name[:cut].strip()
    head = head.split()[-1] if head.split() else head  # drop a return type ("void ")
    return head.split("::")[-1]


def parse_number(text):
    text = (text or "").strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def parse_ncu_kernels(text):
    """ncu's CSV (`--csv`, the details page: one row per kernel and metric; or `--page raw`:
    one row per kernel) as a list of {"id", "name", "metrics"}, in launch (ID) order. Raises
    ProfileError when there is no table, or a kernel lacks one of the ten metrics
    (NCU_METRIC_NAMES) or has a value that is not a number."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise ProfileError("no CSV table (a header line starting with \"ID\") in ncu's output")
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    if not rows:
        raise ProfileError("ncu's CSV table has a header and no rows: no kernel was profiled")
    for col in ("ID", "Kernel Name"):
        if col not in rows[0]:
            raise ProfileError(f"ncu's CSV has no \"{col}\" column (columns: {', '.join(rows[0])})")
    kernels = {}
    for row in rows:
        k = kernels.setdefault(row["ID"], {"id": row["ID"], "name": row["Kernel Name"], "metrics": {}})
        if "Metric Name" in row:  # the details page
            if row["Metric Name"] in NCU_METRIC_NAMES:
                k["metrics"][row["Metric Name"]] = (row.get("Metric Value") or "").strip()
        else:  # --page raw: one column per metric
            for name in NCU_METRIC_NAMES:
                if name in row:
                    k["metrics"][name] = (row.get(name) or "").strip()
    out = []
    for k in kernels.values():
        for name in NCU_METRIC_NAMES:
            if name not in k["metrics"]:
                raise ProfileError(f"kernel {k['id']} ({k['name']}): no value of {name} in ncu's CSV")
            v = parse_number(k["metrics"][name])
            if v is None:
                raise ProfileError(f"kernel {k['id']} ({k['name']}): {name} = '{k['metrics'][name]}', not a number")
            k["metrics"][name] = int(round(v))
        out.append(k)
    out.sort(key=lambda k: int(k["id"]) if k["id"].isdigit() else 0)
    return out


def align(ncu, emu, what):
    """Pairs ncu's launches with the emu's, in order; raises ProfileError unless both list the
    same kernels in the same order."""
    a = [base_name(k["name"]) for k in ncu]
    b = [base_name(k["name"]) for k in emu]
    if a != b:
        raise ProfileError(f"{what}: ncu profiled {len(a)} launches and the emu ran {len(b)}, or in another "
                           f"order:\n    ncu: {', '.join(a) or '(none)'}\n    emu: {', '.join(b) or '(none)'}")
    return list(zip(ncu, emu))


def emu_value(metrics, name):
    """The emu's value of an ncu metric: its own, or for a by-instruction wavefront count the
    wavefronts it counts (the emu counts every wavefront by instruction)."""
    for ncu_name, _, emu_name in INSTR_METRICS:
        if name == ncu_name:
            return int(metrics.get(name, metrics.get(emu_name, 0)))
    return int(metrics.get(name, 0))


def verdict(metric, kind, g, e, vol, contention=0):
    """(ok, text) for one counter of one launch: g ncu's value, e the emu's, vol the emu's
    volatile load sectors in the launch, contention ncu's L1 wavefronts beyond its
    by-instruction count for the same operation (shared rows)."""
    if kind == "global" and metric.endswith("_op_ld.sum") and vol:
        if g >= e:
            return True, "polling: not exact; ncu >= emu (the fewest polls), ok"
        return False, f"polling: DIFFER, ncu below the emu's {e:,} (which polls the least)"
    if kind in ("global", "instr"):
        return (True, "exact: agree") if g == e else (False, f"exact: DIFFER by {e - g:+,}")
    if g == e:
        return True, "within 10%: agree (equal)"
    if g == 0:
        return False, f"within 10%: DIFFER (ncu 0, emu {e:,})"
    rel = (e - g) / g
    if abs(rel) <= SHARED_TOLERANCE:
        return True, f"within 10%: agree ({rel * 100:+.1f}%)"
    if 0 < g - e <= contention:
        return True, f"within 10% or contention: agree (ncu +{g - e:,}, within its {contention:,} contention wavefronts)"
    return False, f"within 10%: DIFFER ({rel * 100:+.1f}%)"


def contention_of(metrics, metric):
    """ncu's L1 shared wavefronts beyond its by-instruction count, for the operation (ld or st)
    of a shared metric: what warps of different blocks meeting in the banks added."""
    op = "_op_ld" if "_op_ld" in metric else "_op_st"
    hw = metrics[f"l1tex__data_pipe_lsu_wavefronts_mem_shared{op}.sum"]
    by_instr = metrics[f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared{op}.sum"]
    return max(0, int(hw) - int(by_instr))


def compare(pairs):
    """Per launch: {"name", "ncu", "emu", "vol", "reread", "rows": [(label, g, e, ok, text)]}."""
    out = []
    for g, e in pairs:
        vol = int(e.get("emu", {}).get(VOLATILE, 0))
        reread = int(e.get("emu", {}).get(REREAD, 0))
        rows = []
        for metric, label, _, kind in METRICS:
            gv, ev = int(g["metrics"][metric]), emu_value(e["metrics"], metric)
            cont = contention_of(g["metrics"], metric) if kind == "shared" else 0
            ok, text = verdict(metric, kind, gv, ev, vol, cont)
            rows.append((label, gv, ev, ok, text))
        for metric, label, _ in INSTR_METRICS:
            gv, ev = int(g["metrics"][metric]), emu_value(e["metrics"], metric)
            ok, text = verdict(metric, "instr", gv, ev, vol)
            rows.append((label, gv, ev, ok, text))
        out.append({"name": display_name(g["name"], e["name"]), "vol": vol, "reread": reread, "rows": rows,
                    "ncu": g["metrics"], "emu": e["metrics"]})
    return out


def display_name(ncu_name, emu_name):
    """The launch's name as ncu spells its template arguments, without the parameters."""
    name = re.sub(r"^void\s+", "", ncu_name.strip())
    depth = 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            name = name[:i]
            break
    # ncu's own name, unless it is mangled or bare where the emu's has template arguments
    return emu_name if name.startswith("_Z") or ("<" not in name and "<" in emu_name) else name


def print_comparison(title, launches):
    """One block per launch: each counter's ncu and emu values and the verdict."""
    print(f"  {title}")
    print(f"      {'':36}{'ncu':>12}{'emu':>12}   verdict (exact / within 10% or contention / polling: a lower bound)")
    for i, k in enumerate(launches):
        extra = f"; the emu's volatile (polling) load sectors: {k['vol']:,}" if k["vol"] else ""
        print(f"    launch {i + 1} of {len(launches)}: {k['name']}{extra}")
        for label, g, e, _, text in k["rows"]:
            print(f"      {label:36}{g:>12,}{e:>12,}   {text}")


def summary(all_launches):
    """(exact rows agreeing, exact rows, 10% rows agreeing, 10% rows, polling rows within the
    bound, polling rows)."""
    c = [0] * 6
    for k in all_launches:
        for label, _, _, ok, text in k["rows"]:
            slot = 4 if text.startswith("polling") else 0 if text.startswith("exact") else 2
            c[slot + 1] += 1
            c[slot] += bool(ok)
    return tuple(c)


def _cell(k, a, b, polling=False):
    g = (k["ncu"][METRICS[a][0]], k["ncu"][METRICS[b][0]])
    e = (emu_value(k["emu"], METRICS[a][0]), emu_value(k["emu"], METRICS[b][0]))
    if polling:
        return f"{g[0]} / {g[1]} (polls); emu {e[0]} / {e[1]} ({e[1] - k['reread']} data)"
    by_instr = ""
    if METRICS[a][3] == "shared":  # ncu's by-instruction wavefronts, where the L1 counted more
        op = "_op_ld" if "_op_ld" in METRICS[a][0] else "_op_st"
        n = k["ncu"][f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared{op}.sum"]
        by_instr = f" ({n} by instr.)" if n != g[0] else ""
    if g == e:
        return f"{g[0]} / {g[1]}{by_instr}"
    return f"{g[0]} / {g[1]}{by_instr}; emu {e[0]} / {e[1]}"


def markdown(entries):
    """entries: (lab, case, launches). A Markdown table, one row per launch; a cell holds ncu's
    value alone where the emu's is the same, else both; a shared cell adds ncu's by-instruction
    wavefronts where the L1 counted more (contention)."""
    out = ["| lab | call | kernel | global ld: requests / sectors | global st: requests / sectors | "
           "shared ld: wavefronts / conflicts | shared st: wavefronts / conflicts | verdict |",
           "|---|---|---|---|---|---|---|---|"]
    for lab, case, launches in entries:
        for k in launches:
            bad = [label for label, _, _, ok, _ in k["rows"] if ok is False]
            polling = bool(k["vol"])
            if bad:
                v = "differs: " + ", ".join(bad)
            else:
                v = "agree (loads: lower bound, polling)" if polling else "agree"
            name = k["name"].replace("|", "\\|")
            out.append(f"| {lab} | {case} | `{name}` | {_cell(k, 0, 1, polling)} | {_cell(k, 2, 3)} | "
                       f"{_cell(k, 4, 5)} | {_cell(k, 6, 7)} | {v} |")
    return "\n".join(out)
