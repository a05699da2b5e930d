"""No circles: the kit's files, and its folders, depend on one another in one direction only,
down grader/'s map (LAYERS).

Three kinds of edge, read from the code itself:
  - Python: `import X` / `from X import` of a module the kit has (grader/**/*.py), read by
    Python's parser at any depth of the file (an import inside a function is an edge too), and
    lines of its strings that start with an import (scripts it runs); `from grading import
    grade` and `import grading.grade` name grader/grading/grade.py;
  - C, C++ and CUDA: `#include "X"` (quoted includes only; <...> names the system's or, for the
    emu's headers, the toolkit's stand-ins, and `#include_next` follows the search path: both
    are read as edges where they resolve to a kit file, under grader/emu/include);
  - the trusted side's C files (grader/trusted/harness, grader/trusted/driver): a function one file calls and
    another defines, read from the source (the names a file defines at file scope, not static,
    and the names it calls), since there a call is how one file depends on another.

A circle between files is a strongly connected component of more than one file; one between
folders, the same of the graph in which each file is replaced by its folder. Exceptions are
listed in ALLOWED with the reason; `python3 grader/selftest/circles.py` prints the graph's
circles, and the self-test's check fails on any not allowed (and on an allowed one that no
longer exists, so the list stays true).
"""
import ast
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = ("build", ".git", "node_modules", "corpus")  # the corpus holds others' programs, as they are

# Circles kept on purpose: {frozenset of files: reason}. Empty: none is.
ALLOWED = {}

# The layers of grader/'s map (grader/README.md, "The map"): a file may use one of its own idea's
# (its folder under grader/: grader/trusted/harness is grader/trusted) or of a lower layer, never
# one of a higher or of another idea on its own layer. reference/ (plain C) is under the trusted side.
LAYERS = {"grader/selftest": 6, "grader/course": 5, "grader/measure": 4, "grader/docs": 4, "grader/grading": 3,
          "grader/manifests": 3, "grader/trusted": 2, "reference": 1.5, "grader/emu": 1}
# Uses across layers kept on purpose: {(from file, to file): reason}.
LAYER_EXCEPTIONS = {
    ("grader/emu/tests/probe_cost.py", "grader/grading/grade.py"):
        "the probes' cost on a graded run builds a lab's drivers and runs its tests as the grader does",
    ("grader/emu/corpus/run.py", "grader/grading/minitoml.py"):
        "the corpus's runner reads each program's corpus.toml with the kit's TOML reader (Python 3.8 has none)",
}


def idea(path):
    """The folder of grader/'s map that a file belongs to ('' outside it)."""
    parts = path.split("/")
    key = "/".join(parts[:2]) if parts[0] == "grader" else parts[0]
    return key if key in LAYERS else ""


def layer_breaks(graphs):
    """[(kind, from, to)] for every use that goes up the map or across it."""
    out = []
    for kind, edges in graphs.items():
        for a, bs in sorted(edges.items()):
            for b in sorted(bs):
                ia, ib = idea(a), idea(b)
                if not ia or not ib or ia == ib or (a, b) in LAYER_EXCEPTIONS:
                    continue
                if LAYERS[ia] <= LAYERS[ib]:
                    out.append((kind, a, b))
    return out


def kit_files(exts, top="grader", root=ROOT):
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP)
        for f in sorted(filenames):
            if f.endswith(exts):
                out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return out


# grader/'s folders that hold Python modules: a package-style import names one of their modules
PACKAGES = ("grading", "course", "measure", "docs", "selftest", "emu")


