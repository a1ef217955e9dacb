"""What scan reads around a raise (its conditions, function and neighbours), what it finds
that a plain `raise X("…")` reader misses, and drift telling when the conditions change."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from bs4 import BeautifulSoup

from errpages.git.pyraises.library import scan_source
from errpages.git.pyraises.model import ScanSettings
from tests.conftest import run_cli
from tests.gitrepo import GitRepo
from tests.test_export import explain, export
from tests.test_scan import scan_json

GUARDS = """\
def nested(cfg):
    if cfg.mode == "decode":
        if cfg.offload and cfg.backend is None:
            raise ValueError("offload needs a storage backend")


def chain(kind):
    if kind == "a":
        return 1
    elif kind in ("b", "c"):
        return 2
    else:
        raise ValueError(f"unknown kind {kind!r}")


def early(path, strict):
    if path is None:
        return None
    if not strict:
        return path
    raise FileNotFoundError(f"no file at {path}")


def loop(items):
    for item in items:
        if item < 0:
            raise ValueError(f"negative item {item}")
    while items:
        raise RuntimeError("still items left")


def caught(table, key):
    try:
        return table[key]
    except (KeyError, IndexError):
        raise LookupError(f"no entry {key!r}") from None


def asserted(count):
    assert count >= 0, f"count must not be negative, got {count}"


def compound(a, b, c):
    if a or b:
        return
    if not (b and c):
        raise ValueError("neither b nor c")


def matched(command):
    match command:
        case ("go", direction) if direction != "up":
            raise ValueError(f"cannot go {direction}")


class Widget:
    def check(self):
        if self.size > 10:
            raise ValueError("widget too large")

    def render(self):
        if self.size > 10:
            raise ValueError("widget too large to render")
        if self.size < 0:
            raise ValueError("widget size is negative")


def loop_else(params):
    for param in params:
        if param.name == "request":
            break
    else:
        raise ValueError("no request parameter")


def debug_only(x):
    if __debug__:
        if x is None:
            raise ValueError("x must be given")


def resolve(arg, as_pypath, exists):
    if not exists:
        msg = (
            "module or package not found: {arg}"
            if as_pypath
            else "file or directory not found: {arg}"
        )
        raise UsageError(msg.format(arg=arg))


def validated(value, length):
    if not isinstance(value, list):
        msg = f"expected a list, got {value!r}"
    elif length is not None and len(value) != length:
        msg = f"expected {length} items"
    else:
        return value
    raise ValidationError(msg)


def named(name, undefined):
    msg = f"no filter named {name!r}"
    if undefined:
        try:
            name.fail()
        except Exception as e:
            msg = f"{msg} ({e}; quote it?)"
    raise RuntimeError(msg)


def status(error, line):
    raise ProtocolError(error or f"bad status line {line!r}")


def parsed(arg, parts):
    if len(parts) > 5:
        raise UsageError("while parsing {arg!r}: {error}".format(arg=arg, error="too many fields"))
    raise KeyError("no %s named %s" % ("widget", arg))
"""

EXPECTED = {
    "offload needs a storage backend": (
        "nested",
        ("cfg.mode == 'decode'", "cfg.offload", "cfg.backend is None"),
    ),
    "unknown kind {kind!r}": ("chain", ("kind != 'a'", "kind not in ('b', 'c')")),
    "no file at {path}": ("early", ("path is not None", "strict")),
    "negative item {item}": ("loop", ("for item in items", "item < 0")),
    "still items left": ("loop", ("while items",)),
    "no entry {key!r}": ("caught", ("except (KeyError, IndexError)",)),
    "count must not be negative, got {count}": ("asserted", ("count < 0",)),
    "neither b nor c": ("compound", ("not a", "not b", "not (b and c)")),
    "cannot go {direction}": (
        "matched",
        ("match command: case ['go', direction]", "direction != 'up'"),
    ),
    "widget too large": ("Widget.check", ("self.size > 10",)),
    "widget too large to render": ("Widget.render", ("self.size > 10",)),
    "widget size is negative": ("Widget.render", ("self.size < 0",)),
    "no request parameter": ("loop_else", ("after for param in params without a break",)),
    "x must be given": ("debug_only", ("x is None",)),
    # A message chosen by a test holds when the test does; text filled in is the message's own.
    "module or package not found: {arg}": ("resolve", ("not exists", "as_pypath")),
    "file or directory not found: {arg}": ("resolve", ("not exists", "not as_pypath")),
    "expected a list, got {value!r}": ("validated", ("not isinstance(value, list)",)),
    "expected {length} items": (
        "validated",
        ("isinstance(value, list)", "length is not None", "len(value) != length"),
    ),
    "no filter named {name!r}": ("named", ()),
    "no filter named {name!r} ({e}; quote it?)": ("named", ("undefined",)),  # not `except`
    "bad status line {line!r}": ("status", ("not error",)),
    "while parsing {arg!r}: too many fields": ("parsed", ("len(parts) > 5",)),
    "no widget named {arg}": ("parsed", ()),
}


def test_each_guard_shape_gives_its_conditions() -> None:
    sites, _ = scan_source(GUARDS)
    assert {s.template: (s.scope, s.conditions) for s in sites} == EXPECTED


def drafts(content: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    found = (yaml.safe_load(p.read_text()) for p in (content / "errors").rglob("*.yaml"))
    return {data["message"]: data for data in found}


def scanned(tmp_path: Path, make_content, files: dict[str, str]):  # type: ignore[no-untyped-def]
    """Scan a repository of these files: the summary, and the drafts by message."""
    repo = GitRepo(tmp_path / "project")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("first")
    content = make_content({})
    return scan_json(repo, content), drafts(content)


def what_and_where(records: dict[str, dict]) -> dict[str, tuple[str, int, str | None]]:  # type: ignore[type-arg]
    """Each draft's exception, line and kind, by its message."""
    return {m: (r["exception"], r["source"]["line"], r.get("kind")) for m, r in records.items()}


def raised_where(content: Path) -> dict[str, tuple[str, str, int]]:
    """Each draft's exception, path and line, by its message."""
    return {
        message: (data["exception"], data["source"]["path"], data["source"]["line"])
        for message, data in drafts(content).items()
    }


