"""A simulated session: discovery of nested skill dirs, git ignore rules without git, activations and
the text each step sends. May import layers/, rules/, load/, js/, versions/.
"""
