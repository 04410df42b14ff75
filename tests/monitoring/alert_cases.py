#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The promtool unit tests of deploy/monitoring/prometheusrule.yaml, generated (tests/monitoring/
# rules.sh): one case per alert on synthetic series (and more where an alert has several
# paths), in which that alert fires with the expected labels and every other alert of the
# file stays quiet; one healthy node on which nothing fires; the SR-IOV exporter join.
#   alert_cases.py RULES_FILE ALERT... > tests.yaml
# Exit 1 when an alert of the rules has no firing case here.
import json
import re
import sys

import yaml

rules_file = sys.argv[1]
RULES = {r["alert"]: r for g in yaml.safe_load(open(rules_file))["groups"] for r in g["rules"]
         if "alert" in r}
alerts = list(RULES)


def render(text, labels, where):
    """The annotation templates' subset the rules use: {{ $labels.x }}, {{ if [not] $labels.x }}
    ... {{ end }}. A label the alert does not have is an error (an annotation that would read
    "on  is not passing"), unless guarded by an if."""
    def cond(m):
        have = bool(labels.get(m.group(2)))
        return m.group(3) if have != bool(m.group(1)) else ""
    text = re.sub(r"\{\{ if (not )?\$labels\.(\w+) \}\}(.*?)\{\{ end \}\}", cond, text)

    def lab(m):
        if m.group(1) not in labels:
            sys.exit(f"alert_cases.py: {where}: annotation uses $labels.{m.group(1)}, "
                     "which the alert does not have")
        return labels[m.group(1)]
    text = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lab, text)
    if "{{" in text:
        sys.exit(f"alert_cases.py: {where}: template not understood: {text}")
    return text
A = {"job": "rdma-qos-agent", "node": "n1", "namespace": "rdma-qos", "pod": "rdma-qos-x1"}
POD0 = {"job": "rdma-qos-agent", "node": "n1", "namespace": "ai", "pod": "trainer-0"}
POD = {"job": "rdma-qos-agent", "node": "n1", "namespace": "ai", "pod": "trainer-0",
       "interface": "net1", "vf": "0000:3b:00.2", "rdma_dev": "mlx5_2", "pf": "ens1f0"}
T = 30  # minutes of input
VERDICT = {k: POD[k] for k in ("job", "node", "namespace", "pod", "interface", "vf", "pf")}
# A shared attachment (DESIGN.md "Shared RDMA devices"): a macvlan on the PF, no VF. The agent
# exports vf="" and the shared rdma_dev; Prometheus keeps no empty label, so the alerts carry no vf.
SHARED = {"job": "rdma-qos-agent", "node": "n1", "namespace": "ai", "pod": "shared-0",
          "interface": "net1", "vf": "", "rdma_dev": "mlx5_0", "pf": "ens1f0"}
SVERDICT = {k: SHARED[k] for k in ("job", "node", "namespace", "pod", "interface", "vf", "pf")}


def novf(labels, *drop):
    """The labels an alert has: no empty vf, nor the keys @drop."""
    return {k: v for k, v in labels.items() if not (k == "vf" and v == "") and k not in drop}


def sel(name, labels):
    return name + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


def healthy(skip=()):
    """A node in order: every family the rules read, at healthy values."""
    s = {
        sel("up", {k: A[k] for k in ("job", "node", "namespace", "pod")}): f"1x{T}",
        sel("rdma_qos_last_pass_timestamp_seconds", A): f"0+60x{T}",
        sel("rdma_qos_pass_interval_seconds", A): f"60x{T}",
        sel("rdma_qos_catalog_valid", A): f"1x{T}",
        sel("rdma_qos_drift", {**A, "pf": "ens1f0", "item": "pfc"}): f"0x{T}",
        sel("rdma_qos_pf_in_profile", {**A, "pf": "ens1f0"}): f"1x{T}",
        sel("rdma_qos_repair_suspended", {**A, "pf": "ens1f0", "item": "pfc"}): f"0x{T}",
        sel("rdma_qos_numa_misaligned", {**POD}): None,  # present only when misaligned
        sel("rdma_qos_port_pause_storm", {**A, "pf": "ens1f0"}): f"0x{T}",
        sel("rdma_qos_port_pause_storm_events_total", {**A, "pf": "ens1f0", "level": "error"}):
            f"7x{T}",
        sel("rdma_qos_port_discards_on_pfc_prio", {**A, "pf": "ens1f0", "prio": "3"}): f"0x{T}",
        sel("rdma_qos_port_host_drops_on_pfc_prio", {**A, "pf": "ens1f0", "prio": "3"}): f"0x{T}",
        sel("rdma_qos_port_roce_on_lossy_prio", {**A, "pf": "ens1f0", "prio": "0"}): f"0x{T}",
        sel("rdma_qos_port_ecn_ineffective", {**A, "pf": "ens1f0", "prio": "3"}): f"0x{T}",
        # the switch heard, agreeing on PFC
        sel("rdma_qos_peer_seen", {**A, "pf": "ens1f0"}): f"1x{T}",
        sel("rdma_qos_peer_agreement", {**A, "pf": "ens1f0", "item": "pfc"}): f"1x{T}",
        sel("rdma_qos_peer_partners", {**A, "pf": "ens1f0"}): f"1x{T}",
        # cabled as node.wiring plans it
        sel("rdma_qos_peer_wiring", {**A, "pf": "ens1f0", "rail": "r1"}): f"1x{T}",
        # DCQCN at work: 100 CNPs/s each way
        sel("rdma_qos_vf_cnp_handled_total", POD): f"0+6000x{T}",
        sel("rdma_qos_vf_cnp_sent_total", POD): f"0+6000x{T}",
        # the QP census: every QP of the lossless pod on a PFC priority
        sel("rdma_qos_vf_qps_off_lossless", {**A, **POD}): f"0x{T}",
        # a few uncorrectable FEC blocks long ago, under the default floor of 1 a minute
        sel("rdma_qos_port_fec_blocks_total", {**A, "pf": "ens1f0", "kind": "uncorrectable"}):
            f"3x{T}",
        sel("rdma_qos_port_fec_uncorrectable_limit_per_minute", {**A, "pf": "ens1f0"}): f"1x{T}",
        # the pod's verdict: lossless, no check failing (no problem series)
        sel("rdma_qos_attachment_lossless", VERDICT): f"1x{T}",
    }
    return {k: v for k, v in s.items() if v is not None and k.split("{")[0] not in skip}


