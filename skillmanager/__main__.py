from skillmanager.cli import entry

raise SystemExit(entry())
