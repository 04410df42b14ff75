{{/* SPDX-License-Identifier: Apache-2.0 */}}
{{/* The pod selector (the kustomize base's name label, plus the release: several releases,
    one per node pool, do not select each other's pods) and the labels of every object. */}}
{{- define "rdma-qos.selector" -}}
app.kubernetes.io/name: rdma-qos
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "rdma-qos.labels" -}}
{{ include "rdma-qos.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
