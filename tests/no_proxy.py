"""The loopback index must not go through a proxy configured on the machine running the tests.

A test module that talks to tests/integration/index_server.py imports the fixture
(``from tests.no_proxy import no_proxy_for_loopback  # noqa: F401``); it is autouse there.
"""

from __future__ import annotations

import pytest

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def no_proxy_for_loopback(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
