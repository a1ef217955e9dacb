"""Find the places a Python module raises with a message, and each message as a template.

A template is the message as the records write it: literal text with
`{placeholders}` for the parts computed at run time, braces doubled. We read
what Python would join: adjacent literals, f-strings, `+` of strings, `%` and
`.format()` on a literal. A placeholder is named after its expression where
that is simple (`cfg.backend!r` → `{backend!r}`), else `{value}`.
"""

from __future__ import annotations

import ast
import collections
import copy
import dataclasses
import functools
import inspect
import itertools
import re
import string
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Set
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from errpages.pylex import RAISING_CALLS
from errpages.site.messages import canonical, message_parts

SIMPLE_FORMAT_RE = re.compile(r"%(?:\((\w+)\))?([-#0 +]*\d*(?:\.\d+)?)([sdirfgexXoc%])")


Span = tuple[tuple[int, int], ...]  # the lines of each statement of one body


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


class InitStore(NamedTuple):
    """Where an `__init__` sets an attribute of its instance (`self.error = error or
    self.default_message`): its class, the `__init__`, the statement and its value, and
    whether it sets it whatever holds (in its own body, not under an `if`)."""

    owner: str
    init: FunctionNode
    statement: ast.stmt
    value: ast.expr
    always: bool

    def defaults(self) -> list[tuple[ast.expr, list[Condition]]]:
        """The texts it sets where the caller gives none, each a text or what one is read
        from: of `error or self.default_message`, `self.default_message`; of `message`, a
        parameter, its default when that is text with words apart (WTForms 0.6's
        `message=u'This field is required.'`), and each text it sets it to where none is
        given (`if message is None: message = u'Field must be between %(min)d and %(max)d
        characters long.'`), with what holds in `__init__` when it does; none for anything
        else (data: `self.name = "<unicode string>"`, `host="localhost"`)."""
        given = parameter_names(self.init)
        pieces = [piece for piece, _ in choices(self.value)]
        if set(given).intersection(map(dotted, pieces)):
            return [(piece, []) for piece in pieces]
        if not (isinstance(self.value, ast.Name) and self.value.id in given and self.always):
            return []
        body = {statement_span(statement) for statement in self.init.body}
        bound = local_assignments(self.init), branches(self.init)
        return texts_where_none_given(self.init, bound, self.value, self.statement, body)

    def opposites(self, held: list[Condition]) -> list[str]:
        """What cannot hold where a text it sets under these tests is raised, said as the
        raise would say it: the opposite of each test that reads only parameters the
        `__init__` keeps on the instance as they are (MkDocs' `if removed: message = "…
        was removed …"` else `"… has been deprecated …"`, with `self.removed = removed`: the
        second is no message of a raise under `if self.removed:`)."""
        kept = kept_on_instance(self.init)
        opposite = []
        for condition in held:
            test = condition.code[0] if condition.form == "{}" else None
            read = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)} if test else set()
            if isinstance(test, ast.expr) and read and read <= set(kept):
                on_instance = Condition("{}", (negated(read_on_instance(test, kept)),))
                opposite.append(condition_text(on_instance))
        return opposite


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


class _Names:
    """Give placeholders distinct names within one message."""

    def __init__(self) -> None:
        self.used: dict[str, str] = {}

    def name(self, expression: ast.expr) -> str:
        base = simple_name(expression)
        source = ast.unparse(expression)
        candidate = base
        number = 2
        while candidate in self.used and self.used[candidate] != source:
            candidate = f"{base}_{number}"
            number += 1
        self.used[candidate] = source
        return candidate


# Built-in functions that only convert, count or order their argument: a call of one is
# named after what it is given (`sorted(names)` → `{names}`, `len(items)` → `{items_len}`).
CONVERTERS = frozenset(
    "abs ascii bin bool chr dict float format frozenset hex int iter list max min next oct "
    "ord repr reversed round set sorted str sum tuple vars".split()
)


def call_name(call: ast.Call) -> str:
    """A call's placeholder name: after its argument for a converter, a method of a literal
    (`", ".join(names)` → `{names}`) and `getattr(cfg, "mode")` (→ `{mode}`); else the
    function's own name (`describe(x)` → `{describe}`)."""
    func, args = call.func, call.args
    if isinstance(func, ast.Name) and func.id == "getattr" and len(args) >= 2:
        key = args[1]
        if isinstance(key, ast.Constant) and str(key.value).isidentifier():
            return str(key.value)
        return simple_name(args[0])
    if isinstance(func, ast.Name) and func.id == "len" and args:
        return f"{simple_name(args[0])}_len"
    if args and (
        (isinstance(func, ast.Name) and func.id in CONVERTERS)
        or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Constant))
    ):
        return simple_name(args[0])
    return simple_name(func)


def simple_name(expression: ast.expr) -> str:
    if isinstance(expression, ast.Name):
        return expression.id
    if isinstance(expression, ast.Attribute):
        if expression.attr.startswith("__"):  # type(x).__name__ → type_name
            return f"{simple_name(expression.value)}_{expression.attr.strip('_')}"
        return expression.attr
    if isinstance(expression, ast.Call):
        return call_name(expression)
    if isinstance(expression, ast.Subscript):
        key = expression.slice
        if (
            isinstance(key, ast.Constant)
            and isinstance(key.value, str)
            and key.value.isidentifier()
        ):
            return key.value
        return simple_name(expression.value)
    return "value"


def escape_literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def format_fields(template: str) -> str:
    """A literal's template as the text `.format()` is called on: its braces (escaped as a
    literal's are) are fields. A template with fields of its own (an f-string's) is kept."""
    held = template.replace("{{", "\0").replace("}}", "\1")
    if "{" in held or "}" in held:
        return template
    return held.replace("\0", "{").replace("\1", "}")


def placeholder(name: str, conversion: str = "", spec: str = "") -> str:
    return (
        "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
    )


# Functions that mark a message for translation and return it (or its translation): the
# message is the literal they are given (`_("Invalid value %r") % value`); `pgettext` takes
# a context first, `ngettext` a singular and a plural form (two messages).
TRANSLATE_FUNCTIONS = frozenset(
    "_ __ gettext gettext_lazy gettext_noop lazy_gettext ugettext ugettext_lazy".split()
)
CONTEXT_FUNCTIONS = frozenset("pgettext pgettext_lazy lazy_pgettext".split())
PLURAL_FUNCTIONS = {  # the position of the singular form; the plural form follows it
    **dict.fromkeys("ngettext ngettext_lazy lazy_ngettext ungettext".split(), 0),
    **dict.fromkeys("npgettext npgettext_lazy".split(), 1),
}


def translated_forms(message: ast.expr, translations: frozenset[str]) -> list[ast.expr]:
    """The message with each call that marks text for translation replaced by that text: one
    expression, or one per form of each plural (`ngettext`) call in it."""
    calls = list(marked_calls(message, translations))
    if not calls:
        return [message]
    plural = next((call for call in calls if plural_forms(call)), None)
    if plural is None:
        return [replaced(copy.deepcopy(message), lambda node: translated_text(node, translations))]
    forms = []
    for chosen in plural_forms(plural):
        memo: dict[int, Any] = {}
        copied = copy.deepcopy(message, memo)
        forms.append(replaced(copied, swapping(memo[id(plural)], chosen)))
    return [done for form in forms for done in translated_forms(form, translations)]


def marked_calls(node: ast.expr, translations: frozenset[str]) -> Iterator[ast.Call]:
    """The calls marking text for translation where a message's text can be (the message,
    either side of `+` or `%`, what `.format()` is called on)."""
    if isinstance(node, ast.BinOp):
        yield from marked_calls(node.left, translations)
        yield from marked_calls(node.right, translations)
    elif isinstance(node, ast.Call):
        if translated_text(node, translations) is not None or plural_forms(node):
            yield node
        elif isinstance(node.func, ast.Attribute):
            yield from marked_calls(node.func.value, translations)


def replaced(expression: ast.expr, replacement: Callable[[ast.AST], ast.expr | None]) -> ast.expr:
    """The expression (changed in place) with each node for which `replacement` gives one
    replaced by it."""
    result = Replace(replacement).visit(expression)
    assert isinstance(result, ast.expr)
    return result


class Replace(ast.NodeTransformer):
    """For `replaced`, made once (a class made per call is garbage that only a full
    collection frees)."""

    def __init__(self, replacement: Callable[[ast.AST], ast.expr | None]) -> None:
        self.replacement = replacement

    def visit(self, node: ast.AST) -> ast.AST:
        found = self.replacement(node)
        return found if found is not None else self.generic_visit(node)


def swapping(target: ast.AST, value: ast.expr) -> Callable[[ast.AST], ast.expr | None]:
    """For `replaced`: the one node `target` by `value`."""
    return lambda node: value if node is target else None


def translated_text(node: ast.AST, translations: frozenset[str]) -> ast.expr | None:
    """What a `_("…")` or `pgettext(context, "…")` call stands for: its text argument."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    name = last_name(node.func)
    if name in translations and len(node.args) == 1:
        return node.args[0]
    if name in CONTEXT_FUNCTIONS and len(node.args) == 2:
        return node.args[1]
    return None


def plural_forms(node: ast.AST) -> list[ast.expr]:
    """The singular and plural forms an `ngettext(singular, plural, n)` call chooses from."""
    if not isinstance(node, ast.Call):
        return []
    first = PLURAL_FUNCTIONS.get(last_name(node.func) or "")
    if first is None or len(node.args) != first + 3:
        return []
    return node.args[first : first + 2]


def literal_text(node: ast.expr) -> str | None:
    """A string literal's text; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


STRIPS: dict[str, Callable[[str], str]] = {
    "strip": str.strip,
    "lstrip": str.lstrip,
    "rstrip": str.rstrip,
}
# Functions that give a text back with only its white space changed
DEDENTS: dict[str, Callable[[str], str]] = {
    "dedent": textwrap.dedent,
    "cleandoc": inspect.cleandoc,
}


def stripped(node: ast.expr) -> tuple[ast.expr, Callable[[str], str]] | None:
    """`X.strip()` (or `lstrip`, `rstrip`, with no argument), `dedent(X)` (or
    `textwrap.dedent`, `inspect.cleandoc`): X, and what it does to X's text."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    if isinstance(node.func, ast.Attribute) and node.func.attr in STRIPS and not node.args:
        return node.func.value, STRIPS[node.func.attr]
    name = last_name(node.func)
    if name in DEDENTS and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
        return node.args[0], DEDENTS[name]
    return None


def joined_text(node: ast.expr) -> str | None:
    """The text of a string literal, or of literals joined with `+` (a template `%` or
    `.format()` fills in: `("… %s" + " more") % value`), stripped where the code strips it
    (`E_REDIS_MISSING.strip()` of a constant written between triple quotes)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = joined_text(node.left), joined_text(node.right)
        return None if left is None or right is None else left + right
    if (strip := stripped(node)) is not None:
        text = joined_text(strip[0])
        return None if text is None else strip[1](text)
    return literal_text(node)


