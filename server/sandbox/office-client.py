"""`soffice --convert-to` through the chat's LibreOffice kept running (server/sandbox/office-host.ts).

The `soffice` wrapper runs this first when the run has the chat's office socket. It sends the command line and the
working folder to the server and prints what soffice would have printed. Exit 75 means "not here": the wrapper then
runs soffice itself, so a command the kept LibreOffice does not take (another option, a file outside /workspace, a
format it has no filter for, any failure) behaves exactly as it always did.
"""
import json
import os
import socket
import sys

FALL_BACK = 75


def main():
    path = os.environ.get("SKILLCHAT_OFFICE_SOCKET", "")
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        conn.sendall((json.dumps({"cwd": os.getcwd(), "args": sys.argv[1:]}) + "\n").encode())
        data = b""
        while not data.endswith(b"\n") and len(data) < 1 << 20:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        reply = json.loads(data)
        if not isinstance(reply, dict) or reply.get("fallback") or not isinstance(reply.get("stdout"), str):
            return FALL_BACK
    except Exception:
        return FALL_BACK
    sys.stdout.write(reply["stdout"])
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
