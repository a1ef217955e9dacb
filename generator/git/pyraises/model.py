"""What a scan finds in a module: raise sites, helpers, the raises another module resolves."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from errpages.git.pyraises.nodes import Span, looked_up
from errpages.git.pyraises.templates import TRANSLATE_FUNCTIONS

DECORATED = frozenset({"deprecated", "deprecated class"})  # `RaiseSite.handed`: a decorator's


ISSUED = DECORATED | {"warn"}  # `RaiseSite.handed`: warnings


@dataclass(frozen=True)
class RaiseSite:
    """One `raise X("…")` or `assert cond, "…"`: where, what, and the code around it."""

    line: int  # the `raise` / `assert` line
    end_line: int
    exception: str
    template: str
    # The statements around it, as (first line, last line) each: the body the raise is in,
    # the body the statement holding that body is in, and so on out to the module.
    bodies: tuple[Span, ...] = field(default=(), compare=False)
    function: tuple[int, int] | None = field(default=None, compare=False)  # the def it is in
    scope: str = field(default="", compare=False)  # the classes and defs it is in: `Model.check`
    # What holds when it runs, as the code says it, outermost first: the tests of the `if`s
    # around it (negated for an `else`, and for an early `return` before it), `for x in xs`,
    # `while c`, `after for x in xs without a break` (a loop's `else`), `except KeyError`,
    # `match x: case P`.
    conditions: tuple[str, ...] = field(default=(), compare=False)
    helper: str = field(default="", compare=False)  # the raise helper it goes through, if any
    # the function of its module that makes its message (`Choice.invalid_message`), if one does
    made_by: str = field(default="", compare=False)
    built_by: str = field(default="", compare=False)  # the class that builds its message, if so
    # For a class called with its message: the argument it was read from (its position, or
    # its keyword), and where the class comes from (`Pending.origin`), for a class that
    # builds its message around that argument (`BusyResourceError("reading from")`).
    argument: str = field(default="", compare=False)
    origin: str = field(default="", compare=False)
    # the entry of a class's table of error messages it is (`Form.error_messages['invalid']`)
    table_entry: str = field(default="", compare=False)
    # how the exception leaves the statement when it is not raised there: `yield` (for the
    # caller to raise), `set_exception` (raised where the future is awaited), `warn` (issued
    # as a warning of its class, which the warnings filters show, hide or raise),
    # `deprecated` and `deprecated class` (a decorator's: issued each time the function is
    # called, or the class instantiated or subclassed)
    handed: str = field(default="", compare=False)

    @property
    def through(self) -> tuple[str, ...]:
        """The functions between the statement and its message: the raise helper, the
        function that makes the message."""
        return tuple(name for name in (self.helper, self.made_by) if name)

    @property
    def raised_in(self) -> str:
        """The function a record names as raising it: none for a table's entry, which its
        class raises wherever it reports that key, not where the table stands."""
        return "" if self.table_entry else self.scope

    @property
    def kind(self) -> str:
        """What the code does with it, as a record's `kind` says: a warning is issued, not
        raised."""
        return "warning" if self.handed in ISSUED else "error"


@dataclass(frozen=True)
class ScanSettings:
    """What a raise's message is depends on: site.yaml's `message_arguments` (classes whose
    message is another argument) and `gettext_functions` (more names that mark a message for
    translation)."""

    message_arguments: tuple[tuple[str, int | str], ...] = ()
    gettext_functions: tuple[str, ...] = ()

    @functools.cached_property
    def arguments(self) -> dict[str, int | str]:
        return dict(self.message_arguments)

    @functools.cached_property
    def translations(self) -> frozenset[str]:
        return TRANSLATE_FUNCTIONS | frozenset(self.gettext_functions)


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str


@dataclass(frozen=True)
class ExceptionClass:
    """A class of a module: its bases, and the messages it builds itself (in `__init__`, from
    a template: `super().__init__(_("No such option: {name}").format(…))`, or in `__str__`)."""

    name: str
    bases: tuple[str, ...]
    templates: tuple[str, ...]
    # the parameters of its `__init__` that a call can give by position (`self` left out), or
    # None when it defines none
    parameters: tuple[str, ...] | None = None
    # its messages are defaults (`default_detail = "…"`), which a message given replaces
    defaults: bool = False


# How a helper's callers use it: call it, enter it with `with`, or raise what it returns
CallKind = Literal["call", "with", "raise"]


@dataclass(frozen=True)
class Relay:
    """Where a helper hands its parameter on to another helper (`self._std_warn(warning)`):
    the call, and the argument's place in it."""

    name: str
    owner: str  # the class its receiver is, as for a pending call
    receiver: str
    position: int  # among the call's positional arguments (-1 for a keyword)
    keyword: str


