// The `countersign/client` package entry: the client library, plus `startInbox`, which lived here before
// `countersign/servers` existed (kept so that code written for 0.x still runs; new code imports it from there).
export * from '../client';
/** The approvals inbox in your own process; loaded on first use (it brings fastify). Prefer `countersign/servers`. */
export const startInbox = (o: import('../servers').InboxOptions) => (require('../servers') as typeof import('../servers')).startInbox(o);
export type { InboxOptions } from '../servers';
