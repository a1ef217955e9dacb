"""Validate stage: turn parsed YAML into Records, reporting every problem with its position.

The rules here are the public record format documented in the README and
published as schema/record.schema.json; keep the three in step.
"""

from __future__ import annotations

import datetime
import hashlib
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

from errpages.diagnostics import Diagnostic, Position, closest, did_you_mean, error, warning
from errpages.site.model import (
    Analysis,
    ExampleFix,
    Place,
    Record,
    Retired,
    Snippet,
    Source,
    VERBS,
    TextFile,
    When,
)
from errpages.pylex import PYTHON_LANGUAGES, RAISING_CALLS, Statement, logical_line
from errpages.site.messages import message_parts
from errpages.content.yamldoc import KeyPath, YamlDocument, parse_yaml

ID_RE = re.compile(r"[0-9a-f]{16}")
COMMIT_RE = re.compile(r"[0-9a-f]{7,40}")
# owner/name; neither part may be "." or "..", since both become folders of the site.
# Patterns that validate are used whole (fullmatch): `$` would let a final line break by.
REPO_RE = re.compile(r"(?!\.\.?/)[A-Za-z0-9_.-]+/(?!\.\.?$)[A-Za-z0-9_.-]+")
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
KINDS = tuple(VERBS)
MAX_TAG_LENGTH = 40
TO_WRITE = "TO BE WRITTEN"  # marks scaffolded prose that an author still has to write

RECORD_KEYS = (
    "id",
    "repo",
    "kind",
    "exception",
    "message",
    "title",
    "meaning",
    "source",
    "solutions",
    "example_fix",
    "when",
    "related",
    "tags",
    "aliases",
    "analysis",
    "draft",
    "retired",
)
SOURCE_KEYS = (
    "path",
    "line",
    "commit",
    "language",
    "snippet",
    "start_line",
    "snippet_file",
    "function",
    "conditions",
    "through",
    "also_raised_at",
)
FIX_KEYS = ("before", "after", "language", "notes")
WHEN_KEYS = ("trigger", "situations")
ANALYSIS_KEYS = ("by", "date")
RETIRED_KEYS = ("since", "note")
SNIPPET_HEADER_KEYS = ("repo", "path", "commit", "start_line", "sha256")


def derive_id(repo: str, exception: str, message: str) -> str:
    """Derive a record id: the first 16 hex digits of SHA-256 over repo, exception, message."""
    digest = hashlib.sha256(f"{repo}\n{exception}\n{message}".encode()).hexdigest()
    return digest[:16]


UNSAFE_PATH_RE = re.compile(r"(?:^|/)\.\.?(?:/|\Z)|^/|//|\\|[\x00-\x1f\x7f]")


def is_repo_path(path: str) -> bool:
    """Whether a path (from a record, or from a commit: untrusted alike) is a plain file path
    inside a repository: relative, '/'-separated, no '.' or '..' part, no control character.
    Only such paths are ever joined to a folder errpages writes into."""
    return bool(path) and not path.endswith("/") and not UNSAFE_PATH_RE.search(path)


def snippet_hash(text: str) -> str:
    """Hash snippet text as stored in a snippet file's `sha256` header field."""
    return hashlib.sha256(text.encode()).hexdigest()


def language_for(path: str) -> str:
    """Name the Pygments lexer for a source path, falling back to plain text."""
    name = posixpath.basename(path)
    suffix = posixpath.splitext(name)[1]
    # Most files are known by their suffix alone; asking Pygments is slow, so ask once.
    return _language_for_name(f"x{suffix}" if suffix else name)


# Common suffixes answered without Pygments, whose first filename lookup compiles every pattern.
COMMON_LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".ts": "typescript", ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".rb": "ruby",
    ".sh": "bash", ".php": "php", ".cs": "csharp", ".swift": "swift", ".scala": "scala",
    ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".sql": "sql",
}  # fmt: skip


@lru_cache(maxsize=512)
def _language_for_name(name: str) -> str:
    suffix = posixpath.splitext(name)[1].lower()
    if suffix in COMMON_LANGUAGES:
        return COMMON_LANGUAGES[suffix]
    try:
        return str(get_lexer_for_filename(name).aliases[0])
    except ClassNotFound:
        return "text"


@lru_cache(maxsize=256)
def is_known_language(name: str) -> bool:
    try:
        get_lexer_by_name(name)
    except ClassNotFound:
        return False
    return True


def field_name(key_path: KeyPath) -> str:
    text = ""
    for part in key_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


