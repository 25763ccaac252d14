"""The rule data as the engine reads it and the arithmetic of a d100 check: ``view`` / ``rules``
(the rule data, built once per model), ``checks`` (targets, success levels), ``differential``
(special effects won), ``damage`` (dice and modifiers), and what a stat block implies before any
encounter: ``hands``, ``traits``, ``bodily``, ``encumbrance``, ``familiarity``, ``weapons_used``.

The bottom layer: imports nothing else of combat-styles."""