@dataclass(frozen=True)
class Helper:
    """A function or method that always raises, with one of its parameters in the message
    (`def fail(self, message, …): raise BadParameter(message, …)`): its callers raise; or
    raises so only under a condition (`if len(self._entities) > 1: raise
    InvalidRequestError(rationale or "…")`): its callers raise under it too; or that hands
    one of its parameters to `warnings.warn`: its callers issue a warning; or that returns
    an exception of the class it is given: its callers raise what it returns."""

    name: str
    owner: str  # the class it is a method of ("" for a function)
    exception: str
    parameter: str
    position: int  # the parameter's place among a call's positional arguments (self not counted)
    templates: tuple[str, ...]  # the message, with `{parameter}` where the argument goes
    # The parameter that names the class raised, when it does (`exc=TemplateSyntaxError`: the
    # class is its default, or what a call gives it), and its place among positional arguments
    exception_parameter: str = ""
    exception_position: int = -1
    # A warn helper (`def warn(self, warning): warnings.warn_explicit(warning, …)`): its
    # callers issue a warning; of the class of the one they hand it when `exception` is ""
    issues: bool = False
    # It formats the text it is given (`fmt.format(**args)`): a literal's braces are fields
    formats: bool = False
    # It hands the parameter on to another helper, which raises or issues it: what the
    # library resolves it with (`templates` is then the one `{parameter}`)
    relay: Relay | None = None
    # What must hold in it for it to raise, when it raises only then (and may return a value
    # otherwise): said as its callers would say it, RECEIVER where it reads its own `self`
    conditions: tuple[str, ...] = ()
    # How its callers use it: "call"; "with", a context manager, which raises when the
    # block a `with` of it runs raises (its conditions then say what it handles); "raise",
    # a factory, whose callers raise what it returns (`raise self.parse_error(EmptyKeyError)`,
    # where it returns `exception(line, col, *args)`). `parameter` is "" where it raises the
    # class a call names (`raise raise_exc from e`), whose message the class builds
    kind: CallKind = "call"
    # For a factory that hands the class the arguments a call gives after its own
    # (`*args`), the place among the class's arguments the first of them takes; -1 for none
    passes_from: int = -1
    # For one that hands on the items of the argument it is given at this place instead
    # (tomlkit 0.4's `parse_error(self, kind=ParseError, args=None)`, called with `(c,)`)
    spreads: int = -1
    # For a relay, the helper it is when what it hands its parameter on to is no helper (a
    # raise of its own under a condition: babel's `_invalid_pofile`, which otherwise prints)
    fallback: Helper | None = None

    @property
    def title(self) -> str:
        return f"{self.owner}.{self.name}" if self.owner else self.name

    def handed_to(self) -> list[Relay]:
        """What it may hand its parameter on to: its relay, then its fallbacks' in turn."""
        found: list[Relay] = []
        helper: Helper | None = self
        while helper is not None:
            found += [helper.relay] if helper.relay else []
            helper = helper.fallback
        return found


