{{/* SPDX-License-Identifier: Apache-2.0 */}}
{{/* The chart's name, and the release's full name: the release name when it contains the
    chart's name, else <release>-<chart> (the convention of `helm create`); 63 characters at
    most, no trailing dash. Namespaced objects are named from it. */}}
{{- define "rdma-qos.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "rdma-qos.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}
{{/* Cluster-scoped objects (ClusterRole, ClusterRoleBinding, SCC): the release's namespace
    in the name too, so two releases of one name in two namespaces do not collide, and no
    name is the kustomize base's (rdma-qos-kube-rbac-proxy, rdma-qos). Argument: a suffix. */}}
{{- define "rdma-qos.clusterName" -}}
{{- printf "%s-%s-%s" .root.Release.Namespace (include "rdma-qos.fullname" .root) .suffix | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "rdma-qos.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}
{{/* The pod selector (the kustomize base's name label, plus the release: several releases,
    one per node pool, do not select each other's pods); immutable, so nothing else. */}}
{{- define "rdma-qos.selector" -}}
app.kubernetes.io/name: {{ include "rdma-qos.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "rdma-qos.labels" -}}
helm.sh/chart: {{ include "rdma-qos.chart" . }}
{{ include "rdma-qos.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: rdma-qos
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
{{- define "rdma-qos.serviceAccountName" -}}
{{- default (include "rdma-qos.fullname" .) .Values.serviceAccount.name }}
{{- end }}
{{- define "rdma-qos.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end }}
{{/* The catalog the nodes get: .Values.catalog (a map, rendered with toJson) with kubeletDir
    as node.kubeletDir, unchained as node.unchained and wiring as node.wiring when set. */}}
{{- define "rdma-qos.catalog" -}}
{{- $cat := deepCopy .Values.catalog }}
{{- if .Values.kubeletDir }}
{{- $node := default dict $cat.node }}
{{- $_ := set $node "kubeletDir" .Values.kubeletDir }}
{{- $_ := set $cat "node" $node }}
{{- end }}
{{- if .Values.unchained }}
{{- $node := default dict $cat.node }}
{{- $_ := set $node "unchained" .Values.unchained }}
{{- $_ := set $cat "node" $node }}
{{- end }}
{{- if .Values.wiring }}
{{- $node := default dict $cat.node }}
{{- $_ := set $node "wiring" .Values.wiring }}
{{- $_ := set $cat "node" $node }}
{{- end }}
{{- if .Values.sharedResources }}
{{- $node := default dict $cat.node }}
{{- $_ := set $node "sharedResources" .Values.sharedResources }}
{{- $_ := set $cat "node" $node }}
{{- end }}
{{- toJson $cat }}
{{- end }}
{{/* kubelet's root dir on the nodes: where the agent finds the PodResources socket */}}
{{- define "rdma-qos.kubeletDir" -}}
{{- default "/var/lib/kubelet" .Values.kubeletDir }}
{{- end }}
{{/* AppArmor: the securityContext field from Kubernetes 1.30 (older API servers drop or refuse
    it), the beta annotation before. */}}
{{- define "rdma-qos.appArmorField" -}}
{{- semverCompare ">=1.30.0-0" .Capabilities.KubeVersion.Version }}
{{- end }}
{{/* The metrics Service's DNS name: the serving certificate's name, the ServiceMonitor's
    serverName. */}}
{{- define "rdma-qos.metricsHost" -}}
{{- printf "%s-agent.%s.svc" (include "rdma-qos.fullname" .) .Release.Namespace }}
{{- end }}
{{- define "rdma-qos.tlsSecret" -}}
{{- default (printf "%s-metrics-tls" (include "rdma-qos.fullname" .)) .Values.metrics.tls.secretName }}
{{- end }}
{{/* kube-rbac-proxy serves a certificate Prometheus can verify: from cert-manager or a Secret
    of your own. */}}
{{- define "rdma-qos.tlsEnabled" -}}
{{- if and .Values.metrics.kubeRbacProxy.enabled (or .Values.metrics.tls.certManager.enabled .Values.metrics.tls.secretName) }}true{{ end }}
{{- end }}
