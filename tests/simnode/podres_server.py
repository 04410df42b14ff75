#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kubelet's PodResources API (v1) for a simulated node, over the real protocol
(grpcio, gRPC over HTTP/2 on a unix socket), serving the placements the node's
kubelet files hold: cpu_manager_state, device-plugins/kubelet_internal_checkpoint,
memory_manager_state under ROOT/var/lib/kubelet, read again at every call.

  podres_server.py --root ROOT --pb DIR [--mode MODE] [--pod NS/NAME=UID ...]
                   [--dra UID=DRIVER/POOL/DEVICE[@CLAIM][+share][+pod] ...] [--gate DIR]

DIR holds api_pb2.py (protoc --python_out from pkg/podres/api.proto). A pod
of the files without --pod is served as default/<uid>; a --pod the files do
not hold is known, with nothing placed; any other pod is one kubelet does not
know. A --dra is a device a DRA claim gave the pod (kubelet has no file for it
here: its dra_manager_state checkpoint is not read): served in the pod's first
container's dynamic_resources (kubelet lists a claim under the containers
whose resources.claims name it), claim CLAIM (default "claim-DEVICE") in the
pod's namespace, CDI device DRIVER/net=DEVICE. +pod: a claim only the pod
spec lists (resources.claims of no container, as dranet's examples): kubelet
(cm/dra GetContainerClaimInfos) lists it under no container, so List and Get
do not show it at all. MODE, as each kubelet answers
(pkg/kubelet/apis/podresources/server_v1.go; Get's refusals are plain Go
errors, which grpc-go sends as code 2 UNKNOWN with the text, percent-encoded,
as grpc-message; grpcio encodes it the same way):
  1.34            Get and List (KubeletPodResourcesGet beta, on); Get of a pod
                  kubelet does not know: code 2 "pod NAME in namespace NS not found".
                  Both carry dynamic_resources (KubeletPodResourcesDynamicResources
                  beta, on, since 1.34): ClaimResource with driver_name, pool_name,
                  device_name (1.31+) and cdi_devices, no topology
  1.35, 1.36      as 1.34; a ClaimResource of a shared device (+share, DRA
                  consumable capacity) also carries share_id (field 5, 1.35+)
  1.34-getoff     1.34 with KubeletPodResourcesGet=false: Get "disabled", List
                  answers with dynamic_resources
  1.27-1.33-gate  the same answers (the alpha gate turned on by hand)
  1.27-1.33       the gate off, its default: Get answers code 2 "PodResources
                  API Get method disabled"; List answers
  1.26            no Get at all: UNIMPLEMENTED; List answers
  (1.26-1.33: no dynamic_resources, the DRA gate being off or absent)
  ok, noget       the old names of 1.34 and 1.26
  badproto valid gRPC whose replies are not protobuf
  hang     accepts and never answers
  reset    accepts and closes at once
  garbage  accepts and answers bytes that are not HTTP/2
--gate DIR slows List while DIR/hold exists, so a test can act during the
call: List writes DIR/listing, then answers once DIR/go exists or after
--gate-ms (default 900: the agent's scan waits 1 s; the sim binary's
RDMA_QOS_SIM_PODRES_MS makes that longer), and removes hold, listing, go.
The socket is ROOT/var/lib/kubelet/pod-resources/kubelet.sock; the server
prints "ready" once it listens.
"""
import argparse
import json
import os
import signal
import socket
import sys
import threading
import time
from concurrent import futures

ap = argparse.ArgumentParser()
ap.add_argument("--root", required=True)
ap.add_argument("--pb", required=True)
ap.add_argument("--mode", default="1.34")
ap.add_argument("--pod", action="append", default=[])
ap.add_argument("--dra", action="append", default=[])
ap.add_argument("--kubelet-dir", default="/var/lib/kubelet")
ap.add_argument("--gate")
ap.add_argument("--gate-ms", type=int, default=900)
args = ap.parse_args()

MODE = {"ok": "1.34", "noget": "1.26"}.get(args.mode, args.mode)
if MODE not in ("1.34", "1.35", "1.36", "1.34-getoff", "1.27-1.33-gate", "1.27-1.33", "1.26",
                "badproto", "hang", "reset", "garbage"):
    ap.error("unknown --mode " + args.mode)
KDIR = args.root + args.kubelet_dir
SOCK = KDIR + "/pod-resources/kubelet.sock"
os.makedirs(os.path.dirname(SOCK), exist_ok=True)
if os.path.exists(SOCK):
    os.unlink(SOCK)

NAMES = {}  # uid -> (ns, name)
for p in args.pod:
    key, uid = p.split("=", 1)
    ns, name = key.split("/", 1)
    NAMES[uid] = (ns, name)
# the kubelets that serve dynamic_resources (1.34+: the gate beta, on); share_id from 1.35
DRA_ON = MODE in ("1.34", "1.35", "1.36", "1.34-getoff")
SHARE_ID = MODE in ("1.35", "1.36")
DRA = []  # (uid, driver, pool, device, claim, shared)
for d in args.dra:
    uid, spec = d.split("=", 1)
    podlevel = spec.endswith("+pod")
    spec = spec[:-len("+pod")] if podlevel else spec
    shared = spec.endswith("+share")
    spec = spec[:-len("+share")] if shared else spec
    if podlevel:  # a claim only the pod spec lists: kubelet serves it under no container
        continue
    spec, _, claim = spec.partition("@")
    driver, pool, device = spec.split("/", 2)
    DRA.append((uid, driver, pool, device, claim or "claim-" + device, shared))


def raw_server(handle):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(SOCK)
    s.listen(16)
    print("ready", flush=True)
    held = []
    while True:
        c, _ = s.accept()
        handle(c, held)


if MODE in ("hang", "reset", "garbage"):
    def handle(c, held):
        if MODE == "hang":
            held.append(c)  # read nothing, answer nothing, keep it open
        elif MODE == "reset":
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            c.close()
        else:
            try:
                c.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + os.urandom(4096))
            except OSError:
                pass
            held.append(c)
    raw_server(handle)
    sys.exit(0)

import grpc  # noqa: E402  (only the gRPC modes need it)

sys.path.insert(0, args.pb)
import api_pb2 as pb  # noqa: E402


def load(rel):
    try:
        with open(KDIR + "/" + rel) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def cpuset(s):
    out = []
    for part in filter(None, s.split(",")):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


CACHE = {"key": None, "pods": [], "by": {}, "list": None}
FILES = ("cpu_manager_state", "device-plugins/kubelet_internal_checkpoint", "memory_manager_state")


def pods():
    """(list, {(ns, name): pod}) of the files' pods, rebuilt when a file changes: kubelet
    serves from memory, so a 250-pod node costs the client its reply, not our parsing."""
    key = []
    for f in FILES:
        try:
            st = os.stat(KDIR + "/" + f)
            key.append((st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            key.append(None)
    if key != CACHE["key"]:
        CACHE["list"] = None
        CACHE["pods"] = build_pods()
        CACHE["by"] = {(p.namespace, p.name): p for p in CACHE["pods"]}
        CACHE["key"] = key
    return CACHE["pods"], CACHE["by"]


def build_pods():
    """PodResources messages for every pod the files know."""
    ctrs = {}  # uid -> {container: ContainerResources}

    def ctr(uid, name):
        c = ctrs.setdefault(uid, {})
        if name not in c:
            c[name] = pb.ContainerResources(name=name)
        return c[name]

    for uid, cs in (load("cpu_manager_state").get("entries") or {}).items():
        for name, s in cs.items():
            ctr(uid, name).cpu_ids.extend(cpuset(s))
    data = load("device-plugins/kubelet_internal_checkpoint").get("Data") or {}
    for e in data.get("PodDeviceEntries") or []:
        c = ctr(e["PodUID"], e.get("ContainerName", ""))
        ids = e.get("DeviceIDs")
        if isinstance(ids, list):  # before 1.20: no topology
            c.devices.append(pb.ContainerDevices(resource_name=e.get("ResourceName", ""),
                                                 device_ids=ids))
            continue
        for node, lst in (ids or {}).items():
            for i in lst:
                d = pb.ContainerDevices(resource_name=e.get("ResourceName", ""), device_ids=[i])
                if int(node) >= 0:
                    d.topology.nodes.append(pb.NUMANode(ID=int(node)))
                c.devices.append(d)
    for uid, cs in (load("memory_manager_state").get("entries") or {}).items():
        for name, blocks in cs.items():
            for b in blocks:
                m = pb.ContainerMemory(memory_type=b.get("type", ""), size=b.get("size", 0))
                for n in b.get("numaAffinity") or []:
                    m.topology.nodes.append(pb.NUMANode(ID=n))
                ctr(uid, name).memory.append(m)
    for uid, driver, pool, device, claim, shared in DRA if DRA_ON else []:
        c = next(iter(ctrs[uid].values())) if ctrs.get(uid) else ctr(uid, "app")
        cr = pb.ClaimResource(driver_name=driver, pool_name=pool, device_name=device)
        cr.cdi_devices.append(pb.CDIDevice(name="%s/net=%s" % (driver, device)))
        if shared and SHARE_ID:
            # share_id (5, optional string): not in our api.proto; on the wire as kubelet
            # sends it, an unknown field the client must skip
            sid = b"share-" + device.encode()
            cr.MergeFromString(bytes([5 << 3 | 2, len(sid)]) + sid)
        c.dynamic_resources.append(pb.DynamicResource(
            claim_name=claim, claim_namespace=NAMES.get(uid, ("default", uid))[0],
            claim_resources=[cr]))
    out = []
    for uid, cs in ctrs.items():
        ns, name = NAMES.get(uid, ("default", uid))
        out.append(pb.PodResources(name=name, namespace=ns, containers=list(cs.values())))
    # a --pod without exclusive resources: kubelet knows it all the same (Get and List
    # answer it with nothing placed); a pod neither here nor in the files is unknown
    for uid, (ns, name) in NAMES.items():
        if uid not in ctrs:
            out.append(pb.PodResources(name=name, namespace=ns,
                                       containers=[pb.ContainerResources(name="app")]))
    return out


def do_list(req, ctx):
    """The reply's bytes, serialized once per change of the files: Python's protobuf takes
    ~10 ms for 250 pods (230 KB) where kubelet's Go takes well under one, and the bench
    measures the client's side of List, not this server's."""
    if ctx is not None and args.gate and os.path.exists(args.gate + "/hold"):
        open(args.gate + "/listing", "w").close()
        t_end = time.monotonic() + args.gate_ms / 1000
        while not os.path.exists(args.gate + "/go") and time.monotonic() < t_end:
            time.sleep(0.01)
        for f in ("hold", "listing", "go"):
            try:
                os.unlink(args.gate + "/" + f)
            except OSError:
                pass
    all_pods = pods()[0]
    if CACHE.get("list") is None:
        CACHE["list"] = pb.ListPodResourcesResponse(pod_resources=all_pods).SerializeToString()
    return CACHE["list"]


def do_get(req, ctx):
    # server_v1.go Get: fmt.Errorf(...), not status.Error: code 2 (UNKNOWN), never NOT_FOUND
    if MODE in ("1.27-1.33", "1.34-getoff"):
        ctx.abort(grpc.StatusCode.UNKNOWN, "PodResources API Get method disabled")
    p = pods()[1].get((req.pod_namespace, req.pod_name))
    if p is not None:
        return pb.GetPodResourcesResponse(pod_resources=p)
    # the pod is unknown to kubelet's pod manager
    ctx.abort(grpc.StatusCode.UNKNOWN, "pod %s in namespace %s not found" %
              (req.pod_name, req.pod_namespace))


if MODE == "badproto":
    ser = lambda m: b"\xff\xff\xff\xff garbage, not protobuf"  # noqa: E731
else:
    ser = lambda m: m.SerializeToString()  # noqa: E731
methods = {"List": grpc.unary_unary_rpc_method_handler(
    do_list, request_deserializer=pb.ListPodResourcesRequest.FromString,
    response_serializer=ser if MODE == "badproto" else (lambda b: b))}
if MODE != "1.26":
    methods["Get"] = grpc.unary_unary_rpc_method_handler(
        do_get, request_deserializer=pb.GetPodResourcesRequest.FromString,
        response_serializer=ser)
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
    "v1.PodResourcesLister", methods),))
server.add_insecure_port("unix:" + SOCK)
if MODE != "badproto":
    do_list(None, None)  # kubelet holds its state in memory: no file parsing on the first call
server.start()
print("ready", flush=True)
signal.signal(signal.SIGTERM, lambda *_: (server.stop(0), sys.exit(0)))
server.wait_for_termination()
