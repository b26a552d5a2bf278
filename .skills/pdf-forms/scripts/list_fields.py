#!/usr/bin/env python3
"""List a PDF's form fields as JSON: python3 list_fields.py FORM.pdf [OUT.json]"""
import json
import sys

from pypdf import PdfReader

KINDS = {"/Tx": "text", "/Btn": "checkbox", "/Ch": "choice", "/Sig": "signature"}


def describe(name, field):
    kind = KINDS.get(field.get("/FT"), "unknown")
    flags = int(field.get("/Ff", 0) or 0)
    if kind == "checkbox" and flags & (1 << 15):
        kind = "radio"
    value = field.get("/V")
    entry = {"name": name, "type": kind, "value": None if value is None else str(value)}
    states = field.get("/_States_")
    if kind in ("checkbox", "radio") and states:
        entry["options"] = [str(s) for s in states]
    elif kind == "choice" and field.get("/Opt"):
        entry["options"] = [str(o[-1] if isinstance(o, list) else o) for o in field["/Opt"]]
    return entry


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    reader = PdfReader(argv[0])
    fields = reader.get_fields() or {}
    result = {"pages": len(reader.pages), "fields": [describe(n, f) for n, f in fields.items()]}
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if len(argv) == 2:
        with open(argv[1], "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
