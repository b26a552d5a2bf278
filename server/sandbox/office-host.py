#!/usr/bin/python3
"""A chat's LibreOffice, kept running for its later conversions (server/sandbox/office-host.ts starts it).

It runs in a sandbox of its own with the chat's workspace at /workspace, no network, and LibreOffice's prepared
profile copied into its /tmp. It starts soffice.bin listening on a pipe only it can reach (its /tmp is its own), then
takes requests on /run/skillchat/office/host.sock, one JSON line each, from the server alone:

    {"files": ["/workspace/a.docx"], "to": "pdf", "filter": null, "infilter": null, "outdir": "/workspace"}

and answers one JSON line: {"ok": true, "converted": [{"source", "target", "filter", "app", "existed"}]}, or
{"ok": false, "error": "..."} (the server then lets soffice do it the usual way, so every failure reads exactly as
soffice's).
Documents are opened hidden with macros never run and links never updated; each is closed after it is stored.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import uno
from com.sun.star.beans import PropertyValue

PIPE = "skillchat-office"
LISTEN = "/run/skillchat/office/host.sock"
PROFILE = "/tmp/office-profile"
PREPARED = os.environ.get("SKILLCHAT_OFFICE_PROFILE", "/opt/skillchat-office/profile")
WORKSPACE = "/workspace"

# The export filter soffice's --convert-to picks for a target extension, per kind of document. A target not here is
# left to soffice itself (the server falls back), so an odd format is never converted differently.
APPS = {
    "com.sun.star.text.TextDocument": ("Writer", {
        "pdf": "writer_pdf_Export", "docx": "MS Word 2007 XML", "odt": "writer8", "doc": "MS Word 97",
        "rtf": "Rich Text Format", "txt": "Text", "html": "HTML (StarWriter)", "png": "writer_png_Export",
    }),
    "com.sun.star.sheet.SpreadsheetDocument": ("Calc", {
        "pdf": "calc_pdf_Export", "xlsx": "Calc Office Open XML", "ods": "calc8", "xls": "MS Excel 97",
        "csv": "Text - txt - csv (StarCalc)", "html": "HTML (StarCalc)", "png": "calc_png_Export",
    }),
    "com.sun.star.presentation.PresentationDocument": ("Impress", {
        "pdf": "impress_pdf_Export", "pptx": "Impress Office Open XML", "odp": "impress8",
        "ppt": "MS PowerPoint 97", "png": "impress_png_Export",
    }),
    "com.sun.star.drawing.DrawingDocument": ("Draw", {
        "pdf": "draw_pdf_Export", "odg": "draw8", "png": "draw_png_Export",
    }),
}


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def start_office():
    shutil.rmtree(PROFILE, ignore_errors=True)
    if os.path.isdir(PREPARED):
        shutil.copytree(PREPARED, PROFILE, copy_function=shutil.copyfile)
    command = ["/usr/lib/libreoffice/program/soffice.bin", f"-env:UserInstallation=file://{PROFILE}",
               "--headless", "--invisible", "--norestore", "--nologo", "--nodefault", "--nolockcheck",
               f"--accept=pipe,name={PIPE};urp;StarOffice.ComponentContext"]
    office = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + 60
    while True:
        if office.poll() is not None:
            sys.exit(f"soffice ended at start (exit {office.returncode})")
        try:
            context = resolver.resolve(f"uno:pipe,name={PIPE};urp;StarOffice.ComponentContext")
            break
        except Exception:
            if time.monotonic() > deadline:
                office.kill()
                sys.exit("soffice did not start listening within 60 s")
            time.sleep(0.05)
    manager = context.ServiceManager
    desktop = manager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
    modules = manager.createInstanceWithContext("com.sun.star.frame.ModuleManager", context)
    warm_up(desktop)
    return office, desktop, modules


def warm_up(desktop):
    """Writer and the PDF export loaded before the first request: that one would pay for it (about 0.3 s)."""
    with open("/tmp/warm-up.txt", "w") as text:
        text.write("LibreOffice\n")
    try:
        doc = desktop.loadComponentFromURL("file:///tmp/warm-up.txt", "_blank", 0, (prop("Hidden", True),))
        doc.storeToURL("file:///tmp/warm-up.pdf", (prop("FilterName", "writer_pdf_Export"),))
        doc.close(True)
    except Exception:
        pass


def inside(path):
    """Is `path`, every link in it followed, in the workspace? (The server checked the text; this checks the files.)"""
    real = os.path.realpath(path)
    return real == WORKSPACE or real.startswith(WORKSPACE + "/")


def convert(desktop, modules, request):
    """Each file in turn; on a failure, the answer names the files already made (the server has the run remove them)."""
    outdir = request["outdir"]
    if not inside(outdir) or not all(inside(f) for f in request["files"]):
        return {"ok": False, "error": "a path leads outside /workspace"}
    os.makedirs(outdir, exist_ok=True)
    done = []
    for source in request["files"]:
        try:
            made = convert_one(desktop, modules, request, source)
        except Exception as error:  # LibreOffice refused or crashed: the server lets soffice try
            made = f"{type(error).__name__}: {error}"[:500]
        if isinstance(made, str):
            return {"ok": False, "error": made, "converted": done}
        done.append(made)
    return {"ok": True, "converted": done}


def convert_one(desktop, modules, request, source):
    """The file made, or why not (a sentence)."""
    to = request["to"]
    if not os.path.isfile(source):
        return f"no such file: {source}"
    load = [prop("Hidden", True), prop("MacroExecutionMode", 0), prop("UpdateDocMode", 0)]
    if request.get("infilter"):
        load.append(prop("FilterName", request["infilter"]))
    doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(source), "_blank", 0, tuple(load))
    if doc is None:
        return f"could not load {source}"
    try:
        app, filters = APPS.get(modules.identify(doc), (None, {}))
        chosen = request.get("filter") or filters.get(to)
        if not app or not chosen:
            return f"no known filter for {to}"
        stem = os.path.splitext(os.path.basename(source))[0]
        target = os.path.join(request["outdir"], f"{stem}.{to}")
        if os.path.islink(target) or not inside(target):
            return f"{target} is a link"
        existed = os.path.exists(target)
        doc.storeToURL(uno.systemPathToFileUrl(target), (prop("FilterName", chosen), prop("Overwrite", True)))
        return {"source": source, "target": target, "filter": chosen, "app": app, "existed": existed}
    finally:
        doc.close(True)


def serve(office, desktop, modules):
    try:
        os.unlink(LISTEN)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(LISTEN)
    server.listen(4)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        with conn:
            data = b""
            while not data.endswith(b"\n") and len(data) < 1 << 20:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            try:
                reply = convert(desktop, modules, json.loads(data))
            except Exception as error:  # LibreOffice refused or crashed: said, and the server lets soffice try
                reply = {"ok": False, "error": f"{type(error).__name__}: {error}"[:500]}
            try:
                conn.sendall((json.dumps(reply) + "\n").encode())
            except OSError:
                pass
        if office.poll() is not None:
            sys.exit(f"soffice ended (exit {office.returncode})")


if __name__ == "__main__":
    serve(*start_office())
