"""`errpages drift`: check pinned records against the code, then and now.

For each record of a repository:
- `corrupt`: the stored snippet is not the file at the pinned commit;
- `mismatch`: the pinned line does not raise the record's message;
- at REV: `same`, `moved` (another line, a renamed file, or another file of the commit),
  `changed` (its exception class or its message is not what the record says) or `removed`
  (nothing in the commit raises it, or anything like it);
- `unknown-commit`: the pinned commit is not in this repository.

Records are matched to the raises at REV one to one, best match first, so two records
never claim one raise. Every file is read through one `git cat-file` process and parsed
once per distinct content.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from generator.content.files import FileChanged, atomic_write_text
from generator.content.loader import DRIFT_FILE, load_content
from generator.content.messages import message_parts
from generator.content.schema import is_repo_path, validate_records
from generator.diagnostics import printable
from generator.git.pin import apply_pin, remove_unused_snippets
from generator.git.pinning import (
    Pin,
    PinError,
    decode_source,
    message_arguments,
    same_exception,
    snippet_span,
    source_lines,
)
from generator.git.pyraises import RaiseSite, canonical, scan_source
from generator.git.repo import (
    REGULAR_FILE_MODES,
    TREE_MODE,
    GitError,
    ObjectReader,
    Repository,
    open_repository,
    renamed_paths,
    resolve_commit,
)
from generator.git.scan import is_test_path
from generator.site.model import Record

# How alike two messages must be for a raise to count as the record's, reworded: the share
# of their words (and placeholders, and punctuation) that they have in common, in order
# (difflib's ratio over the words); in the record's own file, and in another file of the
# commit, where many more raises could look alike by chance: there a reworded message also
# keeps the record's longest word (`fraction` in "Input is not a valid fraction", which
# "Input is not a valid path" elsewhere does not).
CHANGED_SIMILARITY = 0.6
CHANGED_SIMILARITY_ELSEWHERE = 0.75
PYTHON_SUFFIXES = (".py", ".pyi")
TOKEN_RE = re.compile(r"\{\}|\w+|[^\w\s]")
WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
PROBE_WORDS = 6
# A backslash escape in a file's code, taken out before its words are found (so the word
# after `\n` in a string is a word of its own).
ESCAPE_RE = re.compile(r"\\.")


@dataclass(frozen=True)
class DriftRow:
    id: str
    file: str
    status: str
    pinned: str  # path:line@commit as recorded
    pinned_commit: str = ""
    now: str = ""  # path:line@commit at REV, when found
    detail: str = ""
    message: str = ""
    new_message: str = ""
    exception: str = ""
    new_exception: str = ""


@dataclass(frozen=True)
class ParsedFile:
    """A Python file's lines and its raises with a message (none when it does not parse)."""

    lines: list[str]
    sites: tuple[RaiseSite, ...]
    templates: tuple[str, ...]  # each site's canonical template
    words: tuple[tuple[str, ...], ...]  # each template's words, for `similarity`
    unparsed: str = ""  # why it could not be read as Python (Python 2 syntax), if so


