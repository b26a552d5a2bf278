#!/usr/bin/env python3
"""Print the text of a .pptx deck as Markdown, slide by slide, with speaker notes.

    python3 extract_text.py DECK.pptx [--no-notes] [--parts]

Reads the file's XML directly (zip + XML; no python-pptx needed). Slides come in presentation order; for each:
its title, the text of every other shape (one line per paragraph; table cells joined with " | "), then notes.
"""
import argparse
import posixpath
import sys
import zipfile

try:
    from defusedxml import ElementTree
except ImportError:  # the runtime has defusedxml; plain ElementTree is fine for files you trust
    from xml.etree import ElementTree

NS = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "rel": "http://schemas.openxmlformats.org/package/2006/relationships",
}
NOTES_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide"
TITLE_TYPES = ("title", "ctrTitle")
CHROME_TYPES = ("sldNum", "dt", "ftr")  # slide number, date and footer placeholders repeat on every slide


def relationships(archive, part):
    folder, name = posixpath.split(part)
    rels_path = posixpath.join(folder, "_rels", name + ".rels")
    if rels_path not in archive.namelist():
        return {}
    root = ElementTree.fromstring(archive.read(rels_path))
    result = {}
    for rel in root.findall("rel:Relationship", NS):
        target = rel.get("Target")
        if rel.get("TargetMode") != "External":
            target = posixpath.normpath(posixpath.join(folder, target))
        result[rel.get("Id")] = (rel.get("Type"), target)
    return result


def slide_parts(archive):
    presentation = ElementTree.fromstring(archive.read("ppt/presentation.xml"))
    rels = relationships(archive, "ppt/presentation.xml")
    ids = presentation.findall("p:sldIdLst/p:sldId", NS)
    return [rels[s.get(f"{{{NS['r']}}}id")][1] for s in ids]


def paragraphs(element):
    for para in element.iter(f"{{{NS['a']}}}p"):
        text = "".join(t.text or "" for t in para.iter(f"{{{NS['a']}}}t")).strip()
        if text:
            yield text


def shape_texts(root):
    """(is_title, lines) for each text shape and table, in document order."""
    tree = root.find("p:cSld/p:spTree", NS)
    if tree is None:
        return
    for element in tree.iter():
        if element.tag == f"{{{NS['p']}}}sp":
            placeholder = element.find("p:nvSpPr/p:nvPr/p:ph", NS)
            kind = placeholder.get("type") if placeholder is not None else None
            if kind in CHROME_TYPES:
                continue
            is_title = kind in TITLE_TYPES
            body = element.find("p:txBody", NS)
            if body is not None:
                yield is_title, list(paragraphs(body))
        elif element.tag == f"{{{NS['a']}}}tbl":
            rows = []
            for row in element.findall("a:tr", NS):
                rows.append(" | ".join(" ".join(paragraphs(cell)) for cell in row.findall("a:tc", NS)))
            yield False, rows


def notes_text(archive, part):
    for rel_type, target in relationships(archive, part).values():
        if rel_type == NOTES_TYPE and target in archive.namelist():
            root = ElementTree.fromstring(archive.read(target))
            lines = []
            for shape in root.iter(f"{{{NS['p']}}}sp"):
                placeholder = shape.find("p:nvSpPr/p:nvPr/p:ph", NS)
                if placeholder is not None and placeholder.get("type") == "body":
                    lines.extend(paragraphs(shape))
            return lines
    return []


def extract(path, notes=True, parts=False):
    out = []
    with zipfile.ZipFile(path) as archive:
        for number, part in enumerate(slide_parts(archive), start=1):
            root = ElementTree.fromstring(archive.read(part))
            title, body = None, []
            for is_title, lines in shape_texts(root):
                if is_title and title is None and lines:
                    title = " ".join(lines)
                else:
                    body.extend(lines)
            hidden = " (hidden)" if root.get("show") == "0" else ""
            where = f" [{part}]" if parts else ""
            out.append(f"## Slide {number}{hidden}{where}: {title}" if title else f"## Slide {number}{hidden}{where}")
            out.extend(f"- {line}" for line in body)
            if notes:
                out.extend(f"> Notes: {line}" for line in notes_text(archive, part))
            out.append("")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Print a .pptx deck's text (titles, bullets, tables, notes) as Markdown.")
    parser.add_argument("deck", help="the .pptx file")
    parser.add_argument("--no-notes", action="store_true", help="leave out speaker notes")
    parser.add_argument("--parts", action="store_true", help="name each slide's XML file (ppt/slides/slideN.xml)")
    args = parser.parse_args(argv)
    try:
        print(extract(args.deck, notes=not args.no_notes, parts=args.parts))
    except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError) as error:
        print(f"error: cannot read {args.deck} as a .pptx: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
