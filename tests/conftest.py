"""Shared pytest setup (keep minimal: other test modules rely on it)."""
import os

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