class Code:
    """The repository's files as drift and history read them: trees and files through one
    `git cat-file`, a folder unchanged since a commit read before not read again, each
    distinct file content decoded, searched for words and parsed once for the run."""

    def __init__(
        self, repository: Repository, objects: ObjectReader, arguments: Mapping[str, int | str]
    ) -> None:
        self.repository, self.objects, self.arguments = repository, objects, arguments
        self.parsed: dict[str, ParsedFile] = {}  # by blob hash
        self.texts: dict[str, str | Exception] = {}  # by blob hash
        self.words: dict[str, frozenset[str]] = {}  # by blob hash
        self.trees: dict[str, dict[str, str]] = {}  # tree hash -> {path below it: blob hash}
        self.commits: dict[str, dict[str, str]] = {}  # commit -> {path: blob hash}
        self.renames: dict[tuple[str, str], dict[str, str]] = {}

    def files(self, commit: str) -> dict[str, str]:
        """Every regular file of the commit (no link, no submodule, no `..` or other name that
        is not a plain path), with its blob hash."""
        if commit not in self.commits:
            found = self.objects.read(f"{commit}^{{tree}}")
            if found is None:
                raise GitError(f"unknown commit {commit[:12]}")
            try:
                files = self.tree_files(found[0])
                self.commits[commit] = {p: sha for p, sha in files.items() if is_repo_path(p)}
            except RecursionError:
                raise GitError(f"the tree of {commit[:12]} is nested too deeply") from None
        return self.commits[commit]

    def tree_files(self, sha: str) -> dict[str, str]:
        if sha not in self.trees:
            files = {}
            for mode, name, entry in self.objects.tree(sha):
                if mode in REGULAR_FILE_MODES:
                    files[name] = entry
                elif mode == TREE_MODE:
                    for below, blob in self.tree_files(entry).items():
                        files[f"{name}/{below}"] = blob
            self.trees[sha] = files
        return self.trees[sha]

    def file(self, commit: str, path: str) -> ParsedFile:
        """The file at commit, parsed; GitError or PinError when it cannot be read."""
        sha = self.blob(commit, path)
        parsed = self.parsed.get(sha)
        if parsed is None:
            text = self.text_of(sha, path)
            found, unparsed = python_sites(text, path, self.arguments)
            sites = tuple(found)
            templates = tuple(canonical(site.template) for site in sites)
            words = tuple(tuple(TOKEN_RE.findall(t)) for t in templates)
            lines = source_lines(text)
            parsed = self.parsed[sha] = ParsedFile(lines, sites, templates, words, unparsed)
        return parsed

    def blob(self, commit: str, path: str) -> str:
        """The blob hash of path at commit; GitError when there is no such file."""
        sha = self.files(commit).get(path)
        if sha is None:
            raise GitError(f"{path} does not exist at commit {commit[:12]}")
        return sha

    def text_of(self, sha: str, path: str) -> str:
        """A blob's text; GitError or PinError when it cannot be read as source."""
        if sha not in self.texts:
            found = self.objects.read(sha)
            try:
                if found is None or found[1] != "blob":
                    raise GitError(f"{path}: object {sha[:12]} is missing")
                self.texts[sha] = decode_source(found[2], path)
            except (GitError, PinError) as exc:
                self.texts[sha] = exc
        text = self.texts[sha]
        if isinstance(text, Exception):
            raise text
        return text

    def exists(self, commit: str, path: str) -> bool:
        return path in self.files(commit)

    def text(self, commit: str, path: str) -> str | None:
        try:
            return self.text_of(self.blob(commit, path), path)
        except (GitError, PinError):
            return None

    def words_of(self, commit: str, path: str) -> frozenset[str]:
        """The words of four letters or more in a file's code (none when it cannot be read)."""
        sha = self.blob(commit, path)
        if sha not in self.words:
            text = self.text(commit, path)
            found = WORD_RE.findall(ESCAPE_RE.sub(" ", text)) if text is not None else []
            self.words[sha] = frozenset(found)
        return self.words[sha]

    def renamed(self, old: str, new: str, path: str) -> str | None:
        """Where path went between two commits: where git's rename detection says, else the
        one file at `new` that ends as it does in the most folders (`src/pkg/a.py` for
        `pkg/a.py`: a small file changed as it moved is not a rename to git)."""
        if (old, new) not in self.renames:
            self.renames[old, new] = renamed_paths(self.repository, old, new)
        found = self.renames[old, new].get(path)
        if found is not None:
            return found
        parts = path.split("/")
        alike: dict[int, list[str]] = {}
        for other in self.files(new):
            if other.rpartition("/")[2] == parts[-1]:
                pairs = zip(reversed(parts), reversed(other.split("/")), strict=False)
                shared = sum(1 for _ in itertools.takewhile(lambda pair: pair[0] == pair[1], pairs))
                alike.setdefault(shared, []).append(other)
        best = alike[max(alike)] if alike else []
        return best[0] if len(best) == 1 else None

    def python_files(self, commit: str) -> list[str]:
        return sorted(
            path
            for path in self.files(commit)
            if path.endswith(PYTHON_SUFFIXES) and is_repo_path(path)
        )


def python_sites(
    source: str, path: str, arguments: Mapping[str, int | str]
) -> tuple[list[RaiseSite], str]:
    """A file's raises with a message, and why it could not be parsed ("" when it was)."""
    if not path.endswith(PYTHON_SUFFIXES) or ("raise" not in source and "assert" not in source):
        return [], ""
    try:
        return scan_source(source, arguments)[0], ""
    except SyntaxError as exc:
        return [], exc.msg or str(exc)