def template_of(node: ast.expr, names: _Names) -> str | None:
    """The message template an expression builds, or None when it is not built from literals."""
    text = literal_text(node)
    if text is not None:
        return escape_literal(text)
    if isinstance(node, ast.JoinedStr):
        return fstring_template(node, names)
    if (strip := stripped(node)) is not None:
        template = template_of(strip[0], names)
        return None if template is None else strip[1](template)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = template_of(node.left, names)
        right = template_of(node.right, names)
        if left is None and right is None:
            return None
        return (left or placeholder(names.name(node.left))) + (
            right if right is not None else placeholder(names.name(node.right))
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        text = joined_text(node.left)
        return None if text is None else percent_template(text, node.right, names)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        # `.format_map({"field": x})` is `.format(field=x)`
        fields = node if node.func.attr == "format" else None
        fields = format_map_call(node) if node.func.attr == "format_map" else fields
        text = joined_text(node.func.value)
        if fields is not None and text is not None:
            return format_template(text, fields, names)
        strip = stripped(node.func.value)  # `dedent(f"""…{{error}}""").format(error=…)`
        joined, done = strip or (node.func.value, str)  # `str`: the text as it is
        if isinstance(joined, ast.JoinedStr) and fields is not None:
            filled = formatted_fstring(joined, fields)
            return None if filled is None else done(fstring_template(filled, names))
    return None


def formatted_fstring(node: ast.JoinedStr, call: ast.Call) -> ast.JoinedStr | None:
    """An f-string whose text `.format()` then fills in (`f"{value!r} is invalid for
    {{field}}".format_map({"field": name})`), as the one f-string it makes; None where a
    field is not given by name or place."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    parts: list[ast.expr] = []
    auto = 0
    for part in node.values:
        if not isinstance(part, ast.Constant):
            parts.append(part)
            continue
        try:
            fields = list(string.Formatter().parse(str(part.value)))
        except ValueError:
            return None
        for literal, name, spec, conversion in fields:
            parts.append(ast.Constant(literal))
            if name is None:
                continue
            if name == "" or name.isdigit():
                position = auto if name == "" else int(name)
                auto += name == ""
                value = call.args[position] if position < len(call.args) else None
            else:
                value = keywords.get(name)
            if value is None or isinstance(value, ast.Starred):
                return None
            shown = ord(conversion) if conversion else -1
            format_spec = ast.JoinedStr([ast.Constant(spec)]) if spec else None
            parts.append(ast.FormattedValue(value, shown, format_spec))
    return ast.JoinedStr(parts)


def format_map_call(call: ast.Call) -> ast.Call | None:
    """`text.format_map({"field": x})` as the `text.format(field=x)` it is the same as."""
    mapping = call.args[0] if len(call.args) == 1 and not call.keywords else None
    if not isinstance(mapping, ast.Dict):
        return None
    keys = [literal_text(key) if key is not None else None for key in mapping.keys]
    if any(key is None or not key.isidentifier() for key in keys):
        return None
    given = [ast.keyword(key, value) for key, value in zip(keys, mapping.values, strict=True)]
    return ast.Call(call.func, [], given)


def fstring_template(node: ast.JoinedStr, names: _Names) -> str:
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(escape_literal(str(value.value)))
        elif isinstance(value, ast.FormattedValue):
            joined = isinstance(value.value, (ast.JoinedStr, ast.Constant))
            inner = template_of(value.value, names) if joined else None
            if inner is not None and value.conversion in (-1, ord("s")) and not value.format_spec:
                parts.append(inner)  # a message built in steps: `f"{msg}. {detail}"`
                continue
            conversion = chr(value.conversion) if value.conversion > 0 else ""
            spec = ""
            if isinstance(value.format_spec, ast.JoinedStr):
                spec = "".join(
                    str(v.value) if isinstance(v, ast.Constant) else "?"
                    for v in value.format_spec.values
                )
            parts.append(placeholder(names.name(value.value), conversion, spec))
    return "".join(parts)


def percent_template(text: str, args: ast.expr, names: _Names) -> str:
    values = list(args.elts) if isinstance(args, ast.Tuple) else [args]
    mapping = args if isinstance(args, ast.Dict) else None
    result = []
    last = 0
    index = 0
    for found in SIMPLE_FORMAT_RE.finditer(text):
        result.append(escape_literal(text[last : found.start()]))
        last = found.end()
        key, flags, kind = found.groups()
        if kind == "%":
            result.append("%")
            continue
        conversion = "r" if kind == "r" else ""
        if (key and mapping is not None) or key:
            result.append(placeholder(key, conversion))
        elif index < len(values):
            value = values[index]
            written = text_of(value, names) if kind == "s" and not flags else None
            result.append(written or placeholder(names.name(value), conversion))
            index += 1
        else:
            result.append(placeholder("value", conversion))
    result.append(escape_literal(text[last:]))
    return "".join(result)


def format_template(text: str, call: ast.Call, names: _Names) -> str | None:
    """`"…{}…{name}…".format(a, name=b)`: fields become placeholders named after the arguments."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    result = []
    auto = 0
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return None
    for literal, field_name, spec, conversion in fields:
        result.append(escape_literal(literal))
        if field_name is None:
            continue
        root = re.split(r"[.\[]", field_name, maxsplit=1)[0]
        argument: ast.expr | None = None
        if root == "" or root.isdigit():
            position = auto if root == "" else int(root)
            auto += root == ""
            argument = call.args[position] if position < len(call.args) else None
            spread = [(n, a) for n, a in enumerate(call.args) if isinstance(a, ast.Starred)]
            if spread and spread[0][0] <= position:  # `.format(*parts)`: one of them, `{parts_1}`
                start, parts = spread[0]
                name = f"{names.name(parts.value)}_{position - start}"
                result.append(placeholder(name, conversion or "", spec or ""))
                continue
        else:
            argument = keywords.get(root)
        # A keyword field keeps the name its author gave it; a positional one is named by its value,
        # or by what the field reads of it (`{0.status_code}`, `{0[location]}`).
        positional = root == "" or root.isdigit()
        written = None
        if argument is not None and field_name == root and conversion in (None, "s") and not spec:
            written = text_of(argument, names)
        if written is not None:  # `.format(why="too long")`: the text is the message's own
            result.append(written)
            continue
        if positional and argument is not None:
            part = re.split(r"[.\[\]]", field_name)[-2 if field_name.endswith("]") else -1]
            read = part if field_name != root and part.isidentifier() else ""
            name = read or names.name(argument)
        else:
            name = root or "value"
        result.append(placeholder(name, conversion or "", spec or ""))
    return "".join(result)


def text_of(argument: ast.expr, names: _Names) -> str | None:
    """The template of an argument a `%` or `.format()` fills in as it is, when it is
    written as text (a literal, an f-string): its text is the message's own."""
    if isinstance(argument, ast.JoinedStr) or literal_text(argument) is not None:
        return template_of(argument, names)
    return None


def choices(message: ast.expr) -> list[tuple[ast.expr, list[Condition]]]:
    """The messages a choice is, each with what holds when it is the one: `"…" if test else
    "…"` (the test, or its negation), `given or "…"` (`not given` for what follows it), or a
    `%` or `.format()` of a template that is one (`("… {arg}" if as_pypath else "…
    {arg}").format(arg=arg)`); [] for any other message."""
    if isinstance(message, ast.IfExp):
        return [(message.body, holds(message.test)), (message.orelse, holds(negated(message.test)))]
    if isinstance(message, ast.BoolOp) and isinstance(message.op, ast.Or):
        return [
            (value, [c for given in message.values[:n] for c in holds(negated(given))])
            for n, value in enumerate(message.values)
        ]
    held = filled_template(message)
    found = []
    for choice, conditions in choices(held) if held is not None else []:
        branch = copy.copy(message)
        if isinstance(branch, ast.BinOp):
            branch.left = choice
        elif isinstance(branch, ast.Call) and isinstance(branch.func, ast.Attribute):
            branch.func = copy.copy(branch.func)
            branch.func.value = choice
        found.append((branch, conditions))
    return found


def exception_name(node: ast.expr) -> str | None:
    """The class a raise raises: `X(…)`, `mod.X(…)`, or `X.factory(…)` (a class's own
    constructor method, as `ValidationError.from_exception_data(…)`). A class is named in
    CapWords (PEP 8): a lower-case callable (`error(…)`, `pytest.skip(…)`) is no class."""
    target = node.func if isinstance(node, ast.Call) else node
    name = last_name(target)
    if name is not None and is_class_name(name):
        return name
    if isinstance(node, ast.Call) and isinstance(target, ast.Attribute):
        owner = last_name(target.value)
        if owner is not None and is_class_name(owner):
            return owner
    return None


def parameter_default(function: ast.AST, parameter: str) -> ast.expr | None:
    """What a parameter of a function defaults to, if it is one and has a default."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaulted = positional[len(positional) - len(arguments.defaults) :]
    defaults = [
        *zip(defaulted, arguments.defaults, strict=True),
        *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
    ]
    return next((d for a, d in defaults if a.arg == parameter and d is not None), None)


def class_default(function: ast.FunctionDef | ast.AsyncFunctionDef, parameter: str) -> str | None:
    """The class a parameter defaults to (`exc: type[E] = TemplateSyntaxError`), if it does."""
    default = parameter_default(function, parameter)
    name = last_name(default) if default is not None else None
    return name if name is not None and is_class_name(name) else None


def written_annotation(annotation: ast.expr) -> ast.expr:
    """An annotation as code: one written as a string (`parser: "Parser"`) parsed, not run."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return annotation
    return annotation


def class_named(argument: ast.expr) -> str:
    """The class an argument names (`TemplateAssertionError`, `errors.Bad`), or ""."""
    name = last_name(argument)
    return name if name is not None and is_class_name(name) else ""


def whole_values(message: ast.expr) -> list[tuple[ast.expr, bool]]:
    """What a message can be as a whole, each with whether it is formatted: each side of
    `a if c else b` and of `a or b`, and the text of a `.format()` (`fmt` of
    `fmt.format(**args)`), which the caller wrote."""
    if isinstance(message, ast.IfExp):
        return whole_values(message.body) + whole_values(message.orelse)
    if isinstance(message, ast.BoolOp) and isinstance(message.op, ast.Or):
        return [v for value in message.values for v in whole_values(value)]
    if (
        isinstance(message, ast.Call)
        and isinstance(message.func, ast.Attribute)
        and message.func.attr == "format"
    ):
        return [(message.func.value, True)]
    return [(message, False)]


def instance_class(argument: ast.expr) -> str:
    """The class of an exception or warning an argument makes (`PytestConfigWarning(f"…")`),
    or ""."""
    made = exception_name(argument) if isinstance(argument, ast.Call) else None
    return made if made is not None and made.endswith(EXCEPTION_SUFFIXES) else ""


def is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def stated(value: ast.expr | None) -> ast.expr | None:
    """A value given, unless it is an empty text or None, which say nothing."""
    return None if value is None or (isinstance(value, ast.Constant) and not value.value) else value


def last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def receiver_name(function: ast.expr) -> str:
    """The name a method is called on (`parser` of `parser.fail(…)`, `node` of
    `request.node.warn(…)`), if it is one."""
    if isinstance(function, ast.Attribute):
        return last_name(function.value) or ""
    return ""


CAP_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")


def named_after(class_name: str, receiver: str) -> bool:
    """Whether a variable's name is its class's last words (`reader` and `template_reader` of
    `_TemplateReader`), as code names a parameter it does not annotate."""
    words = [w.lower() for w in CAP_WORD_RE.findall(class_name)]
    named = receiver.lower().split("_")
    return all(named) and words[-len(named) :] == named


def classes_named_after(receiver: str) -> list[str]:
    """The class names a variable's name can be named after, longest first: its last words
    (`MarkerNode`, `Node` for `marker_node`)."""
    words = [w.capitalize() for w in receiver.strip("_").split("_") if w]
    return ["".join(words[start:]) for start in range(len(words))]


def looked_up(name: str, owner: str, receiver: str) -> set[str]:
    """The names the library resolves a call with: what it calls, the class of its receiver,
    and the classes its receiver's name may be named after."""
    return {n for n in (name, owner, *classes_named_after(receiver)) if n}


def is_class_name(name: str) -> bool:
    return name.lstrip("_")[:1].isupper()


def local_assignments(scope: ast.AST) -> dict[str, list[ast.stmt]]:
    """Each name's binding statements directly in a function (or module) body, nested
    functions and classes left out, and each `self.name = …` as `self.name`'s: what a raise
    of a variable (or of an attribute the method sets) can follow."""
    found: dict[str, list[ast.stmt]] = {}
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        found.setdefault(name.id, []).append(node)  # not `exc.__cause__ = e`
                    elif isinstance(name, ast.Attribute) and dotted(name.value) == "self":
                        found.setdefault(f"self.{name.attr}", []).append(node)
        elif isinstance(node, ast.NamedExpr):
            found.setdefault(node.target.id, []).append(node)  # type: ignore[arg-type]
        pending.extend(ast.iter_child_nodes(node))
    return found


def assigned_messages(
    name: ast.Name,
    scope: dict[str, list[ast.stmt]],
    raised: ast.stmt,
    on_path: set[tuple[int, int]],
    where: dict[int, Branch],
) -> list[tuple[ast.expr, list[Condition]]]:
    """The messages a plain variable can hold at the statement `raised`, each with what holds
    where it was assigned that need not where the variable is raised, from its assignments
    before it in order. An assignment on the way to the raise (`on_path`: in a body that
    holds it) replaces what the variable held; one in a branch off it adds a value;
    `msg = msg + "…"` and `msg += "…"` join onto each value that can reach them (not one
    set in the other branch of an `if`: `where` says which branches each statement is in;
    nor one from before an assignment that always runs before them, in a body that holds
    them: `"  For: …"` appended in a loop, then `"    …"` in a loop inside it). None when a
    binding of the name in its function that can reach the raise is anything else (a loop,
    a tuple)."""
    # each with the branches it needs, the line it was first set on, and the assignments
    # it went through
    values: list[tuple[ast.expr, tuple[Branch, ...], int, tuple[int, ...]]] = []
    done: list[ast.stmt] = []
    there = where.get(id(raised), ())
    for statement in sorted(scope.get(name.id, []), key=lambda statement: statement.lineno):
        value = assigned_value(statement, name.id)
        if value is not None and same_text(value, name.id):
            continue  # `errmsg = errmsg.decode("utf-8")` (Python 2): the text it held
        if value is None and exclusive(where.get(id(statement), ()), there):
            continue  # `for error in …` in the other branch of the `if`
        if value is None:
            return []
        if statement.lineno >= raised.lineno:
            continue
        here = where.get(id(statement), ())
        if any(dotted(n) == name.id for n in ast.walk(value) if isinstance(n, ast.expr)):
            before = [t for t in done if here[: len(where.get(id(t), ()))] == where.get(id(t))]
            made = [
                (substituted(value, name.id, held), (*needs, here), start, (*went, id(statement)))
                for held, needs, start, went in values
                if not any(exclusive(need, here) for need in needs)
                and all(id(t) in went or start > t.lineno for t in before)
            ]
            if not made:
                return []  # joined onto a value from elsewhere (a parameter)
        else:
            made = [(value, (here,), statement.lineno, (id(statement),))]
        done.append(statement)
        values = made if statement_span(statement) in on_path else values + made
        if len(values) > MAX_MESSAGES:
            return []
    # An `if` on the way whose every branch sets the name (or leaves): what it held before
    # does not reach the raise unless it went through one of them (`msg += "…"` in both).
    passed = {node for statement in scope[name.id] for node, _ in where.get(id(statement), ())}
    settled = [
        node
        for node in passed
        if isinstance(node, ast.If)
        and statement_span(node) in on_path
        and (node.end_lineno or node.lineno) < raised.lineno
        and always_sets(node, name.id)
    ]
    return [
        (held, off_the_way(needs, there))
        for held, needs, start, _ in values
        if not any(exclusive(n, there) or left_behind(n, there) for n in needs)
        and all(start > node.lineno or any(node in dict(n) for n in needs) for node in settled)
    ]


def left_behind(branch: Branch, there: Branch) -> bool:
    """Whether a value set in these bodies cannot reach the raise: one of them, not one the
    raise is in, is a branch of an `if` (or a `match`) that ends by returning or raising."""
    return any(
        (node, index) not in there
        and isinstance(node, (ast.If, ast.Match))
        and isinstance(inner_bodies(node)[index][-1], (ast.Return, ast.Raise))
        for node, index in branch
    )


def always_sets(statement: ast.stmt, name: str) -> bool:
    """Whether every run through a statement that goes on after it sets the name: an
    assignment, or an `if` with an `else` whose every branch does (or returns, raises)."""
    if isinstance(statement, ast.If):
        bodies = (statement.body, statement.orelse) if statement.orelse else ()
        return bool(bodies) and all(
            isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))
            or any(always_sets(inner, name) for inner in body)
            for body in bodies
        )
    return assigned_value(statement, name) is not None


def off_the_way(needs: tuple[Branch, ...], there: Branch) -> list[Condition]:
    """What holds in the branches (of an `if` or a `match`) a value was assigned in, those of
    the raise left out: `msg += " and more"` under `if verbose:` holds when `verbose`. (A loop
    or an `except` it was assigned in is not where it is raised.)"""
    found: dict[str, Condition] = {}
    for branch in needs:
        for node, index in branch:
            if (node, index) in there or not isinstance(node, (ast.If, ast.Match)):
                continue
            body = inner_bodies(node)[index]
            held = next((c for b, c in body_conditions(node) if b is body), [])
            found.update((condition_text(c), c) for c in held)
    return list(found.values())


Branch = tuple[tuple[ast.stmt, int], ...]  # the bodies a statement is in: (statement, which body)


def branches(scope: ast.AST) -> dict[int, Branch]:
    """Where each statement of a function (or module) is: the bodies of the compound
    statements it is inside, outermost first (nested functions and classes left out)."""
    found: dict[int, Branch] = {}
    pending: list[tuple[list[ast.stmt], Branch]] = [(getattr(scope, "body", []), ())]
    while pending:
        statements, path = pending.pop()
        for node in statements:
            found[id(node)] = path
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                pending += [(body, (*path, (node, i))) for i, body in enumerate(inner_bodies(node))]
    return found


def exclusive(a: Branch, b: Branch) -> bool:
    """Whether no run passes through both places: they are in different branches of one `if`
    (or `match`)."""
    for (node, body), (other, other_body) in zip(a, b, strict=False):
        if node is not other:
            return False  # one after the other in the same body
        if body != other_body:
            return isinstance(node, (ast.If, ast.Match))
    return False


MAX_MESSAGES = 16  # more possible messages for one raise than a scan should make drafts of


def assigned_value(statement: ast.stmt, name: str) -> ast.expr | None:
    """What a plain binding `name = …` (or `name += …`, or `name.append(…)` of a list) gives
    the name; None for any other."""
    if isinstance(statement, ast.Expr) and (added := added_items(statement, name)) is not None:
        return ast.BinOp(ast.Name(name, ast.Load()), ast.Add(), ast.List(added, ast.Load()))
    if isinstance(statement, ast.AugAssign):
        if isinstance(statement.op, ast.Add) and dotted(statement.target) == name:
            return ast.BinOp(ast.Name(name, ast.Load()), ast.Add(), statement.value)
        return None
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return statement.value if len(targets) == 1 and dotted(targets[0]) == name else None


def joined_list(message: ast.expr) -> tuple[ast.expr, ast.Name] | None:
    """The literal separator and the variable a message joins with it (`"\\n".join(lines)`),
    if it is that."""
    if (
        isinstance(message, ast.Call)
        and isinstance(message.func, ast.Attribute)
        and message.func.attr == "join"
        and literal_text(message.func.value) is not None
        and len(message.args) == 1
        and not message.keywords
        and isinstance(message.args[0], ast.Name)
    ):
        return message.func.value, message.args[0]
    return None


def added_items(statement: ast.Expr, name: str) -> list[ast.expr] | None:
    """What `name.append(x)` or `name.extend([x, y])` adds to a list; None for any other
    statement."""
    call = statement.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == name
        and len(call.args) == 1
        and not call.keywords
    ):
        return None
    [item] = call.args
    if call.func.attr == "append" and not isinstance(item, ast.Starred):  # one of LIST_ADDITIONS
        return [item]
    if call.func.attr == "extend" and isinstance(item, (ast.List, ast.Tuple)):
        return None if any(isinstance(e, ast.Starred) for e in item.elts) else list(item.elts)
    return None


LIST_ADDITIONS = frozenset({"append", "extend"})


def only_built(scope: ast.AST, name: str) -> bool:
    """Whether a function only assigns a list to the name, adds to it, joins it and tests it
    (`if errors:`, `len(errors)`): nothing else it does could change what it holds (a call
    it is handed to, `insert`, `pop`, an item set)."""
    if bound_otherwise(scope, name):
        return False
    parents = {id(child): node for node in own_nodes(scope) for child in ast.iter_child_nodes(node)}
    for node in own_nodes(scope):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        added = isinstance(parent, ast.Attribute) and parent.attr in LIST_ADDITIONS
        call = parent if isinstance(parent, ast.Call) else None
        joined = call is not None and joined_list(call) is not None and call.args[0] is node
        measured = isinstance(parent, ast.Call) and last_name(parent.func) == "len"
        tested = isinstance(parent, (ast.If, ast.While, ast.UnaryOp, ast.BoolOp, ast.Compare))
        if not (added or joined or measured or tested):
            return False
    return True


def list_additions(scope: ast.AST, name: str) -> list[ast.stmt]:
    """The statements of a function (nested functions and classes left out) that add to the
    list `name` holds: `name.append(…)`, `name.extend([…])`."""
    return [
        statement
        for statement in own_nodes(scope)
        if isinstance(statement, ast.Expr) and added_items(statement, name) is not None
    ]


def joined_items(value: ast.expr, separator: ast.expr) -> ast.expr | None:
    """The text a list's items make joined with the separator, as one expression (`a + sep +
    b`); None when the value is not a list of known items (`[a] + [b]` is one)."""
    items = list_items(value)
    if items is None or len(items) > MAX_JOINED:
        return None
    if not items:
        return ast.Constant("")
    text = items[0]
    for item in items[1:]:
        joint = ast.BinOp(text, ast.Add(), copy.deepcopy(separator))
        text = ast.BinOp(joint, ast.Add(), item)
    return text


# More items than a message is made of (a table of lines): the list is not read, and the
# file stays readable (each item one level deeper in the expression a template is read from)
MAX_JOINED = 64


