"""``python -m service``: the command line."""

from service.cli import main

raise SystemExit(main())
