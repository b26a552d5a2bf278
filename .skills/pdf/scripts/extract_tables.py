#!/usr/bin/env python3
"""Extract the tables of a PDF with pdfplumber, as Markdown on stdout and one CSV file per table.

    python3 extract_tables.py REPORT.pdf [--pages 1,3-4] [--csv-prefix NAME] [--no-csv] [--text-strategy]

CSV files are written to the current directory as NAME-p<page>-t<n>.csv (NAME defaults to the PDF's stem).
Works on PDFs with a text layer; a scanned PDF (images only) has no tables to find.
"""
import argparse
import csv
import sys
from pathlib import Path

try:
    import pdfplumber
except ImportError:
    sys.exit("error: pdfplumber is missing; run this with the skills runtime's python3")

# Tables drawn without ruling lines need pdfplumber's text-alignment strategy instead of the default lines.
TEXT_STRATEGY = {"vertical_strategy": "text", "horizontal_strategy": "text"}


def page_numbers(spec, count):
    if not spec:
        return list(range(1, count + 1))
    numbers = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        start, end = int(first), int(last or first)
        if start < 1 or end > count or start > end:
            raise ValueError(f"page range {part.strip()!r} is outside 1-{count}")
        numbers.extend(range(start, end + 1))
    return numbers


def clean(cell):
    return "" if cell is None else " ".join(str(cell).split())


def markdown(rows):
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Extract tables from a PDF as Markdown (stdout) and CSV files.")
    parser.add_argument("pdf")
    parser.add_argument("--pages", help="pages to read, e.g. 1,3-4 (default: all)")
    parser.add_argument("--csv-prefix", help="CSV file name prefix (default: the PDF's stem)")
    parser.add_argument("--no-csv", action="store_true", help="print Markdown only")
    parser.add_argument("--text-strategy", action="store_true",
                        help="find tables by text alignment (for tables without ruling lines)")
    args = parser.parse_args(argv)
    prefix = args.csv_prefix or Path(args.pdf).stem
    found = 0
    try:
        with pdfplumber.open(args.pdf) as pdf:
            for number in page_numbers(args.pages, len(pdf.pages)):
                page = pdf.pages[number - 1]
                tables = page.extract_tables(TEXT_STRATEGY if args.text_strategy else None)
                for index, table in enumerate(tables, start=1):
                    rows = [[clean(c) for c in row] for row in table if any(c not in (None, "") for c in row)]
                    if not rows:
                        continue
                    found += 1
                    print(f"## Page {number}, table {index}\n\n{markdown(rows)}\n")
                    if not args.no_csv:
                        name = f"{prefix}-p{number}-t{index}.csv"
                        with open(name, "w", newline="", encoding="utf-8") as out:
                            csv.writer(out).writerows(rows)
                        print(f"(saved as {name})\n")
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # pdfminer raises its own types for damaged or encrypted files
        print(f"error: cannot read {args.pdf}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    if not found:
        print("No tables found. If the table has no ruling lines, try --text-strategy; "
              "if `pdftotext -layout` prints nothing either, the PDF is a scan without a text layer.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
