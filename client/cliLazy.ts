// What the CLI loads only when a command needs it, so `countersign --help` starts without the Temporal client,
// the configuration (zod, envconfig) or the payload store. `require` (not `import()`): it behaves the same in the
// compiled package and under tsx, whose CommonJS hook does not cover dynamic imports.
export const lazy = {
  config: () => require('../temporal.config') as typeof import('../temporal.config'),
  connect: () => require('./connect') as typeof import('./connect'),
  runner: () => require('./runner') as typeof import('./runner'),
  runReads: () => require('./runReads') as typeof import('./runReads'),
  payloadStorage: () => require('../storage/payloadStorage') as typeof import('../storage/payloadStorage'),
  codecServer: () => require('./codecServer') as typeof import('./codecServer'),
  decisionSigning: () => require('./decisionSigning') as typeof import('./decisionSigning'),
  approvalsReport: () => require('./approvalsReport') as typeof import('./approvalsReport'),
  inbox: () => require('./inbox/server') as typeof import('./inbox/server'),
  identity: () => require('./inbox/identity') as typeof import('./inbox/identity'),
  grants: () => require('./grants') as typeof import('./grants'),
};