class FieldReader:
    """Read typed fields out of one YAML document, recording a diagnostic for each problem."""

    def __init__(self, document: YamlDocument) -> None:
        self.document = document
        self.diagnostics: list[Diagnostic] = []
        self.misspelt: set[KeyPath] = set()  # missing fields an unknown key was taken for

    def fail(self, key_path: KeyPath, message: str, hint: str = "", at_key: bool = False) -> None:
        if key_path in self.document.rejected:
            return
        document = self.document
        if at_key and key_path not in document.key_positions:
            # A missing field: point at the mapping that lacks it, without a column.
            parent = document.key_positions.get(key_path[:-1])
            position = Position(document.path, parent.line if parent else 1, 0)
        elif at_key:
            position = document.key_positions[key_path]
        else:
            position = document.position(key_path)
        self.diagnostics.append(error(position, field_name(key_path), message, hint))

    def lookup(self, key_path: KeyPath) -> tuple[bool, Any]:
        """Find the value at key_path; a value already reported as unreadable counts as absent."""
        value: Any = self.document.data
        for part in key_path:
            if isinstance(part, str):
                if not isinstance(value, dict) or part not in value:
                    return False, None
            elif not isinstance(value, list) or part >= len(value):
                return False, None
            value = value[part]
        return True, value

    def check_keys(self, key_path: KeyPath, allowed: tuple[str, ...]) -> None:
        present, value = self.lookup(key_path)
        if not present or not isinstance(value, dict):
            return
        for key in value:
            if key in allowed:
                continue
            meant = closest(key, allowed)
            hint = f"did you mean '{meant}'?" if meant else f"known fields: {', '.join(allowed)}"
            if meant and meant not in value:
                # One typo, one error: the field it was meant as is not reported missing too.
                self.misspelt.add((*key_path, meant))
            self.fail((*key_path, key), f"unknown field '{key}'", hint, at_key=True)

    def missing(self, key_path: KeyPath, expected: str) -> None:
        # Not for a misspelt field (its own error says so), nor in a mapping YAML refused.
        if key_path not in self.misspelt and key_path[:-1] not in self.document.rejected:
            self.fail(key_path, f"missing required field (expected {expected})", at_key=True)

    def mapping(self, key_path: KeyPath, required: bool) -> dict[str, Any] | None:
        present, value = self.lookup(key_path)
        if not present or value is None:
            if required:
                self.missing(key_path, "a mapping")
            return None
        if not isinstance(value, dict):
            self.fail(key_path, f"expected a mapping, got {type_name(value)}")
            return None
        return value

    def string(
        self,
        key_path: KeyPath,
        required: bool,
        pattern: re.Pattern[str] | None = None,
        expected: str = "text",
        allow_empty: bool = False,
    ) -> str | None:
        present, value = self.lookup(key_path)
        if not present or value is None:
            if required:
                self.missing(key_path, expected)
            return None
        if isinstance(value, datetime.date):
            value = value.isoformat()
        if not isinstance(value, str):
            hint = "quote the value so YAML reads it as text" if pattern else ""
            self.fail(key_path, f"expected {expected}, got {type_name(value)}", hint)
            return None
        if not value.strip():
            if allow_empty:
                return value
            self.fail(key_path, f"must not be empty (expected {expected})")
            return None
        if pattern is not None and not pattern.fullmatch(value):
            self.fail(key_path, f"{value!r} is not valid (expected {expected})")
            return None
        return value

    def integer(self, key_path: KeyPath, required: bool, minimum: int = 1) -> int | None:
        present, value = self.lookup(key_path)
        if not present or value is None:
            if required:
                self.missing(key_path, "a line number")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key_path, f"expected a whole number, got {type_name(value)}")
            return None
        if value < minimum:
            self.fail(key_path, f"must be at least {minimum}, got {value}")
            return None
        return value

    def string_list(
        self,
        key_path: KeyPath,
        required: bool,
        pattern: re.Pattern[str] | None = None,
        expected: str = "text",
        check: Callable[[KeyPath, str], None] | None = None,
    ) -> tuple[str, ...]:
        present, value = self.lookup(key_path)
        if not present or value is None:
            if required:
                self.missing(key_path, f"a list of {expected}")
            return ()
        if not isinstance(value, list):
            self.fail(key_path, f"expected a list of {expected}, got {type_name(value)}")
            return ()
        if required and not value:
            self.fail(key_path, f"must not be empty (expected a list of {expected})")
        items = []
        for index in range(len(value)):
            item = self.string((*key_path, index), True, pattern, expected)
            if item is not None:
                if check is not None:
                    check((*key_path, index), item)
                items.append(item)
        return tuple(items)


