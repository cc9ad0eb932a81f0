"""The package's version, in one place (pyproject.toml reads it; a module of its own so that the
package's modules can name it without importing the package)."""
__version__ = "0.1.0"
