#!/usr/bin/env python3
"""Checks events (one CloudEvents JSON object per line on standard input) against an AsyncAPI document's
message payloads: each event must match exactly one message, chosen by its `type`, and that message's whole
payload schema. Prints how many events of each type passed; exit status 1 on the first that does not.
Usage: check_events.py docs/events.yaml [type ...]   (each type named must have been seen at least once)
"""
import json
import sys

import jsonschema
import yaml


def resolved(node, root):
    """The schema with every local `$ref` replaced by what it points to."""
    if isinstance(node, dict):
        if set(node) == {"$ref"} and node["$ref"].startswith("#/"):
            target = root
            for part in node["$ref"][2:].split("/"):
                target = target[part]
            return resolved(target, root)
        return {key: resolved(value, root) for key, value in node.items()}
    if isinstance(node, list):
        return [resolved(item, root) for item in node]
    return node


def main():
    document = yaml.safe_load(open(sys.argv[1]))
    expected = sys.argv[2:]
    messages = {name: resolved(message["payload"], document) for name, message in document["components"]["messages"].items()}
    # The `type` each message takes, from the part of its payload that is not the shared envelope.
    type_schemas = {name: next(part["properties"]["type"] for part in payload["allOf"] if "type" in part.get("properties", {})
                               and part is not payload["allOf"][0])
                    for name, payload in messages.items()}
    seen = {}
    for number, line in enumerate(sys.stdin, 1):
        line = line.strip()
        if not line:
            continue
        event = json.loads(line)
        matching = [name for name, schema in type_schemas.items() if jsonschema.Draft7Validator(schema).is_valid(event.get("type"))]
        if len(matching) != 1:
            print("event %d (%s): %d messages describe its type %r" % (number, event.get("id"), len(matching), event.get("type")))
            return 1
        errors = sorted(jsonschema.Draft7Validator(messages[matching[0]], format_checker=jsonschema.FormatChecker())
                        .iter_errors(event), key=lambda error: list(error.path))
        if errors:
            print("event %d (%s) does not match %s: %s at %s\n%s" % (number, event.get("type"), matching[0], errors[0].message,
                                                                     "/".join(map(str, errors[0].path)), line))
            return 1
        seen[event["type"]] = seen.get(event["type"], 0) + 1
    for kind, count in sorted(seen.items()):
        print("ok - %d %s" % (count, kind))
    missing = [kind for kind in expected if kind not in seen]
    if missing:
        print("not seen: %s" % ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
