"""An asset's facts and a sample's header written for people, in the words
and number formats of animd's own tools: proto/describe.h decides them for
``animd inspect`` and ``animctl info`` (and ``animd sample``/``animctl
sample``), and this module says the same, line for line
(tests/integration/test_describe.sh compares them).  ``python3 -m animd
info`` and ``sample`` print with it.
"""
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

LABEL_WIDTH = 12


def line(label: str, text: str) -> str:
    """``label`` padded to LABEL_WIDTH columns ("" for a continuation), then text."""
    return "%-*s %s" % (LABEL_WIDTH - 1, label, text)


def _control(ch: str) -> bool:
    c = ord(ch)
    return c < 0x20 or c == 0x7f or 0x80 <= c <= 0x9f


def name(s: Optional[str]) -> str:
    """A name from a file, quoted: control characters as \\xNN of their
    bytes, a quote as \\" (a name the daemon sent with \\xNN for bytes that
    were not UTF-8 reads as the file's own bytes would)."""
    if s is None:
        return "-"
    out: List[str] = []
    for ch in s:
        if _control(ch):
            out.extend("\\x%02x" % b for b in ch.encode("utf-8"))
        elif ch == '"':
            out.append('\\"')
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def seconds(s: float) -> str:
    return "%.6g s" % s


def format_line(fmt: Optional[str], version: int, nbytes: int) -> str:
    return line("format", "%s version %d, %d bytes" % (fmt or "?", version, nbytes))


def axes(up: Optional[str], handedness: Optional[str]) -> str:
    if up is not None and len(up) > 3 and up.endswith("_up"):
        text = "%s up" % up[:-3]
    else:
        text = "up %s" % (up or "?")
    return line("axes", "%s, %s-handed" % (text, handedness or "?"))


def skeleton(joints: int, bind_pose: bool) -> str:
    return line("skeleton", "%d joint%s%s" % (joints, "" if joints == 1 else "s",
                                             ", bind pose" if bind_pose else ""))


def _noun(n: int, one: str, many: str) -> str:
    """The noun for a count: "1 frame", "2 frames", "1 vertex"."""
    return one if n == 1 else many


def joint(index: int, joint_name: Optional[str], parent: int, parent_name: Optional[str]) -> str:
    q = name(joint_name)
    if parent < 0 or parent_name is None:
        return "  %4d  %-26s root" % (index, q)
    return "  %4d  %-26s parent %d %s" % (index, q, parent, name(parent_name))


def clip(clip_name: Optional[str], duration: float, loop: Optional[str], joints: int,
         frame_count: int, frame_rate: int, bounds: bool) -> str:
    text = "%s: %s, %s, %d joint%s" % (name(clip_name), seconds(duration), loop or "?", joints,
                                       "" if joints == 1 else "s")
    if frame_rate > 0:
        text += ", %d %s at %d fps" % (frame_count, _noun(frame_count, "frame", "frames"),
                                       frame_rate)
    if bounds:
        text += ", bounds"
    return line("clip", text)


def sequence(anim_id: int, variation: int, flags: int, movespeed: float, frequency: int,
             replay_min: int, replay_max: int, blend_ms: int, alias_of: Optional[int],
             loaded: bool) -> str:
    text = (", animation %d.%d, flags 0x%x, movespeed %g, frequency %d, replay %d..%d, "
            "blend %d ms" % (anim_id, variation, flags, movespeed, frequency, replay_min,
                             replay_max, blend_ms))
    if alias_of is not None and alias_of >= 0:
        text += ", alias of %d" % alias_of
    if not loaded:
        text += ", not loaded"
    return text


def moments(times: Sequence[float], events: Sequence[int]) -> str:
    return line("", "events:" + ",".join(" %d at %s" % (e, seconds(t))
                                         for t, e in zip(times, events)))


def global_sequence(index: int, secs: float) -> str:
    return line("global", "%d: %s" % (index, seconds(secs)))


def mesh(index: int, mesh_name: Optional[str], material: Optional[str], vertices: int,
         triangles: int, weights: int, skinned: bool, normals: int) -> str:
    text = "%d %s: %d %s, %d %s, %d %s%s%s" % (
        index, name(mesh_name), vertices, _noun(vertices, "vertex", "vertices"), triangles,
        _noun(triangles, "triangle", "triangles"), weights, _noun(weights, "weight", "weights"),
        ", skinned" if skinned else "",
        ", normals derived" if normals == 2 else ", normals" if normals else "")
    if material is not None:
        text += ", material %s" % name(material)
    return line("mesh", text)


def camera(frame_count: int, frame_rate: int, duration: float, cuts: Iterable[int]) -> str:
    cut_list = list(cuts)
    return line("camera", "%d %s at %d fps, %s playable, cuts:%s" % (
        frame_count, _noun(frame_count, "frame", "frames"), frame_rate, seconds(duration),
        "".join(" %d" % c for c in cut_list) if cut_list else " none"))


