#!/usr/bin/env python3
"""Replace text in a Word document, keeping its formatting: python3 replace_text.py IN.docx OUT.docx OLD=NEW ...

Searches body paragraphs, tables, headers and footers. Word often splits a phrase over several runs (pieces of
differently formatted text); a match that spans runs is rewritten into its first run, which keeps that run's
formatting. Prints how often each OLD was replaced; exit 2 if one was not found at all.
Not for documents with tracked changes (accept them first with accept_changes.py).
"""
import argparse
import sys

try:
    from docx import Document
except ImportError:
    sys.exit("error: python-docx is missing; run this with the skills runtime's python3")


def all_paragraphs(doc):
    def walk(container):
        yield from container.paragraphs
        for table in container.tables:
            for row in table.rows:
                for cell in row.cells:
                    yield from walk(cell)
    yield from walk(doc)
    for section in doc.sections:
        for part in (section.header, section.footer, section.first_page_header, section.first_page_footer):
            if part.is_linked_to_previous:
                continue
            yield from walk(part)


def replace_in_paragraph(paragraph, old, new):
    """Replace every `old` in the paragraph's runs; returns the count."""
    count, position = 0, 0
    while True:
        runs = paragraph.runs
        start = "".join(r.text for r in runs).find(old, position)
        if start < 0:  # (text inside hyperlinks and fields is not in .runs and stays as it is)
            return count
        end, offset, first = start + len(old), 0, None
        for run in runs:
            run_start, run_end = offset, offset + len(run.text)
            offset = run_end
            if run_end <= start or run_start >= end:
                continue
            after = run.text[end - run_start:] if run_end > end else ""
            if first is None:
                first = run
                run.text = run.text[: start - run_start] + new + after
            else:
                run.text = after
        count += 1
        position = start + len(new)  # continue after the replacement, so NEW may contain OLD


def main(argv=None):
    parser = argparse.ArgumentParser(description="Replace text in a .docx (body, tables, headers, footers), "
                                     "keeping the formatting.")
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("pairs", nargs="+", metavar="OLD=NEW", help="text to replace (quote pairs with spaces)")
    args = parser.parse_args(argv)
    pairs = []
    for pair in args.pairs:
        if "=" not in pair or pair.startswith("="):
            print(f"error: expected OLD=NEW, got {pair!r}", file=sys.stderr)
            return 2
        pairs.append(pair.split("=", 1))
    try:
        doc = Document(args.input)
    except Exception as error:  # python-docx raises several types for files that are not .docx
        print(f"error: cannot open {args.input} as .docx: {error}", file=sys.stderr)
        return 1
    counts = {old: 0 for old, _ in pairs}
    for paragraph in all_paragraphs(doc):
        for old, new in pairs:
            if old in paragraph.text:
                counts[old] += replace_in_paragraph(paragraph, old, new)
    doc.save(args.output)
    for old, count in counts.items():
        print(f"{old!r}: {count} replacement(s)")
    print(f"wrote {args.output}")
    return 2 if 0 in counts.values() else 0


if __name__ == "__main__":
    sys.exit(main())
