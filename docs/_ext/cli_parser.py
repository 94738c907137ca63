"""The ``certify`` parser as the command-line reference shows it (sphinx-argparse).

sphinx-argparse reads help texts as reStructuredText, where the plain-text help of the
parser means something else: ``(1-q)**8`` opens an emphasis, and a name in single
backquotes becomes interpreted text, and ``samples_`` a reference. :func:`docs_parser` is
``certify.cli.main.build_parser()`` with those characters escaped in every description and
help string, so that the page shows what ``certify COMMAND --help`` prints.
"""

from __future__ import annotations

import argparse
import re

from certify.cli.main import build_parser


def _rst(text):
    if not text:
        return text
    text = re.sub(r"`([^`]+)`", r"``\1``", text)
    text = re.sub(r"(?<!\\)([*|])", r"\\\1", text)
    return re.sub(r"(\w)_(?=\W|$)", r"\1\\_", text)  # name_ is a reference in reStructuredText


def _escape(parser: argparse.ArgumentParser, seen: set) -> None:
    if id(parser) in seen:
        return
    seen.add(id(parser))
    parser.description = _rst(parser.description)
    parser.epilog = _rst(parser.epilog)
    for group in parser._action_groups:
        group.description = _rst(group.description)
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            action.help = _rst(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = _rst(choice.help)
            for sub in action.choices.values():
                _escape(sub, seen)


def docs_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    _escape(parser, set())
    return parser
