"""What grades a roll: ``situations`` (grades, caps, range bands, conditions, fatigue),
``contests`` (opposed checks graded by their conditions) and ``burdens`` (the grade steps of a
load)."""
