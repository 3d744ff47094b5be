// The OpenAPI document the gateway serves at /openapi.json is the one kept in docs/ (`npx tsx scripts/openapi-doc.ts` writes it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPROVALS_OPENAPI } from '../../gateway/approvalsOpenApi';

test('docs/approvals-api.openapi.json is the served document, OpenAPI 3.1', () => {
  const kept = JSON.parse(readFileSync(join(__dirname, '../../docs/approvals-api.openapi.json'), 'utf8')) as unknown;
  expect(kept).toEqual(APPROVALS_OPENAPI);
  expect(APPROVALS_OPENAPI.openapi).toBe('3.1.0');
});
