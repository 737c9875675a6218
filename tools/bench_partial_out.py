#!/usr/bin/env python
"""Thin wrapper: the logic lives in `grci_lit.experiments`; this runs `grci-lit bench partial-out [options]`."""
import sys

from grci_lit.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "partial-out", *sys.argv[1:]]))
