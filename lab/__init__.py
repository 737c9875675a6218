"""The lab: research beyond the paper, outside the package. It imports the library (`grci_lit`) and the harness
(`grci_lit.bench`); nothing in either imports it, and the wheel does not ship it. One command runs its stages
(`python -m lab --help`), one store keeps its records (`lab.store`, lab/records), and its notebooks (lab/nbs) are the
record of how GRCI's default was chosen."""
