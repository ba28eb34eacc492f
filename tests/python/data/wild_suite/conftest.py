"""Fixtures as projects write them: session-scoped and parametrized with ids, a module-scoped one
that writes a data file during the run, and one that counts its set-ups (EVENTS)."""

import json

import pytest

EVENTS = []


class Before:
    """Stands for a class a project parametrizes over (pydantic's validators)."""


class After:
    pass


@pytest.fixture(scope="session", params=[Before, After], ids=lambda c: c.__name__)
def validator(request):
    EVENTS.append("validator " + request.param.__name__)
    return request.param


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = tmp_path_factory.mktemp("records") / "records.json"
    path.write_text(json.dumps([{"id": i, "name": "n%d" % i} for i in range(200)]))
    EVENTS.append("records written")
    yield path
    EVENTS.append("records removed")
