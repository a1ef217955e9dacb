"""Read Python's syntax tree: names, parameters, bodies, and expressions rewritten."""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable, Iterator

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


Scope = FunctionNode | ast.ClassDef


SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # what `RaiseSite.scope` names


Span = tuple[tuple[int, int], ...]  # the lines of each statement of one body


EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning")  # how exception classes are named


CAP_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")


def last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def dotted(node: ast.expr) -> str:
    """A name, or names joined by dots (`re.error`), as written; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := dotted(node.value)):
        return f"{base}.{node.attr}"
    return ""


def is_class_name(name: str) -> bool:
    return name.lstrip("_")[:1].isupper()


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


def class_named(argument: ast.expr) -> str:
    """The class an argument names (`TemplateAssertionError`, `errors.Bad`), or ""."""
    name = last_name(argument)
    return name if name is not None and is_class_name(name) else ""


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


def receiver_name(function: ast.expr) -> str:
    """The name a method is called on (`parser` of `parser.fail(…)`, `node` of
    `request.node.warn(…)`), if it is one."""
    if isinstance(function, ast.Attribute):
        return last_name(function.value) or ""
    return ""


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


def parameter_names(function: FunctionNode) -> list[str]:
    """Every parameter of a function: positional, keyword-only, `*args` and `**kwargs`."""
    arguments = function.args
    given = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    given += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [argument.arg for argument in given]


def positional_parameters(function: FunctionNode, method: bool) -> list[str]:
    """The parameters a call of the function gives by position (a method's `self` or `cls`
    not counted; a static method's first one is)."""
    positional = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    return positional[1:] if method and not is_static(function) else positional


def is_static(function: FunctionNode) -> bool:
    return any(last_name(d) == "staticmethod" for d in function.decorator_list)


def is_parameter(scope: ast.AST, name: str) -> bool:
    return isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in (
        parameter_names(scope)
    )


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


def base_names(node: ast.ClassDef) -> tuple[str, ...]:
    """The names of a class's bases (`Base` of `Base[T]`)."""
    generic = [base.value if isinstance(base, ast.Subscript) else base for base in node.bases]
    return tuple(name for name in map(last_name, generic) if name)


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


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's (or a module's) body in source order, its nested functions,
    classes and lambdas left out."""
    pending: list[ast.AST] = list(reversed(getattr(function, "body", [])))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (*SCOPE_NODES, ast.Lambda)):
            pending += reversed(list(ast.iter_child_nodes(node)))


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


def with_values(expression: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    """The expression with each variable `values` names read as its value, all at once (a
    copy)."""

    def reading(node: ast.AST) -> ast.expr | None:
        if isinstance(node, ast.Name) and node.id in values:
            return copy.deepcopy(values[node.id])
        return None

    return replaced(copy.deepcopy(expression), reading)
