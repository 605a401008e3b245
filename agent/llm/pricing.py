"""List prices, USD per million tokens (input, output), for the cost column and `--max-cost`.

Prices drift; `--price-in/--price-out` override the table, and an unlisted model is recorded
as unpriced rather than guessed. Lookup ignores a provider prefix ("openai/gpt-4o") and takes
the longest matching name prefix, so dated snapshots ("gpt-4o-2024-08-06") resolve.
"""
from __future__ import annotations

from ..accounting import Price

PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "deepseek-chat": (0.27, 1.10),
    "deepseek-v3": (0.27, 1.10),
    "qwen2.5-72b-instruct": (0.13, 0.40),
    "llama-3.3-70b-instruct": (0.13, 0.40),
}


def lookup(model: str | None) -> tuple[float, float] | None:
    if not model:
        return None
    name = model.lower().rsplit("/", 1)[-1]
    best = None
    for key in PRICES:
        if name == key or name.startswith(key + "-") or name.startswith(key + ":"):
            if best is None or len(key) > len(best):
                best = key
    return PRICES.get(best) if best else None


def price_for(model: str | None, price_in: float | None = None,
              price_out: float | None = None) -> Price:
    """The table's price, with either side overridden by a flag."""
    listed = lookup(model)
    if listed is None and price_in is None and price_out is None:
        return Price(0.0, 0.0, known=False)
    base_in, base_out = listed or (0.0, 0.0)
    return Price(base_in if price_in is None else price_in,
                 base_out if price_out is None else price_out, known=True)
