"""The decisions: the registry (precedence, shadowing, states, every reason), `paths:` patterns and the
incremental refresh that must equal a full load. May import load/, js/, versions/.
"""
