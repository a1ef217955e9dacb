"""The project's git history: pin, scan and drift, and the raise finder they share."""
