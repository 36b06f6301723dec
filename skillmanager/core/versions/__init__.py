"""Claude Code versions as data: which named features each release has and their values. The only
place in the code that names a version.
"""
