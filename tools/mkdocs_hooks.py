"""MkDocs hooks of the documentation site (mkdocs.yml: ``hooks``).

A page's line ``<!-- onlinear.estimators.__all__ -->`` becomes one API entry per public
estimator class, in the order of that list (the one list of public classes).

The docstrings cross-reference in Sphinx's roles (``:func:`compare```); the API reference
renders the role's target as code, and this hook drops the role's name that would otherwise
show before it (":func:")."""
import re

_ESTIMATORS = "<!-- onlinear.estimators.__all__ -->"


def on_page_markdown(markdown, page, config, files):
    if _ESTIMATORS not in markdown:
        return markdown
    from onlinear import estimators  # (the installed package: the docs build imports it anyway)
    entries = "\n\n".join(f"::: onlinear.{name}" for name in estimators.__all__)
    return markdown.replace(_ESTIMATORS, entries)


_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|term):(?=<code|<a )")


def on_page_content(html, page, config, files):
    return _ROLE.sub("", html)
