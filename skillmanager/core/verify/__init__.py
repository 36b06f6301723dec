"""`skillmanager verify`: run the user's own Claude Code against a loopback fake API and compare what it
sends (the start-up skill listing, the discovery/activation after Reads) with the engine's prediction.

fake_api.py serves the Messages API on 127.0.0.1; sandbox.py builds the throwaway home, the clean
environment and the namespace plan; child.py runs inside the namespace; capture.py reduces the recorded
requests; compare.py compares them with the engine; runner.py ties it together for the CLI and the GUI.
"""
