"""The rooms of the package: the library (`grci_lit/*.py`) and the benchmark harness (`grci_lit/bench/`).
`import grci_lit` and `grci_lit.cli` never load the harness, and every module imports only modules above it in the
module map of nbs/index.ipynb (the README's "Module map"), so the import graph runs the way the course does."""
import ast, json, re, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "grci_lit"


def test_library_and_cli_do_not_import_the_harness():
    code = ("import sys, grci_lit, grci_lit.cli\n"
            "grci_lit.cli.build_parser().parse_args(['run', 'x.csv', '--target', 'D'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('grci_lit.bench')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", f"the harness was imported: {r.stdout}"


def test_bench_command_imports_the_harness():
    "The check above can fail: the same probe sees the harness once `grci-lit bench` has run."
    code = ("import sys, grci_lit.cli\n"
            "try: grci_lit.cli.main(['bench', '--help'])\n"
            "except SystemExit: pass\n"
            "print('grci_lit.bench.command' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "True"


def module_map():
    "(room, module) rows of the module map in nbs/index.ipynb, top to bottom."
    cells = json.loads((ROOT / "nbs" / "index.ipynb").read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    section = text.split("### Module map", 1)[1]
    return re.findall(r"^\| (library|harness) \| `([\w.]+)` \|", section, re.M)


def imports(path, root=ROOT):
    "(imported name relative to grci_lit, line, at module level?) for every grci_lit import in `path`."
    tree, pkg = ast.parse(path.read_text()), path.relative_to(root).with_suffix("").parts[:-1]
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = list(pkg[:len(pkg) - node.level + 1]) if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            names = [f"{mod}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import): names = [a.name for a in node.names]
        else: continue
        out += [(n[len("grci_lit."):], node.lineno, id(node) in top) for n in names if n.split(".")[0] == "grci_lit"
                and n != "grci_lit"] + [("", node.lineno, id(node) in top) for n in names if n == "grci_lit"]
    return out


def resolve(name, rank):
    "The module of the map that an imported name lives in ('' for the package itself)."
    while name and name not in rank: name = name.rpartition(".")[0]
    return name


def test_the_scan_reads_relative_and_lazy_imports(tmp_path):
    f = tmp_path / "grci_lit" / "bench" / "x.py"
    f.parent.mkdir(parents=True)
    f.write_text("import numpy\nfrom ..grci import GRCI\nfrom .paper import SCENARIOS\ndef g():\n    from grci_lit import cli\n")
    got = imports(f, tmp_path)
    test = {"grci": 0, "bench.paper": 1, "cli": 2}
    assert [(resolve(n, test), line, top) for n, line, top in got] == [("grci", 2, True), ("bench.paper", 3, True), ("cli", 5, False)]


def test_module_map_lists_every_module():
    rows = module_map()
    mods = [m for _, m in rows]
    found = {".".join(p.relative_to(LIB).with_suffix("").parts) for p in LIB.rglob("*.py")
             if not p.name.startswith("_")}
    assert mods[0] == "hnm" and len(mods) == len(set(mods))
    assert set(mods) == found, f"not in the map: {sorted(found - set(mods))}; not a module: {sorted(set(mods) - found)}"
    assert [r for r, _ in rows] == sorted((r for r, _ in rows), key=lambda r: r != "library"), "the harness comes last"


def test_every_module_imports_only_modules_above_it():
    rows = module_map()
    rank = {m: k for k, (_, m) in enumerate(rows)}
    room = {m: r for r, m in rows}
    bad = []
    for m, k in rank.items():
        for name, line, at_top in imports(LIB.joinpath(*m.split(".")).with_suffix(".py")):
            target = resolve(name, rank)
            if target in ("", "hnm", m): continue                                  # the package, the model, itself
            if m == "cli" and room[target] == "harness" and not at_top: continue   # `grci-lit bench`: the lazy hand-off
            if rank[target] > k: bad.append(f"{m} (line {line}) imports {target}, which stands below it")
    assert not bad, "imports against the module map:\n" + "\n".join(bad)
