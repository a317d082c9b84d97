#!/usr/bin/env python3
"""A package registry over HTTPS for tst_realclients: one npm package and one wheel, both named zeus-fixture-pkg,
served on 127.0.0.1 with a certificate that only the test's own CA signed (what a TLS-inspecting network looks like
from the sandbox).

usage: registry.py DIR PORT CERT KEY BASE_URL

DIR receives, and the server serves from it:
  zeus-fixture-pkg                                 the npm packument; its tarball URL starts with BASE_URL
  tarballs/zeus-fixture-pkg-1.0.0.tgz              the npm tarball (dist.integrity and dist.shasum are its own)
  simple/zeus-fixture-pkg/index.html               the PEP 503 page, linking the wheel with its sha256
  packages/zeus_fixture_pkg-1.0-py3-none-any.whl   a pure-Python wheel

Each request is logged on stderr as http.server does ("GET /path HTTP/1.1" 200 -), and its Authorization header, when
it has one, on stdout as "auth: PATH VALUE" (host-bound secrets: what the real host received).
"""
import base64
import functools
import hashlib
import http.server
import io
import json
import os
import ssl
import sys
import tarfile
import zipfile

NAME = 'zeus-fixture-pkg'


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)


def npm_package(root, base_url):
    files = {
        'package/package.json': json.dumps({'name': NAME, 'version': '1.0.0', 'main': 'index.js',
                                            'license': 'MIT'}).encode(),
        'package/index.js': b"module.exports = 'zeus-fixture-pkg works';\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode='w:gz') as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    tgz = buffer.getvalue()
    write(os.path.join(root, 'tarballs', NAME + '-1.0.0.tgz'), tgz)
    integrity = 'sha512-' + base64.b64encode(hashlib.sha512(tgz).digest()).decode()
    version = {
        'name': NAME, 'version': '1.0.0', 'main': 'index.js', 'license': 'MIT',
        'dist': {'tarball': base_url + 'tarballs/' + NAME + '-1.0.0.tgz',
                 'shasum': hashlib.sha1(tgz).hexdigest(), 'integrity': integrity},
    }
    packument = {'name': NAME, 'dist-tags': {'latest': '1.0.0'}, 'versions': {'1.0.0': version}}
    write(os.path.join(root, NAME), json.dumps(packument).encode())


def wheel(root):
    files = {
        'zeus_fixture_pkg/__init__.py': b"VALUE = 'zeus-fixture-pkg works'\n",
        'zeus_fixture_pkg-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\nName: zeus-fixture-pkg\nVersion: 1.0\n',
        'zeus_fixture_pkg-1.0.dist-info/WHEEL':
            b'Wheel-Version: 1.0\nGenerator: zeus-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    }
    record = ''.join('%s,sha256=%s,%d\n' % (
        name, base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode(), len(data))
        for name, data in files.items())
    files['zeus_fixture_pkg-1.0.dist-info/RECORD'] = (record + 'zeus_fixture_pkg-1.0.dist-info/RECORD,,\n').encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    whl = buffer.getvalue()
    wheel_name = 'zeus_fixture_pkg-1.0-py3-none-any.whl'
    write(os.path.join(root, 'packages', wheel_name), whl)
    page = '<!DOCTYPE html><html><body><a href="../../packages/%s#sha256=%s">%s</a></body></html>\n' % (
        wheel_name, hashlib.sha256(whl).hexdigest(), wheel_name)
    write(os.path.join(root, 'simple', NAME, 'index.html'), page.encode())


def main():
    root, port, cert, key, base_url = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    npm_package(root, base_url)
    wheel(root)
    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            if self.headers.get('Authorization'):
                print('auth: %s %s' % (self.path, self.headers['Authorization']), flush=True)
            super().do_GET()

    handler = functools.partial(Handler, directory=root)
    server = http.server.ThreadingHTTPServer(('127.0.0.1', port), handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    # The handshake in the request's thread, not in accept(): a client that refuses the certificate must not hold
    # up the next one.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print('serving', flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