def python_imports(text):
    """[(module, [names])] for every import in a file: its statements, read by Python's parser
    (at any depth; `as` names, lists in parentheses across lines), and the lines of its strings
    that start with `import` or `from` (the scripts it hands to another interpreter)."""
    out = []
    try:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                out += [(a.name, []) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                out.append((node.module, [a.name for a in node.names]))
    except SyntaxError:
        pass
    for m in re.finditer(r"^[ \t]*(?:import[ \t]+([\w.]+)|from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([\w, \t]+))", text, re.M):
        if m.group(1):
            out.append((m.group(1), []))
        else:
            out.append((m.group(2), [n.split()[0] for n in m.group(3).split(",") if n.strip()]))
    return out


def python_edges(root=ROOT):
    files = kit_files((".py",), root=root)
    own = os.path.join("grader", "emu", "corpus", "run.py")  # the corpus's runner is the kit's own
    if os.path.isfile(os.path.join(root, own)):
        files.append(own)
    by_module = {}
    for f in files:
        by_module.setdefault(os.path.splitext(os.path.basename(f))[0], []).append(f)
    edges = {f: set() for f in files}
    for f in files:
        for module, names in python_imports(open(os.path.join(root, f), encoding="utf-8").read()):
            parts = module.split(".")
            # a folder of grader/ named as a package (`from grading import grade`, `import
            # grading.grade`) stands for the module it names there; where a module has the
            # folder's name too (course.py), the import may mean either, and both are edges
            if parts[0] in PACKAGES:
                for n in (parts[1:2] if len(parts) > 1 else names):
                    target = os.path.join("grader", parts[0], n + ".py")
                    if target in edges and target != f:
                        edges[f].add(target)
            name = parts[0]
            for target in by_module.get(name, []):
                # the module a bare import finds: the one in the importer's folder, else the
                # one its sys.path names (grader/ or grader/selftest/): any by that name
                same = [t for t in by_module[name] if os.path.dirname(t) == os.path.dirname(f)]
                if target != f and (not same or target in same):
                    edges[f].add(target)
    return edges


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include(?:_next)?[ \t]*([<"])([^>"]+)[>"]', re.M)


def include_edges(root=ROOT):
    files = kit_files((".c", ".h", ".cu", ".cpp", ".cuh", ".hpp"), root=root)
    if os.path.isdir(os.path.join(root, "grader", "emu", "include")):
        files += [f for f in kit_files(("",), "grader/emu/include", root) if "." not in os.path.basename(f)]
    if os.path.isdir(os.path.join(root, "reference")):
        files += kit_files((".c", ".h", ".cu", ".cpp"), "reference", root)
    known = set(files)
    emu_inc = os.path.join("grader", "emu", "include")
    search = [emu_inc, os.path.join("grader", "trusted", "include"), os.path.join("grader", "trusted", "harness"), "reference",
              os.path.join("grader", "trusted", "driver")]
    edges = {f: set() for f in files}
    for f in files:
        try:
            text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for kind, name in INCLUDE.findall(text):
            cands = ([os.path.normpath(os.path.join(os.path.dirname(f), name))] if kind == '"' else []) + \
                [os.path.normpath(os.path.join(d, name)) for d in search]
            hit = next((c for c in cands if c in known and c != f), None)
            if hit:
                edges[f].add(hit)
    return edges


def c_call_edges(root=ROOT):
    """grader/trusted/harness and grader/trusted/driver's C files: file A -> file B where A calls a function that
    B defines (not static) and A does not define itself."""
    files = [f for d in ("grader/trusted/harness", "grader/trusted/driver") if os.path.isdir(os.path.join(root, d))
             for f in kit_files((".c",), d, root)]
    defined, used = {}, {}
    for f in files:
        text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
        text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
        text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
        # file-scope definitions: a name followed by '(' ... ')' and '{' at the start of a line's
        # declaration, not static (static names are the file's own)
        defs = set()
        for m in re.finditer(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{", text, re.M):
            defs.add(m.group(1))
        defined[f] = defs
        used[f] = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))
    edges = {f: set() for f in files}
    for a in files:
        for b in files:
            if a != b and (used[a] - defined[a]) & defined[b]:
                edges[a].add(b)
    return edges


def sccs(edges):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def folder_graph(edges):
    g = {}
    for a, bs in edges.items():
        fa = os.path.dirname(a)
        g.setdefault(fa, set())
        for b in bs:
            if os.path.dirname(b) != fa:
                g[fa].add(os.path.dirname(b))
    return g


def circles(root=ROOT):
    """([(kind, [files or folders])] for every circle not allowed, [allowed circles no longer
    there], the graphs)."""
    found = []
    graphs = {"python imports": python_edges(root), "includes": include_edges(root), "C calls": c_call_edges(root)}
    for kind, edges in graphs.items():
        for comp in sccs(edges):
            found.append((f"{kind}, files", comp))
        for comp in sccs(folder_graph(edges)):
            found.append((f"{kind}, folders", comp))
    allowed = {k for k in ALLOWED}
    return [(k, c) for k, c in found if frozenset(c) not in allowed], \
        [k for k in allowed if not any(frozenset(c) == k for _, c in found)], graphs


def explain(edges, comp):
    """The edges inside a circle, one per line."""
    return "; ".join(f"{a} -> {b}" for a in comp for b in sorted(edges.get(a, ())) if b in comp)


def main():
    bad, stale, graphs = circles()
    breaks = layer_breaks(graphs)
    for kind, a, b in breaks:
        print(f"against the map ({kind}): {a} -> {b}")
    for kind, comp in bad:
        print(f"circle ({kind}): {' <-> '.join(comp)}")
        g = graphs[kind.split(",")[0]]
        if kind.endswith("files"):
            print("    " + explain(g, comp))
    for k in stale:
        print(f"ALLOWED lists a circle that is no longer there: {sorted(k)}")
    n = sum(len(v) for g in graphs.values() for v in g.values())
    print(f"{sum(len(g) for g in graphs.values())} files, {n} edges; {len(bad)} circles")
    return 1 if bad or stale or breaks else 0


if __name__ == "__main__":
    sys.exit(main())