def type_name(value: Any) -> str:
    names = {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "a mapping",
        str: "text",
        type(None): "nothing",
    }
    return names.get(type(value), type(value).__name__)


def normalise_snippet_name(name: str) -> str | None:
    """Return the snippet name as a path under content/snippets/, or None if it escapes it."""
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or "\\" in name:
        return None
    cleaned = posixpath.normpath(name)
    if cleaned.startswith("../") or cleaned in ("..", ".") or "\x00" in cleaned:
        return None
    return cleaned


def parse_snippet_file(
    file: TextFile,
) -> tuple[dict[str, Any] | None, str, int, list[Diagnostic]]:
    """Split a snippet file into its header mapping and its code.

    Returns (header, code, number of header lines, diagnostics). The header is
    a YAML mapping between two `---` lines at the top of the file.
    """
    lines = file.text.split("\n")
    if not lines or lines[0].strip() != "---":
        return (
            None,
            "",
            0,
            [
                error(
                    Position(file.display_path, 1, 1),
                    "",
                    "snippet file must start with a '---' header",
                    "write the pin (path, commit, start_line) between two '---' lines",
                )
            ],
        )
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return (
            None,
            "",
            0,
            [error(Position(file.display_path, 1, 1), "", "snippet header is not closed by '---'")],
        )
    header_text = "\n" * 1 + "\n".join(lines[1:end])
    document, diagnostics = parse_yaml(header_text, file.display_path)
    code_lines = lines[end + 1 :]
    if code_lines and code_lines[-1] == "":
        code_lines = code_lines[:-1]
    code = "\n".join(code_lines)
    if document is None or diagnostics:
        return None, code, end + 1, diagnostics
    reader = FieldReader(document)
    if not isinstance(document.data, dict):
        reader.fail((), "snippet header must be a mapping of path, commit and start_line")
        return None, code, end + 1, reader.diagnostics
    reader.check_keys((), SNIPPET_HEADER_KEYS)
    header = {
        "repo": reader.string(("repo",), False, REPO_RE, "owner/name"),
        "path": reader.string(("path",), True, expected="the source file's path"),
        "commit": reader.string(("commit",), True, COMMIT_RE, "7 to 40 lowercase hex digits"),
        "start_line": reader.integer(("start_line",), True),
        "sha256": reader.string(
            ("sha256",), False, re.compile(r"[0-9a-f]{64}"), "64 lowercase hex digits"
        ),
    }
    if header["sha256"] and header["sha256"] != snippet_hash(code):
        reader.fail(
            ("sha256",),
            "snippet text does not match its sha256 (the code was edited after pinning)",
            "re-pin the snippet or restore the pinned text",
        )
    if not code.strip():
        reader.fail((), "snippet file holds no code after its header")
    if reader.diagnostics:
        return None, code, end + 1, reader.diagnostics
    return header, code, end + 1, []