def check_pinned(code: Code, record: Record, commit: str) -> tuple[str, RaiseSite | None]:
    """The raise of the record's message at the pinned line, when the snippet is the file at
    the pinned commit; else a status, and no raise."""
    source_path = record.source.path
    try:
        pinned = code.file(commit, source_path)
    except (GitError, PinError) as exc:
        return f"corrupt: {exc}", None
    snippet = record.source.snippet
    if pinned.lines[snippet.start_line - 1 : snippet.end_line] != snippet.lines:
        return "corrupt: the stored snippet differs from the file at the pinned commit", None
    if not source_path.endswith(PYTHON_SUFFIXES):
        return "", None
    wanted = canonical(record.message)
    for site, template in zip(pinned.sites, pinned.templates, strict=True):
        if template == wanted and site.line <= record.source.line <= site.end_line:
            return "", site
    return "mismatch: the pinned line does not raise this message", None


@dataclass(frozen=True)
class Candidate:
    """A raise at REV that may be the one looked for, and how good a match it is."""

    index: int  # of the raise looked for
    path: str
    site: RaiseSite
    # 0: the same message and class; 1: the same message; 2: a message alike, or reworded in
    # place (the same function, class and placeholders)
    tier: int
    elsewhere: bool  # in another file than the one looked in first
    ratio: float  # how alike the messages are (1.0: the same)
    distance: int  # lines from where it was (in its own file)

    @property
    def rank(self) -> tuple[int, bool, float, int, str, int]:
        """Lower is better."""
        return (self.tier, self.elsewhere, -self.ratio, self.distance, self.path, self.site.line)


@dataclass(frozen=True)
class Wanted:
    """A raise looked for at another commit: a record's at its pinned commit, or the one an
    earlier release raised."""

    path: str | None  # its file at the commit looked in (followed through a rename), if there
    line: int
    exception: str
    message: str  # canonical template
    words: tuple[str, ...]  # its words, for `similarity`
    keyword: str | None  # its longest word: a message reworded elsewhere still has it
    scope: str  # the classes and function it is in
    names: tuple[str, ...]  # its placeholders' names, sorted: a rewording in place keeps them

    @classmethod
    def of(
        cls, message: str, exception: str, line: int, path: str | None, site: RaiseSite | None
    ) -> Wanted:
        message = canonical(message)
        longest = sorted(WORD_RE.findall(message), key=lambda word: (-len(word), word))
        return cls(
            path,
            line,
            exception,
            message,
            tuple(TOKEN_RE.findall(message)),
            next(iter(longest), None),
            site.scope if site else "",
            placeholders(site.template) if site else (),
        )


def placeholders(template: str) -> tuple[str, ...]:
    return tuple(sorted(part.name for part in message_parts(template) if part.is_placeholder))


def candidates(
    code: Code, target: str, index: int, wanted: Wanted, paths: Iterable[str], exact: bool
) -> list[Candidate]:
    """The raises in these files that could be the one wanted: the same message (exact), or
    (not exact) one alike enough, or reworded in place."""
    found = []
    for path in paths:
        place = 0 if path == wanted.path else 1
        floor = CHANGED_SIMILARITY if place == 0 else CHANGED_SIMILARITY_ELSEWHERE
        parsed = code.file(target, path)
        for site, template, words in zip(parsed.sites, parsed.templates, parsed.words, strict=True):
            if (template == wanted.message) != exact:
                continue
            if exact:
                tier = 0 if same_exception(wanted.exception, site.exception) else 1
                ratio = 1.0
            else:
                tier, ratio = 2, similarity(wanted.words, words, floor)
                kept = place == 0 or wanted.keyword is None or wanted.keyword in words
                if ratio < floor or not kept:
                    if not (place == 0 and reworded_in_place(wanted, site)):
                        continue
                    ratio = similarity(wanted.words, words, 0.0)
            distance = abs(site.line - wanted.line) if place == 0 else 0
            found.append(Candidate(index, path, site, tier, place == 1, ratio, distance))
    return found


def reworded_in_place(wanted: Wanted, site: RaiseSite) -> bool:
    """A raise of the same class, in the same function, with the same placeholders: the same
    check, whatever its words now (`unknown widget {name!r}` → `no widget named {name!r}`)."""
    return (
        bool(wanted.names)
        and site.scope == wanted.scope
        and same_exception(wanted.exception, site.exception)
        and placeholders(site.template) == wanted.names
    )


