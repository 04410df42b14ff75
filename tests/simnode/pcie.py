#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# mknode's PCIe tree (LAYOUT.md "PCIe tree and GPUs"): nested bridges, devices
# moved below them with every symlink of the node rewritten, GPUs with
# NVIDIA's /proc files, binary config spaces, IOMMU groups, peer memory.
import argparse
import os
import re
import struct
import sys

BDF = re.compile(r"^[0-9a-f]{4,5}:[0-9a-f]{2}:[01][0-9a-f]\.[0-7]$")
SPEEDS = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe",
          5: "32.0 GT/s PCIe", 6: "64.0 GT/s PCIe"}
PORT_TYPES = {"endpoint": 0, "root": 4, "up": 5, "down": 6}


def die(msg):
    print("mknode: " + msg, file=sys.stderr)
    sys.exit(2)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)
    os.rename(tmp, path)


def devpath(root, rel):
    return os.path.join(root, "sys/devices", rel)


def check_rel(rel):
    parts = rel.strip("/").split("/")
    if not parts[0].startswith("pci") or not all(BDF.match(p) for p in parts[1:]):
        die("%s: expected pciDDDD:BB/BDF/BDF..." % rel)
    return parts


def bus_link(root, rel):
    name = rel.rstrip("/").split("/")[-1]
    link = os.path.join(root, "sys/bus/pci/devices", name)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink("../../../devices/" + rel, link)


def mkdev(root, rel, cls, numa, ids=None):
    d = devpath(root, rel)
    os.makedirs(d, exist_ok=True)
    bus_link(root, rel)
    write(os.path.join(d, "class"), "0x%06x\n" % cls)
    write(os.path.join(d, "numa_node"), "%d\n" % numa)
    v, dv, sv, sd = ids or (0x15b3 if cls >> 16 == 2 else 0x10de if cls >> 16 == 3 else 0x8086,
                            0x1021, 0, 0)
    for f, x in (("vendor", v), ("device", dv), ("subsystem_vendor", sv),
                 ("subsystem_device", sd)):
        write(os.path.join(d, f), "0x%04x\n" % x)
    return d


def bridges(root, rel, numa):
    """Every BDF component of @rel but the last is a bridge: make the ones missing."""
    parts = check_rel(rel)
    for i in range(2, len(parts)):
        sub = "/".join(parts[:i])
        if not os.path.isdir(devpath(root, sub)):
            mkdev(root, sub, 0x060400, numa)
    os.makedirs(devpath(root, parts[0]), exist_ok=True)


def all_links(root):
    out = []
    for dp, dns, fns in os.walk(root):
        for n in dns + fns:
            p = os.path.join(dp, n)
            if os.path.islink(p):
                t = os.path.normpath(os.path.join(dp, os.readlink(p)))
                out.append((p, t))
    return out


def cmd_move(a):
    """Move device @pci (and its VFs) below @under, rewriting every symlink that reaches it."""
    root = a.root
    old = os.path.realpath(os.path.join(root, "sys/bus/pci/devices", a.pci))
    numa = int(open(os.path.join(old, "numa_node")).read().strip() or 0)
    bridges(root, a.under.rstrip("/") + "/" + a.pci, numa)
    newparent = devpath(root, a.under)
    moves = [(old, os.path.join(newparent, a.pci))]
    for n in os.listdir(os.path.dirname(old)):
        s = os.path.join(os.path.dirname(old), n)
        pf = os.path.join(s, "physfn")
        if os.path.islink(pf) and os.path.realpath(pf) == old:
            moves.append((s, os.path.join(newparent, n)))
    links = all_links(root)

    def mapped(p):
        for o, n in moves:
            if p == o or p.startswith(o + "/"):
                return n + p[len(o):]
        return p
    for o, n in moves:
        os.rename(o, n)
    for p, t in links:
        np, nt = mapped(p), mapped(t)
        if (np, nt) == (p, t):
            continue
        os.unlink(np)
        os.symlink(os.path.relpath(nt, os.path.dirname(np)), np)
    for o, n in moves:
        bus_link(root, os.path.relpath(n, os.path.join(root, "sys/devices")))


def config_bytes(cap, sta, ptype, acs, ext):
    b = bytearray(4096 if ext else 256)
    struct.pack_into("<H", b, 0x06, 0x10)
    b[0x34] = 0x40
    b[0x40], b[0x41] = 0x10, 0x00
    struct.pack_into("<H", b, 0x42, ptype << 4 | 2)
    struct.pack_into("<I", b, 0x4C, cap[0] | cap[1] << 4)
    struct.pack_into("<H", b, 0x52, sta[0] | sta[1] << 4)
    if ext:
        # AER at 0x100, then ACS (0x0D) at 0x148 when asked
        struct.pack_into("<I", b, 0x100, 0x0001 | 1 << 16 | (0x148 if acs is not None else 0) << 20)
        if acs is not None:
            struct.pack_into("<I", b, 0x148, 0x000D | 1 << 16)
            struct.pack_into("<H", b, 0x14C, 0x5F)  # ACS Capability: every bit
            struct.pack_into("<H", b, 0x14E, acs)
    return bytes(b)


def gen_width(s):
    m = re.match(r"^gen([1-6])x([0-9]+)$", s)
    if not m:
        die("%s: expected genNxW (gen4x16)" % s)
    return int(m.group(1)), int(m.group(2))


