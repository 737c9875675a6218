__version__ = "0.1.0"

from .grci import GRCI
from .stability import fit_seeds
