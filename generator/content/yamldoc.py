"""Parse YAML safely into plain values while keeping every value's position.

PyYAML's safe composer gives a node tree with marks; we turn it into plain
Python values ourselves so that we can (a) remember the line and column of
every key and value for diagnostics, (b) reject duplicate keys, which PyYAML
silently accepts, and (c) refuse anchors, aliases and any tag beyond the plain
YAML scalars, which closes the door on alias bombs and object construction.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import yaml

from errpages.diagnostics import Diagnostic, Position, error

KeyPath = tuple[str | int, ...]

MAX_DEPTH = 40
ALLOWED_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
}


@dataclass(frozen=True)
class YamlDocument:
    """A parsed YAML file: plain data plus the position of every value and key."""

    path: str
    data: Any
    value_positions: dict[KeyPath, Position] = field(default_factory=dict)
    key_positions: dict[KeyPath, Position] = field(default_factory=dict)
    # Values already reported as unreadable; checks skip them rather than report twice.
    rejected: frozenset[KeyPath] = frozenset()

    def position(self, key_path: KeyPath) -> Position:
        """Return the position of the value at key_path, or of its nearest parent."""
        for end in range(len(key_path), -1, -1):
            pos = self.value_positions.get(key_path[:end])
            if pos is not None:
                return pos
        return Position(self.path, 1, 1)


class _Converter:
    """Turn a composed node tree into plain values, collecting diagnostics."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.values: dict[KeyPath, Position] = {}
        self.keys: dict[KeyPath, Position] = {}
        self.diagnostics: list[Diagnostic] = []
        self.rejected: set[KeyPath] = set()
        self.seen: set[int] = set()
        self.constructor = yaml.SafeLoader("")

    def pos(self, node: yaml.Node) -> Position:
        return Position(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def field_name(self, key_path: KeyPath) -> str:
        return ".".join(f"[{p}]" if isinstance(p, int) else p for p in key_path).replace(".[", "[")

    def convert(self, node: yaml.Node, key_path: KeyPath, depth: int) -> Any:
        self.values[key_path] = self.pos(node)
        if id(node) in self.seen:
            # libyaml's composer turns an alias into the node it names: met twice, it is one.
            return self.refuse_alias(key_path)
        self.seen.add(id(node))
        if depth > MAX_DEPTH:
            self.rejected.add(key_path)
            self.diagnostics.append(
                error(self.pos(node), self.field_name(key_path), f"nested deeper than {MAX_DEPTH}")
            )
            return None
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, key_path)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != "tag:yaml.org,2002:seq":
                return self.bad_tag(node, key_path)
            return [
                self.convert(item, (*key_path, i), depth + 1) for i, item in enumerate(node.value)
            ]
        if isinstance(node, yaml.MappingNode):
            if node.tag != "tag:yaml.org,2002:map":
                return self.bad_tag(node, key_path)
            return self.mapping(node, key_path, depth)
        return None  # pragma: no cover - the composer yields only the three kinds

    def refuse_alias(self, key_path: KeyPath) -> None:
        self.rejected.add(key_path)
        if any(d.message == ALIAS_MESSAGE for d in self.diagnostics):
            return  # one report per file is enough; an alias bomb has thousands
        where = self.keys.get(key_path) or self.values[key_path]
        self.diagnostics.append(
            error(where, self.field_name(key_path), ALIAS_MESSAGE, "write the value out in full")
        )

    def scalar(self, node: yaml.ScalarNode, key_path: KeyPath) -> Any:
        if node.tag == "tag:yaml.org,2002:str":
            return node.value
        if node.tag not in ALLOWED_SCALAR_TAGS:
            return self.bad_tag(node, key_path)
        try:
            value = self.constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, OverflowError) as exc:
            if node.tag == "tag:yaml.org,2002:timestamp":
                return node.value  # e.g. 2026-02-30: let the field check say what is wrong
            self.rejected.add(key_path)
            self.diagnostics.append(
                error(self.pos(node), self.field_name(key_path), f"unreadable value: {exc}")
            )
            return None
        if isinstance(value, datetime.datetime):
            return value.isoformat()
        return value

    def bad_tag(self, node: yaml.Node, key_path: KeyPath) -> None:
        self.rejected.add(key_path)
        self.diagnostics.append(
            error(
                self.pos(node),
                self.field_name(key_path),
                f"YAML tag {node.tag.replace('tag:yaml.org,2002:', '!!')!r} is not allowed",
                "records hold plain strings, numbers, lists and mappings only",
            )
        )
        return None

    def mapping(self, node: yaml.MappingNode, key_path: KeyPath, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:  # the mapping is not what it seems: none of it counts
                self.rejected.add(key_path)
                self.diagnostics.append(
                    error(
                        self.pos(key_node),
                        self.field_name(key_path),
                        "YAML merge keys (<<) are not allowed in records",
                        "write the fields out in full",
                    )
                )
                continue
            key = self.scalar(key_node, key_path) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.diagnostics.append(
                    error(
                        self.pos(key_node),
                        self.field_name(key_path),
                        "mapping keys must be plain strings",
                    )
                )
                continue
            child: KeyPath = (*key_path, key)
            if key in result:
                first = self.keys[child]
                self.diagnostics.append(
                    error(
                        self.pos(key_node),
                        self.field_name(child),
                        f"duplicate key '{key}' (first defined on line {first.line})",
                        "each key may appear once in a mapping; remove one of them",
                    )
                )
                continue
            self.keys[child] = self.pos(key_node)
            result[key] = self.convert(value_node, child, depth + 1)
        return result


ALIAS_MESSAGE = "YAML aliases (*name) are not allowed in records"
MERGE_TAG = "tag:yaml.org,2002:merge"


class AliasRefused(yaml.MarkedYAMLError):
    """An alias (`*name`) was met; records do not use them."""


class RecordLoader(yaml.SafeLoader):
    """The safe loader, refusing aliases where they occur, before anything is expanded."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise AliasRefused(
                problem=ALIAS_MESSAGE,
                problem_mark=event.start_mark,
            )
        return super().compose_node(parent, index)


def syntax_error(exc: yaml.MarkedYAMLError, path: str) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    if isinstance(exc, AliasRefused):
        return error(Position(path, line, col), "", str(exc.problem), "write the value out in full")
    message = f"YAML syntax error: {exc.problem or exc.context or 'not valid YAML'}"
    if exc.context and exc.problem and exc.context_mark and exc.context_mark.line + 1 != line:
        message += f" ({exc.context} that starts on line {exc.context_mark.line + 1})"
    return error(Position(path, line, col), "", message)


def unreadable_character(exc: yaml.reader.ReaderError, text: str, path: str) -> Diagnostic:
    """A character YAML does not allow in a file (ESC, NUL, …), where it is."""
    at = exc.position
    if yaml.__with_libyaml__:  # libyaml reads UTF-8 and counts bytes: made characters
        at = len(text.encode()[: max(at, 0)].decode("utf-8", "ignore"))
    at = min(max(at, 0), len(text))
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
    return error(
        Position(path, line, col),
        "",
        f"character U+{code:04X} is not allowed in a YAML file",
        'write it as an escape inside double quotes, e.g. "\\e" for ESC or "\\x07" for BEL',
    )


def parse_yaml(text: str, path: str) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Parse one YAML document; return it with its diagnostics (None if unreadable)."""
    # libyaml composes much faster; aliases are then caught in _Converter.
    loader = yaml.CSafeLoader(text) if yaml.__with_libyaml__ else RecordLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        return None, [syntax_error(exc, path)]
    except yaml.reader.ReaderError as exc:
        return None, [unreadable_character(exc, text, path)]
    except yaml.YAMLError as exc:
        return None, [error(Position(path, 1, 1), "", f"YAML syntax error: {exc}")]
    except RecursionError:
        return None, [error(Position(path, 1, 1), "", f"nested deeper than {MAX_DEPTH}")]
    finally:
        loader.dispose()
    if node is None:
        return YamlDocument(path, None), []
    converter = _Converter(path)
    try:
        data = converter.convert(node, (), 0)
    except RecursionError:
        return None, [error(Position(path, 1, 1), "", f"nested deeper than {MAX_DEPTH}")]
    document = YamlDocument(
        path, data, converter.values, converter.keys, frozenset(converter.rejected)
    )
    return document, converter.diagnostics
