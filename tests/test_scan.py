"""`errpages scan` and the raise finder behind it."""

from __future__ import annotations

import json
import platform
import signal
from pathlib import Path

import yaml

from errpages.git.code import python_module
from errpages.git.pyraises.library import Library, resolved, scan_source
from errpages.git.pyraises.model import RaiseSite, ScanSettings, Skipped
from errpages.site.messages import canonical
from tests.conftest import FIXTURES, run_cli
from tests.gitrepo import GitRepo

RAISE_FORMS = (FIXTURES / "raise_forms.py.txt").read_text()

EXPECTED = [
    (12, "ValueError", "a plain literal"),
    (14, "ValueError", "adjacent literals split over lines"),
    (19, "ValueError", "backend must be mooncake, got {transfer_backend!r}."),
    (21, "TypeError", "expected a widget, got {type_name}"),
    (23, "KeyError", "no item {widget} in {items!r}"),
    (25, "RuntimeError", "{count} widgets exceed {limit}"),
    (29, "WidgetError", "cannot open {name}: {exc}"),
    (31, "ConfigError", "literal {{braces}} stay literal"),
    (33, "ValueError", "mixed literal and f-string {count:>4} parts"),
    (37, "AssertionError", "count must not be negative, got {count}"),
    (43, "NotImplementedError", "{count}% done"),
]


def test_every_raise_form() -> None:
    sites, skipped = scan_source(RAISE_FORMS)
    assert [(s.line, s.exception, s.template) for s in sites] == EXPECTED
    assert [(s.line, s.reason) for s in skipped] == [
        (39, "message is not built from string literals"),
        (41, "ValueError raised without a message"),
        (42, "assert without a message"),
    ]
    multi_line = sites[1]
    assert (multi_line.line, multi_line.end_line) == (14, 17)


def test_canonical_ignores_placeholder_names() -> None:
    assert canonical("got {backend!r}.") == canonical("got {cfg_backend}.")
    assert canonical("a  b\n c {x}") == "a b c {}"
    assert canonical("{{x}}") != canonical("{x}")


def make_project(tmp_path: Path) -> tuple[GitRepo, str]:
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/forms.py", RAISE_FORMS)
    repo.write("pkg/broken.py", "def x(:\n")
    repo.write("docs/readme.md", "raise ValueError('not python')\n")
    repo.write("pkg/data.py", "\0binary")
    # Generated code nested deeper than Python's parser follows (3,000 strings joined by +).
    joined = " + ".join(f'"part {n} "' for n in range(3000))
    repo.write("pkg/generated.py", f"def table():\n    raise ValueError({joined})\n")
    return repo, repo.commit("first")


