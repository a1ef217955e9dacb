"""A repository's code as errpages reads it: trees and files through one `git cat-file`,
each distinct file parsed once, its raises through other files' classes and raise helpers
resolved against the files of the same commit."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from errpages.content.schema import is_repo_path
from errpages.git.pinning import PinError, decode_source, source_lines
from errpages.git.pyraises.library import Library, resolved
from errpages.git.pyraises.model import ModuleScan, RaiseSite, ScanSettings
from errpages.git.pyraises.nodes import looked_up
from errpages.git.pyraises.scanner import scan_module
from errpages.git.repo import (
    REGULAR_FILE_MODES,
    TREE_MODE,
    GitError,
    ObjectReader,
    Repository,
    renamed_paths,
)
from errpages.git.syntax import readable_source
from errpages.parallel import collector_paused
from errpages.site.messages import canonical

PYTHON_SUFFIXES = (".py", ".pyi")
TOKEN_RE = re.compile(r"\{\}|\w+|[^\w\s]")
WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
# A backslash escape in a file's code, taken out before its words are found (so the word
# after `\n` in a string is a word of its own).
ESCAPE_RE = re.compile(r"\\.")
DEFINED_RE = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:class|def)[ \t]+(\w+)", re.MULTILINE)
CONSTANT_RE = re.compile(r"^(\w+)[ \t]*(?::[^=\n]*)?=[^=]", re.MULTILINE)  # `NAME = …` of a module


@dataclass(frozen=True)
class ParsedFile:
    """A Python file's raises with a message (none when it does not parse)."""

    sites: tuple[RaiseSite, ...]
    templates: tuple[str, ...]  # each site's canonical template
    words: tuple[tuple[str, ...], ...]  # each template's words, for `similarity`
    unparsed: str = ""  # why it could not be read as Python (newer syntax, a merge conflict), if so


class Code:
    """The repository's files as drift and history read them: trees and files through one
    `git cat-file`, a folder unchanged since a commit read before not read again, each
    distinct file version searched for words and parsed once while it is kept (`retain`)."""

    def __init__(
        self, repository: Repository, objects: ObjectReader, settings: ScanSettings
    ) -> None:
        self.repository, self.objects, self.settings = repository, objects, settings
        self.modules: dict[str, tuple[ModuleScan | None, str]] = {}  # by blob hash
        self.parsed: dict[tuple[str, tuple[object, ...]], ParsedFile] = {}  # and library used
        self.libraries: dict[tuple[str, frozenset[str]], Library] = {}
        self.library_paths: dict[str, list[str]] = {}  # by commit
        self.definitions: dict[str, frozenset[str]] = {}  # by blob hash
        self.files_at: dict[tuple[str, str], ParsedFile] = {}  # by commit and path
        self.words: dict[str, frozenset[str]] = {}  # by blob hash
        self.trees: dict[str, dict[str, str]] = {}  # tree hash -> {path below it: blob hash}
        self.commits: dict[str, dict[str, str]] = {}  # commit -> {path: blob hash}
        self.renames: dict[tuple[str, str], dict[str, str]] = {}

    def retain(self, kept: Callable[[str], bool]) -> None:
        """Let go of what was read at the commits and of the file versions (by hash) not
        `kept`: a walk through a long history holds what a few releases take."""
        for cache in (self.modules, self.definitions, self.words):
            for sha in [sha for sha in cache if not kept(sha)]:
                del cache[sha]
        self.parsed = {key: file for key, file in self.parsed.items() if kept(key[0])}
        self.files_at = {key: file for key, file in self.files_at.items() if kept(key[0])}
        self.libraries = {key: library for key, library in self.libraries.items() if kept(key[0])}
        self.library_paths = {c: paths for c, paths in self.library_paths.items() if kept(c)}
        self.commits = {commit: files for commit, files in self.commits.items() if kept(commit)}

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

    def module(self, commit: str, path: str) -> tuple[ModuleScan | None, str]:
        """A Python file's own scan (none for another file), or why it could not be parsed;
        GitError or PinError when it cannot be read."""
        sha = self.blob(commit, path)
        if sha not in self.modules:
            with collector_paused():  # its parse is kept while the releases that read it are read
                self.modules[sha] = python_module(self.text_of(sha, path), path, self.settings)
        return self.modules[sha]

    def library(self, commit: str, needs: frozenset[str]) -> Library:
        """The classes and raise helpers of the commit's files (tests and the like left out)
        that define these names, and the bases of those classes and the helpers those helpers
        hand their message on to, in turn: what resolving the names reaches, and no more."""
        key = (commit, needs)
        if key not in self.libraries:
            wanted, modules = set(needs), {}
            while True:
                paths = [
                    path
                    for path in self.library_files(commit)
                    if path not in modules and wanted & self.defined(commit, path)
                ]
                for path in paths:
                    try:
                        modules[path] = self.module(commit, path)[0]
                    except (GitError, PinError):
                        modules[path] = None
                found = [module for module in modules.values() if module is not None]
                more = {b for m in found for c in m.classes if c.name in wanted for b in c.bases}
                helpers = [h for m in found for h in m.helpers if h.name in wanted]
                relays = [relay for h in helpers for relay in h.handed_to()]
                more |= {n for r in relays for n in looked_up(r.name, r.owner, r.receiver)}
                more -= wanted
                if not paths or not more:
                    break
                wanted |= more
            packages = top_packages(self.library_files(commit))
            self.libraries[key] = Library(found, packages, wanted)
        return self.libraries[key]

    def library_files(self, commit: str) -> list[str]:
        """The Python files of the commit that a library is made of: no tests, examples…;
        vendored code in, whose classes the project raises."""
        if commit not in self.library_paths:
            paths = [
                path
                for path in self.python_files(commit)
                if left_out_kind(path) in (None, "vendored")
            ]
            self.library_paths[commit] = paths
        return self.library_paths[commit]

    def defined(self, commit: str, path: str) -> frozenset[str]:
        """The names of the classes, functions and constants a file defines, read from its
        text (so that only files that may define what a library needs are parsed)."""
        sha = self.blob(commit, path)
        if sha not in self.definitions:
            text = self.text(commit, path) or ""
            self.definitions[sha] = frozenset(DEFINED_RE.findall(text) + CONSTANT_RE.findall(text))
        return self.definitions[sha]

    def file(self, commit: str, path: str) -> ParsedFile:
        """The file at commit, parsed, its raises through other files' classes and helpers
        resolved; GitError or PinError when it cannot be read."""
        if (commit, path) in self.files_at:
            return self.files_at[commit, path]
        sha = self.blob(commit, path)
        module, unparsed = self.module(commit, path)
        needs = module.needs() if module else frozenset()
        library = self.library(commit, needs) if needs else None
        key = (sha, library.used(module) if library and module else ())
        parsed = self.parsed.get(key)
        if parsed is None:
            found = resolved(module, library or Library([]))[0] if module else []
            sites = tuple(found)
            templates = tuple(canonical(site.template) for site in sites)
            words = tuple(tuple(TOKEN_RE.findall(t)) for t in templates)
            parsed = self.parsed[key] = ParsedFile(sites, templates, words, unparsed)
        self.files_at[commit, path] = parsed
        return parsed

    def blob(self, commit: str, path: str) -> str:
        """The blob hash of path at commit; GitError when there is no such file."""
        sha = self.files(commit).get(path)
        if sha is None:
            raise GitError(f"{path} does not exist at commit {commit[:12]}")
        return sha

    def text_of(self, sha: str, path: str) -> str:
        """A blob's text; GitError or PinError when it cannot be read as source."""
        found = self.objects.read(sha)
        if found is None or found[1] != "blob":
            raise GitError(f"{path}: object {sha[:12]} is missing")
        return decode_source(found[2], path)

    def exists(self, commit: str, path: str) -> bool:
        return path in self.files(commit)

    def lines(self, commit: str, path: str) -> list[str]:
        """A file's lines at commit; GitError or PinError when it cannot be read."""
        return source_lines(self.text_of(self.blob(commit, path), path))

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
            self.renames[old, new] = renamed_paths(self.repository, old, new, PYTHON_SUFFIXES)
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