def list_items(value: ast.expr) -> list[ast.expr] | None:
    """The items a list expression holds (`[a] + [b]`: a, b); None for any other."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return None if any(isinstance(e, ast.Starred) for e in value.elts) else list(value.elts)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        left, right = list_items(value.left), list_items(value.right)
        return None if left is None or right is None else left + right
    return None


TEXT_KEEPING = frozenset({"decode", "str", "unicode", "text_type"})  # as Python 2 code did


def same_text(value: ast.expr, name: str) -> bool:
    """Whether a value is the text a variable holds, as text: `name.decode("utf-8")`,
    `unicode(name)`, `six.text_type(name)`."""
    if not isinstance(value, ast.Call) or last_name(value.func) not in TEXT_KEEPING:
        return False
    decoded = isinstance(value.func, ast.Attribute) and value.func.attr == "decode"
    held = [value.func.value] if isinstance(value.func, ast.Attribute) and decoded else value.args
    return len(held) == 1 and isinstance(held[0], ast.Name) and held[0].id == name


def has_text(message: ast.JoinedStr) -> bool:
    """Whether an f-string has text of its own, beside what it fills in."""
    return any(
        isinstance(part, ast.Constant) and any(c.isalnum() for c in str(part.value))
        for part in message.values
    )


def is_sentence(text: ast.expr) -> bool:
    """Whether a text reads as a sentence of its own: five words or more."""
    return len((template_of(text, _Names()) or "").split()) >= 5


def text_forms(value: ast.expr) -> list[tuple[ast.expr | None, list[Condition]]]:
    """The texts a value can be when it is written as text (a literal, an f-string, one of
    two of those), each with what holds when it is the one; None among them for a value
    that is not."""
    if isinstance(value, ast.IfExp):
        return [
            (form, [*chosen, *more])
            for branch, chosen in choices(value)
            for form, more in text_forms(branch)
        ]
    if isinstance(value, ast.JoinedStr) or literal_text(value) is not None:
        return [(value, [])]
    return [(None, [])]


def filled_template(message: ast.expr) -> ast.expr | None:
    """The template a message fills in (`err` of `err % args`, `err.format(…)`), if it is
    one that does."""
    if isinstance(message, ast.BinOp) and isinstance(message.op, ast.Mod):
        return message.left
    if (
        isinstance(message, ast.Call)
        and isinstance(message.func, ast.Attribute)
        and message.func.attr in ("format", "format_map")
    ):
        return message.func.value
    return None


def template_holder(message: ast.expr) -> ast.expr:
    """What holds the text a message is, or fills in (`err % args`, `err.format(…)`),
    stripped or not (`E_REDIS_MISSING.strip()`)."""
    held = filled_template(message) or message
    strip = stripped(held)
    return strip[0] if strip else held


def template_variable(message: ast.expr) -> ast.Name | None:
    """The variable a message is, or whose text it fills in."""
    held = template_holder(message)
    return held if isinstance(held, ast.Name) else None


def template_attribute(message: ast.expr) -> tuple[str, str] | None:
    """The name and the attribute of it that a message is, or whose text it fills in
    (`self.error_envvar_not_set % module_name`, `MultiDBClient._HIMPORT_UNSUPPORTED`)."""
    held = template_holder(message)
    if isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name):
        return held.value.id, held.attr
    return None


def substituted(expression: ast.expr, name: str, value: ast.expr) -> ast.expr:
    """The expression with `value` where it reads the variable `name`, or the attribute
    `self.name` when name is that (a copy)."""

    def reading(node: ast.AST) -> ast.expr | None:
        if isinstance(node, ast.Name) and node.id == name:
            return copy.deepcopy(value)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return copy.deepcopy(value) if f"{node.value.id}.{node.attr}" == name else None
        return None

    return replaced(copy.deepcopy(expression), reading)


def inner_bodies(node: ast.stmt) -> list[list[ast.stmt]]:
    """The bodies a compound statement holds, in source order (none for a simple one)."""
    bodies: list[list[ast.stmt]] = [getattr(node, "body", [])]
    bodies += [handler.body for handler in getattr(node, "handlers", [])]
    bodies += [getattr(node, "orelse", []), getattr(node, "finalbody", [])]
    bodies += [case.body for case in getattr(node, "cases", [])]
    return [body for body in bodies if body and isinstance(body[0], ast.stmt)]


def statement_span(node: ast.stmt) -> tuple[int, int]:
    """First and last line of a statement, decorators included."""
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno] + [d.lineno for d in decorators])
    return start, node.end_lineno or node.lineno


# The standard library's exception classes not named in CapWords, by module: Python 2-era
# code raises them (`raise socket.timeout("The read operation timed out")`).
LOWER_CASE_EXCEPTIONS = {
    "socket": frozenset({"error", "timeout", "gaierror", "herror"}),
    **dict.fromkeys(("os", "select", "re", "struct", "zlib", "getopt"), frozenset({"error"})),
}
WARN_FUNCTIONS = frozenset({"warn", "warn_explicit"})  # of `warnings`: message, then category
DEPRECATED_FROM = frozenset({"warnings", "typing_extensions"})  # PEP 702's `@deprecated("…")`
# The Deprecated package's `@deprecated` (`@deprecated("…", version="1.2")`, or bare), which
# words its warning itself: "Call to deprecated method old. (reason) -- Deprecated since
# version 1.2."; its sphinx flavour takes the version second and drops `:role:` markup.
DEPRECATED_PACKAGE = frozenset({"deprecated", "deprecated.classic", "deprecated.sphinx"})
SPHINX_ROLE_RE = re.compile(r"(?::[a-zA-Z]+)?:[a-zA-Z]+:(`[^`]*`)")
# What the package calls a function of a class body that another decorator makes unbound:
# by that decorator (a property's getter and setter are called unbound too).
UNBOUND_KINDS = {"classmethod": "class method", "staticmethod": "function (or staticmethod)"}
UNBOUND_CALLERS = frozenset({"property", "cached_property", "setter", "getter", "deleter"})
TEXT_METHODS = ("__str__", "__unicode__")  # what `str(exc)` returns (Python 2: the second)
EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning")  # how exception classes are named

SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # what `RaiseSite.scope` names
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
Scope = FunctionNode | ast.ClassDef


class _Scanner:
    """Walks the statements only (a raise or an assert is never inside an expression)."""

    def __init__(self, settings: ScanSettings, module: ast.Module) -> None:
        self.settings = settings
        self.module = module
        self.sites: list[RaiseSite] = []
        self.skipped: list[Skipped] = []
        self.bodies: list[Span] = []  # the bodies the walk is in, outermost first
        self.functions: list[tuple[int, int]] = []
        self.names: list[str] = []  # the classes and functions the walk is in
        self.conditions: list[Condition] = []  # what holds where the walk is, in its function
        self.scope: ast.AST = module  # the function (or module) of the raise at hand
        # Per function (or module): each name's bindings, and where each statement is.
        self.scopes: dict[int, tuple[dict[str, list[ast.stmt]], dict[int, Branch]]] = {}
        self.within: list[Scope] = []  # the classes and functions the walk is in
        self.pending: list[Pending] = []
        self.classes: list[ExceptionClass] = []
        self.helpers: list[Helper] = []
        self.makers: list[MessageMaker] = []
        self.built: dict[int, list[str]] = {}  # the messages each class builds, by id
        self.imported: dict[str, str] = {}  # name -> the module `from … import` took it from
        self.renamed: dict[str, str] = {}  # name -> the name it was imported as (`import … as`)
        # The names that mark a message for translation, those imported under another name
        # (`from flask_babel import lazy_gettext as _l`) too.
        self.translations = settings.translations
        self.modules: set[str] = set()  # the names `import …` binds (`_pytest` of `_pytest.x`)
        self.defined = definitions(module)
        self.made_by: dict[int, str] = {}  # by statement: the function that made its message
        # by function: its own raises, each with what holds where it is, within it
        self.raised_in: dict[int, list[tuple[ast.Raise, tuple[Condition, ...]]]] = {}

    def scan(self, statements: list[ast.stmt], scope: ast.AST) -> None:
        self.bodies.append(tuple(map(statement_span, statements)))
        guarded = len(self.conditions)
        for node in statements:
            if isinstance(node, ast.Raise):
                self.scope = scope
                if self.functions:
                    raised = (node, tuple(self.conditions))
                    self.raised_in.setdefault(id(self.within[-1]), []).append(raised)
                self.visit_raise(node)
            elif isinstance(node, ast.Assert):
                self.scope = scope
                self.visit_assert(node)
            elif isinstance(node, (ast.Expr, ast.Return, ast.Assign)):
                self.scope = scope
                self.visit_statement(node)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                self.scope = scope
                for item in node.items:
                    if isinstance(item.context_expr, ast.Call):
                        self.visit_call(node, item.context_expr, "with")
            elif isinstance(node, ast.ImportFrom):
                origin = "." * node.level + (node.module or "")
                self.imported.update((a.asname or a.name, origin) for a in node.names)
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.renamed.update((a.asname, a.name) for a in node.names if a.asname)
                self.translations |= {
                    a.asname for a in node.names if a.asname and a.name in self.translations
                }
            if isinstance(node, ast.Import):
                self.modules.update(a.asname or a.name.split(".")[0] for a in node.names)
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and not self.within:
                self.visit_constant(node)
            function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            within = node if isinstance(node, SCOPE_NODES) else None
            name = within.name if within is not None else None
            if function:
                self.functions.append(statement_span(node))
            if within is not None:
                self.names.append(within.name)
                self.within.append(within)
                self.scope = scope
                decorators = within.decorator_list
                stub = any(last_name(d) == "overload" for d in decorators)  # for type checkers
                for decorator in [] if stub else decorators:
                    self.visit_decorator(within, decorator)
            outside, self.conditions = self.conditions, [] if name is not None else self.conditions
            for body, holding in body_conditions(node):
                if not body:
                    continue
                self.conditions += holding
                self.scan(body, node if function else scope)
                del self.conditions[len(self.conditions) - len(holding) :]
            self.conditions = outside
            if function:
                self.functions.pop()
            if name is not None:
                self.names.pop()
                self.within.pop()
            if isinstance(node, ast.ClassDef):
                self.visit_class(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.visit_function(node)
            self.conditions += after_guard(node)
        del self.conditions[guarded:]
        self.bodies.pop()

    def bindings(self, scope: ast.AST) -> tuple[dict[str, list[ast.stmt]], dict[int, Branch]]:
        if id(scope) not in self.scopes:
            self.scopes[id(scope)] = local_assignments(scope), branches(scope)
        return self.scopes[id(scope)]

    def messages_of(
        self, message: ast.expr, raised: ast.stmt, seen: frozenset[str] = frozenset()
    ) -> list[tuple[ast.expr, list[Condition]]]:
        """The message expression, or, where a plain variable holds it or its template
        (`msg`, `err % args`, `err.format(…)`), each value the variable was assigned: in its
        function, or, for a name the function neither binds nor is given, in the module
        (`MESSAGE = "…"`); an f-string with no words of its own, its variables that hold
        only text filled in; each of `given or msg` and of `msg if … else other`, with what
        holds when it is the one; a value that is such a choice, or a class's attribute
        (`message = self.message_min if … else self.message_all`), read on in turn; for a
        name an enclosing function binds, what it holds there (`closed_over`); for
        `self.name`, what the method sets it to before the raise (WTForms 1.0's `if
        self.message is None: self.message = field.gettext(…)`), else what the class or its
        `__init__` does (`class_attribute`)."""
        if split := choices(message):
            return [
                (m, [*chosen, *more])
                for value, chosen in split
                for m, more in self.messages_of(value, raised, seen)
            ]
        if (joined := joined_list(message)) is not None:
            return self.joined_messages(message, *joined, raised)
        scope = self.scope
        attribute = template_attribute(message)
        if attribute is not None:
            held = ast.Name(".".join(attribute))  # `self.name`, as the method sets it
            found = []
            if attribute[0] == "self":
                assignments, where = self.bindings(scope)
                if held.id in assignments:
                    found = assigned_messages(held, assignments, raised, self.on_path(), where)
            if not found:
                values = self.class_attribute(*attribute)
                found = [(substituted(message, held.id, v), c) for v, c in values]
                return found or self.filled_in(message, raised)
        else:
            variable = template_variable(message)
            if variable is None:
                return self.filled_in(message, raised)
            held = variable
            assignments, where = self.bindings(scope)
            if held.id not in assignments:
                if not is_parameter(scope, held.id) and (closed := self.closed_over(held)):
                    return [(substituted(message, held.id, value), c) for value, c in closed]
                held_values = [] if is_parameter(scope, held.id) else self.constants(held.id)
                found = [(substituted(message, held.id, value), c) for value, c in held_values]
                return found or [(message, [])]
            found = assigned_messages(held, assignments, raised, self.on_path(), where)
            found = found or [(held, [])]
        read: list[tuple[ast.expr, list[Condition]]] = []
        for value, assigned in found:
            message_read = substituted(message, held.id, value)
            if held.id not in seen and (choices(value) or template_attribute(value)):
                further = self.messages_of(message_read, raised, seen | {held.id})
                read += [(m, [*assigned, *more]) for m, more in further]
            else:
                filled = self.filled_in(message_read, raised)
                read += [(m, [*assigned, *chosen]) for m, chosen in filled]
        return read

    def closed_over(self, held: ast.Name) -> list[tuple[ast.expr, list[Condition]]]:
        """The texts a name holds that the function reads from the nearest enclosing function
        that binds it, as it is there when the function is defined (WTForms 0.1's `if not
        message: message = u'Field must be between %i and %i characters long.' % (min,
        max)`, then `def _length(form, field): … raise ValidationError(message)`), a
        parameter's default among them where that is text with words apart (`def
        required(message=u'This field is required.')`); [] where no function encloses it."""
        functions = [w for w in self.within if not isinstance(w, ast.ClassDef)]
        for outer, inner in reversed(list(itertools.pairwise(functions))):
            bound = self.bindings(outer)
            if is_parameter(outer, held.id) or held.id in bound[0]:
                return texts_where_none_given(outer, bound, held, inner, self.on_path())
        return []

    def joined_messages(
        self, message: ast.expr, separator: ast.expr, listed: ast.Name, raised: ast.stmt
    ) -> list[tuple[ast.expr, list[Condition]]]:
        """The texts a list the function builds can be joined into (`msg = [f"unknown
        command {name!r}"]`, `if guess: msg.append(f"maybe you meant {guess!r}")`, then
        `" - ".join(msg)`), as its `+=` would make them; the message itself when the list is
        anything else (given, or made by a comprehension)."""
        assignments, where = self.bindings(self.scope)
        if listed.id not in assignments or not only_built(self.scope, listed.id):
            return [(message, [])]
        built = {listed.id: [*assignments[listed.id], *list_additions(self.scope, listed.id)]}
        found = assigned_messages(listed, built, raised, self.on_path(), where)
        joined = [(joined_items(value, separator), held) for value, held in found]
        if not joined or any(text is None for text, _ in joined):
            return [(message, [])]
        return [(text, held) for text, held in joined if text is not None]

    def filled_in(
        self, message: ast.expr, raised: ast.stmt
    ) -> list[tuple[ast.expr, list[Condition]]]:
        """An f-string message with the text of each variable its function only ever
        assigns text: `message = "is too short" if … else "should be non-empty"`, then
        `f"{instance!r} {message}"` is two messages. Where the message has words of its
        own, only a variable that is only ever a sentence is (click's `hint = "It is not
        possible to add multi commands as children to …"`, then `f"{hint}. Command …"`);
        any other stays a placeholder: one record for `argument{plural}`, not one per
        count."""
        if not isinstance(message, ast.JoinedStr):
            return [(message, [])]
        worded = has_text(message)
        found: list[tuple[ast.expr, list[Condition]]] = [(message, [])]
        scope = self.scope
        assignments, where = self.bindings(scope)
        path = self.on_path()
        for value in message.values:
            if not isinstance(value, ast.FormattedValue) or not isinstance(value.value, ast.Name):
                continue
            name = value.value.id
            if value.conversion not in (-1, ord("s")) or value.format_spec is not None:
                continue
            if name not in assignments or is_parameter(scope, name) or bound_otherwise(scope, name):
                continue
            held = assigned_messages(value.value, assignments, raised, path, where)
            forms = [
                (form, [*assigned, *chosen])
                for expression, assigned in held
                for form, chosen in text_forms(expression)
            ]
            texts = [(form, chosen) for form, chosen in forms if form is not None]
            if not texts or len(texts) < len(forms) or len(found) * len(texts) > MAX_MESSAGES:
                continue
            if worded and not all(is_sentence(text) for text, _ in texts):
                continue
            found = [
                (substituted(m, name, text), [*held_here, *chosen])
                for m, held_here in found
                for text, chosen in texts
            ]
        return found

    def on_path(self) -> set[tuple[int, int]]:
        """The statements of the bodies the walk is in: those on the way to where it is."""
        return {span for body in self.bodies for span in body}

    def constants(self, name: str) -> list[tuple[ast.expr, list[Condition]]]:
        """The values a name the module binds plainly holds once the module has run, each with
        what holds when it does: `MESSAGE = "…"`, and with `if PY3: MESSAGE += "…"` after it
        two values, the second when `PY3`; [] for a name bound otherwise, or that a function
        assigns (`global NAME`)."""
        assignments, where = self.bindings(self.module)
        if name not in assignments or name in self.defined.assigned_globals:
            return []
        run = ast.Pass(lineno=sys.maxsize)  # a statement after the module's last one
        return assigned_messages(ast.Name(name), assignments, run, self.top_level, where)

    def class_attribute(self, receiver: str, name: str) -> list[tuple[ast.expr, list[Condition]]]:
        """The values `self.name` holds in a method of the class: what the class (or its
        nearest base here) binds the name to in its body, then what each subclass here binds
        it to instead (Rich's `IntPrompt.validate_error_message`); or, for a name only an
        `__init__` sets on the instance, what those of its classes set it to
        (`instance_values`); of `Class.name`, a class of the module, what it or its nearest
        base binds; each a module constant read as the module holds it
        (`error_envvar_not_set = ERROR_ENVVAR_NOT_SET`). Nothing for a name the module sets
        on an instance otherwise (`self.message = …` in another method), nor in the
        `__init__` or `__str__` of a class that builds its message
        (`self.msg_template.format(…)`): what it builds from is read with the class
        (`ExceptionClass.templates`), each subclass's its own."""
        instance = receiver in ("self", "cls")
        owner = self.walks_class() if instance else receiver
        if owner not in self.defined.bases or self.building() is not None:
            return []
        if name in self.instance_attributes:
            set_in = self.set_in_init.get(name)
            return (
                self.instance_values(owner, name, set_in) if receiver == "self" and set_in else []
            )
        return self.bound_values(owner, name, instance)

    def bound_values(
        self, owner: str, name: str, instance: bool
    ) -> list[tuple[ast.expr, list[Condition]]]:
        """What a class (or its nearest base here) binds a name of its body to, then, read
        through an instance, what each subclass binds it to instead."""
        attributes = self.defined.attributes
        bound = next(
            ((a, name) for a in self.defined.ancestry(owner) if (a, name) in attributes), None
        )
        overrides = [
            (subclass, name)
            for subclass in self.defined.bases
            if instance
            and subclass != owner
            and owner in self.defined.ancestry(subclass)
            and (subclass, name) in attributes
        ]
        found: list[tuple[ast.expr, list[Condition]]] = []
        for key in ([bound] if bound else []) + overrides:
            value = attributes[key]
            found += self.constants(value.id) if isinstance(value, ast.Name) else [(value, [])]
        return found

    def instance_values(
        self, owner: str, name: str, set_in: list[InitStore]
    ) -> list[tuple[ast.expr, list[Condition]]]:
        """The texts `self.name` can hold in a method of a class when only `__init__`s set
        it: where the `__init__` of the class, of a base or of a subclass sets it to a text
        the caller may give or a default, the default (`InitStore.defaults`: marshmallow's
        `self.error = error or self.default_message`, DRF's `self.message = message or
        self.message`, WTForms 0.6's `message` set where none is given); and what the
        class binds, unless its own `__init__` (or its nearest base's) sets it whatever
        holds. What holds in `__init__` is not said (it is not what holds where the message
        is raised), but a text set only where the raise's own test cannot hold is none
        (`InitStore.opposites`)."""
        lineage = self.defined.ancestry(owner)
        related = {*lineage, *(c for c in self.defined.bases if owner in self.defined.ancestry(c))}
        raised_under = set(map(condition_text, self.conditions))
        found: list[tuple[ast.expr, list[Condition]]] = []
        for store in set_in:
            if store.owner in related:
                for piece, held in store.defaults():
                    if raised_under.isdisjoint(store.opposites(held)):
                        found += self.init_piece(owner, store.init, piece)
        initialised = next((c for c in lineage if (c, "__init__") in self.defined.functions), "")
        if not any(s.owner == initialised and s.always for s in set_in):
            found += self.bound_values(owner, name, instance=True)
        return found

    def init_piece(
        self, owner: str, init: FunctionNode, piece: ast.expr
    ) -> list[tuple[ast.expr, list[Condition]]]:
        """A text an `__init__` can set an attribute to: a class attribute it reads
        (`self.default_message`, as the class binds it) or a module constant, a parameter
        it keeps on the instance as it is read there (`f"… Use '{moved_to}' instead."`,
        with `self.moved_to = moved_to`); [] for what it is given, or makes from what it is
        given otherwise."""
        piece = read_on_instance(piece, kept_on_instance(init))
        attribute = template_attribute(piece)
        if attribute is not None and attribute[0] == "self":
            values = self.bound_values(owner, attribute[1], instance=True)
            return [(substituted(piece, f"self.{attribute[1]}", v), c) for v, c in values]
        names = {n.id for n in ast.walk(piece) if isinstance(n, ast.Name)} - {"self"}
        if names & (set(parameter_names(init)) | set(local_assignments(init))):
            return []
        held = template_variable(piece)
        if held is not None:
            return [(substituted(piece, held.id, v), c) for v, c in self.constants(held.id)]
        return [(piece, [])]

    @functools.cached_property
    def instance_attributes(self) -> collections.Counter[str]:
        """The attribute names the module sets on an object (`self.message = …`), each with
        how many times it does."""
        return collections.Counter(
            node.attr
            for node in ast.walk(self.module)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
        )

    @functools.cached_property
    def set_in_init(self) -> dict[str, list[InitStore]]:
        """The attribute names the module sets on an object only in an `__init__`, each as
        `self.name = …` (once or more), with where each sets it to what."""
        stores = self.instance_attributes
        found: dict[str, list[InitStore]] = {}
        for (owner, name), init in self.defined.functions.items():
            if name != "__init__" or not owner:
                continue
            for node in own_nodes(init):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    target, value = node.target, node.value
                else:
                    continue
                if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
                    store = InitStore(owner, init, node, value, node in init.body)
                    found.setdefault(target.attr, []).append(store)
        return {name: set_in for name, set_in in found.items() if len(set_in) == stores[name]}

    @functools.cached_property
    def top_level(self) -> set[tuple[int, int]]:
        """The module's own statements: the way to the end of the module."""
        return {statement_span(statement) for statement in self.module.body}

    def visit_raise(self, node: ast.Raise) -> None:
        if node.exc is None:
            return
        call = node.exc
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "with_traceback"
            and isinstance(call.func.value, (ast.Call, ast.Name))
        ):
            call = call.func.value  # `raise X(…).with_traceback(tb)` raises X(…)
        if isinstance(call, ast.Name) and (held := self.held_exceptions(call.id, node)):
            for made_class, made in held:
                self.visit_raised(node, made_class, made)
            return
        if not isinstance(call, ast.Call):
            raised = last_name(call) or "an exception"
            reason = f"{raised} raised without a message"
            if is_class_name(raised):  # `raise errors.EmailError from e`: its class may build one
                site = self.site(node, raised, "", self.conditions)
                self.pending.append(
                    Pending(site, raised, "", (), (), reason, self.origin(call), "class")
                )
            else:
                self.skipped.append(Skipped(node.lineno, reason))
            return
        name = exception_name(call) or self.lower_case_class(call.func)
        if name is None:  # what a factory returns, of this module or another
            reason = self.visit_factory(node, call)
            if reason and not self.visit_call(node, call, "raise", reason=reason):
                self.skipped.append(Skipped(node.lineno, reason))
            return
        self.visit_raised(node, name, call)

    def visit_raised(self, node: ast.stmt, name: str, call: ast.Call) -> None:
        """The raise of an exception made at the statement: `name(…)`, or `name.factory(…)`."""
        messages = message_candidates(call, self.settings.arguments.get(name))
        constructed = last_name(call.func) == name  # not `X.factory(…)`
        origin = self.origin(call.func)
        # Where each message was given (its position, or keyword): the class called may
        # build its own message around it, and the library will tell.
        places = {id(a): str(n) for n, a in enumerate(call.args)}
        if len(call.args) > 1 and self.formats_arguments(name):  # `X("… %s", value)`
            filled = ast.BinOp(call.args[0], ast.Mod(), ast.Tuple(call.args[1:], ast.Load()))
            messages, places[id(filled)] = [filled], "0"
        places.update((id(k.value), k.arg) for k in call.keywords if k.arg)
        given = [places.get(id(m), "") for m in messages] if constructed else []
        passed = (
            *(str(n) for n, a in enumerate(call.args) if not self.maybe_none(a)),
            *(k.arg for k in call.keywords if k.arg and not self.maybe_none(k.value)),
        )
        reason = self.add(node, name, messages, self.conditions, given, origin)
        if reason and constructed:  # a function of another module may make its message, or
            # the class build it itself, and the library will tell
            site = self.site(node, name, "", self.conditions)
            made_by = next(filter(None, map(self.made_elsewhere, messages)), "")
            self.pending.append(
                Pending(
                    site, name, "", (), (), reason, origin, "class", made_by=made_by, passed=passed
                )
            )
        elif reason:
            self.skipped.append(Skipped(node.lineno, reason))

    def formats_arguments(self, name: str) -> bool:
        """Whether a class of the module (or its nearest base here with a `__str__`) says its
        first argument filled in by `%` with the others (dateutil's `ParserError`, whose
        `__str__` returns `self.args[0] % self.args[1:]`)."""
        for owner in self.defined.ancestry(name):
            method = self.defined.functions.get((owner, "__str__"))
            if method is not None:
                said = {ast.unparse(value) for value in returned_values(method)}
                return bool(said & FILLED_FROM_ARGUMENTS)
        return False

    def maybe_none(self, argument: ast.expr) -> bool:
        """Whether an argument may give nothing, so that the class's default shows: `None`, or
        a parameter of the function that defaults to None and is never set again
        (`def permission_denied(self, request, message=None): raise
        PermissionDenied(detail=message)`)."""
        if not isinstance(argument, ast.Name):
            return is_none(argument)
        default = parameter_default(self.scope, argument.id)
        assignments, _ = self.bindings(self.scope)
        return default is not None and is_none(default) and argument.id not in assignments

    def exceptions_in(self, value: ast.expr, node: ast.stmt) -> list[tuple[str, ast.Call]]:
        """The exceptions a value handed on is, each with its class: a class called
        (`X("…")`), or a variable that holds one."""
        if isinstance(value, ast.Name):
            return self.held_exceptions(value.id, node)
        if isinstance(value, ast.Call) and (made_class := exception_name(value)):
            return [(made_class, value)]
        return []

    def made_elsewhere(self, message: ast.expr) -> str:
        """The function a message is a call of, when another module of the commit may define
        it: imported from one (`types_msg(…)`), or named through one (`_utils.types_msg(…)`);
        or the constant it is, imported (`CONSOLE_MAIN`) or named through its module
        (`_config.DEPRECATION_MESSAGE`, `_pytest.deprecated.YIELD_FIXTURE`)."""
        if not isinstance(message, ast.Call):
            head = message
            while isinstance(head, ast.Attribute):
                head = head.value
            imported = isinstance(head, ast.Name) and (
                head.id in self.imported or (head.id in self.modules and head is not message)
            )
            return (last_name(message) or "") if imported else ""
        called = message.func
        if isinstance(called, ast.Name) and called.id in self.imported:
            return called.id
        if (
            isinstance(called, ast.Attribute)
            and isinstance(called.value, ast.Name)
            and called.value.id in self.imported
        ):
            return called.attr
        return ""

    def lower_case_class(self, called: ast.expr) -> str | None:
        """The standard library's exception class a lower-case name is, dotted as its module
        names it (`socket.timeout(…)`, or `timeout(…)` imported from `socket`), if it is."""
        if isinstance(called, ast.Attribute) and isinstance(called.value, ast.Name):
            module, name = called.value.id, called.attr
        elif isinstance(called, ast.Name):
            module, name = self.imported.get(called.id, ""), called.id
        else:
            return None
        return f"{module}.{name}" if name in LOWER_CASE_EXCEPTIONS.get(module, ()) else None

    def held_exceptions(self, name: str, raised: ast.stmt) -> list[tuple[str, ast.Call]]:
        """The exceptions a variable can hold where it is raised, each with its class, when
        its function only ever assigns it plainly a class called (`exc = ImportError(…)`, then
        `raise exc`), in the order the code runs, as for a message. None for a name the
        function catches (`except E as exc`) or binds any other way, or is given and does not
        assign again on the way to the raise."""
        scope = self.scope
        assignments, where = self.bindings(scope)
        bound = assignments.get(name, [])
        if not bound or bound_otherwise(scope, name):
            return []
        on_path = self.on_path()
        replaced = any(statement_span(s) in on_path and s.lineno < raised.lineno for s in bound)
        if is_parameter(scope, name) and not replaced:
            return []
        values = assigned_messages(ast.Name(name), assignments, raised, on_path, where)
        held = []
        for value, _ in values:
            made = exception_name(value) if isinstance(value, ast.Call) else None
            if not isinstance(value, ast.Call) or made is None or last_name(value.func) != made:
                return []
            held.append((made, value))
        return held

    def visit_factory(self, node: ast.Raise, call: ast.Call) -> str:
        """A raise of what a function of this module returns (`raise self.not_authenticated()`
        where it returns `HTTPException(401, detail="Not authenticated")`): a raise of each
        class it returns, with the message given as written there (a variable not followed);
        or why it is none."""
        factory = self.module_function(call)
        if factory is None:
            return "not an exception class (a CapWords name)"
        title, function = factory
        reason = f"{title} returns no exception class with a message"
        made = local_assignments(function)
        for returned in returned_values(function):
            if isinstance(returned, ast.Name) and len(made.get(returned.id, [])) == 1:
                returned = assigned_value(made[returned.id][0], returned.id) or returned
            if not isinstance(returned, ast.Call):
                continue
            name = exception_name(returned)
            if name is None or last_name(returned.func) != name:  # a class called, not made
                continue
            messages = message_candidates(returned, self.settings.arguments.get(name))
            # what the call gives a parameter that is the message (packaging's `raise
            # self._invalid_metadata(f"{value!r} is not …")`), or the message as written there
            given = [given_argument(call, function, "." in title, m) for m in messages]
            written = [m for m in given if m is not None]
            self.made_by[id(node)] = title
            if written and not self.add(node, name, written, self.conditions):
                reason = ""
        return reason

    def visit_assert(self, node: ast.Assert) -> None:
        if node.msg is None:
            self.skipped.append(Skipped(node.lineno, "assert without a message"))
            return
        conditions = [*self.conditions, *holds(negated(node.test))]
        reason = self.add(node, "AssertionError", [node.msg], conditions)
        if reason:
            self.skipped.append(Skipped(node.lineno, reason))

    def visit_statement(self, node: ast.Expr | ast.Return | ast.Assign) -> None:
        """A call that may be of a raise helper (`self.fail(_("…"))`), or that raises the
        exception it is given (`fut.set_exception(X("…"))`, `six.raise_from(X("…"), e)`); an
        exception yielded for the caller to raise (`yield ValidationError("…")`); in a
        class's `__init__` or `__str__`, the message it builds."""
        value = node.value
        building = self.building()
        if building is not None:
            self.visit_building(node, building)
        if isinstance(node, ast.Expr) and isinstance(value, ast.Yield) and value.value:
            for made_class, made in self.exceptions_in(value.value, node):
                if made_class.endswith(EXCEPTION_SUFFIXES):  # not `yield Token("(")`
                    self.visit_raised(node, made_class, made)
            return
        top = value if isinstance(value, ast.Call) and not isinstance(node, ast.Assign) else None
        # A helper that raises only under a condition returns a value otherwise: a call of it
        # with a message can be assigned, or called on (`self._only_mapper_zero("…").m(…)`).
        for call in receivers(value):
            if call is not top and last_name(call.func) not in self.translations:
                self.visit_call(node, call, worded=True)
        if top is None:
            return
        value = top
        if self.warns(value):
            self.visit_warn(node, value)
            return
        name = last_name(value.func)
        if name in RAISING_CALLS:
            for argument in value.args:
                for made_class, made in self.exceptions_in(argument, node):
                    self.visit_raised(node, made_class, made)
            return
        self.visit_call(node, value)

    def visit_call(
        self,
        node: ast.stmt,
        call: ast.Call,
        kind: CallKind = "call",
        worded: bool = False,
        reason: str = "",
    ) -> bool:
        """Whether a call may be of a raise helper, with a message among its arguments (one
        that reads as a sentence, when `worded`), or, for a context manager a `with` enters,
        a message or a class, or, for a call whose value is raised, anything (skipped for
        `reason` if the library finds no factory): pending until the library says."""
        name = last_name(call.func)
        if name is None or is_class_name(name) or name.startswith("__"):
            return False
        if not call.args and kind != "raise":
            return False
        if worded and not any(map(spaced_text, [*call.args, *(k.value for k in call.keywords)])):
            return False  # no literal text with words apart: no sentence
        arguments = tuple(self.argument_templates(node, a) for a in call.args)
        keywords = tuple(
            (k.arg, self.argument_templates(node, k.value)) for k in call.keywords if k.arg
        )
        classes = tuple(class_named(a) or instance_class(a) for a in call.args)
        keyword_classes = tuple(
            (k.arg, class_named(k.value) or instance_class(k.value)) for k in call.keywords if k.arg
        )
        given = [*arguments, *(found for _, found in keywords)]
        templates = [[message.template for message in found] for found in given]
        if not any(sentence(found) if worded else found for found in templates) and not (
            kind == "raise" or (kind == "with" and any(classes))
        ):
            return False
        site = self.site(node, "", "", self.conditions)
        if kind == "with":  # the `with` line, not its block
            site = dataclasses.replace(site, end_line=call.end_lineno or call.lineno)
        owner = self.receiver_class(call.func)
        receiver = "" if owner else receiver_name(call.func)
        called_on = ""
        if isinstance(call.func, ast.Attribute):
            on = call.func.value
            called_on = on.id if isinstance(on, ast.Name) else ast.unparse(on)
        self.pending.append(
            Pending(
                site,
                name,
                owner,
                arguments,
                keywords,
                reason,
                "",
                kind,
                classes,
                keyword_classes,
                receiver,
                called_on=called_on,
                names=tuple(map(dotted, call.args)) if kind == "with" else (),
                items=tuple(map(self.item_templates(node), call.args)) if kind == "raise" else (),
            )
        )
        return True

    def warns(self, call: ast.Call) -> bool:
        """Whether a call is of `warnings.warn` (or `warn_explicit`), named through the module
        or imported from it."""
        return self.names_one_of(call.func, frozenset({"warnings"}), WARN_FUNCTIONS)

    def visit_warn(self, node: ast.stmt, call: ast.Call) -> None:
        """`warnings.warn("…", DeprecationWarning)`: a warning of the category given (a
        `UserWarning` when none is, or `None`), or of the class of the warning given
        (`warn(RemovedIn9Warning("…"))`, or a variable that holds one)."""
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        message = call.args[0] if call.args else keywords.get("message")
        if message is not None and (given := self.exceptions_in(message, node)):
            for made_class, made in given:
                self.visit_raised(node, made_class, made)
            return
        category = call.args[1] if len(call.args) > 1 else keywords.get("category")
        self.issue(node, message, category, "UserWarning")

    def deprecates(self, call: ast.Call) -> bool:
        """Whether a decorator is a `deprecated` that warns: PEP 702's (of `warnings` or
        `typing_extensions`) or the Deprecated package's."""
        return self.deprecated_from(call.func) in DEPRECATED_FROM | DEPRECATED_PACKAGE

    def deprecated_from(self, called: ast.expr) -> str:
        """The module a `deprecated` callable comes from, named through it
        (`deprecated.sphinx.deprecated`, `warnings.deprecated`, under its own name or another)
        or imported from it (`from deprecated import deprecated as _d`); "" for any other."""
        if isinstance(called, ast.Name):
            own = self.renamed.get(called.id, called.id) == "deprecated"
            return self.imported.get(called.id, "") if own else ""
        if not isinstance(called, ast.Attribute) or called.attr != "deprecated":
            return ""
        head, _, rest = dotted(called.value).partition(".")
        if head in self.imported:  # `from deprecated import sphinx`
            head = f"{self.imported[head]}.{self.renamed.get(head, head)}"
        else:
            head = self.renamed.get(head, head)
        return f"{head}.{rest}" if rest else head

    def visit_decorator(self, within: Scope, decorator: ast.expr) -> None:
        """A decorator that issues a warning each time what it decorates is used."""
        call = decorator if isinstance(decorator, ast.Call) else None
        origin = self.deprecated_from(call.func if call else decorator)
        if call is not None and origin in DEPRECATED_FROM:
            self.visit_deprecated(call)
        elif origin in DEPRECATED_PACKAGE:  # bare too: `@deprecated`
            call = call or ast.copy_location(ast.Call(decorator, [], []), decorator)
            self.visit_package_deprecated(within, call, origin == "deprecated.sphinx")

    def names_one_of(
        self, called: ast.expr, modules: frozenset[str], names: frozenset[str]
    ) -> bool:
        """Whether a callable is one of those names of one of those modules: named through
        the module (`warnings.warn`) or imported from it (`warn`), under its own name or
        another (`import warnings as w`, `from warnings import warn as _warn`)."""
        if isinstance(called, ast.Attribute) and isinstance(called.value, ast.Name):
            module = self.renamed.get(called.value.id, called.value.id)
            return module in modules and called.attr in names
        if isinstance(called, ast.Name):
            name = self.renamed.get(called.id, called.id)
            return name in names and self.imported.get(called.id) in modules
        return False

    def visit_deprecated(self, decorator: ast.Call) -> None:
        """`@deprecated("…")` on a def or a class: a warning of its category (a
        `DeprecationWarning` when none is given) each time what it decorates is called,
        instantiated or subclassed; none with `category=None`, which marks it for type
        checkers only."""
        category = next((k.value for k in decorator.keywords if k.arg == "category"), None)
        if category is not None and is_none(category):
            return
        node = ast.copy_location(ast.Expr(decorator), decorator)
        message = decorator.args[0] if decorator.args else None
        self.issue(node, message, category, "DeprecationWarning")

    def visit_package_deprecated(self, within: Scope, decorator: ast.Call, sphinx: bool) -> None:
        """The Deprecated package's `@deprecated(reason, version=…)` (`reason, version` for its
        sphinx flavour): a warning of its category each time what it decorates is called,
        worded by the package after the kind of thing it is; none with `action="ignore"`,
        and skipped with an `adapter_cls` of the project's, which words it otherwise."""
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
        if "adapter_cls" in keywords:
            self.skipped.append(Skipped(decorator.lineno, "deprecation worded by an adapter"))
            return
        action = keywords.get("action")
        if isinstance(action, ast.Constant) and action.value == "ignore":
            return
        given_keys = ("reason", "version")
        given = dict(zip(given_keys[: 2 if sphinx else 1], decorator.args, strict=False))
        reason, version = (stated(keywords.get(key, given.get(key))) for key in given_keys)
        if isinstance(reason, ast.Constant) and isinstance(reason.value, str) and sphinx:
            reason = ast.Constant(SPHINX_ROLE_RE.sub(r"\1", reason.value))
        words: list[ast.expr] = [ast.Constant(f"Call to deprecated {self.kind_of(within)}.")]
        if reason is not None:
            words += [ast.Constant(" ("), reason, ast.Constant(")")]
        if version is not None:
            words += [ast.Constant(" -- Deprecated since version "), version, ast.Constant(".")]
        message = functools.reduce(lambda a, b: ast.BinOp(a, ast.Add(), b), words)
        ast.fix_missing_locations(ast.copy_location(message, decorator))
        category = keywords.get("category")
        node = ast.copy_location(ast.Expr(decorator), decorator)
        self.issue(node, message, category, "DeprecationWarning")

    def kind_of(self, within: Scope) -> str:
        """What the Deprecated package calls a class or function, and its name, as it words
        its warning: bound to an instance, a function defined in a class is a `method`."""
        if isinstance(within, ast.ClassDef):
            return f"class {within.name}"
        decorators = [last_name(d) for d in within.decorator_list]
        kind = "function (or staticmethod)"
        if len(self.within) > 1 and isinstance(self.within[-2], ast.ClassDef):
            unbound = next((UNBOUND_KINDS[d] for d in decorators if d in UNBOUND_KINDS), "")
            if unbound or not UNBOUND_CALLERS.intersection(filter(None, decorators)):
                kind = unbound or "method"
        return f"{kind} {within.name}"

    def issue(
        self, node: ast.stmt, message: ast.expr | None, category: ast.expr | None, default: str
    ) -> None:
        """A warning issued with a message, of the category named (`default` when none is,
        or `None`); or why it is skipped."""
        if message is None:
            self.skipped.append(Skipped(node.lineno, "warning without a message"))
            return
        name = default
        if category is not None and not is_none(category):
            name = class_named(category)
        reason = self.add(node, name, [message], self.conditions) if name else "category not named"
        held_by = self.made_elsewhere(message) if reason and name else ""
        if held_by:  # another module's constant (or function) may say it, and the library will
            site = self.site(node, name, "", self.conditions)
            warning = f"warning: {reason}"
            self.pending.append(
                Pending(site, name, "", (), (), warning, kind="class", made_by=held_by)
            )
        elif reason:
            self.skipped.append(Skipped(node.lineno, f"warning: {reason}"))

    def origin(self, raised: ast.expr) -> str:
        """Where a class raised comes from: the module `from … import` took it (or the module
        it is named through) from, or the dotted name it is called by (`pydantic_core.X`)."""
        head = raised
        while isinstance(head, ast.Attribute):
            head = head.value
        name = head.id if isinstance(head, ast.Name) else ""
        if name in self.imported:
            return self.imported[name]
        return ast.unparse(raised.value) if isinstance(raised, ast.Attribute) else ""

    def argument_templates(self, node: ast.stmt, argument: ast.expr) -> tuple[Given, ...]:
        """The messages an argument of a call can be, when it is written as a message is (a
        literal, an f-string, a `%` or `.format()` of one, a call of `_()`, a list joined): a
        variable is not followed, so that not every call's arguments are."""
        if not isinstance(argument, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call, ast.IfExp)):
            return ()
        made = instance_class(argument)
        if made and isinstance(argument, ast.Call):  # an exception made to be handed on
            for message in message_candidates(argument, self.settings.arguments.get(made)):
                if found := self.argument_templates(node, message):
                    return found
            return ()
        if isinstance(argument, ast.Constant) and not isinstance(argument.value, str):
            return ()
        return tuple(
            Given(message.template, tuple(map(condition_text, message.conditions)))
            for message in self.templates(node, "", argument)[0]
        )

    def item_templates(self, node: ast.stmt) -> Callable[[ast.expr], tuple[tuple[Given, ...], ...]]:
        """What the messages of each item an argument is spread into can be: a tuple's items,
        or the argument itself (`(c)`, one character)."""

        def items(argument: ast.expr) -> tuple[tuple[Given, ...], ...]:
            elements = argument.elts if isinstance(argument, ast.Tuple) else [argument]
            return tuple(self.argument_templates(node, element) for element in elements)

        return items

    def walks_class(self) -> str:
        """The class the walk is in (the nearest), or ""."""
        return next((n.name for n in reversed(self.within) if isinstance(n, ast.ClassDef)), "")

    def receiver_class(self, function: ast.expr) -> str:
        """The class a method call's receiver is: the walk's class for `self.m()` and
        `cls.m()`, the class named for `Class.m()`, a parameter's annotated class, the class
        the nearest `__init__` of the walk's class makes an attribute of the instance
        (`self._src = Source(string)`, then `self._src.parse_error(…)`)."""
        if not isinstance(function, ast.Attribute):
            return ""
        if isinstance(function.value, ast.Attribute) and dotted(function.value.value) == "self":
            return self.made_in_init(function.value.attr)
        if not isinstance(function.value, ast.Name):
            return ""
        receiver = function.value.id
        if receiver in ("self", "cls"):
            return self.walks_class()
        if is_class_name(receiver):
            return receiver
        scope = self.scope
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for parameter in [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]:
                if parameter.arg == receiver and parameter.annotation is not None:
                    annotation = written_annotation(parameter.annotation)
                    names = [last_name(n) for n in ast.walk(annotation) if isinstance(n, ast.expr)]
                    return next((n for n in names if n and is_class_name(n)), "")
        return ""

    def made_in_init(self, name: str) -> str:
        """The class whose instance the nearest `__init__` of the walk's class (or of a base)
        sets an attribute to in its own body (`self._src = Source(string)`); "" for none."""
        functions = self.defined.functions
        lineage = self.defined.ancestry(self.walks_class())
        owner = next((c for c in lineage if (c, "__init__") in functions), None)
        init = functions.get((owner, "__init__")) if owner is not None else None
        assigned = [s for s in init.body if isinstance(s, ast.Assign)] if init else []
        for statement in assigned:
            if [dotted(target) for target in statement.targets] == [f"self.{name}"]:
                made = statement.value
                called = last_name(made.func) if isinstance(made, ast.Call) else None
                return called if called and is_class_name(called) else ""
        return ""

    def building(self) -> ast.ClassDef | None:
        """The class whose `__init__` or `__str__` (Python 2's `__unicode__`) the walk is
        directly in, if it is."""
        if len(self.within) < 2 or not isinstance(self.within[-2], ast.ClassDef):
            return None
        method = self.within[-1]
        if isinstance(method, ast.FunctionDef) and method.name in ("__init__", *TEXT_METHODS):
            return self.within[-2]
        return None

    def visit_building(self, node: ast.Expr | ast.Return | ast.Assign, owner: ast.ClassDef) -> None:
        """The message a class builds: given to `super().__init__(…)` (or `Base.__init__(self,
        …)`), set as `self.message` or `self.msg`, or returned by `__str__`."""
        value = node.value
        messages: list[ast.expr] = []
        if isinstance(node, ast.Return) and value is not None:
            messages = [value] if self.within[-1].name in TEXT_METHODS else []
        elif isinstance(node, ast.Assign):
            target = node.targets[0]
            if (
                len(node.targets) == 1
                and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and target.attr in ("message", "msg")
            ):
                messages = [node.value]
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "__init__"
        ):
            given = value.args
            if isinstance(value.func.value, ast.Name):  # Base.__init__(self, …)
                given = given[1:]
            messages = message_candidates(ast.Call(value.func, given, value.keywords), None)
        for message in messages:
            found, _ = self.templates(node, owner.name, message)
            templates = [m.template for m in found if not not_its_own(m.template)]
            if templates:
                self.built.setdefault(id(owner), []).extend(templates)
                return

    def visit_class(self, node: ast.ClassDef) -> None:
        """What other modules need of a class: its bases and the messages it builds; and the
        messages of its table of error messages, each a raise of its own."""
        bases = base_names(node)
        built = self.built.pop(id(node), [])
        defaults = not built
        for statement in node.body:  # `msg_template = "…"`, `default_detail = _("…")`
            value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            if value is not None and table_name(statement) in TEMPLATE_ATTRIBUTES:
                built += [t for t in table_templates(value, self.translations)]
                defaults = defaults and table_name(statement) in DEFAULT_ATTRIBUTES
        templates = tuple(dict.fromkeys(t for t in built if not not_its_own(t)))
        inits = [s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"]
        parameters = None
        if inits:  # what a call can give the last (the one Python keeps) by position
            given = [*inits[-1].args.posonlyargs, *inits[-1].args.args][1:]  # `self` left out
            parameters = tuple(argument.arg for argument in given)
        defaults = defaults and bool(templates)
        self.classes.append(ExceptionClass(node.name, bases, templates, parameters, defaults))
        for statement in node.body:
            table = error_table(statement)
            for key, value in table:
                for template in table_templates(value, self.translations):
                    site = RaiseSite(
                        line=value.lineno,
                        end_line=value.end_lineno or value.lineno,
                        exception=TABLE_EXCEPTION,
                        template=template,
                        bodies=(tuple(map(statement_span, node.body)), *reversed(self.bodies)),
                        scope=node.name,
                        table_entry=f"{node.name}.{table_name(statement)}[{key!r}]",
                    )
                    self.sites.append(site)

    def visit_constant(self, node: ast.Assign | ast.AnnAssign) -> None:
        """A constant of the module that holds a message with words (`MESSAGE = "…"`), or an
        exception or warning made with one (`YIELD_FIXTURE = PytestDeprecationWarning("…")`),
        as the module holds it once it has run (`constants`): what another module's raise or
        warning of it says."""
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        name = target.id if isinstance(target, ast.Name) else ""
        bound = self.bindings(self.module)[0].get(name, [])
        if not bound or min(bound, key=lambda statement: statement.lineno) is not node:
            return  # visited at its first binding
        values = [value for value, _ in self.constants(name)]
        if not values:
            return
        made = instance_class(values[0])
        if len(values) == 1 and made and isinstance(values[0], ast.Call):
            for message in message_candidates(values[0], self.settings.arguments.get(made)):
                if templates := self.returned_messages(message):
                    self.makers.append(MessageMaker(name, tuple(templates), made))
                    return
        elif all(texts := [self.returned_messages(value) for value in values]):
            self.makers.append(MessageMaker(name, tuple(t for each in texts for t in each)))

    def visit_maker(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A function of the module that makes messages: each value it returns a message with
        words (`return "%r is not of type %s" % (instance, ", ".join(reprs))`), the last
        statement one of them (the others are looked for only then)."""
        last = node.body[-1]
        if not isinstance(last, ast.Return) or last.value is None:
            return
        if not self.returned_messages(last.value):
            return
        made = [self.returned_messages(returned) for returned in returned_values(node)]
        templates = [template for each in made for template in each]
        yields = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(node))
        if all(made) and not yields:
            self.makers.append(MessageMaker(node.name, tuple(dict.fromkeys(templates))))

    def returned_messages(self, returned: ast.expr) -> list[str]:
        """The messages a returned value is, when each of its forms is one with words."""
        templates = []
        for form in translated_forms(returned, self.translations):
            template = template_of(form, _Names())
            if template is None or not sentence([template]):
                return []
            templates.append(template)
        return templates

    def visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A raise helper: a function whose last statement raises a message built from one of
        its parameters, that never returns a value; or a warn helper, that hands one of its
        parameters to `warnings.warn` (in its own body, not a function it defines); or one
        that hands it on to what may be another helper (and, if it raises it itself under a
        condition too, that for when the library finds no such helper: jsonschema 0.2's
        `_error`, `if self.stop_on_error: raise ValidationError(msg)`, else
        `self._errors.append(msg)`); or else one that raises such a message only under a
        condition."""
        if not self.within:
            self.visit_maker(node)
        if any(last_name(d) in CONTEXT_MANAGERS for d in node.decorator_list):
            self.visit_context_manager(node)
            return
        if self.visit_class_factory(node):
            return
        if not any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(node)):
            last = node.body[-1]
            if isinstance(last, ast.Raise) and isinstance(last.exc, ast.Call):
                if self.visit_raising(node, last, last.exc):
                    return
            else:
                calls = own_calls(node)
                if any(self.warns(c) and self.visit_warn_helper(node, s, c) for s, c in calls):
                    return
                for statement, call in reversed(calls):  # the one it ends in, if it hands on twice
                    if self.visit_relay(node, statement, call):
                        relay = self.helpers.pop()
                        fallback = self.helpers.pop() if self.visit_guarded(node) else None
                        self.helpers.append(dataclasses.replace(relay, fallback=fallback))
                        return
        self.visit_guarded(node)

    def visit_class_factory(self, node: FunctionNode) -> bool:
        """Whether a function is a factory of the class it is given: it returns only a call
        of one of its parameters (tomlkit's `def parse_error(self, exception=ParseError,
        *args, **kwargs): … return exception(line, col, *args, **kwargs)`), or only a call
        that hands its parameters on as they are to what may be another such factory
        (`return self._src.parse_error(exception, *args, **kwargs)`)."""
        returned = returned_values(node)
        calls = [value for value in returned if isinstance(value, ast.Call)]
        if not calls or len(calls) < len(returned):
            return False
        call = max(calls, key=lambda c: len(c.args))  # `kind(line, col, *args)`, not `(line, col)`
        method = any(isinstance(n, ast.ClassDef) for n in self.within[-1:])
        positional = positional_parameters(node, method)
        varargs = [f"*{node.args.vararg.arg}"] if node.args.vararg else []
        kwargs = [(None, node.args.kwarg.arg)] if node.args.kwarg else []
        handed = [
            f"*{dotted(a.value)}" if isinstance(a, ast.Starred) else dotted(a) for a in call.args
        ]
        keywords = [(k.arg, dotted(k.value)) for k in call.keywords]
        spread = handed[-1][1:] if handed[-1:] and handed[-1].startswith("*") else ""
        spreads = positional.index(spread) if spread in positional else -1
        passes_on = (
            f"*{spread}" in [*varargs, *(f"*{p}" for p in positional)] and keywords == kwargs
        )
        owner = self.within[-1].name if method else ""
        parameter = call.func.id if isinstance(call.func, ast.Name) else ""
        if parameter in positional and all(dotted(c.func) == parameter for c in calls):
            helper = Helper(
                node.name,
                owner,
                class_default(node, parameter) or "",
                "",
                -1,
                (),
                parameter,
                positional.index(parameter),
                kind="raise",
                passes_from=len(handed) - 1 if passes_on else -1,
                spreads=spreads,
            )
        elif (
            isinstance(node.body[-1], ast.Return)
            and len(returned) == 1
            and handed == [*positional, *varargs]
            and keywords == kwargs
        ):
            name = last_name(call.func)
            if name is None:
                return False
            self.scope = node
            called = self.receiver_class(call.func)
            receiver = "" if called else receiver_name(call.func)
            relay = Relay(name, called, receiver, -1, "")
            helper = Helper(node.name, owner, "", "", -1, (), kind="raise", relay=relay)
        else:
            return False
        self.helpers.append(helper)
        return True

    def visit_raising(
        self,
        node: FunctionNode,
        raised: ast.Raise,
        call: ast.Call,
        conditions: tuple[str, ...] = (),
    ) -> bool:
        """Whether a raise of the function makes it a helper: its class named (or a parameter
        that defaults to one: `exc=TemplateSyntaxError`), its message built from a parameter."""
        exception, exception_parameter = exception_name(call), ""
        if exception is None and isinstance(call.func, ast.Name):
            exception_parameter = call.func.id
            exception = class_default(node, exception_parameter)
        if exception is None:
            return False
        messages = message_candidates(call, self.settings.arguments.get(exception))
        return self.add_helper(
            node, raised, exception, exception_parameter, messages, conditions=conditions
        )

    def visit_context_manager(self, node: FunctionNode) -> None:
        """A context manager that raises when the block it wraps raises what it handles: the
        class a `with` of it names (pydantic 0.32's `with change_exception(
        errors.IntegerError, TypeError, ValueError): return int(v)`, whose `except
        except_types as e: raise raise_exc from e`), or a message built from a parameter;
        the first raise of its own whose conditions a caller can say (what it handles
        read from the names the call gives)."""
        method = any(isinstance(n, ast.ClassDef) for n in self.within[-1:])
        positional = positional_parameters(node, method)
        for raised, under in self.raised_in.get(id(node), []):
            conditions = callers_terms(under, node, method, handled=True)
            exc = raised.exc
            if exc is None or conditions is None:
                continue
            if isinstance(exc, ast.Call) and not exc.args and not exc.keywords:
                exc = exc.func  # `raise raise_exc()`
            if isinstance(exc, ast.Name) and exc.id in positional:
                owner = self.within[-1].name if method else ""
                exception = class_default(node, exc.id) or ""
                place = positional.index(exc.id)
                self.helpers.append(
                    Helper(
                        node.name,
                        owner,
                        exception,
                        parameter="",  # the message is what the class builds
                        position=-1,
                        templates=(),
                        exception_parameter=exc.id,
                        exception_position=place,
                        conditions=conditions,
                        kind="with",
                    )
                )
                return
            if isinstance(exc, ast.Call) and self.visit_raising(node, raised, exc, conditions):
                self.helpers[-1] = dataclasses.replace(self.helpers[-1], kind="with")
                return

    def visit_guarded(self, node: FunctionNode) -> bool:
        """A helper that raises a message built from one of its parameters only under a
        condition, and may return a value otherwise (SQLAlchemy's `def
        _only_mapper_zero(self, rationale=None): if len(self._entities) > 1: raise
        InvalidRequestError(rationale or "…")`): one raise of its own reads a parameter, and
        what holds there can be said in a caller's terms (its `self` and the module's names,
        none of the function's own variables or other parameters)."""
        method = any(isinstance(n, ast.ClassDef) for n in self.within[-1:])
        parameters = {*positional_parameters(node, method), *(a.arg for a in node.args.kwonlyargs)}
        found = [
            (raised, raised.exc, under)
            for raised, under in self.raised_in.get(id(node), [])
            if isinstance(raised.exc, ast.Call)
            and any(
                isinstance(name, ast.Name) and name.id in parameters
                for argument in [*raised.exc.args, *(k.value for k in raised.exc.keywords)]
                for name in ast.walk(argument)
            )
        ]
        if len(found) != 1:
            return False
        raised, call, under = found[0]
        if not under or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(node)):
            return False  # it always raises there (then it is no helper: it returns); a generator
        conditions = callers_terms(under, node, method)
        return self.visit_raising(node, raised, call, conditions) if conditions else False

    def visit_warn_helper(self, node: FunctionNode, statement: ast.Expr, call: ast.Call) -> bool:
        """Whether a function is a warn helper, by a `warnings.warn(…)` of its own: given a
        parameter (`warn_explicit(warning, category=None, …)`, a warning of the class of
        what the caller hands it), or a message built from one with the category named
        (`warnings.warn(PytestCacheWarning(fmt.format(**args)))`, `warn(message,
        category)`)."""
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        message = call.args[0] if call.args else keywords.get("message")
        if message is None:
            return False
        made = exception_name(message) if isinstance(message, ast.Call) else None
        if isinstance(message, ast.Call) and made is not None:
            messages = message_candidates(message, self.settings.arguments.get(made))
            return self.add_helper(node, statement, made, "", messages, issues=True)
        category = call.args[1] if len(call.args) > 1 else keywords.get("category")
        exception, exception_parameter = "", ""
        if isinstance(category, ast.Name) and is_parameter(node, category.id):
            exception_parameter = category.id
            exception = class_default(node, exception_parameter) or ""
        elif category is not None and not is_none(category):
            exception = class_named(category)
            if not exception:
                return False
        return self.add_helper(node, statement, exception, exception_parameter, [message], True)

    def visit_relay(self, node: FunctionNode, statement: ast.Expr, call: ast.Call) -> bool:
        """Whether a function hands one of its parameters, whole, to a call that may be of
        another helper (pytest 3.8's `def warn(self, warning): self._std_warn(warning)`, or
        made into a warning first: `_issue_warning_captured(PytestCacheWarning(fmt.format(
        **args)), …)`): a helper if the library finds that one."""
        name = last_name(call.func)
        if name is None or is_class_name(name) or self.warns(call):
            return False
        given = [(at, "", a) for at, a in enumerate(call.args)]
        given += [(-1, k.arg, k.value) for k in call.keywords if k.arg]
        self.scope = node
        owner = self.receiver_class(call.func)
        receiver = "" if owner else receiver_name(call.func)
        for position, keyword, argument in given:
            made = instance_class(argument)
            messages = [argument]
            if made and isinstance(argument, ast.Call):
                messages = message_candidates(argument, self.settings.arguments.get(made))
            relay = Relay(name, owner, receiver, position, keyword)
            if self.add_helper(node, statement, made, "", messages, relay=relay):
                return True
        return False

    def add_helper(
        self,
        node: FunctionNode,
        statement: ast.stmt,
        exception: str,
        exception_parameter: str,
        messages: list[ast.expr],
        issues: bool = False,
        relay: Relay | None = None,
        conditions: tuple[str, ...] = (),
    ) -> bool:
        """A helper of the first message that reads one of the function's parameters, if
        one does (for a relay, only a parameter handed on whole)."""
        method = any(isinstance(n, ast.ClassDef) for n in self.within[-1:])
        positional = positional_parameters(node, method)
        parameters = positional + [a.arg for a in node.args.kwonlyargs]
        for message in messages:
            used = [n.id for n in ast.walk(message) if isinstance(n, ast.Name)]
            parameter = next((name for name in used if name in parameters), None)
            if parameter is None:
                continue
            whole = [  # whether it formats the parameter, each time it is the whole message
                formats
                for value, formats in whole_values(message)
                if isinstance(value, ast.Name) and value.id == parameter
            ]
            if whole:
                templates = ["{" + parameter + "}"]  # `message`, `fmt.format(**args) if …`
            elif relay is not None:
                continue
            else:
                self.scope = node
                templates = [m.template for m in self.templates(statement, exception, message)[0]]
            templates = [t for t in templates if "{" + parameter + "}" in t]
            if not templates:
                return False
            owner = self.within[-1].name if method else ""
            self.helpers.append(
                Helper(
                    node.name,
                    owner,
                    exception,
                    parameter,
                    positional.index(parameter) if parameter in positional else -1,
                    tuple(templates),
                    exception_parameter,
                    positional.index(exception_parameter)
                    if exception_parameter in positional
                    else -1,
                    issues,
                    any(whole),
                    relay,
                    conditions,
                )
            )
            return True
        return False

    def templates(
        self, node: ast.stmt, exception: str, message: ast.expr
    ) -> tuple[list[Message], str]:
        """The templates one argument can be (a variable assigned in two branches: two; an
        `ngettext` call: its two forms), each with what holds when it is the one, or why it is
        none."""
        reason, templates = "", []
        for held, outer in self.messages_of(message, node):
            for expression, inner in self.forms(node, held, ()):
                template = template_of(expression, _Names())
                if exception in self.settings.arguments and isinstance(expression, ast.Constant):
                    # A class named in the settings fills its message's {fields} in itself.
                    filled = ast.Call(ast.Name("str"), [], [])
                    template = format_template(str(expression.value), filled, _Names()) or template
                if template is None:
                    reason = reason or "message is not built from string literals"
                elif not canonical(template).replace("{}", "").strip():
                    reason = reason or "message has no literal text"
                else:
                    templates.append(Message(template, (*outer, *inner)))
        return chosen_once(templates), reason

    def forms(
        self, node: ast.stmt, message: ast.expr, seen: tuple[str, ...]
    ) -> list[tuple[ast.expr, list[Condition]]]:
        """A message's forms (an `ngettext` call's: two); for a call of a function of this
        module that returns messages (`self.invalid_message(value)`), those it returns (as
        the call reads them, where they are not written as messages); for
        a message given or a default (`error or f"Bad status line {line!r}"`, `exc.args[1]
        if exc.args else "DNS lookup failed"`), each, with what holds when it is the one."""
        if split := choices(message):
            return [
                (form, [*chosen, *more])
                for value, chosen in split
                for form, more in self.forms(node, value, seen)
            ]
        made = self.module_function(message) if isinstance(message, ast.Call) else None
        if not isinstance(message, ast.Call) or made is None or made[0] in seen:
            return [(form, []) for form in translated_forms(message, self.translations)]
        title, function = made
        self.made_by[id(node)] = title
        found: list[tuple[ast.expr, list[Condition]]] = []
        for value in returned_values(function):
            held: list[tuple[ast.expr, list[Condition]]] = [(value, [])]
            if template_of(value, _Names()) is None and (
                read := as_called(message, function, value)
            ):
                held = self.messages_of(read, node)  # as the caller's own message is read
            for returned, chosen in held:
                found += [
                    (f, [*chosen, *more]) for f, more in self.forms(node, returned, (*seen, title))
                ]
        return found

    def module_function(self, call: ast.expr) -> tuple[str, FunctionNode] | None:
        """The function of this module an expression is a call of (`describe(x)`,
        `self.describe(x)`, a method of the receiver's class or of its bases here), with
        its title, when it returns a value and yields none."""
        if not isinstance(call, ast.Call):
            return None
        called = call.func
        if isinstance(called, ast.Name):
            owners, name = [""], called.id
        elif isinstance(called, ast.Attribute) and (owner := self.receiver_class(called)):
            owners, name = self.defined.ancestry(owner), called.attr
        else:
            return None
        for owner in owners:  # the class, then its bases, nearest first
            function = self.defined.functions.get((owner, name))
            if function is not None:
                if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(function)):
                    return None
                return (f"{owner}.{name}" if owner else name), function
        return None

    def add(
        self,
        node: ast.stmt,
        exception: str,
        messages: list[ast.expr],
        conditions: list[Condition],
        places: list[str] | None = None,
        origin: str = "",
    ) -> str:
        """A raise site for each message the statement can raise, from the first of the
        arguments that can hold it that has literal text, one that reads as a sentence rather
        than a code (`Error("not_found", "No such item")`), with its place among the call's
        arguments when `places` gives them; or the reason there is none."""
        reason = f"{exception} raised without a message"
        templates: list[Message] = []
        argument = ""
        for number, message in enumerate(messages):
            found, why = self.templates(node, exception, message)
            reason = why if number == 0 else reason
            if found and (not templates or (worded(found) and not worded(templates))):
                templates, argument = found, places[number] if places else ""
        for template, chosen in templates:
            site = self.site(node, exception, template, [*conditions, *chosen])
            self.sites.append(dataclasses.replace(site, argument=argument, origin=origin))
        return "" if templates else reason

    def site(
        self, node: ast.stmt, exception: str, template: str, conditions: list[Condition]
    ) -> RaiseSite:
        return RaiseSite(
            line=node.lineno,
            end_line=node.end_lineno or node.lineno,
            exception=exception,
            template=template,
            bodies=tuple(reversed(self.bodies)),
            function=self.functions[-1] if self.functions else None,
            scope=".".join(self.names),
            conditions=tuple(map(condition_text, conditions)),
            made_by=self.made_by.get(id(node), ""),
            handed=self.handed_on(node),
        )

    def handed_on(self, node: ast.stmt) -> str:
        """How a statement hands on the exception it makes without raising it, if it does."""
        value = node.value if isinstance(node, ast.Expr) else None
        if isinstance(value, ast.Yield):
            return "yield"
        if not isinstance(value, ast.Call):
            return ""
        if self.warns(value):
            return "warn"
        if self.deprecates(value):  # a decorator, of what the walk is in
            return "deprecated class" if isinstance(self.within[-1], ast.ClassDef) else "deprecated"
        return "set_exception" if last_name(value.func) == "set_exception" else ""


