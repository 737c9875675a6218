"""Offline docs build for grci_lit.

Quarto cannot be installed on machines without internet, so `nbdev-docs` cannot run there. This script does
what it can with pip packages alone: nbdev's own notebook processing (`proc_nbs`: show_doc tables from docments,
doc links, `#| hide`/`#| export` directives) into `_proc/`, then nbconvert renders each notebook to static HTML
in the `doc_path` of pyproject.toml (`docs/`), with a sidebar and previous/next links between chapters.
README.md is written from `nbs/index.ipynb` on the way. Where Quarto exists, `nbdev-docs` still works from
`nbs/_quarto.yml` and `nbs/sidebar.yml`.

Usage: python tools/build_docs.py [--out DIR] [--no-readme]"""
import argparse, html, re, shutil, sys
from pathlib import Path

import nbformat, yaml
from nbconvert import HTMLExporter, MarkdownExporter
from traitlets.config import Config

_re_dir = re.compile(r'^#\|\s*([\w-]+)\s*:?\s*(.*)$')


def _directives(src):
    "Leading `#| key: value` lines of `src` as a dict, and the source without them"
    lines, d = src.splitlines(), {}
    while lines and (m := _re_dir.match(lines[0])): d[m[1]] = m[2].strip() or 'true'; lines.pop(0)
    return d, '\n'.join(lines)


def _prep(nb):
    "Apply the Quarto cell options nbdev emits (echo/output/include/code-fold); return the frontmatter"
    fm, cells = {}, []
    for c in nb.cells:
        c.metadata.pop('execution', None)          # execnb writes a float here; nbformat rejects it
        if c.cell_type == 'raw' and c.source.lstrip().startswith('---'):
            fm = yaml.safe_load(c.source.strip().strip('-')) or {}; continue
        if c.cell_type == 'code':
            d, c.source = _directives(c.source)
            if d.get('include') == 'false': continue
            tags = c.metadata.setdefault('tags', [])
            if d.get('echo') == 'false': tags.append('remove_input')
            if d.get('output') == 'false': tags.append('remove_output')
            if d.get('code-fold') in ('true', 'show'): tags.append('fold')
            for o in c.get('outputs', []):
                md = o.get('data', {}).get('text/markdown')
                if md: o['data']['text/markdown'] = re.sub(r'\{target="_blank"[^}]*\}', '', md)
        if c.cell_type == 'markdown':               # fastcore's `## Name -` headings: the dash only hides them from a TOC
            c.source = re.sub(r'^(#+ .*?)\s+-\s*$', r'\1', c.source, flags=re.M)
        cells.append(c)
    if fm.get('title'):
        cells.insert(0, nbformat.v4.new_markdown_cell(f"# {fm['title']}\n\n> {fm.get('description', '')}"))
    nb.cells = cells
    return fm


_MATHJAX_FONTS = """<script type="text/x-mathjax-config">
MathJax.Hub.Config({"HTML-CSS": {webFont: "STIX-Web", availableFonts: [], preferredFont: null, imageFont: null},
                   SVG: {font: "STIX-Web"}});
</script>"""   # the jupyter-server-mathjax copy ships STIX-Web fonts only (no TeX web fonts)

_CSS = """<style>
body{margin:0} .grci-side{position:fixed;top:0;left:0;width:230px;height:100%;overflow:auto;background:#f6f7f9;
border-right:1px solid #ddd;padding:1em;font:14px sans-serif;box-sizing:border-box}
.grci-side a{display:block;padding:.25em 0;color:#1f4e79;text-decoration:none}.grci-side a.cur{font-weight:bold}
.grci-main{margin-left:240px} .grci-pn{display:flex;justify-content:space-between;padding:1em 2em;font:14px sans-serif}
details.fold summary{cursor:pointer;color:#1f4e79}
</style>"""


def _nav(pages, i):
    side = ''.join(f'<a class="{"cur" if j == i else ""}" href="{f}">{html.escape(t)}</a>'
                   for j, (f, t, _) in enumerate(pages))
    prev = f'<a href="{pages[i-1][0]}">&larr; {html.escape(pages[i-1][1])}</a>' if i > 0 else '<span></span>'
    nxt = f'<a href="{pages[i+1][0]}">{html.escape(pages[i+1][1])} &rarr;</a>' if i + 1 < len(pages) else '<span></span>'
    return (f'<nav class="grci-side"><b>grci_lit</b>{side}</nav>', f'<div class="grci-pn">{prev}{nxt}</div>')


