// The seed's email assistant as the OpenAI Agents SDK writes it: the same name, instructions, tools and texts as
// Countersign's demo agent (agents/demo/emailAssistant.ts), so the scripted model answers both the same way.
// `execute` is supplied by the caller: an activity inside Temporal, a direct call in-process, Countersign's tool
// activity through its adapter. The definition takes the SDK module it is built with (this package's 0.11.8, or
// another version's `{ Agent, tool }` with its zod), so the very same code can build the agent for any of them.
import * as sdk0118 from '@openai/agents-core';
import { z as zod } from 'zod';

export interface EmailEffects {
  sendEmail(args: { to: string; subject: string; body: string }): Promise<string>;
  deleteRecord(args: { record_id: string }): Promise<string>;
}

const CONTACTS: Record<string, string> = { alice: 'alice@example.com', bob: 'bob@example.com' };

/** What the agent is built with: an Agents SDK's `Agent` and `tool`, and the zod its tools' parameters are written in. */
export interface AgentsSdk<A> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  Agent: new (config: any) => A;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tool: (config: any) => unknown;
  z: typeof zod;
}

/** The email assistant, built with `sdk`: the same definition whichever SDK version builds it. */
export function buildEmailAgent<A>({ Agent, tool, z }: AgentsSdk<A>, effects: EmailEffects): A {
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
        execute: async ({ name }: { name: string }) => CONTACTS[name.toLowerCase()] ?? 'Contact not found',
      }),
      tool({
        name: 'send_email',
        description: 'Send an email to the specified recipient.',
        parameters: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
        needsApproval: true,
        execute: (args: { to: string; subject: string; body: string }) => effects.sendEmail(args),
      }),
      tool({
        name: 'delete_record',
        description: 'Permanently delete a record from the database.',
        parameters: z.object({ record_id: z.string() }),
        needsApproval: true,
        execute: (args: { record_id: string }) => effects.deleteRecord(args),
      }),
    ],
  });
}

/** The email assistant built with this package's SDK (@openai/agents-core 0.11.8). */
export function emailAgent(effects: EmailEffects): sdk0118.Agent {
  return buildEmailAgent<sdk0118.Agent>({ Agent: sdk0118.Agent, tool: sdk0118.tool, z: zod }, effects);
}
