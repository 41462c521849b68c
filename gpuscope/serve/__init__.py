"""gpuscope serve: the Prometheus exporter and the JSON endpoints of one machine, headless."""
