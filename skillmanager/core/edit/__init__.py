"""Safe writes to the user's files: atomic replace, byte-preserving JSON and front-matter edits, and the
toggle planner. May import rules/, load/, versions/.
"""
