"""
Checks what the gateway sent over the wire against the protocols' published schemas.

Reads one JSON object on stdin:
  {"openResponses": [{"schema": "response" | "event", "value": {...}}, ...],
   "a2a": [{"schema": "<a2a.proto message name>", "value": {...}}, ...]}
and prints one line per value that breaks its schema (with where it was sent); exits 1 if any did.

Open Responses objects and streaming events are validated with the Pydantic models generated from
the Open Responses OpenAPI document (openresponses-types); an event by the model whose `type` it
names. A2A values are parsed as ProtoJSON into the a2a.proto message the method answers with
(a2a-sdk), refusing unknown fields and enum values.
"""
import enum
import json
import sys

import openresponses_types as ort
from a2a.types import a2a_pb2
from google.protobuf import json_format
from pydantic import BaseModel, ValidationError


def event_models() -> dict[str, type[BaseModel]]:
    """Each streaming event model by the one `type` value its schema allows."""
    models: dict[str, type[BaseModel]] = {}
    for name in dir(ort):
        model = getattr(ort, name)
        if not (name.endswith("StreamingEvent") and isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        kind = model.model_fields["type"].annotation
        if isinstance(kind, type) and issubclass(kind, enum.Enum) and len(kind) == 1:
            models[next(iter(kind)).value] = model
    return models


EVENTS = event_models()


def open_responses_problem(item: dict) -> str | None:
    value = item["value"]
    if item["schema"] == "response":
        model = ort.ResponseResource
    else:
        model = EVENTS.get(value.get("type"))
        if model is None:
            return f"event type {value.get('type')!r} is not an Open Responses streaming event"
    try:
        model.model_validate(value)
    except ValidationError as err:
        return f"{model.__name__}: " + "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()[:12]
        )
    return None


def a2a_problem(item: dict) -> str | None:
    message = getattr(a2a_pb2, item["schema"], None)
    if message is None:
        return f"{item['schema']} is not a message of a2a.proto"
    try:
        json_format.ParseDict(item["value"], message(), ignore_unknown_fields=False)
    except json_format.ParseError as err:
        return f"{item['schema']}: {err}"
    return None


def main() -> int:
    sent = json.load(sys.stdin)
    problems = 0
    for protocol, check in (("openResponses", open_responses_problem), ("a2a", a2a_problem)):
        for item in sent.get(protocol, []):
            problem = check(item)
            if problem:
                problems += 1
                print(f"{protocol} {item.get('where', '')}: {problem}")
    checked = sum(len(sent.get(p, [])) for p in ("openResponses", "a2a"))
    print(f"checked {checked} values, {problems} against their schema", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
