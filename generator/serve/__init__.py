"""`errpages serve`: the local server, the watcher and the rebuilds."""
