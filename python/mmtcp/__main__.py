"""`python -m mmtcp` is the `mmtcp` command."""

import sys

from mmtcp.cli import main

sys.exit(main())
