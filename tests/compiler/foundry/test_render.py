"""Templates: jinja leaves Handlebars alone, rule text is inert, every label exists."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from arbiter.compiler.foundry import actions, layout
from arbiter.compiler.foundry.render import TEMPLATES_ROOT, Renderer, rule_text

REPO = Path(__file__).resolve().parents[3]
NODE_MODULES = REPO / "node_modules"
EVIL = "<script>alert('x')</script> {{constructor.constructor}} {{{raw}}} [[/r 1d6]] & \"q\""


def handlebars(template: str, data: dict) -> str:
    """Compile and run ``template`` with the real Handlebars (npm package), as Foundry does."""
    if not (NODE_MODULES / "handlebars").is_dir():
        pytest.fail("handlebars is missing from node_modules; run scripts/setup --test")
    script = (
        "const H = require('handlebars');"
        "let s = ''; process.stdin.on('data', d => s += d).on('end', () => {"
        "const {t, d} = JSON.parse(s); process.stdout.write(H.compile(t)(d)); });"
    )
    done = subprocess.run(
        ["node", "-e", script],
        input=json.dumps({"t": template, "d": data}),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_rule_text_escapes_html_and_neutralises_template_and_roll_syntax() -> None:
    out = str(rule_text(EVIL))
    assert "<" not in out and ">" not in out
    assert "{" not in out and "}" not in out and "[" not in out
    assert '"' not in out
    assert "&lt;script&gt;" in out


def test_handlebars_syntax_passes_through_jinja_untouched() -> None:
    env = Renderer().env
    source = '{{#each items}}<li>{{this}}</li>{{/each}}{{!-- comment --}}{{> "p.hbs"}} [= 1 + 1 =]'
    assert env.from_string(source).render() == source.replace("[= 1 + 1 =]", "2")


def test_rule_text_inside_a_handlebars_template_renders_inert_in_handlebars() -> None:
    env = Renderer().env
    template = env.from_string("<p>[= text | rule_text =]</p><p>{{who}}</p>").render(text=EVIL)
    out = handlebars(template, {"who": "Bram", "raw": "<b>boom</b>", "constructor": 1})
    assert out.startswith("<p>&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &#123;&#123;")
    assert "<script>" not in out
    assert "boom" not in out  # {{{raw}}} stayed text, Handlebars never saw it
    assert out.endswith("<p>Bram</p>")


def test_jinja_variables_in_hbs_files_are_autoescaped() -> None:
    env = Renderer().env
    template = env.get_template("module/templates/cards/error.hbs")
    assert template.environment.autoescape(template.name) is True
    assert env.autoescape("module/scripts/arbiter.mjs") is False


def _used_labels() -> set[str]:
    used: set[str] = set()
    for path in TEMPLATES_ROOT.rglob("*"):
        if path.is_file() and path.suffix != ".json":
            text = path.read_text(encoding="utf-8")
            # Handlebars `localize "KEY"`, script `i18n("KEY")` / `"KEY"`, jinja `label("KEY")`.
            used.update(re.findall(r'"(ARBITER\.[\w.]+)"', text))
    code = REPO / "compiler" / "foundry"
    for path in code.glob("*.py"):
        used.update(re.findall(r'"(ARBITER\.[\w.]+)"', path.read_text(encoding="utf-8")))
    return used


def test_every_label_the_module_uses_is_in_the_language_file() -> None:
    labels = json.loads((TEMPLATES_ROOT / "module" / "lang" / "en.json").read_text())
    used = _used_labels()
    assert len(used) > 40
    # A key ending in a dot is a family the card completes from the result (`concat
    # "ARBITER.Event." kind`): it must name at least one label.
    families = {u for u in used if u.endswith(".")}
    assert {f for f in families if not any(k.startswith(f) for k in labels)} == set()
    assert used - families - set(labels) == set()
    assert 'i18n("ARBITER' in (TEMPLATES_ROOT / "module" / "scripts" / "arbiter.mjs").read_text()
    for action in (
        *actions.MODULE_ACTIONS,
        *(a for acts in actions.RULESET_ACTIONS.values() for a in acts),
    ):
        assert action.label_key in labels
    for pack in layout.PACKS:
        assert pack.label_key in labels


def test_every_label_in_the_language_file_is_used() -> None:
    labels = json.loads((TEMPLATES_ROOT / "module" / "lang" / "en.json").read_text())
    actions_ = (
        *actions.MODULE_ACTIONS,
        *(a for acts in actions.RULESET_ACTIONS.values() for a in acts),
    )
    used = _used_labels() | {a.label_key for a in actions_}
    families = tuple(u for u in used if u.endswith("."))
    assert {k for k in labels if k not in used and not k.startswith(families)} == set()


def test_a_missing_label_is_named() -> None:
    with pytest.raises(KeyError, match=r"ARBITER\.Nope"):
        Renderer().label("ARBITER.Nope")


def test_labels_fill_foundry_style_placeholders() -> None:
    assert Renderer().label("ARBITER.Journal.Name", title="HMK") == "HMK: rules reference"


def test_the_rendered_client_script_is_valid_javascript(tmp_path: Path) -> None:
    files = Renderer().render_module(
        {
            "module": {"id": "arbiter", "version": "1.0.0-x"},
            "cards": {"error": "templates/cards/error.hbs"},
        }
    )
    script = tmp_path / "arbiter.mjs"
    script.write_bytes(files["scripts/arbiter.mjs"])
    done = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert 'const MODULE = "arbiter";' in script.read_text()


def test_every_chat_card_compiles_in_handlebars() -> None:
    files = Renderer().render_module({"module": {"id": "arbiter", "version": "1"}, "cards": {}})
    cards = {p: b.decode() for p, b in files.items() if p.endswith(".hbs")}
    assert {
        "templates/cards/combat-styles-exchange.hbs",
        "templates/cards/combat-styles-check.hbs",
        "templates/cards/hmk-attack.hbs",
        "templates/cards/hmk-initiative.hbs",
        "templates/cards/karmic-register.hbs",
        "templates/cards/karmic-initiative.hbs",
        "templates/cards/table-draw.hbs",
        "templates/cards/error.hbs",
    } <= set(cards)
    script = (
        "const H = require('handlebars'); const cards = JSON.parse(require('fs').readFileSync(0));"
        "for (const [p, t] of Object.entries(cards)) { H.precompile(t); }"
    )
    done = subprocess.run(
        ["node", "-e", script], input=json.dumps(cards), capture_output=True, text=True, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