def similarity(a: tuple[str, ...], b: tuple[str, ...], floor: float) -> float:
    """difflib's ratio of two messages' words; 0 when its quick upper bounds are below `floor`."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return 0.0
    return matcher.ratio()


def probe_words(wanted: Wanted) -> list[str]:
    """The words of four letters or more that find the files a record's raise could be in:
    its longest."""
    words = sorted(set(WORD_RE.findall(wanted.message)), key=lambda w: (-len(w), w))
    return words[:PROBE_WORDS]


def files_with_words(code: Code, target: str, vocabulary: set[str]) -> dict[str, set[str]]:
    """For each of these words, the Python files at REV that have it (tests left out, as
    `scan` leaves them out): each file's words found once, however many records look."""
    found: dict[str, set[str]] = {word: set() for word in vocabulary}
    if not vocabulary:
        return found
    for path in code.python_files(target):
        if not is_test_path(path):
            for word in vocabulary.intersection(code.words_of(target, path)):
                found[word].add(path)
    return found


def other_files(wanted: Wanted, files_with: dict[str, set[str]], exact: bool) -> list[str]:
    """The other files that could hold the record's raise: with every one of its probe words
    (exact), or half of them (a raise reworded keeps most); none for a message without words
    of four letters or more."""
    words = probe_words(wanted)
    enough = len(words) if exact else (len(words) + 1) // 2
    found = Counter(path for word in words for path in files_with[word] if path != wanted.path)
    return sorted(path for path, count in found.items() if count >= enough)


def assign(
    pairs: list[Candidate], chosen: dict[int, Candidate], taken: set[tuple[str, int, str]]
) -> None:
    """One raise to one record, best match first (a raise of a message held in a variable
    assigned in two branches is two raises, one per message)."""
    for pair in sorted(pairs, key=lambda pair: pair.rank):
        spot = (pair.path, pair.site.line, pair.site.template)
        if pair.index not in chosen and spot not in taken:
            chosen[pair.index] = pair
            taken.add(spot)


def match_raises(code: Code, target: str, wanted: list[Wanted]) -> dict[int, Candidate]:
    """Each record's raise at REV, one to one, the best matches taken first: the very message
    in the record's own file; for the records left, the very message in another file; for
    those still left, a message alike enough, in its file first."""
    chosen: dict[int, Candidate] = {}
    taken: set[tuple[str, int, str]] = set()
    own = [[w.path] if w.path is not None else [] for w in wanted]

    def look(paths: Callable[[int, Wanted], list[str]], exact: bool) -> None:
        left = [(i, w) for i, w in enumerate(wanted) if i not in chosen]
        pairs = [p for i, w in left for p in candidates(code, target, i, w, paths(i, w), exact)]
        assign(pairs, chosen, taken)

    look(lambda i, w: own[i], exact=True)
    left = [w for i, w in enumerate(wanted) if i not in chosen]
    files_with = files_with_words(code, target, {word for w in left for word in probe_words(w)})
    look(lambda i, w: other_files(w, files_with, exact=True), exact=True)
    look(lambda i, w: own[i] + other_files(w, files_with, exact=False), exact=False)
    return chosen


def pinned_row(record: Record) -> DriftRow:
    source = record.source
    pinned = f"{source.path}:{source.line}@{source.short_commit}"
    return DriftRow(
        record.id,
        record.file,
        "",
        pinned,
        source.commit,
        message=record.message,
        exception=record.exception,
    )


def matched_row(row: DriftRow, record: Record, match: Candidate | None, target: str) -> DriftRow:
    """The row for a record found (or not) at REV."""
    if match is None:
        return replace_row(row, "removed", detail="nothing in the commit raises this message")
    site, path, tier = match.site, match.path, match.tier
    now = f"{path}:{site.line}@{target[:10]}"
    elsewhere = match.elsewhere and path != record.source.path
    if tier == 0:
        if path == record.source.path and site.line == record.source.line:
            return replace_row(row, "same", now=now)
        same_file = path == record.source.path
        detail = "line moved" if same_file else "moved to another file" if elsewhere else "renamed"
        return replace_row(row, "moved", now=now, detail=detail)
    new_exception = "" if same_exception(record.exception, site.exception) else site.exception
    changes = ["reworded"] if tier == 2 else []
    changes += [f"exception {record.exception} → {new_exception}"] if new_exception else []
    changes += ["in another file"] if elsewhere else []
    return replace_row(
        row,
        "changed",
        now=now,
        detail=", ".join(changes),
        new_message=site.template if tier == 2 else "",
        new_exception=new_exception,
    )


def replace_row(row: DriftRow, status: str, **changes: str) -> DriftRow:
    return dataclasses.replace(row, status=status, **changes)


@dataclass
class DriftReport:
    target: str
    rows: list[DriftRow]
    updated: list[str]
    problems: list[str]
    removed_snippets: list[str] = dataclasses.field(default_factory=list)


