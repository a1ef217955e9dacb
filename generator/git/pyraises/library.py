"""Every module of a commit together: resolve raises naming other modules' helpers and classes."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Set

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
from errpages.git.pyraises.nodes import classes_named_after, named_after
from errpages.git.pyraises.scanner import MESSAGE_KEYWORDS, scan_module
from errpages.git.pyraises.templates import format_fields, sentence
from errpages.git.pyraises.terms import conditions_through

MAX_LINEAGE = 50  # classes in a chain of bases followed


MAX_RELAYS = 3  # helpers handing a message on to another, followed


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
        return self.through(found, kind, depth)

    def through(self, found: Helper | None, kind: CallKind, depth: int) -> Helper | None:
        """A helper, a relay resolved to what the helper it hands its parameter on to raises
        or issues, or else to its fallback (which may hand it on elsewhere)."""
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
            return self.through(found.fallback, kind, depth)
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


def scan_source(
    source: str, settings: ScanSettings | None = None
) -> tuple[list[RaiseSite], list[Skipped]]:
    """Every raise site with a literal message in one module, read alone (its own classes
    and helpers known, no other module's)."""
    module = scan_module(source, settings)
    return resolved(module, Library([module]))
