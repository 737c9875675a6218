"""Offline docs build for grci_lit.

Quarto cannot be installed on machines without internet, so `nbdev-docs` cannot run there. This script does
what it can with pip packages alone: nbdev's own notebook processing (`proc_nbs`: show_doc tables from docments,
doc links, `#| hide`/`#| export` directives) into `_proc/`, then nbconvert renders each notebook (nbs/ is searched
recursively) to static HTML in the `doc_path` of pyproject.toml (`docs/`), through the template in `tools/site/`.

The site needs no network and no kernel: MathJax is served from the site, every `interact` toy becomes controls
switching between figures computed here (tools/site/toys.py; states cached in `_site_cache/`), search runs on a
prebuilt index, and every chapter links to its notebook. README.md is written from `nbs/index.ipynb` on the way,
with its links pointing at the notebooks and files of the checkout. Where Quarto exists, `nbdev-docs` still works
from `nbs/_quarto.yml`.

Usage: python tools/build_docs.py [--out DIR] [--no-readme]"""
import argparse, html, inspect, json, os, posixpath, re, shutil, sys, time
from urllib.parse import quote, unquote
from pathlib import Path

import nbformat, yaml
from nbconvert import HTMLExporter, MarkdownExporter
from traitlets.config import Config

SITE = Path(__file__).resolve().parent / 'site'
sys.path.insert(0, str(SITE))
import toys as toymod  # noqa: E402

_re_dir = re.compile(r'^#\|\s*([\w-]+)\s*:?\s*(.*)$')
_BASE_URL = 'https://grci-lit.github.io/grci_lit/'   # nbdev's doc links: made relative here


def _directives(src):
    "Leading `#| key: value` lines of `src` as a dict, and the source without them"
    lines, d = src.splitlines(), {}
    while lines and (m := _re_dir.match(lines[0])): d[m[1]] = m[2].strip() or 'true'; lines.pop(0)
    return d, '\n'.join(lines)


def _classes():
    "Names of the classes the package defines (show_doc prints them as `def Name(`)"
    import importlib
    from grci_lit._modidx import d
    out = set()
    for mod in d['syms']:
        try: m = importlib.import_module(mod)
        except Exception: continue
        out |= {k for k, v in vars(m).items() if inspect.isclass(v) and getattr(v, '__module__', '') == mod}
    return out


def _clean_doc(md, classes):
    "A show_doc output, cleaned: classes as classes, no `__main__.`, no `NoneType` annotation, relative links"
    md = re.sub(r'\{target="_blank"[^}]*\}', '', md)
    md = md.replace('__main__.', '')
    md = re.sub(r':\s*NoneType\s*=\s*None', '=None', md)           # docments' type of a bare `=None` default
    md = re.sub(r'\bNoneType\b', 'None', md)
    md = re.sub(r'typing\.Optional\[([^\[\]]+)\]', r'\1 | None', md)
    md = re.sub(r'\bdef (\w+)\(', lambda m: f'class {m[1]}(' if m[1] in classes else m[0], md)
    return md


def _exercise_cells(nb, students=False):
    """The course's exercise cells on the site: a worked answer shows without nbgrader's marker lines (folded, by its
    `code-fold`), an answer key folds under "Answer key"; built for students, both are blanks (`grci_lit.course`)"""
    from grci_lit import course
    if students:
        plain = _student_copy({'cells': [dict(c, source=c.source) for c in nb.cells], 'metadata': {}})
        keep = {c.get('id') for c in plain['cells']}
        by_id = {c.get('id'): c for c in plain['cells']}
        nb.cells = [c for c in nb.cells if c.get('id') in keep]
        for c in nb.cells:
            if c.get('id') in by_id and 'solution' in c.metadata.get('tags', []):
                c.source, c.outputs = by_id[c.id]['source'], []
                c.metadata['tags'] = [t for t in c.metadata['tags'] if t != 'fold']
            elif c.get('id') in by_id and 'answer' in c.metadata.get('tags', []): c.source = by_id[c.id]['source']
        return
    for c in nb.cells:
        tags = c.metadata.get('tags', [])
        if 'solution' in tags:
            marks = (course.SOLUTION_BEGIN, course.SOLUTION_END)
            c.source = '\n'.join(l for l in c.source.splitlines() if l.strip() not in marks)
        if 'answer' in tags and c.cell_type == 'markdown':
            key = c.source.replace(course.ANSWER_BEGIN, '').replace(course.ANSWER_END, '').strip()
            c.source = f'<details class="grci-answer"><summary>Answer key</summary>\n\n{key}\n\n</details>'


