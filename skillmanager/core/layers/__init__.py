"""What the model is sent: layer 1 (the listing), layer 2 (argument expansion, inline shell), token
estimates and the compaction restore text. May import rules/, load/, js/, versions/.
"""
