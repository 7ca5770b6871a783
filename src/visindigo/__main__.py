"""`python -m visindigo` is the same as the `visindigo` command."""

from visindigo.cli import main

raise SystemExit(main())