def case(name, alert, series, at, labels, quiet_before=None, drop=()):
    """@series replace the healthy node's (by exact selector) or add to it."""
    s = healthy(drop)
    s.update(series)
    return {"name": name, "alert": alert, "series": s, "at": at, "labels": labels,
            "quiet_before": quiet_before}


def flaps(minutes):
    """A PF whose link dropped at @minutes: rdma_qos_port_link_flaps_total counts them and the
    attachment's link problem holds for the one interval of each drop (DESIGN.md link health)."""
    count = [sum(1 for f in minutes if f <= m) for m in range(T + 1)]
    # the agent drops the series when the problem clears: a staleness marker, not a gap
    prob = ["1" if m in minutes else "stale" if m - 1 in minutes else "_" for m in range(T + 1)]
    return {sel("rdma_qos_port_link_flaps_total", {**A, "pf": "ens1f0"}): " ".join(map(str, count)),
            sel("rdma_qos_attachment_problem", {**POD, "check": "link"}): " ".join(prob)}


FLAPPY = flaps(range(2, T + 1, 4))


def fec(minutes, blocks, limit):
    """A PF that lost @blocks uncorrectable FEC blocks at each of @minutes, above the agent's
    floor (@limit a minute, rdma_qos_port_fec_uncorrectable_limit_per_minute): the link problem
    holds for the one interval of each burst (DESIGN.md link health)."""
    count = [3 + blocks * sum(1 for f in minutes if f <= m) for m in range(T + 1)]
    prob = ["1" if m in minutes else "stale" if m - 1 in minutes else "_" for m in range(T + 1)]
    return {sel("rdma_qos_port_fec_blocks_total", {**A, "pf": "ens1f0", "kind": "uncorrectable"}):
            " ".join(map(str, count)),
            sel("rdma_qos_port_fec_uncorrectable_limit_per_minute", {**A, "pf": "ens1f0"}):
            f"{limit}x{T}",
            sel("rdma_qos_attachment_problem", {**POD, "check": "link"}): " ".join(prob)}


