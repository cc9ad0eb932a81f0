"""``python -m onlinear``: the ``onlinear`` command (``python -m onlinear compare`` is the main
job: every multiclass algorithm trained online for one pass on the USPS data shipped with the
package)."""
from .cli import main

if __name__ == "__main__":
    main()
