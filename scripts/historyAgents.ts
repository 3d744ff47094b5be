// The agents the replay corpus is recorded with (scripts/record-histories.ts): the demo agents and one agent per
// behaviour a scenario records, and the approver key its signed decisions use.
import { generateKeyPairSync } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../agents';
import { hostedToolAgents } from './histories/hostedTools';
import { toolUseAgents } from './histories/toolUse';
import { toolTimeoutAgents } from './histories/toolTimeouts';
import { guardrailAgents } from './histories/guardrails';

// The other kinds of human step, for the corpus (same shapes as test/integration/humanStepKinds.test.ts).
const kindsAgent = defineAgent({
  name: 'kinds-assistant',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'book_meeting',
      description: 'Book a meeting',
      parameters: z.object({ title: z.string(), time: z.string() }),
      userInput: ['time'],
      execute: ({ title, time }) => `${title} at ${time}`,
    }),
    defineTool({
      name: 'charge_card',
      description: 'Charge a card',
      parameters: z.object({ amount: z.number() }),
      external: true,
      resultTimeout: '1h',
    }),
    defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string() }),
      audit: true,
      execute: ({ path }) => `contents of ${path}`,
    }),
  ],
});

// Calls decided in code (onApproval): approved, rejected, and one left to a person.
const guardedAgent = defineAgent({
  name: 'guarded-assistant',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'refund',
      description: 'Refund an amount',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      onApproval: (_ctx, { arguments: { amount } }) =>
        amount <= 100
          ? { approve: true, reason: 'small' }
          : amount > 1000
            ? { approve: false, message: 'too big', reason: 'limit' }
            : undefined,
      execute: ({ amount }) => `refunded ${amount}`,
    }),
  ],
});

// A typed final answer (outputType), with model settings of its own.
const forecaster = defineAgent({
  name: 'forecaster',
  instructions: 'Answer with the forecast.',
  tools: [],
  outputType: z.object({ city: z.string(), temperatureC: z.number() }),
  modelSettings: { maxOutputTokens: 200 },
});

// Hosted MCP approvals asked by the provider, answered on the next turn.
const hostedAgent = defineAgent({
  name: 'hosted-docs',
  instructions: 'test',
  tools: [],
  hostedMcp: [{ serverLabel: 'docs', serverUrl: 'https://docs.example/mcp' }],
});

// Signed decisions and a quorum (an approver key made here, checked by the worker), with an extension.
export const signingKey = {
  ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as {
    kty: 'OKP';
    crv: 'Ed25519';
    x: string;
    d: string;
  }),
  kid: 'ann',
};
const vaultAgent = defineAgent({
  name: 'vault',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'wire_money',
      description: 'Send money',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      signedDecisions: true,
      execute: ({ amount }) => `wired ${amount}`,
    }),
    defineTool({
      name: 'payout',
      description: 'Pay out',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      quorum: 2,
      approvalTimeout: '7d',
      remindBeforeExpiry: '1h',
      execute: ({ amount }) => `paid ${amount}`,
    }),
  ],
});

// Handoffs, and an agent used as a tool (nested approvals).
const triage = defineAgent({
  name: 'triage-assistant',
  instructions: 'You route requests.',
  tools: [],
  handoffs: ['email-assistant'],
});
const identity = defineAgent({
  name: 'identity-agent',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'get_user_name',
      description: 'Name of a user',
      parameters: z.object({ userId: z.string() }),
      needsApproval: true,
      execute: ({ userId }) => `User ${userId} is Ada`,
    }),
  ],
});
const helper = defineAgent({
  name: 'contract-helper',
  instructions: 'test',
  tools: [identity.asTool({ toolName: 'help_with_contract', toolDescription: 'Ask' })],
});

// Tools that are not idempotent, whose first attempt fails once it may have started: each call becomes uncertain.
const failedOnce = new Set<string>();
const onceThenOk = (done: string) => (_params: unknown, ctx: { callId: string }) => {
  if (failedOnce.has(ctx.callId)) return done;
  failedOnce.add(ctx.callId);
  throw ApplicationFailure.retryable('connection reset after the request was sent');
};
const onceAgent = defineAgent({
  name: 'once-assistant',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'deploy',
      description: 'Deploy a version',
      parameters: z.object({ version: z.string() }),
      idempotent: false,
      execute: onceThenOk('deployed'),
    }),
    defineTool({
      name: 'charge',
      description: 'Charge an amount',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      idempotent: false,
      execute: onceThenOk('charged'),
    }),
  ],
});

// Tools that fingerprint the ledger they act on: the recording changes it between the request and the approval.
export const ledger = { version: 1 };
const onLedger = {
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  fingerprint: () => `ledger v${ledger.version}`,
} as const;
const staleAgent = defineAgent({
  name: 'ledger-assistant',
  instructions: 'test',
  tools: [
    defineTool({ name: 'pay', description: 'Pay an amount', ...onLedger, execute: ({ amount }) => `paid ${amount}` }),
    defineTool({
      name: 'refund',
      description: 'Refund an amount',
      ...onLedger,
      onStale: 'reject',
      execute: ({ amount }) => `refunded ${amount}`,
    }),
  ],
});

// Who may decide, by name (behind patch countersign-canonical-approvers): a quorum with the requester excluded, with
// and without an approvers list.
const budget = {
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  quorum: 2,
  excludeRequester: true,
  execute: ({ amount }: { amount: number }) => `granted ${amount}`,
} as const;
const boardAgent = defineAgent({
  name: 'board',
  instructions: 'test',
  tools: [
    defineTool({ name: 'grant_budget', description: 'Grant a budget', ...budget, approvers: ['ann', 'bob', 'cy'] }),
    defineTool({ name: 'open_budget', description: 'Open a budget', ...budget }),
  ],
});

// A signed tool that may be granted: its grants must be signed (the grants workflow verifies them in a local activity).
const grantVault = defineAgent({
  name: 'grant-vault',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'release_funds',
      description: 'Release funds',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      signedDecisions: true,
      grantable: true,
      execute: ({ amount }) => `released ${amount}`,
    }),
  ],
});

export const historyRegistry = () =>
  new AgentRegistry([
    ...demoAgents,
    ...hostedToolAgents,
    ...toolUseAgents,
    ...toolTimeoutAgents,
    ...guardrailAgents,
    kindsAgent,
    guardedAgent,
    hostedAgent,
    triage,
    identity,
    helper,
    vaultAgent,
    forecaster,
    onceAgent,
    staleAgent,
    boardAgent,
    grantVault,
  ]);
