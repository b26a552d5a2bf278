#!/usr/bin/env python3
"""Show a workbook's sheets as Markdown tables: python3 read.py BOOK.xlsx [--sheet NAME] [--formulas] [--max-rows N]

Values are the ones cached in the file (what Excel last computed). A workbook written by openpyxl or another
library has no cached values: formula cells then show as empty; run recalc.py first, or pass --formulas.
"""
import argparse
import sys

try:
    from openpyxl import load_workbook
except ImportError:
    sys.exit("error: openpyxl is missing; run this with the skills runtime's python3")


def cell_text(value):
    if value is None:
        return ""
    return str(value).replace("|", "\\|").replace("\n", " ")


def show_sheet(sheet, formulas, max_rows):
    print(f"## {sheet.title} ({sheet.max_row} rows x {sheet.max_column} columns, range {sheet.dimensions})\n")
    rows = list(sheet.iter_rows(max_row=min(sheet.max_row, max_rows + 1)))
    if not rows or sheet.max_column == 0:
        print("(empty)\n")
        return
    header = ["row"] + [cell.column_letter for cell in rows[0]]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows[:max_rows]:
        cells = []
        for cell in row:
            text = cell_text(cell.value)
            if formulas and cell.coordinate in formulas:
                text = f"{cell_text(formulas[cell.coordinate])} → {text}" if text else cell_text(formulas[cell.coordinate])
            cells.append(text)
        print(f"| {row[0].row} | " + " | ".join(cells) + " |")
    if sheet.max_row > max_rows:
        print(f"\n({sheet.max_row - max_rows} more rows not shown; use --max-rows)")
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(description="Print an .xlsx workbook's sheets as Markdown tables "
                                     "(cached values; --formulas adds each formula before its value).")
    parser.add_argument("workbook")
    parser.add_argument("--sheet", help="only this sheet")
    parser.add_argument("--formulas", action="store_true", help="show formulas as well as values")
    parser.add_argument("--max-rows", type=int, default=50, help="rows per sheet (default 50)")
    args = parser.parse_args(argv)
    try:
        values = load_workbook(args.workbook, data_only=True, read_only=False)
        raw = load_workbook(args.workbook, data_only=False) if args.formulas else None
    except Exception as error:  # openpyxl raises several types for unreadable files
        print(f"error: cannot read {args.workbook}: {error}", file=sys.stderr)
        return 1
    names = values.sheetnames
    if args.sheet:
        if args.sheet not in names:
            print(f"error: no sheet {args.sheet!r}; the workbook has: {', '.join(names)}", file=sys.stderr)
            return 2
        names = [args.sheet]
    print(f"# {args.workbook}: sheets {', '.join(values.sheetnames)}\n")
    for name in names:
        formulas = None
        if raw is not None:
            formulas = {c.coordinate: c.value for row in raw[name].iter_rows() for c in row if c.data_type == "f"}
        show_sheet(values[name], formulas, args.max_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