@dataclass(frozen=True)
class Definitions:
    """What a module's statements define: its functions, by the class they are methods of
    ("" for a function of the module) and name; each class's bases, by name; and what each
    class binds a name of its own body to (`invalid_version_message = _("…")`), the last
    binding; and the names a function assigns (`global NAME`): no constant, whatever the
    module says."""

    functions: dict[tuple[str, str], FunctionNode]
    bases: dict[str, list[str]]
    attributes: dict[tuple[str, str], ast.expr]
    assigned_globals: set[str]

    def ancestry(self, name: str) -> list[str]:
        """A class and its bases defined here, nearest first, each once (`class A(A)`)."""
        found, pending = [name], [name]
        while pending:
            for base in self.bases.get(pending.pop(0), []):
                if base not in found:
                    found.append(base)
                    pending.append(base)
        return found


def base_names(node: ast.ClassDef) -> tuple[str, ...]:
    """The names of a class's bases (`Base` of `Base[T]`)."""
    generic = [base.value if isinstance(base, ast.Subscript) else base for base in node.bases]
    return tuple(name for name in map(last_name, generic) if name)


def definitions(module: ast.Module) -> Definitions:
    """The module's definitions; statements only are read."""
    found = Definitions({}, {}, {}, set())
    pending: list[tuple[str | None, list[ast.stmt]]] = [("", module.body)]  # None: in a def
    while pending:
        owner, body = pending.pop()
        for node in body:
            if isinstance(node, ast.ClassDef):
                found.bases[node.name] = list(base_names(node))
                pending.append((node.name, node.body))
                for statement in node.body:
                    value = statement.value if isinstance(statement, ast.Assign) else None
                    value = statement.value if isinstance(statement, ast.AnnAssign) else value
                    if value is not None and table_name(statement):
                        found.attributes[node.name, table_name(statement)] = value
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if owner is not None:
                    found.functions[owner, node.name] = node
                if owner and node.name == "__init__":
                    found.functions.update(((owner, n), f) for n, f in lambda_methods(node))
                pending.append((None, node.body))
            elif isinstance(node, ast.Global):
                found.assigned_globals.update(node.names)
            else:
                pending += [(owner, inner) for inner in inner_bodies(node)]
    return found


