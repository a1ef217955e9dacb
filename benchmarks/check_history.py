"""Check `errpages history --json` against git itself, not against errpages' own matching.

    errpages history --repo-dir REPO --content CONTENT --json > history.json
    python -m benchmarks.check_history REPO history.json

1. Every (record, release) pair listed: in `git show <release>:<path>`, every word of three
   letters or more of the message's literal text is within 80 lines above the line given (a
   message held in a variable) to 15 below, or to where the brackets the line opens close
   (string literals joined across lines read as one), and the line says `raise`, `assert`
   or `yield` (or calls `set_exception`, `raise_from`, `reraise` or `warn`, or is a
   `@deprecated(` decorator, or the Deprecated package's, bare too, where of the words
   that package puts around the reason only the reason, the version and the name of
   what it decorates are looked for), or calls a function
   that release defines (a raise helper), or is an entry of a table of error messages
   (`error_messages` above it); or the line raises (or calls such a raise helper:
   `self.error(_unsaved_object_error(…))`) and the words are in the definition of a
   function it calls, or that a name it raises was assigned from in the 40 lines above (`msg
   = self._get_unsupported_message(…)`, then `raise NotSupportedError(msg)`: a message a
   function makes); or the line says `raise X` (or `yield X`,
   a call or not, or raises a name assigned `X(…)` in the 40 lines above: `raise_from(error,
   None)`) and the words are in the definition of class X in that release, in a module
   constant it reads, or in those of its bases, three deep (a message the class builds, or
   builds around the text given there), or the line enters a context manager that raises
   one of its parameters (`with change_exception(errors.X, TypeError):`) and the words are
   in the definition of a class the call names (looked at before a helper's call), or
   raises what a function
   returns that the release defines to return a call of a name it holds (`raise
   self.parse_error(UnexpectedCharError, c)`, where it returns `exception(line, col,
   *args)`), the class the call names first, whose definition has the words; or the line
   raises or asserts
   with a name the module assigns once, at its top level, to a text with the words
   (`MESSAGE = "…"`), or with `self.NAME` (`cls.NAME`, `Class.NAME`) where the file binds
   NAME in a class body to a text with the words, or to a module constant that holds one
   (words the raise's own lines fill in counted); `self.NAME` read in the raise's call, in
   what a name it raises was assigned in the 40 lines above, in a method of the file
   either calls, or in what the file sets `self.NAME` to (`self.error = error or
   self.default_message`). A pair said to be issued as a warning is
   at a `warnings.warn` call (or `warn(…)`, or a `@deprecated("…")` decorator), and every
   other pair is not.
2. Every pair not listed: `git grep -F` of the record's longest literal run (20 characters
   or more, with a space, on one source line; of the reason, in the Deprecated package's
   wording) in that release's Python files (tests, docs,
   examples and benchmarks left out, as scan leaves them), in a string and not in a comment,
   where a raise takes its message: the hit's line or one of the five above it (not a
   comment) raises,
   asserts, yields an exception, issues a warning or makes an exception (`…Error(`, not
   one handed to a call, `self.write_error(ServerError("…"))`, nor assigned), or the
   hit is given to a call of a function of that release that raises (not a log call nor
   a print), or the hit is assigned to a name that a raise within 40 lines below gives its
   call (not a bare `raise Exit`), or that names a message (`msg_template = "…"`) and no
   log, print or `.warn(` call below shows. A hit
   is a miss unless another record of the history claims a raise within 15 lines of it in
   that release, or it is in the definition of a class that such a raise raises (a message
   the class builds) or names to a context manager, or the history said that file could
   not be parsed there.

Prints the counts and the first examples of each kind.
"""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from errpages.git.code import left_out_kind

PLACEHOLDER_RE = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
# Two string literals joined, on one line or across one (`"…return"` then
# `f"character…"`): one text.
JOINED_RE = re.compile(r"[\"']\s*[rRbBuUfF]{0,2}[\"']")


