"""The four rooms of the project: the library (`grci_lit/*.py`), the course (the lesson notebooks), the benchmark harness
(`grci_lit/bench/`) and the lab (`lab/`, outside the package). `import grci_lit` and `grci_lit.cli` never load the
harness; nothing in the package imports the lab, and the wheel does not ship it; every module imports only modules
above it in the module map of nbs/index.ipynb (the README's "Module map"), so the import graph runs the way the course
does, and no two modules import each other, directly or through others."""
import ast, fnmatch, json, re, shutil, subprocess, sys, tomllib, zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "grci_lit"
LAB = ROOT / "lab"
ROOMS = ("library", "harness", "lab")


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


def test_the_package_and_its_harness_never_load_the_lab():
    "Every module of grci_lit imported, from the repository's root (where `lab` is importable): no module of the lab is loaded."
    mods = sorted(".".join(("grci_lit", *p.relative_to(LIB).with_suffix("").parts)) for p in LIB.rglob("*.py") if not p.name.startswith("_"))
    code = (f"import importlib, sys\nfor m in {mods!r}: importlib.import_module(m)\n"
            "print(sorted(m for m in sys.modules if m == 'lab' or m.startswith('lab.')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", f"the lab was imported: {r.stdout}"
    assert "grci_lit.bench.report" in mods and len(mods) > 15                 # the probe imports the package, harness included


def module_map():
    "(room, module) rows of the module map in nbs/index.ipynb, top to bottom."
    cells = json.loads((ROOT / "nbs" / "index.ipynb").read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    section = text.split("### Module map", 1)[1]
    return re.findall(r"^\| (library|harness|lab) \| `([\w.]+)` \|", section, re.M)


def map_name(module:str)->str:
    "A module's name in the map: grci_lit's without the package's name ('grci', 'bench.paper'), the lab's whole ('lab.zoo')."
    return module[len("grci_lit."):] if module.startswith("grci_lit.") else module


def source(name:str)->Path:
    "The file of a module of the map."
    return (LAB.joinpath(*name.split(".")[1:]) if name.startswith("lab.") else LIB.joinpath(*name.split("."))).with_suffix(".py")


def imports(path, root=ROOT):
    "(imported name as the map names it, line, at module level?) for every import of grci_lit or the lab in `path`."
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
        for n in names:
            if n in ("grci_lit", "lab"): out.append(("", node.lineno, id(node) in top))
            elif n.split(".")[0] in ("grci_lit", "lab"): out.append((map_name(n), node.lineno, id(node) in top))
    return out


def resolve(name, rank):
    "The module of the map that an imported name lives in ('' for a package itself)."
    while name and name not in rank: name = name.rpartition(".")[0]
    return name


def test_the_scan_reads_relative_and_lazy_imports(tmp_path):
    f = tmp_path / "grci_lit" / "bench" / "x.py"
    f.parent.mkdir(parents=True)
    f.write_text("import numpy\nfrom ..grci import GRCI\nfrom .paper import SCENARIOS\ndef g():\n    from grci_lit import cli\n")
    got = imports(f, tmp_path)
    test = {"grci": 0, "bench.paper": 1, "cli": 2}
    assert [(resolve(n, test), line, top) for n, line, top in got] == [("grci", 2, True), ("bench.paper", 3, True), ("cli", 5, False)]
    g = tmp_path / "lab" / "zoo.py"
    g.parent.mkdir(parents=True)
    g.write_text("from grci_lit.grci import GRCI\nfrom .store import Store\nimport lab.settings\n")
    test = {"grci": 0, "lab.store": 1, "lab.settings": 2}
    assert [resolve(n, test) for n, _, _ in imports(g, tmp_path)] == ["grci", "lab.store", "lab.settings"]


def test_module_map_lists_every_module():
    rows = module_map()
    mods = [m for _, m in rows]
    found = {".".join(p.relative_to(LIB).with_suffix("").parts) for p in LIB.rglob("*.py") if not p.name.startswith("_")}
    found |= {f"lab.{p.stem}" for p in LAB.glob("*.py") if not p.name.startswith("_")}
    assert mods[:2] == ["core", "hnm"] and len(mods) == len(set(mods))        # the shared helpers, then the model
    assert set(mods) == found, f"not in the map: {sorted(found - set(mods))}; not a module: {sorted(set(mods) - found)}"
    assert [r for r, _ in rows] == sorted((r for r, _ in rows), key=ROOMS.index), "the rooms in order: library, harness, lab"
    assert {r for r, m in rows if m.startswith("lab.")} == {"lab"} and "lab" not in {r for r, m in rows if not m.startswith("lab.")}


def test_every_module_imports_only_modules_above_it():
    rows = module_map()
    rank = {m: k for k, (_, m) in enumerate(rows)}
    room = {m: r for r, m in rows}
    bad = []
    for m, k in rank.items():
        for name, line, at_top in imports(source(m)):
            target = resolve(name, rank)
            if target in ("", "core", "hnm", m): continue                          # the package, the shared helpers, the model, itself
            if m == "cli" and room[target] == "harness" and not at_top: continue   # `grci-lit bench`: the lazy hand-off
            if rank[target] > k: bad.append(f"{m} (line {line}) imports {target}, which stands below it")
    assert not bad, "imports against the module map:\n" + "\n".join(bad)


def test_no_two_modules_import_each_other():
    "No circle in the import graph, lazy imports included (the command line hands `bench` to bench.command, which never imports it back)."
    rows = module_map()
    rank = {m: k for k, (_, m) in enumerate(rows)}
    edges = {m: {resolve(n, rank) for n, _, _ in imports(source(m))} - {"", m} for m in rank}
    def reaches(a, b, seen=()):
        return any(x == b or (x not in seen and reaches(x, b, (*seen, x))) for x in edges[a])
    circles = sorted({tuple(sorted((a, b))) for a in rank for b in edges[a] if reaches(b, a)})
    assert not circles, f"modules that import each other: {circles}"
    assert "bench.command" in edges["cli"]                                    # the scan sees the lazy hand-off


def test_the_wheel_holds_the_library_and_the_harness_not_the_lab(tmp_path):
    "The package list names no lab, and the wheel built from pyproject.toml ships grci_lit alone."
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert not any(fnmatch.fnmatch(p, pat) for p in ("lab", "lab.records") for pat in cfg["include"]), cfg
    src = tmp_path / "src"                                                  # a copy: no earlier build/ of the checkout can leak into the wheel
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".*", "build", "dist", "docs", "_proc", "_site_cache", "*.egg-info",
                                                               "records", "cache", "__pycache__"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(src)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("grci_lit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "grci_lit/grci.py" in names and "grci_lit/bench/report.py" in names and "grci_lit/data/pbc.csv" in names
    assert (src / "lab" / "zoo.py").exists() and not [n for n in names if n.startswith(("lab/", "results/", "tools/", "nbs/"))], \
        "the wheel ships more than the package"
    assert not {"grci_lit/beyond.py", "grci_lit/scale.py"} & set(names), "measurement modules are the harness's or the lab's"