def _student_copy(nb):
    "`grci_lit.course.student_copy`; a chapter whose exercises do not follow the convention loses its folded answers"
    from grci_lit import course
    bad = set(course.unmarked(nb))
    return course.student_copy(dict(nb, cells=[c for c in nb['cells'] if c.get('id') not in bad]))


def _prep(nb, classes=(), students=False):
    "Apply the Quarto cell options nbdev emits (echo/output/include/code-fold); return the frontmatter"
    fm, cells = {}, []
    _exercise_cells(nb, students)
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
                if md: o['data']['text/markdown'] = _clean_doc(md, classes)
        if c.cell_type == 'markdown':               # fastcore's `## Name -` headings: the dash only hides them from a TOC
            c.source = re.sub(r'^(#+ .*?)\s+-\s*$', r'\1', c.source, flags=re.M)
        cells.append(c)
    if fm.get('title'):
        cells.insert(0, nbformat.v4.new_markdown_cell(f"# {fm['title']}\n\n> {fm.get('description', '')}"))
    nb.cells = cells
    nb.metadata.pop('widgets', None)               # an empty widget state: nothing to embed
    return fm


def _local_mathjax(out):
    "Copy MathJax 2 from the `jupyter-server-mathjax` package into `out/mathjax`"
    import jupyter_server_mathjax
    src = Path(jupyter_server_mathjax.__file__).parent / 'static'
    if not (out / 'mathjax' / 'MathJax.js').exists(): shutil.copytree(src, out / 'mathjax', dirs_exist_ok=True)
    return 'mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe'   # the config this package ships


def _order(p, root):
    "index first, then the chapters in teaching order, then the harness's pages (subfolders); appendices (90 and up) last"
    rel = p.relative_to(root)
    num = re.match(r'(\d+)_', p.name)
    appendix = len(rel.parts) == 1 and num is not None and int(num[1]) >= 90
    first = {'index': 0, 'syllabus': 0.5}.get(p.stem) if len(rel.parts) == 1 else None   # the syllabus right after the index
    return (first if first is not None else 3 if appendix else len(rel.parts), str(rel))


def _page_name(p, fm, root):
    "Page of a notebook: `output-file` or its name without the number, prefixed by its folders (nbs/bench/01_pairs: bench_pairs.html)"
    name = fm.get('output-file') or re.sub(r'^\d+_', '', p.stem) + '.html'
    return '_'.join([*p.parent.relative_to(root).parts, name])


def _number(rel):
    "Number shown in the sidebar: the chapter's (06), or the folder's initial and the number for the harness (B02)"
    m = re.match(r'^(\d+)_', rel.name)
    if not m: return ''
    return (rel.parts[0][0].upper() if len(rel.parts) > 1 else '') + m[1]


# ---------------------------------------------------------------- page chrome
def _rel(frm, to):
    "Relative URL from the page `frm` to the site path `to`"
    return posixpath.relpath(to, posixpath.dirname(frm) or '.')


