"""Generalized Root Causal Inference, literate: each patient's root causes of disease under the heteroscedastic noise model"""

__version__ = "0.2.0"

from .grci import GRCI
from .stability import fit_seeds
