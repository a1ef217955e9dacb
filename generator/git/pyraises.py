"""Find the places a Python module raises with a message, and each message as a template.

A template is the message as the records write it: literal text with
`{placeholders}` for the parts computed at run time, braces doubled. We read
what Python would join: adjacent literals, f-strings, `+` of strings, `%` and
`.format()` on a literal. A placeholder is named after its expression where
that is simple (`cfg.backend!r` → `{backend!r}`), else `{value}`.
"""

from __future__ import annotations

import ast
import copy
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field

from generator.content.messages import message_parts

SIMPLE_FORMAT_RE = re.compile(r"%(?:\((\w+)\))?([-#0 +]*\d*(?:\.\d+)?)([sdirfgexXoc%])")


Span = tuple[tuple[int, int], ...]  # the lines of each statement of one body


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


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str


def canonical(template: str) -> str:
    """A template with placeholder names dropped and white space folded, for comparing."""
    parts = []
    for part in message_parts(template):
        parts.append(
            "{}" if part.is_placeholder else part.text.replace("{", "{{").replace("}", "}}")
        )
    return " ".join("".join(parts).split())


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


def placeholder(name: str, conversion: str = "", spec: str = "") -> str:
    return (
        "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
    )


# Functions that mark a literal for translation and return it (or its translation): the
# message is the literal's (`_("Invalid value %r") % value`).
TRANSLATE_FUNCTIONS = frozenset({"_", "gettext", "gettext_lazy", "ugettext", "gettext_noop"})


