"""The Benchmarks page: runs, results against the datasheet, the chart and past runs."""
