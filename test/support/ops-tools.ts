import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export interface OpsTools {
  HELM_BIN: string;
  KUBECONFORM_BIN: string;
  K8S_SCHEMAS_DIR: string;
  PROMETHEUS_BIN: string;
  SCHEMATHESIS_BIN: string;
  CHROMIUM_BIN: string;
  PHP_BIN: string;
  PHPUNIT_BIN: string;
  COMPOSER_BIN: string;
  MYPY_BIN: string;
  CONFLUENT_PYTHON_BIN: string; // a python with Confluent's client (confluent-kafka) installed
}

const ROOT = join(__dirname, '..', '..');

// Where scripts/services/tools.sh installed helm, kubeconform, the Kubernetes schemas,
// Prometheus, Schemathesis, Chromium, php-cli and Confluent's Python client (scripts/test.sh installs them). A missing tool throws with the script's own message,
// so the suite fails loudly instead of skipping.
export function opsTools(): OpsTools {
  let out: string;
  try {
    out = execFileSync('bash', [join(ROOT, 'scripts/services/tools.sh'), 'env'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    throw new Error(`operations tools are missing: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
  }
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  ) as unknown as OpsTools;
}