def test_a_draft_says_what_the_code_says_and_the_page_shows_it(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/guards.py", GUARDS)
    repo.commit("first")
    content = make_content({})
    scan_json(repo, content)
    records = drafts(content)
    nested = records["offload needs a storage backend"]
    assert nested["source"]["function"] == "nested"
    assert nested["source"]["conditions"] == list(EXPECTED[nested["message"]][1])
    assert nested["when"]["trigger"] == (
        "Raised in `nested` when `cfg.mode == 'decode'`, `cfg.offload` and `cfg.backend is None`."
    )
    assert records["no entry {key!r}"]["when"]["trigger"] == (
        "Raised in `caught`, while handling `(KeyError, IndexError)`."
    )
    assert records["still items left"]["when"]["trigger"] == (
        "Raised in `loop`, in the loop `while items`."
    )
    assert "TO BE WRITTEN" in nested["meaning"] and "TO BE WRITTEN" not in str(nested["when"])
    # Related: the raises in the file that share a condition (first), or a tested name.
    ids = {message: data["id"] for message, data in records.items()}
    assert records["widget too large"]["related"] == [
        ids["widget too large to render"],
        ids["widget size is negative"],
    ]
    assert records["widget size is negative"]["related"] == [
        ids["widget too large to render"],
        ids["widget too large"],
    ]
    assert "related" not in records["no entry {key!r}"]
    api_built = run_cli(
        "build", "--content", str(content), "--out", str(tmp_path / "s"), "--drafts"
    )
    assert api_built.exit_code == 0, api_built.output
    api = json.loads((tmp_path / "s" / "api" / "errors" / f"{nested['id']}.json").read_text())
    assert api["source"]["conditions"] == nested["source"]["conditions"]
    # Each page of it says the code's sentence once: in the draft's trigger, as scan wrote
    # it or with more said, and beside the snippet once the trigger is written anew.
    sentence = "Raised in nested when cfg.mode == 'decode', cfg.offload and cfg.backend is None."
    record_file = next(
        p for p in (content / "errors").rglob("*.yaml") if nested["id"] in p.read_text()
    )
    published = record_file.read_text().replace("draft: true\n", "")
    record_file.write_text(published)
    assert said_on_each_page(tmp_path / "once", content, nested["id"], sentence) == (0, 1, 1, 1)
    record_file.write_text(published.replace('trigger: "', 'trigger: "A user runs it. '))
    assert said_on_each_page(tmp_path / "more", content, nested["id"], sentence) == (0, 1, 1, 1)
    trigger = nested["when"]["trigger"]
    record_file.write_text(published.replace(trigger, "Decode without a backend."))
    assert said_on_each_page(tmp_path / "twice", content, nested["id"], sentence) == (1, 1, 1, 1)
    page = (tmp_path / "twice" / "site" / "errors" / nested["id"] / "index.html").read_text()
    codes = BeautifulSoup(page, "html.parser").select("#source .raised-when code")
    assert [code.get_text() for code in codes][:2] == ["nested", "cfg.mode == 'decode'"]


def said_on_each_page(
    out: Path, content: Path, error_id: str, sentence: str
) -> tuple[int, int, int, int]:
    """How often the sentence is beside the error's snippet, on its page, its Markdown page
    and its `explain` text."""
    built = run_cli("build", "--content", str(content), "--out", str(out / "site"))
    assert built.exit_code == 0, built.output
    page = BeautifulSoup(
        (out / "site" / "errors" / error_id / "index.html").read_text(), "html.parser"
    )
    beside = [p.get_text() for p in page.select("#source .raised-when")]
    exported = run_cli("export", "markdown", str(out / "md"), "--content", str(content))
    assert exported.exit_code == 0, exported.output
    markdown = (out / "md" / f"{error_id}.md").read_text().replace("`", "")
    module = export(
        content, out / "errpages_links.py", "--explain", "--base-url", "https://x.example/"
    )
    assert module.returncode == 0, module.stderr
    text = " ".join(explain(out, error_id, columns=400).stdout.replace("`", "").split())
    return (
        beside.count(sentence),
        page.get_text().count(sentence),
        markdown.count(sentence),
        text.count(sentence),
    )


SERVER = (
    "def serve(mode, backend):\n"
    '    if mode != "decode":\n'
    "        if backend is None:\n"
    '            raise ValueError("offload needs a storage backend")\n'
)


def test_drift_reports_a_guard_changed_under_a_kept_message_and_leaves_the_trigger(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    module = SERVER
    repo.write("pkg/server.py", module)
    first = repo.commit("first")
    content = make_content({})
    scan_json(repo, content)
    record_file = next((content / "errors").rglob("*.yaml"))
    written = record_file.read_text().replace("Raised in", "Happens when a user runs it; raised in")
    record_file.write_text(written)
    repo.write(
        "pkg/server.py", module.replace('mode != "decode"', 'mode not in ("decode", "mixed")')
    )
    second = repo.commit("guard widened")

    result = run_cli("drift", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    row = json.loads(result.stdout)["records"][0]
    assert row["status"] == "conditions-changed"
    assert row["conditions"] == ["mode != 'decode'", "backend is None"]
    assert row["new_conditions"] == ["mode not in ('decode', 'mixed')", "backend is None"]
    text = run_cli("drift", "--content", str(content), "--repo-dir", str(repo.path)).stdout
    assert "was: mode != 'decode'" in text and "now: mode not in ('decode', 'mixed')" in text
    strict = ("drift", "--strict", "--content", str(content), "--repo-dir", str(repo.path))
    assert run_cli(*strict).exit_code == 1
    # --update re-pins what is the same or moved, never this: its trigger is for review.
    run_cli("drift", "--update", "--content", str(content), "--repo-dir", str(repo.path))
    assert record_file.read_text() == written
    # Pinned again by hand, the record's conditions follow the code; its trigger stays.
    pinned = run_cli(
        "pin", str(record_file), "--content", str(content), "--repo-dir", str(repo.path)
    )
    assert pinned.exit_code == 0, pinned.output
    data = yaml.safe_load(record_file.read_text())
    assert data["source"]["commit"] == second != first
    assert data["source"]["conditions"] == ["mode not in ('decode', 'mixed')", "backend is None"]
    assert data["when"]["trigger"].startswith("Happens when a user runs it")
    assert run_cli(*strict).exit_code == 0


TRANSLATED = """\
from gettext import gettext as _, ngettext
from django.utils.translation import pgettext, gettext_lazy
from flask_babel import lazy_gettext as _l
from sphinx.locale import __

NOT_FOUND = "no such widget"
SYNTAX_ERROR = "There is a syntax error in your configuration file: %s"
if PY3:
    SYNTAX_ERROR += "\\nDid you change the syntax from 2.x to 3.x?"


def option(opt, value, args):
    if value:
        raise BadOptionUsage(opt, _("Option {name!r} does not take a value.").format(name=opt))
    if args:
        raise UsageError(
            ngettext(
                "Got unexpected extra argument ({args})",
                "Got unexpected extra arguments ({args})",
                len(args),
            ).format(args=" ".join(args))
        )
    raise ValueError(pgettext("widgets", "Widget %(name)s is locked") % {"name": opt})


def lazy(name):
    raise ValidationError(gettext_lazy("Enter a valid %s.") % name)


def configured(name):
    raise ValueError(tr("Unknown colour {name}").format(name=name))


def constant():
    raise KeyError(NOT_FOUND)


def parameter(NOT_FOUND):
    raise KeyError(NOT_FOUND)


def sphinx_style(name, err):
    raise ConfigError(__("Unknown math_renderer %r is given.") % name)
    raise ValidationError(_l("Not a valid choice."))
    raise ConfigError(SYNTAX_ERROR % err)
    raise ConfigError(("There is a programmable error" + " in your configuration file: %s") % err)


E_REDIS_MISSING = '''
You need to install the redis library in order to use \\
the Redis result store backend.
'''
UNKNOWN_BACKEND = '''
Unknown result backend: {0!r}.  Did you spell that correctly? ({1!r})
'''


def celery_style(backend, loader):
    raise ImproperlyConfigured(E_REDIS_MISSING.strip())
    raise ImproperlyConfigured(UNKNOWN_BACKEND.strip().format(backend, loader))


def parse_warning_filter(arg, e):
    error_template = dedent(
        f'''\\
        while parsing {arg}:
          {{error}}
        '''
    )
    raise UsageError(error_template.format(error=f"invalid: {e}"))
"""


def test_messages_in_gettext_calls_other_arguments_and_module_constants() -> None:
    def found(settings: ScanSettings | None = None) -> list[tuple[str, str, tuple[str, ...]]]:
        sites = scan_source(TRANSLATED, settings)[0]
        return [(s.exception, s.template, s.conditions[-1:]) for s in sites]

    expected = [
        ("BadOptionUsage", "Option {name!r} does not take a value.", ("value",)),
        ("UsageError", "Got unexpected extra argument ({args})", ("args",)),
        ("UsageError", "Got unexpected extra arguments ({args})", ("args",)),
        ("ValueError", "Widget {name} is locked", ()),
        ("ValidationError", "Enter a valid {name}.", ()),
        ("KeyError", "no such widget", ()),
        # Sphinx's own name for it, and a known one imported under another name
        ("ConfigError", "Unknown math_renderer {name!r} is given.", ()),
        ("ValidationError", "Not a valid choice.", ()),
        # A module constant made longer where the module runs on Python 3: two messages
        ("ConfigError", "There is a syntax error in your configuration file: {err}", ()),
        (
            "ConfigError",
            "There is a syntax error in your configuration file: {err}\n"
            "Did you change the syntax from 2.x to 3.x?",
            ("PY3",),
        ),
        ("ConfigError", "There is a programmable error in your configuration file: {err}", ()),
        # Celery's: a constant between triple quotes, stripped where it is raised
        (
            "ImproperlyConfigured",
            "You need to install the redis library in order to use the Redis result store backend.",
            (),
        ),
        (
            "ImproperlyConfigured",
            "Unknown result backend: {backend!r}.  Did you spell that correctly? ({loader!r})",
            (),
        ),
        # pytest's: an f-string dedented, its `{{error}}` filled in where it is raised
        ("UsageError", "while parsing {arg}:\n  invalid: {e}\n", ()),
    ]
    assert found() == expected
    configured = ("ValueError", "Unknown colour {name}", ())
    assert found(ScanSettings(gettext_functions=("tr",))) == [
        *expected[:5],
        configured,
        *expected[5:],
    ]


def test_examples_docs_benchmarks_and_vendored_code_are_left_out_and_counted(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    raising = "def f(x):\n    raise ValueError('{name} is broken')\n"
    for name in ("src/pkg/core.py", "examples/app.py", "docs/conf.py", "benchmarks/run.py"):
        repo.write(name, raising.replace("{name}", name))
    # Another project's code vendored in: not this project's errors, but its classes are
    # raised here with the messages they build.
    repo.write(
        "src/pkg/_vendor/packaging/version.py",
        "class InvalidVersion(ValueError):\n"
        "    def __init__(self, version):\n"
        "        super().__init__(f'Invalid version: {version!r}')\n"
        "def parse(v):\n    raise InvalidVersion(v)\n",
    )
    repo.write(
        "src/pkg/versions.py",
        "from ._vendor.packaging.version import InvalidVersion\n"
        "def check(v):\n    raise InvalidVersion(v)\n",
    )
    repo.commit("first")
    content = make_content({})
    summary = scan_json(repo, content)
    assert summary["files_scanned"] == 2
    assert summary["left_out"] == {"examples": 1, "docs": 1, "benchmarks": 1, "vendored": 1}
    assert raised_where(content) == {
        "src/pkg/core.py is broken": ("ValueError", "src/pkg/core.py", 2),
        "Invalid version: {version!r}": ("InvalidVersion", "src/pkg/versions.py", 3),
    }
    text = run_cli("scan", str(repo.path), "--content", str(make_content({})), "--repo", "a/b")
    assert "left out:         1 example\n" in text.stdout + "\n"
    assert "left out:         1 vendored file\n" in text.stdout + "\n"
    asked = scan_json(repo, make_content({}), "--path", "examples")
    assert asked["files_scanned"] == 1  # a folder asked for is scanned


EXCEPTIONS = """\
from gettext import gettext as _


class UsageError(Exception):
    def __init__(self, message, ctx=None):
        super().__init__(message)
        self.ctx = ctx


class NoSuchOption(UsageError):
    def __init__(self, option_name, message=None, ctx=None):
        if message is None:
            message = _("No such option: {name}").format(name=option_name)
        super().__init__(message, ctx)


class NoMatchFound(Exception):
    def __init__(self, name, path_params):
        params = ", ".join(list(path_params.keys()))
        super().__init__(f'No route exists for name "{name}" and params "{params}".')


class BadParameter(UsageError):
    pass


class NotFound(Exception):
    default_detail = _("Not found.")
"""

VIEWS = """\
from .exceptions import NotFound


def get(items, key):
    if key not in items:
        raise NotFound()
    return items[key]


def first(items):
    try:
        return items[0]
    except IndexError:
        raise NotFound from None
"""

TYPES = '''\
from gettext import gettext as _

from .exceptions import BadParameter


class ParamType:
    def fail(self, message, param=None, ctx=None):
        """Fail with an invalid value message."""
        raise BadParameter(message, ctx=ctx)


class IntType(ParamType):
    def convert(self, value, param, ctx):
        try:
            return int(value)
        except ValueError:
            self.fail(_("{value!r} is not a valid integer.").format(value=value), param, ctx)
'''

PARSER = """\
from .exceptions import NoMatchFound, NoSuchOption


def match(opt, known, ctx):
    if opt not in known:
        raise NoSuchOption(opt, ctx=ctx)


def url_for(name, params, routes):
    for route in routes:
        if route.name == name:
            return route
    raise NoMatchFound(name, params)


def reverse(name, params):
    raise NoMatchFound(name, params)
"""

EXTERNAL = """\
from starlette.routing import NoMatchFound


def lookup(name, params):
    raise NoMatchFound(name, params)


def remake(name, params):
    raise NoMatchFound.from_params(name, params)
"""

FORMS = """\
from gettext import gettext as _


class Field:
    default_error_messages = {
        "required": _("This field is required."),
        "invalid": "Enter a valid value.",
    }


class IntegerField(Field):
    default_error_messages = {
        "invalid": _("Enter a whole number."),
        "max_value": "Ensure this value is less than or equal to %(limit_value)s.",
    }
"""


# pytest's own warnings go through its warn helpers: `Node.warn(warning)`,
# `Config.issue_config_time_warning(warning, stacklevel)` and `Cache.warn(fmt, **args)`.
NODES = """\
import warnings


class Node:
    def warn(self, warning):
        if not isinstance(warning, Warning):
            raise ValueError(f"warning must be an instance of Warning, got {warning!r}")
        warnings.warn_explicit(warning, category=None, filename="f", lineno=1)


class Item(Node):
    pass


def fail(reason, pytrace=True):
    raise Failed(reason, pytrace=pytrace)


def _issue_warning_captured(warning, hook, stacklevel):
    with warnings.catch_warnings(record=True):
        warnings.warn(warning, stacklevel=stacklevel)
"""
CONFIG = """\
import warnings


class Config:
    def issue_config_time_warning(self, warning, stacklevel):
        if self.blocked:
            return
        with warnings.catch_warnings(record=True):
            warnings.warn(warning, stacklevel=stacklevel)

    def _warn_or_fail_if_strict(self, message):  # raises the message (6.1), or fails with
        if self.strict:  # it (6.2), and ends in handing it to the helper above
            raise UsageError(message)
        self.issue_config_time_warning(PytestConfigWarning(message), stacklevel=3)


class Cache:
    def warn(self, fmt, *, _ispytest=False, **args):
        warnings.warn(PytestCacheWarning(fmt.format(**args) if args else fmt), stacklevel=3)


class LegacyCache:  # a helper that hands the message on to another helper
    def warn(self, fmt, **args):
        _issue_warning_captured(PytestCacheWarning(fmt.format(**args) if args else fmt), 3)


def deprecate(message, category=DeprecationWarning):
    warnings.warn(message, category, stacklevel=2)


def warned(message):  # used for its value: no helper
    warnings.warn(message)
    return True
"""
COLLECT = """\
from pkg.nodes import Node


class Class(Node):
    def collect(self):
        if hasinit(self.obj):
            self.warn(PytestCollectionWarning(f"cannot collect test class {self.name!r}"))


def usefixtures(marker_node, request, item, config, cache):
    marker_node.warn(PytestWarning("usefixtures() without arguments has no effect"))
    request.node.warn(PytestExperimentalApiWarning("record_property is experimental"))
    item.warn(UserWarning(f"leaked {item.fd} file descriptors"))
    config.issue_config_time_warning(PytestConfigWarning(f"skipped plugin {name!r}"), 2)
    cache.warn(f"could not create cache path {path}", _ispytest=True)
    deprecate("the funcargs attribute is deprecated")
    deprecate("yield tests are removed", FutureWarning)
    warned("not a site: warned() is used for its value")
    cache.warn(message, _ispytest=True)
    cache.warn("cache could not write path {path}", path=path)
    config._warn_or_fail_if_strict(f"Unknown config option: {key}\\n")
    legacy_cache.warn("could not create cache path {path}", path=path)
"""


def test_warnings_issued_through_a_projects_own_warn_helpers(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    files = {"pkg/nodes.py": NODES, "pkg/config.py": CONFIG, "pkg/collect.py": COLLECT}
    summary, records = scanned(tmp_path, make_content, files)
    assert what_and_where(records) == {
        "cannot collect test class {name!r}": ("PytestCollectionWarning", 7, "warning"),
        "usefixtures() without arguments has no effect": ("PytestWarning", 11, "warning"),
        "record_property is experimental": ("PytestExperimentalApiWarning", 12, "warning"),
        "leaked {fd} file descriptors": ("UserWarning", 13, "warning"),
        "skipped plugin {name!r}": ("PytestConfigWarning", 14, "warning"),
        "could not create cache path {path}": ("PytestCacheWarning", 15, "warning"),
        # Cache.warn formats the text it is given: the literal's braces are a field.
        "cache could not write path {path}": ("PytestCacheWarning", 20, "warning"),
        # Through a helper that hands the message on to another helper.
        "Unknown config option: {key}\n": ("PytestConfigWarning", 21, "warning"),
        "the funcargs attribute is deprecated": ("DeprecationWarning", 16, "warning"),
        "yield tests are removed": ("FutureWarning", 17, "warning"),
        # Node.warn's own check raises: an error, not a warning.
        "warning must be an instance of Warning, got {warning!r}": ("ValueError", 7, None),
    }
    assert summary["warning_sites"] == 11
    # One message issued twice (`cache.warn`, and `legacy_cache.warn` through
    # `_issue_warning_captured`): one record, the second call listed.
    also = records["could not create cache path {path}"]["source"]["also_raised_at"]
    assert also == [{"path": "pkg/collect.py", "line": 22}]
    assert records["cannot collect test class {name!r}"]["when"]["trigger"] == (
        "Issued in `Class.collect` when `hasinit(self.obj)`. It goes through `Node.warn`, "
        "which issues it. The warnings filters decide whether it is shown, hidden or raised."
    )


# pytest 3.8-4.0: `Node.warn` takes a warning, which it hands to `_std_warn`, or a legacy
# code and message, which it hands to a hook: the call of one branch, not the last.
LEGACY_NODES = """\
import warnings


class Node:
    def warn(self, _code_or_warning=None, message=None, code=None):
        if message is None:
            if _code_or_warning is None:
                raise ValueError("code_or_warning must be given")
            self._std_warn(_code_or_warning)
        else:
            code = _code_or_warning or code
            self._legacy_warn(code, message)

    def _std_warn(self, warning):
        warnings.warn_explicit(warning, category=None, filename="f", lineno=1)

    def _legacy_warn(self, code, message):
        self.ihook.pytest_logwarning.call_historic(kwargs=dict(code=code, message=message))


def note(node, message):  # one call after the other, not in another branch: the last counts
    if node.strict:
        node._std_warn(message)
    node.config.log(message)
"""
LEGACY_CALLERS = """\
from pkg.nodes import Node, note


def record_xml_attribute(request, item):
    request.node.warn(PytestWarning("record_xml_attribute is an experimental feature"))
    note(item, PytestWarning("noted, and issued only when strict"))
"""


def test_a_warn_helper_that_hands_its_warning_on_in_one_branch_issues_it(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    files = {"pkg/nodes.py": LEGACY_NODES, "pkg/fixtures.py": LEGACY_CALLERS}
    summary, records = scanned(tmp_path, make_content, files)
    assert what_and_where(records) == {
        "record_xml_attribute is an experimental feature": ("PytestWarning", 5, "warning"),
        "code_or_warning must be given": ("ValueError", 8, None),
    }
    assert summary["warning_sites"] == 1


# pytest keeps its deprecations as constants of one module (`_pytest/deprecated.py`), and
# pydantic its config's message: another module's `warn(X)` or `raise E(X)` says them.
DEPRECATED = """\
YIELD_FIXTURE = PytestDeprecationWarning("@pytest.yield_fixture is deprecated.")
DEPRECATION_MESSAGE = "Support for class-based `config` is deprecated."
REMOVED: str = "This was removed in 2.0."
TWICE = "bound twice"
TWICE = "what it holds once the module has run"
SET = "set by a function, so not a constant"
def configure(message):
    global SET
    SET = message
"""
USE = """\
import warnings
import pkg.deprecated
from pkg import deprecated
from pkg.deprecated import YIELD_FIXTURE, TWICE, SET


def yield_fixture():
    warnings.warn(YIELD_FIXTURE, stacklevel=2)


class Config:
    def __init__(self):
        warnings.warn(deprecated.DEPRECATION_MESSAGE, DeprecationWarning)

    def old(self):
        raise ValueError(pkg.deprecated.REMOVED)

    def twice(self):
        warnings.warn(TWICE)

    def set(self):
        warnings.warn(SET)
"""


def test_a_message_held_in_another_modules_constant(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    files = {"pkg/deprecated.py": DEPRECATED, "pkg/use.py": USE}
    summary, records = scanned(tmp_path, make_content, files)
    assert what_and_where(records) == {
        "@pytest.yield_fixture is deprecated.": ("PytestDeprecationWarning", 8, "warning"),
        "Support for class-based `config` is deprecated.": ("DeprecationWarning", 13, "warning"),
        "This was removed in 2.0.": ("ValueError", 16, None),
        "what it holds once the module has run": ("UserWarning", 19, "warning"),
    }
    assert records["@pytest.yield_fixture is deprecated."]["source"]["through"] == ["YIELD_FIXTURE"]
    skipped = {(s["path"], s["line"]): s["reason"] for s in summary["skipped_sites"]}
    assert skipped[("pkg/use.py", 22)] == "warning: message is not built from string literals"


def test_messages_built_by_classes_helpers_and_tables_in_other_files(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    for name, text in [
        ("exceptions.py", EXCEPTIONS),
        ("types.py", TYPES),
        ("parser.py", PARSER),
        ("forms.py", FORMS),
        # A class of the same name from another package: not the one defined here.
        ("external.py", EXTERNAL),
        ("views.py", VIEWS),
    ]:
        repo.write(f"pkg/{name}", text)
    repo.commit("first")
    content = make_content({})
    summary = scan_json(repo, content)
    records = drafts(content)
    found = raised_where(content)
    assert found == {
        "No such option: {name}": ("NoSuchOption", "pkg/parser.py", 6),
        'No route exists for name "{name}" and params "{params}".': (
            "NoMatchFound",
            "pkg/parser.py",
            13,
        ),
        "{value!r} is not a valid integer.": ("BadParameter", "pkg/types.py", 17),
        "Not found.": ("NotFound", "pkg/views.py", 6),
        "This field is required.": ("ValidationError", "pkg/forms.py", 6),
        "Enter a valid value.": ("ValidationError", "pkg/forms.py", 7),
        "Enter a whole number.": ("ValidationError", "pkg/forms.py", 13),
        "Ensure this value is less than or equal to {limit_value}.": (
            "ValidationError",
            "pkg/forms.py",
            14,
        ),
    }
    # One error raised at two places: one record that lists the other.
    route = records['No route exists for name "{name}" and params "{params}".']
    assert route["source"]["also_raised_at"] == [{"path": "pkg/parser.py", "line": 17}]
    assert summary["repeated"] == 2
    # A class raised without a call (`raise NotFound from None`) is raised with its message.
    not_found = records["Not found."]["source"]["also_raised_at"]
    assert not_found == [{"path": "pkg/views.py", "line": 14}]
    invalid = records["{value!r} is not a valid integer."]
    assert invalid["when"]["trigger"] == (
        "Raised in `IntType.convert`, while handling `ValueError`. "
        "It goes through `ParamType.fail`, which raises it."
    )
    assert records["Enter a whole number."]["when"]["trigger"] == (
        "Its message is `IntegerField.default_error_messages['invalid']`: "
        "raised where the class reports that key."
    )
    # A table's entry is raised wherever its class reports the key: no function raises it.
    assert "function" not in records["Enter a whole number."]["source"]
    assert invalid["source"]["function"] == "IntType.convert"
    # A helper's call and a table's entry are where the error is raised: no warning either.
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.stderr

    # A record that names the table's class as its function (as scan wrote it before) has it
    # taken out when pinned again; its page says nothing of where the table stands.
    table = next((content / "errors").rglob("enter-a-whole-number-*.yaml"))
    text = table.read_text()
    table.write_text(text.replace("  path:", "  function: IntegerField\n  path:", 1))
    assert "function: IntegerField" in table.read_text()
    again = run_cli("pin", str(table), "--content", str(content), "--repo-dir", str(repo.path))
    assert again.exit_code == 0, again.output
    assert "function" not in drafts(content)["Enter a whole number."]["source"]
    site = tmp_path / "site"
    built = run_cli("build", "--drafts", "--content", str(content), "--out", str(site))
    assert built.exit_code == 0, built.output
    page = (site / "errors" / records["Enter a whole number."]["id"] / "index.html").read_text()
    assert "whenever the code gets there" not in page
    assert "raised where the class reports that key" in page

    # pin and drift find a raise whose message its class builds; the other place is followed.
    option = content / "errors" / "acme" / "widgets"
    option_file = next(p for p in option.rglob("*.yaml") if "no-such-option" in p.name)
    pinned = run_cli(
        "pin", str(option_file), "--content", str(content), "--repo-dir", str(repo.path)
    )
    assert pinned.exit_code == 0, pinned.output
    repo.write("pkg/parser.py", PARSER.split("\n\ndef reverse")[0] + "\n")
    repo.commit("reverse is gone")
    drift = run_cli("drift", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    rows = {row["message"]: row for row in json.loads(drift.stdout)["records"]}
    assert rows["No such option: {name}"]["status"] == "same"
    moved = rows['No route exists for name "{name}" and params "{params}".']
    assert (moved["status"], moved["also_raised_at_now"]) == ("moved", [])
    run_cli("drift", "--update", "--content", str(content), "--repo-dir", str(repo.path))
    route = drafts(content)['No route exists for name "{name}" and params "{params}".']
    assert route["source"]["also_raised_at"] == []
    strict = ("drift", "--strict", "--content", str(content), "--repo-dir", str(repo.path))
    assert run_cli(*strict).exit_code == 0


JINJA_PARSER = """\
import typing as t

from .exceptions import TemplateAssertionError, TemplateSyntaxError


class Parser:
    def fail(
        self,
        msg: str,
        lineno: int | None = None,
        exc: type[TemplateSyntaxError] = TemplateSyntaxError,
    ) -> "t.NoReturn":
        if lineno is None:
            lineno = 1
        raise exc(msg, lineno)

    def parse_statement(self, token):
        if token.type != "name":
            self.fail("tag name expected", token.lineno)

    def parse_import(self, name, lineno, kind):
        if name.startswith("_"):
            self.fail("names starting with an underline can not be imported", lineno, exc=TemplateAssertionError)
        if name == "*":
            self.fail("star imports are not supported here", lineno, TemplateAssertionError)
        self.fail("this import cannot be checked", lineno, exc=kind)
"""

JINJA_EXT = """\
import sys
import typing as t

if t.TYPE_CHECKING:
    from .parser import Parser


class ImportStringError(ImportError):
    def __init__(self, import_name, exception):
        super().__init__(f"import_string() failed for {import_name!r}")


class Extension:
    def parse(self, parser: "Parser"):
        parser.fail("unclosed translation block")


def import_string(import_name):
    try:
        return __import__(import_name)
    except ImportError as e:
        raise ImportStringError(import_name, e).with_traceback(sys.exc_info()[2]) from None


def parse_set(parser, stream):
    parser.fail("expected an assignment")
    stream.fail("not a parser: its class is not known")
"""


def test_a_helper_that_raises_the_class_its_caller_names_and_a_raise_with_its_traceback(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/parser.py", JINJA_PARSER)
    repo.write("pkg/ext.py", JINJA_EXT)
    repo.commit("first")
    content = make_content({})
    summary = scan_json(repo, content)
    found = raised_where(content)
    # The helper raises its `exc` parameter: its default, unless the call names another class.
    assert found == {
        "tag name expected": ("TemplateSyntaxError", "pkg/parser.py", 19),
        "names starting with an underline can not be imported": (
            "TemplateAssertionError",
            "pkg/parser.py",
            23,
        ),
        "star imports are not supported here": ("TemplateAssertionError", "pkg/parser.py", 25),
        "unclosed translation block": ("TemplateSyntaxError", "pkg/ext.py", 15),
        "import_string() failed for {import_name!r}": ("ImportStringError", "pkg/ext.py", 22),
        # code older than its annotations names a parameter after its class
        "expected an assignment": ("TemplateSyntaxError", "pkg/ext.py", 26),
    }
    skipped = {(s["path"], s["line"]): s["reason"] for s in summary["skipped_sites"]}
    assert skipped[("pkg/parser.py", 26)] == "raised through Parser.fail with a class not named"
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.stderr


CLICK_TYPES = """\
from gettext import gettext as _, ngettext


class BadParameter(Exception):
    pass


class ParamType:
    def fail(self, message, param=None):
        raise BadParameter(message)


class Choice(ParamType):
    def convert(self, value, param):
        if value not in self.choices:
            self.fail(self.invalid_choice_message(value), param=param)
        return value

    def invalid_choice_message(self, value):
        choices = ", ".join(map(repr, self.choices))
        return ngettext(
            "{value!r} is not {choice}.",
            "{value!r} is not one of {choices}.",
            len(self.choices),
        ).format(value=value, choice=choices, choices=choices)


def describe(kind):
    return _("no {kind} widget").format(kind=kind)


def lookup(kind, table):
    if kind not in table:
        raise KeyError(describe(kind))
    return table[kind]


def walk(kind):
    yield f"walked {kind}"


def stroll(kind):
    raise ValueError(walk(kind))
"""

PYDANTIC_SCHEMA = """\
class GenerateJsonSchema:
    def callable_schema(self, schema):
        return self.handle_invalid(schema, "core_schema.CallableSchema")

    def handle_invalid(self, schema, error_info):
        raise TypeError(f"Cannot generate a JsonSchema for {error_info}")
"""

FASTAPI_SECURITY = """\
class HTTPException(Exception):
    pass


class HTTPBase:
    def make_not_authenticated_error(self):
        return HTTPException(status_code=401, detail="Not authenticated", headers={})

    def make_headers(self):
        return {"WWW-Authenticate": "Basic"}


class HTTPBasic(HTTPBase):
    def __call__(self, authorization):
        if not authorization:
            raise self.make_not_authenticated_error()
        if authorization == "-":
            raise self.make_headers()
        raise errors.unknown()


class Validator(HTTPBase):
    def invalid(self, msg, cause=None):
        exc = HTTPException(status_code=400, detail=msg.format_map({"field": self.name}))
        exc.__cause__ = cause
        return exc

    def check(self, value):
        raise self.invalid(f"{value!r} is not a valid version of {{field}}", cause=None)
"""


# docker-py 1.x–6.x: the text a factory formats is a variable of its own, given it once;
# one given two texts is not followed (which the call makes is not known).
DOCKER_CONTAINERS = """\
class InvalidVersion(Exception):
    pass


def host_config_version_error(param, version, less_than=True):
    operator = '<' if less_than else '>'
    error_msg = '{0} param is not supported in API versions {1} {2}'
    return InvalidVersion(error_msg.format(param, operator, version))


def host_config_value_error(param, value):
    error_msg = 'Invalid value for {0} param: {1}'
    if value is None:
        error_msg = 'Missing value for {0} param'
    return ValueError(error_msg.format(param, value))


class HostConfig(dict):
    def __init__(self, version, mem_swappiness=None):
        if mem_swappiness is not None and version < '1.20':
            raise host_config_version_error('mem_swappiness', '1.20')
        if mem_swappiness == -1:
            raise host_config_value_error('mem_swappiness', mem_swappiness)
"""


def test_a_message_a_function_of_the_module_makes_is_found_and_checked_at_its_call(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # click's Choice (8.2): the message its users see most is made by a method and raised
    # through a helper; pydantic's helper makes its message around the argument given;
    # fastapi's "Not authenticated" is an exception a method of a base class makes.
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/types.py", CLICK_TYPES)
    repo.write("pkg/security.py", FASTAPI_SECURITY)
    repo.write("pkg/json_schema.py", PYDANTIC_SCHEMA)
    repo.write("pkg/containers.py", DOCKER_CONTAINERS)
    repo.commit("first")
    content = make_content({})
    summary = scan_json(repo, content)
    assert raised_where(content) == {
        "{param} param is not supported in API versions {operator} {version}": (
            "InvalidVersion",
            "pkg/containers.py",
            21,
        ),
        "{value!r} is not {choice}.": ("BadParameter", "pkg/types.py", 16),
        "{value!r} is not one of {choices}.": ("BadParameter", "pkg/types.py", 16),
        "no {kind} widget": ("KeyError", "pkg/types.py", 34),
        "Cannot generate a JsonSchema for {error_info}": ("TypeError", "pkg/json_schema.py", 6),
        "Cannot generate a JsonSchema for core_schema.CallableSchema": (
            "TypeError",
            "pkg/json_schema.py",
            3,
        ),
        "Not authenticated": ("HTTPException", "pkg/security.py", 16),
        # packaging's: the message is what the call gives the method that makes it, its
        # `{field}` (an f-string's `{{field}}`) filled in there
        "{value!r} is not a valid version of {name}": ("HTTPException", "pkg/security.py", 29),
    }
    skipped = {(s["path"], s["line"]): s["reason"] for s in summary["skipped_sites"]}
    assert skipped[("pkg/types.py", 43)] == "message is not built from string literals"
    assert skipped[("pkg/security.py", 18)] == (
        "HTTPBase.make_headers returns no exception class with a message"
    )
    assert skipped[("pkg/security.py", 19)] == "not an exception class (a CapWords name)"
    assert skipped[("pkg/containers.py", 23)] == (
        "host_config_value_error returns no exception class with a message"
    )
    records = drafts(content)
    choice = records["{value!r} is not one of {choices}."]
    assert choice["source"]["through"] == ["ParamType.fail", "Choice.invalid_choice_message"]
    assert choice["when"]["trigger"] == (
        "Raised in `Choice.convert` when `value not in self.choices`. Its message comes from "
        "`Choice.invalid_choice_message`. It goes through `ParamType.fail`, which raises it."
    )
    assert records["no {kind} widget"]["source"]["through"] == ["describe"]
    assert records["Not authenticated"]["source"]["through"] == [
        "HTTPBase.make_not_authenticated_error"
    ]
    made = records["{value!r} is not a valid version of {name}"]
    assert made["source"]["through"] == ["Validator.invalid"]
    schema = records["Cannot generate a JsonSchema for core_schema.CallableSchema"]
    assert schema["source"]["through"] == ["GenerateJsonSchema.handle_invalid"]
    # drift follows them; `check` takes each call as the raise, and still warns of a line
    # that calls none of them, which pin points at the call again.
    rows = json.loads(
        run_cli("drift", "--content", str(content), "--repo-dir", str(repo.path), "--json").stdout
    )["records"]
    assert {row["status"] for row in rows} == {"same"}
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.stderr
    record_file = next(
        p for p in (content / "errors").rglob("*.yaml") if "describe" in p.read_text()
    )
    # As a hand-written record would be: no `through`, and the line off.
    written = record_file.read_text().replace('  through:\n    - "describe"\n', "")
    record_file.write_text(written.replace("line: 34", "line: 35"))
    warned = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert "line 35 is not in a statement that raises" in warned.stderr
    pinned = run_cli(
        "pin", str(record_file), "--content", str(content), "--repo-dir", str(repo.path)
    )
    assert pinned.exit_code == 0, pinned.output
    source = yaml.safe_load(record_file.read_text())["source"]
    assert (source["line"], source["through"]) == (34, ["describe"])
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.stderr
    api_built = run_cli(
        "build", "--content", str(content), "--out", str(tmp_path / "s"), "--drafts"
    )
    assert api_built.exit_code == 0, api_built.output
    api = json.loads((tmp_path / "s" / "api" / "errors" / f"{choice['id']}.json").read_text())
    assert api["source"]["through"] == ["ParamType.fail", "Choice.invalid_choice_message"]


def test_an_inline_snippet_is_compared_without_its_common_indentation(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    repo.write(
        "pkg/m.py",
        "class A:\n    def f(self, x):\n        if x:\n            raise ValueError('bad x')\n",
    )
    commit = repo.commit("first")
    record = f"""\
repo: acme/widgets
exception: ValueError
message: bad x
meaning: It is bad.
solutions: [Do not.]
source:
  path: pkg/m.py
  line: 4
  commit: "{commit}"
  start_line: 3
  snippet: |
    if x:
        raise ValueError('bad x')
"""
    content = make_content({"errors/a.yaml": record})
    assert run_cli("check", "--content", str(content)).exit_code == 0
    drift = run_cli("drift", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    assert json.loads(drift.stdout)["records"][0]["status"] == "same"
    # What `new` writes keeps the file's indentation when the code is pasted under it.
    made = run_cli(
        "new",
        "--content",
        str(content),
        "--repo",
        "acme/widgets",
        "--exception",
        "ValueError",
        "--message",
        "bad y",
    )
    assert made.exit_code == 0, made.output
    written = next(p for p in (content / "errors").rglob("*.yaml") if p.name != "a.yaml")
    pasted = written.read_text().replace(
        '    raise ValueError("...")',
        "            if x:\n                raise ValueError('bad x')",
    )
    snippet = yaml.safe_load(pasted)["source"]["snippet"]
    assert snippet == "        if x:\n            raise ValueError('bad x')\n"


def test_history_tells_the_release_whose_conditions_changed(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    module = SERVER
    repo.write("pkg/server.py", module)
    repo.commit("1.0")
    repo.git("tag", "v1.0")
    repo.write(
        "pkg/server.py", module.replace('mode != "decode"', 'mode not in ("decode", "mixed")')
    )
    repo.commit("2.0")
    repo.git("tag", "v2.0")
    content = make_content({})
    scan_json(repo, content, "--commit", "v1.0")
    result = run_cli("history", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    assert result.exit_code == 0, result.output
    raised = json.loads(result.stdout)["records"][0]["raised"]
    assert [(r["release"], r["conditions"]) for r in raised] == [
        ("v1.0", ["mode != 'decode'", "backend is None"]),
        ("v2.0", ["mode not in ('decode', 'mixed')", "backend is None"]),
    ]
    site = tmp_path / "site"
    built = run_cli("build", "--content", str(content), "--out", str(site), "--drafts")
    assert built.exit_code == 0, built.output
    record_id = drafts(content)["offload needs a storage backend"]["id"]
    page = BeautifulSoup((site / "errors" / record_id / "index.html").read_text(), "html.parser")
    rows = [
        [cell.get_text(" ", strip=True) for cell in row.find_all(["th", "td"])]
        for row in page.select("table.history tbody tr")
    ]
    assert rows[1][:2] == [
        "v2.0",
        "conditions changed : mode != 'decode' and backend is None "
        "mode not in ('decode', 'mixed') and backend is None",
    ]
    assert page.select_one(".releases").get_text() == "Raised since v1.0"  # not at a glance
    api = json.loads((site / "api" / "errors" / f"{record_id}.json").read_text())
    runs = api["resolved"]["history"]["raised"]
    assert [run["conditions"][0] for run in runs] == [
        "mode != 'decode'",
        "mode not in ('decode', 'mixed')",
    ]


AIOHTTP_PROTOCOL = """\
from .client_exceptions import ClientConnectionError, ClientPayloadError
from .helpers import set_exception


class ResponseHandler:
    def connection_lost(self, exc):
        if exc is not None:
            self._closed.set_exception(ClientConnectionError(f"Connection lost: {exc!s}"))
        if self._payload is not None:
            message = f"Response payload is not completed: {exc!r}"
            if not self.clean:
                message = f"{message}. {self.error!r}"
            set_exception(
                self._payload,
                ClientPayloadError(message),
                exc,
            )
        self._waiter.set_exception(exc)
        self._waiter.set_result(ValueError("a value, not raised"))
"""


def test_an_exception_set_on_a_future_is_raised_where_it_is_set(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # aiohttp's most searched-for error reaches its reader through the payload's future.
    repo = GitRepo(tmp_path / "project")
    repo.write("aiohttp/client_proto.py", AIOHTTP_PROTOCOL)
    repo.commit("first")
    content = make_content({})
    scan_json(repo, content)
    path = "aiohttp/client_proto.py"
    assert raised_where(content) == {
        "Connection lost: {exc!s}": ("ClientConnectionError", path, 8),
        "Response payload is not completed: {exc!r}": ("ClientPayloadError", path, 13),
        "Response payload is not completed: {exc!r}. {error!r}": ("ClientPayloadError", path, 13),
    }
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.stderr


WRAPPING = """\
class BusyResourceError(Exception):
    def __init__(self, action):
        super().__init__(f"Another task is already {action} this resource")


class ReadBusyError(BusyResourceError):
    pass


class SoftBusyError(BusyResourceError):
    def __init__(self, message):
        Exception.__init__(self, message)


class LocationValueError(ValueError):
    pass


class LocationParseError(LocationValueError):
    def __init__(self, location):
        message = f"Failed to parse: {location}"
        super().__init__(message)
        self.location = location


class PlainError(Exception):
    def __init__(self, message, code=None):
        super().__init__(message)


class UnknownLocaleError(Exception):
    def __init__(self, identifier):
        Exception.__init__(self, f"unknown locale {identifier!r}")
"""

WRAPPED = """\
from .exceptions import (
    BusyResourceError,
    LocationParseError,
    PlainError,
    ReadBusyError,
    SoftBusyError, UnknownLocaleError,
)


def read(stream, host):
    if stream.busy:
        raise BusyResourceError("reading from")
    if stream.writing:
        raise ReadBusyError("writing to")
    if not host:
        raise LocationParseError(f"'{host}', label empty or too long")
    if stream.soft:
        raise SoftBusyError("the stream is soft-busy")
    if stream.locale:
        raise UnknownLocaleError(f"{stream.locale}@euro")
    raise PlainError("something else went wrong", code=3)
"""


def test_a_class_that_builds_its_message_around_the_text_it_is_given(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    """anyio's `BusyResourceError("reading from")` says "Another task is already reading from
    this resource", urllib3's `LocationParseError("…")` "Failed to parse: …": the class's
    message with the text in place, in each release as its class builds it there."""
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/exceptions.py", WRAPPING)
    repo.write("pkg/streams.py", WRAPPED)
    repo.commit("1.0")
    repo.git("tag", "v1.0")
    repo.write("pkg/exceptions.py", WRAPPING.replace("is already {action}", "is {action}"))
    repo.commit("2.0")
    repo.git("tag", "v2.0")
    content = make_content({})
    scan_json(repo, content, "--commit", "v1.0")
    assert raised_where(content) == {
        "Another task is already reading from this resource": (
            "BusyResourceError",
            "pkg/streams.py",
            12,
        ),
        "Another task is already writing to this resource": ("ReadBusyError", "pkg/streams.py", 14),
        "Failed to parse: '{host}', label empty or too long": (
            "LocationParseError",
            "pkg/streams.py",
            16,
        ),
        # A subclass that takes its message as it is given, and a class that never built one.
        "the stream is soft-busy": ("SoftBusyError", "pkg/streams.py", 18),
        "something else went wrong": ("PlainError", "pkg/streams.py", 21),
        # babel's: the class shows the text it is given with `!r`, quoted
        "unknown locale '{locale}@euro'": ("UnknownLocaleError", "pkg/streams.py", 20),
    }
    result = run_cli("history", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    assert result.exit_code == 0, result.output
    said = {
        record["raised"][0]["message"]: [(r["release"], r["message"]) for r in record["raised"]]
        for record in json.loads(result.stdout)["records"]
    }
    # streams.py is the same file in both releases; the class around its text is not.
    assert said["Another task is already reading from this resource"] == [
        ("v1.0", "Another task is already reading from this resource"),
        ("v2.0", "Another task is reading from this resource"),
    ]
    assert said["something else went wrong"] == [
        ("v1.0", "something else went wrong"),
        ("v2.0", "something else went wrong"),
    ]


# A helper may raise the message it is given only under a condition of its own, and return
# a value otherwise (SQLAlchemy 0.5's `_only_mapper_zero`); a context manager may raise the
# class it is given when the block it wraps raises what it handles (pydantic 0.32's
# `change_exception`). Their callers raise there, under those conditions too.
QUERY = """\
class InvalidRequestError(Exception):
    pass


class Query:
    def _only_mapper_zero(self, rationale=None):
        if len(self._entities) > 1:
            raise InvalidRequestError(
                rationale or "This operation requires a Query against a single mapper."
            )
        return self._mapper_zero()

    def get(self, ident):
        key = self._only_mapper_zero(
            "get() can only be used against a single mapped class."
        ).identity_key_from_primary_key(ident)
        return self._get(key, ident)

    def through_class(self, other):
        return Query._only_mapper_zero(other, "never said of the class it is called on")

    def header(self, name):
        if self.strict:
            raise KeyError(name)
        return self.headers.get(name)

    def content_type(self):
        return self.header("content-type")

    def count_or_fail(self, rows, message):
        total = len(rows)
        if total == 0:
            raise ValueError(message)
        return total

    def counted(self, rows):
        return self.count_or_fail(rows, "no rows were counted at all")

    def _error(self, msg):
        if self.stop_on_error:
            raise InvalidRequestError(msg)
        else:
            self._errors.append(msg)

    def required(self, name):
        self._error("a required property is missing")
"""
ERRORS = """\
class PydanticValueError(ValueError):
    msg_template = "invalid value"

    def __str__(self):
        return self.msg_template.format(**self.__dict__)


class IntegerError(PydanticValueError):
    msg_template = "value is not a valid integer"


class PatternError(PydanticValueError):
    msg_template = "Invalid regular expression"
"""
UTILS = """\
from contextlib import contextmanager


@contextmanager
def change_exception(raise_exc, *except_types):
    try:
        yield
    except except_types as e:
        raise raise_exc from e
"""
VALIDATORS = """\
import re

from . import errors
from .utils import change_exception


def int_validator(v):
    if isinstance(v, int):
        return v
    with change_exception(errors.IntegerError, TypeError, ValueError):
        return int(v)


def pattern_validator(v):
    with change_exception(errors.PatternError, re.error):
        return re.compile(v)


def no_class(v, kinds):
    with change_exception(errors.IntegerError, *kinds):
        return int(v)


def not_entered(v):
    change_exception(errors.IntegerError, TypeError)
"""
VALIDATED = """\
from . import errors


def int_validator(v):
    if isinstance(v, int):
        return v
    try:
        return int(v)
    except (TypeError, ValueError):
        raise errors.IntegerError()
"""


def two_releases(
    tmp_path: Path, files: dict[str, str], path: str, before: str, after: str
) -> GitRepo:
    """A repository tagged v0.1 with these files and `before` at path, then v0.2 with
    `after` there."""
    repo = GitRepo(tmp_path / "project")
    for release, text in [("0.1", before), ("0.2", after)]:
        for written, held in {**files, path: text}.items():
            repo.write(written, held)
        repo.commit(release)
        repo.git("tag", f"v{release}")
    return repo


def test_a_helper_that_raises_only_under_a_condition_raises_there_at_each_call(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    files = {"pkg/query.py": QUERY, "pkg/errors.py": ERRORS, "pkg/utils.py": UTILS}
    repo = two_releases(tmp_path, files, "pkg/validators.py", VALIDATORS, VALIDATED)
    content = make_content({})
    scan_json(repo, content, "--commit", "v0.1")
    records = drafts(content)
    found = {
        m: (r["exception"], r["source"]["line"], r["source"].get("conditions"))
        for m, r in records.items()
    }
    assert found == {
        "get() can only be used against a single mapped class.": (
            "InvalidRequestError",
            14,
            ["len(self._entities) > 1"],
        ),
        "This operation requires a Query against a single mapper.": (
            "InvalidRequestError",
            8,
            ["len(self._entities) > 1", "not rationale"],
        ),
        # The class given, with the message it builds, handling the classes given.
        "value is not a valid integer": (
            "IntegerError",
            10,
            ["not isinstance(v, int)", "except (TypeError, ValueError)"],
        ),
        "Invalid regular expression": ("PatternError", 15, ["except re.error"]),
        # jsonschema 0.2's `_error`: it raises the message itself under a condition, and
        # hands it to a list otherwise (no helper)
        "a required property is missing": ("InvalidRequestError", 46, ["self.stop_on_error"]),
    }
    # Not drafted: a call through the class (its `self` is not the receiver), a key that a
    # helper raises when missing, a helper whose condition reads its own variable, classes
    # the call does not name, and a context manager called but not entered.
    get = records["get() can only be used against a single mapped class."]
    assert get["source"]["through"] == ["Query._only_mapper_zero"]
    assert get["when"]["trigger"] == (
        "Raised in `Query.get` when `len(self._entities) > 1`. "
        "It goes through `Query._only_mapper_zero`, which raises it."
    )
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.stderr
    # Through releases: raised through the context manager in 0.1, by itself in 0.2.
    result = run_cli("history", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    assert result.exit_code == 0, result.output
    integer = records["value is not a valid integer"]["id"]
    [record] = [r for r in json.loads(result.stdout)["records"] if r["id"] == integer]
    assert [(r["release"], r["path"], r["line"], r["conditions"]) for r in record["raised"]] == [
        (
            "v0.1",
            "pkg/validators.py",
            10,
            ["not isinstance(v, int)", "except (TypeError, ValueError)"],
        ),
        (
            "v0.2",
            "pkg/validators.py",
            10,
            ["not isinstance(v, int)", "except (TypeError, ValueError)"],
        ),
    ]


DATETIME_BEFORE = """\
from . import errors
from .utils import change_exception


def parse_datetime(value):
    match = PATTERN.match(value)
    if not match:
        raise errors.IntegerError()
    kw = match.groupdict()
    with change_exception(errors.IntegerError, ValueError):
        return build(**kw)
"""
DATETIME_AFTER = """\
from . import errors


def parse_datetime(value):
    # Four lines more above the first raise: it now stands nearer where the `with` stood.
    #
    #
    #
    match = PATTERN.match(value)
    if match is None:
        raise errors.IntegerError()
    kw = match.groupdict()
    try:
        return build(**kw)
    except ValueError:
        raise errors.IntegerError()
"""


def test_a_raise_is_followed_to_the_one_raised_the_same_way_not_the_nearer_line(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # pydantic 0.32 raises DateTimeError after `if not match:` and through `with
    # change_exception(…)` below it; 1.0 raises it by itself at both places.
    files = {"pkg/errors.py": ERRORS, "pkg/utils.py": UTILS}
    repo = two_releases(tmp_path, files, "pkg/dates.py", DATETIME_BEFORE, DATETIME_AFTER)
    content = make_content({})
    scan_json(repo, content, "--commit", "v0.2")
    record = drafts(content)["value is not a valid integer"]
    assert (record["source"]["line"], record["source"]["also_raised_at"]) == (
        11,
        [{"path": "pkg/dates.py", "line": 16}],
    )
    result = run_cli("history", "--content", str(content), "--repo-dir", str(repo.path), "--json")
    assert result.exit_code == 0, result.output
    [history] = json.loads(result.stdout)["records"]
    assert [(r["release"], r["line"]) for r in history["raised"]] == [("v0.1", 8), ("v0.2", 11)]
