// Tools as an AI SDK app already has them: `tool()` from 'ai', zod input schemas, execute functions. Nothing here
// knows Countersign. Each payment and closure is appended to ledger.log (in the worker's folder), which stands in
// for your payment system and shows that every approved call ran once.
import { appendFileSync } from 'node:fs';
import { tool } from 'ai';
import { z } from 'zod';

const record = (line: string) => appendFileSync('ledger.log', `${line}\n`);

export const tools = {
  getBalance: tool({
    description: 'Get the balance of a customer account.',
    inputSchema: z.object({ account: z.string().describe('Account id, e.g. C-99') }),
    execute: async ({ account }) => `Account ${account} holds 1200 EUR`,
  }),
  sendPayment: tool({
    description: 'Send a payment in EUR to a recipient.',
    inputSchema: z.object({ to: z.string(), amount: z.number().positive() }),
    // The tool's own approval rule (AI SDK 6 style, still honoured by AI SDK 7): payments over 100 EUR need a person.
    needsApproval: async ({ amount }) => amount > 100,
    execute: async ({ to, amount }, { toolCallId }) => {
      record(`payment ${to} ${amount} EUR (${toolCallId})`);
      return `Sent ${amount} EUR to ${to}`;
    },
  }),
  closeAccount: tool({
    description: 'Close a customer account for good.',
    inputSchema: z.object({ account: z.string() }),
    execute: async ({ account }, { toolCallId }) => {
      record(`closed ${account} (${toolCallId})`);
      return `Account ${account} is closed`;
    },
  }),
};
