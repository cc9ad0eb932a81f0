"""``python -m onlinear.cli``: the ``onlinear`` command."""
from . import main

main()