AL = {"node": "n1", "namespace": "rdma-qos", "pod": "rdma-qos-x1", "job": "rdma-qos-agent"}
cases = [
    case("passes stopped 5 min ago", "RdmaQosAgentNotPassing",
         {sel("rdma_qos_last_pass_timestamp_seconds", A): f"0+60x5 300x{T - 5}"}, "16m",
         [{**AL, "severity": "critical"}], quiet_before="12m"),
    case("the agent's target is down", "RdmaQosAgentNotPassing",
         {sel("up", {k: A[k] for k in ("job", "node", "namespace", "pod")}): f"1x5 0x{T - 5}"},
         "12m", [{"job": "rdma-qos-agent", "node": "n1", "namespace": "rdma-qos",
                  "pod": "rdma-qos-x1", "severity": "critical"}], quiet_before="9m"),
    case("no agent reports at all", "RdmaQosAgentNotPassing", {}, "6m",
         [{"severity": "critical"}], quiet_before="4m",
         drop=("rdma_qos_last_pass_timestamp_seconds", "rdma_qos_pass_interval_seconds", "up")),
    case("catalog source invalid", "RdmaQosCatalogInvalid",
         {sel("rdma_qos_catalog_valid", A): f"1x2 0x{T - 2}"}, "8m",
         [{**AL, "severity": "warning"}], quiet_before="6m"),
    case("PFC drifted and stays", "RdmaQosDriftNotRepaired",
         {sel("rdma_qos_drift", {**A, "pf": "ens1f0", "item": "pfc"}): f"0x2 1x{T - 2}",
          sel("rdma_qos_pf_in_profile", {**A, "pf": "ens1f0"}): f"1x2 1x{T - 2}"}, "13m",
         [{**AL, "pf": "ens1f0", "item": "pfc", "severity": "warning"}], quiet_before="11m"),
    case("PF not in profile", "RdmaQosPfNotInProfile",
         {sel("rdma_qos_pf_in_profile", {**A, "pf": "ens1f0"}): f"1x2 0x{T - 2}"}, "13m",
         [{**AL, "pf": "ens1f0", "severity": "critical"}], quiet_before="11m"),
    case("repair suspended", "RdmaQosRepairSuspended",
         {sel("rdma_qos_repair_suspended", {**A, "pf": "ens1f0", "item": "pfc"}): f"0x2 1x{T - 2}"},
         "3m", [{**AL, "pf": "ens1f0", "item": "pfc", "severity": "warning"}], quiet_before="1m"),
    case("VF on the other socket", "RdmaQosNumaMisaligned",
         {sel("rdma_qos_numa_misaligned", {"job": "rdma-qos-agent", "node": "n1", "namespace": "ai",
                                            "pod": "trainer-0", "vf": "0000:3b:00.2"}): f"1x{T}"},
         "16m", [{"job": "rdma-qos-agent", "node": "n1", "namespace": "ai", "pod": "trainer-0",
                  "vf": "0000:3b:00.2", "severity": "info"}], quiet_before="14m"),
    case("VF far from its pod's GPUs", "RdmaQosGdrFar",
         {sel("rdma_qos_gdr_far", {**POD0, "vf": "0000:c1:00.2"}): f"1x{T}"},
         "16m", [{**POD0, "vf": "0000:c1:00.2", "severity": "warning"}], quiet_before="14m"),
    case("ACS redirect below the GPU's switch", "RdmaQosGdrDegraded",
         {sel("rdma_qos_gdr_degraded", {**POD0, "vf": "0000:19:00.3", "reason": "acs_redirect"}):
          f"1x{T}"},
         "16m", [{**POD0, "vf": "0000:19:00.3", "reason": "acs_redirect", "severity": "warning"}],
         quiet_before="14m"),
    case("two rails of a pod on one PF", "RdmaQosPodRailShared",
         {sel("rdma_qos_pod_shared_pf", {**POD0, "pf": "0000:19:00.0"}): f"2x{T}"},
         "16m", [{**POD0, "pf": "0000:19:00.0", "severity": "info"}], quiet_before="14m"),
    case("a VF no rdma-qos chain ran for, its pod named", "RdmaQosVfUnchained",
         {sel("rdma_qos_vf_unchained", {"job": "rdma-qos-agent", "node": "n1", "vf": "0000:3b:00.3",
                                         "pf": "ens1f0", "rdma_dev": "mlx5_4", "namespace": "ai",
                                         "pod": "dra-0"}): f"1x{T}"},
         "11m", [{"job": "rdma-qos-agent", "node": "n1", "vf": "0000:3b:00.3", "pf": "ens1f0",
                  "rdma_dev": "mlx5_4", "namespace": "ai", "pod": "dra-0", "severity": "info"}],
         quiet_before="9m"),
    case("a VF no rdma-qos chain ran for, its pod unknown", "RdmaQosVfUnchained",
         {sel("rdma_qos_vf_unchained", {"job": "rdma-qos-agent", "node": "n1", "vf": "0000:3b:00.4",
                                         "pf": "ens1f0", "rdma_dev": "mlx5_5", "namespace": "",
                                         "pod": ""}): f"1x{T}"},
         "11m", [{"job": "rdma-qos-agent", "node": "n1", "vf": "0000:3b:00.4", "pf": "ens1f0",
                  "rdma_dev": "mlx5_5", "severity": "info"}], quiet_before="9m"),
    case("port paused most of the time", "RdmaQosPauseStorm",
         {sel("rdma_qos_port_pause_storm", {**A, "pf": "ens1f0"}): f"0x2 1x{T - 2}"}, "5m",
         [{"node": "n1", "pf": "ens1f0", "severity": "critical"}], quiet_before="3m"),
    case("the driver reports storm events", "RdmaQosPauseStorm",
         {sel("rdma_qos_port_pause_storm_events_total", {**A, "pf": "ens1f0", "level": "error"}):
          f"7x10 8+1x{T - 10}"}, "14m",
         [{"node": "n1", "pf": "ens1f0", "severity": "critical"}], quiet_before="11m"),
    case("discards on a PFC priority", "RdmaQosDiscardsDespitePfc",
         {sel("rdma_qos_port_discards_on_pfc_prio", {**A, "pf": "ens1f0", "prio": "3"}):
          f"0x5 1 0x{T - 6}"}, "8m",
         [{"node": "n1", "pf": "ens1f0", "prio": "3", "severity": "warning"}], quiet_before="5m"),
    case("host drops on a PFC priority's traffic class", "RdmaQosHostDropsOnPfcPriority",
         {sel("rdma_qos_port_host_drops_on_pfc_prio", {**A, "pf": "ens1f0", "prio": "3"}):
          f"0x5 1 0x{T - 6}"}, "8m",
         [{"node": "n1", "pf": "ens1f0", "prio": "3", "severity": "warning"}], quiet_before="5m"),
    case("RoCE on priority 0 without PFC", "RdmaQosRoceOnLossyPriority",
         {sel("rdma_qos_port_roce_on_lossy_prio", {**A, "pf": "ens1f0", "prio": "0"}):
          f"0x2 1x{T - 2}"}, "9m",
         [{"node": "n1", "pf": "ens1f0", "prio": "0", "severity": "warning"}], quiet_before="6m"),
    case("the switch pauses priority 3 and ECN never marks", "RdmaQosEcnIneffective",
         {sel("rdma_qos_port_ecn_ineffective", {**A, "pf": "ens1f0", "prio": "3"}):
          f"0x2 1x{T - 2}"}, "13m",
         [{"node": "n1", "pf": "ens1f0", "prio": "3", "severity": "warning"}], quiet_before="11m"),
    case("the switch has PFC on 4, not 3", "RdmaQosPeerDisagrees",
         {sel("rdma_qos_peer_agreement", {**A, "pf": "ens1f0", "item": "pfc"}): f"1x2 0x{T - 2}"},
         "18m", [{**AL, "pf": "ens1f0", "item": "pfc", "severity": "warning"}],
         quiet_before="16m"),
    case("the switch maps DSCP 26 elsewhere", "RdmaQosPeerDisagrees",
         {sel("rdma_qos_peer_agreement", {**A, "pf": "ens1f0", "item": "dscp2prio"}):
          f"0x{T}"}, "16m", [{**AL, "pf": "ens1f0", "item": "dscp2prio", "severity": "warning"}],
         quiet_before="14m"),
    case("the switch of a PF in profile went silent", "RdmaQosPeerSilent",
         {sel("rdma_qos_peer_seen", {**A, "pf": "ens1f0"}): f"1x2 0x{T - 2}"}, "18m",
         [{**AL, "pf": "ens1f0", "severity": "info"}], quiet_before="16m",
         drop=("rdma_qos_peer_agreement",)),
    case("a pod's VF speaks LLDP on the PF beside the switch", "RdmaQosPeerMultiplePartners",
         {sel("rdma_qos_peer_partners", {**A, "pf": "ens1f0"}): f"1x2 2x{T - 2}"}, "18m",
         [{**AL, "pf": "ens1f0", "severity": "info"}], quiet_before="16m",
         drop=("rdma_qos_peer_agreement",)),
    case("a pod of a Job on a flapping PF", "RdmaQosLinkDegraded",
         {sel("rdma_qos_attachment_problem", {**POD, "check": "link"}): f"_x2 1x{T - 2}",
          sel("kube_pod_owner", {"job": "kube-state-metrics", "namespace": "ai",
                                 "pod": "trainer-0", "owner_kind": "Job",
                                 "owner_name": "llm-7b", "owner_is_controller": "true"}):
              f"1x{T}"}, "12m",
         [{**POD, "check": "link", "owner_kind": "Job", "owner_name": "llm-7b",
           "severity": "warning"}], quiet_before="6m"),
    case("a bare pod (no owner) on a PF below its speed", "RdmaQosLinkDegraded",
         {sel("rdma_qos_attachment_problem", {**POD, "check": "link"}): f"_x2 1x{T - 2}"},
         "12m", [{**POD, "check": "link", "owner_kind": "Pod", "owner_name": "trainer-0",
                  "severity": "warning"}], quiet_before="6m"),
    case("a marginal optic on a Job's PF flaps every 4 minutes", "RdmaQosLinkDegraded",
         {**FLAPPY, sel("kube_pod_owner", {"job": "kube-state-metrics", "namespace": "ai",
                                           "pod": "trainer-0", "owner_kind": "Job",
                                           "owner_name": "llm-7b", "owner_is_controller": "true"}):
              f"1x{T}"}, "16m",
         [{**POD, "check": "link", "owner_kind": "Job", "owner_name": "llm-7b",
           "severity": "warning"}], quiet_before="5m"),
    case("a Job's PF loses 4 uncorrectable FEC blocks every 3 minutes (floor 0.5 a minute)",
         "RdmaQosLinkDegraded",
         {**fec(range(2, T + 1, 3), 4, 0.5),
          sel("kube_pod_owner", {"job": "kube-state-metrics", "namespace": "ai",
                                 "pod": "trainer-0", "owner_kind": "Job",
                                 "owner_name": "llm-7b", "owner_is_controller": "true"}):
              f"1x{T}"}, "16m",
         [{**POD, "check": "link", "owner_kind": "Job", "owner_name": "llm-7b",
           "severity": "warning"}], quiet_before="5m"),
    case("the PF reaches another rail's leaf", "RdmaQosMiswired",
         {sel("rdma_qos_peer_wiring", {**A, "pf": "ens1f0", "rail": "r1"}): f"1x2 0x{T - 2}"},
         "13m", [{**AL, "pf": "ens1f0", "rail": "r1", "severity": "warning"}],
         quiet_before="11m"),
    case("NCCL in a lossless pod left 2 QPs at class 0", "RdmaQosLosslessPodOnLossyClass",
         {sel("rdma_qos_vf_qps_off_lossless", {**A, **POD}): f"0x2 2x{T - 2}"}, "9m",
         [{"node": "n1", "namespace": "ai", "pod": "trainer-0", "interface": "net1",
           "rdma_dev": "mlx5_2", "pf": "ens1f0", "severity": "warning"}], quiet_before="6m"),
    case("the PF under a lossless pod lost PFC", "RdmaQosPodNotLossless",
         {sel("rdma_qos_attachment_lossless", VERDICT): f"1x2 0x{T - 2}",
          sel("rdma_qos_attachment_problem", {**VERDICT, "check": "pf_profile"}): f"_x2 1x{T - 2}"},
         "8m", [{**{k: v for k, v in VERDICT.items() if k != "job"}, "check": "pf_profile",
                 "severity": "warning"}], quiet_before="6m"),
    case("the switch under a lossless pod disagrees, NUMA off too", "RdmaQosPodNotLossless",
         {sel("rdma_qos_attachment_lossless", VERDICT): f"0x{T}",
          sel("rdma_qos_attachment_problem", {**VERDICT, "check": "peer"}): f"1x{T}",
          sel("rdma_qos_attachment_problem", {**VERDICT, "check": "numa"}): f"1x{T}"},
         "8m", [{**{k: v for k, v in VERDICT.items() if k != "job"}, "check": "peer",
                 "severity": "warning"}], quiet_before="4m"),
    # the same alerts for a pod on a shared RDMA device (vf=""): no series dropped, no "VF " in text
    case("the shared device under a lossless macvlan pod lost its class", "RdmaQosPodNotLossless",
         {sel("rdma_qos_attachment_lossless", SVERDICT): f"1x2 0x{T - 2}",
          sel("rdma_qos_attachment_problem", {**SVERDICT, "check": "vf_class"}): f"_x2 1x{T - 2}"},
         "8m", [{**novf(SVERDICT, "job"), "check": "vf_class", "severity": "warning"}],
         quiet_before="6m"),
    case("NCCL in a lossless macvlan pod left 2 QPs at class 0", "RdmaQosLosslessPodOnLossyClass",
         {sel("rdma_qos_vf_qps_off_lossless", {**A, **SHARED}): f"0x2 2x{T - 2}"}, "9m",
         [{"node": "n1", "namespace": "ai", "pod": "shared-0", "interface": "net1",
           "rdma_dev": "mlx5_0", "pf": "ens1f0", "severity": "warning"}], quiet_before="6m"),
    case("a macvlan pod's shared device on the other socket", "RdmaQosNumaMisaligned",
         {sel("rdma_qos_numa_misaligned", {"job": "rdma-qos-agent", "node": "n1", "namespace": "ai",
                                            "pod": "shared-0", "vf": ""}): f"1x{T}"},
         "16m", [{"job": "rdma-qos-agent", "node": "n1", "namespace": "ai", "pod": "shared-0",
                  "severity": "info"}], quiet_before="14m"),
    case("a macvlan pod's shared device far from its GPUs", "RdmaQosGdrFar",
         {sel("rdma_qos_gdr_far", {**POD0, "pod": "shared-0", "vf": ""}): f"1x{T}"},
         "16m", [{**POD0, "pod": "shared-0", "severity": "warning"}], quiet_before="14m"),
    case("ACS redirect under a macvlan pod's shared device", "RdmaQosGdrDegraded",
         {sel("rdma_qos_gdr_degraded", {**POD0, "pod": "shared-0", "vf": "", "reason": "acs_redirect"}):
          f"1x{T}"},
         "16m", [{**POD0, "pod": "shared-0", "reason": "acs_redirect", "severity": "warning"}],
         quiet_before="14m"),
    case("a macvlan pod of a Job on a degraded PF", "RdmaQosLinkDegraded",
         {sel("rdma_qos_attachment_problem", {**SVERDICT, "check": "link"}): f"_x2 1x{T - 2}",
          sel("kube_pod_owner", {"job": "kube-state-metrics", "namespace": "ai",
                                 "pod": "shared-0", "owner_kind": "Job",
                                 "owner_name": "llm-7b", "owner_is_controller": "true"}):
              f"1x{T}"}, "12m",
         [{**novf(SVERDICT), "check": "link", "owner_kind": "Job", "owner_name": "llm-7b",
           "severity": "warning"}], quiet_before="6m"),
    case("a pod is told to slow down 10000 times a second", "RdmaQosCnpStorm",
         {sel("rdma_qos_vf_cnp_handled_total", POD): f"0+600000x{T}"}, "16m",
         [{"node": "n1", "namespace": "ai", "pod": "trainer-0", "pf": "ens1f0", "cnp": "handled",
           "severity": "warning"}], quiet_before="9m"),
    case("a pod asks its senders to slow down 10000 times a second", "RdmaQosCnpStorm",
         {sel("rdma_qos_vf_cnp_sent_total", POD): f"0+600000x{T}"}, "16m",
         [{"node": "n1", "namespace": "ai", "pod": "trainer-0", "pf": "ens1f0", "cnp": "sent",
           "severity": "warning"}], quiet_before="9m"),
]

