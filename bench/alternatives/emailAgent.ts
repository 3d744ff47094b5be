// The seed's email assistant as the OpenAI Agents SDK writes it: the same name, instructions, tools and texts as
// Countersign's demo agent (agents/demo/emailAssistant.ts), so the scripted model answers both the same way.
// `execute` is supplied by the caller: an activity inside Temporal, a direct call in-process.
import { Agent, tool } from '@openai/agents-core';
import { z } from 'zod';

export interface EmailEffects {
  sendEmail(args: { to: string; subject: string; body: string }): Promise<string>;
  deleteRecord(args: { record_id: string }): Promise<string>;
}

const CONTACTS: Record<string, string> = { alice: 'alice@example.com', bob: 'bob@example.com' };

export function emailAgent(effects: EmailEffects): Agent {
  return new Agent({
    name: 'email-assistant',
    instructions:
      'You help users manage their emails and records. Look up contacts and send emails on behalf of the user.',
    model: 'scripted',
    modelSettings: {},
    tools: [
      tool({
        name: 'lookup_contact',
        description: "Look up a contact's email address.",
        parameters: z.object({ name: z.string().describe('The contact name, e.g. alice') }),
        execute: async ({ name }) => CONTACTS[name.toLowerCase()] ?? 'Contact not found',
      }),
      tool({
        name: 'send_email',
        description: 'Send an email to the specified recipient.',
        parameters: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
        needsApproval: true,
        execute: (args) => effects.sendEmail(args),
      }),
      tool({
        name: 'delete_record',
        description: 'Permanently delete a record from the database.',
        parameters: z.object({ record_id: z.string() }),
        needsApproval: true,
        execute: (args) => effects.deleteRecord(args),
      }),
    ],
  });
}
