import { timingSafeEqual, createHash } from 'node:crypto';

/**
 * SASL/PLAIN (RFC 4616): one message `authzid NUL user NUL password`. Returns the user when the password
 * matches, else undefined. An authorization id other than the user itself is refused (no impersonation).
 */
export function authenticatePlain(message: Buffer, passwordOf: (user: string) => string | undefined): string | undefined {
  const parts = message.toString('utf8').split('\0');
  if (parts.length !== 3) return undefined;
  const [authzid, user, password] = parts as [string, string, string];
  if (authzid !== '' && authzid !== user) return undefined;
  const expected = passwordOf(user);
  if (expected === undefined) return undefined;
  // Compare digests so the comparison takes the same time whatever the lengths.
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(password), digest(expected)) ? user : undefined;
}
