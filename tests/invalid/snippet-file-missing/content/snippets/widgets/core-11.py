---
path: widgets/core.py
commit: abcdef1234567
start_line: 10
---
def check(widget):
    if not widget:
        raise ValueError("bad widget")
