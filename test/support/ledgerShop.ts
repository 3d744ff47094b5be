// The agent the approvals-ledger tests and history scenarios run: a call a person approves or rejects
// (send_email), one that needs two approvers (grant_budget), and an audit-only one that runs at once and is reviewed
// afterwards (refund). Its ledger lives in a temporary folder of its own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { sendEmail } from '../../agents/demo/emailAssistant';

export const ledgerShop = defineAgent({
  name: 'ledger-shop',
  instructions: 'test',
  tools: [
    sendEmail,
    defineTool({
      name: 'grant_budget',
      description: 'Grant a budget',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      quorum: 2,
      execute: ({ amount }) => `granted ${amount}`,
    }),
    defineTool({
      name: 'refund',
      description: 'Refund an amount',
      parameters: z.object({ amount: z.number() }),
      needsApproval: 'audit',
      execute: ({ amount }) => `refunded ${amount}`,
    }),
  ],
});

export const ledgerRegistry = () => new AgentRegistry([...demoAgents, ledgerShop]);

/** A SQLite ledger file in a new temporary folder. */
export const tempLedgerFile = () => join(mkdtempSync(join(tmpdir(), 'countersign-ledger-')), 'ledger.db');

export const budget = (amount: number, callId: string) => ({ name: 'grant_budget', arguments: { amount }, callId });
export const refund = (amount: number, callId: string) => ({ name: 'refund', arguments: { amount }, callId });