def main(repo_dir: str, history_file: str) -> None:
    data = json.loads(Path(history_file).read_text(encoding="utf-8"))
    commits: dict[str, str] = data["commits"]

    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", repo_dir, *args], capture_output=True)
        return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else ""

    shown: dict[tuple[str, str], list[str]] = {}
    claimed: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for record in data["records"]:
        for pair in record["raised"]:
            claimed[pair["release"]].add((pair["path"], pair["line"]))

    pairs, bad, from_variable, examples, warnings, wrong_kind = 0, 0, 0, [], 0, []
    kinds: dict[str, int] = defaultdict(int)
    for record in data["records"]:
        for pair in record["raised"]:
            pairs += 1
            key = (commits[pair["release"]], pair["path"])
            if key not in shown:
                shown[key] = git("show", f"{key[0]}:{key[1]}").splitlines()
            lines, at = shown[key], pair["line"]
            said = own_names(lines[at - 1] if at <= len(lines) else "", key, lines)
            written = source_text(pair["message"]) if DEPRECATED_RE.match(said) else pair["message"]
            words = re.findall(r"[A-Za-z]{3,}", " ".join(PLACEHOLDER_RE.split(written)))
            end = max(at + 15, statement_end(lines, at))
            near = JOINED_RE.sub("", "\n".join(lines[at - 1 : end]))
            wide = JOINED_RE.sub("", "\n".join(lines[max(0, at - 80) : end]))
            if any(w not in near for w in words) and all(w in wide for w in words):
                from_variable += 1
            release = commits[pair["release"]]
            kind = how_raised(said, words, wide, lines, at, release, git)
            kinds[kind] += 1
            if kind == "":
                bad += 1
                examples.append((record["id"], pair["release"], pair["path"], at))
            issued = pair.get("kind") == "warning"
            warnings += issued
            if issued != warns_here(said, release, git, pair["path"]):
                wrong_kind.append((record["id"], pair["release"], pair["path"], at))
    print(
        f"listed pairs: {pairs}; not at the path and line given: {bad} "
        f"({from_variable} read a message assigned above the raise)"
    )
    print("   by how they raise: " + ", ".join(f"{k}: {n}" for k, n in kinds.items() if k))
    for example in examples[:8]:
        print("  ", example)
    print(
        f"   issued as a warning: {warnings}; said to be issued (or raised) where git shows "
        f"a raise (or a `warnings.warn` call): {len(wrong_kind)}"
    )
    for example in wrong_kind[:8]:
        print("  ", example)

    checked, misses, others, unreadable = 0, 0, 0, 0
    missed: list[tuple[str, str, list[tuple[str, int]], str]] = []
    unparsed = {(u["release"], u["path"]) for u in data.get("unparsed", [])}
    for record in data["records"]:
        listed = {pair["release"] for pair in record["raised"]}
        unlisted = [name for name in data["releases"] if name not in listed]
        if not record["raised"] or not unlisted:
            continue
        runs = [
            r.strip() for r in PLACEHOLDER_RE.split(source_text(record["raised"][-1]["message"]))
        ]
        runs = [r for r in runs if len(r) >= 20 and " " in r and "\n" not in r]
        if not runs:
            continue
        chunk = max(runs, key=len)
        checked += len(unlisted)
        by_commit = {commits[name]: name for name in unlisted}
        out = git(
            "grep",
            "-F",
            "-n",
            "-e",
            chunk,
            *by_commit,
            "--",
            "*.py",
            ":!tests",
            ":!test*",
            ":!docs",
            ":!examples",
            ":!benchmarks",
        )
        hits: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for line in out.splitlines():
            commit, path, number, text = line.split(":", 3)
            before = text[: text.find(chunk)]
            if left_out_kind(path) is not None:  # `pkg/tests/`: left out at any depth
                continue
            if text.lstrip().startswith("#") or ('"' not in before and "'" not in before):
                continue
            if at_a_raise(source(git, commit, path), int(number), commit, git):
                hits[by_commit[commit]].append((path, int(number)))
        for release, found in hits.items():
            nearby = any(
                p == cp and abs(n - cn) <= 15 for p, n in found for cp, cn in claimed[release]
            )
            commit = commits[release]
            raised = classes_raised(release, commit, claimed[release], git)
            if nearby or any(class_of(git, commit, p, n) in raised for p, n in found):
                others += 1
            elif all((release, path) in unparsed for path, _ in found):
                unreadable += 1
            else:
                misses += 1
                missed.append((record["id"], release, found[:2], chunk))
    print(
        f"unlisted pairs checked with git grep: {checked}; the text found there: "
        f"{misses + others + unreadable} ({others} at a raise another record claims, or in a "
        f"class another record's raise raises, {unreadable} in files "
        f"the history says it could not parse, {misses} unclaimed)"
    )
    for example in missed[:8]:
        print("  ", example)


