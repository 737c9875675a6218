"""The settings the lab measured on the way to GRCI's default, the seeds of its protocol, and the one helper that turns
an experiment's settings into GRCI's arguments.

Every place in the lab that builds a `GRCI` from an experiment's settings goes through `as_variant` (or `make_grci`),
so that a change of how GRCI takes its settings is made here once. The lab's experiments are written as they were
measured, before GRCI had one settings object: a dict of changes to the paper's algorithm, which is also the key their
records are stored under (`settings_of`); `as_settings` reads such a dict as GRCI's settings, with the two rules those
dicts ran under (`EARLIER_MAX_ROWS`, `EARLIER_LARGE_ROWS`)."""
import json

from grci_lit.grci import GRCI, PAPER, VARIANTS, GRCISettings

EARLIER_MAX_ROWS = 4000  # the rows an experiment's dict without max_rows tested on (a subsample past them)
EARLIER_LARGE_ROWS = 50_000  # past this many rows, with a max_rows in force, Find-Sink's fits and the Shapley CV read this many


def as_settings(
    settings, # a name of `VARIANTS` ("paper", "default"), a `GRCISettings`, or a dict of changes to the paper's algorithm
)->GRCISettings: # the settings a fit of this experiment runs under
    "An experiment's settings as GRCI's settings object; a dict reads as it did when the lab measured it."
    if isinstance(settings, GRCISettings): return settings
    if isinstance(settings, str):
        if settings not in VARIANTS: raise ValueError(f"settings: {settings!r} is not one of {list(VARIANTS)}")
        return VARIANTS[settings]
    if not isinstance(settings, dict):
        raise TypeError(f"settings must be a name, a GRCISettings or a dict, got {type(settings).__name__}")
    d = dict(settings)
    d.setdefault("max_rows", EARLIER_MAX_ROWS)
    if d["max_rows"] is not None: d.setdefault("large_rows", EARLIER_LARGE_ROWS)
    return GRCISettings.from_dict(d, base=PAPER)


def as_dict(
    settings:GRCISettings, # GRCI's settings
)->dict: # the changes to the paper's algorithm, as the lab's experiments are written (`as_settings` reads it back)
    "Settings as a dict of changes to the paper's algorithm: how the lab's records name the settings they were fitted with."
    d = {k: settings[k] for k in settings if settings[k] != PAPER[k]}
    if d.pop("smooth_shape", False): d["smooth_window"] = "shape"          # the shape rule's name in the records
    if settings.max_rows is None: d["max_rows"] = None                      # every row, said (a dict without it read fewer)
    if settings.large_rows == (EARLIER_LARGE_ROWS if settings.max_rows is not None else None): d.pop("large_rows", None)
    return d


def as_variant(
    settings, # as `as_settings` takes them
)->dict: # GRCI's keyword arguments that select these settings
    "GRCI's keyword arguments for one experiment's settings: the lab's one door into GRCI's settings."
    return {"variant": settings if isinstance(settings, str) and settings in VARIANTS else as_settings(settings)}


def make_grci(
    settings, # as `as_settings` takes them
    seed:int=0, # GRCI's seed
    **kw, # other GRCI arguments (verbose is False unless given)
)->GRCI:
    "An unfitted GRCI with an experiment's settings."
    kw.setdefault("verbose", False)
    return GRCI(seed=seed, **as_variant(settings), **kw)


def settings_of(
    settings, # as `as_settings` takes them
)->dict: # JSON-safe, stored beside a record: a record stored with the same settings is read back, not refitted
    "An experiment's settings as the lab stores them beside its records: the paper's by name, any other as its changes."
    if isinstance(settings, dict): d = dict(settings)
    elif as_settings(settings) == PAPER: d = {"variant": "paper"}
    else: d = as_dict(as_settings(settings))
    return json.loads(json.dumps(d, default=list))


