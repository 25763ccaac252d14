"""Fighting from the saddle: ``astride`` (a mount and its rider acting together, a rider
thrown) and ``riders`` (the rider's cap on his skill and his mount's share of an exchange)."""