STRING_RE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")  # a string literal on one line


def source_text(message: str) -> str:
    """What of a message its source says: of the Deprecated package's wording, the name of
    what is decorated, the reason and the version the decorator gives."""
    wording = PACKAGE_WORDING_RE.fullmatch(message)
    return " ".join(part for part in wording.groups() if part) if wording else message


def statement_end(lines: list[str], at: int) -> int:
    """The line (counted from 1) where the brackets the line at `at` opens close: the end
    of a raise whose message runs on for many lines (300 at most)."""
    depth = 0
    for number in range(at, min(len(lines), at + 300) + 1):
        code = STRING_RE.sub("", lines[number - 1]).split("#")[0]
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
        if depth <= 0:
            return number
    return at


STATEMENT_CALL_RE = re.compile(r"^\s*([\w.]+\.)?(\w+)\(")  # the call a line is: `node.warn(`
CALL_RE = re.compile(r"(?:^|(?<=[\s.(=]))([A-Za-z_]\w*)\(")  # `X(f(…))`: both
# PEP 702's decorator, or the Deprecated package's (`@deprecated.sphinx.deprecated(`, bare)
DEPRECATED_RE = re.compile(r"^\s*@(?:\w+\.)*deprecated\s*(?:\(|$)")
# The words the Deprecated package puts around the reason a decorator gives it.
PACKAGE_WORDING_RE = re.compile(
    r"Call to deprecated (?:class method|class|method|function \(or staticmethod\)) (\w+)\."
    r"(?: \((.*)\))?(?: -- Deprecated since version (.*)\.)?",
    re.DOTALL,
)
WARN_CALL_RE = re.compile(r"\bwarnings\.warn(?:_explicit)?\(|(?<![\w.])warn(?:_explicit)?\(")
TABLE_ENTRY_RE = re.compile(r"^\s*(?:\w*error_messages\s*=\s*\{\s*)?[\"'][\w-]+[\"']\s*:")
CLASS_RAISED_RE = re.compile(r"\b(?:raise|yield)\s+(?:[\w.]+\.)?([A-Z_]\w*)\s*(?:\(|$|from\b|#)")
# `raise error`, `raise_from(error, None)`
HELD_RAISED_RE = re.compile(
    r"\braise\s+([a-z_]\w*)\s*(?:$|from\b|#)"
    r"|\b(?:set_exception|raise_from|raise_|raise_from_cause)\(\s*([a-z_]\w*)\s*[,)]"
)
HELD_MESSAGE_RE = re.compile(r"\(\s*([a-z_]\w*)\s*[,)]")  # the message a raise reads: `X(msg)`
RAISING_CALL_RE = re.compile(r"\b(set_exception|raise_from|reraise|raise_|raise_from_cause)\(")
CLASS_CALLED_RE = re.compile(r"\b([A-Z_]\w*)\s*\(")
WITH_CALL_RE = re.compile(r"^\s*(?:async\s+)?with\s+(?:[\w.]+\.)?(\w+)\(")  # a context manager
# `raise self.parse_error(UnexpectedCharError, c)`: a factory given the class it makes
FACTORY_RAISED_RE = re.compile(r"\braise\s+(?:[\w.]+\.)?([a-z_]\w*)\(\s*([A-Z]\w*)\s*[,)]")
RETURNS_CALL_RE = re.compile(r"\breturn\s+[a-z_]\w*\(")  # `return exception(line, col, …)`
CLASS_NAME_RE = re.compile(r"(?<![\w.])(?:[a-z_]\w*\.)*([A-Z_]\w*)\b")  # `errors.IntegerError`
# `import warnings as w`, `from warnings import warn as _warn`, `deprecated as _deprecated`
ALIAS_RE = re.compile(r"\b(warnings|typing_extensions|warn|warn_explicit|deprecated)\s+as\s+(\w+)")
aliases: dict[tuple[str, str], list[tuple[str, str]]] = {}  # by commit and path


def own_names(said: str, key: tuple[str, str], lines: list[str]) -> str:
    """A line with the names its file imports `warnings`, `warn` or `deprecated` as put back
    to their own (`@_deprecated(` → `@deprecated(`)."""
    if key not in aliases:
        aliases[key] = [(o, a) for o, a in ALIAS_RE.findall("\n".join(lines)) if o != a]
    for own, alias in aliases[key]:
        said = re.sub(rf"(?<![\w.]){re.escape(alias)}\b", own, said)
    return said


