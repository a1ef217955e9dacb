"""Reading and writing what the user wrote: content/ listed, YAML parsed, records validated."""
