import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// docker-compose.store.yml cannot run here (no Docker engine): its shape is checked instead. It runs
// the store contract suite, the same command as CI, against MongoDB 7 and nothing else.
const ROOT = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.store.yml'), 'utf8')) as {
  services: Record<
    string,
    {
      image?: string;
      command?: string[];
      environment?: Record<string, string>;
      depends_on?: Record<string, { condition: string }>;
    }
  >;
};
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

it('runs npm run test:store against MongoDB 7 once it answers', () => {
  expect(Object.keys(compose.services).sort()).toEqual(['mongodb', 'store-contract']);
  expect(compose.services.mongodb?.image).toMatch(/^mongo:7/);
  const suite = compose.services['store-contract'];
  expect(suite?.image).toMatch(/^node:24-/);
  expect(suite?.command?.join(' ')).toMatch(/npm run test:store$/);
  expect(new URL(suite?.environment?.MONGO_URL ?? '').hostname).toBe('mongodb');
  expect(suite?.depends_on?.mongodb).toEqual({ condition: 'service_healthy' });
  expect(scripts['test:store']).toContain('test/store/jest.config.js');
});