DEFINITION = r"^\s*(async\s+)?(class|def)\s+\w+"
definitions: dict[str, dict[tuple[str, str], list[tuple[str, int]]]] = {}  # by commit
files: dict[tuple[str, str], list[str]] = {}


def how_raised(
    said: str, words: list[str], wide: str, lines: list[str], at: int, commit: str, git: Any
) -> str:
    """How the line raises the message, as git shows it: "" when it does not."""
    here = all(w in wide for w in words)
    raises = re.search(
        r"\b(raise|assert|yield|set_exception|raise_from|reraise|raise_|raise_from_cause|warn"
        r"|warn_explicit)\b",
        said,
    ) or DEPRECATED_RE.match(said)
    if here and raises:
        return "at a raise"
    above = lines[max(0, at - 40) : at]
    if here and TABLE_ENTRY_RE.match(said) and any("error_messages" in a for a in above):
        return "a table's entry"
    called = "\n".join(lines[at - 1 : at + 2])  # the call's first lines: its arguments
    for name in CONSTANT_RE.findall(called) if raises else []:  # `MESSAGE = "…"`
        assigned = [n for n, line in enumerate(lines) if line.startswith(f"{name} =")]
        text = assigned_text(lines, assigned[0]) if assigned else ""
        if len(assigned) == 1 and all(w in text or w in wide for w in words):
            return "a module constant"
        if not assigned and all(w in wide or w in constant_text(git, commit, name) for w in words):
            return "another module's constant"
    for name in read_attributes(said, called, lines, at) if raises else []:
        bound = [n for n, line in enumerate(lines) if re.match(rf"\s+{name}\s*(:[^=]*)?=", line)]
        for index in bound:
            named = re.fullmatch(r"\s*\w+\s*(?::[^=]*)?=\s*([A-Z_][A-Z0-9_]*)\s*", lines[index])
            text = assigned_text(lines, index)
            if named:  # `error_envvar_not_set = ERROR_ENVVAR_NOT_SET`
                top = [n for n, line in enumerate(lines) if line.startswith(f"{named[1]} =")]
                text = assigned_text(lines, top[0]) if top else constant_text(git, commit, named[1])
            if all(w in text for w in words):
                return "a class attribute"
    entered = WITH_CALL_RE.match(said)  # `with change_exception(errors.X, TypeError):`
    bodies = [b for _, b in function_bodies(git, commit, entered[1])] if entered else []
    given_classes = CLASS_NAME_RE.findall(said[entered.end() :]) if entered else []
    for given in given_classes if any(map(raises_a_parameter, bodies)) else []:
        if all(w in wide or w in class_text(git, commit, given) for w in words):
            return "built by the class a context manager raises"
    called_names = CALL_RE.findall(said)
    for name in called_names:  # a helper's own words are in its definition
        helper = defined(git, commit, "def", name)
        if helper and all(w in wide or w in helper for w in words):
            # `raise X(types_msg(…))`, `self.error(_unsaved_object_error(…))`: the function
            # makes the message a raise (or a raise helper) is given
            given = [
                b for n in called_names if n != name for _, b in function_bodies(git, commit, n)
            ]
            if raises or any(map(raises_a_parameter, given)):
                return "a message a function makes"
            if "raise" in helper:
                return "a raise helper's call"
            if WARN_CALL_RE.search(helper):
                return "a warn helper's call"
    for name in HELD_MESSAGE_RE.findall(said) if raises else []:  # `raise X(msg)`
        maker = re.compile(rf"^\s*{name}\s*=\s*(?:[\w.]+\.)?(\w+)\(")  # `msg = self.m(…)`
        for line in lines[max(0, at - 40) : at - 1]:
            call = maker.match(line)
            helper = defined(git, commit, "def", call[1]) if call else ""
            if helper and all(w in wide or w in helper for w in words):
                return "a message a function makes"
    factory = FACTORY_RAISED_RE.search(called) if raises else None
    makes = factory and RETURNS_CALL_RE.search(defined(git, commit, "def", factory[1]))
    if (
        factory
        and makes
        and all(w in wide or w in class_text(git, commit, factory[2]) for w in words)
    ):
        return "built by the class a factory is given"
    raised = CLASS_RAISED_RE.search(said)
    held = HELD_RAISED_RE.search(said)
    if raised is None and held:  # `error = X(…)` above, then `raise error`
        made = rf"^\s*{held[1] or held[2]}\s*=\s*(?:[\w.]+\.)?([A-Z]\w*)\("
        found = [m for line in lines[max(0, at - 40) : at - 1] if (m := re.match(made, line))]
        raised = found[-1] if found else None
    if raised is None and RAISING_CALL_RE.search(said):  # `reraise(X, X(…), tb)` over lines
        raised = CLASS_CALLED_RE.search("\n".join(lines[at - 1 : at + 4]))
    if raised and all(w in wide or w in class_text(git, commit, raised[1]) for w in words):
        return "built by the class raised"  # or built around the text the raise gives it
    return ""