def python_module(source: str, path: str, settings: ScanSettings) -> tuple[ModuleScan | None, str]:
    """A Python file's own scan (of Python 2 code or syntax newer than this Python, read as
    `readable_source` rewrites it), or why it could not be parsed; none for another file."""
    if not path.endswith(PYTHON_SUFFIXES):
        return None, ""
    try:
        return scan_module(source, settings), ""
    except SyntaxError as exc:
        problem = syntax_problem(exc)
    rewritten = readable_source(source)
    try:
        return (scan_module(rewritten, settings), "") if rewritten else (None, problem)
    except SyntaxError as exc:
        return None, syntax_problem(exc)  # what is left that no rewrite reads, on its line


def read_problem(exc: Exception, path: str) -> str:
    """Why a file could not be read, calling it "file" (what says so gives its path)."""
    return str(exc).replace(path, "file", 1)


def syntax_problem(exc: SyntaxError) -> str:
    return f"line {exc.lineno}: {exc.msg}" if exc.lineno else exc.msg or str(exc)


def top_packages(paths: Iterable[str]) -> frozenset[str]:
    """The top-level packages and modules of a repository's Python files (`src/` layout too)."""
    found = set()
    for path in paths:
        parts = path.split("/")
        if parts[0] in ("src", "lib") and len(parts) > 1:
            parts = parts[1:]
        found.add(parts[0].removesuffix(".pyi").removesuffix(".py"))
    return frozenset(found)


# What a scan (and drift, looking for a raise elsewhere) leaves out, by the folder a file
# is in: code whose raises the library's users do not see.
LEFT_OUT = {
    "tests": "test file",
    "examples": "example",
    "docs": "documentation file",
    "benchmarks": "benchmark file",
    "vendored": "vendored file",
}
LEFT_OUT_FOLDERS = {
    **dict.fromkeys(("tests", "test", "testing"), "tests"),
    **dict.fromkeys(("examples", "example", "demos", "demo", "docs_src"), "examples"),
    **dict.fromkeys(("docs", "doc"), "docs"),
    **dict.fromkeys(("benchmarks", "benchmark", "bench"), "benchmarks"),
    **dict.fromkeys(
        ("_vendor", "vendor", "vendored", "_vendored", "third_party", "_third_party"), "vendored"
    ),
}


def left_out_kind(path: str) -> str | None:
    """Whether a file is one a scan leaves out, and what it is: a test file (in a `tests`
    folder, or named test_*.py, *_test.py or conftest.py), an example, a documentation
    file, a benchmark (in a folder of that name), or another project's code vendored in
    (`_vendor/`, `third_party/`)."""
    *folders, name = path.split("/")
    stem = name.rsplit(".", 1)[0]
    if stem.startswith("test_") or stem.endswith("_test") or stem == "conftest":
        return "tests"
    return next((LEFT_OUT_FOLDERS[f] for f in folders if f in LEFT_OUT_FOLDERS), None)
