"""Render the jinja2 sources under ``templates/`` into the files the module ships.

Chat cards are Handlebars templates and the client script is JavaScript, so jinja uses its own
delimiters here — ``[= value =]``, ``[% block %]``, ``[# comment #]`` — and Handlebars'
``{{ }}``, ``{{#each}}`` and ``{{!-- --}}`` pass through untouched. Rule text is inserted with the
``rule_text`` filter, which escapes it for HTML *and* neutralises the characters Foundry would
otherwise interpret: ``{{`` (Handlebars) and ``[[`` / ``@Link[`` (Foundry's inline rolls and
content links), so a rule text can never become markup, a template expression or a roll.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from arbiter.compiler.paths import TEMPLATES_ROOT

MODULE_TEMPLATES = "module"
"""``templates/module/<path>`` renders to ``<module>/<path>`` one to one."""
DOCUMENT_TEMPLATES = "documents"
"""``templates/documents/``: HTML and script text that goes inside pack documents (not shipped)."""
LANG_FILE = "lang/en.json"

_ESCAPED_EXTENSIONS = (".hbs", ".html")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# Characters that are harmless in HTML but meaningful to Handlebars or to Foundry's text
# enrichment; written as numeric character references they display the same and do nothing.
_NEUTRALISE = str.maketrans({"{": "&#123;", "}": "&#125;", "[": "&#91;", "]": "&#93;"})


def rule_text(value: object) -> Markup:
    """``value`` as inert HTML text: HTML-escaped, braces and brackets as character references."""
    return Markup(html.escape(str(value), quote=True).translate(_NEUTRALISE))


def rule_paragraphs(value: object) -> Markup:
    """Rule text with blank-line-separated paragraphs as ``<p>`` elements (empty text → "")."""
    parts = [p.strip() for p in re.split(r"\n\s*\n", str(value)) if p.strip()]
    return Markup("".join(f"<p>{rule_text(' '.join(p.split()))}</p>" for p in parts))


class Renderer:
    """The jinja2 environment over one templates folder, with the module's labels loaded."""

    def __init__(self, root: Path = TEMPLATES_ROOT) -> None:
        self.root = root
        self.env = Environment(
            loader=FileSystemLoader(str(root)),
            block_start_string="[%",
            block_end_string="%]",
            variable_start_string="[=",
            variable_end_string="=]",
            comment_start_string="[#",
            comment_end_string="#]",
            autoescape=lambda name: name is not None and name.endswith(_ESCAPED_EXTENSIONS),
            keep_trailing_newline=True,
            undefined=StrictUndefined,
        )
        self.env.filters["rule_text"] = rule_text
        self.env.filters["rule_paragraphs"] = rule_paragraphs
        self.env.filters["json"] = lambda v: Markup(json.dumps(v, ensure_ascii=False))
        self.env.globals["label"] = self.label
        self.labels: dict[str, str] = json.loads(
            (root / MODULE_TEMPLATES / LANG_FILE).read_text(encoding="utf-8")
        )

    def label(self, key: str, **values: object) -> str:
        """The English label ``key`` with ``{name}`` placeholders filled (Foundry's i18n syntax)."""
        try:
            text = self.labels[key]
        except KeyError:
            raise KeyError(f"label {key!r} is missing from templates/module/{LANG_FILE}") from None
        return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)

    def module_files(self) -> list[str]:
        """Paths (inside the module, ``/``-separated, sorted) of every shipped template file."""
        base = self.root / MODULE_TEMPLATES
        return sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file())

    def render_module(self, context: Mapping[str, Any]) -> dict[str, bytes]:
        """Every shipped file rendered with ``context``: path inside the module → bytes."""
        out: dict[str, bytes] = {}
        for path in self.module_files():
            template = self.env.get_template(f"{MODULE_TEMPLATES}/{path}")
            out[path] = template.render(**context).encode("utf-8")
        return out

    def render_document(self, name: str, **context: Any) -> str:
        """The text of ``templates/documents/<name>`` (HTML files autoescaped) rendered with ``context``."""
        return self.env.get_template(f"{DOCUMENT_TEMPLATES}/{name}").render(**context).strip()
