"""The documentation's examples run and print what the pages say (on small data), and every
page of the site is in its navigation."""
import doctest
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if ">>> " in p.read_text(encoding="utf-8"))


def test_the_pages_have_examples():
    assert {p.name for p in PAGES} >= {"getting-started.md", "persistence.md", "tasks.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples(page):
    result = doctest.testfile(str(page), module_relative=False, encoding="utf-8",
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_every_page_is_in_the_navigation():
    config = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", config, flags=re.M))
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == listed


README = DOCS.parent / "README.md"
OUTPUTS = ("--plot", "--out", "--curve", "--save", "--output")


def _readme_commands():
    """The README's shell commands: continuation lines joined, comments dropped."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for command in block.replace("\\\n", " ").splitlines():
            command = command.split("  #")[0].strip()
            if command:
                commands.append(command.split())
    return commands


def _values(words, option):
    return [words[i + 1] for i, word in enumerate(words[:-1]) if word == option]


def _without(words, flag):
    return [word for word in words if word != flag]


def test_the_readme_resumes_with_the_hyperparameters_it_trained_with():
    trains = [words for words in _readme_commands() if words[:2] == ["onlinear", "train"]]
    resumes = [words for words in trains if "--resume" in words]
    assert resumes
    for resume in resumes:
        first = next(words for words in trains if "--resume" not in words
                     and _values(words, "--save") == _values(resume, "--save"))
        assert _values(resume, "--param") == _values(first, "--param")
        assert _without(resume, "--resume") == first


def test_the_readme_writes_nothing_into_the_repositorys_folders():
    tracked = {p.name for p in DOCS.parent.iterdir() if p.is_dir() and not p.name.startswith(".")}
    written = [value for words in _readme_commands() for option in OUTPUTS
               for value in _values(words, option)]
    assert written
    for path in written:
        assert pathlib.PurePosixPath(path).parts[0] not in tracked, path
