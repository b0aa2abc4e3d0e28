"""Lexing for the Cypher gate: what is code, what is a string, what is a comment.

The gate's checks read *code* only: comments are dropped and string literals and quoted names
are masked with filler of the same length, so offsets in the masked text are offsets in the
text that runs. Where engines could disagree on where a string ends (a backslash before a
quote), the query is refused rather than guessed about. Characters that render invisibly or
reorder text (zero-width, bidi controls, control and private-use characters) are refused
anywhere; non-ASCII is refused outside strings and quoted names (homoglyph keywords).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from biokg.errors import UnsafeCypherError

_BAD_CATEGORIES = {"Cf", "Cc", "Co", "Cs", "Cn", "Zl", "Zp"}


@dataclass
class Lexed:
    clean: str  # comments replaced by a space; string literals kept: what runs
    code: str  # the same length, string literals masked: what the checks read


def check_characters(text: str) -> None:
    """Refuse invisible and control characters anywhere (bidi overrides, zero-width joins)."""
    for i, ch in enumerate(text):
        if ch in "\t\n\r":
            continue
        if unicodedata.category(ch) in _BAD_CATEGORIES:
            raise UnsafeCypherError(
                f"invisible or control character U+{ord(ch):04X} "
                f"({unicodedata.name(ch, 'unnamed')}) at offset {i}"
            )


def check_ascii(code: str) -> None:
    for i, ch in enumerate(code):
        if ord(ch) > 127:
            raise UnsafeCypherError(
                f"non-ASCII character {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, '')}) "
                f"outside a string literal at offset {i}: a look-alike of a keyword or name?"
            )


def lex(text: str) -> Lexed:
    """Drop comments, mask string literals and quoted names (same length, so offsets agree)."""
    clean: list[str] = []
    code: list[str] = []
    i, n = 0, len(text)
    while i < n:
        two = text[i : i + 2]
        if two == "//":
            end = text.find("\n", i)
            i = n if end < 0 else end
            clean.append(" ")
            code.append(" ")
        elif two == "/*":
            end = text.find("*/", i + 2)
            if end < 0:
                raise UnsafeCypherError(f"unterminated /* comment at offset {i}")
            i = end + 2
            clean.append(" ")
            code.append(" ")
        elif text[i] in "'\"":
            end = _string_end(text, i)
            clean.append(text[i : end + 1])
            code.append(text[i] + "x" * (end - i - 1) + text[i])
            i = end + 1
        elif text[i] == "`":
            end = _quoted_name_end(text, i)
            name = text[i + 1 : end]
            plain = re.fullmatch(r"[A-Za-z_][\w.]*", name) is not None
            clean.append(text[i : end + 1])
            code.append(" " + (name if plain else "x" * len(name)) + " ")
            i = end + 1
        else:
            clean.append(text[i])
            code.append(text[i])
            i += 1
    return Lexed("".join(clean), "".join(code))


def _string_end(text: str, start: int) -> int:
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\":
            if i + 1 < len(text) and text[i + 1] in "'\"":
                raise UnsafeCypherError(
                    f"backslash-escaped quote in a string literal at offset {i}: use the other "
                    "quote kind or a $parameter"
                )
            i += 2
        elif text[i] == quote:
            return i
        else:
            i += 1
    raise UnsafeCypherError(f"unterminated string literal starting at offset {start}")


def _quoted_name_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "`":
            if text[i + 1 : i + 2] == "`":
                i += 2
                continue
            return i
        i += 1
    raise UnsafeCypherError(f"unterminated `quoted name` starting at offset {start}")


def single_statement(lexed: Lexed) -> tuple[str, str]:
    clean, code = lexed.clean, lexed.code
    end = len(code.rstrip().rstrip(";").rstrip())
    clean, code = clean[:end], code[:end]
    if ";" in code:
        raise UnsafeCypherError(
            f"more than one statement (';' at line {line_of(code, code.index(';'))})"
        )
    return clean, code


def line_of(code: str, offset: int) -> int:
    """1-based line number of an offset."""
    return code.count("\n", 0, offset) + 1
