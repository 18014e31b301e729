import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A private cluster's id is 16 random bytes in base64url (test/support/private-service.ts), so one in
// 64 begins with "-": the broker's log dir must still be formatted with it.
const KAFKA_SH = join(__dirname, '..', '..', 'scripts', 'services', 'kafka.sh');

it('formats a KRaft log dir with a cluster id that begins with a dash', () => {
  const run = mkdtempSync(join(process.env.LEADS_PRIVATE_ROOT ?? tmpdir(), 'kafka-format-'));
  try {
    const clusterId = '-GWvMjl_pSrmme1LEghlYQ';
    execFileSync('bash', [KAFKA_SH, 'format'], {
      env: { ...process.env, LEADS_RUN: run, KAFKA_CLUSTER_ID: clusterId },
      stdio: 'pipe',
    });
    const meta = readFileSync(join(run, 'kafka', 'data', 'meta.properties'), 'utf8');
    expect(meta).toContain(`cluster.id=${clusterId}\n`);
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
});
