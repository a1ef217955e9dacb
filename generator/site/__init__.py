"""The site as plain data: records, their links, where each page lives, and lookups."""
