// The grant request the grants unit suites start from: mailer's send_email to *@example.com for an hour, by ann.
import type { AddGrantRequest } from '../../contract/grantMessages';

export const request = (more: Partial<AddGrantRequest> = {}): AddGrantRequest => ({
  agent: 'mailer',
  tool: 'send_email',
  where: { to: '*@example.com' },
  for: '1h',
  grantedBy: 'ann',
  ...more,
});
