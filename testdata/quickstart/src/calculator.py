"""A small calculator module the agent is asked to extend."""


def add(a: float, b: float) -> float:
    """Return the sum of a and b."""
    return a + b
