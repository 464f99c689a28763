#!/usr/bin/env python3
"""A hostile (or plain) debuginfod server for the tests (standard library only).

debuginfod_hostile.py MODE FILE LOG PORTFILE
  MODE endless: every GET is answered 200 with an endless chunked stream of
                zeros (no Content-Length), until the client hangs up
  MODE file:    every GET is answered 200 with FILE (with its Content-Length),
                whatever build id was asked for
Every request line and header is appended to LOG; the port is written to
PORTFILE (renamed into place) once the server listens on 127.0.0.1.
"""
import http.server
import os
import socketserver
import sys

MODE, FILE, LOG, PORTFILE = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        with open(LOG, "a") as log:
            log.write("GET %s\n" % self.path)
            for key, value in self.headers.items():
                log.write("%s: %s\n" % (key, value))
        if MODE == "endless":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"\0" * 65536
            try:
                while True:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                return
        with open(FILE, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
