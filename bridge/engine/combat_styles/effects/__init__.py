"""Special effects: ``eligibility`` (which effects a winner may choose), ``special_effects``
(the dispatcher) and the consequences by kind: ``effect_rolls``, ``wounding_effects``,
``weapon_effects``, ``bash`` and ``manoeuvres``. Looking for "Trip Opponent"? It is in
``manoeuvres``; ``special_effects`` lists where each effect lives."""
