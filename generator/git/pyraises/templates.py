"""A message as the records write it: literal text with `{placeholders}`, braces doubled."""

from __future__ import annotations

import ast
import copy
import inspect
import re
import string
import textwrap
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from errpages.git.pyraises.conditions import Condition, condition_text, holds, negated
from errpages.git.pyraises.nodes import last_name, replaced, swapping
from errpages.site.messages import canonical, message_parts

SIMPLE_FORMAT_RE = re.compile(r"%(?:\((\w+)\))?([-#0 +]*\d*(?:\.\d+)?)([sdirfgexXoc%])")


WORDS_RE = re.compile(r"[^\W\d_]{2}")


# Built-in functions that only convert, count or order their argument: a call of one is
# named after what it is given (`sorted(names)` → `{names}`, `len(items)` → `{items_len}`).
CONVERTERS = frozenset(
    "abs ascii bin bool chr dict float format frozenset hex int iter list max min next oct "
    "ord repr reversed round set sorted str sum tuple vars".split()
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


class Message(NamedTuple):
    """One message a raise can give, and what holds when it is the one: the test that chose it
    (`"…" if as_pypath else "…"`), beside what holds where the statement runs."""

    template: str
    conditions: tuple[Condition, ...] = ()


def worded(messages: list[Message]) -> bool:
    return sentence(message.template for message in messages)


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


def has_text(message: ast.JoinedStr) -> bool:
    """Whether an f-string has text of its own, beside what it fills in."""
    return any(
        isinstance(part, ast.Constant) and any(c.isalnum() for c in str(part.value))
        for part in message.values
    )


def is_sentence(text: ast.expr) -> bool:
    """Whether a text reads as a sentence of its own: five words or more."""
    return len((template_of(text, _Names()) or "").split()) >= 5


def spaced_text(node: ast.expr) -> bool:
    """Whether an expression holds a string literal with a space in it."""
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and " " in n.value
        for n in ast.walk(node)
    )


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
