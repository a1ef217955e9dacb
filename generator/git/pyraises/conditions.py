"""What holds where a statement runs, read from the statements around it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import NamedTuple

from errpages.git.pyraises.nodes import SCOPE_NODES, inner_bodies, last_name


class Condition(NamedTuple):
    """A condition as the walk keeps it, made text only for a raise under it: a format and
    the code it names (`for {} in {}` of a target and an iterable; a test is `{}`)."""

    form: str
    code: tuple[ast.AST, ...] = ()


def condition_text(condition: Condition) -> str:
    return condition.form.format(*map(ast.unparse, condition.code))


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


def is_type_checking(test: ast.expr) -> bool:
    """Whether a test is `TYPE_CHECKING` (or `typing.TYPE_CHECKING`), true for type
    checkers only: what it guards is read by them, never run."""
    return last_name(test) == "TYPE_CHECKING"


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


def left_behind(branch: Branch, there: Branch) -> bool:
    """Whether a value set in these bodies cannot reach the raise: one of them, not one the
    raise is in, is a branch of an `if` (or a `match`) that ends by returning or raising."""
    return any(
        (node, index) not in there
        and isinstance(node, (ast.If, ast.Match))
        and isinstance(inner_bodies(node)[index][-1], (ast.Return, ast.Raise))
        for node, index in branch
    )


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
