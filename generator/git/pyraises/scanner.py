"""Walk one module: its raises, warnings, helpers, classes and the raises left to resolve."""

from __future__ import annotations

import ast
import collections
import dataclasses
import functools
import itertools
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from errpages.git.pyraises.bindings import (
    MAX_MESSAGES,
    InitStore,
    as_called,
    assigned_messages,
    assigned_value,
    bound_otherwise,
    given_argument,
    joined_items,
    joined_list,
    kept_on_instance,
    list_additions,
    local_assignments,
    only_built,
    read_on_instance,
    texts_where_none_given,
)
from errpages.git.pyraises.conditions import (
    Branch,
    Condition,
    after_guard,
    body_conditions,
    branches,
    condition_text,
    exclusive,
    holds,
    negated,
)
from errpages.git.pyraises.model import (
    CallKind,
    ExceptionClass,
    Given,
    Helper,
    MessageMaker,
    ModuleScan,
    Pending,
    RaiseSite,
    Relay,
    ScanSettings,
    Skipped,
)
from errpages.git.pyraises.nodes import (
    EXCEPTION_SUFFIXES,
    SCOPE_NODES,
    FunctionNode,
    Scope,
    Span,
    base_names,
    class_default,
    class_named,
    dotted,
    exception_name,
    inner_bodies,
    instance_class,
    is_class_name,
    is_none,
    is_parameter,
    last_name,
    own_calls,
    own_nodes,
    parameter_default,
    parameter_names,
    positional_parameters,
    receiver_name,
    returned_values,
    stated,
    statement_span,
    substituted,
    written_annotation,
)
from errpages.git.pyraises.templates import (
    SIMPLE_FORMAT_RE,
    Message,
    _Names,
    choices,
    chosen_once,
    escape_literal,
    format_template,
    has_text,
    is_sentence,
    literal_text,
    not_its_own,
    percent_template,
    sentence,
    spaced_text,
    template_attribute,
    template_of,
    template_variable,
    text_forms,
    translated_forms,
    worded,
)
from errpages.git.pyraises.terms import callers_terms
from errpages.pylex import RAISING_CALLS
from errpages.site.messages import canonical

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


CONTEXT_MANAGERS = frozenset({"contextmanager", "asynccontextmanager"})


MESSAGE_KEYWORDS = ("message", "msg", "detail")


# What the `__str__` of a class that fills its first argument in with the others returns
FILLED_FROM_ARGUMENTS = frozenset(
    {"self.args[0] % self.args[1:]", "self.args[0] % tuple(self.args[1:])"}
)


# Tables of error messages: a class attribute named like these, a dict of literal keys to
# messages, as validation libraries keep them (Django's forms, DRF, marshmallow), where the
# exception raised with each is a ValidationError.
TABLE_NAMES = ("default_error_messages", "error_messages")


# A class attribute holding the message the class raises with (pydantic 1's errors, DRF's
# exceptions): `class NotFound(APIException): default_detail = _("Not found.")`.
TEMPLATE_ATTRIBUTES = ("msg_template", "message_template", "default_message", "default_detail")


DEFAULT_ATTRIBUTES = ("default_message", "default_detail")  # for a raise that gives none


TABLE_EXCEPTION = "ValidationError"


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
                items=tuple(self.spread_templates(node, a) for a in call.args if kind == "raise"),
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

    def spread_templates(self, node: ast.stmt, argument: ast.expr) -> tuple[tuple[Given, ...], ...]:
        """What the messages of each item an argument is spread into can be: a tuple's items,
        or the argument itself (`(c)`, one character)."""
        elements = argument.elts if isinstance(argument, ast.Tuple) else [argument]
        return tuple(self.argument_templates(node, element) for element in elements)

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
                if self.visit_relays(node, calls):
                    return
        self.visit_guarded(node)

    def visit_relays(self, node: FunctionNode, calls: list[tuple[ast.Expr, ast.Call]]) -> bool:
        """Whether a function hands one of its parameters on to what may be another helper:
        the call it ends in, else one in another branch of the same `if` (pytest 3.8's
        `Node.warn`, `self._std_warn(warning)` if given a warning, else
        `self._legacy_warn(code, message)`), else its own raise under a condition."""
        where = branches(node)
        relays: list[tuple[ast.Expr, Helper]] = []
        for statement, call in reversed(calls):  # the one it ends in first
            if relays and not exclusive(where[id(relays[-1][0])], where[id(statement)]):
                continue
            if self.visit_relay(node, statement, call):
                relays.append((statement, self.helpers.pop()))
        if not relays:
            return False
        fallback = self.helpers.pop() if self.visit_guarded(node) else None
        for _, relay in reversed(relays):
            fallback = dataclasses.replace(relay, fallback=fallback)
        assert fallback is not None
        self.helpers.append(fallback)
        return True

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
