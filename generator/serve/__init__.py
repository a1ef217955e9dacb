"""`errpages serve`: the site kept in memory, the local server, the watcher."""