missing = sorted(set(alerts) - {c["alert"] for c in cases})
unknown = sorted({c["alert"] for c in cases} - set(alerts))
if missing or unknown:
    print(f"alert_cases.py: no case for {missing}; cases for alerts not in the rules: {unknown}",
          file=sys.stderr)
    sys.exit(1)


def group(name, series, checks, promql=()):
    return {"name": name, "interval": "1m",
            "input_series": [{"series": k, "values": v} for k, v in series.items()],
            "alert_rule_test": checks, "promql_expr_test": list(promql)}


tests = []
for c in cases:
    checks = [{"eval_time": c["at"], "alertname": c["alert"],
               "exp_alerts": [{"exp_labels": lab, "exp_annotations": {
                   k: render(v, lab, f'{c["alert"]}: {c["name"]}')
                   for k, v in RULES[c["alert"]]["annotations"].items()}}
                   for lab in c["labels"]]}]
    if c["quiet_before"]:
        checks.append({"eval_time": c["quiet_before"], "alertname": c["alert"], "exp_alerts": []})
    checks += [{"eval_time": c["at"], "alertname": a, "exp_alerts": []}
               for a in alerts if a != c["alert"]]
    tests.append(group(f'{c["alert"]}: {c["name"]}', c["series"], checks))

# a healthy node: nothing fires at any time
tests.append(group("a healthy node", healthy(),
                   [{"eval_time": f"{m}m", "alertname": a, "exp_alerts": []}
                    for m in (5, 15, 29) for a in alerts]))

