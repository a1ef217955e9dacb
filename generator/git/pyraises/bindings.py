"""What a name holds where a raise reads it: assignments, lists built, values an instance keeps."""

from __future__ import annotations

import ast
import copy
from typing import NamedTuple

from errpages.git.pyraises.conditions import (
    Branch,
    Condition,
    branches,
    condition_text,
    exclusive,
    left_behind,
    negated,
    off_the_way,
)
from errpages.git.pyraises.nodes import (
    FunctionNode,
    dotted,
    is_parameter,
    is_static,
    last_name,
    own_nodes,
    parameter_default,
    parameter_names,
    positional_parameters,
    statement_span,
    substituted,
    with_values,
)
from errpages.git.pyraises.templates import choices, literal_text, spaced_text, template_variable

MAX_MESSAGES = 16  # more possible messages for one raise than a scan should make drafts of


# More items than a message is made of (a table of lines): the list is not read, and the
# file stays readable (each item one level deeper in the expression a template is read from)
MAX_JOINED = 64


LIST_ADDITIONS = frozenset({"append", "extend"})


TEXT_KEEPING = frozenset({"decode", "str", "unicode", "text_type"})  # as Python 2 code did


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


def same_text(value: ast.expr, name: str) -> bool:
    """Whether a value is the text a variable holds, as text: `name.decode("utf-8")`,
    `unicode(name)`, `six.text_type(name)`."""
    if not isinstance(value, ast.Call) or last_name(value.func) not in TEXT_KEEPING:
        return False
    decoded = isinstance(value.func, ast.Attribute) and value.func.attr == "decode"
    held = [value.func.value] if isinstance(value.func, ast.Attribute) and decoded else value.args
    return len(held) == 1 and isinstance(held[0], ast.Name) and held[0].id == name


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


def list_items(value: ast.expr) -> list[ast.expr] | None:
    """The items a list expression holds (`[a] + [b]`: a, b); None for any other."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return None if any(isinstance(e, ast.Starred) for e in value.elts) else list(value.elts)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        left, right = list_items(value.left), list_items(value.right)
        return None if left is None or right is None else left + right
    return None


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