def _chrome(pages, i, toc):
    f = pages[i]['file']
    num = lambda p: f'<span class="grci-num">{p["num"]}</span> ' if p['num'] else ''
    side = ''.join(f'<li><a class="{"cur" if j == i else ""}" href="{_rel(f, p["file"])}">{num(p)}'
                   f'{html.escape(p["title"])}</a></li>' for j, p in enumerate(pages))
    side = (f'<nav class="grci-side" id="grci-side" aria-label="chapters">'
            f'<a class="grci-brand" href="{_rel(f, "index.html")}">grci_lit</a>'
            f'<input id="grci-search" type="search" placeholder="Search the site" aria-label="Search the site">'
            f'<ul id="grci-search-results" hidden></ul><ol class="grci-chapters">{side}</ol></nav>')
    top = (f'<header class="grci-top"><button class="grci-burger" aria-controls="grci-side" aria-expanded="false" '
           f'aria-label="chapters">&#9776;</button><a href="{_rel(f, "index.html")}">grci_lit</a></header>')
    prev = (f'<a class="grci-prev" href="{_rel(f, pages[i-1]["file"])}">&larr; {html.escape(pages[i-1]["title"])}</a>'
            if i > 0 else '<span></span>')
    nxt = (f'<a class="grci-next" href="{_rel(f, pages[i+1]["file"])}">{html.escape(pages[i+1]["title"])} &rarr;</a>'
           if i + 1 < len(pages) else '<span></span>')
    pn = f'<nav class="grci-pn" aria-label="previous and next">{prev}{nxt}</nav>'
    links = []
    if pages[i].get('ipynb'):
        links.append(f'<a href="{_rel(f, pages[i]["ipynb"])}" download>Download this chapter\'s notebook '
                     f'({posixpath.basename(pages[i]["ipynb"])})</a>')
    if pages[i].get('slides'): links.append(f'<a class="grci-slides" href="{_rel(f, pages[i]["slides"])}">Slides</a>')
    if pages[i].get('erratum'):
        where = 'in this chapter' if pages[i]['num'] else 'on this page'
        links.append(f'<a class="grci-erratum" href="{html.escape(pages[i]["erratum"])}" rel="noopener">Report an error '
                     f'{where}</a>')
    dl = f'<p class="grci-download">{" · ".join(links)}</p>' if links else ''
    toc_html = ''
    if toc:
        items = ''.join(f'<li class="lv{lv}"><a href="#{html.escape(a)}">{html.escape(t)}</a></li>' for lv, a, t in toc)
        toc_html = f'<details class="grci-toc" open><summary>On this page</summary><ul>{items}</ul></details>'
    return top, side, pn, dl, toc_html


