"""A PEP 517 build backend for the animd package, in the tree and with no
requirements of its own (the standard library only).

Why not setuptools: pip builds a project in an isolated environment into
which it first downloads the backend, so with setuptools as the backend
`pip install client/python` needs the network even in a virtualenv that
has setuptools.  This backend needs nothing, so the install works offline.
A pure-Python package of one folder needs no more than this: the wheel is a
zip of animd/ and its metadata (PEP 427, PEP 566), the sdist a tarball of
the project, the editable wheel a .pth file naming this folder (PEP 660).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "animd"


def _pyproject():
    path = os.path.join(HERE, "pyproject.toml")
    try:
        import tomllib
    except ImportError:                 # Python < 3.11: the file's own few shapes
        return _parse_toml(open(path, encoding="utf-8").read())
    with open(path, "rb") as f:
        return tomllib.load(f)


def _parse_toml(text):
    """Tables, `key = "string"`, `key = ["a", "b"]` (one line), `key = { text = "..." }`."""
    doc, table = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"\[([\w.-]+)\]", line)
        if m:
            table = doc
            for part in m.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        m = re.fullmatch(r'([\w-]+)\s*=\s*(.*)', line)
        if m and table is not None:
            key, value = m.groups()
            strings = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
            if value.startswith("["):
                table[key] = strings
            elif value.startswith("{"):
                table[key] = dict(zip(re.findall(r'(\w+)\s*=', value), strings))
            elif strings:
                table[key] = strings[0]
    return doc


def _meta():
    p = _pyproject()["project"]
    name, version = p["name"], p["version"]
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version,
             "Summary: " + p.get("description", "")]
    if "requires-python" in p:
        lines.append("Requires-Python: " + p["requires-python"])
    if "license" in p and "text" in p["license"]:
        lines.append("License: " + p["license"]["text"])
    lines += ["Requires-Dist: " + d for d in p.get("dependencies", [])]
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (d, extra) for d in deps]
    text = "\n".join(lines) + "\n"
    readme = os.path.join(HERE, p.get("readme", "README.md"))
    if os.path.exists(readme):
        text = text.replace("\n", "\nDescription-Content-Type: text/markdown\n", 1)
        text += "\n" + open(readme, encoding="utf-8").read()
    return name, version, text


def _sources():
    """The package's files: its modules, and py.typed (PEP 561: its
    annotations are for type checkers to use)."""
    root = os.path.join(HERE, PACKAGE)
    for f in sorted(os.listdir(root)):
        if f.endswith(".py") or f == "py.typed":
            yield PACKAGE + "/" + f, os.path.join(root, f)


def _entry_points():
    """[project.scripts] as the dist-info's entry_points.txt, from which
    pip writes each command's script; None when there are none."""
    scripts = _pyproject()["project"].get("scripts", {})
    if not scripts:
        return None
    return ("[console_scripts]\n" +
            "".join("%s = %s\n" % (k, v) for k, v in sorted(scripts.items()))).encode()


def _wheel_name(name, version):
    return "%s-%s-py3-none-any.whl" % (name.replace("-", "_"), version)


def _write_wheel(directory, entries):
    """entries: (archive name, bytes); the dist-info and RECORD are added."""
    name, version, metadata = _meta()
    info = "%s-%s.dist-info" % (name.replace("-", "_"), version)
    scripts = _entry_points()
    entries = list(entries) + ([(info + "/entry_points.txt", scripts)] if scripts else []) + [
        (info + "/METADATA", metadata.encode()),
        (info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: animd_build\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = []
    out = os.path.join(directory, _wheel_name(name, version))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            z.writestr(zipfile.ZipInfo(arc, (2020, 1, 1, 0, 0, 0)), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append("%s,sha256=%s,%d" % (arc, digest.decode(), len(data)))
        record.append(info + "/RECORD,,")
        z.writestr(zipfile.ZipInfo(info + "/RECORD", (2020, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n")
    return os.path.basename(out)


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_sdist = get_requires_for_build_editable = get_requires_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory,
                        ((arc, open(path, "rb").read()) for arc, path in _sources()))


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # The folder that holds animd/ goes on sys.path: edits count at once.
    return _write_wheel(wheel_directory, [("__editable__.animd.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    name, version, metadata = _meta()
    base = "%s-%s" % (name, version)
    out = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in ["pyproject.toml", "README.md", "_build/animd_build.py"] + \
                [arc for arc, _ in _sources()]:
            path = os.path.join(HERE, rel)
            if os.path.exists(path):
                t.add(path, base + "/" + rel)
        data = metadata.encode()
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    return os.path.basename(out)
