"""Wall time of `gpuscope info --json` as a user runs it (a new process each time).

Prints JSON: {"runs": N, "wall_s_median": ..., "wall_s_max": ...}. Target: under 1 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--replay", help="replay this snapshot instead of reading the machine")
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    args = parser.parse_args()
    command = [sys.executable, "-m", "gpuscope"]
    if args.replay:
        command += ["--replay", args.replay]
    command += ["info", "--json"]
    walls = []
    for _ in range(args.runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        walls.append(time.perf_counter() - started)
    print(json.dumps({
        "runs": args.runs,
        "wall_s_median": round(statistics.median(walls), 4),
        "wall_s_max": round(max(walls), 4),
    }))


if __name__ == "__main__":
    main()