_re_head = re.compile(r'<h([1-3]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)


def _text(s):
    s = re.sub(r'<a class="anchor-link".*?</a>', '', s, flags=re.S)
    s = re.sub(r'<(script|style)[^>]*>.*?</\1>', ' ', s, flags=re.S)
    return html.unescape(re.sub(r'\s+', ' ', re.sub(r'<[^>]+>', ' ', s))).strip()


def _sections(body):
    "[(level, id, title, text)] of a rendered page's main content, split at its h1-h3 headings"
    main = body.split('<main>', 1)[-1]
    heads = list(_re_head.finditer(main))
    out = []
    for k, m in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(main)
        chunk = re.sub(r'<div class="jp-OutputArea.*?(?=<div class="jp-Cell |\Z)', ' ', main[m.end():end], flags=re.S)
        out.append((int(m[1]), m[2], _text(m[3]), _text(chunk)[:4000]))
    return out


def _fix_links(body, page, pages, ids):
    """nbdev's absolute doc links made relative, with anchors that exist on the target page (a doc link to a name
    with no entry, e.g. a private helper, becomes plain code); notebook links to their pages"""
    by_name = {p['file']: p for p in pages}
    by_base = {posixpath.basename(p['file']): p['file'] for p in pages}
    by_nb = {posixpath.basename(p['ipynb']): p['file'] for p in pages if p.get('ipynb')}

    def fix(m):
        pre, href, post, inner = m[1], html.unescape(m[2]), m[3], m[4]
        if 'grci-slides' in pre: return m[0]                 # a deck, not a page of the site
        url, _, anchor = href.partition('#')
        target, doclink = None, url.startswith(_BASE_URL)
        if doclink: target = by_base.get(url[len(_BASE_URL):].replace('/', '_') or 'index.html')   # bench/runner.html: bench_runner.html
        elif '://' in url or url.startswith(('mailto:', 'data:')) or ' download' in post: return m[0]
        elif url == '': target = page if anchor else None
        elif url.endswith('results/README.md'): target = 'results.html'
        elif url.endswith('.ipynb'): target = by_nb.get(posixpath.basename(url))
        elif url.endswith('.html'): target = by_base.get(posixpath.basename(url)) or (url if url in by_name else None)
        if target is None: return inner if doclink else m[0]
        if anchor and target in ids and anchor not in ids[target] and unquote(anchor) not in ids[target]:
            # nbdev lower-cases the anchors
            low = {a.lower(): a for a in ids[target]}
            found = low.get(unquote(anchor).lower())
            if found is None and doclink: return inner
            if found: anchor = quote(found, safe="-_.~!$&'()*+,;=:@/")
        new = (_rel(page, target) if target != page else '') + (f'#{anchor}' if anchor else '')
        return f'<a{pre}href="{html.escape(new or _rel(page, target))}"{post}>{inner}</a>'
    return re.sub(r'<a\b([^>]*?)href="([^"]*)"([^>]*)>(.*?)</a>', fix, body, flags=re.S)


def _toy_html(t):
    spec = {'controls': t['controls'], 'states': t['states']}
    fixed = ', '.join(f'{k} = {html.escape(str(v))}' for k, v in t['fixed'].items())
    note = (f'<p class="toy-note">Live toy: {len(t["states"])} states of <code>{html.escape(t["fn"])}</code> computed '
            f'when this site was built' + (f'; fixed here: {fixed}' if fixed else '') +
            '. Run the notebook for every value.</p>')
    data = json.dumps(spec).replace('</', '<\\/')
    return (f'<div class="grci-toy" id="{t["id"]}"><div class="toy-controls"></div>{note}'
            f'<img class="toy-fig" alt="figure of {html.escape(t["fn"])}"><pre class="toy-text" hidden></pre>'
            f'<script type="application/json">{data}</script></div>')


def _results_page(root, out):
    "results/README.md as a page of the site, its figures beside it"
    src = root / 'results' / 'README.md'
    if not src.exists(): return None
    (out / 'results').mkdir(exist_ok=True)
    for f in (root / 'results').glob('*.png'): shutil.copy2(f, out / 'results' / f.name)
    md = src.read_text()
    md = re.sub(r'\]\((?!https?://|#)([^)\s]+\.(?:png|svg|jpg))\)', r'](results/\1)', md)
    md = re.sub(r'\[([^\]]+)\]\((?!https?://|#)([^)\s]+\.md)\)', r'`results/\2`', md)   # a file of the repository, not a page
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(md)])
    title = next((l.lstrip('# ').strip() for l in md.splitlines() if l.startswith('# ')), 'Results')
    return nb, title


def _download_copy(src, dest, students=False):
    "The notebook a reader downloads: the chapter without its maintainers' closing export cell (or its student copy)"
    from grci_lit import course
    dest.parent.mkdir(parents=True, exist_ok=True)
    nb = course.read_notebook(src)
    course.write_notebook(_student_copy(nb) if students else course.reader_copy(nb), dest)


def _erratum_url(cfg, page):
    "A new issue from the erratum template, its title naming the chapter"
    from urllib.parse import urlencode
    repo = str(cfg.get('git_url') or '').rstrip('/') or 'https://github.com/grci-lit/grci_lit'
    title = f"Erratum: chapter {page['num']} {page['title']}" if page['num'] else f"Erratum: {page['title']}"
    return f"{repo}/issues/new?" + urlencode({'template': 'erratum.md', 'labels': 'erratum', 'title': title})


