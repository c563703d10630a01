"""A stub npm registry on 127.0.0.1 that serves only the tarballs it is given.

The npm test installs capn the way a user does (`npm install -g capn-hook`), with nothing but
this stub configured as the registry: no public registry is asked, and npm's own selection of
the optionalDependencies by their os/cpu fields is what gets tested. For each tarball the
packument (the registry document of a package: "versions", "dist-tags", and per version the
package.json plus "dist": {"tarball", "integrity", "shasum"}) is built from the package.json
inside the tarball. `manifest_only` adds versions with no tarball (the other systems' packages:
npm must skip them by os/cpu without fetching them; a fetch of one is logged and gets a 404).
Every request path is logged in `requests`.
"""

import base64
import hashlib
import http.server
import json
import tarfile
import threading
import urllib.parse


def package_json(tarball):
    """The package.json inside an npm tarball (`package/package.json`), as a dict."""
    with tarfile.open(tarball, "r:gz") as t:
        return json.load(t.extractfile("package/package.json"))


class Registry:
    """Start with `with Registry(tarballs, manifest_only) as r:`; `r.url` is the registry URL."""

    def __init__(self, tarballs, manifest_only=(), latest=None):
        self.files = {}
        self.packuments = {}
        self.requests = []
        for path in tarballs:
            data = open(path, "rb").read()
            meta = package_json(path)
            name = f"{meta['name'].replace('/', '-').lstrip('@')}-{meta['version']}.tgz"
            self.files[name] = data
            meta["dist"] = {
                "tarball": f"/-/tarballs/{name}",
                "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode(),
                "shasum": hashlib.sha1(data).hexdigest(),
            }
            self._add(meta)
        for meta in manifest_only:
            meta = dict(meta)
            meta["dist"] = {"tarball": f"/-/tarballs/missing-{meta['name'].replace('/', '-')}.tgz",
                            "shasum": "0" * 40}
            self._add(meta)
        for name, version in (latest or {}).items():
            self.packuments[name]["dist-tags"]["latest"] = version

    def _add(self, meta):
        doc = self.packuments.setdefault(meta["name"], {"name": meta["name"], "versions": {}, "dist-tags": {}})
        doc["versions"][meta["version"]] = meta
        latest = doc["dist-tags"].get("latest")
        if latest is None or _key(meta["version"]) > _key(latest):
            doc["dist-tags"]["latest"] = meta["version"]

    def __enter__(self):
        registry = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                registry.requests.append(self.path)
                path = urllib.parse.unquote(self.path.split("?")[0])
                host = self.headers.get("Host", "127.0.0.1")
                if path.startswith("/-/tarballs/") and path[12:] in registry.files:
                    return self._send(200, registry.files[path[12:]], "application/octet-stream")
                doc = registry.packuments.get(path.lstrip("/"))
                if doc is None:
                    return self._send(404, b'{"error":"not found"}', "application/json")
                doc = json.loads(json.dumps(doc))
                for v in doc["versions"].values():
                    v["dist"]["tarball"] = f"http://{host}{v['dist']['tarball']}"
                return self._send(200, json.dumps(doc).encode(), "application/json")

            def _send(self, status, body, kind):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _key(version):
    core = version.split("-")[0].split("+")[0]
    return tuple(int(x) for x in core.split(".")) + ((1,) if "-" not in version else (0,))
