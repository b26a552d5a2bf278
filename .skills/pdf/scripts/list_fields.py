#!/usr/bin/env python3
"""List a PDF's fillable form fields as JSON: python3 list_fields.py FORM.pdf [OUT.json]

Prints {"pages": N, "fields": [{"name", "type": "text|checkbox|radio|choice|signature", "value", "options"?}]}.
A PDF without a form (scanned or flattened) prints "fields": [].
"""
import argparse
import json
import sys

try:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError
except ImportError:
    sys.exit("error: pypdf is missing; run this with the skills runtime's python3")

KINDS = {"/Tx": "text", "/Btn": "checkbox", "/Ch": "choice", "/Sig": "signature"}
RADIO_FLAG = 1 << 15


def describe(name, field):
    kind = KINDS.get(field.get("/FT"), "unknown")
    if kind == "checkbox" and int(field.get("/Ff", 0) or 0) & RADIO_FLAG:
        kind = "radio"
    value = field.get("/V")
    entry = {"name": name, "type": kind, "value": None if value is None else str(value)}
    states = field.get("/_States_")
    if kind in ("checkbox", "radio") and states:
        entry["options"] = [str(s) for s in states]
    elif kind == "choice" and field.get("/Opt"):
        entry["options"] = [str(o[-1] if isinstance(o, list) else o) for o in field["/Opt"]]
    return entry


def list_fields(path):
    reader = PdfReader(path)
    fields = reader.get_fields() or {}
    return {"pages": len(reader.pages), "fields": [describe(n, f) for n, f in fields.items()]}


def main(argv=None):
    parser = argparse.ArgumentParser(description="List a PDF's fillable form fields (name, type, value, options) as JSON.")
    parser.add_argument("form", help="the PDF form")
    parser.add_argument("output", nargs="?", help="also write the JSON to this file")
    args = parser.parse_args(argv)
    try:
        result = list_fields(args.form)
    except (OSError, PdfReadError) as error:
        print(f"error: cannot read {args.form}: {error}", file=sys.stderr)
        return 1
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
