"""JavaScript-runtime semantics Claude Code inherits: display width (string-width and Bun.stringWidth),
UTF-16 lengths, localeCompare order, shell-quote splitting. Imports nothing else from core.
"""