class RecordValidator:
    """Validate one record document against the record format."""

    def __init__(self, document: YamlDocument, snippets: Mapping[str, TextFile]) -> None:
        self.document = document
        self.snippets = snippets
        self.read = FieldReader(document)
        self.positions: dict[str, Position] = {}

    def validate(self) -> tuple[Record | None, list[Diagnostic]]:
        read = self.read
        if not isinstance(self.document.data, dict):
            what = "an empty file" if self.document.data is None else type_name(self.document.data)
            read.fail(
                (),
                f"a record must be a mapping of fields, got {what}",
                "see the record format in the README",
            )
            return None, read.diagnostics
        read.check_keys((), RECORD_KEYS)
        record_id = read.string(("id",), False, ID_RE, "16 lowercase hex digits")
        repo = read.string(("repo",), True, REPO_RE, "owner/name")
        kind = read.string(("kind",), False, expected="'error' or 'warning'") or "error"
        if kind not in KINDS:
            read.fail(
                ("kind",),
                f"{kind!r} is not a kind (expected 'error' or 'warning')",
                did_you_mean(kind, KINDS),
            )
        exception = read.string(("exception",), True, expected="an exception name")
        message = read.string(("message",), True, expected="the exact error message")
        title = read.string(("title",), False, expected="a short title")
        meaning = read.string(("meaning",), True, expected="Markdown text")
        source = self.source()
        solutions = read.string_list(("solutions",), True, expected="Markdown items")
        example_fix = self.example_fix()
        when = self.when()
        related = read.string_list(
            ("related",), False, ID_RE, "16 lowercase hex digits", check=self.remember
        )
        tags = read.string_list(("tags",), False, expected="short text", check=self.check_tag)
        aliases = read.string_list(
            ("aliases",), False, ID_RE, "16 lowercase hex digits", check=self.remember
        )
        analysis = self.analysis()
        draft = self.boolean(("draft",))
        retired = self.retired()
        self.positions["id"] = self.document.position(("id",))
        # Rejected values were reported when the YAML was read; the record is still invalid.
        if read.diagnostics or self.document.rejected:
            return None, read.diagnostics
        if repo is None or exception is None or message is None or meaning is None:
            return None, read.diagnostics
        if source is None:
            return None, read.diagnostics
        derived = record_id is None
        record = Record(
            id=record_id or derive_id(repo, exception, message),
            repo=repo,
            kind=kind,
            exception=exception,
            message=message,
            title=title or message,
            meaning=meaning,
            source=source,
            solutions=solutions,
            file=self.document.path,
            example_fix=example_fix,
            when=when,
            related=related,
            tags=tags,
            aliases=aliases,
            analysis=analysis,
            draft=draft,
            retired=retired,
            id_derived=derived,
            positions=self.positions,
        )
        return record, []

    def boolean(self, key_path: KeyPath) -> bool:
        present, value = self.read.lookup(key_path)
        if not present or value is None:
            return False
        if not isinstance(value, bool):
            self.read.fail(key_path, f"expected true or false, got {type_name(value)}")
            return False
        return value

    def remember(self, key_path: KeyPath, _value: str) -> None:
        self.positions[field_name(key_path)] = self.document.position(key_path)

    def check_tag(self, key_path: KeyPath, tag: str) -> None:
        if len(tag) > MAX_TAG_LENGTH or "\n" in tag:
            self.read.fail(key_path, f"a tag is one line of at most {MAX_TAG_LENGTH} characters")

    def source(self) -> Source | None:
        read = self.read
        if read.mapping(("source",), True) is None:
            return None
        read.check_keys(("source",), SOURCE_KEYS)
        has_inline = read.lookup(("source", "snippet"))[0]
        has_file = read.lookup(("source", "snippet_file"))[0]
        if has_inline and has_file:
            read.fail(
                ("source", "snippet_file"),
                "give either 'snippet' or 'snippet_file', not both",
                at_key=True,
            )
            return None
        if not has_inline and not has_file:
            read.fail(
                ("source",),
                "missing the snippet (expected 'snippet' with 'start_line', or 'snippet_file')",
            )
            return None
        line = read.integer(("source", "line"), True)
        language = read.string(("source", "language"), False, expected="a Pygments language name")
        if language is not None and not is_known_language(language):
            read.fail(("source", "language"), f"Pygments knows no language {language!r}")
            language = None
        function = read.string(("source", "function"), False, expected="the raising function")
        conditions = read.string_list(("source", "conditions"), False, expected="conditions")
        through = read.string_list(("source", "through"), False, expected="function names")
        pin = self.snippet_from_file() if has_file else self.inline_snippet()
        if pin is None or line is None:
            return None
        path, commit, start_line, text, snippet_file = pin
        snippet = Snippet(text, start_line, language or language_for(path), snippet_file)
        if not snippet.start_line <= line <= snippet.end_line:
            read.fail(
                ("source", "line"),
                f"line {line} is outside the snippet (which holds lines "
                f"{snippet.start_line}–{snippet.end_line})",
                "fix 'line' or the snippet's start line",
            )
            return None
        self.positions["source.line"] = self.document.position(("source", "line"))
        return Source(
            path, line, commit, snippet, function or "", conditions, through, self.places()
        )

    def places(self) -> tuple[Place, ...]:
        """`source.also_raised_at`: the other places raising the error, each a path and line."""
        key_path: KeyPath = ("source", "also_raised_at")
        present, value = self.read.lookup(key_path)
        if not present or value is None:
            return ()
        if not isinstance(value, list):
            self.read.fail(key_path, f"expected a list of places, got {type_name(value)}")
            return ()
        found = []
        for index in range(len(value)):
            at = (*key_path, index)
            if self.read.mapping(at, True) is None:
                continue
            self.read.check_keys(at, ("path", "line"))
            path = self.read.string((*at, "path"), True, expected="a path in the repository")
            line = self.read.integer((*at, "line"), True)
            if path is not None and not is_repo_path(path):
                self.read.fail((*at, "path"), f"{path!r} must be a path inside the repository")
            elif path is not None and line is not None:
                found.append(Place(path, line))
        return tuple(found)

    def source_path(self, required: bool) -> str | None:
        path = self.read.string(("source", "path"), required, expected="the source file's path")
        if path is not None and not is_repo_path(path):
            self.read.fail(
                ("source", "path"),
                f"{path!r} must be a path inside the repository (relative, '/'-separated, no '..')",
            )
            return None
        return path

    def inline_snippet(self) -> tuple[str, str, int, str, None] | None:
        read = self.read
        path = self.source_path(True)
        commit = read.string(("source", "commit"), True, COMMIT_RE, "7 to 40 lowercase hex digits")
        text = read.string(("source", "snippet"), True, expected="the code around the raise")
        start_line = read.integer(("source", "start_line"), True)
        if path is None or commit is None or text is None or start_line is None:
            return None
        return path, commit, start_line, text.rstrip("\n"), None

    def snippet_from_file(self) -> tuple[str, str, int, str, str] | None:
        read = self.read
        name = read.string(
            ("source", "snippet_file"), True, expected="a file under content/snippets/"
        )
        path = self.source_path(False)
        commit = read.string(("source", "commit"), False, COMMIT_RE, "7 to 40 lowercase hex digits")
        if read.lookup(("source", "start_line"))[0]:
            read.fail(
                ("source", "start_line"),
                "'start_line' comes from the snippet file's header when 'snippet_file' is used",
                at_key=True,
            )
        if name is None:
            return None
        cleaned = normalise_snippet_name(name)
        if cleaned is None:
            read.fail(
                ("source", "snippet_file"),
                f"{name!r} must be a relative path inside content/snippets/",
            )
            return None
        file = self.snippets.get(cleaned)
        if file is None:
            read.fail(
                ("source", "snippet_file"),
                f"snippet file {name!r} not found under content/snippets/",
                did_you_mean(cleaned, self.snippets),
            )
            return None
        header, code, _, problems = parse_snippet_file(file)
        read.diagnostics += problems
        if header is None:
            return None
        if path is not None and path != header["path"]:
            read.fail(
                ("source", "path"),
                f"{path!r} differs from the snippet file's pinned path {header['path']!r}",
            )
            return None
        pinned_commit = str(header["commit"])
        if commit is not None and not (
            pinned_commit.startswith(commit) or commit.startswith(pinned_commit)
        ):
            read.fail(
                ("source", "commit"),
                f"{commit} differs from the snippet file's pinned commit {pinned_commit}",
            )
            return None
        best_commit = commit if commit and len(commit) > len(pinned_commit) else pinned_commit
        return str(header["path"]), best_commit, int(header["start_line"]), code, cleaned

    def example_fix(self) -> ExampleFix | None:
        read = self.read
        if read.mapping(("example_fix",), False) is None:
            return None
        read.check_keys(("example_fix",), FIX_KEYS)
        before = read.string(("example_fix", "before"), True, expected="code")
        after = read.string(("example_fix", "after"), True, expected="code")
        language = read.string(("example_fix", "language"), False, expected="a Pygments language")
        if language is not None and not is_known_language(language):
            read.fail(("example_fix", "language"), f"Pygments knows no language {language!r}")
        notes = read.string(("example_fix", "notes"), False, expected="Markdown text")
        if before is None or after is None:
            return None
        return ExampleFix(before.rstrip("\n"), after.rstrip("\n"), language or "bash", notes or "")

    def when(self) -> When | None:
        read = self.read
        if read.mapping(("when",), False) is None:
            return None
        read.check_keys(("when",), WHEN_KEYS)
        trigger = read.string(("when", "trigger"), False, expected="Markdown text")
        situations = read.string_list(("when", "situations"), False, expected="Markdown items")
        return When(trigger or "", situations)

    def retired(self) -> Retired | None:
        read = self.read
        if read.mapping(("retired",), False) is None:
            return None
        read.check_keys(("retired",), RETIRED_KEYS)
        since = read.string(("retired", "since"), True, expected="the commit or version")
        note = read.string(("retired", "note"), False, expected="Markdown text")
        return Retired(since, note or "") if since is not None else None

    def analysis(self) -> Analysis | None:
        read = self.read
        if read.mapping(("analysis",), False) is None:
            return None
        read.check_keys(("analysis",), ANALYSIS_KEYS)
        by = read.string(("analysis", "by"), False, expected="who analysed it")
        date = read.string(("analysis", "date"), False, DATE_RE, "a date as YYYY-MM-DD")
        if date is not None:
            try:
                datetime.date.fromisoformat(date)
            except ValueError:
                read.fail(
                    ("analysis", "date"), f"{date!r} is not a calendar date (expected YYYY-MM-DD)"
                )
                date = None
        return Analysis(by or "", date or "")


