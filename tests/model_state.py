"""A started estimator's whole state as a flat mapping, for tests that compare models bitwise:
``vars(model)``, with a held model (``model_``, :mod:`onlinear.models`) spread into its arrays
(``model_.<name>``) and its configuration (``model_.config``), so that a test sees the arrays
themselves, not the object that holds them."""


def model_vars(model):
    """``vars(model)`` with ``model_`` replaced by its arrays and configuration."""
    flat = dict(vars(model))
    flat.pop("_start_number", None)  # (which start of this process: not the model's state)
    flat.pop("_dense_index", None)  # (a cache, made by the first dense row: not state either)
    held = flat.pop("model_", None)
    if held is not None:
        for name, array in held.arrays().items():
            flat[f"model_.{name}"] = array
        flat["model_.config"] = held.config
    return flat
