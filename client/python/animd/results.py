"""The shapes of the daemon's results, as PROTOCOL.md section 9 gives them:
TypedDicts, so that a type checker knows the fields while every result
stays the protocol's map as it came (``r["asset"]``, and the fields a newer
daemon adds are kept, not dropped: clients ignore what they do not know).

``sample`` is an :class:`animd.Sample` (the map with numpy views) and
``stream_open`` an :class:`animd.Stream`; the rest are these.
"""
from typing import Any, Dict, List, Optional, TypedDict


class Hello(TypedDict):
    protocol: int
    server: str
    pid: int
    connection: int
    max_message_bytes: int


class AssetStates(TypedDict):
    """``status``'s assets by ``assets.list``'s ``state``."""
    loading: int
    ok: int
    failed: int
    evicted: int


class AssetCounts(TypedDict):
    count: int
    failing: int
    loading: int
    directories: int
    unservable: int
    indexed: bool
    states: AssetStates
    on_demand_loads: int
    evictions: int
    dropped: int
    over_cap: bool
    waiting: int
    waited: int


class Status(TypedDict):
    server: str
    uptime: float
    asset_root: str
    assets: AssetCounts
    instances: int
    connections: int
    streams: int
    requests: int
    sighups: int
    config_reloads: int
    memory_bytes: int
    memory: Dict[str, Any]
    pid: int


class AssetSummary(TypedDict):
    """One asset of ``assets.list``."""
    asset: str
    format: str
    generation: int
    ok: bool
    error: Optional[str]
    state: str          # loading, ok, failed or evicted


class AssetPage(TypedDict):
    """One page of ``assets.list``: ``cursor`` None after the last."""
    assets: List[AssetSummary]
    cursor: Optional[str]


class Joint(TypedDict, total=False):
    name: str
    parent: int


class Skeleton(TypedDict):
    joint_count: int
    bind_pose: bool
    joints: List[Joint]


class ClipInfo(TypedDict, total=False):
    name: str
    duration: float
    loop: str
    joint_count: int
    bounds: bool
    memory_bytes: int
    key_index_bytes: int
    frame_rate: int
    frame_count: int


class AssetInfo(TypedDict, total=False):
    """``assets.info``: what ``animd inspect --json`` prints, and more (an
    M2 adds its own fields: PROTOCOL.md)."""
    asset: str
    format: str
    version: int
    bytes: int
    axes: Dict[str, str]
    memory: Dict[str, int]
    skeleton: Optional[Skeleton]
    clips: List[ClipInfo]
    meshes: List[Dict[str, Any]]
    cameras: List[Dict[str, Any]]
    note: Optional[str]
    notes: List[str]
    generation: int
    error: Optional[str]
    loaded_at: float
    load_ms: float


class Reload(TypedDict):
    """``assets.reload``: the live generation, and whether the file was the
    live version already (nothing reloaded)."""
    asset: str
    generation: int
    unchanged: bool


class Layer(TypedDict):
    layer: int
    mode: str
    asset: str
    clip: str
    weight: float
    target: float
    fade_left: float
    removing: bool
    time: float
    clip_time: float
    speed: float
    loop: str
    mask: Optional[List[Dict[str, Any]]]
    reference: Optional[Dict[str, Any]]


class _InstanceFields(TypedDict):
    instance: int
    asset: str
    clip: Optional[str]
    mesh: Optional[str]
    state: str
    time: float
    clip_time: float
    duration: float
    speed: float
    loop: str
    root_motion: str
    generation: int
    layers: List[Layer]


class Instance(_InstanceFields, total=False):
    """An instance state (play, pause, resume, seek, speed, stop,
    instances.list, layer.*): ``stream`` and ``channel`` when it publishes
    into a stream, ``layer`` from layer.add; ``connection`` and ``client``
    with ``instances(all=True)``: its owner's id and hello name."""
    stream: int
    channel: int
    layer: int
    connection: int
    client: Optional[str]


class ClientInfo(TypedDict):
    """A connection of ``clients.list``."""
    connection: int
    name: Optional[str]
    pid: int
    uid: int
    gid: int
    since: float
    age: float
    requests: int
    instances: int
    streams: int
    events: int
    monitor: bool
    queued_bytes: int
    memory_bytes: int
    self: bool


class Killed(TypedDict):
    """``clients.kill``: the connection closed and what it owned."""
    connection: int
    name: Optional[str]
    pid: int
    instances: int
    streams: int


Event = Dict[str, Any]                  # an event map; "type" says which (section 10)
Stats = Dict[str, Any]                  # ``stats``: section 9's table

__all__ = ["Hello", "Status", "AssetCounts", "AssetSummary", "AssetPage", "AssetInfo", "Joint",
           "Skeleton", "ClipInfo", "Reload", "Layer", "Instance", "ClientInfo", "Killed",
           "Event", "Stats"]
