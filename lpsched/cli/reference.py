"""The command-line reference, generated from the argparse parsers themselves.

``make docs`` writes it to ``docs/cli.md`` (docs/_ext/lpsched_cli.py), so the page lists
exactly the subcommands and options the installed ``lpsched`` accepts: each command's
usage line, its help, and one row per option (flags, value, default, help). Nothing is
written by hand, so an option cannot be missing from the page.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

__all__ = ["GENERIC_HELP", "Command", "commands", "complete_help", "markdown",
           "options_without_help"]


class Command:
    """One (sub)command: its words after ``lpsched``, help line and parser."""

    def __init__(self, words: tuple[str, ...], help_: str,
                 parser: argparse.ArgumentParser) -> None:
        self.words = words
        self.help = help_
        self.parser = parser

    @property
    def name(self) -> str:
        """The command as typed, e.g. ``lpsched reproduce cbs3m``."""
        return " ".join(("lpsched", *self.words))

    def actions(self) -> list[argparse.Action]:
        """The options and positionals of this command (help and subcommand lists
        excluded).

        Returns
        -------
        list of argparse.Action
            In the order they were declared.
        """
        return [a for a in self.parser._actions
                if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)]

    def children(self) -> dict[str, tuple[str, argparse.ArgumentParser]]:
        """Its subcommands: name -> (help, parser).

        Returns
        -------
        dict of str to tuple
            Subcommand name -> ``(help text, parser)``, in declaration order; empty for a leaf.
        """
        out: dict[str, tuple[str, argparse.ArgumentParser]] = {}
        for action in self.parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {c.dest: c.help or "" for c in action._choices_actions}
                for name, sub in action.choices.items():
                    out[name] = (helps.get(name, ""), sub)
        return out


def commands(parser: argparse.ArgumentParser | None = None) -> Iterator[Command]:
    """Yield every command of ``parser``, depth first, in the order ``--help`` lists them.

    Parameters
    ----------
    parser : argparse.ArgumentParser or None
        The parser to walk; ``None`` (default): the whole ``lpsched`` command line, ``ptg``
        included.

    Yields
    ------
    Command
        The root command first (no words), then each subcommand.
    """
    if parser is None:
        from lpsched.cli import build_parser

        parser = build_parser(["ptg"])
    stack = [Command((), parser.description or "", parser)]
    while stack:
        cmd = stack.pop(0)
        yield cmd
        kids = [Command((*cmd.words, name), help_, sub)
                for name, (help_, sub) in cmd.children().items()]
        stack[0:0] = kids


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    value = ""
    if action.nargs != 0:
        metavar = action.metavar or (("{" + ",".join(map(str, action.choices)) + "}")
                                     if action.choices else action.dest.upper())
        value = f" {metavar if isinstance(metavar, str) else ' '.join(metavar)}"
    return ", ".join(f"`{flag}{value}`" for flag in action.option_strings)


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS) \
            or not action.option_strings:
        return ""
    return f"`{action.default}`"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        try:
            text = text % {**vars(action), "prog": "lpsched", "default": action.default}
        except (KeyError, TypeError, ValueError):
            pass
    return _cell(text)


def markdown(parser: argparse.ArgumentParser | None = None) -> str:
    """Return the reference page in Markdown: a section per command, a table of its options.

    Parameters
    ----------
    parser : argparse.ArgumentParser or None
        The parser to walk; ``None`` (default): the whole ``lpsched`` command line, ``ptg``
        included.

    Returns
    -------
    str
        The page (written to docs/cli.md by ``make docs``).
    """
    lines = ["# Command-line reference", "",
             "Generated from the installed `lpsched`'s own parsers "
             "(`lpsched.cli.reference`); `lpsched COMMAND --help` prints the same.", ""]
    for cmd in commands(parser):
        depth = min(2 + len(cmd.words) - (1 if cmd.words else 0), 4)
        lines += [f"{'#' * depth} `{cmd.name}`", ""]
        if cmd.help:
            lines += [_cell(cmd.help), ""]
        usage = " ".join(cmd.parser.format_usage().split())
        lines += ["```text", usage.removeprefix("usage: "), "```", ""]
        rows = cmd.actions()
        if rows:
            lines += ["| option | default | meaning |", "|---|---|---|"]
            lines += [f"| {_flags(a)} | {_default(a)} | {_help(a)} |" for a in rows]
            lines.append("")
        kids = cmd.children()
        if kids:
            lines += ["Subcommands: " + ", ".join(f"`{k}`" for k in kids), ""]
    return "\n".join(lines)


def options_without_help(parser: argparse.ArgumentParser | None = None,
                         ) -> list[tuple[str, str]]:
    """List the (command, option) pairs whose option has no help text.

    What the reference would show with an empty meaning.

    Parameters
    ----------
    parser : argparse.ArgumentParser or None
        The parser to walk; ``None`` (default): the whole ``lpsched`` command line, ``ptg``
        included.

    Returns
    -------
    list of tuple of str
        ``(command, option)``, the option by its first flag (a positional by its name);
        empty when every option is documented.
    """
    return [(cmd.name, a.option_strings[0] if a.option_strings else a.dest)
            for cmd in commands(parser) for a in cmd.actions()
            if not re.sub(r"\(default: [^)]*\)", "",
                          (a.help or "").replace("%(default)s", "X")).strip()]


#: help of the options every family spells alike, for those declared without one
GENERIC_HELP = {
    "--json": "print one JSON value on stdout (and nothing else there)",
    "--table": "print a plain-text table",
    "--seed": "random seed: the same seed gives the same output on every machine",
    "--first-seed": "seed of the first instance (instance i uses first seed + i)",
}


def complete_help(parser: argparse.ArgumentParser) -> None:
    """Give every option of every command a help text and its default.

    The options of :data:`GENERIC_HELP` declared without help get theirs, and an option
    with a value whose help does not mention its default gets ``(default: X)``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``lpsched`` parser, changed in place.
    """
    for cmd in commands(parser):
        for action in cmd.actions():
            flag = action.option_strings[0] if action.option_strings else None
            if not (action.help or "").strip() and flag in GENERIC_HELP:
                action.help = GENERIC_HELP[flag]
            if (action.option_strings and action.nargs != 0
                    and action.default not in (None, argparse.SUPPRESS)
                    and "default" not in (action.help or "")):
                shown = "%(default)s" if not isinstance(action.default, str) or \
                    "%" not in action.default else action.default.replace("%", "%%")
                action.help = f"{action.help or ''} (default: {shown})".lstrip()
