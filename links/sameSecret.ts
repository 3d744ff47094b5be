// Comparing a secret a request carries with the one expected, in constant time (over SHA-256 digests, so the
// lengths do not leak either). Shared by the link tokens and the HTTP services' bearer checks.
import { createHash, timingSafeEqual } from 'node:crypto';

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
