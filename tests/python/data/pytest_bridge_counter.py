"""A pytest plugin (-p pytest_bridge_counter) that counts the configurations pytest makes (one per
session) and the sessions that ended. tests/python/test_pytest_bridge.py checks a worker makes one
for all its tests, and that a collection ends none (no plugin's end-of-session report runs)."""

CONFIGURED = []
UNCONFIGURED = []
FINISHED = []


def pytest_configure(config):
    CONFIGURED.append(config)


def pytest_unconfigure(config):
    UNCONFIGURED.append(config)


def pytest_sessionfinish(session):
    FINISHED.append(session)


def pytest_terminal_summary(terminalreporter):
    FINISHED.append(terminalreporter)
