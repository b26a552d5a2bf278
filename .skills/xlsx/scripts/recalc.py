#!/usr/bin/env python3
"""Recalculate every formula of a workbook with LibreOffice headless, then report formula errors as JSON.

    python3 recalc.py IN.xlsx [OUT.xlsx]

OUT defaults to IN (recalculated in place). The saved workbook holds the computed values, so Excel previews,
openpyxl (data_only=True) and pandas read numbers instead of empty cells. The report, printed on stdout:
{"status": "success" | "errors_found", "file", "total_formulas", "total_errors",
 "errors": {"#DIV/0!": {"count": 1, "locations": ["Sheet1!C4", ...]}, ...}}
Exit code 0 whenever the report was produced (read "status"), 1 when LibreOffice or the file failed.
"""
import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

try:
    from openpyxl import load_workbook
except ImportError:
    sys.exit("error: openpyxl is missing; run this with the skills runtime's python3")

sys.dont_write_bytecode = True  # no __pycache__ in the skill folder (read-only in the sandbox, and shipped)
from office import OfficeError, convert

ERRORS = ("#REF!", "#DIV/0!", "#VALUE!", "#NAME?", "#N/A", "#NUM!", "#NULL!")
# soffice export filters that keep the format: macros survive in .xlsm only with the VBA filter.
FORMATS = {".xlsx": "xlsx", ".xlsm": "xlsm:Calc MS Excel 2007 VBA XML"}
MAX_LOCATIONS = 20


def recalculate(source, target):
    fmt = FORMATS.get(source.suffix.lower())
    if fmt is None:
        raise OfficeError(f"expected an .xlsx or .xlsm workbook, got {source.name}")
    with tempfile.TemporaryDirectory(prefix="recalc-") as scratch:
        produced = convert(source, fmt, scratch, recalc=True)
        shutil.move(str(produced), str(target))


def is_error(text):
    # LibreOffice codes without an Excel equivalent come through as "Err:5xx".
    return text in ERRORS or (text.startswith("Err:") and text[4:].isdigit())


def scan(path):
    formulas = load_workbook(path, data_only=False)
    values = load_workbook(path, data_only=True)
    total, errors = 0, {}
    for sheet in formulas.worksheets:
        computed = values[sheet.title]
        for row in sheet.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                total += 1
                value = computed[cell.coordinate].value
                if isinstance(value, str) and is_error(value.strip()):
                    entry = errors.setdefault(value.strip(), {"count": 0, "locations": []})
                    entry["count"] += 1
                    if len(entry["locations"]) < MAX_LOCATIONS:
                        entry["locations"].append(f"{sheet.title}!{cell.coordinate}")
    return {
        "status": "errors_found" if errors else "success",
        "file": str(path),
        "total_formulas": total,
        "total_errors": sum(e["count"] for e in errors.values()),
        "errors": errors,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Recalculate a workbook's formulas with LibreOffice and report #REF!, #DIV/0!, #VALUE!, "
        "#NAME?, #N/A, #NUM! and #NULL! cells as JSON.")
    parser.add_argument("input", help="the .xlsx (or .xlsm) workbook")
    parser.add_argument("output", nargs="?", help="where to save the recalculated workbook (default: in place)")
    args = parser.parse_args(argv)
    source = Path(args.input)
    target = Path(args.output) if args.output else source
    try:
        recalculate(source, target)
        report = scan(target)
    except (OfficeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