# ---------------------------------------------------------------- the settings measured on the way to the default
_STABLE = dict(projection="mean", tie_seed=0, projection_seed=0, shapley_fits=3, pair_k_ladder=(0.5, 1, 2))
EXPERIMENTS = {  # earlier variants, each a dict of settings (the default's history: lab/HISTORY.md)
    "averaged": dict(n_draws=5),                               # Find-Sink's scores and Partial-Out's errors averaged over 5 projection draws
    "stable": _STABLE,                                         # no random step before the Shapley model (fixed tie-break, mean projection), 3 Shapley models
    "ranked": dict(_STABLE, rank_by="importance"),             # "stable", root causes ranked by Shapley value x the error's importance
    "smoothed": dict(_STABLE, rank_by="smoothed"),             # "ranked", each Shapley value first smoothed along its error
    "fast": dict(_STABLE, rank_by="smoothed", shapley_fits=1, max_rows=800, ci_test="spline"),  # "smoothed" with the spline test on 800 rows and one Shapley model
    "one window": as_dict(VARIANTS["default"].replace(smooth_shape=False)),  # the default before the shape rule: every error's curve over its smooth_window
}

ZOO_VARIANTS = {  # label -> settings measured on the zoo's report seeds, the paper's first
    "paper": "paper",                           # the paper's algorithm
    "smoothed": EXPERIMENTS["smoothed"],        # the default before the zoo
    "fast": EXPERIMENTS["fast"],                # its faster form
    "one window": EXPERIMENTS["one window"],    # the default before the shape rule
    "default": "default",                       # the default: "one window" with each error's window chosen by its curve's shape
}
TUNING_VARIANTS = dict({k: v for k, v in ZOO_VARIANTS.items() if k != "default"}, **{  # "one window" beside its alternatives, on the tuning seeds
    "one Shapley model": dict(EXPERIMENTS["one window"], shapley_fits=1),
    "mean projection": dict(EXPERIMENTS["one window"], projection="mean"),
    "MARS on every row": dict(EXPERIMENTS["one window"], ci_test="mars", max_rows=None),
    "ranked by Shapley value": dict(EXPERIMENTS["one window"], rank_by="shapley"),
    "ranked by importance": dict(EXPERIMENTS["one window"], rank_by="importance"),
})

ZOO_SIZES = ((10, 1000), (10, 2000), (30, 1000), (30, 2000), (50, 1000), (50, 2000))  # (variables, rows) of the zoo's table
TUNING_SEEDS = tuple(range(10))          # the data sets every choice was made on (12 variables, 1 000 rows)
REPORT_SEEDS = tuple(range(100, 120))    # fresh data sets the reported numbers come from: no choice saw them
SECOND_DRAW = tuple(range(120, 140))     # a second draw of fresh seeds, past every report and tuning seed

REMEDIES = {  # name -> (settings, whole GRCI fits whose Shapley values are averaged): the first measurements, on the paper's grid
    "paper": ({}, 1), "draws3": (dict(n_draws=3), 1), "draws5": (dict(n_draws=5), 1), "draws10": (dict(n_draws=10), 1),
    "mean_projection": (dict(projection="mean"), 1), "shap_mean3": ({}, 3), "shap_mean5": ({}, 5),
    "fixed_ties": (dict(projection="mean", tie_seed=0), 1),       # the mean projection with one tie-break for every seed
    "stable": (EXPERIMENTS["stable"], 1),                         # and 3 Shapley models averaged
    "ranked": (EXPERIMENTS["ranked"], 1),
    "smoothed": (EXPERIMENTS["smoothed"], 1),
    "stable5": (dict(EXPERIMENTS["stable"], shapley_fits=5), 1),
    "fixed_draw": (dict(tie_seed=0, projection_seed=0, shapley_fits=3), 1),   # one fixed Dirichlet draw instead of the mean
    "one window": (EXPERIMENTS["one window"], 1),
    "default": ("default", 1),
}
GRID = tuple(("hnm", p, n) for p in (10, 30, 50) for n in (500, 2000)) + (("pnl", 10, 1000), ("pnl", 30, 1000))  # (generator, p, n) cells
