#!/usr/bin/env python3
"""Fill a PDF form: python3 fill_fields.py FORM.pdf OUT.pdf NAME=VALUE... | --values VALUES.json"""
import json
import sys

from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject


def parse_values(args):
    if args[:1] == ["--values"] and len(args) == 2:
        with open(args[1], encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict):
            raise SystemExit("VALUES.json must hold a JSON object of field name to value")
        return {str(k): v for k, v in data.items()}
    values = {}
    for arg in args:
        if "=" not in arg:
            raise SystemExit(f"expected NAME=VALUE, got {arg!r}")
        name, value = arg.split("=", 1)
        values[name] = value
    return values


def checkbox_state(field, value):
    states = [str(s) for s in field.get("/_States_", []) if str(s) != "/Off"]
    on = states[0] if states else "/Yes"
    if isinstance(value, bool):
        return on if value else "/Off"
    text = str(value).strip()
    if text.lower() in ("yes", "true", "on", "1", "x"):
        return on
    if text.lower() in ("no", "false", "off", "0", ""):
        return "/Off"
    return text if text.startswith("/") else "/" + text


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    source, target, values = argv[0], argv[1], parse_values(argv[2:])
    reader = PdfReader(source)
    fields = reader.get_fields() or {}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        print(f"unknown field(s): {', '.join(unknown)}; the form has: {', '.join(fields)}", file=sys.stderr)
        return 2
    writer = PdfWriter(clone_from=reader)
    final = {}
    for name, value in values.items():
        field = fields[name]
        final[name] = checkbox_state(field, value) if field.get("/FT") == "/Btn" else str(value)
    for page in writer.pages:
        writer.update_page_form_field_values(page, final, auto_regenerate=False)
    writer.set_need_appearances_writer(True)
    # Viewers that ignore NeedAppearances still show checkbox states through /AS.
    for page in writer.pages:
        for annot in page.get("/Annots", []) or []:
            obj = annot.get_object()
            name = obj.get("/T") or (obj.get("/Parent") or {}).get("/T")
            if name in final and obj.get("/FT", (obj.get("/Parent") or {}).get("/FT")) == "/Btn":
                obj[NameObject("/AS")] = NameObject(final[name])
    with open(target, "wb") as out:
        writer.write(out)
    for name, value in final.items():
        print(f"{name} = {value}")
    print(f"wrote {target} ({len(final)} field(s) set)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
