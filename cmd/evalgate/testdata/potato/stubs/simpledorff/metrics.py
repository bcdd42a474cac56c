"""Stub: simpledorff is not packaged in Debian; evalgate's fixtures never call it."""
def nominal_metric(*a, **k):
    raise NotImplementedError("simpledorff stub")
def interval_metric(*a, **k):
    raise NotImplementedError("simpledorff stub")
