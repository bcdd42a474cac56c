"""Stub: simpledorff is not packaged in Debian; evalgate's fixtures never call it."""
def calculate_krippendorffs_alpha_for_df(*a, **k):
    raise NotImplementedError("simpledorff stub")