def cmd_config(a):
    d = os.path.realpath(os.path.join(a.root, "sys/bus/pci/devices", a.pci))
    if not os.path.isdir(d):
        die("no device " + a.pci)
    cap = gen_width(a.cap)
    sta = gen_width(a.sta) if a.sta else cap
    acs = int(a.acs, 16) if a.acs is not None else None
    write(os.path.join(d, "config"), config_bytes(cap, sta, PORT_TYPES[a.type], acs, not a.no_ext))
    write(os.path.join(d, "max_link_speed"), SPEEDS[cap[0]] + "\n")
    write(os.path.join(d, "max_link_width"), "%d\n" % cap[1])
    write(os.path.join(d, "current_link_speed"), SPEEDS[sta[0]] + "\n")
    write(os.path.join(d, "current_link_width"), "%d\n" % sta[1])


def cmd_device(a):
    rel = a.under.rstrip("/") + "/" + a.pci
    bridges(a.root, rel, a.numa)
    ids = tuple(int(x, 16) for x in a.ids.split(":")) if a.ids else None
    mkdev(a.root, rel, int(a.cls, 16), a.numa, ids)


NV_INFO = ("Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t %d\nGPU UUID: \t %s\n"
           "Video BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
           "DMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t %d\n"
           "GPU Excluded:\t No\n")


def cmd_gpu(a):
    rel = a.under.rstrip("/") + "/" + a.pci
    bridges(a.root, rel, a.numa)
    if a.vendor == "nvidia":
        mkdev(a.root, rel, 0x030200, a.numa, (0x10de, 0x2330, 0x10de, 0x16c1))
        g = os.path.join(a.root, "proc/driver/nvidia/gpus", a.pci)
        write(os.path.join(g, "information"), NV_INFO % (200 + a.minor, a.uuid, a.pci, a.minor))
        if a.c2c:
            write(os.path.join(g, "numa_status"), "Node: %d\nStatus: online\n" % a.numa)
    else:
        mkdev(a.root, rel, 0x038000, a.numa, (0x1002, 0x74a1, 0x1002, 0x74a1))
        card = os.path.join(a.root, "sys/class/drm/card%d" % a.minor)
        os.makedirs(card, exist_ok=True)
        link = os.path.join(card, "device")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(os.path.relpath(devpath(a.root, rel), card), link)


def cmd_iommu(a):
    d = os.path.realpath(os.path.join(a.root, "sys/bus/pci/devices", a.pci))
    g = os.path.join(a.root, "sys/kernel/iommu_groups", str(a.group))
    write(os.path.join(g, "type"), a.type + "\n")
    link = os.path.join(d, "iommu_group")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.path.relpath(g, d), link)


def cmd_peermem(a):
    r = a.root
    files = {"registered": ["sys/module/nvidia_peermem/version",
                            "sys/kernel/mm/memory_peers/nv_mem/version"],
             "loaded": ["sys/module/nvidia_peermem/version"],
             "amdkfd": ["sys/kernel/mm/memory_peers/amdkfd/version"],
             "none": [], "dmabuf": []}[a.mode]
    for f in files:
        write(os.path.join(r, f), "1.0\n")
    write(os.path.join(r, "proc/sys/kernel/osrelease"), a.kernel + "\n")
    write(os.path.join(r, "proc/driver/nvidia/version"),
          "NVRM version: NVIDIA UNIX %sx86_64 Kernel Module  580.95.05\nGCC version:  gcc 12\n"
          % ("Open Kernel Module for " if a.mode == "dmabuf" else ""))


def main():
    p = argparse.ArgumentParser(prog="mknode --root DIR")
    p.add_argument("--root", required=True)
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("move")
    m.add_argument("pci")
    m.add_argument("--under", required=True)
    c = sub.add_parser("config")
    c.add_argument("pci")
    c.add_argument("--cap", required=True)
    c.add_argument("--sta")
    c.add_argument("--type", choices=list(PORT_TYPES), default="endpoint")
    c.add_argument("--acs")
    c.add_argument("--no-ext", action="store_true")
    d = sub.add_parser("device")
    d.add_argument("pci")
    d.add_argument("--under", required=True)
    d.add_argument("--class", dest="cls", default="060400")
    d.add_argument("--numa", type=int, default=0)
    d.add_argument("--ids")
    g = sub.add_parser("gpu")
    g.add_argument("pci")
    g.add_argument("--under", required=True)
    g.add_argument("--vendor", choices=["nvidia", "amd"], default="nvidia")
    g.add_argument("--uuid", default="")
    g.add_argument("--minor", type=int, default=0)
    g.add_argument("--numa", type=int, default=0)
    g.add_argument("--c2c", action="store_true")
    i = sub.add_parser("iommu")
    i.add_argument("pci")
    i.add_argument("--group", type=int, required=True)
    i.add_argument("--type", required=True)
    pm = sub.add_parser("peermem")
    pm.add_argument("mode", choices=["registered", "loaded", "dmabuf", "amdkfd", "none"])
    pm.add_argument("--kernel", default="6.1.0")
    a = p.parse_args()
    {"move": cmd_move, "config": cmd_config, "device": cmd_device, "gpu": cmd_gpu,
     "iommu": cmd_iommu, "peermem": cmd_peermem}[a.cmd](a)


if __name__ == "__main__":
    main()