def literal_text(node: ast.expr) -> str | None:
    """A string literal's text, also when it is marked for translation; None for the rest."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in TRANSLATE_FUNCTIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def template_of(node: ast.expr, names: _Names) -> str | None:
    """The message template an expression builds, or None when it is not built from literals."""
    text = literal_text(node)
    if text is not None:
        return escape_literal(text)
    if isinstance(node, ast.JoinedStr):
        return fstring_template(node, names)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = template_of(node.left, names)
        right = template_of(node.right, names)
        if left is None and right is None:
            return None
        return (left or placeholder(names.name(node.left))) + (
            right if right is not None else placeholder(names.name(node.right))
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        text = literal_text(node.left)
        return None if text is None else percent_template(text, node.right, names)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        text = literal_text(node.func.value)
        if node.func.attr == "format" and text is not None:
            return format_template(text, node, names)
    return None


def fstring_template(node: ast.JoinedStr, names: _Names) -> str:
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(escape_literal(str(value.value)))
        elif isinstance(value, ast.FormattedValue):
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
        key, _, kind = found.groups()
        if kind == "%":
            result.append("%")
            continue
        conversion = "r" if kind == "r" else ""
        if (key and mapping is not None) or key:
            result.append(placeholder(key, conversion))
        elif index < len(values):
            result.append(placeholder(names.name(values[index]), conversion))
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
        if root == "":
            argument = call.args[auto] if auto < len(call.args) else None
            auto += 1
        elif root.isdigit():
            position = int(root)
            argument = call.args[position] if position < len(call.args) else None
        else:
            argument = keywords.get(root)
        # A keyword field keeps the name its author gave it; a positional one is named by its value,
        # or by what the field reads of it (`{0.status_code}`, `{0[location]}`).
        positional = root == "" or root.isdigit()
        if positional and argument is not None:
            part = re.split(r"[.\[\]]", field_name)[-2 if field_name.endswith("]") else -1]
            read = part if field_name != root and part.isidentifier() else ""
            name = read or names.name(argument)
        else:
            name = root or "value"
        result.append(placeholder(name, conversion or "", spec or ""))
    return "".join(result)


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


def last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def is_class_name(name: str) -> bool:
    return name.lstrip("_")[:1].isupper()


def local_assignments(scope: ast.AST) -> dict[str, list[ast.stmt]]:
    """Each name's binding statements directly in a function (or module) body, nested
    functions and classes left out: what a raise of a variable can follow."""
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
                    if isinstance(name, ast.Name):
                        found.setdefault(name.id, []).append(node)
        elif isinstance(node, ast.NamedExpr):
            found.setdefault(node.target.id, []).append(node)  # type: ignore[arg-type]
        pending.extend(ast.iter_child_nodes(node))
    return found


def assigned_messages(
    name: ast.Name,
    scope: dict[str, list[ast.stmt]],
    after: int,
    raised: ast.stmt,
    on_path: set[tuple[int, int]],
    where: dict[int, Branch],
) -> list[ast.expr]:
    """The messages a plain variable can hold at the statement `raised`, from its assignments
    in order since line `after` (the last raise of the same variable, which the assignments
    before it were for). An assignment on the way to the raise (`on_path`: in a body that
    holds it) replaces what the variable held; one in a branch off it adds a value;
    `msg = msg + "…"` and `msg += "…"` join onto each value that can reach them (not one
    set in the other branch of an `if`: `where` says which branches each statement is in).
    None when a binding of the name in its function is anything else (a loop, a tuple)."""
    values: list[tuple[ast.expr, tuple[Branch, ...]]] = []  # each with the branches it needs
    for statement in sorted(scope.get(name.id, []), key=lambda statement: statement.lineno):
        value = assigned_value(statement, name.id)
        if value is None:
            return []
        if not after < statement.lineno < raised.lineno:
            continue
        here = where.get(id(statement), ())
        if any(isinstance(n, ast.Name) and n.id == name.id for n in ast.walk(value)):
            made = [
                (substituted(value, name.id, held), (*needs, here))
                for held, needs in values
                if not any(exclusive(need, here) for need in needs)
            ]
            if not made:
                return []  # joined onto a value from elsewhere (a parameter)
        else:
            made = [(value, (here,))]
        values = made if statement_span(statement) in on_path else values + made
        if len(values) > MAX_MESSAGES:
            return []
    there = where.get(id(raised), ())
    return [held for held, needs in values if not any(exclusive(n, there) for n in needs)]


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
    """What a plain binding `name = …` (or `name += …`) gives the name; None for any other."""
    if isinstance(statement, ast.AugAssign):
        if isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name):
            return ast.BinOp(ast.Name(name, ast.Load()), ast.Add(), statement.value)
        return None
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return statement.value if len(targets) == 1 and isinstance(targets[0], ast.Name) else None


def template_variable(message: ast.expr) -> ast.Name | None:
    """The variable a message is, or whose text it fills in (`err % args`, `err.format(…)`)."""
    if isinstance(message, ast.BinOp) and isinstance(message.op, ast.Mod):
        message = message.left
    elif (
        isinstance(message, ast.Call)
        and isinstance(message.func, ast.Attribute)
        and message.func.attr == "format"
    ):
        message = message.func.value
    return message if isinstance(message, ast.Name) else None


def substituted(expression: ast.expr, name: str, value: ast.expr) -> ast.expr:
    """The expression with `value` where it reads the variable `name` (a copy)."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            return copy.deepcopy(value) if node.id == name else node

    result: ast.expr = Substitute().visit(copy.deepcopy(expression))
    return result


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


SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # what `RaiseSite.scope` names