# a node with a healthy macvlan pod beside the VF pod (vf="", lossless, its QPs on the class):
# nothing fires
shared_ok = healthy()
shared_ok[sel("rdma_qos_attachment_lossless", SVERDICT)] = f"1x{T}"
shared_ok[sel("rdma_qos_vf_qps_off_lossless", {**A, **SHARED})] = f"0x{T}"
tests.append(group("a healthy node with a pod on the shared RDMA device", shared_ok,
                   [{"eval_time": f"{m}m", "alertname": a, "exp_alerts": []}
                    for m in (5, 15, 29) for a in alerts]))

# a lossless pod whose VF is on the other socket: rdma_qos_attachment_problem{check="numa"} with
# lossless 1 pages nobody as "not lossless"
numa_only = healthy()
numa_only[sel("rdma_qos_attachment_problem", {**VERDICT, "check": "numa"})] = f"1x{T}"
tests.append(group("a lossless pod with a NUMA problem only: not RdmaQosPodNotLossless", numa_only,
                   [{"eval_time": f"{m}m", "alertname": "RdmaQosPodNotLossless", "exp_alerts": []}
                    for m in (5, 15, 29)]))

# one flap is not a degraded link: a single carrier drop (the problem holds one interval, the
# counter moves by one) raises nothing, then or later
one_flap = healthy()
one_flap.update(flaps([3]))
tests.append(group("a single link flap: not RdmaQosLinkDegraded", one_flap,
                   [{"eval_time": f"{m}m", "alertname": a, "exp_alerts": []}
                    for m in (4, 8, 12, 17, 25) for a in alerts]))

# one burst of uncorrectable FEC blocks above the floor is not a degraded link either: the
# problem holds one interval, 15 minutes of the floor (15 blocks) are not exceeded
one_burst = healthy()
one_burst.update(fec([3], 4, 1))
tests.append(group("one FEC burst within 15 minutes of the floor: not RdmaQosLinkDegraded",
                   one_burst, [{"eval_time": f"{m}m", "alertname": a, "exp_alerts": []}
                               for m in (4, 8, 12, 17, 25) for a in alerts]))

# "unknown" is never a disagreement: a switch that advertises no DCB TLV (no agreement series),
# and a silent partner on a PF nobody requires anything of, raise nothing
quiet = healthy(skip=("rdma_qos_peer_agreement",))
quiet[sel("rdma_qos_peer_seen", {**A, "pf": "ens1f1"})] = f"0x{T}"
tests.append(group("partners unknown: no TLV advertised, silent on a PF without requirements", quiet,
                   [{"eval_time": f"{m}m", "alertname": a, "exp_alerts": []}
                    for m in (5, 15, 29) for a in alerts]))

