"""A module docstring as a command's ``--help`` text: the scripts' docstrings are numpydoc/reST (``code``,
:func:`roles`, ``::`` literal blocks), which a terminal should show as plain text."""

from __future__ import annotations

import re

__all__ = ["help_text"]

_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`]+)`")  # :func:`x`, :py:class:`~a.b.C`
_LITERAL = re.compile(r"``([^`]+)``")


def help_text(doc: str) -> str:
    """``doc`` with reST markup removed for a terminal: roles and double backquotes keep their text, a line that is
    only ``::`` (a literal block follows) is dropped and a paragraph ending in ``::`` ends in ``:``.

    Parameters
    ----------
    doc : str
        A docstring (e.g. a script's ``__doc__``).

    Returns
    -------
    str
        The plain text, for ``argparse.ArgumentParser(description=..., formatter_class=RawDescriptionHelpFormatter)``.

    Raises
    ------
    TypeError
        If ``doc`` is not a string.
    """
    if not isinstance(doc, str):
        raise TypeError(f"doc must be a string, got {type(doc).__name__}")
    text = _LITERAL.sub(r"\1", _ROLE.sub(r"\1", doc))
    lines = [ln for ln in text.split("\n") if ln.strip() != "::"]
    text = "\n".join(lines)
    text = re.sub(r"::$", ":", text, flags=re.M)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")
