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
    "429": "Too many calls for this episode in the last minute; nothing was run. Retry-After says when to try again.",
}


def _error_response(description: str) -> dict:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _body_schema(parameters: dict) -> dict:
    """The tool's parameters schema as OpenAPI 3.0 reads it (an empty `required` is left out).
    An optional argument sent as null is taken as not sent, so the document says it is nullable."""
    schema = copy.deepcopy(parameters)
    for name, prop in schema.get("properties", {}).items():
        if name not in schema.get("required", []):
            prop["nullable"] = True
    if not schema.get("required"):
        schema.pop("required", None)  # 3.0 wants a non-empty list or none
    return schema


def operation_id(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


PAGING = ("page", "per_page")


def _lists(tool: dict) -> bool:
    """A list tool pages its rows ({"items": [...], "page", ...}): it takes `page` and `per_page`."""
    return all(name in tool["parameters"]["properties"] for name in PAGING)


def _names_a_record(schema: dict) -> bool:
    """An argument that can hold a record's key: a plain string or whole number, not an enum,
    a date, an amount or a list."""
    return schema.get("type") in ("string", "integer") and not \
        ({"enum", "format", "pattern"} & set(schema))


def links_by_tool(tools: list[dict]) -> dict[str, dict]:
    """OpenAPI links from each list tool's result to the tools that take what its rows carry.

    Derived from the schemas alone: a list tool that filters on an argument (`vendor_id`)
    lists rows that carry it, so the first row's value (`$response.body#/items/0/vendor_id`)
    can feed every other tool of the same app that requires an argument of that name (a key,
    not free text). A list whose rows leave out what it filters on (cost codes filtered by job)
    publishes a link that resolves to nothing, and schemathesis then generates the value;
    tests/test_hardening_schemathesis.py checks that most links resolve against the seeded book."""
    required = {(t["app"], name) for t in tools for name in t["parameters"].get("required", [])}
    out: dict[str, dict] = {}
    for source in sorted(tools, key=lambda t: t["name"]):
        if not _lists(source):
            continue
        links = {}
        for name, schema in sorted(source["parameters"]["properties"].items()):
            if name in PAGING or not _names_a_record(schema) or (source["app"], name) not in required:
                continue
            for target in sorted(tools, key=lambda t: t["name"]):
                if target is source or target["app"] != source["app"] or \
                        name not in target["parameters"].get("required", []):
                    continue
                links[f"{name}->{operation_id(target['name'])}"] = {
                    "operationId": operation_id(target["name"]),
                    "requestBody": {name: f"$response.body#/items/0/{name}"},
                    "description": f"The first row's {name}, as {target['name']}'s {name}."}
        if links:
            out[source["name"]] = links
    return out


def tool_operation(tool: dict, links: dict | None = None) -> dict:
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
    if links:
        op["responses"]["200"]["links"] = links
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
    links = links_by_tool(tools)
    for tool in sorted(tools, key=lambda t: t["name"]):
        paths[f"/api/tools/{tool['name']}"] = {"post": tool_operation(tool, links.get(tool["name"]))}
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
