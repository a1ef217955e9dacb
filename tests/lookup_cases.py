"""The traceback lookup cases of lookup_cases.yaml, which `errpages lookup` and the browser share.

A case's templates become records with ids `t0`, `t1`, … in order, each with
the former wordings its `former` lists (`[message, exception, releases]`). A
text (or a message) is a string, or a list of strings and `[string, times]`
pairs joined together, so that a 2 MB log is a line of YAML.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from errpages.site.lookup import compile_matchers, lookup
from errpages.site.model import Record, Snippet, Source, Wording

CASES_FILE = Path(__file__).resolve().parent / "lookup_cases.yaml"
LOOKUP_JS = Path(__file__).resolve().parent.parent / "themes" / "default" / "static" / "lookup.js"


@dataclass(frozen=True)
class LookupCase:
    name: str
    templates: tuple[dict[str, Any], ...]  # id, message, exception, former: as the browser has them
    text: str
    matches: tuple[dict[str, Any], ...]  # id, exact, values, former: every match, best first


def joined(spec: str | list[Any]) -> str:
    if isinstance(spec, str):
        return spec
    return "".join(item if isinstance(item, str) else item[0] * item[1] for item in spec)


def load_cases() -> list[LookupCase]:
    cases = []
    for raw in yaml.safe_load(CASES_FILE.read_text(encoding="utf-8")):
        templates = tuple(
            {
                "id": f"t{index}",
                "message": joined(template["message"]),
                "exception": template.get("exception", "ValueError"),
                "former": [list(wording) for wording in template.get("former", ())],
            }
            for index, template in enumerate(raw["templates"])
        )
        matches = tuple(
            {
                "id": f"t{m['template']}",
                "exact": m["exact"],
                "weak": m.get("weak", False),
                "values": m.get("values", {}),
                "former": m.get("former"),
            }
            for m in raw["matches"]
        )
        cases.append(LookupCase(raw["name"], templates, joined(raw["text"]), matches))
    return cases


def record(template: dict[str, Any]) -> Record:
    snippet = Snippet("raise X()", 1, "python")
    return Record(
        id=template["id"],
        repo="a/b",
        kind="error",
        exception=template["exception"],
        message=template["message"],
        title=template["message"],
        meaning="m",
        source=Source("x.py", 1, "abcdef1", snippet),
        solutions=("s",),
        file="x.yaml",
    )


def python_matches(case: LookupCase) -> list[dict[str, Any]]:
    """What `errpages lookup` finds for a case, as the table states it."""
    wordings = {t["id"]: tuple(Wording(*w) for w in t.get("former", ())) for t in case.templates}
    matchers = compile_matchers([record(template) for template in case.templates], wordings)
    return [
        {
            "id": m.record.id,
            "exact": m.exact,
            "weak": m.weak,
            "values": m.values,
            "former": m.former.releases if m.former else None,
        }
        for m in lookup(case.text, matchers, limit=100)
    ]


# Runs in a worker made from lookup.js, so that a case that hangs is a timeout, not a frozen tab.
BROWSER_RUNNER = """
async ([source, cases, timeoutMs]) => {
  const harness = `
    onmessage = (event) => {
      const results = event.data.map((c) => {
        const started = performance.now();
        const found = ERRPAGES_LOOKUP.lookup(c.text, ERRPAGES_LOOKUP.matchers(c.templates));
        return {
          seconds: (performance.now() - started) / 1000,
          // Values as pairs: a copy as an object would drop a key named __proto__.
          matches: found.map((r) => ({
            id: r.doc.id, exact: r.exact, weak: r.weak, former: r.former ? r.former[2] : null,
            values: Object.keys(r.values).map((k) => [k, r.values[k]])
          }))
        };
      });
      postMessage(results);
    };`;
  const url = URL.createObjectURL(new Blob([source, harness], { type: "text/javascript" }));
  const worker = new Worker(url);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("lookup did not finish")), timeoutMs);
      worker.onmessage = (event) => { clearTimeout(timer); resolve(event.data); };
      worker.onerror = (event) => { clearTimeout(timer); reject(new Error(event.message)); };
      worker.postMessage(cases);
    });
  } finally {
    worker.terminate();
  }
}
"""


def browser_matches(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One case's matches from the runner, in the form of the table."""
    return [{**m, "values": dict(m["values"])} for m in result["matches"]]


def browser_arguments(cases: list[LookupCase], timeout_s: float) -> list[Any]:
    """The runner's arguments: lookup.js's source, the cases, the time allowed."""
    source = LOOKUP_JS.read_text(encoding="utf-8")
    payload = [{"templates": list(c.templates), "text": c.text} for c in cases]
    return [source, payload, timeout_s * 1000]


TEMPLATE_PIECES = [
    "a", "ab", "got", "value", "x", "ok", " ", "  ", "\t", "\n", ": ", ":", ".", "'", "-",
    "\u2028", "\x85", "\ufeff", "\x1f", "\u00a0", "{{", "}}", "😀", "größe", "{obj.größe}",
    "{a}", "{b!r}", "{constructor}", "{__proto__}", "{c.d}", "{0}", "{x:>3}", "{toString}",
]  # fmt: skip
VALUE_PIECES = [p for p in TEMPLATE_PIECES if not p.startswith("{") or p in ("{{", "}}")]


def random_cases(seed: int, count: int) -> list[LookupCase]:
    """Templates and texts made of the characters the two languages could read apart:
    kinds of white space, line breaks, colons, braces, odd names, astral characters."""
    import random

    chance = random.Random(seed)

    def pieces(choices: list[str], most: int) -> str:
        return "".join(chance.choice(choices) for _ in range(chance.randint(1, most)))

    cases = []
    for number in range(count):
        templates = tuple(
            {"id": f"t{index}", "message": pieces(TEMPLATE_PIECES, 8), "exception": "ValueError"}
            for index in range(chance.randint(1, 3))
        )
        lines = []
        for _ in range(chance.randint(1, 4)):
            filled = "".join(
                pieces(VALUE_PIECES, 3)
                if part.startswith("{") and part not in ("{{", "}}")
                else part
                for part in re_split_placeholders(chance.choice(templates)["message"])
            )
            prefix = chance.choice(["", "ValueError: ", "x.ValueError:", "log: ", "KeyError: '"])
            lines.append(prefix + filled + chance.choice(["", " ", pieces(VALUE_PIECES, 2)]))
        text = chance.choice(["\n", "\r\n", "\r", " "]).join(lines)
        cases.append(LookupCase(f"random {number}", templates, text, ()))
    return cases


def re_split_placeholders(template: str) -> list[str]:
    from errpages.site.messages import TOKEN_RE

    parts, last = [], 0
    for found in TOKEN_RE.finditer(template):
        parts += [template[last : found.start()], found.group()]
        last = found.end()
    return [*parts, template[last:]]
