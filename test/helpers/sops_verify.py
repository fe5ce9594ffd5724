#!/usr/bin/python3
"""An independent reader of SOPS-encrypted YAML, for tests: it shares no code with capi-render.

usage: sops_verify.py FILE IDENTITY_FILE

The data key is unwrapped by the `age` command-line tool (Debian's age) from the armored stanza of
each recipient in turn; the values are decrypted with python3-cryptography's AES-GCM (additional
data: the value's key path joined with ":" plus ":"); the MAC (SHA-512 over every value's
plaintext, in document order) is recomputed and compared with `sops.mac`, itself decrypted with
`sops.lastmodified` as additional data. Prints one JSON object: the plaintext document (without
`sops`), the recipients, and which recipient's stanza opened. Exits 1 with one line on any failure.
"""
import base64
import hashlib
import json
import re
import subprocess
import sys

import yaml
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ENC = re.compile(r"^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]")


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def leaves(node, path, out):
    if isinstance(node, dict):
        for key, value in node.items():
            if not path and key == "sops":
                continue
            leaves(value, path + [str(key)], out)
    elif isinstance(node, list):
        for value in node:
            leaves(value, path, out)
    elif node is not None:
        out.append((path, node))
    return out


def as_bytes(value):
    if isinstance(value, bool):
        return b"True" if value else b"False"
    if isinstance(value, (int, float)):
        return str(value).encode()
    return str(value).encode("utf-8")


def decrypt(text, key, aad):
    m = ENC.match(text)
    if not m:
        fail("not an encrypted value: " + aad)
    data, iv, tag, kind = (m.group(1), m.group(2), m.group(3), m.group(4))
    plain = AESGCM(key).decrypt(base64.b64decode(iv), base64.b64decode(data) + base64.b64decode(tag), aad.encode())
    if kind == "str":
        return plain.decode("utf-8")
    if kind == "int":
        return int(plain)
    if kind == "bool":
        return plain in (b"True", b"true", b"1")
    if kind == "float":
        return float(plain)
    fail("unexpected value type " + kind)


def set_path(doc, path, value):
    # Only maps are encrypted in the documents under test (Secret data/stringData).
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def main():
    if len(sys.argv) != 3:
        fail(__doc__.strip().splitlines()[2])
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    meta = doc.get("sops")
    if not isinstance(meta, dict):
        fail("no sops metadata")
    selector = meta.get("encrypted_regex")
    key = None
    opened = None
    for entry in meta.get("age") or []:
        run = subprocess.run(["age", "--decrypt", "--identity", sys.argv[2]], input=entry["enc"].encode(), capture_output=True)
        if run.returncode == 0 and len(run.stdout) == 32:
            key, opened = run.stdout, entry["recipient"]
            break
    if key is None:
        fail("no recipient stanza opens with the identity")
    mac = hashlib.sha512()
    for path, value in leaves(doc, [], []):
        encrypted = selector is None or any(re.search(selector, k) for k in path)
        if encrypted and value != "":
            value = decrypt(value, key, ":".join(path) + ":")
            set_path(doc, path, value)
        mac.update(as_bytes(value))
    stored = decrypt(meta["mac"], key, str(meta["lastmodified"]))
    if stored != mac.hexdigest().upper():
        fail("MAC mismatch")
    del doc["sops"]
    print(json.dumps({"plaintext": doc, "recipients": [e["recipient"] for e in meta["age"]], "opened": opened, "mac": "verified"}))


if __name__ == "__main__":
    main()
