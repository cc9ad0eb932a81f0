"""The ``onlinear`` command group, on which every command module registers its command.

A command's module is imported when the command is used (or listed, by ``--help``), not with
the group: the modules import what their command needs, and ``onlinear train`` need not pay for
``compare``'s imports.  The streaming commands' modules are imported lightly
(:func:`onlinear.cli.imports.light`)."""
import contextlib
import importlib

import click

from .imports import light

#: each command and the module (of this package) that defines it
COMMANDS = {"list": "listing", "run": "run", "compare": "compare", "fetch": "fetch",
            "train": "train", "predict": "predict", "evaluate": "evaluate", "info": "info",
            "reproduce": "reproduce"}
#: the commands reading a stream into a linear model, whose modules are imported lightly
STREAMING = ("train", "predict", "evaluate")


class _Commands(click.Group):
    """A group whose commands' modules are imported on first use."""

    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            with light() if name in STREAMING else contextlib.nullcontext():
                importlib.import_module(f"{__package__}.{COMMANDS[name]}")  # (registers itself)
        return super().get_command(ctx, name)


# ============================================================================ commands
@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="onlinear", prog_name="onlinear")
def cli():
    """Online learning of linear multiclass classifiers: list the algorithms, run one, compare
    several on a stream (progressive validation: predict, then learn)."""
