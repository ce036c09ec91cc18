"""The rules a game is played by: the ambiguity register's switchable readings (`register`)
and an edition's data with the variant choices (`variant`: `Rules`, `Variant`)."""

from __future__ import annotations

from village_rules.rules.variant import Rules, Variant

__all__ = ["Rules", "Variant"]
