"""A helper's conditions said in its callers' terms, and read back at each call."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from errpages.git.pyraises.bindings import bound_otherwise, local_assignments
from errpages.git.pyraises.conditions import Condition
from errpages.git.pyraises.model import Helper, Pending
from errpages.git.pyraises.nodes import (
    FunctionNode,
    is_class_name,
    is_static,
    parameter_names,
    positional_parameters,
    substituted,
)

RECEIVER = "\x00"  # in a helper's conditions, where they read its own `self` (or `cls`)


GIVEN = "\x01{}\x01"  # a parameter a helper's conditions read: `*` for the rest, place, name


GIVEN_RE = re.compile("\x01(\\*?)(-?\\d+):(\\w+)\x01")


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


def given_places(function: FunctionNode, method: bool) -> list[tuple[str, str, int]]:
    """Each parameter but a method's `self`: its name, `*` for `*args`, and its place among a
    call's positional arguments (-1 for one given by keyword only)."""
    positional = positional_parameters(function, method)
    places = [(name, "", place) for place, name in enumerate(positional)]
    places += [(a.arg, "", -1) for a in function.args.kwonlyargs]
    rest = function.args.vararg
    return places + ([(rest.arg, "*", len(positional))] if rest is not None else [])


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