def test_scan_creates_drafts_once_and_never_touches_the_repository(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo, commit = make_project(tmp_path)
    before = repo.state()
    content = make_content({})
    result = run_cli(
        "scan", str(repo.path), "--content", str(content), "--repo", "acme/widgets", "--json"
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["commit"] == commit
    assert summary["files_scanned"] == 1
    assert summary["raise_sites"] == 11
    assert summary["records_created"] == 11
    assert summary["already_covered"] == 0
    reasons = sorted(item["reason"] for item in summary["skipped_sites"])
    assert reasons == sorted(
        [
            "assert without a message",
            "ValueError raised without a message",
            "message is not built from string literals",
            "does not parse as Python",
            "does not parse as Python",
            "file is a binary file",
        ]
    )
    records = sorted((content / "errors").rglob("*.yaml"))
    assert len(records) == 11
    first = yaml.safe_load(records[0].read_text())
    assert first["draft"] is True
    assert first["source"]["commit"] == commit
    assert first["meaning"].startswith("TO BE WRITTEN")
    assert repo.state() == before

    again = run_cli("scan", str(repo.path), "--content", str(content), "--repo", "acme/widgets")
    assert again.exit_code == 0
    assert "records created:  0" in again.stdout
    assert "already covered:  11" in again.stdout
    assert sorted((content / "errors").rglob("*.yaml")) == records


def test_drafts_are_checked_but_not_published(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo, _ = make_project(tmp_path)
    content = make_content({})
    run_cli("scan", str(repo.path), "--content", str(content), "--repo", "acme/widgets")
    check = run_cli("check", "--content", str(content))
    assert check.exit_code == 0, check.stderr
    out = tmp_path / "site"
    assert run_cli("build", "--content", str(content), "--out", str(out)).exit_code == 0
    index = json.loads((out / "api" / "errors" / "index.json").read_text())
    assert index["count"] == 0
    with_drafts = tmp_path / "site-drafts"
    build = run_cli("build", "--content", str(content), "--out", str(with_drafts), "--drafts")
    assert build.exit_code == 0, build.stderr
    index = json.loads((with_drafts / "api" / "errors" / "index.json").read_text())
    assert index["count"] == 11


def test_a_module_named_like_a_record_file_gets_a_folder_the_content_can_hold(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    # mkdocs/utils/yaml.py: a folder `mkdocs.utils.yaml` would read as a record file.
    repo = GitRepo(tmp_path / "project")
    for module in ("yaml", "yml", "yamlish"):
        repo.write(f"pkg/utils/{module}.py", f'raise ValueError("bad {module} document")\n')
    repo.commit("first")
    content = make_content({})
    scan_json(repo, content)
    drafts = sorted(
        p.relative_to(content / "errors").parent.name for p in (content / "errors").rglob("*.yaml")
    )
    assert drafts == ["pkg.utils.yaml.py", "pkg.utils.yamlish", "pkg.utils.yml.py"]
    checked = run_cli("check", "--drafts", "--strict", "--content", str(content))
    assert checked.exit_code == 0, checked.stderr
    built = run_cli("build", "--drafts", "--content", str(content), "--out", str(tmp_path / "site"))
    assert built.exit_code == 0, built.stderr


def test_scan_reports_usage_and_repository_errors(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    content = make_content({})
    not_repo = tmp_path / "plain"
    not_repo.mkdir()
    result = run_cli("scan", str(not_repo), "--content", str(content), "--repo", "a/b")
    assert result.exit_code == 1
    assert "is not a git repository" in result.stderr
    repo, _ = make_project(tmp_path)
    unknown = run_cli(
        "scan", str(repo.path), "--content", str(content), "--repo", "a/b", "--commit", "nope"
    )
    assert unknown.exit_code == 1
    assert "unknown commit 'nope'" in unknown.stderr
    bad_repo = run_cli("scan", str(repo.path), "--content", str(content), "--repo", "nope")
    assert bad_repo.exit_code == 2


def test_only_exception_classes_raise_and_messages_are_followed_into_variables() -> None:
    source = (
        "import pytest\n"
        "def f(value, e, message, error, exc):\n"
        '    msg = f"bad value {value!r} here"\n'
        "    raise ValueError(msg)\n"
        "    raise ValidationError.from_exception_data('Foobar', [])\n"
        "    raise pytest.skip('not on this platform')\n"
        "    raise error('boom now')\n"
        "    raise ValueError(f'{e.args[0]}\\n{message}')\n"
        "    raise errors.ConfigError(code='x', message='the config is wrong')\n"
        "    raise exc\n"
        "def g(flag):\n"
        "    if flag:\n"
        "        msg = 'the flag is set'\n"
        "    else:\n"
        "        msg = 'the flag is not set'\n"
        "    raise ValueError(msg)\n"
        "def h(names):\n"
        "    msg = 'bad names:'\n"
        "    msg += ', '.join(names)\n"
        "    raise ValueError(msg)\n"
        "def k(url, key):\n"
        "    if not url:\n"
        "        error = f'Invalid URL {url!r}'\n"
        "        raise InvalidURL(error)\n"
        "    error = f'Invalid URL component {key!r}'\n"
        "    raise InvalidURL(error)\n"
        # babel's: a raise in a branch leaves the message to the raise after it
        "def parse(identifier):\n"
        "    if not identifier:\n"
        "        msg = f'Empty locale identifier value: {identifier!r}'\n"
        "        if isinstance(identifier, str):\n"
        "            raise ValueError(msg)\n"
        "        raise TypeError(msg)\n"
        # falcon's: fields filled from a sequence spread into `.format()`
        "def route(cpc):\n"
        "    raise UnacceptableRouteError('converter {1} of {0}'.format(*cpc))\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template) for s in sites] == [
        (4, "ValueError", "bad value {value!r} here"),
        (5, "ValidationError", "Foobar"),
        (9, "ConfigError", "the config is wrong"),
        (16, "ValueError", "the flag is set"),  # one raise, two messages
        (16, "ValueError", "the flag is not set"),
        (20, "ValueError", "bad names:{names}"),  # `+=` joins onto what it held
        (24, "InvalidURL", "Invalid URL {url!r}"),
        (26, "InvalidURL", "Invalid URL component {key!r}"),  # not the first one again
        (31, "ValueError", "Empty locale identifier value: {identifier!r}"),
        (32, "TypeError", "Empty locale identifier value: {identifier!r}"),
        (34, "UnacceptableRouteError", "converter {cpc_1} of {cpc_0}"),
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (6, "not an exception class (a CapWords name)"),
        (7, "not an exception class (a CapWords name)"),
        (8, "message has no literal text"),
        (10, "exc raised without a message"),
    ]


PYTHON2 = """\
import sys
LIMIT = 0755 + 10L
def get(items, name):
    try:
        return items[name]
    except (KeyError, IndexError), e:
        print >>sys.stderr, "lookup failed: %s" % `name`,
        raise KeyError, "no widget named %s" % name
def check(a, (low, high)):
    if a <> low: raise ValueError, "value %r out of range" % a, sys.exc_info()[2]
    exec "pass" in {}
    key = lambda (k, v): k
    raise ImportStringError(a, e), None, sys.exc_info()[2]
ERROR = ur"raw"
def apply(entry):
    raise SchedulingError, SchedulingError(
        "Couldn't apply scheduled task %s" % entry), sys.exc_info()[2]
def open_channel(kind):
        reject = False
\tif kind == 'auth-agent':
\t    raise ChannelError('''no agent
\tforwarding: see %s''' % kind)
"""


def read_last(*files: tuple[str, str]) -> tuple[list[RaiseSite], list[Skipped]]:
    """The raises of the last of a commit's files (path, text), its library all of them."""
    modules = [python_module(text, path, ScanSettings())[0] for path, text in files]
    read = [module for module in modules if module is not None]
    assert len(read) == len(files)
    return resolved(read[-1], Library(read))


def read_rewritten(source: str) -> tuple[list[RaiseSite], list[Skipped]]:
    """The raises of a file this Python reads only once it is rewritten (it must read it)."""
    module, problem = python_module(source, "pkg/widgets.py", ScanSettings())
    assert problem == "" and module is not None
    return resolved(module, Library([module]))


def test_python_2_code_is_read_at_its_own_lines() -> None:
    sites, skipped = read_rewritten(PYTHON2)
    assert [(s.line, s.exception, s.template) for s in sites] == [
        (8, "KeyError", "no widget named {name}"),
        (10, "ValueError", "value {a!r} out of range"),
        (16, "SchedulingError", "Couldn't apply scheduled task {entry}"),  # celery 3.0
        # paramiko 1.7.12: tabs and spaces in one function, a tab taken to column 8
        (21, "ChannelError", "no agent\n\tforwarding: see {kind}"),  # not in a string
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (13, "message is not built from string literals")
    ]
    # What no rewrite makes Python: a release committed with a merge conflict in it.
    conflicted = "<<<<<<< HEAD\nraise KeyError('a')\n=======\n>>>>>>> other\n"
    assert python_module(conflicted, "pkg/widgets.py", ScanSettings())[0] is None


def test_code_from_before_async_was_a_keyword_is_read_at_its_own_lines() -> None:
    # aiohttp 0.1–2.3 (Python 3.4 and 3.5): `asyncio.async(…)`, and `async` as a name.
    source = (
        "import asyncio\n"
        "ensure_future = asyncio.async\n"
        "def start(loop, coro, async=False):\n"
        "    runner = asyncio.async(coro, loop=loop)\n"
        "    if runner is None:\n"
        '        raise RuntimeError("runner did not start")\n'
        "async def stop(runner):\n"
        "    async with runner:\n"
        "        await (runner.close())\n"
        '    raise ValueError("stopped twice")\n'
    )
    sites, _ = read_rewritten(source)
    assert [(s.line, s.template) for s in sites] == [
        (6, "runner did not start"),
        (10, "stopped twice"),
    ]


def test_code_in_syntax_newer_than_this_python_is_read_at_its_own_lines(
    tmp_path: Path,
    make_content,  # type: ignore[no-untyped-def]
) -> None:
    # Sphinx 9 (Python 3.12's type aliases and type parameters) and Python 3.14's `except`
    # of several classes without brackets, beside Python 2's `except E, e:`.
    source = (
        "type Handler = Callable[[str], None]\n"
        "type Pair[T] = tuple[T, T]\n"
        "class Box[T: Node](Base):\n"
        "    def first[U](self, items: list[U]) -> U:\n"
        "        if not items:\n"
        '            raise ValueError("no items in the box")\n'
        "async def fetch[T](key):\n"
        "    try:\n"
        "        return await lookup(key)\n"
        "    except KeyError, IndexError:\n"
        '        raise LookupError(f"no entry {key!r}")\n'
        "def legacy(key):\n"
        "    try:\n"
        "        return table[key]\n"
        "    except KeyError, e:\n"
        '        raise ValueError("unknown key %s" % key)\n'
        "    except IndexError,e:\n"  # networkx 0.33–1.2: no space after the comma
        '        raise ValueError("bad index %s" % e)\n'
    )
    sites, _ = read_rewritten(source)
    assert [(s.line, s.scope, s.template, s.conditions) for s in sites] == [
        (6, "Box.first", "no items in the box", ("not items",)),
        (11, "fetch", "no entry {key!r}", ("except (KeyError, IndexError)",)),
        (16, "legacy", "unknown key {key}", ("except KeyError",)),
        (18, "legacy", "bad index {e}", ("except IndexError",)),
    ]
    # A type parameter list over several lines is not rewritten: the file is not read, and
    # scan says which line this Python stopped at.
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/box.py", source.replace("[U](self", "[\n    U,\n](self"))
    repo.write("pkg/ok.py", 'raise ValueError("read as it is")\n')
    repo.commit("newer syntax")
    content = make_content({})
    result = run_cli("scan", str(repo.path), "--repo", "acme/box", "--content", str(content))
    assert result.exit_code == 0, result.output
    assert "1 Python file, 1 raise site" in result.stdout
    assert (
        f"note: 1 file did not parse as Python {platform.python_version()}, the Python errpages"
        " runs on, so their raises were not looked for:\n  pkg/box.py: line 4: "
    ) in result.stdout


def test_a_default_message_is_the_message() -> None:
    # aiohttp's http_exceptions and resolver: a message given, or else a default.
    source = (
        "class BadStatusLine(Exception):\n"
        '    def __init__(self, line="", error=None):\n'
        '        super().__init__(error or f"Bad status line {line!r}")\n'
        "class BadHttpMethod(BadStatusLine):\n"
        '    def __init__(self, line="", error=None):\n'
        '        super().__init__(line, error or f"Bad HTTP method in status line {line!r}")\n'
        "def parse(line, hint=None):\n"
        "    if not line:\n"
        "        raise BadHttpMethod(line) from None\n"
        '    raise KeyError(hint or "no such key")\n'
        "def resolve(exc):\n"
        '    msg = exc.args[1] if len(exc.args) >= 1 else "DNS lookup failed"\n'
        "    raise OSError(None, msg) from exc\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template) for s in sites] == [
        (9, "BadHttpMethod", "Bad HTTP method in status line {line!r}"),
        (10, "KeyError", "no such key"),
        (13, "OSError", "DNS lookup failed"),
    ]
    assert skipped == []


def test_a_default_is_not_the_message_of_a_raise_that_gives_one() -> None:
    # django-rest-framework: `default_detail` is what a raise that gives no detail says.
    source = (
        "class APIException(Exception):\n"
        "    default_detail = 'A server error occurred.'\n"
        "    def __init__(self, detail=None, code=None):\n"
        "        self.detail = detail or self.default_detail\n"
        "class NotFound(APIException):\n"
        "    default_detail = 'Not found.'\n"
        "class MethodNotAllowed(APIException):\n"
        "    default_detail = 'Method \"{method}\" not allowed.'\n"
        "    def __init__(self, method, detail=None, code=None):\n"
        "        super().__init__(detail or self.default_detail.format(method=method), code)\n"
        "def view(request, msg, errors):\n"
        "    if msg:\n"
        "        raise NotFound(msg)\n"
        "    if errors:\n"
        "        raise NotFound(detail=errors)\n"
        "    if request.method:\n"
        "        raise MethodNotAllowed(request.method)\n"
        "    if request.user:\n"
        "        raise MethodNotAllowed(request.method, msg)\n"
        "    raise NotFound(code='missing')\n"
        # 3.2's: the detail a caller may give is None by default, and then the default shows
        "def permission_denied(request, message=None):\n"
        "    raise NotFound(detail=message)\n"
        "def not_found(message=None):\n"
        "    message = message or request_text()\n"
        "    raise NotFound(message)\n"
        "def gone():\n"
        "    raise NotFound(None)\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template) for s in sites] == [
        (17, "MethodNotAllowed", 'Method "{method}" not allowed.'),
        (20, "NotFound", "Not found."),
        (22, "NotFound", "Not found."),
        (27, "NotFound", "Not found."),
    ]
    assert [s.line for s in skipped] == [13, 15, 19, 25]


def test_a_message_held_in_a_class_attribute_is_what_the_class_or_a_subclass_binds() -> None:
    # Celery 2.3's loader, Rich's prompts, django-rest-framework's versioning; an attribute
    # the module sets on an instance is not a constant.
    source = (
        "ERROR_ENVVAR_NOT_SET = '''The environment variable %r is not set,\n"
        "and as such the configuration could not be loaded.'''\n"
        "class BaseLoader:\n"
        "    error_envvar_not_set = ERROR_ENVVAR_NOT_SET\n"
        "class Loader(BaseLoader):\n"
        "    def config_from_envvar(self, name):\n"
        "        raise ImproperlyConfigured(self.error_envvar_not_set % name)\n"
        "class PromptBase:\n"
        "    validate_error_message = '[prompt.invalid]Please enter a valid value'\n"
        "    def process_response(self, value):\n"
        "        raise InvalidResponse(self.validate_error_message)\n"
        "class IntPrompt(PromptBase[int]):\n"
        "    validate_error_message = '[prompt.invalid]Please enter a valid integer number'\n"
        "class URLPathVersioning:\n"
        "    invalid_version_message = _('Invalid version in URL path.')\n"
        "    @classmethod\n"
        "    def determine_version(cls, request):\n"
        "        raise NotFound(cls.invalid_version_message)\n"
        "class Changing:\n"
        "    message = 'Not this one'\n"
        "    def fail(self):\n"
        "        raise ValueError(self.message)\n"
        "    def reset(self, message):\n"
        "        self.message = message\n"
        "class Unbound:\n"
        "    def fail(self):\n"
        "        raise ValueError(self.detail)\n"
        # redis-py's: the attribute of a class named, not of its subclasses
        "class MultiDBClient:\n"
        "    _HIMPORT_UNSUPPORTED = 'HIMPORT is not supported on the multi-database client'\n"
        "class Pipeline(MultiDBClient):\n"
        "    _HIMPORT_UNSUPPORTED = 'HIMPORT is not supported in a pipeline'\n"
        "def himport(client):\n"
        "    raise DataError(MultiDBClient._HIMPORT_UNSUPPORTED)\n"
        "    raise DataError(pipeline._HIMPORT_UNSUPPORTED)\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template) for s in sites] == [
        (
            7,
            "ImproperlyConfigured",
            "The environment variable {name!r} is not set,\n"
            "and as such the configuration could not be loaded.",
        ),
        (11, "InvalidResponse", "[prompt.invalid]Please enter a valid value"),
        (11, "InvalidResponse", "[prompt.invalid]Please enter a valid integer number"),
        (18, "NotFound", "Invalid version in URL path."),
        (33, "DataError", "HIMPORT is not supported on the multi-database client"),
    ]
    assert [s.line for s in skipped] == [22, 27, 34]


def test_a_default_message_an_instance_or_a_closure_holds_is_raised_where_it_is_read() -> None:
    # marshmallow's validators and DRF's: `__init__` takes the message given or the class's
    # default, a method fills it in (often through a method of its own), another raises it.
    # What an `__init__` sets that no caller gives (PyYAML's `self.name = "<unicode
    # string>"`), or what another method sets too, is data, not a default message. A
    # closure reads what its enclosing function set the name to.
    source = (
        "class Validator:\n"
        "    error = None\n"
        "class Email(Validator):\n"
        "    default_message = 'Not a valid email address.'\n"
        "    def __init__(self, *, error=None):\n"
        "        self.error = error or self.default_message\n"
        "    def _format_error(self, value):\n"
        "        return self.error.format(input=value)\n"
        "    def __call__(self, value):\n"
        "        message = self._format_error(value)\n"
        "        if '@' not in value:\n"
        "            raise ValidationError(message)\n"
        "class Length(Validator):\n"
        "    message_min = 'Shorter than minimum length {min}.'\n"
        "    message_all = 'Length must be between {min} and {max}.'\n"
        "    message_equal = 'Length must be {equal}.'\n"
        "    def __init__(self, min=None, max=None, *, equal=None, error=None):\n"
        "        self.error = error\n"
        "    def _format_error(self, value, message):\n"
        "        return (self.error or message).format(input=value, min=self.min)\n"
        "    def __call__(self, value):\n"
        "        if len(value) != self.equal:\n"
        "            raise ValidationError(self._format_error(value, self.message_equal))\n"
        "        message = self.message_min if self.max is None else self.message_all\n"
        "        raise ValidationError(self._format_error(value, message))\n"
        "class UniqueValidator:\n"
        "    message = _('This field must be unique.')\n"
        "    def __init__(self, queryset, message=None):\n"
        "        self.message = message or self.message\n"
        "    def __call__(self, attrs):\n"
        "        raise ValidationError(self.message, code='unique')\n"
        "class UniqueForDate(UniqueValidator):\n"
        "    message = _('This field must be unique for the date.')\n"
        "class Reader:\n"
        "    def __init__(self, stream):\n"
        "        self.name = '<unicode string>'\n"
        "    def check(self, data):\n"
        "        raise ReaderError(self.name)\n"
        "class Later:\n"
        "    def __init__(self, note=None):\n"
        "        self.note = note or 'Set up first'\n"
        "    def run(self):\n"
        "        raise RuntimeError(self.note)\n"
        "    def reset(self):\n"
        "        self.note = None\n"
        "class Other:\n"
        "    def _format_error(self, value):\n"
        "        text = self.error\n"
        "        return text.format(input=value)\n"
        "    def check(self, value):\n"
        "        raise ValidationError(self._format_error(value))\n"
        # WTForms 0.6: a parameter's default, or what `__init__` sets it to where none is
        # given; a default that is data (no words apart) is no message
        "class Required:\n"
        "    def __init__(self, message=u'This field is required.'):\n"
        "        self.message = message\n"
        "    def __call__(self, form, field):\n"
        "        raise StopValidation(self.message)\n"
        "class Between:\n"
        "    def __init__(self, min=-1, max=-1, message=None):\n"
        "        if message is None:\n"
        "            if max == -1:\n"
        "                message = u'Field must be at least %(min)d characters long.'\n"
        "            else:\n"
        "                message = u'Field must be between %(min)d and %(max)d characters.'\n"
        "        self.text = message\n"
        "    def __call__(self, form, field):\n"
        "        raise ValidationError(self.text % dict(min=self.min, max=self.max))\n"
        "class Client:\n"
        "    def __init__(self, host='localhost'):\n"
        "        self.host = host\n"
        "    def connect(self):\n"
        "        raise ConnectionError(self.host)\n"
        # MkDocs' DeprecatedOption: what `__init__` sets when not `removed` is no message of
        # a raise under `self.removed`, which it keeps
        "class Deprecated:\n"
        "    def __init__(self, message=None, removed=False):\n"
        "        if not message:\n"
        "            if removed:\n"
        "                message = 'The option {} was removed from the tool.'\n"
        "            else:\n"
        "                message = 'The option {} is deprecated and will be removed.'\n"
        "        self.message = message\n"
        "        self.removed = removed\n"
        "    def pre_validation(self, key_name):\n"
        "        if self.removed:\n"
        "            raise ValidationError(self.message.format(key_name))\n"
        # WTForms 0.1–0.3: validators are closures over their factory's message
        "def length(min=-1, max=-1, message=None):\n"
        "    if not message:\n"
        "        message = u'Field must be between %i and %i characters long.' % (min, max)\n"
        "    def _length(form, field):\n"
        "        raise ValidationError(message)\n"
        "    return _length\n"
        "def required(message=u'This field is required.'):\n"
        "    def _required(form, field):\n"
        "        raise StopValidation(message)\n"
        "    return _required\n"
        "def given(message):\n"
        "    def _given(form, field):\n"
        "        raise StopValidation(message)\n"
        "    return _given\n"
        # WTForms 0.6.1–1.0: the method sets the message where none was given, then raises
        # it; what it sets after the raise is not what it raised
        "class NumberRange:\n"
        "    def __init__(self, min=None, max=None, wording=None):\n"
        "        self.wording = wording\n"
        "    def __call__(self, form, field):\n"
        "        if field.data < self.min:\n"
        "            if self.wording is None:\n"
        "                if self.max is None:\n"
        "                    self.wording = field.gettext(u'Number must be at least %(min)s.')\n"
        "                else:\n"
        "                    self.wording = field.gettext(u'Number between %(min)s and %(max)s.')\n"
        "            raise ValidationError(self.wording % dict(min=self.min, max=self.max))\n"
        "        raise ValidationError(self.wording)\n"
        "        self.wording = u'Set after the raise.'\n"
        # marshmallow 1.2: `__init__` keeps a lambda that fills the message in, a method
        "class Range:\n"
        "    message_min = 'Must be at least {min}.'\n"
        "    def __init__(self, min=None, error=None):\n"
        "        self.error = error\n"
        "        self._format = lambda m: (self.error or m).format(min=self.min)\n"
        "    def __call__(self, value):\n"
        "        if value < self.min:\n"
        "            raise ValidationError(self._format(self.message_min))\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.template, s.conditions) for s in sites] == [
        (12, "Not a valid email address.", ("'@' not in value",)),
        (23, "Length must be {equal}.", ("len(value) != self.equal", "not self.error")),
        (25, "Shorter than minimum length {min}.", ("not self.error", "self.max is None")),
        (25, "Length must be between {min} and {max}.", ("not self.error", "self.max is not None")),
        (31, "This field must be unique.", ()),
        (31, "This field must be unique for the date.", ()),
        (56, "This field is required.", ()),
        (66, "Field must be at least {min} characters long.", ()),
        (66, "Field must be between {min} and {max} characters.", ()),
        (83, "The option {key_name} was removed from the tool.", ("self.removed",)),
        (88, "Field must be between {min} and {max} characters long.", ("not message",)),
        (92, "This field is required.", ()),
        (
            108,
            "Number must be at least {min}.",
            ("field.data < self.min", "self.wording is None", "self.max is None"),
        ),
        (
            108,
            "Number between {min} and {max}.",
            ("field.data < self.min", "self.wording is None", "self.max is not None"),
        ),
        (118, "Must be at least {min}.", ("value < self.min", "not self.error")),
    ]
    assert sites[-1].made_by == "Range._format"
    assert {s.made_by for s in sites if s.line < 30} == {
        "Email._format_error",
        "Length._format_error",
    }
    assert [(s.line, s.reason) for s in skipped] == [
        (38, "message is not built from string literals"),
        (43, "message is not built from string literals"),
        (51, "message is not built from string literals"),
        (71, "message is not built from string literals"),
        (96, "message is not built from string literals"),
        (109, "message is not built from string literals"),
    ]


def test_a_class_that_fills_its_first_argument_in_with_the_others_says_it_filled() -> None:
    # dateutil 2.8.1's ParserError; a class that does not fill it in says the `%s` as given.
    source = (
        "def parse(timestr, res):\n"
        "    if res is None:\n"
        "        raise ParserError('Unknown string format: %s', timestr)\n"
        "    if not res:\n"
        "        raise ParserError('No %s here')\n"
        "    raise ValueError('unsupported auth_mode %s', timestr)\n"
        "class ParserError(ValueError):\n"
        "    def __str__(self):\n"
        "        try:\n"
        "            return self.args[0] % self.args[1:]\n"
        "        except (TypeError, IndexError):\n"
        "            return super(ParserError, self).__str__()\n"
    )
    sites, _ = scan_source(source)
    assert [(s.line, s.exception, s.template) for s in sites] == [
        (3, "ParserError", "Unknown string format: {timestr}"),
        (5, "ParserError", "No %s here"),
        (6, "ValueError", "unsupported auth_mode %s"),
    ]


def test_an_exception_held_in_a_variable_or_handed_to_reraise_is_raised_there() -> None:
    # pytest 3–5's plugin import error, aiohttp's chunked payload; a caught error is not one.
    source = (
        "def import_plugin(modname, importspec):\n"
        "    try:\n"
        "        __import__(importspec)\n"
        "    except ImportError as e:\n"
        "        new_exc = ImportError(f'Error importing plugin \"{modname}\": {e.args[0]}')\n"
        "        raise new_exc.with_traceback(e.__traceback__)\n"
        "def feed(payload, size):\n"
        "    if size < 0:\n"
        "        exc = TransferEncodingError('Not enough data to satisfy transfer length header.')\n"
        "        exc.__cause__ = payload.error\n"
        "        payload.set_exception(exc)\n"
        "        raise exc\n"
        "def run(task):\n"
        "    try:\n"
        "        task()\n"
        "    except OSError as err:\n"
        "        if not err.errno:\n"
        "            err = RuntimeError('maybe the error caught')\n"
        "        raise err\n"
        "def last(tasks):\n"
        "    failure = ValueError('maybe the last task')\n"
        "    for failure in tasks:\n"
        "        pass\n"
        "    raise failure\n"
        # pytest 4's and werkzeug 1's calls that raise what they are given (six's, their own)
        "def ids(nodeid, argname, e):\n"
        "    msg = '{}: error raised while trying to determine id of {}'.format(nodeid, argname)\n"
        "    six.raise_from(ValueError(msg), e)\n"
        "def import_string(name):\n"
        "    try:\n"
        "        return __import__(name)\n"
        "    except ImportError as e:\n"
        "        failed = ImportStringError(f'import_string() failed for {name!r}')\n"
        "        reraise(ImportStringError, failed, sys.exc_info()[2])\n"
        # aiohttp 3.9.2: a parameter's name, assigned again on the way; not, only in a branch
        "def connection_lost(self, exc):\n"
        "    if self.payload is not None:\n"
        "        exc = ClientPayloadError('Response payload is not completed')\n"
        "        exc.__cause__ = self.error\n"
        "        self.payload.set_exception(exc)\n"
        "def close(exc):\n"
        "    if exc is None:\n"
        "        exc = ConnectionResetError('Connection reset')\n"
        "    raise exc\n"
        # Alembic 1.4's and SQLAlchemy 1.4's compat calls
        "def hook(name, opts):\n"
        "    try:\n"
        "        opts['type']\n"
        "    except KeyError:\n"
        "        compat.raise_from_cause(\n"
        "            util.CommandError('Key %s.type is required for post write hook %r' % (name, name))\n"
        "        )\n"
        "def column(err):\n"
        "    util.raise_(exc.ArgumentError('Column expression expected'), replace_context=err)\n"
    )
    sites, skipped = scan_source(source)
    transfer = "Not enough data to satisfy transfer length header."
    assert [(s.line, s.exception, s.template) for s in sites] == [
        (6, "ImportError", 'Error importing plugin "{modname}": {args}'),
        (11, "TransferEncodingError", transfer),
        (12, "TransferEncodingError", transfer),
        (27, "ValueError", "{nodeid}: error raised while trying to determine id of {argname}"),
        (33, "ImportStringError", "import_string() failed for {name!r}"),
        (38, "ClientPayloadError", "Response payload is not completed"),
        (47, "CommandError", "Key {name}.type is required for post write hook {name!r}"),
        (51, "ArgumentError", "Column expression expected"),
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (19, "err raised without a message"),
        (24, "failure raised without a message"),
        (42, "exc raised without a message"),
    ]


def test_an_exception_yielded_for_its_caller_and_the_text_a_message_takes_from_variables() -> None:
    # jsonschema's keywords yield the errors `validate()` raises; a token is no error.
    source = (
        "def minItems(validator, mI, instance, schema):\n"
        "    if len(instance) < mI:\n"
        "        message = 'should be non-empty' if mI == 1 else 'is too short'\n"
        "        yield ValidationError(f'{instance!r} {message}')\n"
        "def type_(validator, types, instance, schema):\n"
        "    if not any(validator.is_type(instance, t) for t in types):\n"
        "        error = ValidationError(f'{instance!r} is not of type {types}')\n"
        "        yield error\n"
        "def tokens(text):\n"
        "    yield Token('(')\n"
        # pydantic's plural: text of its own, so one message; nor is a parameter filled in
        "def unexpected(keys, label):\n"
        "    plural = '' if len(keys) == 1 else 's'\n"
        "    raise TypeError(f'unexpected keyword argument{plural}: {keys} for {label}')\n"
        # aiohttp's BadHttpMethod: the message given, or set in a branch, or a default
        "def parsed(line, error=None):\n"
        "    if error is None and line.startswith('x'):\n"
        "        error = 'Received HTTPS traffic'\n"
        "    raise BadStatusLine(error or f'Bad status line {line!r}')\n"
        "def compared(instance, maximum, exclusive):\n"
        "    if exclusive:\n"
        "        cmp = 'greater than or equal to'\n"
        "    else:\n"
        "        cmp = compare_words(maximum)\n"
        "    message = f'{instance!r} is {cmp} the maximum of {maximum!r}'\n"
        "    yield ValidationError(message)\n"
        # urllib3 1.x: the standard library's lower-case classes; another lower-case call is none
        "from socket import timeout\n"
        "def recv(sock, error):\n"
        "    if not sock.wait():\n"
        "        raise timeout('The read operation timed out')\n"
        "    if sock.empty:\n"
        "        raise socket.error('getaddrinfo returns an empty list')\n"
        "    raise error('not a class')\n"
        # jsonschema 3.0: the name is a loop's in the other branch only
        "def additional(validator, aP, extras):\n"
        "    if aP:\n"
        "        for error in validator.descend(extras):\n"
        "            yield error\n"
        "    else:\n"
        "        error = 'Additional properties are not allowed (%s unexpected)'\n"
        "        yield ValidationError(error % extras)\n"
        # jsonschema 3.x, for Python 2 too: the message in `__unicode__`
        "class UndefinedTypeCheck(Exception):\n"
        "    def __init__(self, type):\n"
        "        self.type = type\n"
        "    def __unicode__(self):\n"
        "        return 'Type %r is unknown to this type checker' % self.type\n"
        "    __str__ = __unicode__\n"
        "def is_type(type):\n"
        "    raise UndefinedTypeCheck(type)\n"
        # click 7.1–8.0: text of its own, but a variable that is only ever a sentence
        "def _check_multicommand(base_command, cmd_name, register=False):\n"
        "    if register:\n"
        "        hint = ('It is not possible to add multi commands as children to'\n"
        "                ' another multi command that is in chain mode.')\n"
        "    else:\n"
        "        hint = 'Found a multi command as subcommand to a multi command in chain mode.'\n"
        "    raise RuntimeError(f'{hint} Command {cmd_name!r} is set to chain.')\n"
    )
    sites, skipped = scan_source(source)
    held = {s.template: s.conditions for s in sites if s.line in (4, 53)}
    assert held == {
        "{instance!r} should be non-empty": ("len(instance) < mI", "mI == 1"),
        "{instance!r} is too short": ("len(instance) < mI", "mI != 1"),
        "It is not possible to add multi commands as children to another multi command that"
        " is in chain mode. Command {cmd_name!r} is set to chain.": ("register",),
        "Found a multi command as subcommand to a multi command in chain mode. Command"
        " {cmd_name!r} is set to chain.": ("not register",),
    }
    assert [(s.line, s.exception, s.template, s.handed) for s in sites if s.line < 47] == [
        (4, "ValidationError", "{instance!r} should be non-empty", "yield"),
        (4, "ValidationError", "{instance!r} is too short", "yield"),
        (8, "ValidationError", "{instance!r} is not of type {types}", "yield"),
        (13, "TypeError", "unexpected keyword argument{plural}: {keys} for {label}", ""),
        (17, "BadStatusLine", "Received HTTPS traffic", ""),
        (17, "BadStatusLine", "Bad status line {line!r}", ""),
        # a variable that is not text in every branch stays a placeholder
        (24, "ValidationError", "{instance!r} is {cmp} the maximum of {maximum!r}", "yield"),
        (28, "socket.timeout", "The read operation timed out", ""),
        (30, "socket.error", "getaddrinfo returns an empty list", ""),
        (
            38,
            "ValidationError",
            "Additional properties are not allowed ({extras} unexpected)",
            "yield",
        ),
        (46, "UndefinedTypeCheck", "Type {type!r} is unknown to this type checker", ""),
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (31, "not an exception class (a CapWords name)")
    ]


def test_a_message_made_by_a_function_of_another_module_is_what_it_returns() -> None:
    # jsonschema 2.0–3.2: `_utils.types_msg` makes the message of its most common error.
    utils = (
        "def types_msg(instance, types):\n"
        "    reprs = [repr(type) for type in types]\n"
        "    return '%r is not of type %s' % (instance, ', '.join(reprs))\n"
        "def name_of(value):\n"
        "    return 'default'\n"
        "class Widget:\n"
        "    def describe(self):\n"
        "        return 'a widget of no use'\n"
    )
    validators = (
        "from jsonschema import _utils\n"
        "from jsonschema._utils import types_msg, name_of, describe\n"
        "def type_(validator, types, instance, schema):\n"
        "    if not validator.is_type(instance, types):\n"
        "        yield ValidationError(types_msg(instance, types))\n"
        "    raise ValidationError(_utils.types_msg(instance, types))\n"
        "def other(x):\n"
        "    raise UnknownName(name_of(x))\n"
        "def method(x):\n"
        "    raise UnknownName(describe(x))\n"
    )
    sites, skipped = read_last(
        ("jsonschema/_utils.py", utils), ("jsonschema/_validators.py", validators)
    )
    assert [(s.line, s.template, s.made_by) for s in sites] == [
        (5, "{instance!r} is not of type {reprs}", "types_msg"),
        (6, "{instance!r} is not of type {reprs}", "types_msg"),
    ]
    assert [s.line for s in skipped] == [8, 10]  # a word is no message; a method is not one


def test_a_raise_of_what_a_factory_returns_is_of_the_class_the_call_gives_it() -> None:
    # tomlkit: `Parser.parse_error` hands all it is given to the `Source` its `__init__`
    # made, whose `parse_error` returns `exception(line, col, *args, **kwargs)`; the class
    # builds its message, around what the call hands it or not, or takes the one given.
    exceptions = (
        "class ParseError(ValueError):\n"
        "    def __init__(self, line, col, message=None):\n"
        "        if message is None:\n"
        "            message = 'TOML parse error'\n"
        "        super().__init__(f'{message} at line {line} col {col}')\n"
        "class InvalidNumberError(ParseError):\n"
        "    def __init__(self, line, col):\n"
        "        super().__init__(line, col, message='Invalid number')\n"
        "class UnexpectedCharError(ParseError):\n"
        "    def __init__(self, line, col, char):\n"
        "        super().__init__(line, col, message=f'Unexpected character: {char!r}')\n"
        "class InvalidControlChar(ParseError):\n"
        "    def __init__(self, line, col, char, type):\n"
        "        message = f'Control characters are not allowed in {type}, use {char} instead'\n"
        "        super().__init__(line, col, message=message)\n"
    )
    source = (
        "from .exceptions import ParseError\n"
        "class Source(str):\n"
        "    def parse_error(self, exception=ParseError, *args, **kwargs):\n"
        "        line, col = self._to_linecol()\n"
        "        return exception(line, col, *args, **kwargs)\n"
    )
    parser = (
        "from .exceptions import *\n"
        "from .source import Source\n"
        "class Parser:\n"
        "    def __init__(self, string):\n"
        "        self._src = Source(string)\n"
        "    def parse_error(self, exception=ParseError, *args, **kwargs):\n"
        "        return self._src.parse_error(exception, *args, **kwargs)\n"
        "    def _parse_number(self, raw):\n"
        "        if not raw:\n"
        "            raise self.parse_error(InvalidNumberError)\n"
        "        if raw == '[':\n"
        "            raise self.parse_error(ParseError, 'Failed to parse array')\n"
        "        if raw == '\\x00':\n"
        "            raise self.parse_error(InvalidControlChar, raw, 'strings')\n"
        "        raise self.parse_error(ParseError, str(raw))\n"
        "def value(raw):\n"
        "    parser = Parser(raw)\n"
        "    raise parser.parse_error(UnexpectedCharError, char=parser._current)\n"
        "def other(handle):\n"
        "    raise handle.make_error(InvalidNumberError)\n"
        "class Tokenizer:\n"
        "    def fail(self, message):\n"
        "        raise ParseError(0, 0, message)\n"
        "    def expect(self, name):\n"
        "        raise self.fail(f'Expected {name}')\n"
    )
    sites, skipped = read_last(
        ("tomlkit/exceptions.py", exceptions),
        ("tomlkit/source.py", source),
        ("tomlkit/parser.py", parser),
    )
    assert [(s.line, s.exception, s.template, s.conditions, s.made_by) for s in sites] == [
        (10, "InvalidNumberError", "Invalid number", ("not raw",), "Parser.parse_error"),
        (12, "ParseError", "Failed to parse array", ("raw == '['",), "Parser.parse_error"),
        (
            14,
            "InvalidControlChar",
            "Control characters are not allowed in strings, use {char} instead",
            ("raw == '\\x00'",),
            "Parser.parse_error",
        ),
        (18, "UnexpectedCharError", "Unexpected character: {char!r}", (), "Parser.parse_error"),
        (25, "ParseError", "Expected {name}", (), ""),
    ]
    assert sites[-1].helper == "Tokenizer.fail"  # a helper that raises itself, raised again
    assert [(s.line, s.reason) for s in skipped] == [
        (15, "raised from Parser.parse_error with a message not built from literals"),
        (20, "not an exception class (a CapWords name)"),
        (23, "message is not built from string literals"),
    ]


def test_a_factory_that_hands_on_the_items_of_a_tuple_it_is_given_raises_them_too() -> None:
    # tomlkit 0.1-0.4: `parse_error(self, kind=ParseError, args=None)` returns `kind(line,
    # col, *args)` when given a tuple and `kind(line, col)` otherwise; `(c)` is no tuple, and
    # what it holds is the one argument the class is given.
    source = (
        "class ParseError(ValueError):\n"
        "    def __init__(self, line, col, message=None):\n"
        "        super().__init__(f'{message or \"TOML parse error\"} at line {line}')\n"
        "class UnexpectedCharError(ParseError):\n"
        "    def __init__(self, line, col, char):\n"
        "        super().__init__(line, col, message=f'Unexpected character: {char!r}')\n"
        "class InternalParserError(ParseError):\n"
        "    def __init__(self, line, col, message=None):\n"
        "        super().__init__(line, col, message=message)\n"
        "class Parser:\n"
        "    def parse_error(self, kind=ParseError, args=None):\n"
        "        line, col = self._to_linecol(self._idx)\n"
        "        if args:\n"
        "            return kind(line, col, *args)\n"
        "        else:\n"
        "            return kind(line, col)\n"
        "    def _peek_table(self, c):\n"
        "        if c != '[':\n"
        "            raise self.parse_error(\n"
        "                InternalParserError, ('_peek_table() entered on non-bracket character',)\n"
        "            )\n"
        "        if c == ']':\n"
        "            raise self.parse_error(UnexpectedCharError, (c))\n"
        "        raise self.parse_error(UnexpectedCharError, ('=',))\n"
    )
    sites, skipped = read_last(("tomlkit/parser.py", source))
    assert [(s.line, s.exception, s.template, s.made_by) for s in sites] == [
        (
            19,
            "InternalParserError",
            "_peek_table() entered on non-bracket character",
            "Parser.parse_error",
        ),
        (23, "UnexpectedCharError", "Unexpected character: {char!r}", "Parser.parse_error"),
        (24, "UnexpectedCharError", "Unexpected character: '='", "Parser.parse_error"),
    ]
    assert skipped == []


def test_classes_that_are_their_own_bases_end_the_search_for_a_method() -> None:
    # Untrusted code: `class A(A)` redefines an imported name; two classes name each other.
    source = (
        "class A(A):\n"
        "    def f(self):\n"
        "        raise self.g()\n"
        "class B(C):\n"
        "    def f(self):\n"
        "        raise KeyError(self.message())\n"
        "class C(B):\n"
        "    pass\n"
    )

    def endless(*_: object) -> None:
        raise TimeoutError("the search for a method did not end")

    previous = signal.signal(signal.SIGALRM, endless)
    signal.alarm(10)
    try:
        sites, skipped = scan_source(source)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert sites == []
    assert [s.line for s in skipped] == [3, 6]


def test_a_message_built_in_steps_is_one_message() -> None:
    """Assignments on the way to the raise replace what the variable held, those in a branch
    add a message, and one that reads the variable joins onto each message it held."""
    source = (
        "def f(x, verbose):\n"
        '    msg = f"bad value {x}"\n'
        '    msg = msg + " (see the docs)"\n'
        "    raise ValueError(msg)\n"
        "def g(x, verbose):\n"
        '    msg = "first"\n'
        '    msg = f"bad input {x}"\n'
        "    if verbose:\n"
        '        msg += " (more in the log)"\n'
        "    raise ValueError(msg)\n"
        "def h(reason):\n"
        '    msg = reason + " happened"\n'
        "    raise ValueError(msg)\n"
        "def k(prefix):\n"
        '    prefix += ": failed"\n'
        "    raise ValueError(prefix)\n"
        "def m(root, last):\n"  # as pydantic's _model_construction: a note in one branch only
        "    if root:\n"
        '        msg = f"{root} needs parameters"\n'
        "    else:\n"
        '        msg = "inherit from Generic"\n'
        "        if not last:\n"
        '            msg += " (Generic goes last)"\n'
        "    raise TypeError(msg)\n"
        "def n(flag):\n"
        "    if flag:\n"
        '        msg = "flag set"\n'
        "    else:\n"
        '        msg = "flag not set"\n'
        "        raise ValueError(msg)\n"
        "def p(self, error_type):\n"  # as httpx's raise_for_status: format() of the variable
        "    message = \"{error_type} '{0.status_code}' for '{0.url}' at {0.headers[location]}\"\n"
        "    message = message.format(self, error_type=error_type)\n"
        "    raise HTTPStatusError(message, request=None)\n"
        "def q(kwargs, result):\n"  # as requests' create_cookie: the variable is the template
        "    err = 'create_cookie() got unexpected keyword arguments: %s'\n"
        "    raise TypeError(err % list(set(kwargs) - set(result)))\n"
        "def r(name):\n"
        "    template = 'no widget named {name!r}'\n"
        "    raise KeyError(template.format(name=name))\n"
        "def s(x, error):\n"  # as aiohttp's connection_lost: the f-string reads the variable
        '    msg = f"bad thing {x!r}"\n'
        "    if error:\n"
        '        msg = f"{msg}. {error!r}"\n'
        "    raise ValueError(msg)\n"
        "def t(objpath, exc):\n"  # as Sphinx 1.8's autodoc: every branch adds to it
        "    if objpath:\n"
        '        errmsg = "failed to import %r from module" % objpath\n'
        "    else:\n"
        '        errmsg = "failed to import the module"\n'
        "    if isinstance(exc, SystemExit):\n"
        '        errmsg += "; it called sys.exit()"\n'
        "    elif exc is None:\n"
        "        return\n"
        "    else:\n"
        '        errmsg += "; it raised an exception"\n'
        "    if PY2:\n"
        '        errmsg = errmsg.decode("utf-8")\n'  # the same text
        "    raise ImportError(errmsg)\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.template) for s in sites] == [
        (4, "bad value {x} (see the docs)"),
        (10, "bad input {x}"),
        (10, "bad input {x} (more in the log)"),
        (13, "{reason} happened"),
        (24, "{root} needs parameters"),
        (24, "inherit from Generic"),
        (24, "inherit from Generic (Generic goes last)"),  # not onto the other branch's message
        (30, "flag not set"),  # not the other branch's
        (34, "{error_type} '{status_code}' for '{url}' at {location}"),
        (37, "create_cookie() got unexpected keyword arguments: {value}"),
        (40, "no widget named {name!r}"),
        (45, "bad thing {x!r}"),
        (45, "bad thing {x!r}. {error!r}"),
        # not the messages before the `if` whose every branch adds to them (or returns)
        (59, "failed to import {objpath!r} from module; it called sys.exit()"),
        (59, "failed to import the module; it called sys.exit()"),
        (59, "failed to import {objpath!r} from module; it raised an exception"),
        (59, "failed to import the module; it raised an exception"),
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (16, "message is not built from string literals"),  # joined onto a parameter
    ]


def test_a_message_joined_from_a_list_is_each_text_the_list_can_hold() -> None:
    """A list the function builds from texts (`append`, `extend`, `+=`) and joins with a
    literal is read as `+=` onto a text is; a list it does anything else with, or is given,
    is not a message scan can know."""
    source = (
        "def unknown(cmd_name, guess):\n"  # as pip's main_parser
        "    msg = [f'unknown command \"{cmd_name}\"']\n"
        "    if guess:\n"
        "        msg.append(f'maybe you meant \"{guess}\"')\n"
        '    raise CommandError(" - ".join(msg))\n'
        "class ConflictError(Exception):\n"  # as pyramid's ConfigurationConflictError
        "    def __str__(self):\n"
        '        r = ["Conflicting configuration actions"]\n'
        "        for discriminator, infos in self._conflicts.items():\n"
        '            r.append(f"  For: {discriminator}")\n'
        "            for info in infos:\n"  # runs only after the line above, each time
        '                r.append("    " + info)\n'
        '        return "\\n".join(r)\n'
        "def conflict(conflicts):\n"
        "    raise ConflictError(conflicts)\n"
        "def steps(order):\n"
        "    lines = []\n"
        '    lines.extend(["Actions were added", f"after order {order} ran"])\n'
        '    lines += ["(too late)"]\n'
        '    raise ConfigurationError("; ".join(lines))\n'
        "def sorted_problems(items):\n"  # sorted: the order of its texts is not known
        '    problems = ["the first problem of several"]\n'
        "    for item in items:\n"
        '        problems.append(f"item {item} is broken")\n'
        "    problems.sort()\n"
        '    raise ValueError("; ".join(problems))\n'
        "def filled(items, check):\n"  # handed to a function that may add to it
        '    errors = ["these items failed:"]\n'
        "    check(items, errors)\n"
        "    if len(errors) > 1:\n"
        '        raise ValueError("\\n".join(errors))\n'
        "def given(names):\n"
        '    raise ValueError("Cannot use these: %s" % ", ".join(names))\n'
        "class Parser:\n"  # as jinja's _fail_ut_eof: through a raise helper, with its conditions
        "    def fail(self, msg, lineno=None):\n"
        "        raise TemplateSyntaxError(msg, lineno)\n"
        "    def fail_eof(self, name, looking):\n"
        "        if name is None:\n"
        '            message = ["Unexpected end of template."]\n'
        "        else:\n"
        '            message = [f"Encountered unknown tag {name!r}."]\n'
        "        if looking:\n"
        '            message.append(f"Jinja was looking for {looking}.")\n'
        '        self.fail(" ".join(message), 1)\n'
        "    def fail_choice(self, end):\n"
        '        self.fail("Unexpected end of input" if end else "Unexpected token here")\n'
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template, s.conditions) for s in sites] == [
        (5, "CommandError", 'unknown command "{cmd_name}"', ()),
        (5, "CommandError", 'unknown command "{cmd_name}" - maybe you meant "{guess}"', ("guess",)),
        (15, "ConflictError", "Conflicting configuration actions", ()),
        (15, "ConflictError", "Conflicting configuration actions\n  For: {discriminator}", ()),
        (
            15,
            "ConflictError",
            "Conflicting configuration actions\n  For: {discriminator}\n    {info}",
            (),
        ),
        (20, "ConfigurationError", "Actions were added; after order {order} ran; (too late)", ()),
        (33, "ValueError", "Cannot use these: {names}", ()),
        (44, "TemplateSyntaxError", "Unexpected end of template.", ("name is None",)),
        (44, "TemplateSyntaxError", "Encountered unknown tag {name!r}.", ("name is not None",)),
        (
            44,
            "TemplateSyntaxError",
            "Unexpected end of template. Jinja was looking for {looking}.",
            ("name is None", "looking"),
        ),
        (
            44,
            "TemplateSyntaxError",
            "Encountered unknown tag {name!r}. Jinja was looking for {looking}.",
            ("name is not None", "looking"),
        ),
        (46, "TemplateSyntaxError", "Unexpected end of input", ("end",)),
        (46, "TemplateSyntaxError", "Unexpected token here", ("not end",)),
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (26, "message is not built from string literals"),
        (31, "message is not built from string literals"),
        (36, "message is not built from string literals"),  # the helper's own raise
    ]
    # A list of more items than a message is made of (3,000: deeper than Python's recursion
    # limit as one expression) is not read, and its file still is.
    rows = ", ".join(f'"row {n} of a table"' for n in range(3000))
    source = f"def table():\n    rows = [{rows}]\n    raise ValueError(' '.join(rows))\n"
    sites, skipped = scan_source(source)
    assert sites == []
    assert [(s.line, s.reason) for s in skipped] == [
        (3, "message is not built from string literals")
    ]


CUSTOM_ERRORS = (
    "from pydantic_core import PydanticCustomError\n"
    "def check(value, predicate_name):\n"
    "    if value is None:\n"
    "        raise PydanticCustomError('predicate_failed', 'Predicate {predicate_name} failed',"
    " {'predicate_name': predicate_name})\n"
    "    if value < 0:\n"
    "        raise PydanticCustomError('value_error', 'Value must not be negative, got {value}')\n"
    "    if value > 9:\n"
    "        raise PydanticCustomError('value_error', 'Value must be at most 9, got {value}')\n"
)


def scan_json(repo: GitRepo, content: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    result = run_cli(
        "scan",
        str(repo.path),
        "--content",
        str(content),
        "--repo",
        "acme/widgets",
        "--json",
        *extra,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_site_settings_say_which_argument_carries_the_message(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/validators.py", CUSTOM_ERRORS)
    repo.commit("first")
    # Without settings: the argument that reads as a sentence, not the error's code, but its
    # {fields} are literal text (nothing says the class fills them in).
    plain_content = make_content({})
    plain = scan_json(repo, plain_content)
    assert (plain["records_created"], plain["already_covered"], plain["repeated"]) == (3, 0, 0)
    plain_messages = {
        yaml.safe_load(p.read_text())["message"] for p in (plain_content / "errors").rglob("*.yaml")
    }
    assert "Predicate {{predicate_name}} failed" in plain_messages
    settings = "message_arguments:\n  PydanticCustomError: 1\n"
    content = make_content({"site.yaml": settings})
    summary = scan_json(repo, content)
    assert (summary["records_created"], summary["already_covered"]) == (3, 0)
    messages = sorted(
        yaml.safe_load(path.read_text())["message"] for path in (content / "errors").rglob("*.yaml")
    )
    assert messages == [
        "Predicate {predicate_name} failed",
        "Value must be at most 9, got {value}",
        "Value must not be negative, got {value}",
    ]
    assert run_cli("check", "--content", str(content), "--drafts").exit_code == 0

    wrong = make_content({"site.yaml": "message_arguments:\n  PydanticCustomError: -1\n"})
    result = run_cli("scan", str(repo.path), "--content", str(wrong), "--repo", "acme/widgets")
    assert result.exit_code == 1
    assert "site.yaml:2:24: message_arguments.PydanticCustomError: -1 is not an argument" in (
        result.stderr
    )
    assert run_cli("check", "--content", str(wrong)).exit_code == 1


def test_tests_are_left_out_unless_asked_for_and_path_names_a_folder_or_a_file(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    raising = "def f(x):\n    raise ValueError(f'{name} is broken, got {{x}}')\n"
    for name in (
        "pkg/core.py",
        "pkg/core2.py",
        "tests/test_core.py",
        "pkg/tests/helpers.py",
        "pkg/core_test.py",
        "conftest.py",
    ):
        repo.write(name, raising.replace("{name}", name))
    repo.commit("first")
    summary = scan_json(repo, make_content({}))
    assert (summary["files_scanned"], summary["left_out"]) == (2, {"tests": 4})
    text = run_cli("scan", str(repo.path), "--content", str(make_content({})), "--repo", "a/b")
    assert "left out:         4 test files (--include-tests scans them)" in text.stdout
    everything = scan_json(repo, make_content({}), "--include-tests")
    assert (everything["files_scanned"], everything["left_out"]) == (6, {})
    one_file = scan_json(repo, make_content({}), "--path", "pkg/core.py")
    assert [(item["path"], item["line"]) for item in one_file["created"]] == [("pkg/core.py", 2)]
    folder = scan_json(repo, make_content({}), "--path", "pkg")
    assert folder["files_scanned"] == 2  # pkg/core.py and pkg/core2.py: the rest are tests
    for missing in ("nonexistent", "pkg/cor"):
        result = run_cli(
            "scan",
            str(repo.path),
            "--content",
            str(make_content({})),
            "--repo",
            "a/b",
            "--path",
            missing,
        )
        assert result.exit_code == 1
        assert f"--path '{missing}' names nothing at commit" in result.stderr


ADAPTERS = '''"""Transport adapters (the shape of requests' adapters.py)."""

import os.path

from urllib3.exceptions import (
    InvalidHeader as _InvalidHeader,
    LocationValueError,
    MaxRetryError,
)

try:
    from urllib3.contrib.socks import SOCKSProxyManager
except ImportError:

    def SOCKSProxyManager(*args, **kwargs):
        raise InvalidSchema("Missing dependencies for SOCKS support.")


DEFAULT_POOLBLOCK = False
'''

NOT_EXCEPTIONS = """import pytest


def validate(value, error):
    if value is None:
        raise ValidationError.from_exception_data('Foobar', [])
    if value == 1:
        raise pytest.skip('not on this platform')
    if value == 2:
        raise error('the value is two')
"""


def test_scan_records_classes_and_whole_statements(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    repo.write("requests/adapters.py", ADAPTERS)
    repo.write("pkg/validate.py", NOT_EXCEPTIONS)
    repo.commit("first")
    content = make_content({})
    summary = scan_json(repo, content)
    records = {
        data["message"]: data
        for data in (yaml.safe_load(p.read_text()) for p in (content / "errors").rglob("*.yaml"))
    }
    assert {m: r["exception"] for m, r in records.items()} == {
        "Missing dependencies for SOCKS support.": "InvalidSchema",
        "Foobar": "ValidationError",
    }
    reasons = [(s["path"], s["line"], s["reason"]) for s in summary["skipped_sites"]]
    assert reasons == [
        ("pkg/validate.py", 8, "not an exception class (a CapWords name)"),
        ("pkg/validate.py", 10, "not an exception class (a CapWords name)"),
    ]
    socks = records["Missing dependencies for SOCKS support."]["source"]["snippet_file"]
    code = (content / "snippets" / socks).read_text().split("---\n", 2)[2]
    # The function the raise is in, whole: not a window opening inside the import list.
    assert code == (
        "    def SOCKSProxyManager(*args, **kwargs):\n"
        '        raise InvalidSchema("Missing dependencies for SOCKS support.")\n'
    )


def test_a_module_with_cr_line_ends_makes_drafts_that_check(tmp_path: Path, make_content) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    module = "def f(x):\r    if x:\r        raise ValueError(f'bad value {x}')\r    return x\r"
    (repo.path / "old.py").write_bytes(module.encode())
    (repo.path / "dos.py").write_bytes(module.replace("\r", "\r\n").replace("bad", "odd").encode())
    repo.commit("modules with CR and CRLF line ends")
    content = make_content({})
    found = scan_json(repo, content)
    assert sorted((s["path"], s["line"]) for s in found["created"]) == [
        ("dos.py", 3),
        ("old.py", 3),
    ]
    check = run_cli("check", "--drafts", "--content", str(content))
    assert check.exit_code == 0, check.output
    snippets = [p.read_text() for p in (content / "snippets").rglob("*") if p.is_file()]
    assert sorted(text.split("---\n")[-1] for text in snippets) == [
        f"def f(x):\n    if x:\n        raise ValueError(f'{word} value {{x}}')\n    return x\n"
        for word in ("bad", "odd")
    ]


def test_a_submodule_named_like_a_module_is_not_scanned_and_stops_nothing(
    tmp_path: Path, make_content
) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "project")
    repo.write("widgets.py", "def f():\n    raise ValueError('bad widget')\n")
    repo.commit("a module")
    commit = repo.git("rev-parse", "HEAD")
    # A gitlink (a submodule's commit) whose entry is named like a module, and a link.
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},vendored.py")
    (repo.path / "alias.py").symlink_to("widgets.py")
    repo.commit("a submodule entry and a link")
    found = scan_json(repo, make_content({}))
    assert found["files_scanned"] == 1
    assert [(site["path"], site["line"]) for site in found["created"]] == [("widgets.py", 2)]
    assert found["skipped_sites"] == []


def test_a_warning_issued_is_a_site_of_its_category() -> None:
    # click's, werkzeug's and pytest's deprecations: the category given, `UserWarning` when
    # none is, the class of a warning made and handed to `warn`; a method named `warn` is not.
    source = (
        "import warnings\n"
        "from warnings import warn\n"
        "def group(cls=None, strict=None):\n"
        "    if cls is BaseCommand:\n"
        "        warnings.warn(\n"
        "            \"'BaseCommand' is deprecated and will be removed in Click 9.0.\",\n"
        "            DeprecationWarning,\n"
        "            stacklevel=2,\n"
        "        )\n"
        "    if strict is not None:\n"
        "        warn(f'strict={strict!r} is ignored', category=errors.StrictWarning)\n"
        "    warnings.warn('no category given')\n"
        "    warnings.warn('None given', category=None)\n"
        "    warnings.warn(RemovedIn9Warning(f'{cls.__name__} is deprecated'))\n"
        "    notice = FutureWarning('a variable that holds one')\n"
        "    warnings.warn(notice, stacklevel=2)\n"
        "    warnings.warn(DEPRECATED_CONSTANT)\n"
        "    warnings.warn('category held elsewhere', categories[0])\n"
        "    self.warn('a logger method, not a warning')\n"
        "    log.warn('nor this')\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template, s.handed) for s in sites] == [
        (
            5,
            "DeprecationWarning",
            "'BaseCommand' is deprecated and will be removed in Click 9.0.",
            "warn",
        ),
        (11, "StrictWarning", "strict={strict!r} is ignored", "warn"),
        (12, "UserWarning", "no category given", "warn"),
        (13, "UserWarning", "None given", "warn"),
        (14, "RemovedIn9Warning", "{cls_name} is deprecated", "warn"),
        (16, "FutureWarning", "a variable that holds one", "warn"),
    ]
    assert sites[0].conditions == ("cls is BaseCommand",)
    assert [(s.line, s.reason) for s in skipped] == [
        (17, "warning: message is not built from string literals"),
        (18, "warning: category not named"),
    ]


def test_a_warning_is_known_under_another_name_and_not_where_only_type_checkers_look() -> None:
    # packaging's `from warnings import deprecated as _deprecated`, `import warnings as w`;
    # what `if TYPE_CHECKING:` guards never runs (pytest's `config.inicfg`), while its `else`
    # always does, with no condition to tell.
    source = (
        "import sys, typing\n"
        "import warnings as w\n"
        "from warnings import warn as _warn\n"
        "from typing import TYPE_CHECKING\n"
        "if sys.version_info >= (3, 13):\n"
        "    from warnings import deprecated as _deprecated\n"
        "elif typing.TYPE_CHECKING:\n"
        "    from typing_extensions import deprecated as _deprecated\n"
        "class Version:\n"
        "    @property\n"
        "    @_deprecated('Version._version is private and will be removed soon')\n"
        "    def _version(self):\n"
        "        return self._key\n"
        "    if TYPE_CHECKING:\n"
        "        @_deprecated('config.inicfg is deprecated, use config.getini()')\n"
        "        def inicfg(self): ...\n"
        "        def release(self):\n"
        "            raise TypeError('never runs')\n"
        "    else:\n"
        "        def release(self):\n"
        "            w.warn('release is deprecated', FutureWarning)\n"
        "    def epoch(self):\n"
        "        if not TYPE_CHECKING:\n"
        "            _warn('epoch is deprecated')\n"
        "        else:\n"
        "            raise TypeError('nor does this')\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template, s.scope, s.conditions) for s in sites] == [
        (
            11,
            "DeprecationWarning",
            "Version._version is private and will be removed soon",
            "Version._version",
            (),
        ),
        (21, "FutureWarning", "release is deprecated", "Version.release", ()),
        (24, "UserWarning", "epoch is deprecated", "Version.epoch", ()),
    ]
    assert skipped == []


def test_the_deprecated_packages_decorator_is_a_warning_worded_as_the_package_words_it() -> None:
    # The Deprecated package (PyGithub until 2.6, redis-py until 4.x): "Call to deprecated
    # <kind> <name>." then " (<reason>)" and " -- Deprecated since version <version>." when
    # given; the kind is what the decorated function is when it runs (a method bound to its
    # instance, a property's getter not); `deprecated.sphinx` takes the version second and
    # drops the roles of the reason; a project's adapter words it otherwise.
    source = (
        "import deprecated\n"
        "from deprecated import deprecated as dep, sphinx\n"
        "MESSAGE = 'Use the new one'\n"
        "@deprecated.deprecated('Use github.Auth.AppInstallationAuth instead')\n"
        "class AppAuthentication:\n"
        "    @dep\n"
        "    def old(self): ...\n"
        "    @staticmethod\n"
        "    @dep(reason='gone', version='1.2')\n"
        "    def stat(): ...\n"
        "    @classmethod\n"
        "    @dep(MESSAGE)\n"
        "    def klass(cls): ...\n"
        "    @property\n"
        "    @dep('Use property check_suite.id instead')\n"
        "    def check_suite_id(self): ...\n"
        "    @sphinx.deprecated('Use :meth:`new` or :py:func:`x.y`', '2.0')\n"
        "    def sph(self): ...\n"
        "    @dep('custom', adapter_cls=MyAdapter)\n"
        "    def custom(self): ...\n"
        "    @dep('quiet', action='ignore')\n"
        "    def quiet(self): ...\n"
        "@dep(version='3.0', category=PendingDeprecationWarning)\n"
        "def func(): ...\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template, s.handed, s.scope) for s in sites] == [
        (
            4,
            "DeprecationWarning",
            "Call to deprecated class AppAuthentication. (Use github.Auth.AppInstallationAuth"
            " instead)",
            "deprecated class",
            "AppAuthentication",
        ),
        (
            6,
            "DeprecationWarning",
            "Call to deprecated method old.",
            "deprecated",
            "AppAuthentication.old",
        ),
        (
            9,
            "DeprecationWarning",
            "Call to deprecated function (or staticmethod) stat. (gone) -- Deprecated since"
            " version 1.2.",
            "deprecated",
            "AppAuthentication.stat",
        ),
        (
            12,
            "DeprecationWarning",
            "Call to deprecated class method klass. ({MESSAGE})",
            "deprecated",
            "AppAuthentication.klass",
        ),
        (
            15,
            "DeprecationWarning",
            "Call to deprecated function (or staticmethod) check_suite_id. (Use property"
            " check_suite.id instead)",
            "deprecated",
            "AppAuthentication.check_suite_id",
        ),
        (
            17,
            "DeprecationWarning",
            "Call to deprecated method sph. (Use `new` or `x.y`) -- Deprecated since version 2.0.",
            "deprecated",
            "AppAuthentication.sph",
        ),
        (
            23,
            "PendingDeprecationWarning",
            "Call to deprecated function (or staticmethod) func. -- Deprecated since version 3.0.",
            "deprecated",
            "func",
        ),
    ]
    assert [(s.line, s.reason) for s in skipped] == [(19, "deprecation worded by an adapter")]


def test_a_deprecated_decorator_is_a_warning_where_it_stands() -> None:
    # PEP 702 (fastapi's responses, pydantic-core's schema functions): `@deprecated("…")`
    # of `warnings` or `typing_extensions` warns each time what it decorates is used;
    # `category=None` only marks it for type checkers, as it does on an `@overload`, and
    # another module's `deprecated` (pytest's own, or any project's) is not PEP 702's.
    source = (
        "import warnings\n"
        "from typing_extensions import deprecated\n"
        "from deprecated_pkg import deprecated as legacy\n"
        "if HAS_UJSON:\n"
        "    @deprecated(\n"
        "        'UJSONResponse is deprecated, use JSONResponse instead.',\n"
        "        category=FastAPIDeprecationWarning,\n"
        "    )\n"
        "    class UJSONResponse(JSONResponse):\n"
        "        pass\n"
        "class Model:\n"
        "    @deprecated('The `dict` method is deprecated; use `model_dump`.', category=None)\n"
        "    def dict(self):\n"
        "        warnings.warn('The `dict` method is deprecated; use `model_dump`.')\n"
        "    @warnings.deprecated('`copy` is deprecated; use `model_copy`.')\n"
        "    @property\n"
        "    def copy(self):\n"
        "        return self\n"
        "    @legacy(reason='not this one')\n"
        "    def old(self):\n"
        "        pass\n"
        "    @deprecated(category=FutureWarning)\n"
        "    def bare(self):\n"
        "        pass\n"
        "    @overload\n"
        "    @deprecated('an overload is for type checkers: its stub never runs')\n"
        "    def load(self, data: dict) -> None: ...\n"
    )
    sites, skipped = scan_source(source)
    assert [(s.line, s.exception, s.template, s.handed, s.scope, s.kind) for s in sites] == [
        (
            5,
            "FastAPIDeprecationWarning",
            "UJSONResponse is deprecated, use JSONResponse instead.",
            "deprecated class",
            "UJSONResponse",
            "warning",
        ),
        (
            14,
            "UserWarning",
            "The `dict` method is deprecated; use `model_dump`.",
            "warn",
            "Model.dict",
            "warning",
        ),
        (
            15,
            "DeprecationWarning",
            "`copy` is deprecated; use `model_copy`.",
            "deprecated",
            "Model.copy",
            "warning",
        ),
    ]
    assert sites[0].conditions == ("HAS_UJSON",)
    assert sites[0].end_line == 8
    assert [(s.line, s.reason) for s in skipped] == [(22, "warning without a message")]
