/**
 * A request to the schema registry outside its client (readiness, writer schemas by id), tried once more when the
 * connection failed before any answer (`fetch` throws a TypeError then; an HTTP status is an answer, a timeout is
 * not retried). A registry that drops one kept-alive connection costs a retry, not a failed check: every request
 * sent this way is a read, or a compatibility test that changes nothing.
 */
export async function registryFetch(url: string, init: RequestInit & { timeoutMs: number }): Promise<Response> {
  const { timeoutMs, ...request } = init;
  try {
    return await fetch(url, { ...request, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    // By name: a TypeError from another realm (a test runner's sandbox) is no instance of this one's.
    if ((error as Error | undefined)?.name !== 'TypeError') throw error;
    return fetch(url, { ...request, signal: AbortSignal.timeout(timeoutMs) });
  }
}
