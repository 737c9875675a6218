"""Live toys without a kernel: every `interact(fn, name=Widget(...), ...)` cell of a notebook becomes a set of
controls switching between figures computed when the site is built.

Discovery is generic, so notebooks added or moved later work unchanged:
1. the interact cell's source is parsed (`ast`): the toy function, and each keyword's widget (a list or tuple is a
   dropdown, a bool a checkbox, `IntSlider`/`FloatSlider`/`FloatLogSlider`/`Dropdown`/`SelectionSlider`/`Checkbox`
   are read with their options, `fixed(x)` stays fixed);
2. the notebook's context is rebuilt by a backward slice: the import cells, plus every earlier cell that defines a
   name the interact call (or a cell already kept) uses, run in order in one namespace (cells marked `eval: false`
   or with a `tst_flags` flag are left out);
3. which controls the page exposes, and with which values, is chosen by a `#| site-toy: a=1,2,3; b=x,y` directive in
   the interact cell, else by `tools/site/toys.yml` (keyed by the toy function's name), else by a rule: dropdowns and
   checkboxes first, sliders coarsened to a few values around their default, at most `MAX_STATES` states in all;
   every other parameter keeps its default;
4. each state is drawn (matplotlib, Agg) to a PNG; states are cached in `_site_cache/` under a key made of the
   package's source, the slice's source and the choice of states, so an unchanged toy costs nothing to rebuild."""
import ast, contextlib, hashlib, io, itertools, json, math, os, re, sys, time
from pathlib import Path

import numpy as np

MAX_STATES = 40
_SELF = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]   # a change here recomputes every toy
_re_dir = re.compile(r'^#\|\s*([\w-]+)\s*:?\s*(.*)$')


def directives(src):
    "Leading `#| key: value` lines of a cell's source as a dict"
    d = {}
    for line in src.splitlines():
        m = _re_dir.match(line)
        if not m: break
        d[m[1]] = m[2].strip() or 'true'
    return d


# ---------------------------------------------------------------- reading the interact call
def _lit(node, ns):
    "Value of an argument node: a literal, or evaluated in the notebook's namespace"
    try: return ast.literal_eval(node)
    except Exception: return eval(compile(ast.Expression(node), '<toy>', 'eval'), ns)


def _range(lo, hi, step):
    n = int(round((hi - lo) / step)) if step else 0
    return [lo + k * step for k in range(n + 1)]


def control(node, ns):
    "A control {kind, values, default} from one keyword of `interact`, or ('fixed', value)"
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, 'attr', '')
        kw = {k.arg: _lit(k.value, ns) for k in node.keywords}
        pos = [_lit(a, ns) for a in node.args]
        if name == 'fixed': return {'kind': 'fixed', 'default': pos[0] if pos else kw.get('value')}
        if name in ('IntSlider', 'FloatSlider', 'FloatLogSlider'):
            names = ['value', 'min', 'max', 'step']
            a = dict(zip(names, pos)) | kw
            integer = name == 'IntSlider'
            lo, hi = a.get('min', 0), a.get('max', 100 if integer else 10.0)
            step = a.get('step', 1 if integer else 0.1)
            value = a.get('value', lo)
            if name == 'FloatLogSlider':
                base = a.get('base', 10)
                vals = [base ** e for e in _range(lo, hi, step)]
            else: vals = _range(lo, hi, step)
            vals = [int(round(v)) if integer else float(round(v, 10)) for v in vals]
            return {'kind': 'slider', 'values': vals, 'default': value}
        if name in ('Dropdown', 'SelectionSlider', 'RadioButtons', 'ToggleButtons'):
            opts = pos[0] if pos else kw.get('options', [])
            opts = list(opts.items()) if isinstance(opts, dict) else list(opts)
            labels = [o[0] if isinstance(o, tuple) else o for o in opts]
            vals = [o[1] if isinstance(o, tuple) else o for o in opts]
            return {'kind': 'select', 'values': vals, 'labels': [str(x) for x in labels],
                    'default': kw.get('value', vals[0] if vals else None)}
        if name in ('Checkbox', 'ToggleButton'):
            return {'kind': 'select', 'values': [False, True], 'default': bool(kw.get('value', pos[0] if pos else False))}
    v = _lit(node, ns)
    if isinstance(v, bool): return {'kind': 'select', 'values': [False, True], 'default': v}
    if isinstance(v, (list, tuple)) and v:
        opts = list(v)
        vals = [o[1] if isinstance(o, tuple) else o for o in opts]
        return {'kind': 'select', 'values': vals, 'labels': [str(o[0] if isinstance(o, tuple) else o) for o in opts],
                'default': vals[0]}
    if isinstance(v, dict) and v: return control(ast.parse(repr(list(v.items()))).body[0].value, ns)
    if isinstance(v, (int, float)) and not isinstance(v, bool):   # interact's abbreviation: a slider around v
        return {'kind': 'slider', 'values': [v], 'default': v}
    return {'kind': 'fixed', 'default': v}