# The SR-IOV metrics exporter's series (its labels: numa_node, pciAddr, pf, vf = the VF index;
# node from its ServiceMonitor) joined to the pod rdma-qos reports on the same node and PCI
# address; the same address on another node and a VF of no pod stay out.
EXP = {"job": "sriov-metrics-exporter", "namespace": "monitoring", "pod": "sriov-exp-1",
       "numa_node": "0", "pf": "ens1f0"}
join_series = {
    sel("sriov_vf_rx_bytes", {**EXP, "node": "n1", "pciAddr": "0000:3b:00.2", "vf": "0"}):
        f"0+6000x{T}",
    sel("sriov_vf_tx_bytes", {**EXP, "node": "n1", "pciAddr": "0000:3b:00.2", "vf": "0"}):
        f"0+1200x{T}",
    sel("sriov_vf_rx_bytes", {**EXP, "node": "n1", "pciAddr": "0000:3b:00.3", "vf": "1"}):
        f"0+60x{T}",
    sel("sriov_vf_rx_bytes", {**EXP, "node": "n2", "pciAddr": "0000:3b:00.2", "vf": "0"}):
        f"0+120x{T}",
    sel("rdma_qos_vf_in_pod", {"job": "rdma-qos-agent", "node": "n1", "namespace": "ai",
                               "pod": "trainer-0", "vf": "0000:3b:00.2"}): f"1x{T}",
    # on n2 that address belongs to a pod whose VF left it: no join
    sel("rdma_qos_vf_in_pod", {"job": "rdma-qos-agent", "node": "n2", "namespace": "ai",
                               "pod": "gone-0", "vf": "0000:3b:00.2"}): f"0x{T}",
}
J = {"job": "sriov-metrics-exporter", "numa_node": "0", "pf": "ens1f0", "node": "n1",
     "pciAddr": "0000:3b:00.2", "vf": "0", "namespace": "ai", "pod": "trainer-0"}
tests.append(group("SR-IOV exporter join on (node, pciAddr)", join_series, [], [
    {"expr": "rdma_qos:sriov_vf_rx_bytes:by_pod", "eval_time": "10m",
     "exp_samples": [{"labels": sel("rdma_qos:sriov_vf_rx_bytes:by_pod", J), "value": 60000}]},
    {"expr": "rdma_qos:sriov_vf_tx_bytes:by_pod", "eval_time": "10m",
     "exp_samples": [{"labels": sel("rdma_qos:sriov_vf_tx_bytes:by_pod", J), "value": 12000}]},
    {"expr": 'sum by (namespace, pod) (rate(rdma_qos:sriov_vf_rx_bytes:by_pod[5m]))',
     "eval_time": "10m",
     "exp_samples": [{"labels": '{namespace="ai",pod="trainer-0"}', "value": 100}]},
]))

# The fabric view: three nodes, two leaf switches. n1 and n2's ens1f0 are cabled to leaf-01
# (ports swp1, swp2), n3's to leaf-02; n3's ens1f1 has no partner heard and stays out.
def agent(node, **kw):
    return {"job": "rdma-qos-agent", "node": node, "namespace": "rdma-qos",
            "pod": "rdma-qos-" + node, **kw}


def info(node, pf, leaf, port):
    return sel("rdma_qos_peer_info", agent(node, pf=pf, chassis_id="0c:42:a1:00:00:0" + leaf[-1],
                                           port_id=port, system_name=leaf,
                                           port_description="to " + node))


def vf(node, pf, pod):
    return {"job": "rdma-qos-agent", "node": node, "namespace": "ai", "pod": pod,
            "interface": "net1", "vf": "0000:3b:00.2", "rdma_dev": "mlx5_2", "pf": pf}


def verdict(node, pf, pod):
    """rdma_qos_attachment_lossless's labels: {namespace,pod,interface,vf,pf} (no rdma_dev)."""
    return {k: v for k, v in vf(node, pf, pod).items() if k != "rdma_dev"}


