// The demo address book, shared by the `lookup_contact` tool and the scripted demo model.
export const DEMO_CONTACTS: Readonly<Record<string, string>> = {
  alice: 'alice@example.com',
  bob: 'bob@example.com',
};