def lambda_methods(init: FunctionNode) -> Iterator[tuple[str, ast.FunctionDef]]:
    """The lambdas an `__init__` keeps on its instance, each as the method it acts as:
    `self._format = lambda m: (self.error or m).format(…)` (marshmallow 1.2's `Range`) is
    `def _format(self, m): return (self.error or m).format(…)`."""
    for statement in init.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target, held = statement.targets[0], statement.value
        on_self = isinstance(target, ast.Attribute) and dotted(target.value) == "self"
        if isinstance(held, ast.Lambda) and isinstance(target, ast.Attribute) and on_self:
            method = ast.parse(f"def _(self, {ast.unparse(held.args)}): pass").body[0]
            assert isinstance(method, ast.FunctionDef)
            method.name = target.attr
            method.body = [ast.copy_location(ast.Return(held.body), held)]
            yield target.attr, ast.copy_location(method, held)


def spaced_text(node: ast.expr) -> bool:
    """Whether an expression holds a string literal with a space in it."""
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and " " in n.value
        for n in ast.walk(node)
    )


def receivers(value: ast.expr | None) -> Iterator[ast.Call]:
    """The calls an expression is, and those it is read from or called on, outermost first
    (`await self.h("…").key[0]`: `self.h("…")`)."""
    node = value
    while node is not None:
        if isinstance(node, ast.Call):
            yield node
            node = node.func
        elif isinstance(node, (ast.Attribute, ast.Subscript, ast.Await)):
            node = node.value
        else:
            return