fleet = {
    info("n1", "ens1f0", "leaf-01", "swp1"): f"1x{T}",
    info("n2", "ens1f0", "leaf-01", "swp2"): f"1x{T}",
    info("n3", "ens1f0", "leaf-02", "swp1"): f"1x{T}",
    # rail r1 plans every ens1f0 on leaf-01: n3's reaches leaf-02 (miswired), n1's is right,
    # n2's has no rule (no series)
    sel("rdma_qos_peer_wiring", agent("n1", pf="ens1f0", rail="r1")): f"1x{T}",
    sel("rdma_qos_peer_wiring", agent("n3", pf="ens1f0", rail="r1")): f"0x{T}",
    # n1's second PF, rail r2, on leaf-02 as planned: listed nowhere
    info("n1", "ens1f1", "leaf-02", "swp5"): f"1x{T}",
    sel("rdma_qos_peer_wiring", agent("n1", pf="ens1f1", rail="r2")): f"1x{T}",
    # pause frames received per second: n1 6, n2 12, n3 64, n3's unheard PF 600
    sel("rdma_qos_port_pause_frames_total", agent("n1", pf="ens1f0", prio="3", direction="rx")):
        f"0+360x{T}",
    sel("rdma_qos_port_pause_frames_total", agent("n2", pf="ens1f0", prio="3", direction="rx")):
        f"0+720x{T}",
    sel("rdma_qos_port_pause_frames_total", agent("n3", pf="ens1f0", prio="3", direction="rx")):
        f"0+3840x{T}",
    sel("rdma_qos_port_pause_frames_total", agent("n3", pf="ens1f1", prio="3", direction="rx")):
        f"0+36000x{T}",
    sel("rdma_qos_port_prio_discards_total", agent("n2", pf="ens1f0", prio="3", direction="rx")):
        f"0+60x{T}",
    sel("rdma_qos_vf_cnp_handled_total", vf("n1", "ens1f0", "trainer-0")): f"0+600x{T}",
    sel("rdma_qos_vf_cnp_handled_total", vf("n2", "ens1f0", "trainer-1")): f"0+1200x{T}",
    sel("rdma_qos_vf_cnp_handled_total", vf("n3", "ens1f0", "trainer-2")): f"0+60x{T}",
    sel("rdma_qos_vf_bytes_total", {**vf("n1", "ens1f0", "trainer-0"), "direction": "tx"}):
        f"0+6000x{T}",
    sel("rdma_qos_vf_bytes_total", {**vf("n2", "ens1f0", "trainer-1"), "direction": "tx"}):
        f"0+6000x{T}",
    sel("rdma_qos_vf_bytes_total", {**vf("n3", "ens1f1", "lost-0"), "direction": "tx"}):
        f"0+6000x{T}",
    # every attachment's verdict; shared-1 is a macvlan pod on n1's ens1f0 (vf="", no per-pod
    # counters: a shared device's are the device's), trainer-2 a VF pod that sent no bytes
    sel("rdma_qos_attachment_lossless", verdict("n1", "ens1f0", "trainer-0")): f"1x{T}",
    sel("rdma_qos_attachment_lossless", verdict("n2", "ens1f0", "trainer-1")): f"1x{T}",
    sel("rdma_qos_attachment_lossless", verdict("n3", "ens1f0", "trainer-2")): f"1x{T}",
    sel("rdma_qos_attachment_lossless", verdict("n3", "ens1f1", "lost-0")): f"1x{T}",
    sel("rdma_qos_attachment_lossless", {**verdict("n1", "ens1f0", "shared-1"), "vf": ""}): f"1x{T}",
}
L1 = {"chassis_id": "0c:42:a1:00:00:01", "system_name": "leaf-01"}
L2 = {"chassis_id": "0c:42:a1:00:00:02", "system_name": "leaf-02"}
tests.append(group("fabric view: three nodes, two leaf switches", fleet, [], [
    {"expr": "rdma_qos:peer_miswired:by_switch_port", "eval_time": "10m",
     "exp_samples": [{"labels": sel("rdma_qos:peer_miswired:by_switch_port",
                                    {**L2, "port_id": "swp1", "node": "n3", "pf": "ens1f0",
                                     "rail": "r1"}), "value": 1}]},
    {"expr": "rdma_qos:peer_miswired_ports:by_switch", "eval_time": "10m",
     "exp_samples": [{"labels": sel("rdma_qos:peer_miswired_ports:by_switch", L2), "value": 1}]},
    {"expr": "rdma_qos:port_pause_frames_rate5m:by_switch", "eval_time": "10m",
     "exp_samples": [
         {"labels": sel("rdma_qos:port_pause_frames_rate5m:by_switch", {**L1, "direction": "rx"}),
          "value": 18},
         {"labels": sel("rdma_qos:port_pause_frames_rate5m:by_switch", {**L2, "direction": "rx"}),
          "value": 64}]},
    {"expr": 'rdma_qos:port_pause_frames_rate5m:by_switch_port{system_name="leaf-01"}',
     "eval_time": "10m",
     "exp_samples": [
         {"labels": sel("rdma_qos:port_pause_frames_rate5m:by_switch_port",
                        {**L1, "port_id": "swp1", "node": "n1", "pf": "ens1f0", "direction": "rx"}),
          "value": 6},
         {"labels": sel("rdma_qos:port_pause_frames_rate5m:by_switch_port",
                        {**L1, "port_id": "swp2", "node": "n2", "pf": "ens1f0", "direction": "rx"}),
          "value": 12}]},
    {"expr": "rdma_qos:port_prio_discards_rate5m:by_switch", "eval_time": "10m",
     "exp_samples": [{"labels": sel("rdma_qos:port_prio_discards_rate5m:by_switch", L1),
                      "value": 1}]},
    {"expr": "rdma_qos:vf_cnp_handled_rate5m:by_switch", "eval_time": "10m",
     "exp_samples": [{"labels": sel("rdma_qos:vf_cnp_handled_rate5m:by_switch", L1), "value": 30},
                     {"labels": sel("rdma_qos:vf_cnp_handled_rate5m:by_switch", L2), "value": 1}]},
    {"expr": "rdma_qos:vf_pods:by_switch_port", "eval_time": "10m",
     "exp_samples": [
         {"labels": sel("rdma_qos:vf_pods:by_switch_port",
                        {**L1, "port_id": "swp1", "node": "n1", "pf": "ens1f0", "namespace": "ai",
                         "pod": "trainer-0"}), "value": 1},
         {"labels": sel("rdma_qos:vf_pods:by_switch_port",
                        {**L1, "port_id": "swp1", "node": "n1", "pf": "ens1f0", "namespace": "ai",
                         "pod": "shared-1"}), "value": 1},
         {"labels": sel("rdma_qos:vf_pods:by_switch_port",
                        {**L1, "port_id": "swp2", "node": "n2", "pf": "ens1f0", "namespace": "ai",
                         "pod": "trainer-1"}), "value": 1},
         {"labels": sel("rdma_qos:vf_pods:by_switch_port",
                        {**L2, "port_id": "swp1", "node": "n3", "pf": "ens1f0", "namespace": "ai",
                         "pod": "trainer-2"}), "value": 1}]},
]))

# The owner roll-up (kube-state-metrics' kube_pod_owner): two pods of Job train-a sum, a pod of
# StatefulSet db apart, a pod kube-state-metrics reports twice (an HA pair) counted once, a bare
# pod (owner_kind "<none>") and a pod without any kube_pod_owner series each their own owner
# (owner_kind "Pod"), and the same pod name in another namespace kept apart.
def vfp(ns, pod, vf_addr):
    return {"job": "rdma-qos-agent", "node": "n1", "namespace": ns, "pod": pod,
            "interface": "net1", "vf": vf_addr, "rdma_dev": "mlx5_2", "pf": "ens1f0"}


def ksm(ns, pod, kind, name, inst="ksm-0"):
    return sel("kube_pod_owner", {"job": "kube-state-metrics", "instance": inst, "namespace": ns,
                                  "pod": pod, "owner_kind": kind, "owner_name": name,
                                  "owner_is_controller": "true", "uid": ns + "-" + pod})


