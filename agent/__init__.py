"""Agents and the harness: policies, the browser environment, the runner and the `cfab` CLI."""