def returned_values(function: FunctionNode) -> list[ast.expr]:
    """What a function returns, each `return` in source order."""
    return [n.value for n in own_nodes(function) if isinstance(n, ast.Return) and n.value]


def own_calls(function: FunctionNode) -> list[tuple[ast.Expr, ast.Call]]:
    """The statements of a function's own body that are a call, each with its call."""
    return [
        (node, node.value)
        for node in own_nodes(function)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
    ]


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's (or a module's) body in source order, its nested functions,
    classes and lambdas left out."""
    pending: list[ast.AST] = list(reversed(getattr(function, "body", [])))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (*SCOPE_NODES, ast.Lambda)):
            pending += reversed(list(ast.iter_child_nodes(node)))


# Tables of error messages: a class attribute named like these, a dict of literal keys to
# messages, as validation libraries keep them (Django's forms, DRF, marshmallow), where the
# exception raised with each is a ValidationError.
TABLE_NAMES = ("default_error_messages", "error_messages")
# A class attribute holding the message the class raises with (pydantic 1's errors, DRF's
# exceptions): `class NotFound(APIException): default_detail = _("Not found.")`.
TEMPLATE_ATTRIBUTES = ("msg_template", "message_template", "default_message", "default_detail")
DEFAULT_ATTRIBUTES = ("default_message", "default_detail")  # for a raise that gives none
TABLE_EXCEPTION = "ValidationError"


def table_name(statement: ast.stmt) -> str:
    target = statement.targets[0] if isinstance(statement, ast.Assign) else None
    target = statement.target if isinstance(statement, ast.AnnAssign) else target
    return target.id if isinstance(target, ast.Name) else ""


def error_table(statement: ast.stmt) -> list[tuple[str, ast.expr]]:
    """The entries of a class's table of error messages (`default_error_messages = {…}`)."""
    value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
    if table_name(statement) not in TABLE_NAMES or not isinstance(value, ast.Dict):
        return []
    return [
        (key.value, entry)
        for key, entry in zip(value.keys, value.values, strict=True)
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    ]