def interact_call(src):
    "The `interact(...)` Call node of a cell, or None"
    try: tree = ast.parse(src)
    except SyntaxError: return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', getattr(node.func, 'attr', None)) == 'interact' \
                and node.args and isinstance(node.args[0], ast.Name):
            return node
    return None


# ---------------------------------------------------------------- the notebook's context, by backward slicing
def _strip(src):
    return '\n'.join(l for l in src.splitlines() if not l.lstrip().startswith(('%', '!')))


def _loads_stores(node):
    """(loaded, stored) names of an expression or statement, without looking into function or class bodies; a name a
    comprehension binds is neither"""
    loads, stores, bound = set(), set(), set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):   # its body runs later
            if not isinstance(n, ast.Lambda): stores.add(n.name)
            todo += [*getattr(n, 'decorator_list', []), *getattr(n, 'bases', []),
                     *([d for d in n.args.defaults + n.args.kw_defaults if d is not None] if hasattr(n, 'args') else [])]
            continue
        if isinstance(n, ast.comprehension):
            bound |= {x.id for x in ast.walk(n.target) if isinstance(x, ast.Name)}
        if isinstance(n, ast.Name):
            (stores if isinstance(n.ctx, (ast.Store, ast.Del)) else loads).add(n.id)
        elif isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, ast.Store):
            base = n.value
            while isinstance(base, (ast.Attribute, ast.Subscript)): base = base.value
            if isinstance(base, ast.Name): stores.add(base.id)        # `df["a"] = ...` changes df
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            stores |= {(a.asname or a.name).split('.')[0] for a in n.names}
        todo += [c for c in ast.iter_child_nodes(n) if not isinstance(c, ast.expr_context)]
    return loads - bound, stores - bound


def _function_globals(fn):
    "Names a function's body reads that it does not bind itself (its arguments, assignments, nested definitions)"
    local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    loads = set()
    for stmt in fn.body:
        l, st = _loads_stores(stmt)
        loads |= l; local |= st
        for inner in ast.walk(stmt):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and inner is not stmt:
                loads |= _function_globals(inner) if not isinstance(inner, ast.Lambda) else set()
    return loads - local


def _names(src):
    """(defined, used) names of a cell. A name counts as used when the cell reads it before binding it (in statement
    order), or a function or class of the cell reads it without binding it; names local to a function, and names
    bound by a comprehension, are not."""
    try: tree = ast.parse(_strip(src))
    except SyntaxError: return set(), set()
    defs, used = set(), set()
    for stmt in tree.body:
        loads, stores = _loads_stores(stmt)
        used |= loads - defs
        for fn in (n for n in ast.walk(stmt) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            used |= _function_globals(fn) - defs - stores
        for cl in (n for n in ast.walk(stmt) if isinstance(n, ast.ClassDef)):
            for b in cl.body:
                l, _ = _loads_stores(b); used |= l - defs - stores
        defs |= stores
    return defs, used


def _top_level_names(src):
    "Names a cell binds at its top level (functions, classes, assignments, imports): what a module made of it exports"
    try: tree = ast.parse(_strip(src))
    except SyntaxError: return set()
    out = set()
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
    return out


def _run_cell(src, name, ns, module):
    """Run one cell of the context in `ns`. An exported cell takes its names from the package module instead of defining
    them again in `__toy__`: the package's functions can then be pickled (a child process, a joblib worker) as in use"""
    if module is not None and 'export' in directives(src):
        names = _top_level_names(src)
        if names and all(hasattr(module, k) for k in names):
            ns.update({k: getattr(module, k) for k in names}); return
    exec(compile(_strip(src), name, 'exec'), ns)


def _imports_only(src):
    try: tree = ast.parse(_strip(src))
    except SyntaxError: return False
    return bool(tree.body) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body)


