#!/usr/bin/env python3
"""Accept every tracked change (insertions, deletions, moves, formatting) in a Word document.

    python3 accept_changes.py IN.docx [OUT.docx]

OUT defaults to IN's stem + "-accepted.docx" in the current directory. LibreOffice headless opens the file
through its UNO API, runs "Accept All", turns change tracking off and saves as .docx; the counts of changes
before and after are printed. Needs LibreOffice with its Python bridge (python3-uno).
"""
import argparse
import os
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the skill folder (read-only in the sandbox, and shipped)
from office import OfficeError, profile, soffice_command, start, stop

# The bridge ships with LibreOffice for the system Python, not inside a virtual environment.
for folder in ("/usr/lib/python3/dist-packages", "/usr/lib/libreoffice/program"):
    if os.path.isdir(folder) and folder not in sys.path:
        sys.path.append(folder)
try:
    import uno
    from com.sun.star.beans import PropertyValue
    from com.sun.star.connection import NoConnectException
except ImportError:
    uno = None

CONNECT_SECONDS = 60


def props(**values):
    result = []
    for name, value in values.items():
        prop = PropertyValue()
        prop.Name, prop.Value = name, value
        result.append(prop)
    return tuple(result)


def count_changes(doc):
    changes = doc.getRedlines().createEnumeration()
    count = 0
    while changes.hasMoreElements():
        changes.nextElement()
        count += 1
    return count


def connect(pipe, process):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + CONNECT_SECONDS
    while True:
        try:
            return resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
        except NoConnectException:
            if process.poll() is not None:
                raise OfficeError(f"LibreOffice exited (code {process.returncode}) before accepting a connection")
            if time.monotonic() > deadline:
                raise OfficeError(f"LibreOffice did not start within {CONNECT_SECONDS} s")
            time.sleep(0.1)


def accept_all(source, target):
    if uno is None:
        raise OfficeError("the LibreOffice Python bridge (python3-uno) is not installed")
    source, target = Path(source).resolve(), Path(target).resolve()
    if not source.is_file():
        raise OfficeError(f"no such file: {source}")
    with profile() as (folder, env):
        pipe = f"skillchat-{folder.name}"
        command = soffice_command(folder, f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext")
        process = start(command, env)
        try:
            ctx = connect(pipe, process)
            smgr = ctx.ServiceManager
            desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
            doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(str(source)), "_blank", 0, props(Hidden=True))
            if doc is None or not hasattr(doc, "getRedlines"):
                raise OfficeError(f"LibreOffice could not open {source.name} as a text document")
            before = count_changes(doc)
            dispatcher = smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
            dispatcher.executeDispatch(doc.getCurrentController().getFrame(), ".uno:AcceptAllTrackedChanges", "", 0, ())
            doc.setPropertyValue("RecordChanges", False)
            after = count_changes(doc)
            doc.storeToURL(uno.systemPathToFileUrl(str(target)), props(FilterName="MS Word 2007 XML"))
            doc.close(True)
            try:
                desktop.terminate()
            except Exception:  # the bridge drops as LibreOffice exits; that is the expected end
                pass
            process.wait(timeout=30)
        finally:
            stop(process)
    return before, after


def main(argv=None):
    parser = argparse.ArgumentParser(description="Accept all tracked changes in a .docx with LibreOffice headless "
                                     "and save a clean copy.")
    parser.add_argument("input", help="the .docx (or .doc/.odt) with tracked changes")
    parser.add_argument("output", nargs="?", help="the clean .docx (default: IN-accepted.docx here)")
    args = parser.parse_args(argv)
    output = args.output or f"{Path(args.input).stem}-accepted.docx"
    try:
        before, after = accept_all(args.input, output)
    except OfficeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"accepted {before - after} tracked change(s); {after} left; wrote {output}")
    return 0 if after == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
