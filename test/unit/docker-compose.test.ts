import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, loadSetupConfig } from '../../src/shared/config';

// docker-compose.yml cannot run here (no Docker engine), so its shape is checked instead: every
// server the code talks to is there, and each role's environment passes our own config validation.
const ROOT = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      build?: string;
      command?: string[];
      environment?: Record<string, string>;
      volumes?: string[];
      depends_on?: Record<string, { condition: string }>;
    }
  >;
};

describe('docker-compose.yml', () => {
  it.each([
    ['kafka', /^apache\/kafka:3\.9/],
    ['mongodb', /^mongo:7/],
    ['redis', /^redis:7/],
    ['registry', /^apicurio\/apicurio-registry:3/],
    ['prometheus', /^prom\/prometheus/],
    ['grafana', /^grafana\/grafana/],
  ])('runs %s from a real image', (name, image) => {
    expect(compose.services[name]?.image).toMatch(image);
  });

  it.each(['ingress', 'processor', 'dispatcher'])(
    'runs the %s role from our image with a valid configuration',
    (role) => {
      const service = compose.services[role];
      expect(service?.build).toBe('.');
      expect(service?.command).toEqual([role]);
      // The break-glass token is the operator's to set (${MANAGER_TOKENS:?...}): set here as they would.
      const env = { ...service?.environment, MANAGER_TOKENS: `mgr_${randomBytes(32).toString('hex')}` };
      const config = loadConfig({ ...env, ROLE: role });
      expect(config.roles).toEqual([role]);
      // Each dependency points at a compose service, not at this machine.
      expect(config.kafka.brokers).toEqual(['kafka:9092']);
      expect(new URL(config.mongo.url).hostname).toBe('mongodb');
      expect(new URL(config.redis.url).hostname).toBe('redis');
      expect(new URL(config.schemaRegistryUrl).hostname).toBe('registry');
    },
  );

  it('creates topics and schemas in a setup run that every role waits for', () => {
    const setup = compose.services.setup;
    expect(setup?.command).toEqual(['setup']);
    expect(loadSetupConfig(setup?.environment ?? {}).kafka.brokers).toEqual(['kafka:9092']);
    for (const role of ['ingress', 'processor', 'dispatcher']) {
      expect(compose.services[role]?.depends_on?.setup).toEqual({ condition: 'service_completed_successfully' });
    }
  });

  it('mounts only files that exist', () => {
    for (const service of Object.values(compose.services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.')) expect(existsSync(join(ROOT, source))).toBe(true);
      }
    }
  });
});

// Node 20 is past its end of life: the image, the engines range and the node running this very suite
// (scripts/node.sh installs Node 24 where the machine's is older) are all on a supported major.
describe('the Node.js runtime', () => {
  const major = (version: string) => Number(/(\d+)/.exec(version)?.[1]);

  it('builds and runs the image on Node 24', () => {
    const froms = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/^node:24-/);
  });

  it('asks for Node 22 or newer in package.json and runs the tests on one', () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    expect(major(engines)).toBeGreaterThanOrEqual(22);
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(22);
  });
});