def _local_mathjax(out):
    "Copy MathJax 2 from the `jupyter-server-mathjax` package into `out/mathjax`; its relative URL, or None"
    try: import jupyter_server_mathjax
    except ImportError: return None
    src = Path(jupyter_server_mathjax.__file__).parent / 'static'
    if not (out / 'mathjax' / 'MathJax.js').exists(): shutil.copytree(src, out / 'mathjax', dirs_exist_ok=True)
    return 'mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe'   # the config this package ships


def _order(p):
    "index first, then the chapters in teaching order, then the harness's pages (subfolders); appendices (90 and up) last"
    num = re.match(r'(\d+)_', p.name)
    appendix = len(p.parts) == 1 and num is not None and int(num[1]) >= 90
    return (0 if p.stem == 'index' else 3 if appendix else len(p.parts), str(p))


def _pages(cache):
    "The processed notebooks to render, as paths relative to `cache`, in reading order"
    nbs = [p.relative_to(cache) for p in cache.rglob('*.ipynb')]
    return sorted((p for p in nbs if not any(s.startswith(('_', '.')) for s in p.parts)), key=_order)


def build_docs(out=None, readme=True):
    from nbdev.config import get_config
    from nbdev.serve import proc_nbs
    import nbdev.doclinks
    cfg = get_config()
    nbdev.doclinks._build_modidx()
    cache = Path(proc_nbs(cfg.nbs_path))        # -> _proc/: show_doc run, hidden/exported cells handled
    out = Path(out or cfg.doc_path); out.mkdir(parents=True, exist_ok=True)
    c = Config(); c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_input_tags = {'remove_input'}
    c.TagRemovePreprocessor.remove_all_outputs_tags = {'remove_output'}
    c.TemplateExporter.exclude_input_prompt = True
    c.TemplateExporter.exclude_output_prompt = True
    exp = HTMLExporter(config=c, template_name='lab')
    mj = _local_mathjax(out)
    if mj: exp.mathjax_url = mj               # math renders with no network
    rendered = []
    for rel in _pages(cache):
        p = cache / rel
        nb = nbformat.read(p, as_version=4)
        fm = _prep(nb)
        fname = '_'.join([*rel.parent.parts, fm.get('output-file') or p.with_suffix('.html').name])   # bench/01_pairs: bench_pairs.html
        body, _ = exp.from_notebook_node(nb, resources={'metadata': {'name': fm.get('title', p.stem)}})
        rendered.append([fname, fm.get('title', p.stem), body])
    pages = [(f, t, None) for f, t, _ in rendered]
    for i, (fname, title, body) in enumerate(rendered):
        side, pn = _nav(pages, i)
        body = body.replace('</head>', _MATHJAX_FONTS + _CSS + '</head>', 1)
        body = re.sub(r'<body([^>]*)>', lambda m: f'<body{m[1]}>{side}<div class="grci-main">', body, count=1)
        body = body.replace('</body>', f'{pn}</div></body>', 1)
        (out / fname).write_text(body)
    if readme and (cache / cfg.readme_nb).exists():   # README.md from the index notebook (nbdev-readme needs Quarto)
        nb = nbformat.read(cache / cfg.readme_nb, as_version=4); _prep(nb)
        nb.cells = [x for x in nb.cells if 'remove_output' not in x.metadata.get('tags', [])]
        md, _ = MarkdownExporter(config=c).from_notebook_node(nb)
        (Path(cfg.config_path) / 'README.md').write_text(md.strip() + '\n')
    print(f'Wrote {len(rendered)} pages to {out}/')
    return out, [f for f, _, _ in pages]


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=None, help='output folder (default: doc_path from pyproject.toml)')
    ap.add_argument('--no-readme', action='store_true', help='do not rewrite README.md from nbs/index.ipynb')
    a = ap.parse_args()
    build_docs(a.out, readme=not a.no_readme)