def context_slice(cells, upto, skip_flags=('slow', 'notest')):
    "Indices of the code cells to run, in order, so that cell `upto` can be evaluated"
    code = {}
    for i, c in enumerate(cells[:upto + 1]):
        if c['cell_type'] != 'code': continue
        d = directives(c['source'])
        if d.get('eval') == 'false' or any(f in d for f in skip_flags) or i != upto and interact_call(c['source']):
            continue
        code[i] = c['source']
    info = {i: _names(s) for i, s in code.items()}
    keep, todo = set(), [upto]
    keep |= {i for i, s in code.items() if _imports_only(s)}
    while todo:
        j = todo.pop()
        if j in keep and j != upto: continue
        keep.add(j)
        for name in info[j][1]:
            for k in sorted((k for k in code if k < j and name in info[k][0]), reverse=True)[:1]:
                if k not in keep: todo.append(k)
        for k in list(keep):     # a kept cell that mutates a name means the cells defining it earlier are needed
            pass
    keep.discard(upto)
    return sorted(keep)


# ---------------------------------------------------------------- choosing the exposed states
def _coarsen(values, default, k):
    "At most k values of a slider, evenly spread, always including the default"
    if len(values) <= k: return list(values)
    idx = np.unique(np.round(np.linspace(0, len(values) - 1, k)).astype(int))
    out = [values[i] for i in idx]
    if default in values and default not in out:
        out[int(np.argmin([abs(values.index(v) - values.index(default)) for v in out]))] = default
    return sorted(set(out), key=values.index)


def _parse_values(text):
    out = []
    for t in text.split(','):
        t = t.strip()
        try: out.append(ast.literal_eval(t))
        except Exception: out.append(t)
    return out


def choose(controls, spec=None, max_states=MAX_STATES):
    """The exposed controls {name: values}: from `spec` ({name: [values]}, e.g. a `site-toy` directive or toys.yml),
    else by rule. Everything else stays at its default."""
    live = {k: c for k, c in controls.items() if c['kind'] != 'fixed'}
    if spec:
        out = {}
        for k, vals in spec.items():
            if k not in controls: raise ValueError(f'site-toy names {k!r}, which is not a parameter of this toy')
            vals = list(vals) if isinstance(vals, (list, tuple)) else [vals]
            if len(vals) == 1: controls[k] = {'kind': 'fixed', 'default': vals[0]}   # one value: fixed here
            else: out[k] = vals
        n = math.prod(len(v) for v in out.values())
        if n > 4 * max_states: raise ValueError(f'site-toy asks for {n} states; keep it under {4 * max_states}')
        return out
    out, total = {}, 1
    pos = {k: i for i, k in enumerate(live)}   # the notebook's order, dropdowns first, seed and sample size last
    order = sorted(live, key=lambda k: (live[k]['kind'] != 'select', k == 'seed', k == 'n', pos[k]))
    for k in order:
        c = live[k]
        vals = c['values'] if c['kind'] == 'select' else _coarsen(c['values'], c['default'], 5)
        vals = vals[:8]
        while len(vals) > 1 and total * len(vals) > max_states:
            vals = _coarsen(vals, c['default'], len(vals) - 1) if c['kind'] == 'slider' else vals[:-1]
        if len(vals) > 1: out[k] = vals; total *= len(vals)
    return out


def _key(v):
    return repr(v)


# ---------------------------------------------------------------- running
def _as_figure(ret):
    "The matplotlib Figure a toy function returned (a Figure, Axes, or an array of Axes), or None"
    if hasattr(ret, 'savefig'): return ret
    if hasattr(ret, 'figure') and hasattr(ret.figure, 'savefig'): return ret.figure
    if isinstance(ret, (list, tuple, np.ndarray)) and len(ret):
        return _as_figure(np.asarray(ret, dtype=object).ravel()[0])
    return None


def _figure_png(ret, dpi):
    "PNG of the figure a toy drew: the one it returned, else the last one open"
    import matplotlib.pyplot as plt
    fig = _as_figure(ret)
    if fig is None:
        figs = [plt.figure(n) for n in plt.get_fignums()]
        if not figs: return None
        fig = figs[-1]
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=dpi, bbox_inches='tight')
    return buf.getvalue()


def find_toys(nb_cells):
    "The interact cells of a notebook: [(cell index, call node)]"
    return [(i, call) for i, c in enumerate(nb_cells)
            if c['cell_type'] == 'code' and (call := interact_call(c['source']))]