def unwritten_fields(record: Record) -> list[str]:
    """Prose fields that still hold the TO BE WRITTEN marker of a scaffold."""
    texts = {"meaning": record.meaning, "solutions": "\n".join(record.solutions)}
    if record.when is not None:
        texts["when"] = record.when.trigger + "\n".join(record.when.situations)
    return [name for name, text in texts.items() if TO_WRITE in text]


RAISE_START_RE = re.compile(r"[ \t]*(?:raise|assert)\b")
DECORATOR_START_RE = re.compile(r"[ \t]*@")
RAISING_WORDS = frozenset(["raise", "assert", *RAISING_CALLS])


def raises_at_line(record: Record) -> bool:
    """Whether a Python snippet's statement at `source.line` raises, asserts, calls what
    raises the exception it is given (`set_exception`, `reraise`), yields the record's
    exception for its caller to raise, or passes the record's message on (a warning record:
    warns, or is a decorator, which a deprecation is, worded by its package: "Call to
    deprecated method old. (…)"), or names a function the record says its message goes
    through; True for other languages, which are not looked into."""
    snippet = record.source.snippet
    if snippet.language.lower() not in PYTHON_LANGUAGES:
        return True
    line = record.source.line - snippet.start_line + 1
    # Most records name the line the statement starts on: found without lexing the snippet.
    first = snippet.text.split("\n", line)[line - 1]
    if RAISE_START_RE.match(first):
        return True
    if record.kind == "warning" and DECORATOR_START_RE.match(first):
        return True
    statement = logical_line(snippet.text, line)
    if statement is None:
        return False
    words = statement.words
    if record.kind == "warning" and any("warn" in word.lower() for word in words):
        return True
    if any(name.rsplit(".", 1)[-1] in words for name in record.source.through):
        return True
    raises = not RAISING_WORDS.isdisjoint(words)
    yields = "yield" in words and record.exception.rsplit(".", 1)[-1] in words
    return raises or yields or passes_on(statement, record.message)