def read_attributes(said: str, called: str, lines: list[str], at: int) -> list[str]:
    """The attributes a raise reads its message from (`self.invalid_message`): in its call,
    in what a name it raises was assigned in the 40 lines above (`msg =
    self.DEFAULT_VALIDATION_MESSAGE`), in a method of the file either calls (`message =
    self._format_error(value)`, which returns `self.error.format(…)`), and in what the
    file sets one of those on an instance to (`self.error = error or
    self.default_message`)."""
    read = [called]
    for held in HELD_MESSAGE_RE.findall(said):
        read += [a for a in lines[max(0, at - 40) : at - 1] if re.match(rf"\s*{held}\s*=", a)]
    for name in {n for text in list(read) for n in CALL_RE.findall(text)}:
        starts = [n for n, a in enumerate(lines) if re.match(rf"\s*def\s+{name}\(", a)]
        read += ["\n".join(lines[n : n + 12]) for n in starts]
    names = ATTRIBUTE_RE.findall("\n".join(read))
    for name in set(names):
        set_to = [a for a in lines if re.match(rf"\s*self\.{name}\s*(:[^=]*)?=[^=]", a)]
        names += ATTRIBUTE_RE.findall("\n".join(set_to))
    return list(dict.fromkeys(names))


class_texts: dict[tuple[str, str, int], str] = {}


def class_text(git: Any, commit: str, name: str, depth: int = 0) -> str:
    """The definitions of a class of a release, the module constants they read (discord.py's
    `super().__init__(message or APP_ID_NOT_FOUND)`), and those of its bases (three deep)."""
    if (commit, name, depth) not in class_texts:
        text = defined(git, commit, "class", name)
        for constant in set(CONSTANT_RE.findall(text)):
            text += "\n" + constant_text(git, commit, constant)
        heads = re.findall(rf"^\s*class\s+{re.escape(name)}\s*\(([^)]*)\)", text, re.MULTILINE)
        for base in {b for head in heads for b in re.findall(r"(\w+)\s*(?:,|$)", head)}:
            if depth < 3 and base != name:
                text += "\n" + class_text(git, commit, base, depth + 1)
        class_texts[commit, name, depth] = text
    return class_texts[commit, name, depth]


RAISING_RE = re.compile(
    r"\b(raise|assert|set_exception|raise_from|reraise|raise_|raise_from_cause)\b"
    r"|\byield\s+(?:[\w.]+\.)?[A-Z]"  # an exception yielded, not any value
    r"|\bwarnings\.warn|(?<![\w.])warn(?:_explicit)?\("  # not docutils' `self.directive.warn(`
    r"|@(?:\w+\.)?deprecated\("
    # an exception made, not one handed to a call (`self.write_error(ServerError("…"))`)
    # nor assigned (`exception = ServerError("…")`: a raise below must read the name)
    r"|(?<![(\w.=])(?<!= )(?:\w+\.)*[A-Z]\w*(?:Error|Exception|Warning)\("
)
# A logging call: what it is given is logged, not raised (`log.msg("Discarding …")`).
LOG_CALL_RE = re.compile(
    r"\b(?:log|logger|logging|LOG|_log|_logger)\."
    r"(?:msg|debug|info|warning|warn|error|exception|critical|log)\("
)
# A call that shows what it is given without raising it: a log call, a print (invoke 0.x's
# `six.print_("Can't find any collection named …", file=sys.stderr)`, then `raise Exit(1)`)
SHOWN_RE = re.compile(LOG_CALL_RE.pattern + r"|(?<![\w.])(?:six\.)?print_?\(")
# or another `.warn(` (docutils' `self.directive.warn(errmsg)`, Sphinx's `logger.warning(msg)`)
REPORTED_RE = re.compile(SHOWN_RE.pattern + r"|\.warn(?:ing)?\(")
STRING_LINE_RE = re.compile(r"""^\s*[rRbBuUfF]{0,2}["']""")  # a line of a string split over lines
ASSIGNED_RE = re.compile(r"^\s*(?:self\.)?(\w+)\s*(?::[^=]*)?\+?=[^=]")
MESSAGE_NAME_RE = re.compile(r"template|message|msg|detail|error", re.IGNORECASE)