@dataclass(frozen=True)
class MessageMaker:
    """A function of a module that returns a message (`def types_msg(instance, types): return
    "%r is not of type %s" % …`), or a constant of the module that holds one (`CONSOLE_MAIN =
    PytestRemovedIn10Warning("…")`, `DEPRECATION_MESSAGE = "…"`): a raise or a warning
    elsewhere whose message is a call of it, or it, raises or issues that."""

    name: str
    templates: tuple[str, ...]
    exception: str = ""  # for a constant that holds an exception or warning, its class


class Given(NamedTuple):
    """A message an argument of a call can be, and what holds when it is the one (as its
    code says it): `self.fail(" ".join(message))` after `if name is None: message = […]`."""

    template: str
    conditions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pending:
    """A raise whose message another module may say: of a class that builds its own message
    (`raise NoSuchOption(opt)`), or a call of what may be a raise helper (`self.fail(_("…"))`);
    resolved against the library of every module of the commit."""

    site: RaiseSite  # its template "" (its exception the class raised, for a class)
    name: str  # the class raised, or the function called
    owner: str  # for a call: the class its receiver is (`self`, or a parameter annotated)
    arguments: tuple[tuple[Given, ...], ...]  # the messages each positional argument can be
    keywords: tuple[tuple[str, tuple[Given, ...]], ...]  # and each keyword argument
    reason: str  # why it is skipped when nothing resolves it
    origin: str = ""  # for a class: the module it is imported from, or named through
    # "class" for a class, or how a helper is called: "call", "with" (a `with` enters it),
    # "raise" (what it returns is raised)
    kind: CallKind | Literal["class"] = "call"
    # for a call: the class each positional argument names ("" for one that names none), and
    # each keyword argument
    classes: tuple[str, ...] = ()
    keyword_classes: tuple[tuple[str, str], ...] = ()
    # for a call of a method whose receiver's class is not known, the receiver's name
    # (`parser` of `parser.fail(…)`, a parameter of code older than its annotations)
    receiver: str = ""
    # for a class, the function imported from another module whose call is its message
    # (`ValidationError(types_msg(instance, types))`), when it is one
    made_by: str = ""
    # for a class: what the raise gives it, each argument by position ("0") or keyword
    passed: tuple[str, ...] = ()
    # for a call of a method, the code of what it is called on (`self`, `query`): a helper's
    # conditions read that where they read the helper's own `self`
    called_on: str = ""
    # for a call a `with` enters, each positional argument as written when it is a name
    # (`re.error`), else "": what an `except` of the context manager reads where it reads
    # the parameter
    names: tuple[str, ...] = ()
    # for a call whose value is raised, the messages of each item each positional argument
    # is spread into, when a factory hands on its items (`("=",)`)
    items: tuple[tuple[tuple[Given, ...], ...], ...] = ()


@dataclass(frozen=True)
class ModuleScan:
    """What one module says, before other modules are known: its own raises, those that
    wait on a definition elsewhere, and what it defines that other modules' raises use."""

    sites: tuple[RaiseSite, ...]
    skipped: tuple[Skipped, ...]
    pending: tuple[Pending, ...]
    classes: tuple[ExceptionClass, ...]
    helpers: tuple[Helper, ...]
    makers: tuple[MessageMaker, ...]

    def needs(self) -> frozenset[str]:
        """The names of the classes and functions its pending raises wait on, the classes it
        gives a message to, which may build theirs around it, and those it gives a context
        manager, which may raise them."""
        named = {p.made_by for p in self.pending if p.made_by}
        named |= {name for p in self.pending for name in looked_up(p.name, p.owner, p.receiver)}
        named |= {site.exception for site in self.sites if site.argument}
        handed = [p for p in self.pending if p.kind in ("with", "raise")]  # a class it raises
        named |= {c for p in handed for c in (*p.classes, *dict(p.keyword_classes).values())}
        return frozenset(named - {""})
