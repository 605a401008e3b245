"""Model-driven policies over any OpenAI-compatible chat-completions endpoint."""
