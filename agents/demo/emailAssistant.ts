// The demo email assistant: looks up contacts freely; sending mail and deleting records need a person.
import { z } from 'zod';
import { defineAgent } from '../defineAgent';
import { defineTool } from '../defineTool';
import { DEMO_CONTACTS } from './contacts';
import { recordOnce } from './outbox';

export const lookupContact = defineTool({
  name: 'lookup_contact',
  description: "Look up a contact's email address.",
  parameters: z.object({ name: z.string().describe('The contact name, e.g. alice') }),
  execute: ({ name }) => DEMO_CONTACTS[name.toLowerCase()] ?? 'Contact not found',
});

export const sendEmail = defineTool({
  name: 'send_email',
  description: 'Send an email to the specified recipient.',
  parameters: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
  needsApproval: true,
  execute: async ({ to, subject, body }, ctx) => {
    await recordOnce({ idempotencyKey: ctx.idempotencyKey, kind: 'email', to, subject, body });
    return `Email sent to ${to} with subject '${subject}'`;
  },
});

export const deleteRecord = defineTool({
  name: 'delete_record',
  description: 'Permanently delete a record from the database.',
  parameters: z.object({ record_id: z.string() }),
  needsApproval: true,
  preview: ({ record_id }) => ({
    summary: `deletes record ${record_id} from the database; this cannot be undone`,
    details: `DELETE FROM records WHERE id = '${record_id}'`,
  }),
  execute: async ({ record_id }, ctx) => {
    await recordOnce({ idempotencyKey: ctx.idempotencyKey, kind: 'delete_record', record_id });
    return `Record ${record_id} deleted`;
  },
});

export const emailAssistant = defineAgent({
  name: 'email-assistant',
  version: '1',
  instructions:
    'You help users manage their emails and records. Look up contacts and send emails on behalf of the user.',
  tools: [lookupContact, sendEmail, deleteRecord],
});
