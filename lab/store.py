"""The lab's one store of records: one JSON-lines file per experiment under `lab/records/`, one line per record name,
every write whole and atomic (a temporary file renamed over the old one, under a lock, so that two processes running
one experiment never lose each other's records and a killed run never leaves half a file). Beside each store, its
runs (`<experiment>.runs.json`): the command, code and machine of every run that wrote to it.

Recomputable intermediates (a fit's arrays, the harness runner's per-job files) go to `lab/cache/`, which git ignores:
the records are what the lab's tables and notebooks read; the cache only saves time."""
import datetime, fcntl, json, os, sys
from contextlib import contextmanager
from pathlib import Path

LAB = Path(__file__).resolve().parent
RECORDS = LAB / "records"     # committed: the raw per-fit records, one store per experiment
CACHE = LAB / "cache"         # git-ignored: what a rerun can recompute


def _atomic_write(path:Path, text:str):
    "Write `text` to `path` whole: a temporary file beside it, then an atomic rename."
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class Store:
    "One experiment's records: name -> a JSON-safe dict, kept in `<folder>/<experiment>.jsonl`."
    def __init__(self, experiment:str, folder=None):
        if not experiment or "/" in experiment or experiment.startswith("."):
            raise ValueError(f"an experiment is a plain name (letters, digits, _), got {experiment!r}")
        self.experiment, self.folder = experiment, Path(folder) if folder is not None else RECORDS
        self.path = self.folder / f"{experiment}.jsonl"

    def __repr__(self): return f"Store({self.experiment!r}, {len(self.load())} records, {self.path})"

    def load(self)->dict:
        "Every record: name -> record (an empty dict when nothing is stored)."
        if not self.path.exists(): return {}
        out = {}
        for i, line in enumerate(self.path.read_text().splitlines(), 1):
            if not line.strip(): continue
            try: row = json.loads(line)
            except json.JSONDecodeError as e: raise ValueError(f"{self.path}: line {i} is not JSON ({e.msg})") from None
            out[row["name"]] = row["record"]
        return out

    def get(self, name:str, default=None): return self.load().get(name, default)
    def __contains__(self, name): return name in self.load()
    def __len__(self): return len(self.load())

    @contextmanager
    def _locked(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / f".{self.experiment}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try: yield
            finally: fcntl.flock(lock, fcntl.LOCK_UN)

    def update(self, records:dict):
        "Store several records at once (name -> record), replacing those of the same names; one atomic write."
        records = {str(k): v for k, v in records.items()}
        json.dumps(records)                                    # JSON-safe, or fail before touching the file
        with self._locked():
            have = self.load()
            have.update(records)
            _atomic_write(self.path, "".join(json.dumps({"name": k, "record": have[k]}) + "\n" for k in sorted(have)))

    def put(self, name:str, record:dict): self.update({name: record})

    # ---------------------------------------------------------------- runs: which code and machine wrote the records
    @property
    def runs_path(self)->Path: return self.folder / f"{self.experiment}.runs.json"

    def runs(self)->list: return json.loads(self.runs_path.read_text()) if self.runs_path.exists() else []

    def record_run(self, modules=("lab.zoo",), **extra)->dict:
        "Add this run (command line, commit, package version, the fingerprint of the code `modules` load, machine, `extra`) to the store's runs."
        import grci_lit
        from grci_lit.bench.measure import package_commit
        from grci_lit.bench.report import code_files, code_fingerprint, machine
        run = dict(command=" ".join(["python -m lab", *sys.argv[1:]]), commit=package_commit(), version=grci_lit.__version__,
                   code=code_fingerprint(code_files(tuple(modules))), modules=list(modules), **extra,
                   started=datetime.datetime.now().isoformat(timespec="seconds"), machine=machine())
        with self._locked(): _atomic_write(self.runs_path, json.dumps(self.runs() + [run], indent=1) + "\n")
        return run
