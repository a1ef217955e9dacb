---
path: widgets/core.py
commit: abcdef1234567
start_line: 10
sha256: abababababababababababababababababababababababababababababababab
---
def check(widget):
    if not widget:
        raise ValueError("bad widget")
