import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { loadSetupConfig } from '../../src/shared/config';
import { opsTools } from '../support/ops-tools';

// The Helm chart: it lints, renders with its defaults and with every option on, the output passes
// kubeconform -strict against the Kubernetes schemas of the oldest version the chart supports and
// the newest one at hand (plus the Prometheus Operator's CRDs), and the rendered objects do what
// the chart promises.
const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'helm', 'lead-intake');
const KUBERNETES_VERSIONS = ['1.25.0', '1.37.0']; // Chart.yaml's kubeVersion floor, and the newest schemas
const ROLES = ['ingress', 'processor', 'dispatcher'];

const EVERYTHING_ON = {
  secret: { existingSecret: 'lead-intake-prod' },
  ingress: { enabled: true, className: 'nginx', tls: [{ secretName: 'leads-tls', hosts: ['leads.example.com'] }] },
  metrics: {
    serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
    prometheusRule: { enabled: true },
  },
  roles: Object.fromEntries(
    ROLES.map((role) => [
      role,
      {
        autoscaling: { enabled: true },
        podDisruptionBudget: { enabled: true },
        env: { LOG_LEVEL: 'debug' },
      },
    ]),
  ),
};

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any; // shapes differ by kind: each assertion states the fields it expects
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const tools = opsTools();
const tmp = mkdtempSync(join(tmpdir(), 'helm-chart-'));
const valuesFile = join(tmp, 'everything-on.json');
writeFileSync(valuesFile, JSON.stringify(EVERYTHING_ON));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(bin: string, args: string[], input?: string): string {
  try {
    return execFileSync(bin, args, {
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`${bin} ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

const helm = (...args: string[]) => run(tools.HELM_BIN, args);
const render = (...args: string[]) => helm('template', 'leads', CHART, '--namespace', 'leads', ...args);
const objects = (manifest: string) =>
  parseAllDocuments(manifest)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);

const defaults = render();
const everything = render('-f', valuesFile);
const byKind = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind);

describe('helm', () => {
  it.each([
    ['default values', []],
    ['every option on', ['-f', valuesFile]],
  ])('lints the chart clean with %s', (_name, args) => {
    expect(helm('lint', CHART, '--strict', ...(args as string[]))).toContain('1 chart(s) linted, 0 chart(s) failed');
  });
});

describe('kubeconform', () => {
  const locations = [
    `${tools.K8S_SCHEMAS_DIR}/kubernetes/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
    `${tools.K8S_SCHEMAS_DIR}/crds/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
  ];
  const cases = KUBERNETES_VERSIONS.flatMap((v) => [
    [v, 'default values', defaults],
    [v, 'every option on', everything],
  ]);

  it.each(cases)('finds every object valid against Kubernetes %s with %s', (version, _name, manifest) => {
    const out = run(
      tools.KUBECONFORM_BIN,
      [
        '-strict',
        '-summary',
        '-output',
        'json',
        '-kubernetes-version',
        version,
        ...locations.flatMap((l) => ['-schema-location', l]),
        '-',
      ],
      manifest,
    );
    const { summary } = JSON.parse(out) as {
      summary: { valid: number; invalid: number; errors: number; skipped: number };
    };
    expect(summary).toEqual({ valid: objects(manifest).length, invalid: 0, errors: 0, skipped: 0 });
  });
});

describe('rendered with default values', () => {
  const objs = objects(defaults);
  const deployments = byKind(objs, 'Deployment');

  it('runs each role as its own Deployment, with its role as the argument and its own replica count', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(ROLES.map((r) => `leads-lead-intake-${r}`).sort());
    for (const d of deployments) {
      const role = d.metadata.labels?.['app.kubernetes.io/component'];
      expect(d.spec.template.spec.containers[0].args).toEqual([role]);
      expect(d.spec.replicas).toBe(2);
    }
  });

  it('probes /healthz for liveness and start-up, /readyz for readiness', () => {
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0];
      expect([c.startupProbe.httpGet.path, c.livenessProbe.httpGet.path, c.readinessProbe.httpGet.path]).toEqual([
        '/healthz',
        '/healthz',
        '/readyz',
      ]);
    }
  });

  it("feeds every role the ConfigMap and the chart's Secret", () => {
    const secret = byKind(objs, 'Secret');
    expect(secret.map((s) => s.metadata.name)).toEqual(['leads-lead-intake']);
    for (const d of deployments) {
      expect(d.spec.template.spec.containers[0].envFrom).toEqual([
        { configMapRef: { name: 'leads-lead-intake' } },
        { secretRef: { name: 'leads-lead-intake' } },
      ]);
      expect(Object.keys(d.spec.template.metadata.annotations)).toEqual(['checksum/config', 'checksum/secret']);
    }
  });

  it('points the service at external Kafka and registry through the ConfigMap', () => {
    const [config] = byKind(objs, 'ConfigMap').filter((c) => c.metadata.name === 'leads-lead-intake');
    expect(config?.data).toMatchObject({
      KAFKA_BROKERS: 'kafka:9092',
      SCHEMA_REGISTRY_URL: expect.stringContaining('/apis/ccompat/v7'),
      HTTP_PORT: '8080',
    });
  });

  it('makes every topic durable: 3 replicas, 2 in sync, for the roles and the topic Job alike', () => {
    const [config] = byKind(objs, 'ConfigMap').filter((c) => c.metadata.name === 'leads-lead-intake');
    expect(config?.data).toMatchObject({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' });
    const jobEnv = byKind(objs, 'Job')[0]?.spec.template.spec.containers[0].env as { name: string; value: string }[];
    expect(jobEnv).toEqual(
      expect.arrayContaining([
        { name: 'KAFKA_REPLICATION_FACTOR', value: '3' },
        { name: 'KAFKA_MIN_INSYNC_REPLICAS', value: '2' },
      ]),
    );
    // What the service makes of them: the settings every topic is created with.
    const env = Object.fromEntries(jobEnv.map((e) => [e.name, e.value]));
    expect(loadSetupConfig(env).kafka).toMatchObject({ replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it('creates topics and schemas in a pre-install/pre-upgrade Job that needs no Secret', () => {
    const [job] = byKind(objs, 'Job');
    expect(job?.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const container = job?.spec.template.spec.containers[0];
    expect(container.args).toEqual(['setup']);
    expect(container.envFrom).toBeUndefined();
    expect(container.env.map((e: { name: string }) => e.name).sort()).toEqual([
      'KAFKA_BROKERS',
      'KAFKA_CLIENT_ID',
      'KAFKA_MIN_INSYNC_REPLICAS',
      'KAFKA_REPLICATION_FACTOR',
      'LOG_LEVEL',
      'SCHEMA_REGISTRY_URL',
      'TOPIC_PREFIX',
    ]);
  });

  it("ships the dashboard for Grafana's sidecar, byte for byte", () => {
    const [dashboard] = byKind(objs, 'ConfigMap').filter((c) => c.metadata.labels?.grafana_dashboard === '1');
    expect(dashboard?.data?.['lead-intake.json']).toBe(
      readFileSync(join(CHART, 'files', 'dashboard.json'), 'utf8').trimEnd(),
    );
  });

  it('leaves the optional objects out', () => {
    expect(
      objs
        .map((o) => o.kind)
        .filter((k) =>
          ['Ingress', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'ServiceMonitor', 'PrometheusRule'].includes(k),
        ),
    ).toEqual([]);
  });
});

describe('rendered with every option on', () => {
  const objs = objects(everything);
  const deployments = byKind(objs, 'Deployment');

  it('renders no Secret and reads the existing one', () => {
    expect(byKind(objs, 'Secret')).toEqual([]);
    for (const d of deployments) {
      expect(d.spec.template.spec.containers[0].envFrom[1]).toEqual({ secretRef: { name: 'lead-intake-prod' } });
      expect(Object.keys(d.spec.template.metadata.annotations)).toEqual(['checksum/config']);
    }
  });

  it('scales each role with its own HorizontalPodAutoscaler, leaving replicas to it', () => {
    expect(
      byKind(objs, 'HorizontalPodAutoscaler')
        .map((h) => h.spec.scaleTargetRef.name)
        .sort(),
    ).toEqual(deployments.map((d) => d.metadata.name).sort());
    for (const d of deployments) expect(d.spec.replicas).toBeUndefined();
  });

  it('guards each role with a PodDisruptionBudget', () => {
    expect(
      byKind(objs, 'PodDisruptionBudget')
        .map((p) => p.spec.selector.matchLabels['app.kubernetes.io/component'])
        .sort(),
    ).toEqual([...ROLES].sort());
  });

  it("exposes only the partner API through the Ingress, on the ingress role's Service", () => {
    const [ingress] = byKind(objs, 'Ingress');
    const [path] = ingress?.spec.rules[0].http.paths ?? [];
    expect(path).toMatchObject({
      path: '/api/v1/inbound',
      backend: { service: { name: 'leads-lead-intake-ingress', port: { name: 'http' } } },
    });
    const service = byKind(objs, 'Service').find((s) => s.metadata.name === 'leads-lead-intake-ingress');
    expect(service?.spec.ports[0]).toMatchObject({ name: 'http', port: 80, targetPort: 'http' });
  });

  it('scrapes every role as job="lead-intake", the job the alerts select', () => {
    const [monitor] = byKind(objs, 'ServiceMonitor');
    expect(monitor?.metadata.labels?.release).toBe('kube-prometheus-stack');
    expect(monitor?.spec.endpoints).toEqual([expect.objectContaining({ port: 'http', path: '/metrics' })]);
    const services = byKind(objs, 'Service').filter((s) =>
      Object.entries(monitor?.spec.selector.matchLabels).every(([k, v]) => s.metadata.labels?.[k] === v),
    );
    expect(services).toHaveLength(3);
    for (const s of services) expect(s.metadata.labels?.[monitor?.spec.jobLabel]).toBe('lead-intake');
  });

  it('carries the alert rules of files/alerts.yml in the PrometheusRule', () => {
    const [rule] = byKind(objs, 'PrometheusRule');
    expect(rule?.spec).toEqual(parse(readFileSync(join(CHART, 'files', 'alerts.yml'), 'utf8')));
  });

  it("adds a role's own environment to that role only", () => {
    for (const d of deployments)
      expect(d.spec.template.spec.containers[0].env).toEqual([{ name: 'LOG_LEVEL', value: 'debug' }]);
  });
});