def build_toys(nb_path, cells, out_dir, rel_dir, cache_dir, config=None, dpi=72, log=print):
    """Compute every toy of one notebook. Returns {cell index: toy dict for the page} (figures written to `out_dir`,
    referenced as `rel_dir/...`)."""
    toys = find_toys(cells)
    if not toys: return {}
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from grci_lit import __version__
    config = config or {}
    ns, ran, result = {'__name__': '__toy__'}, set(), {}
    exp = next((directives(c['source']).get('default_exp') for c in cells if c['cell_type'] == 'code'
                and 'default_exp' in directives(c['source'])), None)
    import importlib
    module = importlib.import_module(f'grci_lit.{exp}') if exp else None     # the package module the notebook exports to
    cwd = os.getcwd()
    os.chdir(nb_path.parent)                    # notebooks read files relative to themselves
    try:
        for t, (idx, call) in enumerate(toys):
            t0 = time.time()
            fname = call.args[0].id
            sl = context_slice(cells, idx)
            slice_src = '\n#----\n'.join(cells[i]['source'] for i in sl)
            dirs = directives(cells[idx]['source'])
            spec = None
            if 'site-toy' in dirs:
                spec = {k.strip(): _parse_values(v) for k, v in
                        (p.split('=', 1) for p in dirs['site-toy'].split(';') if '=' in p)}
            elif fname in config: spec = config[fname]
            if spec == 'off' or (isinstance(spec, dict) and spec.get('off')): continue
            base = hashlib.sha256(f'{__version__}\n{_package_hash()}\n{_SELF}\n{slice_src}\n{cells[idx]["source"]}\n{spec!r}'.encode()).hexdigest()[:16]
            meta_file = cache_dir / f'{base}.json'
            if meta_file.exists():
                meta = json.loads(meta_file.read_text())
            else:
                for i in sl:
                    if i in ran: continue
                    try:
                        with contextlib.redirect_stdout(io.StringIO()):
                            _run_cell(cells[i]['source'], f'{nb_path.name}[{i}]', ns, module)
                    except Exception as e:
                        raise RuntimeError(f'{nb_path.name}: cell {i}, run to set up the toy {fname}, failed: '
                                           f'{type(e).__name__}: {e}') from e
                    plt.close('all'); ran.add(i)
                fn = ns[fname]
                controls = {k.arg: control(k.value, ns) for k in call.keywords}
                exposed = choose(controls, spec)
                fixed = {k: c['default'] for k, c in controls.items() if k not in exposed}
                names = list(exposed)
                states = {}
                for combo in itertools.product(*(range(len(exposed[k])) for k in names)):
                    kw = dict(fixed) | {k: exposed[k][j] for k, j in zip(names, combo)}
                    plt.close('all')
                    out = io.StringIO()
                    with contextlib.redirect_stdout(out), _quiet(): ret = fn(**kw)
                    png = _figure_png(ret, dpi)
                    if png is None:
                        raise RuntimeError(f'{nb_path.name}: the toy {fname}({kw}) drew no figure')
                    h = hashlib.sha256(png or out.getvalue().encode()).hexdigest()[:16]
                    if png: (cache_dir / f'{h}.png').write_bytes(png)
                    states['-'.join(map(str, combo))] = {'png': f'{h}.png' if png else None, 'text': out.getvalue()[-2000:]}
                    plt.close('all')
                labels = {}
                for k in names:
                    c = controls[k]
                    if c.get('labels'):
                        lab = dict(zip(map(_key, c['values']), c['labels']))
                        labels[k] = [lab.get(_key(v), str(v)) for v in exposed[k]]
                    else: labels[k] = [_fmt(v) for v in exposed[k]]
                meta = {'fn': fname, 'controls': [{'name': k, 'kind': controls[k]['kind'], 'labels': labels[k],
                                                   'default': _default_index(exposed[k], controls[k]['default'])}
                                                  for k in names],
                        'fixed': {k: _fmt(v) for k, v in fixed.items() if v is not None}, 'states': states,
                        'seconds': round(time.time() - t0, 1)}
                meta_file.write_text(json.dumps(meta))
            out_dir.mkdir(parents=True, exist_ok=True)
            for s in meta['states'].values():
                if s['png']:
                    dst = out_dir / s['png']
                    if not dst.exists(): dst.write_bytes((cache_dir / s['png']).read_bytes())
            meta = dict(meta, states={k: dict(s, png=f"{rel_dir}/{s['png']}" if s['png'] else None)
                                      for k, s in meta['states'].items()}, id=f'toy{t}')
            result[idx] = meta
            log(f'  toy {nb_path.name}:{fname}: {len(meta["controls"])} controls, {len(meta["states"])} states, '
                f'{time.time() - t0:.1f} s')
    finally:
        os.chdir(cwd)
        plt.close('all')
    return result


def _package_hash():
    "Hash of the package's source: a toy's figures are recomputed whenever the library changes"
    import grci_lit
    h = hashlib.sha256()
    for f in sorted(Path(grci_lit.__file__).parent.rglob('*.py')): h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _default_index(values, default):
    for i, v in enumerate(values):
        if v == default or _key(v) == _key(default): return i
    return 0


def _fmt(v):
    if isinstance(v, float): return f'{v:.4g}'
    return str(v)


@contextlib.contextmanager
def _quiet():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        yield
