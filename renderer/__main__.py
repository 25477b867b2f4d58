"""`python -m renderer` is the same program as `dynamo-render`."""

from renderer.cli import main

raise SystemExit(main())