def at_a_raise(lines: list[str], number: int, commit: str, git: Any) -> bool:
    """Whether text a release has at a line is where a raise takes its message: the line or
    one of the five above raises (or makes an exception), or the text is given to a call of
    a function of the release that raises what it is given (a raise helper's:
    `self.error("…")`), or it is
    assigned to a name that a raise in the 40 lines below reads (in its call's first ten
    lines), or that names a message (`msg_template = "…"`); not a log call, a print or
    another function's argument (`scope.cancel("…")`)."""
    above = [a for a in lines[max(0, number - 6) : number] if not a.lstrip().startswith("#")]
    if any(RAISING_RE.search(line) for line in above):  # not a comment's "… we can just raise"
        return True
    opening = next((line for line in reversed(above) if not STRING_LINE_RE.match(line)), "")
    if SHOWN_RE.search(opening):
        return False
    called = CALL_RE.findall(opening)  # the call the text is given to, if it is
    bodies = [body for name in called for _, body in function_bodies(git, commit, name)]
    if any(raises_a_parameter(body) for body in bodies):
        return True  # `self.error("…")`, which raises
    for line in reversed(above):  # the assignment the text is in, if it is in one
        assigned = ASSIGNED_RE.match(line)
        if assigned:
            name = assigned[1]
            below = lines[number : number + 40]
            read = re.compile(rf"\b{name}\b")
            used = any(  # a raise (its call, over up to ten lines) reads the name
                RAISING_RE.search(b)
                and any(map(read.search, below[n : n + 10] if "(" in b else [b]))
                for n, b in enumerate(below)
            )
            logged = any(REPORTED_RE.search(b) and read.search(b) for b in below)
            return used or (not logged and bool(MESSAGE_NAME_RE.search(name)))
    return False


RAISE_RE = re.compile(r"\braise\s+(?!NotImplementedError\b)\w")  # not an abstract method's
NOT_PARAMETERS = set(dir(builtins)) | {"def", "async", "self", "cls"}


def raises_a_parameter(body: str) -> bool:
    """Whether a function's text raises something made of one of its parameters (what its
    signature names, to the first line ending in a colon), in the raise's first four lines."""
    lines = body.splitlines()
    end = next((n for n, line in enumerate(lines) if line.rstrip().endswith(":")), 0)
    signature = " ".join(lines[: end + 1])
    parameters = set(re.findall(r"\b[a-z_]\w*\b", signature)) - NOT_PARAMETERS
    return any(
        RAISE_RE.search(line) and parameters & set(re.findall(r"\w+", " ".join(lines[n : n + 4])))
        for n, line in enumerate(lines[end + 1 :], end + 1)
    )


constants: dict[tuple[str, str], str] = {}


def assigned_text(lines: list[str], index: int) -> str:
    """The text of the assignment at a line: through the line that closes the triple-quoted
    string it opens there, else its first 8 lines."""
    first = lines[index]
    opened = next((q for q in ('"""', "'''") if first.count(q) % 2), None)
    end = index + 8
    if opened is not None:
        end = next((n + 1 for n in range(index + 1, len(lines)) if opened in lines[n]), end)
    return JOINED_RE.sub("", "\n".join(lines[index:end]))


def constant_text(git: Any, commit: str, name: str) -> str:
    """The text of the one `NAME = …` of that name at the top of a module of the release
    (`assigned_text`), or ""."""
    if (commit, name) not in constants:
        pattern = rf"^{name}\s*(:[^=]*)?="
        found = git("grep", "-n", "-E", pattern, commit, "--", "*.py", ":!tests", ":!test*")
        places = found.splitlines()
        text = ""
        if len(places) == 1:
            _, path, number, _ = places[0].split(":", 3)
            text = assigned_text(source(git, commit, path), int(number) - 1)
        constants[commit, name] = text
    return constants[commit, name]


