"""A pytest plugin (-p pytest_bridge_counter) that counts the configurations pytest makes: one per
session. tests/python/test_pytest_bridge.py checks a worker makes one for all its tests."""

CONFIGURED = []


def pytest_configure(config):
    CONFIGURED.append(config)
