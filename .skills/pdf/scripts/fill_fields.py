#!/usr/bin/env python3
"""Fill a PDF form and write a new PDF.

    python3 fill_fields.py FORM.pdf OUT.pdf NAME=VALUE [NAME=VALUE ...]
    python3 fill_fields.py FORM.pdf OUT.pdf --values VALUES.json

VALUES.json holds a JSON object of field name to value. Checkboxes take yes/no (or their own state name),
choices one of their options. Unknown field names or options are refused (exit 2) with the real ones listed.
"""
import argparse
import json
import sys

try:
    from pypdf import PdfReader, PdfWriter
    from pypdf.errors import PdfReadError
    from pypdf.generic import NameObject
except ImportError:
    sys.exit("error: pypdf is missing; run this with the skills runtime's python3")

sys.dont_write_bytecode = True  # no __pycache__ in the skill folder (read-only in the sandbox, and shipped)
from list_fields import describe


class Refused(Exception):
    """The values do not fit the form."""


def read_values(pairs, values_file):
    values = {}
    if values_file:
        with open(values_file, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict):
            raise Refused(f"{values_file} must hold a JSON object of field name to value")
        values.update({str(k): v for k, v in data.items()})
    for pair in pairs:
        if "=" not in pair:
            raise Refused(f"expected NAME=VALUE, got {pair!r}")
        name, value = pair.split("=", 1)
        values[name] = value
    if not values:
        raise Refused("no values given: pass NAME=VALUE arguments or --values VALUES.json")
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


def final_values(fields, values):
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise Refused(f"unknown field(s): {', '.join(unknown)}; the form has: {', '.join(fields)}")
    final = {}
    for name, value in values.items():
        field = fields[name]
        entry = describe(name, field)
        text = checkbox_state(field, value) if field.get("/FT") == "/Btn" else str(value)
        options = entry.get("options")
        if options and entry["type"] != "text" and text not in options:
            raise Refused(f"{name}: {value!r} is not one of {', '.join(options)}")
        final[name] = text
    return final


def fill(source, target, values):
    reader = PdfReader(source)
    fields = reader.get_fields() or {}
    if not fields:
        raise Refused(f"{source} has no fillable fields (it may be scanned or flattened)")
    final = final_values(fields, values)
    writer = PdfWriter(clone_from=reader)
    for page in writer.pages:
        writer.update_page_form_field_values(page, final, auto_regenerate=False)
    writer.set_need_appearances_writer(True)
    # Viewers that ignore NeedAppearances still show checkbox states through /AS.
    for page in writer.pages:
        for annot in page.get("/Annots", []) or []:
            obj = annot.get_object()
            parent = obj.get("/Parent")
            parent = parent.get_object() if parent is not None else {}
            name = obj.get("/T") or parent.get("/T")
            if name in final and obj.get("/FT", parent.get("/FT")) == "/Btn":
                obj[NameObject("/AS")] = NameObject(final[name])
    with open(target, "wb") as out:
        writer.write(out)
    return final


def main(argv=None):
    parser = argparse.ArgumentParser(description="Fill a PDF form's fields and write a new PDF "
                                     "(list the fields first with list_fields.py).")
    parser.add_argument("form", help="the PDF form")
    parser.add_argument("output", help="the filled PDF to write")
    parser.add_argument("pairs", nargs="*", metavar="NAME=VALUE", help="a field value (quote values with spaces)")
    parser.add_argument("--values", metavar="VALUES.json", help="a JSON object of field name to value")
    args = parser.parse_intermixed_args(argv)  # NAME=VALUE pairs may come before or after --values
    try:
        final = fill(args.form, args.output, read_values(args.pairs, args.values))
    except Refused as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (OSError, ValueError, PdfReadError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for name, value in final.items():
        print(f"{name} = {value}")
    print(f"wrote {args.output} ({len(final)} field(s) set)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
