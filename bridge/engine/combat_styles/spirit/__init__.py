"""Spirit combat: ``spirit`` (the engagement and Spirit Damage to Magic Points) and
``spirit_effects`` (the special effects of spirit combat)."""