def table_templates(value: ast.expr, translations: frozenset[str]) -> list[str]:
    """The messages of one table entry: its `%(name)s` and `{name}` fields filled in where it
    is raised, so placeholders."""
    found = []
    for form in translated_forms(value, translations):
        text = literal_text(form)
        if text is None:
            template = template_of(form, _Names())
        elif SIMPLE_FORMAT_RE.search(text):
            template = percent_template(text, ast.Dict([], []), _Names())
        else:
            filled = ast.Call(ast.Name("str"), [], [])
            template = format_template(text, filled, _Names()) or escape_literal(text)
        if template and canonical(template).replace("{}", "").strip() and template not in found:
            found.append(template)
    return found


class Library:
    """The classes and raise helpers of the modules of one commit, by name: what resolves
    the raises a module leaves pending."""

    def __init__(
        self,
        modules: Iterable[ModuleScan],
        packages: frozenset[str] = frozenset(),
        names: Set[str] | None = None,
    ):
        # The repository's own top-level packages: a class imported from another (a name
        # also defined here, as `pydantic_core.ValidationError`) is not resolved here.
        self.packages = packages
        self.classes: dict[str, list[ExceptionClass]] = {}
        self.helpers: dict[str, list[Helper]] = {}
        self.makers: dict[str, list[MessageMaker]] = {}
        for module in modules:  # of what they define, the `names` resolving looks up (or all)
            for defined in module.classes:
                if names is None or defined.name in names:
                    self.classes.setdefault(defined.name, []).append(defined)
            for helper in module.helpers:
                if names is None or helper.name in names:
                    self.helpers.setdefault(helper.name, []).append(helper)
            for maker in module.makers:
                if names is None or maker.name in names:
                    self.makers.setdefault(maker.name, []).append(maker)

    def lineage(self, name: str) -> list[str]:
        """A class and its bases, nearest first, each once."""
        found, pending = [name], [name]
        while pending and len(found) < MAX_LINEAGE:
            for defined in self.classes.get(pending.pop(0), []):
                for base in defined.bases:
                    if base not in found:
                        found.append(base)
                        pending.append(base)
        return found

    def elsewhere(self, origin: str) -> bool:
        """Whether a class comes from another package than the repository's own (a name also
        defined here, as `pydantic_core.ValidationError`), by where it is imported from."""
        package = origin.split(".", 1)[0]
        return bool(package and self.packages and package not in self.packages)

    def built(self, name: str, origin: str = "", passed: tuple[str, ...] = ()) -> tuple[str, ...]:
        """The messages a class builds itself, or the nearest base class that builds them
        (none for a class imported from another package, nor a default where the raise
        gives the message: `raise ValidationError(errors)` does not say `Invalid input.`,
        `raise MethodNotAllowed(request.method)` says its `Method "{method}" not allowed.`)."""
        if self.elsewhere(origin):
            return ()
        for ancestor in self.lineage(name):
            for defined in self.classes.get(ancestor, []):
                if defined.templates:
                    replaced = defined.defaults and self.message_given(name, passed)
                    return () if replaced else defined.templates
        return ()

    def message_given(self, name: str, passed: tuple[str, ...]) -> bool:
        """Whether a call of the class gives its message: its `__init__`'s (or the nearest
        base's) `detail`, `message` or `msg`, by keyword or by position; Exception's first
        argument where no class of the lineage defines `__init__`."""
        for ancestor in self.lineage(name):
            for defined in self.classes.get(ancestor, []):
                if defined.parameters is not None:
                    named = [p for p in defined.parameters if p in MESSAGE_KEYWORDS]
                    place = str(defined.parameters.index(named[0])) if named else ""
                    return bool(named) and (named[0] in passed or place in passed)
        return "0" in passed or any(word in passed for word in MESSAGE_KEYWORDS)

    def wrapped(self, site: RaiseSite) -> tuple[str, ...]:
        """The messages of a raise whose class builds them around the argument the message
        was read from (`BusyResourceError("reading from")`, where `def __init__(self, action):
        super().__init__(f"Another task is already {action} this resource")`): of the nearest
        class (itself or a base) that defines `__init__` or builds messages, the argument's
        text in place (quoted where the class shows it with `!r`: gunicorn's `"Invalid HTTP
        request line: %r" % self.req`), or the class's message as it is where it shows the
        argument otherwise converted (`{identifier:>10}`, or `!r` of a text that has quotes);
        none for a class that takes its message as it is given."""
        if not site.argument or self.elsewhere(site.origin):
            return ()
        for ancestor in self.lineage(site.exception):
            for defined in self.classes.get(ancestor, []):
                if defined.parameters is None and not defined.templates:
                    continue
                parameters = defined.parameters or ()
                name = site.argument
                if name.isdigit():
                    name = parameters[int(name)] if int(name) < len(parameters) else ""
                if name not in parameters:
                    return ()
                shown = {"{" + name + "}": site.template, "{" + name + "!s}": site.template}
                if not any(c in site.template for c in "'\"\\") and site.template.isprintable():
                    shown["{" + name + "!r}"] = f"'{site.template}'"
                found = []
                for template in defined.templates:
                    if not any(f"{{{name}{end}" in template for end in "}!:"):
                        continue  # it does not show the argument
                    for placeholder, text in shown.items():
                        template = template.replace(placeholder, text)
                    found.append(template)
                return tuple(found)
        return ()

    def made_by_factory(
        self, helper: Helper, pending: Pending, exception: str, conditions: tuple[str, ...]
    ) -> list[RaiseSite]:
        """What a raise of what a factory returns says: of the arguments the call hands on to
        the class, the first the class builds its message around, or that is a sentence
        (`raise self.parse_error(InvalidControlChar, code, "strings")`: "Control characters
        … are not allowed in strings, …"), else the message the class builds itself."""
        site = dataclasses.replace(
            pending.site, exception=exception, conditions=conditions, made_by=helper.title
        )
        handed: list[tuple[str, tuple[Given, ...]]] = []
        if helper.passes_from >= 0:
            at = helper.spreads
            after = pending.arguments[helper.exception_position + 1 :]
            if at >= 0:
                after = pending.items[at] if at < len(pending.items) else ()
            handed = [(str(helper.passes_from + n), given) for n, given in enumerate(after)]
            handed += [
                (k, given) for k, given in pending.keywords if k != helper.exception_parameter
            ]
        for place, given in handed:
            said = [
                dataclasses.replace(
                    site,
                    template=message.template,
                    conditions=(*conditions, *message.conditions),
                    argument=place,
                )
                for message in given
            ]
            wrapped = [
                dataclasses.replace(at, template=template, built_by=exception)
                for at in said
                for template in self.wrapped(at)
            ]
            if wrapped or sentence(message.template for message in given):
                return wrapped or said
        passed = tuple(place for place, _ in handed)
        built = self.built(exception, "", passed) if exception else ()
        return [dataclasses.replace(site, template=t, built_by=exception) for t in built]

    def made(self, name: str) -> MessageMaker | None:
        """The one function of that name that makes messages, or constant that holds one."""
        makers = self.makers.get(name, [])
        return makers[0] if len(makers) == 1 else None

    def helper(self, call: Pending | Relay, kind: CallKind, depth: int = 0) -> Helper | None:
        """The helper of that kind a call names, a relay resolved to what the helper it hands
        its parameter on to raises or issues (through at most MAX_RELAYS of them), or else
        to its fallback."""
        found = self.named_helper(call.name, call.owner, call.receiver, kind)
        if found is None or found.relay is None:
            return found
        relay = found.relay
        inner = None
        if depth < MAX_RELAYS:
            inner = self.helper(relay, kind, depth + 1)
        if kind == "raise":  # a factory that hands all it is given on to another
            return (
                None
                if inner is None
                else dataclasses.replace(inner, name=found.name, owner=found.owner)
            )
        if inner is None or not (
            relay.keyword == inner.parameter or relay.position == inner.position >= 0
        ):
            return found.fallback
        field = "{" + inner.parameter + "}"
        return dataclasses.replace(
            found,
            exception=found.exception or inner.exception,
            templates=tuple(t.replace(field, "{" + found.parameter + "}") for t in inner.templates),
            issues=inner.issues,
            formats=found.formats or inner.formats,
            relay=None,
        )

    def called(self, pending: Pending) -> Helper | None:
        """The helper a pending call is of: one of its kind, or, for a call whose value is
        raised, one that raises itself (packaging's `raise self.raise_syntax_error(f"…")`)."""
        if pending.kind == "class":
            return None
        found = self.helper(pending, pending.kind)
        return self.helper(pending, "call") if found is None and pending.kind == "raise" else found

    def named_helper(self, name: str, owner: str, receiver: str, kind: CallKind) -> Helper | None:
        """The raise helper of that kind a call names: a method of the receiver's class (or a
        base), or of the one class named after the receiver (`parser` → `Parser`), or the
        one function of that name."""
        helpers = [h for h in self.helpers.get(name, []) if h.kind == kind]
        if owner:
            for ancestor in self.lineage(owner):
                method = next((h for h in helpers if h.owner == ancestor), None)
                if method is not None:
                    return method
        if receiver:
            methods = [h for h in helpers if h.owner and named_after(h.owner, receiver)]
            if len(methods) == 1:
                return methods[0]
            for named in classes_named_after(receiver):  # `marker_node` of a `Node`
                lineage = self.lineage(named) if named in self.classes else []
                method = next((h for a in lineage for h in helpers if h.owner == a), None)
                if method is not None:
                    return method
        functions = [h for h in helpers if not h.owner]
        return functions[0] if len(functions) == 1 else None

    def used(self, module: ModuleScan) -> tuple[object, ...]:
        """What of the library a module's pending raises resolve with (and the messages its
        classes build around what it gives them), to tell when two libraries resolve it the
        same."""
        found: list[object] = [self.wrapped(site) for site in module.sites if site.argument]
        for pending in module.pending:
            if pending.kind == "class":
                made = self.made(pending.made_by)
                found.append((made, self.built(pending.name, pending.origin, pending.passed)))
            else:
                found.append(self.called(pending))
        return tuple(found)


MAX_LINEAGE = 50  # classes in a chain of bases followed
MAX_RELAYS = 3  # helpers handing a message on to another, followed


def resolved(module: ModuleScan, library: Library) -> tuple[list[RaiseSite], list[Skipped]]:
    """A module's raises, those that waited on the library included (in line order), and
    what is skipped."""
    sites, skipped = [], list(module.skipped)
    for site in module.sites:
        wrapped = library.wrapped(site)
        if not wrapped:
            sites.append(site)
        for template in wrapped:  # `BusyResourceError("reading from")`: the class's message
            sites.append(dataclasses.replace(site, template=template, built_by=site.exception))
    for pending in module.pending:
        site = pending.site
        if pending.kind == "class":  # raised (or issued) without a literal message
            maker = library.made(pending.made_by)
            templates = (
                maker.templates
                if maker
                else library.built(pending.name, pending.origin, pending.passed)
            )
            if not templates:
                skipped.append(Skipped(site.line, pending.reason))
            made_by, built_by = (pending.made_by, "") if maker else (site.made_by, pending.name)
            exception = site.exception
            if maker and maker.exception and site.kind == "warning":  # `warn(CONSOLE_MAIN)`
                exception = maker.exception
            sites += [
                dataclasses.replace(
                    site, exception=exception, template=t, made_by=made_by, built_by=built_by
                )
                for t in templates
            ]
            continue
        helper = library.called(pending)
        conditions = None if helper is None else conditions_through(helper, pending)
        if helper is None or conditions is None:
            if pending.kind == "raise":
                skipped.append(Skipped(site.line, pending.reason))
            continue
        given = dict(pending.keywords).get(helper.parameter)
        if given is None and 0 <= helper.position < len(pending.arguments):
            given = pending.arguments[helper.position]
        exception = helper.exception
        if helper.exception_parameter:  # the class a call gives, if it gives one
            named = dict(pending.keyword_classes).get(helper.exception_parameter)
            if named is None and 0 <= helper.exception_position < len(pending.classes):
                named = pending.classes[helper.exception_position]
            exception = helper.exception if named is None else named
        if helper.issues:  # a warning handed to `warn` is of its own class, whatever the category
            handed = dict(pending.keyword_classes).get(helper.parameter)
            if handed is None and 0 <= helper.position < len(pending.classes):
                handed = pending.classes[helper.position]
            exception = handed or exception or "UserWarning"
        if helper.kind == "raise":
            made = library.made_by_factory(helper, pending, exception, conditions)
            if not made:
                gives = len(pending.arguments) > helper.exception_position + 1
                what = "a message not built from literals" if gives else "a class that builds none"
                skipped.append(Skipped(site.line, f"raised from {helper.title} with {what}"))
            sites += made
            continue
        if not helper.parameter:  # the class a `with` of it names, with the message it builds
            built = library.built(exception) if exception else ()
            if not built:
                reason = f"raised through {helper.title} with a class that builds no message"
                skipped.append(Skipped(site.line, reason))
            sites += [
                dataclasses.replace(
                    site,
                    exception=exception,
                    template=template,
                    conditions=conditions,
                    helper=helper.title,
                    built_by=exception,
                )
                for template in built
            ]
            continue
        if not given or not exception:
            what = "a message not built from literals" if not given else "a class not named"
            verb = "issued" if helper.issues else "raised"
            skipped.append(Skipped(site.line, f"{verb} through {helper.title} with {what}"))
            continue
        if helper.conditions and not sentence(message.template for message in given):
            continue  # `self.header("content-type")`: a key it raises when missing
        field = "{" + helper.parameter + "}"
        for template in helper.templates:
            for argument, chosen in given:
                if helper.formats:  # `self.warn("could not create cache path {path}", path=…)`
                    argument = format_fields(argument)
                sites.append(
                    dataclasses.replace(
                        site,
                        exception=exception,
                        template=template.replace(field, argument),
                        conditions=(*conditions, *chosen),
                        helper=helper.title,
                        handed="warn" if helper.issues else site.handed,
                    )
                )
    sites.sort(key=lambda site: site.line)
    skipped.sort(key=lambda item: item.line)
    return sites, skipped


