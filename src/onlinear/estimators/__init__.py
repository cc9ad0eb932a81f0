"""scikit-learn estimators of the linear online learners.

The public classes are those each family module lists in its ``__all__``: a new estimator is
exported (and documented on the API page, ``docs/api/estimators.md``) by its own module.
"""
from . import (adaptive, confidence_weighted, ellipsoid, kernel, maximum_cosine, narow,
               passive_aggressive, simultaneous, ultraconservative)
from .adaptive import *  # noqa: F403
from .base import OnlineLinearClassifier
from .confidence_weighted import *  # noqa: F403
from .ellipsoid import *  # noqa: F403
from .kernel import *  # noqa: F403
from .maximum_cosine import *  # noqa: F403
from .narow import *  # noqa: F403
from .passive_aggressive import *  # noqa: F403
from .simultaneous import *  # noqa: F403
from .ultraconservative import *  # noqa: F403

__all__ = ["OnlineLinearClassifier", *ultraconservative.__all__, *passive_aggressive.__all__,
           *maximum_cosine.__all__, *ellipsoid.__all__, *confidence_weighted.__all__,
           *narow.__all__, *adaptive.__all__, *kernel.__all__, *simultaneous.__all__]
