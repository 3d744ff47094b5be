// Writes docs/approvals-api.openapi.json from the document the gateway serves (gateway/approvalsOpenApi.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPROVALS_OPENAPI } from '../gateway/approvalsOpenApi';

const file = join(__dirname, '../docs/approvals-api.openapi.json');
writeFileSync(file, `${JSON.stringify(APPROVALS_OPENAPI, null, 2)}\n`);
console.log(`wrote: ${file}`);