def conditions_through(helper: Helper, pending: Pending) -> tuple[str, ...] | None:
    """What holds when a call raises through a helper: what holds where the call is, then
    what must hold in the helper, as the call says it (its receiver for the helper's `self`,
    the names it gives for the parameters an `except` of a context manager reads); None
    when the call cannot say it (a method called through its class)."""
    said = []
    for condition in helper.conditions:
        if RECEIVER in condition:
            on = pending.called_on  # not a class: `Query.m(query)` is called on `query`
            if not on or is_class_name(on):
                return None
            condition = condition.replace(RECEIVER, on)
        given = names_given(condition, pending)
        if given is None:
            return None
        said.append(given)
    return (*pending.site.conditions, *said)


def sentence(templates: Iterable[str]) -> bool:
    """Whether a message has words apart (`No such item`), not a code (`not_found`)."""
    return any(" " in canonical(template).replace("{}", "").strip() for template in templates)


def not_its_own(template: str) -> bool:
    """A message a class builds that is not one of its own: built around one it is given
    (`f"{self.message} (see {url})"`), or of placeholders and punctuation only
    (`f"{self.status_code}: {self.detail}"`)."""
    parts = message_parts(template)
    literal = " ".join(p.text for p in parts if not p.is_placeholder)
    wraps = any(p.is_placeholder and p.name in ("message", "msg") for p in parts)
    return wraps or not WORDS_RE.search(literal)


WORDS_RE = re.compile(r"[^\W\d_]{2}")


def bound_otherwise(scope: ast.AST, name: str) -> bool:
    """Whether a function binds a name other than by assignment: `except E as name`, `with
    … as name`, an import, or a `global`/`nonlocal` statement."""
    for node in ast.walk(scope):
        names: list[str | None] = []
        if isinstance(node, ast.ExceptHandler):
            names = [node.name]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            names = [n.id for n in ast.walk(node.optional_vars) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names = list(node.names)
        if name in names:
            return True
    return False


def positional_parameters(function: FunctionNode, method: bool) -> list[str]:
    """The parameters a call of the function gives by position (a method's `self` or `cls`
    not counted; a static method's first one is)."""
    positional = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    return positional[1:] if method and not is_static(function) else positional


def given_argument(
    call: ast.Call, function: FunctionNode, method: bool, message: ast.expr
) -> ast.expr | None:
    """A message the function makes, as a call of it gives it: with the argument the call
    gives the parameter it is, or whose text it fills in (`msg.format_map({"field": …})`),
    by keyword or by position (a method's `self` not counted); with the text a variable of
    its own is given once (docker-py's `error_msg = '{0} param is not supported …'`, then
    `return errors.InvalidVersion(error_msg.format(…))`); or the message as it is written
    there; None for any other variable of the function's own."""
    held = template_variable(message)
    if held is None:
        return message
    if not is_parameter(function, held.id):
        bindings = local_assignments(function).get(held.id, [])
        text = assigned_value(bindings[0], held.id) if len(bindings) == 1 else None
        literal = isinstance(text, ast.Constant) and isinstance(text.value, str)
        return substituted(message, held.id, text) if text is not None and literal else None
    given = {k.arg: k.value for k in call.keywords if k.arg}
    if not any(isinstance(a, ast.Starred) for a in call.args):
        given.update(zip(positional_parameters(function, method), call.args, strict=False))
    argument = given.get(held.id)
    return None if argument is None else substituted(message, held.id, argument)


def as_called(call: ast.Call, function: FunctionNode, value: ast.expr) -> ast.expr | None:
    """What a function of the module, or a method of the caller's own instance, returns, as
    its caller reads it: each parameter as the call gives it, or its default (marshmallow's
    `(self.error or message).format(…)`, called as `self._format_error(value,
    self.message_equal)`); None where it reads a variable of its own, or a parameter the
    call does not give."""
    method = isinstance(call.func, ast.Attribute)
    receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    parameters = parameter_names(function)
    if method and (is_static(function) or parameters[:1] != [receiver]):
        return None  # another instance's, or a class's
    if any(isinstance(a, ast.Starred) for a in call.args) or any(not k.arg for k in call.keywords):
        return None
    given = {k.arg: k.value for k in call.keywords if k.arg}
    given.update(zip(positional_parameters(function, method), call.args, strict=False))
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    if names & set(local_assignments(function)):
        return None
    arguments: dict[str, ast.expr] = {}
    for name in names.intersection(parameters[1:] if method else parameters):
        argument = given.get(name) or parameter_default(function, name)
        if argument is None:
            return None
        arguments[name] = argument
    return with_values(value, arguments)


def with_values(expression: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    """The expression with each variable `values` names read as its value, all at once (a
    copy)."""

    def reading(node: ast.AST) -> ast.expr | None:
        if isinstance(node, ast.Name) and node.id in values:
            return copy.deepcopy(values[node.id])
        return None

    return replaced(copy.deepcopy(expression), reading)


def texts_where_none_given(
    function: FunctionNode,
    bound: tuple[dict[str, list[ast.stmt]], dict[int, Branch]],
    name: ast.Name,
    at: ast.stmt,
    on_path: set[tuple[int, int]],
) -> list[tuple[ast.expr, list[Condition]]]:
    """The texts a variable of a function (its assignments and branches `bound`) holds at a
    statement, what a caller gives it left out: a parameter's default when that is text with
    words apart, and each text the function sets it to on the way there."""
    default = parameter_default(function, name.id)
    found: list[tuple[ast.expr, list[Condition]]] = []
    if default is not None and spaced_text(default):
        found.append((default, []))
    assignments, where = bound
    if name.id in assignments:
        found += assigned_messages(name, assignments, at, on_path, where)
    return found


def kept_on_instance(init: FunctionNode) -> dict[str, str]:
    """The parameters an `__init__` keeps on its instance as they are (`self.removed =
    removed`), each with the attribute."""
    parameters = set(parameter_names(init))
    return {
        node.value.id: node.targets[0].attr
        for node in own_nodes(init)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Attribute)
        and dotted(node.targets[0].value) == "self"
        and isinstance(node.value, ast.Name)
        and node.value.id in parameters
    }


def read_on_instance(expression: ast.expr, kept: dict[str, str]) -> ast.expr:
    """An expression of an `__init__` with each parameter it keeps read from the instance
    (`removed` → `self.removed`), as its other methods read it (a copy)."""
    attributes: dict[str, ast.expr] = {
        name: ast.Attribute(ast.Name("self"), attribute) for name, attribute in kept.items()
    }
    return with_values(expression, attributes)


RECEIVER = "\x00"  # in a helper's conditions, where they read its own `self` (or `cls`)


def parameter_names(function: FunctionNode) -> list[str]:
    """Every parameter of a function: positional, keyword-only, `*args` and `**kwargs`."""
    arguments = function.args
    given = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    given += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [argument.arg for argument in given]


def callers_terms(
    conditions: Iterable[Condition], function: FunctionNode, method: bool, handled: bool = False
) -> tuple[str, ...] | None:
    """A helper's conditions as a caller would say them: tests only (a loop or `except` of
    the helper's is not the caller's), of its `self` (RECEIVER, for the caller's receiver)
    and names it does not bind; None when one reads anything else. For a context manager
    (`handled`), what it handles from the block too (`except`), which may read a parameter:
    a GIVEN mark, for the names the call gives it."""
    conditions = list(conditions)
    allowed = ("{}", "except {}") if handled else ("{}",)
    if not all(condition.form in allowed for condition in conditions):
        return None
    parameters = parameter_names(function)
    receiver = parameters[0] if method and parameters and not is_static(function) else ""
    marks = {
        name: ast.Name(GIVEN.format(f"{star}{place}:{name}"))
        for name, star, place in given_places(function, method)
        if handled
    }
    bound = {name for name in parameters if name != receiver} | set(local_assignments(function))
    bound -= marks.keys()
    said = []
    for condition in conditions:
        test = condition.code[0]
        assert isinstance(test, ast.expr)
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        if names & bound or any(bound_otherwise(function, name) for name in names):
            return None
        for name in names & {receiver, *marks}:
            test = substituted(test, name, marks.get(name, ast.Name(RECEIVER)))
        said.append(condition.form.format(ast.unparse(test)))
    return tuple(said)


GIVEN = "\x01{}\x01"  # a parameter a helper's conditions read: `*` for the rest, place, name
GIVEN_RE = re.compile("\x01(\\*?)(-?\\d+):(\\w+)\x01")
CONTEXT_MANAGERS = frozenset({"contextmanager", "asynccontextmanager"})


def dotted(node: ast.expr) -> str:
    """A name, or names joined by dots (`re.error`), as written; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := dotted(node.value)):
        return f"{base}.{node.attr}"
    return ""


def given_places(function: FunctionNode, method: bool) -> list[tuple[str, str, int]]:
    """Each parameter but a method's `self`: its name, `*` for `*args`, and its place among a
    call's positional arguments (-1 for one given by keyword only)."""
    positional = positional_parameters(function, method)
    places = [(name, "", place) for place, name in enumerate(positional)]
    places += [(a.arg, "", -1) for a in function.args.kwonlyargs]
    rest = function.args.vararg
    return places + ([(rest.arg, "*", len(positional))] if rest is not None else [])


def names_given(condition: str, pending: Pending) -> str | None:
    """A helper's condition with the names a call gives in place of the parameters it reads
    (`except except_types` of `change_exception(errors.X, TypeError, ValueError)`: `except
    (TypeError, ValueError)`); None where the call gives one no name (or a class's, by
    keyword)."""
    keyword_classes = dict(pending.keyword_classes)

    def given(match: re.Match[str]) -> str:
        rest, place, name = match.group(1), int(match.group(2)), match.group(3)
        if rest:
            named = list(pending.names[place:])
        elif name in keyword_classes:
            named = [keyword_classes[name]]
        else:
            named = [pending.names[place]] if 0 <= place < len(pending.names) else []
        if not named or not all(named):
            raise LookupError(name)
        return named[0] if len(named) == 1 else f"({', '.join(named)})"

    try:
        return GIVEN_RE.sub(given, condition)
    except LookupError:
        return None


def is_static(function: FunctionNode) -> bool:
    return any(last_name(d) == "staticmethod" for d in function.decorator_list)


def is_parameter(scope: ast.AST, name: str) -> bool:
    return isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in (
        parameter_names(scope)
    )


MESSAGE_KEYWORDS = ("message", "msg", "detail")
# What the `__str__` of a class that fills its first argument in with the others returns
FILLED_FROM_ARGUMENTS = frozenset(
    {"self.args[0] % self.args[1:]", "self.args[0] % tuple(self.args[1:])"}
)


def message_candidates(call: ast.Call, where: int | str | None) -> list[ast.expr]:
    """The arguments that can hold the message, the likeliest first: the one `where` names (a
    position or a keyword); by default a `message=`, `msg=` or `detail=` keyword, then each
    positional argument (`BadOptionUsage(option, _("…"))`: the first with literal text is the
    message)."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if isinstance(where, int):
        return call.args[where : where + 1]
    if where is not None:
        return [keywords[where]] if where in keywords else []
    named = [keywords[name] for name in MESSAGE_KEYWORDS if name in keywords]
    return named + list(call.args)


# Conditions: what holds where a statement runs, read from the statements around it.

NEGATED_COMPARISONS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
}


def negated(test: ast.expr) -> ast.expr:
    """The test that holds when `test` does not, written as a reader would: `x is not None`
    for `x is None`, `not a or b != 1` for `a and b == 1`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        opposite = NEGATED_COMPARISONS.get(type(test.ops[0]))
        if opposite is not None:
            return ast.Compare(test.left, [opposite()], test.comparators)
    if isinstance(test, ast.BoolOp):
        joined = ast.Or() if isinstance(test.op, ast.And) else ast.And()
        return ast.BoolOp(joined, [negated(value) for value in test.values])
    return ast.UnaryOp(ast.Not(), test)


def holds(test: ast.expr) -> list[Condition]:
    """A test as conditions: each side of an `and` its own, a test that holds in every run
    that matters none."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [condition for value in test.values for condition in holds(value)]
    if (isinstance(test, ast.Constant) and test.value) or (
        isinstance(test, ast.Name) and test.id == "__debug__"  # holds but with `python -O`
    ):
        return []
    return [Condition("{}", (test,))]


class Condition(NamedTuple):
    """A condition as the walk keeps it, made text only for a raise under it: a format and
    the code it names (`for {} in {}` of a target and an iterable; a test is `{}`)."""

    form: str
    code: tuple[ast.AST, ...] = ()


def condition_text(condition: Condition) -> str:
    return condition.form.format(*map(ast.unparse, condition.code))


def worded(messages: list[Message]) -> bool:
    return sentence(message.template for message in messages)


class Message(NamedTuple):
    """One message a raise can give, and what holds when it is the one: the test that chose it
    (`"…" if as_pypath else "…"`), beside what holds where the statement runs."""

    template: str
    conditions: tuple[Condition, ...] = ()


def chosen_once(messages: list[Message]) -> list[Message]:
    """Each template once: one that two choices give holds under what both say."""
    found: dict[str, tuple[Condition, ...]] = {}
    for template, conditions in messages:
        if template in found:
            said = set(map(condition_text, conditions))
            found[template] = tuple(c for c in found[template] if condition_text(c) in said)
        else:
            found[template] = conditions
    return [Message(template, conditions) for template, conditions in found.items()]


def body_conditions(node: ast.stmt) -> Iterator[tuple[list[ast.stmt], list[Condition]]]:
    """Each body of a compound statement, in source order, with what holds when it runs."""
    if isinstance(node, ast.If) and is_type_checking(node.test):  # only type checkers read it
        yield node.orelse, []
    elif isinstance(node, ast.If) and is_type_checking(negated(node.test)):
        yield node.body, []
    elif isinstance(node, ast.If):
        yield node.body, holds(node.test)
        yield node.orelse, holds(negated(node.test)) if node.orelse else []
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        yield node.body, [Condition("for {} in {}", (node.target, node.iter))]
        loop = (node.target, node.iter)
        yield node.orelse, [Condition("after for {} in {} without a break", loop)]
    elif isinstance(node, ast.While):
        yield node.body, [Condition("while {}", (node.test,))] if holds(node.test) else []
        yield node.orelse, [Condition("after while {} without a break", (node.test,))]
    elif isinstance(node, (ast.Try, ast.TryStar)):
        yield node.body, []
        for handler in node.handlers:
            caught = handler.type
            yield (
                handler.body,
                [Condition("except {}", (caught,)) if caught else Condition("except")],
            )
        yield node.orelse, []
        yield node.finalbody, []
    elif isinstance(node, ast.Match):
        for case in node.cases:
            guard = holds(case.guard) if case.guard is not None else []
            matched = Condition("match {}: case {}", (node.subject, case.pattern))
            yield case.body, [matched, *guard]
    elif isinstance(node, (*SCOPE_NODES, ast.With, ast.AsyncWith)):
        yield node.body, []


def is_type_checking(test: ast.expr) -> bool:
    """Whether a test is `TYPE_CHECKING` (or `typing.TYPE_CHECKING`), true for type
    checkers only: what it guards is read by them, never run."""
    return last_name(test) == "TYPE_CHECKING"


def after_guard(node: ast.stmt) -> list[Condition]:
    """What holds after an early exit (`if x is None: return`): for the statements after it."""
    if not isinstance(node, ast.If):
        return []
    if leaves(node.body) and not leaves(node.orelse):
        return holds(negated(node.test))
    if leaves(node.orelse) and not leaves(node.body):
        return holds(node.test)
    return []


def leaves(body: list[ast.stmt]) -> bool:
    """A body that always ends in `return`, `continue` or `break`."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Continue, ast.Break))


def scan_module(source: str, settings: ScanSettings | None = None) -> ModuleScan:
    """What one module says (SyntaxError when it cannot be read as Python: not Python, a NUL
    byte, or nested deeper than Python's parser or this walk can follow)."""
    try:
        tree = ast.parse(source)
        scanner = _Scanner(settings or ScanSettings(), tree)
        scanner.scan(tree.body, tree)
    except (ValueError, RecursionError, MemoryError) as exc:
        problem = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise SyntaxError(problem) from None
    return ModuleScan(
        tuple(scanner.sites),
        tuple(scanner.skipped),
        tuple(scanner.pending),
        tuple(scanner.classes),
        tuple(scanner.helpers),
        tuple(scanner.makers),
    )


def scan_source(
    source: str, settings: ScanSettings | None = None
) -> tuple[list[RaiseSite], list[Skipped]]:
    """Every raise site with a literal message in one module, read alone (its own classes
    and helpers known, no other module's)."""
    module = scan_module(source, settings)
    return resolved(module, Library([module]))
