"""Find the places a Python module raises with a message, and each message as a template.

A template is the message as the records write it: literal text with
`{placeholders}` for the parts computed at run time, braces doubled. We read
what Python would join: adjacent literals, f-strings, `+` of strings, `%` and
`.format()` on a literal. A placeholder is named after its expression where
that is simple (`cfg.backend!r` → `{backend!r}`), else `{value}`.

A module is walked once (`scanner`), then every module of a commit resolves its
raises together (`library`): `scan_module`, then `resolved` with a `Library`.
"""
