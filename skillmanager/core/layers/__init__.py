"""What the model is sent: layer 1 (the listing), layer 2 (argument expansion, inline shell), token
estimates, and what the listing did with each skill (listing_outcome). May import rules/, load/, js/, versions/.
"""
