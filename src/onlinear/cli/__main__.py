"""``python -m onlinear.cli``: the ``onlinear`` command."""
from . import main

if __name__ == "__main__":
    main()