def warns_here(said: str, commit: str, git: Any, path: str, depth: int = 0) -> bool:
    """Whether a line, as git shows it, issues a warning: a `warnings.warn` call, PEP 702's
    decorator, or a call of a function that ends in issuing one (pytest's `node.warn(…)`,
    `config.issue_config_time_warning(…)`, and what calls those: two calls deep), one of
    the line's own file when that file defines one of that name and the call is not
    through a module (`util.warn(…)`)."""
    if WARN_CALL_RE.search(said) or DEPRECATED_RE.match(said):
        return True
    called = STATEMENT_CALL_RE.match(said)
    if called is None or depth == 2:
        return False
    bodies = function_bodies(git, commit, called[2])
    if called[1] in (None, "self.", "cls."):
        bodies = [(at, body) for at, body in bodies if at == path] or bodies
    for at, body in bodies:
        lines = body.splitlines()[1:]
        raised = [n for n, line in enumerate(lines) if re.search(r"\braise\b", line)]
        warned = [n for n, line in enumerate(lines) if warns_here(line, commit, git, at, depth + 1)]
        if warned and max(warned) > max(raised, default=-1):  # it ends in a warning
            return True
    return False


def function_bodies(git: Any, commit: str, name: str) -> list[tuple[str, str]]:
    """The path and text of each function of that name in a release, to its end (the first
    line indented no deeper than its `def`, past a signature over several lines)."""
    defined(git, commit, "def", name)  # every definition of the release found
    bodies = []
    for path, number in definitions[commit].get(("def", name), []):
        lines = source(git, commit, path)
        head = lines[number - 1]
        depth = len(head) - len(head.lstrip())
        end = next(
            (
                at
                for at in range(number, len(lines))
                if lines[at].strip()
                and len(lines[at]) - len(lines[at].lstrip()) <= depth
                and not lines[at].lstrip().startswith(")")  # a signature's closing line
            ),
            len(lines),
        )
        bodies.append((path, "\n".join(lines[number - 1 : end])))
    return bodies


CLASS_LINE_RE = re.compile(r"^\s*class\s+(\w+)")
CONSTANT_RE = re.compile(r"\b_?[A-Z][A-Z0-9_]{2,}\b")
# `self.name`, `Class.name`, not a call
ATTRIBUTE_RE = re.compile(r"(?<![\w.])(?:self|cls|_?[A-Z]\w*)\.(\w+)\b(?!\s*\()")
raised_classes: dict[str, set[str]] = {}


def source(git: Any, commit: str, path: str) -> list[str]:
    if (commit, path) not in files:
        files[commit, path] = git("show", f"{commit}:{path}").splitlines()
    return files[commit, path]


def classes_raised(release: str, commit: str, claimed: set[tuple[str, int]], git: Any) -> set[str]:
    """The classes the raises that records claim in a release raise (`raise errors.X(`)."""
    if release not in raised_classes:
        found = set()
        for path, line in claimed:
            lines = source(git, commit, path)
            said = lines[line - 1] if line <= len(lines) else ""
            match = CLASS_RAISED_RE.search(said)
            if match:
                found.add(match[1])
            elif entered := WITH_CALL_RE.match(said):  # the classes a context manager is given
                found.update(CLASS_NAME_RE.findall(said[entered.end() :]))
        raised_classes[release] = found
    return raised_classes[release]


def class_of(git: Any, commit: str, path: str, line: int) -> str:
    """The class whose definition a line is in (within 30 lines of its `class` line)."""
    lines = source(git, commit, path)
    for number in range(line - 1, max(-1, line - 31), -1):
        found = CLASS_LINE_RE.match(lines[number])
        if found:
            return found[1]
    return ""


def defined(git: Any, commit: str, kind: str, name: str) -> str:
    """The text of the definitions of a class or function of that name in a release (up to
    120 lines each; tests left out)."""
    if commit not in definitions:  # every definition of the release, found with one grep
        out = git("grep", "-n", "-E", DEFINITION, commit, "--", "*.py", ":!tests", ":!test*")
        found: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
        for line in out.splitlines():
            _, path, number, text = line.split(":", 3)
            words = text.split()
            at = 1 if words[0] == "async" else 0
            found[words[at], words[at + 1].split("(")[0].split(":")[0]].append((path, int(number)))
        definitions[commit] = found
    texts = []
    for path, number in definitions[commit].get((kind, name), []):
        body = source(git, commit, path)[number - 1 : number + 120]
        texts.append(JOINED_RE.sub("", "\n".join(body)))
    return "\n".join(texts)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