PODS = [("ai", "train-a-0", "0000:3b:00.2", 600), ("ai", "train-a-1", "0000:3b:00.3", 1200),
        ("ai", "db-0", "0000:3b:00.4", 240), ("ai", "bare", "0000:3b:00.5", 6000),
        ("ai", "lone", "0000:3b:00.6", 3000), ("other", "train-a-0", "0000:3b:00.7", 300)]
owners = {
    ksm("ai", "train-a-0", "Job", "train-a"): f"1x{T}",
    ksm("ai", "train-a-0", "Job", "train-a", inst="ksm-1"): f"1x{T}",
    ksm("ai", "train-a-1", "Job", "train-a"): f"1x{T}",
    ksm("ai", "db-0", "StatefulSet", "db"): f"1x{T}",
    ksm("ai", "bare", "<none>", "<none>"): f"1x{T}",
    ksm("other", "train-a-0", "Job", "train-a"): f"1x{T}",
    # a pod of no VF: no series by owner for it
    ksm("ai", "idle-0", "Job", "idle"): f"1x{T}",
}
for ns, pod, addr, per_min in PODS:
    owners[sel("rdma_qos_vf_cnp_sent_total", vfp(ns, pod, addr))] = f"0+{per_min}x{T}"
    owners[sel("rdma_qos_vf_cnp_handled_total", vfp(ns, pod, addr))] = f"0+{2 * per_min}x{T}"
    owners[sel("rdma_qos_vf_retransmissions_total", {**vfp(ns, pod, addr),
                                                     "counter": "local_ack_timeout_err"})] = \
        f"0+{per_min}x{T}"
    owners[sel("rdma_qos_vf_retransmissions_total", {**vfp(ns, pod, addr),
                                                     "counter": "packet_seq_err"})] = \
        f"0+{per_min}x{T}"
    for d, k in (("rx", 60), ("tx", 120)):
        owners[sel("rdma_qos_vf_bytes_total", {**vfp(ns, pod, addr), "direction": d})] = \
            f"0+{k * per_min}x{T}"


# the port ens1f0 of n1 paused by its host: train-a's two pods 0.5 and 0.25, db's 0.25
for ns, pod, addr, share in (("ai", "train-a-0", "0000:3b:00.2", "0.5"),
                             ("ai", "train-a-1", "0000:3b:00.3", "0.25"),
                             ("ai", "db-0", "0000:3b:00.4", "0.25")):
    owners[sel("rdma_qos_vf_paused_traffic_share", {**vfp(ns, pod, addr), "cause": "host_rx"})] = \
        f"{share}x{T}"
SHARE = "rdma_qos:vf_paused_traffic_share:rate5m_by_owner"
P1 = {"node": "n1", "pf": "ens1f0", "cause": "host_rx", "namespace": "ai"}


def by_owner(family, scale, extra=None):
    """The expected samples of FAMILY: each owner's per-second rate times SCALE."""
    want = [("ai", "Job", "train-a", 30), ("ai", "StatefulSet", "db", 4), ("ai", "Pod", "bare", 100),
            ("ai", "Pod", "lone", 50), ("other", "Job", "train-a", 5)]
    name = f"rdma_qos:{family}:rate5m_by_owner"
    # rounded to a thousandth: rate()'s float arithmetic gives 240.00000000000003
    return {"expr": "round(" + name + (f'{{direction="{extra}"}}' if extra else "") + ", 0.001)",
            "eval_time": "10m",
            "exp_samples": [{"labels": sel("", {"namespace": ns, "owner_kind": k,
                                                  "owner_name": n,
                                                  **({"direction": extra} if extra else {})}),
                             "value": v * scale} for ns, k, n, v in want]}


# the verdict: train-a-1 is not lossless, so Job train-a is 0 across its pods; db 1; bare pods
# their own owners; other/train-a apart from ai/train-a
for ns, pod, addr, ok in (("ai", "train-a-0", "0000:3b:00.2", 1), ("ai", "train-a-1", "0000:3b:00.3", 0),
                          ("ai", "db-0", "0000:3b:00.4", 1), ("ai", "bare", "0000:3b:00.5", 1),
                          ("ai", "lone", "0000:3b:00.6", 0), ("other", "train-a-0", "0000:3b:00.7", 1)):
    owners[sel("rdma_qos_attachment_lossless",
               {k: v for k, v in vfp(ns, pod, addr).items() if k != "rdma_dev"})] = f"{ok}x{T}"
LOSSLESS = "rdma_qos:attachment_lossless:min_by_owner"

tests.append(group("owner roll-up: kube_pod_owner joined to the pod families", owners, [], [
    {"expr": LOSSLESS, "eval_time": "10m", "exp_samples": [
        {"labels": sel(LOSSLESS, {"namespace": ns, "owner_kind": k, "owner_name": n}), "value": v}
        for ns, k, n, v in (("ai", "Job", "train-a", 0), ("ai", "StatefulSet", "db", 1),
                            ("ai", "Pod", "bare", 1), ("ai", "Pod", "lone", 0),
                            ("other", "Job", "train-a", 1))]},
    by_owner("vf_cnp_sent", 1), by_owner("vf_cnp_handled", 2), by_owner("vf_retransmissions", 2),
    by_owner("vf_bytes", 60, "rx"), by_owner("vf_bytes", 120, "tx"),
    {"expr": SHARE, "eval_time": "10m", "exp_samples": [
        {"labels": sel(SHARE, {**P1, "owner_kind": "Job", "owner_name": "train-a"}), "value": 0.75},
        {"labels": sel(SHARE, {**P1, "owner_kind": "StatefulSet", "owner_name": "db"}),
         "value": 0.25}]},
]))

print(json.dumps({"rule_files": [rules_file], "evaluation_interval": "1m", "tests": tests},
                 indent=1))
