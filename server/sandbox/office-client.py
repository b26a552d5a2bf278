"""`soffice --convert-to` through the chat's LibreOffice kept running (server/sandbox/office-host.ts).

The `soffice` wrapper runs this first when the run has the chat's office socket. It sends the command line and the
working folder to the server and prints what soffice would have printed. Exit 75 means "not here": the wrapper then
runs soffice itself, so a command the kept LibreOffice does not take (another option, a file outside /workspace, a
format it has no filter for, any failure) behaves as it always did. Files that LibreOffice made for a request that
then failed are removed first, so soffice starts from what was there.
"""
import json
import os
import shutil
import socket
import sys

FALL_BACK = 75


def ask(path):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    conn.sendall((json.dumps({"cwd": os.getcwd(), "args": sys.argv[1:]}) + "\n").encode())
    data = b""
    while not data.endswith(b"\n") and len(data) < 1 << 20:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return json.loads(data)


def take(target):
    """Makes a file the kept LibreOffice wrote this run's own (it ran as another user), as soffice's would be."""
    if os.lstat(target).st_uid == os.getuid():
        return
    own = f"{target}.{os.getpid()}.tmp"
    shutil.copyfile(target, own)
    os.replace(own, target)


def main():
    try:
        reply = ask(os.environ.get("SKILLCHAT_OFFICE_SOCKET", ""))
        if not isinstance(reply, dict) or not isinstance(reply.get("stdout"), str):
            for made in (reply.get("undo") or []) if isinstance(reply, dict) else []:
                os.remove(made)
            return FALL_BACK
        for target in reply.get("targets") or []:
            take(target)
    except Exception:
        return FALL_BACK
    sys.stdout.write(reply["stdout"])
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
