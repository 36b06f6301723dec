from skillmanager.cli import main

raise SystemExit(main())
