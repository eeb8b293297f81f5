/** Names given more than once in one request (Kafka refuses each such entry with INVALID_REQUEST). */
export function repeatedNames(names: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const n of names) (seen.has(n) ? repeated : seen).add(n);
  return repeated;
}
