// The service's own agent: it looks orders up freely, and refunds them — large refunds only after a person approves.
import { z } from 'zod';
import { defineAgent, defineTool } from 'countersign';
import { refund } from './ledger.js';

const ORDERS: Record<string, { customer: string; totalCents: number }> = {
  'A-17': { customer: 'alice@example.com', totalCents: 8000 },
  'B-42': { customer: 'bob@example.com', totalCents: 1200 },
};

/** Refunds up to this many cents need no person (per run: context.autoApproveLimitCents). */
const AUTO_APPROVE_LIMIT_CENTS = 2500;

export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Look an order up by its id.',
  parameters: z.object({ orderId: z.string() }),
  execute: ({ orderId }) =>
    ORDERS[orderId] ? JSON.stringify({ orderId, ...ORDERS[orderId] }) : `Order ${orderId} not found`,
});

export const issueRefund = defineTool({
  name: 'issue_refund',
  description: 'Refund part or all of an order to the customer.',
  parameters: z.object({ orderId: z.string(), amountCents: z.number().int().positive(), reason: z.string() }),
  // A predicate, evaluated in an activity when the model asks; if it throws, the call waits for a person.
  needsApproval: (ctx, { amountCents }) =>
    amountCents > Number(ctx.context.autoApproveLimitCents ?? AUTO_APPROVE_LIMIT_CENTS),
  approvalTimeout: '3d',
  onTimeout: 'reject',
  execute: ({ orderId, amountCents }, ctx) => {
    const order = ORDERS[orderId];
    if (!order) throw new Error(`no order ${orderId}`);
    if (amountCents > order.totalCents)
      throw new Error(`refund of ${amountCents} exceeds the order total ${order.totalCents}`);
    const done = refund(orderId, amountCents, ctx.idempotencyKey);
    return `Refunded ${(done.amountCents / 100).toFixed(2)} EUR on order ${orderId}`;
  },
});

export const refundDesk = defineAgent({
  name: 'refund-desk',
  instructions:
    'You handle refund requests: look the order up, then refund what the customer asks for if it is reasonable.',
  tools: [lookupOrder, issueRefund],
  toolErrorFormatter: ({ kind, defaultMessage }) =>
    kind === 'approval_rejected' ? `A supervisor declined the refund: ${defaultMessage}` : undefined,
});

export const agents = [refundDesk];
