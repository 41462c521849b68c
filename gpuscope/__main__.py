from __future__ import annotations

import sys

from gpuscope.cli import main

sys.exit(main())
