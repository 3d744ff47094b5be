// What an adapter cannot map is refused when the adapter is called, in one line naming the agent or tool and the
// field, so a team learns it at startup, not when a run reaches the tool. Each adapter throws its own error class
// (a public name); the line is built here, once.

/** Throws `<adapter>: <what> "<name>": <field> <why and what to do>` (no field: the name, then why). */
export type Refuse = (name: string, field: string, why: string) => never;

export function refuser(Unmappable: new (message: string) => Error, adapter: string, what: 'agent' | 'tool'): Refuse {
  return (name, field, why) => {
    throw new Unmappable(`${adapter}: ${what} "${name}": ${field ? `${field} ` : ''}${why}`);
  };
}