def run_drift(
    content_root: Path,
    repo_dir: Path,
    rev: str = "HEAD",
    repo: str | None = None,
    update: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> DriftReport:
    """Check every record of the repository; re-pin `same` and `moved` ones when updating."""
    repository = open_repository(repo_dir)
    target = resolve_commit(repository, rev)
    loaded, _ = load_content(content_root)
    records, diagnostics = validate_records(loaded.records, loaded.snippets)
    diagnostics += loaded.problems
    problems = [d.format().splitlines()[0] for d in diagnostics if d.level.value == "error"]
    ordered = [r for r in sorted(records, key=lambda r: r.id) if repo is None or r.repo == repo]
    rows: dict[str, DriftRow] = {}
    looked_for: list[Record] = []
    wanted: list[Wanted] = []
    with ObjectReader(repository) as objects:
        code = Code(repository, objects, message_arguments(loaded))
        for done, record in enumerate(ordered, start=1):
            if progress:
                progress(done, len(ordered))
            row = pinned_row(record)
            commit = objects.commit(record.source.commit)
            if commit is None:
                if repo is not None:  # else another repository's record
                    rows[record.id] = replace_row(
                        row, "unknown-commit", detail="the pinned commit is not here"
                    )
                continue
            problem, site = check_pinned(code, record, commit)
            if problem:
                status, detail = problem.split(": ", 1)
                rows[record.id] = replace_row(row, status, detail=detail)
                continue
            path: str | None = record.source.path
            if not code.exists(target, record.source.path):
                path = code.renamed(commit, target, record.source.path)
            looked_for.append(record)
            source = record.source
            wanted.append(Wanted.of(record.message, record.exception, source.line, path, site))
        matches = match_raises(code, target, wanted)
        for index, record in enumerate(looked_for):
            row = matched_row(pinned_row(record), record, matches.get(index), target)
            rows[record.id] = row
        report = DriftReport(target, [rows[r.id] for r in ordered if r.id in rows], [], problems)
        if update:
            repin(content_root, code, target, looked_for, matches, rows, report)
    return report


def repin(
    content_root: Path,
    code: Code,
    target: str,
    records: list[Record],
    matches: dict[int, Candidate],
    rows: dict[str, DriftRow],
    report: DriftReport,
) -> None:
    """Pin `same` and `moved` records to REV (never `changed` ones), then delete the snippet
    files of errpages' making that no record of these repositories uses any more."""
    for index, record in enumerate(records):
        match = matches.get(index)
        if match is None or rows[record.id].status not in ("same", "moved"):
            continue
        lines = code.file(target, match.path).lines
        start, end = snippet_span(lines, match.site, None)
        text = "\n".join(lines[start - 1 : end])
        pin = Pin(record.repo, match.path, target, match.site.line, start, text)
        if pin.commit == record.source.commit and rows[record.id].status == "same":
            continue
        try:
            apply_pin(content_root, Path(record.file), pin, force=True)
        except FileChanged:
            report.problems.append(
                f"{record.file}: changed while drift ran, so it was not re-pinned "
                "(run `errpages drift --update` again)"
            )
            continue
        report.updated.append(record.id)
    repos = {record.repo for record in records}
    report.removed_snippets = remove_unused_snippets(content_root, repos)


def save_drift(content_root: Path, report: DriftReport) -> Path:
    """Record the statuses in content/drift.json, for the build's "code has moved" notes."""
    data = {
        "checked_at": report.target,
        "date": datetime.date.today().isoformat(),
        "records": {
            row.id: {
                "status": row.status,
                "pinned_commit": row.pinned_commit,
                "now": row.now,
                "detail": row.detail,
            }
            for row in report.rows
        },
    }
    target = content_root / DRIFT_FILE
    atomic_write_text(target, json.dumps(data, indent=2) + "\n")
    return target


def drift_table(report: DriftReport) -> str:
    """The rows as an aligned table."""
    header = ("STATUS", "ID", "PINNED", "NOW", "DETAIL")
    rows = [
        tuple(map(printable, (r.status, r.id, r.pinned, r.now or "-", r.detail)))
        for r in report.rows
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip()
        for row in [header, *rows]
    ]
    for row in report.rows:
        if row.status == "changed":
            was = printable(f"{row.exception}: {row.message}")
            now = printable(
                f"{row.new_exception or row.exception}: {row.new_message or row.message}"
            )
            lines.append(f"\n{row.id} changed:\n  was: {was}\n  now: {now}")
    return "\n".join(lines)
