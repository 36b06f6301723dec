"""Reading what Claude Code reads: safe file reads, YAML 1.2 front matter, skill files, every source,
plugins, MCP skills, settings and the workspace. May import js/, versions/ and core's model.
"""
