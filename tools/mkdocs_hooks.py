"""MkDocs hook of the documentation site (mkdocs.yml: ``hooks``).

The docstrings cross-reference in Sphinx's roles (``:func:`compare```); the API reference
renders the role's target as code, and this hook drops the role's name that would otherwise
show before it (":func:")."""
import re

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|term):(?=<code|<a )")


def on_page_content(html, page, config, files):
    return _ROLE.sub("", html)
