{{/* Names: <release>-<chart> unless overridden, cut to the 63 characters Kubernetes allows. */}}
{{- define "lead-intake.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "lead-intake.fullname" -}}
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

{{/* The name of one role's objects: <fullname>-<role>. Call with (dict "ctx" $ "role" "ingress"). */}}
{{- define "lead-intake.roleName" -}}
{{- printf "%s-%s" (include "lead-intake.fullname" .ctx | trunc 52 | trimSuffix "-") .role }}
{{- end }}

{{- define "lead-intake.selectorLabels" -}}
app.kubernetes.io/name: {{ include "lead-intake.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* part-of is the ServiceMonitor's job label: it makes job="lead-intake", as the alerts expect. */}}
{{- define "lead-intake.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "lead-intake.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: lead-intake
{{- end }}

{{/* Call with (dict "ctx" $ "role" "ingress"). */}}
{{- define "lead-intake.roleSelectorLabels" -}}
{{ include "lead-intake.selectorLabels" .ctx }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{- define "lead-intake.roleLabels" -}}
{{ include "lead-intake.labels" .ctx }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{- define "lead-intake.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "lead-intake.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "lead-intake.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "lead-intake.secretName" -}}
{{- default (include "lead-intake.fullname" .) .Values.secret.existingSecret }}
{{- end }}

{{/* What the setup Job needs, as YAML: also the first entries of the ConfigMap. */}}
{{- define "lead-intake.kafkaEnv" -}}
KAFKA_BROKERS: {{ .Values.kafka.brokers | quote }}
KAFKA_CLIENT_ID: {{ .Values.kafka.clientId | quote }}
TOPIC_PREFIX: {{ .Values.kafka.topicPrefix | quote }}
KAFKA_REPLICATION_FACTOR: {{ .Values.kafka.replicationFactor | quote }}
KAFKA_MIN_INSYNC_REPLICAS: {{ .Values.kafka.minInsyncReplicas | quote }}
SCHEMA_REGISTRY_URL: {{ .Values.schemaRegistry.url | quote }}
LOG_LEVEL: {{ .Values.config.LOG_LEVEL | default "info" | quote }}
{{- end }}
