{{/*
Templates use a small part of Helm's template language (the test renders them without Helm, see
test/helpers/helm-template.ts): if / else if / else, define / include, pipelines, and the functions
default, printf, contains, trunc, trimSuffix, quote, int, eq, ne, gt, and, or, not, toYaml,
toJson, sha256sum, nindent and fail.
*/}}

{{- define "munja.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "munja.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "munja.selectorLabels" -}}
app.kubernetes.io/name: {{ include "munja.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "munja.labels" -}}
{{ include "munja.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "munja.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "munja.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The bundled Redis chart's names: its fullname, then "-master" for the standalone server. */}}
{{- define "munja.redisFullname" -}}
{{- if contains "redis" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-redis" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Whether Munja has a Redis: "true" or "". */}}
{{- define "munja.hasRedis" -}}
{{- if or .Values.redis.enabled .Values.externalRedis.existingSecret -}}true{{- end -}}
{{- end -}}

{{/*
Settings Munja would refuse, or that would lose data, stop the render: without Redis every replica
and worker would keep its own SQLite store.
*/}}
{{- define "munja.validate" -}}
{{- if and .Values.redis.enabled .Values.externalRedis.existingSecret -}}
{{- fail "redis.enabled and externalRedis.existingSecret: choose one Redis" -}}
{{- end -}}
{{- if not (include "munja.hasRedis" .) -}}
{{- if gt (int .Values.replicaCount) 1 -}}
{{- fail "replicaCount > 1 needs Redis (redis.enabled or externalRedis.existingSecret): without it each replica would keep its own SQLite store" -}}
{{- end -}}
{{- if .Values.autoscaling.enabled -}}
{{- fail "autoscaling.enabled needs Redis (redis.enabled or externalRedis.existingSecret): without it Munja runs as one replica" -}}
{{- end -}}
{{- if gt (int .Values.workers) 1 -}}
{{- fail "workers > 1 needs Redis (redis.enabled or externalRedis.existingSecret)" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.tls.enabled (not .Values.tls.secretName) -}}
{{- fail "tls.enabled needs tls.secretName: a kubernetes.io/tls Secret" -}}
{{- end -}}
{{- end -}}