def passes_on(statement: Statement, message: str) -> bool:
    """Whether the statement's string literals hold the message's fixed text, word by word,
    as the call of a raise helper does (`self.fail(_("…"))`, which `errpages scan` finds),
    or a class's table of messages."""
    fixed = " ".join(part.text for part in message_parts(message) if not part.is_placeholder)
    words = fixed.split()
    return bool(words) and all(word in statement.strings for word in words)


def validate_document(
    document: YamlDocument, snippets: Mapping[str, TextFile]
) -> tuple[Record | None, list[Diagnostic]]:
    """Validate one record document (and warn about prose still to be written, and about a
    source line that raises nothing)."""
    record, diagnostics = RecordValidator(document, snippets).validate()
    if record is not None:
        unwritten = unwritten_fields(record)
        if unwritten and not record.draft:
            diagnostics.append(
                warning(
                    Position(record.file, 1, 0),
                    ", ".join(unwritten),
                    f"still marked {TO_WRITE} but the record is not a draft",
                    "write the text, or mark the record 'draft: true'",
                )
            )
        if not raises_at_line(record):
            does = "warns" if record.kind == "warning" else "raises, asserts or passes the message on"
            diagnostics.append(
                warning(
                    record.position("source.line"),
                    "source.line",
                    f"line {record.source.line} is not in a statement that {does}",
                    "point it at the raising statement (`errpages pin` finds it)",
                )
            )
    return record, diagnostics


def validate_records(
    documents: Iterable[YamlDocument], snippets: Mapping[str, TextFile]
) -> tuple[list[Record], list[Diagnostic]]:
    """Validate every record document; return the valid records and all diagnostics."""
    records: list[Record] = []
    diagnostics: list[Diagnostic] = []
    for document in documents:
        record, problems = validate_document(document, snippets)
        diagnostics += problems
        if record is not None:
            records.append(record)
    return records, diagnostics
