// What the CLI loads only when a command needs it, so `countersign --help` starts without the Temporal client,
// the configuration (zod, envconfig) or the payload store. `require` (not `import()`): it behaves the same in the
// compiled package and under tsx, whose CommonJS hook does not cover dynamic imports.
export const lazy = {
  config: () => require('../temporal.config') as typeof import('../temporal.config'),
  connect: () => require('../client/clientConnection') as typeof import('../client/clientConnection'),
  runner: () => require('../client/run/runner') as typeof import('../client/run/runner'),
  runReads: () => require('../client/run/runReads') as typeof import('../client/run/runReads'),
  keptDecisions: () => require('../client/run/keptDecisions') as typeof import('../client/run/keptDecisions'),
  runRecords: () => require('../client/run/runRecords') as typeof import('../client/run/runRecords'),
  servedAgents: () => require('../client/run/servedAgents') as typeof import('../client/run/servedAgents'),
  workerPresence: () => require('../client/run/workerPresence') as typeof import('../client/run/workerPresence'),
  payloadStorage: () => require('../storage/payloadStorage') as typeof import('../storage/payloadStorage'),
  codecServer: () => require('../servers/codecServer') as typeof import('../servers/codecServer'),
  decisionSigning: () =>
    require('../client/signing/decisionSigning') as typeof import('../client/signing/decisionSigning'),
  decisionBuilder: () =>
    require('../client/approvals/decisionBuilder') as typeof import('../client/approvals/decisionBuilder'),
  approvalsReport: () =>
    require('../client/approvals/approvalsReport') as typeof import('../client/approvals/approvalsReport'),
  reportPeriod: () => require('../client/approvals/reportPeriod') as typeof import('../client/approvals/reportPeriod'),
  ledgerBackfill: () =>
    require('../client/approvals/ledgerBackfill') as typeof import('../client/approvals/ledgerBackfill'),
  ledgerVerify: () => require('../client/approvals/ledgerVerify') as typeof import('../client/approvals/ledgerVerify'),
  ledgerCheckpoints: () =>
    require('../storage/ledger/ledgerCheckpoints') as typeof import('../storage/ledger/ledgerCheckpoints'),
  ledgerWitness: () => require('../storage/ledger/ledgerWitness') as typeof import('../storage/ledger/ledgerWitness'),
  ledgerAccess: () => require('../client/approvals/ledgerAccess') as typeof import('../client/approvals/ledgerAccess'),
  inbox: () => require('../servers/inbox/inboxServer') as typeof import('../servers/inbox/inboxServer'),
  identity: () => require('../servers/inbox/identity') as typeof import('../servers/inbox/identity'),
  signIn: () => require('../servers/inbox/localSignIn') as typeof import('../servers/inbox/localSignIn'),
  jwt: () => require('../servers/inbox/jwtIdentity') as typeof import('../servers/inbox/jwtIdentity'),
  slack: () => require('../servers/inbox/slackActions') as typeof import('../servers/inbox/slackActions'),
  grants: () => require('../client/grants/grantsClient') as typeof import('../client/grants/grantsClient'),
  reviews: () => require('../client/approvals/reviews') as typeof import('../client/approvals/reviews'),
};
