"""Checks of a skill folder: the security audit, Agent Skills validation and Claude Code lint, SARIF.
May import layers/ (inline shell), load/, js/, versions/.
"""
