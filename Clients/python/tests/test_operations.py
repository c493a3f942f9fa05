"""The Python client's operation names against the services' declarations.

Tests/Fixtures/operations.json is written from the Swift declarations (LightboxProtocol's
`Operations`, checked by OperationDeclarationTests); every operation name the client sends must be
one of them, and the request fixtures of Tests/Fixtures/operations/ must name their own operation.
"""

import ast
import glob
import json
import os
import re

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "Fixtures"))
SOURCE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "src", "lightbox"))
OPERATION_NAME = re.compile(r"^(service|picker|provider|stream|owner|auth|library|image|video)\.[A-Za-z][A-Za-z.]*$")
# String constants shaped like operation names that are not ones (a key file's name).
NOT_OPERATIONS = {"owner.key"}


def declared():
    with open(os.path.join(FIXTURES, "operations.json"), encoding="utf-8") as handle:
        return {entry["name"]: entry for entry in json.load(handle)["operations"]}


def names_in_client():
    found = {}
    for path in glob.glob(os.path.join(SOURCE, "*.py")):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and OPERATION_NAME.match(node.value):
                if node.value not in NOT_OPERATIONS:
                    found.setdefault(node.value, os.path.basename(path))
    return found


def test_every_operation_the_client_sends_is_declared():
    operations = declared()
    used = names_in_client()
    assert len(used) >= 30, "the client's operation names were not found; did the package move?"
    undeclared = {name: where for name, where in used.items() if name not in operations}
    assert not undeclared, f"the Python client sends operations no service declares: {undeclared}"


# App operations the Python client has no call for yet; one that gains a call leaves this list.
NOT_IN_CLIENT_YET = {"service.whoami", "library.delete"}


def test_the_client_covers_every_app_operation():
    operations = declared()
    used = names_in_client()
    # What an app may call on either service, bar the owner's and the services' own operations.
    missing = sorted(name for name, entry in operations.items()
                     if entry["caller"] in ("app", "any") and name not in used
                     and name not in NOT_IN_CLIENT_YET)
    assert not missing, f"app operations the Python client has no call for: {missing}"
    assert not NOT_IN_CLIENT_YET & set(used), "an operation in NOT_IN_CLIENT_YET has a call now; take it off the list"


def test_each_request_fixture_names_its_declared_operation():
    operations = declared()
    files = glob.glob(os.path.join(FIXTURES, "operations", "*.json"))
    assert {os.path.basename(path)[:-5] for path in files} == set(operations)
    for path in files:
        with open(path, encoding="utf-8") as handle:
            assert json.load(handle)["op"] == os.path.basename(path)[:-5]
