"""`errpages drift`: check pinned records against the code, then and now.

For each record of a repository:
- `corrupt`: the stored snippet is not the file at the pinned commit;
- `mismatch`: the pinned line does not raise the record's message;
- at REV: `same`, `moved` (another line, a renamed file, or another file of the commit),
  `changed` (its exception class or its message is not what the record says) or `removed`
  (nothing in the commit raises it, or anything like it);
- `conditions-changed`: the same raise at REV (where it was, or moved), under other conditions
  (the `if` tests around it, the loop, the `except`): the page's trigger may be out of date;
- `unknown-commit`: the pinned commit is not in this repository.

Records are matched to the raises at REV one to one, best match first, so two records
never claim one raise. Every file is read through one `git cat-file` process and parsed
once per distinct content.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import json
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errpages.content.files import FileChanged, atomic_write_text
from errpages.content.loader import DRIFT_FILE, load_content
from errpages.content.schema import validate_records
from errpages.diagnostics import printable
from errpages.git.code import PYTHON_SUFFIXES, TOKEN_RE, WORD_RE, Code, left_out_kind
from errpages.git.pin import apply_pin, remove_unused_snippets
from errpages.git.pinning import (
    PinError,
    same_exception,
    scan_settings,
    site_pin,
    snippet_span,
)
from errpages.git.pyraises.model import DECORATED, RaiseSite
from errpages.git.repo import (
    GitError,
    ObjectReader,
    open_repository,
    resolve_commit,
)
from errpages.site.messages import canonical, message_parts
from errpages.site.model import Place, Record

# How alike two messages must be for a raise to count as the record's, reworded: the share
# of their words (and placeholders, and punctuation) that they have in common, in order
# (difflib's ratio over the words); in the record's own file, and in another file of the
# commit, where many more raises could look alike by chance. Outside the class or function
# of the module that the record's raise is in, a reworded message also keeps three in four
# of the record's words of four letters or more (`"Option {name!r} requires an argument."`
# of `"{opt} option requires an argument"`), and one at least: "value is not a valid
# list" in `list_validator` is not "value is not a valid dict" in `dict_validator`, nor
# "{value!r} is not {choice}." in `Choice` "{name} {filename!r} is not executable." in
# `Path`, however alike their shapes. And a raise a file made as it is (message and class)
# beside the record's, where that was last seen, is that other raise found again: never the
# record's reworded, nor moved there with another class ("Missing end comment #}" gone from
# tornado's parser is not its "Empty expression"), unless the file made it more often
# in the record's own function (one of two copies reworded).
CHANGED_SIMILARITY = 0.6
CHANGED_SIMILARITY_ELSEWHERE = 0.75
WORDS_KEPT = 0.75
HELD_TERMS = 3  # words of four letters or more a message held whole in another must have
PROBE_WORDS = 6


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
    conditions: tuple[str, ...] = ()  # at the pinned commit, where they changed
    new_conditions: tuple[str, ...] = ()  # at REV, where they changed
    # The other places raising it at REV (path:line), where they are not those recorded.
    also_raised_at_now: tuple[str, ...] = ()


def dedented(lines: list[str]) -> list[str]:
    return textwrap.dedent("\n".join(lines)).split("\n")


def check_pinned(code: Code, record: Record, commit: str) -> tuple[str, RaiseSite | None]:
    """The raise of the record's message at the pinned line, when the snippet is the file at
    the pinned commit; else a status, and no raise."""
    source_path = record.source.path
    try:
        pinned = code.file(commit, source_path)
        lines = code.lines(commit, source_path)
    except (GitError, PinError) as exc:
        return f"corrupt: {exc}", None
    snippet = record.source.snippet
    there = lines[snippet.start_line - 1 : snippet.end_line]
    if dedented(there) != dedented(snippet.lines):  # a YAML block keeps no common indentation
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
    same_check: int  # the conditions it keeps of those looked for, +1 if its placeholders too
    # raised the way it was: by itself, or through the same helper (pydantic 0.32 raises
    # `DateTimeError` after `if not match:`, and through `with change_exception(…)` below)
    same_way: bool
    distance: int  # lines from where it was (in its own file)
    # the names its conditions share with those looked for: of two raises of the message in
    # other files, the one whose check reads what it read (strawberry 0.157's `union()`,
    # `for type_ in types`, not the twin `ScalarWrapper.__or__`, for `for type_ in union.types`)
    shared: int = 0

    @property
    def rank(self) -> tuple[int, bool, float, int, bool, int, int, str, int]:
        """Lower is better: of two messages alike, the one that keeps the check it was."""
        return (
            self.tier,
            self.elsewhere,
            -self.ratio,
            -self.same_check,
            not self.same_way,
            self.distance,
            -self.shared,
            self.path,
            self.site.line,
        )


@dataclass(frozen=True)
class Wanted:
    """A raise looked for at another commit: a record's at its pinned commit, or the one an
    earlier release raised."""

    path: str | None  # its file at the commit looked in (followed through a rename), if there
    line: int
    exception: str
    message: str  # canonical template
    words: tuple[str, ...]  # its words, for `similarity`
    terms: frozenset[str]  # its words of four letters or more, case folded
    scope: str  # the classes and function it is in
    names: tuple[str, ...]  # its placeholders' names, sorted: a rewording in place keeps them
    conditions: tuple[str, ...]  # what holds when it runs: or a rewording in place keeps these
    seen: str  # the commit it was seen in, beside other raises
    seen_path: str  # its file there (before a rename since)
    built: bool = False  # its message is built by the class raised (its words are not there)
    # looked for past releases that do not raise it: only its very message may be in another
    # file than its own and those its record lists as raising it too (a message alike there
    # is another check, not it moved back)
    after_gap: bool = False
    also: frozenset[str] = frozenset()  # the other files its record raises it in
    helper: str = ""  # the raise helper it went through, if one
    handed: str = ""  # how it leaves its statement, if not raised there (`RaiseSite.handed`)

    @classmethod
    def of(
        cls,
        message: str,
        exception: str,
        line: int,
        path: str | None,
        site: RaiseSite | None,
        seen: str,
        seen_path: str,
        after_gap: bool = False,
        also: frozenset[str] = frozenset(),
    ) -> Wanted:
        message = canonical(message)
        return cls(
            path,
            line,
            exception,
            message,
            tuple(TOKEN_RE.findall(message)),
            folded_terms(message),
            site.scope if site else "",
            placeholders(site.template) if site else (),
            site.conditions if site else (),
            seen,
            seen_path,
            bool(site and site.built_by),
            after_gap,
            also,
            site.helper if site else "",
            site.handed if site else "",
        )


def raised_beside(code: Code, wanted: Wanted, path: str) -> dict[str, list[str]]:
    """The messages raised where the raise wanted was seen, in its own file (by the path it
    had there) and in the file looked in (a file that was there beside it, though git may
    pair the two as a rename), and the class of each raise of each."""
    raised: dict[str, list[str]] = {}
    for there in dict.fromkeys((wanted.seen_path, path)):
        try:
            parsed = code.file(wanted.seen, there)
        except (GitError, PinError):
            continue  # not there
        for site, template in zip(parsed.sites, parsed.templates, strict=True):
            raised.setdefault(template, []).append(site.exception)
    return raised


def found_again(
    site: RaiseSite,
    template: str,
    beside: dict[str, list[str]],
    here: dict[str, list[str]],
    wanted: Wanted,
) -> bool:
    """Whether a raise is one raised as it is (message and class) beside the one wanted,
    where that was seen: that raise found again, not the one wanted changed; unless it is in
    the wanted one's function and the file raises it more often here than it was raised
    there (litestar 1.51 raised "Cannot call cleanup …" in `add` and in `cleanup`, and 2.16
    reworded the one in `add`)."""

    def count(raised: dict[str, list[str]]) -> int:
        return sum(same_exception(site.exception, name) for name in raised.get(template, ()))

    copied = bool(wanted.scope) and site.scope == wanted.scope and count(beside) < count(here)
    return count(beside) > 0 and not copied


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
        try:
            parsed = code.file(target, path)
        except (GitError, PinError):
            continue  # not text (a binary file): no raise here
        beside: dict[str, list[str]] | None = None  # read when first needed
        here: dict[str, list[str]] = {}
        for site, template in zip(parsed.sites, parsed.templates, strict=True):
            here.setdefault(template, []).append(site.exception)
        for site, template, words in zip(parsed.sites, parsed.templates, parsed.words, strict=True):
            if (template == wanted.message) != exact:
                continue
            tier = 0 if exact and same_exception(wanted.exception, site.exception) else 1
            if tier == 1 and (place == 1 or not exact):  # moved with another class, or reworded
                beside = raised_beside(code, wanted, path) if beside is None else beside
                if found_again(site, template, beside, here, wanted):
                    continue
            if exact:
                ratio = 1.0
            else:
                tier, ratio = 2, similarity(wanted.words, words, floor)
                within = place == 0 and outermost(site.scope) == outermost(wanted.scope)
                kept = within or keeps_terms(wanted.terms, words)
                if ratio < floor or not kept:
                    if not (place == 0 and reworded_in_place(wanted, site, words)):
                        continue
                    ratio = similarity(wanted.words, words, 0.0)
            distance = abs(site.line - wanted.line) if place == 0 else 0
            same_check = len(set(site.conditions) & set(wanted.conditions)) + (
                placeholders(site.template) == wanted.names
            )
            same_way = site.helper == wanted.helper
            shared = len(condition_names(site.conditions) & condition_names(wanted.conditions))
            found.append(
                Candidate(
                    index,
                    path,
                    site,
                    tier,
                    place == 1,
                    ratio,
                    same_check,
                    same_way,
                    distance,
                    shared,
                )
            )
    return found


def condition_names(conditions: tuple[str, ...]) -> frozenset[str]:
    """The names of four letters or more that conditions read."""
    return frozenset(WORD_RE.findall(" ".join(conditions)))


def folded_terms(message: str) -> frozenset[str]:
    return frozenset(word.casefold() for word in WORD_RE.findall(message))


def keeps_terms(terms: frozenset[str], words: tuple[str, ...]) -> bool:
    """Whether a message with these words keeps enough of the record's to be it reworded."""
    kept = terms.intersection(word.casefold() for word in words)
    return bool(kept) and len(kept) >= WORDS_KEPT * len(terms)


