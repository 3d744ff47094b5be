// Not agents: COUNTERSIGN_AGENTS_MODULE pointing here must stop the worker with one clear line.
export default [{ name: 'plain-object' }];