_SLIDES = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}: slides</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="reveal/reveal.css"><link rel="stylesheet" href="slides.css">
{mathjax_config}<script src="{mathjax}"></script></head>
<body><div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="reveal/reveal.js"></script>
<script>Reveal.initialize({{hash: true, slideNumber: 'c/t', width: 1100, height: 700, transition: 'none'}});
Reveal.on('slidechanged', () => window.MathJax && MathJax.Hub.Queue(['Rerender', MathJax.Hub]));</script>
</body></html>
"""


def _write_slides(src, dest, out, title):
    "A short reveal.js deck of one chapter (`grci_lit.course.slide_deck`), offline: reveal.js and MathJax from the site"
    from grci_lit import course
    from nbconvert.filters.markdown import markdown2html
    deck = course.slide_deck(course.read_notebook(src), src.stem)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(SITE / 'reveal', dest.parent / 'reveal', dirs_exist_ok=True)
    shutil.copy2(SITE / 'slides.css', dest.parent / 'slides.css')
    sections = []
    for k, s in enumerate(deck):
        img = (f'<img class="deck-fig" alt="a figure of the chapter" src="data:image/png;base64,{s["image"]}">'
               if s.get('image') else '')
        tag = 'h1' if k == 0 else 'h2'
        text = re.sub(r'\]\((\w+)\.ipynb\)', lambda m: f'](../{re.sub(r"^[0-9]+_", "", m[1])}.html)', s['markdown'])  # pages
        text = re.sub(r'\]\((?![a-z]+:|#|\.\./|/)([^)\s]+\.html(?:#[^)\s]*)?)\)', r'](../\1)', text)  # a page's link
        sections.append(f'<section><{tag}>{html.escape(s["title"])}</{tag}>{img}'
                        f'<div class="deck-text">{markdown2html(text)}</div></section>')
    back = (f'<section><h2>The chapter</h2><p><a href="../{html.escape(dest.name)}">Read it on the site</a></p>'
            '</section>')
    template = (SITE / 'template' / 'index.html.j2').read_text()
    config = re.search(r'<script type="text/x-mathjax-config">.*?</script>', template, re.S)[0]   # $...$, STIX fonts
    dest.write_text(_SLIDES.format(title=html.escape(title), mathjax=f'../{_local_mathjax(out)}', mathjax_config=config,
                                   sections='\n'.join(sections + [back])))


def build_docs(out=None, readme=True, cache_dir=None, jobs=2, log=print, students=False):
    from nbdev.config import get_config
    from nbdev.serve import proc_nbs
    import nbdev.doclinks
    t0 = time.time()
    from grci_lit import course as coursemod
    cfg = get_config()
    root, nbs_root = Path(cfg.config_path), Path(cfg.nbs_path)
    nbdev.doclinks._build_modidx()
    cache = Path(proc_nbs(cfg.nbs_path))        # -> _proc/: show_doc run, hidden/exported cells handled
    out = Path(out or cfg.doc_path); out.mkdir(parents=True, exist_ok=True)
    cache_dir = Path(cache_dir or root / '_site_cache'); cache_dir.mkdir(parents=True, exist_ok=True)
    c = Config(); c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_input_tags = {'remove_input'}
    c.TagRemovePreprocessor.remove_all_outputs_tags = {'remove_output'}
    c.TemplateExporter.exclude_input_prompt = True
    c.TemplateExporter.exclude_output_prompt = True
    c.TemplateExporter.extra_template_basedirs = [str(SITE)]
    exp = HTMLExporter(config=c, template_name='template')
    exp.mathjax_url = _local_mathjax(out)
    for f in ('site.css', 'site.js'): shutil.copy2(SITE / f, out / f)
    classes = _classes()
    nbs = sorted((p for p in cache.rglob('*.ipynb') if not any(x.startswith(('_', '.')) for x in p.relative_to(cache).parts)),
                 key=lambda p: _order(p, cache))
    shutil.rmtree(out / 'toys', ignore_errors=True)   # figures of earlier builds' states go; the cache keeps them
    toys = _all_toys(nbs, cache, nbs_root, out, cache_dir, jobs, log)
    pages, bodies, toy_counts = [], [], {}
    for p in nbs:
        rel = p.relative_to(cache)
        src = nbs_root / rel
        nb = nbformat.read(p, as_version=4)
        fm = _prep(nb, classes, students)
        fname = _page_name(p, fm, cache)
        page = {'file': fname, 'title': fm.get('title', p.stem), 'num': _number(p.relative_to(cache)), 'src': src}
        if src.exists() and p.stem != 'index':                 # the notebook itself, to download
            page['ipynb'] = posixpath.join(posixpath.dirname(fname), src.name)
            _download_copy(src, out / page['ipynb'], students)
            page['erratum'] = _erratum_url(cfg, page)
        if len(rel.parts) == 1 and coursemod.COURSE.get(p.stem, {}).get('core'):   # a core chapter: its slides
            page['slides'] = f'slides/{fname}'
            _write_slides(src, out / page['slides'], out, page['title'])
        # live toys: the processed notebook's interact cells, in order, are the source notebook's
        src_cells = _cells(src)
        if src_cells and toymod.find_toys(src_cells):
            built = toys[str(src)]
            targets = [c_ for c_ in nb.cells if c_.cell_type == 'code' and toymod.interact_call(c_.source)]
            src_toys = [i for i, _ in toymod.find_toys(src_cells)]
            for i_src, cell in zip(src_toys, targets):
                if i_src not in built: continue
                cell.outputs = [nbformat.v4.new_output('display_data', data={'text/html': _toy_html(built[i_src])})]
                cell.metadata['tags'] = [t for t in cell.metadata.get('tags', []) if t != 'remove_output']
            toy_counts[fname] = [(t['fn'], len(t['controls']), len(t['states'])) for t in built.values()]
        body, _ = exp.from_notebook_node(nb, resources={'metadata': {'name': page['title']}})
        pages.append(page); bodies.append(body)
    res = _results_page(root, out)
    if res:
        nb, title = res
        body, _ = exp.from_notebook_node(nb, resources={'metadata': {'name': title}})
        pages.append({'file': 'results.html', 'title': title, 'num': ''}); bodies.append(body)
    ids = {p['file']: {html.unescape(x) for x in re.findall(r'\bid="([^"]+)"', b)} for p, b in zip(pages, bodies)}
    index = []
    for i, (page, body) in enumerate(zip(pages, bodies)):
        f = page['file']
        secs = _sections(body)
        toc = [(lv, a, t) for lv, a, t, _ in secs if lv in (2, 3)]
        top, side, pn, dl, toc_html = _chrome(pages, i, toc)
        up = _rel(f, '.') + '/' if '/' in f else ''
        body = body.replace('src="mathjax/', f'src="{up}mathjax/')
        head = (f'<link rel="icon" href="data:,"><link rel="stylesheet" href="{up}site.css"><script src="{up}search_index.js" defer></script>'
                f'<script src="{up}site.js" defer></script>')
        body = body.replace('</head>', head + '</head>', 1)
        body = re.sub(r'<body([^>]*)>\s*<main>', lambda m: f'<body{m[1]}>{top}{side}<div class="grci-main">{pn}'
                      f'<div class="grci-layout">{toc_html}<main class="grci-article">{dl}', body, count=1)
        body = body.replace('</main>', f'</main></div>{pn}</div>', 1)
        body = _fix_links(body, f, pages, ids)
        (out / f).parent.mkdir(parents=True, exist_ok=True)
        (out / f).write_text(body)
        index += [{'p': page['title'], 't': t, 'u': f + '#' + a, 'x': x} for lv, a, t, x in secs]
    (out / 'search_index.js').write_text('window.GRCI_SEARCH = ' + json.dumps(index, ensure_ascii=False) + ';\n')
    if readme and (cache / cfg.readme_nb).exists():   # README.md from the index notebook (nbdev-readme needs Quarto)
        nb = nbformat.read(cache / cfg.readme_nb, as_version=4); _prep(nb)
        nb.cells = [x for x in nb.cells if 'remove_output' not in x.metadata.get('tags', [])]
        md, _ = MarkdownExporter(config=c).from_notebook_node(nb)
        (root / 'README.md').write_text(_readme_links(md, pages, root).strip() + '\n')
    log(f'Wrote {len(pages)} pages to {out}/ in {time.time() - t0:.0f} s')
    for f, ts in toy_counts.items(): log(f'  {f}: ' + '; '.join(f'{fn} ({k} controls, {n} states)' for fn, k, n in ts))
    return out, [p['file'] for p in pages]


def _readme_links(md, pages, root):
    "README links of the index notebook, as a checkout sees them: site pages become their notebooks"
    by_base = {posixpath.basename(p['file']): p for p in pages}

    def fix(m):
        url, _, anchor = m[2].partition('#')
        p = by_base.get(posixpath.basename(url)) if url.endswith('.html') and '://' not in url else None
        if url.endswith('.ipynb') and '://' not in url:
            p = next((q for q in pages if q.get('src') and q['src'].name == posixpath.basename(url)), None)
        if p is None or not p.get('src'): return m[0]
        return f'{m[1]}({p["src"].resolve().relative_to(root.resolve()).as_posix()}{"#" + anchor if anchor else ""})'
    return re.sub(r'(\[[^\]]*\])\(([^)\s]+)\)', fix, md)


def _cells(src):
    return [dict(c, source=''.join(c['source'])) for c in json.loads(src.read_text())['cells']] if src.exists() else []


def _one_nb_toys(src, fname, out, cache_dir):
    "The toys of one notebook (run in a worker process: each notebook gets a fresh namespace)"
    import builtins
    from IPython.display import display
    builtins.display = getattr(builtins, 'display', display)   # notebooks call IPython's `display` without importing it
    stem = re.sub(r'\.html$', '', fname)
    lines = []
    built = toymod.build_toys(src.resolve(), _cells(src), out / 'toys' / stem, _rel(fname, f'toys/{stem}'),
                              cache_dir, config=_toy_config(), log=lines.append)
    return built, lines


def _all_toys(nbs, cache, nbs_root, out, cache_dir, jobs, log):
    "Every notebook's toys, computed in `jobs` processes (each state cached on disk): {source path: toys}"
    todo = []
    for p in nbs:
        src = nbs_root / p.relative_to(cache)
        cells = _cells(src)
        if cells and toymod.find_toys(cells):
            fm = next((yaml.safe_load(c['source'].strip().strip('-')) or {} for c in cells[:1]
                       if c['cell_type'] == 'raw' and c['source'].lstrip().startswith('---')), {})
            todo.append((src, _page_name(p, fm, cache)))
    from joblib import Parallel, delayed
    os.environ['PYTHONPATH'] = os.pathsep.join(filter(None, [str(SITE), os.environ.get('PYTHONPATH')]))  # workers import toys
    os.environ.setdefault('MPLBACKEND', 'Agg')
    res = Parallel(n_jobs=jobs)(delayed(_one_nb_toys)(src, f, out, cache_dir) for src, f in todo)
    for built, lines in res:
        for l in lines: log(l)
    return {str(src): built for (src, _), (built, _) in zip(todo, res)}


def _toy_config():
    f = SITE / 'toys.yml'
    return (yaml.safe_load(f.read_text()) or {}) if f.exists() else {}


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=None, help='output folder (default: doc_path from pyproject.toml)')
    ap.add_argument('--no-readme', action='store_true', help='do not rewrite README.md from nbs/index.ipynb')
    ap.add_argument('--cache', default=None, help='cache of the toys\' figures (default: _site_cache/)')
    ap.add_argument('--jobs', type=int, default=2, help='processes computing the toys\' figures (default 2)')
    ap.add_argument('--students', action='store_true', help='a site for students: worked answers and answer keys left '
                    'out (blanks, as in the student copies), the notebooks to download are student copies')
    a = ap.parse_args()
    build_docs(a.out, readme=not a.no_readme, cache_dir=a.cache, jobs=a.jobs, students=a.students)