def outermost(scope: str) -> str:
    """The class or function of the module that a raise is in (`Choice` of `Choice.convert`)."""
    return scope.split(".", 1)[0]


def reworded_in_place(wanted: Wanted, site: RaiseSite, words: tuple[str, ...]) -> bool:
    """A raise in the same function, with the same placeholders or under the same conditions
    (or a warning of a decorator of the same function), of the same class, or of another
    with the whole of one message in the other: the same check, whatever its words now
    (`unknown widget {name!r}` → `no widget named {name!r}`; "finish() called twice.  May
    be caused by using async operations without the @asynchronous decorator." → "finish()
    called twice"; webargs 6's warning "_on_validation_error hook did not raise an
    exception and flow of control returned to parse(). …", 7.0's ValueError of its first
    half; PyGithub 2.6's "Call to deprecated method get_installation. (Use
    get_repo_installation)", 2.7's `@deprecated("Use get_repo_installation")`)."""
    same_placeholders = bool(wanted.names) and placeholders(site.template) == wanted.names
    same_conditions = bool(wanted.conditions) and site.conditions == wanted.conditions
    same_decorator = wanted.handed in DECORATED and site.handed == wanted.handed
    return (
        site.scope == wanted.scope
        and (same_exception(wanted.exception, site.exception) or holds_whole(wanted, words))
        and (same_placeholders or same_conditions or same_decorator)
    )


