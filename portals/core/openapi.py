"""The agent's tool API as an OpenAPI 3 document, built from the tools' own schemas.

Each native tool is one operation, `POST /api/tools/<app>.<tool>`, whose request body is the
very JSON schema `ToolSpec.schema()` hands an agent (from the service's signature and
docstring), so the published API, the validation and the agent's tool list cannot drift
apart. Every refusal has the one error shape `{"error", "message", "field"?}`.
"""
from __future__ import annotations

import copy
import re

OPENAPI_VERSION = "3.0.3"

ERROR = {
    "type": "object",
    "required": ["error", "message"],
    "properties": {
        "error": {"type": "string", "description": "A short code: invalid, not_found, duplicate, ..."},
        "message": {"type": "string", "description": "What was wrong, in words a controller reads."},
        "field": {"type": "string", "description": "The argument at fault, when there is one."},
    },
}
REFUSALS = {
    "400": "Refused: the arguments or the body do not fit the tool, or a rule of the business says no.",
    "401": "No agent token, or not a valid one.",
    "404": "No such tool in this episode, or no such record.",
    "409": "The episode is finished and read-only.",
    "413": "The body is larger than the server accepts.",
}


def _error_response(description: str) -> dict:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _body_schema(parameters: dict) -> dict:
    """The tool's parameters schema as OpenAPI 3.0 reads it (an empty `required` is left out)."""
    schema = copy.deepcopy(parameters)
    if not schema.get("required"):
        schema.pop("required", None)  # 3.0 wants a non-empty list or none
    return schema


def operation_id(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def tool_operation(tool: dict) -> dict:
    summary = tool["description"].split(". ")[0][:120]
    kind = {"read": "Reads only.", "write": "Writes to this episode's records.",
            "guarded": "GUARDED: never executed; the call is staged for a person and put on record."}
    op = {
        "operationId": operation_id(tool["name"]),
        "summary": summary,
        "description": f"{tool['description']}\n\n{kind.get(tool['kind'], '')}",
        "tags": [tool["app"]],
        "x-cfab-kind": tool["kind"],
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": _body_schema(tool["parameters"])}}},
        "responses": {"200": {"description": "The tool's result.",
                              "content": {"application/json": {"schema": {"type": "object"}}}},
                      **{code: _error_response(text) for code, text in REFUSALS.items()}},
    }
    return op


def document(tools: list[dict], server_url: str = "/") -> dict:
    """The OpenAPI document for these tools (`Environment.tools()` of one episode)."""
    paths: dict = {
        "/api/tools": {"get": {
            "operationId": "list_tools", "summary": "The JSON schemas of this episode's tools.",
            "responses": {"200": {"description": "One schema per tool.", "content": {"application/json": {
                "schema": {"type": "array", "items": {"type": "object"}}}}},
                "401": _error_response(REFUSALS["401"])}}},
    }
    for tool in sorted(tools, key=lambda t: t["name"]):
        paths[f"/api/tools/{tool['name']}"] = {"post": tool_operation(tool)}
    return {
        "openapi": OPENAPI_VERSION,
        "info": {"title": "CFAgentBench tool API", "version": "1",
                 "description": "The native tools of one episode's apps. Send the episode's agent "
                                "token as a Bearer token and the arguments as one JSON object."},
        "servers": [{"url": server_url}],
        "security": [{"agentToken": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {"agentToken": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": ERROR},
        },
    }