class _Scanner:
    """Walks the statements only (a raise or an assert is never inside an expression)."""

    def __init__(self, message_arguments: Mapping[str, int | str]) -> None:
        self.message_arguments = message_arguments
        self.sites: list[RaiseSite] = []
        self.skipped: list[Skipped] = []
        self.bodies: list[Span] = []  # the bodies the walk is in, outermost first
        self.functions: list[tuple[int, int]] = []
        self.names: list[str] = []  # the classes and functions the walk is in
        self.scope: ast.AST = ast.Module([], [])  # the function (or module) of the raise at hand
        # Per function (or module): each name's bindings, and where each statement is.
        self.scopes: dict[int, tuple[dict[str, list[ast.stmt]], dict[int, Branch]]] = {}
        self.raised: dict[tuple[int, str], int] = {}  # the last raise of a variable, by scope

    def scan(self, statements: list[ast.stmt], scope: ast.AST) -> None:
        self.bodies.append(tuple(map(statement_span, statements)))
        for node in statements:
            if isinstance(node, ast.Raise):
                self.scope = scope
                self.visit_raise(node)
            elif isinstance(node, ast.Assert):
                self.scope = scope
                self.visit_assert(node)
            function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            name = node.name if isinstance(node, SCOPE_NODES) else None
            if function:
                self.functions.append(statement_span(node))
            if name is not None:
                self.names.append(name)
            for body in inner_bodies(node):
                self.scan(body, node if function else scope)
            if function:
                self.functions.pop()
            if name is not None:
                self.names.pop()
        self.bodies.pop()

    def messages_of(self, message: ast.expr, raised: ast.stmt) -> list[ast.expr]:
        """The message expression, or, where a plain variable holds it or its template
        (`msg`, `err % args`, `err.format(…)`), each value the variable was assigned."""
        held = template_variable(message)
        if held is None:
            return [message]
        scope = self.scope
        if id(scope) not in self.scopes:
            self.scopes[id(scope)] = local_assignments(scope), branches(scope)
        assignments, where = self.scopes[id(scope)]
        after = self.raised.get((id(scope), held.id), 0)
        self.raised[id(scope), held.id] = raised.lineno
        on_path = {span for body in self.bodies for span in body}
        found = assigned_messages(held, assignments, after, raised, on_path, where)
        return [substituted(message, held.id, value) for value in found] or [message]

    def visit_raise(self, node: ast.Raise) -> None:
        if node.exc is None:
            return
        call = node.exc
        if not isinstance(call, ast.Call):
            raised = last_name(call) or "an exception"
            self.skipped.append(Skipped(node.lineno, f"{raised} raised without a message"))
            return
        name = exception_name(call)
        if name is None:
            self.skipped.append(Skipped(node.lineno, "not an exception class (a CapWords name)"))
            return
        message = message_argument(call, self.message_arguments.get(name))
        if message is None:
            self.skipped.append(Skipped(node.lineno, f"{name} raised without a message"))
            return
        self.add(node, name, message)

    def visit_assert(self, node: ast.Assert) -> None:
        if node.msg is None:
            self.skipped.append(Skipped(node.lineno, "assert without a message"))
            return
        self.add(node, "AssertionError", node.msg)

    def add(self, node: ast.stmt, exception: str, message: ast.expr) -> None:
        """A raise site for each message the statement can raise (a variable assigned in
        two branches: two), or the reason it is skipped."""
        reason, templates = "", []
        for expression in self.messages_of(message, node):
            template = template_of(expression, _Names())
            if exception in self.message_arguments and isinstance(expression, ast.Constant):
                # A class named in the settings fills its message's {fields} in itself.
                filled = ast.Call(ast.Name("str"), [], [])
                template = format_template(str(expression.value), filled, _Names()) or template
            if template is None:
                reason = reason or "message is not built from string literals"
            elif not canonical(template).replace("{}", "").strip():
                reason = reason or "message has no literal text"
            elif template not in templates:
                templates.append(template)
        if not templates:
            self.skipped.append(Skipped(node.lineno, reason))
        for template in templates:
            self.sites.append(
                RaiseSite(
                    line=node.lineno,
                    end_line=node.end_lineno or node.lineno,
                    exception=exception,
                    template=template,
                    bodies=tuple(reversed(self.bodies)),
                    function=self.functions[-1] if self.functions else None,
                    scope=".".join(self.names),
                )
            )


def message_argument(call: ast.Call, where: int | str | None) -> ast.expr | None:
    """The argument that holds the message: the one `where` names (a position or a keyword);
    by default a `message=` keyword, else the first argument."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if isinstance(where, int):
        return call.args[where] if where < len(call.args) else None
    if where is not None:
        return keywords.get(where)
    return keywords.get("message") or (call.args[0] if call.args else None)


def scan_source(
    source: str, message_arguments: Mapping[str, int | str] | None = None
) -> tuple[list[RaiseSite], list[Skipped]]:
    """Every raise site with a literal message in one module (SyntaxError when it cannot be
    read as Python: not Python, a NUL byte, or nested deeper than Python's parser or this
    walk can follow). `message_arguments`: exception classes whose message is another
    argument than the first (site.yaml's setting of that name)."""
    try:
        tree = ast.parse(source)
        scanner = _Scanner(message_arguments or {})
        scanner.scan(tree.body, tree)
    except (ValueError, RecursionError, MemoryError) as exc:
        problem = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise SyntaxError(problem) from None
    return scanner.sites, scanner.skipped
