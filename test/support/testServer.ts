// The shared Temporal dev server the tests run against (test/support/globalSetup.ts starts it): its address, read
// through the project's config loader in this one place.
import { loadDevConfig } from '../../temporal.config';

/** The shared test server's address (COUNTERSIGN_TEST_ADDRESS, which the jest globalSetup sets). */
export function testAddress(): string {
  const { address } = loadDevConfig().test;
  if (!address) throw new Error('integration tests need the jest globalSetup (run them with `npm test`)');
  return address;
}