def _xyz(p: Sequence[float]) -> str:
    return "%g %g %g" % (p[0], p[1], p[2])


def attachment(index: int, ident: int, bone: int, joint_name: Optional[str],
               position: Sequence[float]) -> str:
    return line("attachment", "%d: id %d on bone %d %s at %s" % (
        index, ident, bone, name(joint_name) if joint_name is not None else "?", _xyz(position)))


def event(index: int, ident: Optional[str], data: int, bone: int, joint_name: Optional[str],
          position: Sequence[float]) -> str:
    where = ("bone %d %s" % (bone, name(joint_name)) if joint_name is not None
             else "bone %d (not in the skeleton)" % bone)
    return line("event", "%d: %s, data %d, on %s at %s" % (index, name(ident), data, where,
                                                         _xyz(position)))


def sample_header(asset: Optional[str], clip_name: Optional[str], time: float,
                  clip_time: float, cycles: int, space: Optional[str]) -> str:
    text = "asset %s" % (asset or "?")
    if clip_name is not None:
        text += ", clip %s" % name(clip_name)
    text += ", time %s" % seconds(time)
    if clip_name is not None:
        text += " -> clip time %s (cycle %d)" % (seconds(clip_time), cycles)
    return text + ", space %s" % (space or "?")


_BILLBOARDS = ("spherical", "cylindrical_x", "cylindrical_y", "cylindrical_z")


def asset_info(a: Mapping[str, Any]) -> List[str]:
    """``assets.info``'s reply as the lines ``animctl info`` prints."""
    out = [line("asset", str(a.get("asset"))),
           format_line(a.get("format"), int(a.get("version", 0)), int(a.get("bytes", 0))),
           axes((a.get("axes") or {}).get("up"), (a.get("axes") or {}).get("handedness")),
           line("generation", "%d (loaded in %.2f ms)" % (a.get("generation", 0),
                                                         a.get("load_ms", 0.0)))]
    if a.get("error") is not None:
        out.append(line("error", str(a["error"])))
    if a.get("ticks_per_second"):
        out.append(line("ticks", "%d per second (%s)" % (
            a["ticks_per_second"], "AnimTicksPerSecond" if a.get("ticks_from_file")
            else "the default: the file has none")))
    if a.get("note") is not None:
        out.append(line("note", str(a["note"])))
    for n in a.get("notes") or []:
        out.append(line("note", str(n)))
    joints: List[Dict[str, Any]] = []
    sk = a.get("skeleton")
    if sk:
        joints = sk.get("joints") or []
        out.append(skeleton(len(joints), bool(sk.get("bind_pose"))))

    def joint_name(j: Optional[int]) -> Optional[str]:
        return joints[j].get("name") if j is not None and 0 <= j < len(joints) else None

    for i, j in enumerate(joints):
        parent = j.get("parent", -1)
        text = joint(i, j.get("name"), parent, joint_name(parent))
        if j.get("billboard") in _BILLBOARDS:
            text += ", %s billboard" % j["billboard"]
        out.append(text)
    for c in a.get("clips") or []:
        text = clip(c.get("name"), c.get("duration", 0.0), c.get("loop"),
                    c.get("joint_count", 0), c.get("frame_count", 0),
                    c.get("frame_rate", 0), bool(c.get("bounds")))
        if "variation" in c:
            replay = c.get("replay") or {}
            text += sequence(c.get("id", 0), c.get("variation", 0), c.get("flags", 0),
                             c.get("movespeed", 0.0), c.get("frequency", 0),
                             replay.get("min", 0), replay.get("max", 0), c.get("blend_ms", 0),
                             c.get("alias_of"), c.get("loaded", True))
        out.append(text)
        ev = c.get("events") or []
        if ev:
            out.append(moments([m["time"] for m in ev], [m["event"] for m in ev]))
    for i, g in enumerate(a.get("global_sequences") or []):
        out.append(global_sequence(i, g))
    if a.get("emitters"):
        out.append(line("emitters", "%d (animctl sample %s --space emitters)"
                        % (len(a["emitters"]), a.get("asset"))))
    for p in a.get("attachments") or []:
        out.append(attachment(p["index"], p["id"], p["bone"], joint_name(p.get("joint")),
                              p["position"]))
    for e in a.get("events") or []:
        out.append(event(e["index"], e.get("id"), e["data"], e["bone"],
                         joint_name(e.get("joint")), e["position"]))
    for i, m in enumerate(a.get("meshes") or []):
        out.append(mesh(i, m.get("name"), m.get("material"), m.get("vertex_count", 0),
                        m.get("triangle_count", 0), m.get("weight_count", 0),
                        bool(m.get("skinned")),
                        2 if m.get("normals_derived") else 1 if m.get("normals") else 0))
    for cam in a.get("cameras") or []:
        out.append(camera(cam.get("frame_count", 0), cam.get("frame_rate", 0),
                          cam.get("duration", 0.0), cam.get("cuts") or []))
    return out
