// Writes the TypeScript SDK's types (sdks/typescript/src/generated/partner-api.ts) from the partner
// OpenAPI document as the ingress serves it, with the SDK's own generator. Run after changing the
// document: npx tsx scripts/gen-sdk-types.ts. With --check it writes nothing and exits 1 when the
// committed file is stale (test/unit/sdk-typescript-types.test.ts runs that).
import { readFileSync, writeFileSync } from 'node:fs';
import { partnerOpenApiDocument } from '../src/ingress/partner-openapi';

const generator = require('../sdks/typescript/scripts/gen-types.cjs') as {
  generate(doc: unknown): Promise<string>;
  OUT: string;
};

async function main(): Promise<void> {
  // The components and webhooks the types come from do not depend on these settings.
  const doc = partnerOpenApiDocument({
    serviceName: 'lead-intake',
    bodyLimitBytes: 65536,
    timestampToleranceS: 300,
    reportScanMs: 50,
  });
  const text = await generator.generate(doc);
  if (!process.argv.includes('--check')) return writeFileSync(generator.OUT, text);
  if (readFileSync(generator.OUT, 'utf8') !== text) {
    console.error('sdks/typescript/src/generated/partner-api.ts is stale: run npx tsx scripts/gen-sdk-types.ts');
    process.exitCode = 1;
  }
}

void main();
