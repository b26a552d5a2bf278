#!/usr/bin/env python3
"""Convert office documents with LibreOffice headless: python3 office.py FILE FORMAT [--outdir DIR]

FORMAT is a target extension (pdf, docx, xlsx, pptx, odt, png, ...) or soffice's EXT:FILTER form.
The result is written to DIR (default: the current directory) as FILE's stem plus the new extension.
Each run uses its own throw-away LibreOffice profile under the temp folder, so runs never share one; in skillchat's
sandbox it starts as a copy of the profile prepared once for this LibreOffice (SKILLCHAT_OFFICE_PROFILE), which
saves a second or more per conversion. There, a file in the workspace is converted by the chat's LibreOffice kept
running (SKILLCHAT_OFFICE_SOCKET, through the `soffice` on PATH) when it takes it: about 0.15 s instead of 0.6 s.
The same file is shipped in the docx, xlsx and pptx skills; the other scripts import it.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

# Recalculate every formula on load (0 = always) for OOXML, ODF and binary Excel files, instead of trusting
# the values cached in the file, which may be missing (openpyxl writes none) or stale.
RECALC_ON_LOAD = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


class OfficeError(Exception):
    """LibreOffice is missing or could not produce the file."""


def soffice_binary():
    for name in ("soffice", "libreoffice"):
        found = shutil.which(name)
        if found:
            return found
    for path in ("/usr/lib/libreoffice/program/soffice", "/opt/libreoffice/program/soffice",
                 "/Applications/LibreOffice.app/Contents/MacOS/soffice"):
        if os.access(path, os.X_OK):
            return path
    raise OfficeError("LibreOffice (soffice) is not installed or not on PATH")


@contextmanager
def profile(recalc=False):
    """A fresh LibreOffice user profile; yields (profile_dir, env) and deletes the profile afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="lo-profile-"))
    prepared = os.environ.get("SKILLCHAT_OFFICE_PROFILE")
    if prepared and os.path.isdir(prepared):
        shutil.copytree(prepared, folder, dirs_exist_ok=True, copy_function=shutil.copyfile)
    if recalc:
        settings = folder / "user" / "registrymodifications.xcu"
        settings.parent.mkdir(exist_ok=True)
        if settings.is_file():
            # Keep the prepared settings: the recalculation items go in before the closing tag.
            items = RECALC_ON_LOAD.split("\n", 2)[2].replace("</oor:items>\n", "")
            text = settings.read_text(encoding="utf-8")
            settings.write_text(text.replace("</oor:items>", items + "</oor:items>", 1), encoding="utf-8")
        else:
            settings.write_text(RECALC_ON_LOAD, encoding="utf-8")
    env = dict(os.environ)
    home = env.get("HOME")
    if not home or not os.access(home, os.W_OK):
        env["HOME"] = str(folder)  # LibreOffice writes to $HOME even with a separate profile
    try:
        yield folder, env
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def soffice_command(folder, *args):
    return [soffice_binary(), f"-env:UserInstallation={folder.as_uri()}", "--headless", "--invisible",
            "--norestore", "--nologo", "--nodefault", *args]


def start(command, env):
    """Start soffice in its own process group, so `stop` ends the launcher and the office process it forks."""
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def stop(process):
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.communicate()


def kept_office(source):
    """The workspace, when the chat's kept LibreOffice can convert `source` (skillchat's sandbox), else None."""
    workspace = os.environ.get("WORKSPACE")
    if not os.environ.get("SKILLCHAT_OFFICE_SOCKET") or not workspace or not os.path.isdir(workspace):
        return None
    root = Path(workspace).resolve()
    return root if root in source.resolve().parents else None


def convert_kept(source, fmt, target, workspace, timeout):
    """Asks the chat's kept LibreOffice (via the `soffice` wrapper) to convert; the new file, or None if it did not."""
    scratch = Path(tempfile.mkdtemp(prefix=".office-", dir=workspace))
    try:
        scratch.chmod(0o775)  # the kept LibreOffice writes here as another user of the same group
        cmd = [soffice_binary(), "--headless", "--convert-to", fmt, "--outdir", str(scratch), str(source.resolve())]
        process = start(cmd, dict(os.environ))
        try:
            process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        finally:
            stop(process)
        produced = scratch / target.name
        if not produced.is_file():
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(produced), str(target))
        return target
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def convert(source, fmt, outdir=".", recalc=False, timeout=120):
    """Convert `source` to `fmt` with soffice --convert-to; returns the path of the new file in `outdir`."""
    source = Path(source)
    if not source.is_file():
        raise OfficeError(f"no such file: {source}")
    ext = fmt.split(":", 1)[0].lower()
    target = Path(outdir) / f"{source.stem}.{ext}"
    workspace = None if recalc else kept_office(source)
    if workspace and convert_kept(source, fmt, target, workspace, timeout):
        return target
    with profile(recalc=recalc) as (folder, env):
        # Convert into a scratch folder: converting x.xlsx to xlsx in place would overwrite the input mid-read.
        scratch = folder / "out"
        scratch.mkdir()
        cmd = soffice_command(folder, "--convert-to", fmt, "--outdir", str(scratch), str(source.resolve()))
        process = start(cmd, env)
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise OfficeError(f"LibreOffice did not finish converting {source} within {timeout} s") from None
        finally:
            stop(process)
        produced = scratch / target.name
        if not produced.is_file():
            detail = (err + out).strip().replace("\n", " ")[:500]
            raise OfficeError(f"LibreOffice could not convert {source} to {fmt} (exit {process.returncode}): {detail}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(produced), str(target))
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description="Convert an office document with LibreOffice headless "
                                     "(e.g. report.docx pdf, deck.pptx pdf, book.xlsx pdf, old.doc docx).")
    parser.add_argument("file", help="the document to convert")
    parser.add_argument("format", help="target extension (pdf, docx, xlsx, pptx, odt, ...) or EXT:FILTER")
    parser.add_argument("--outdir", default=".", help="folder for the result (default: current directory)")
    args = parser.parse_args(argv)
    try:
        print(convert(args.file, args.format, args.outdir))
    except OfficeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