def holds_whole(wanted: Wanted, words: tuple[str, ...]) -> bool:
    """Whether one message's words are all in the other's, one after the other, and they are
    enough to say a check (three of four letters or more)."""
    shorter, longer = sorted((wanted.words, words), key=len)
    if len(folded_terms(" ".join(shorter))) < HELD_TERMS:
        return False
    return any(longer[at : at + len(shorter)] == shorter for at in range(len(longer)))


def similarity(a: tuple[str, ...], b: tuple[str, ...], floor: float) -> float:
    """difflib's ratio of two messages' words; 0 when its quick upper bounds are below `floor`."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return 0.0
    return matcher.ratio()


def probe_words(wanted: Wanted) -> list[str]:
    """The words of four letters or more that find the files a record's raise could be in:
    its longest; for a message the class raised builds, the class's name."""
    if wanted.built:
        name = wanted.exception.rsplit(".", 1)[-1]
        return [name] if WORD_RE.fullmatch(name) else []
    words = sorted(set(WORD_RE.findall(wanted.message)), key=lambda w: (-len(w), w))
    return words[:PROBE_WORDS]


def files_with_words(code: Code, target: str, vocabulary: set[str]) -> dict[str, set[str]]:
    """For each of these words, the Python files at REV that have it (tests, examples, docs
    and benchmarks left out, as `scan` leaves them out): each file's words found once,
    however many records look."""
    found: dict[str, set[str]] = {word: set() for word in vocabulary}
    if not vocabulary:
        return found
    for path in code.python_files(target):
        if left_out_kind(path) is None:
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
    those still left, a message alike enough, in its file first (for a raise looked for
    past releases without it, only there and where its record says it is raised too)."""
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

    def alike(i: int, w: Wanted) -> list[str]:
        others = other_files(w, files_with, exact=False)
        return own[i] + [path for path in others if not w.after_gap or path in w.also]

    look(alike, exact=False)
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


def matched_row(
    row: DriftRow, record: Record, pinned: RaiseSite | None, match: Candidate | None, target: str
) -> DriftRow:
    """The row for a record found (or not) at REV (`pinned`: its raise at the pinned commit)."""
    if match is None:
        return replace_row(row, "removed", detail="nothing in the commit raises this message")
    site, path, tier = match.site, match.path, match.tier
    now = f"{path}:{site.line}@{target[:10]}"
    elsewhere = match.elsewhere and path != record.source.path
    if tier == 0 and pinned is not None and pinned.conditions != site.conditions:
        return replace_row(
            row,
            "conditions-changed",
            now=now,
            detail="the code around the raise tests something else: review the trigger",
            conditions=pinned.conditions,
            new_conditions=site.conditions,
        )
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


def replace_row(row: DriftRow, status: str, **changes: Any) -> DriftRow:
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
    pinned_sites: list[RaiseSite | None] = []
    wanted: list[Wanted] = []
    with ObjectReader(repository) as objects:
        code = Code(repository, objects, scan_settings(loaded))
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
            pinned_sites.append(site)
            source = record.source
            wanted.append(
                Wanted.of(
                    record.message, record.exception, source.line, path, site, commit, source.path
                )
            )
        matches = match_raises(code, target, wanted)
        places = places_now(code, target, looked_for, wanted, matches)
        for index, record in enumerate(looked_for):
            match = matches.get(index)
            row = matched_row(pinned_row(record), record, pinned_sites[index], match, target)
            recorded = tuple(sorted(record.source.also_raised_at))
            now = places.get(index, recorded)
            if row.status in ("same", "moved") and now != recorded:
                detail = ", ".join(filter(None, [row.detail, "raised at other places"]))
                at = tuple(f"{place.path}:{place.line}" for place in now)
                row = replace_row(row, "moved", detail=detail, also_raised_at_now=at)
            rows[record.id] = row
        report = DriftReport(target, [rows[r.id] for r in ordered if r.id in rows], [], problems)
        if update:
            repin(content_root, code, target, looked_for, matches, places, rows, report)
    return report


def places_now(
    code: Code,
    target: str,
    records: list[Record],
    wanted: list[Wanted],
    matches: dict[int, Candidate],
) -> dict[int, tuple[Place, ...]]:
    """For each record that lists the other places raising its error, those places at REV:
    its message and class, in the file its raise is in now or another with its words."""
    followed = [i for i, r in enumerate(records) if r.source.also_raised_at and i in matches]
    vocabulary = {word for i in followed for word in probe_words(wanted[i])}
    files_with = files_with_words(code, target, vocabulary)
    found = {}
    for index in followed:
        match, looked = matches[index], wanted[index]
        places = set()
        for path in dict.fromkeys([match.path, *other_files(looked, files_with, exact=True)]):
            parsed = code.file(target, path)
            for site, template in zip(parsed.sites, parsed.templates, strict=True):
                here = Place(path, site.line)
                if (
                    template == looked.message
                    and same_exception(looked.exception, site.exception)
                    and here != (match.path, match.site.line)
                ):
                    places.add(here)
        found[index] = tuple(sorted(places))
    return found


def repin(
    content_root: Path,
    code: Code,
    target: str,
    records: list[Record],
    matches: dict[int, Candidate],
    places: dict[int, tuple[Place, ...]],
    rows: dict[str, DriftRow],
    report: DriftReport,
) -> None:
    """Pin `same` and `moved` records to REV (never `changed` ones), then delete the snippet
    files of errpages' making that no record of these repositories uses any more."""
    for index, record in enumerate(records):
        match = matches.get(index)
        if match is None or rows[record.id].status not in ("same", "moved"):
            continue
        lines = code.lines(target, match.path)
        span = snippet_span(lines, match.site, None)
        pin = site_pin(record.repo, match.path, target, lines, match.site, span)
        pin = dataclasses.replace(pin, also_raised_at=places.get(index, ()))
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
        if row.status == "conditions-changed":
            lines.append(f"\n{row.id} is raised under other conditions:")
            lines += [f"  was: {printable(c)}" for c in row.conditions or ("(none)",)]
            lines += [f"  now: {printable(c)}" for c in row.new_conditions or ("(none)",)]
        if row.status == "changed":
            was = printable(f"{row.exception}: {row.message}")
            now = printable(
                f"{row.new_exception or row.exception}: {row.new_message or row.message}"
            )
            lines.append(f"\n{row.id} changed:\n  was: {was}\n  now: {now}")
    return "\n".join(lines)
