"""Shared pytest setup (keep minimal: other test modules rely on it)."""
import os

import pytest

# Qt tests run without a display: use the offscreen platform unless the caller chose one.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# The CLI's parse cache goes to a throw-away dir, never the user's ~/.cache (subprocesses inherit it).
if "SKILLMANAGER_CACHE_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile

    _cache_dir = tempfile.mkdtemp(prefix="skillmanager-test-cache-")
    os.environ["SKILLMANAGER_CACHE_DIR"] = _cache_dir
    atexit.register(shutil.rmtree, _cache_dir, True)

# History and backups go to a throw-away data dir too, never the user's ~/.local/share/skillmanager.
if "SKILLMANAGER_DATA_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile

    _data_dir = tempfile.mkdtemp(prefix="skillmanager-test-data-")
    os.environ["SKILLMANAGER_DATA_DIR"] = _data_dir
    atexit.register(shutil.rmtree, _data_dir, True)

# The listing budget follows SLASH_COMMAND_TOOL_CHAR_BUDGET in the environment, as Claude Code does: a value in the
# developer's shell must not change what the tests expect (tests that need one set it themselves).
os.environ.pop("SLASH_COMMAND_TOOL_CHAR_BUDGET", None)


@pytest.fixture(autouse=True)
def _release_a_frozen_snapshot():
    """A window test leaves its shown snapshot frozen (core/collector.keep_frozen), as the app does until its next
    scan: release it, so later tests start from an ordinary collector (and the objects it kept can be freed)."""
    yield
    from skillmanager.core.collector import release_frozen
    release_frozen()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """`oracle` tests skip when the real CLIs are missing, except with SKILLMANAGER_REQUIRE_ORACLE=1 (CI): then a
    skip is a failure, so a lost CLI install cannot turn the oracle checks off silently."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("SKILLMANAGER_REQUIRE_ORACLE") == "1" and item.get_closest_marker("oracle"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"oracle test skipped while SKILLMANAGER_REQUIRE_ORACLE=1: {reason}"
