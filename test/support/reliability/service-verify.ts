import { sleep } from './resilient-producer';

export type VerifyOutcome = { available: false } | { available: true; equal: boolean; report: Record<string, unknown> };

/**
 * The service's own check (`POST /admin/verify`: a fresh replay of the persistence topic compared with the live
 * table), when this build has the route; the suite's own fold of the log is checked either way.
 */
export async function verifyThroughService(url: string, adminToken: string, entity: string, timeoutMs = 300_000): Promise<VerifyOutcome> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` };
  const started = await fetch(`${url}/admin/verify`, { method: 'POST', headers, body: JSON.stringify({ entity }) });
  if (started.status === 404 || started.status === 405) return { available: false };
  if (started.status !== 202) throw new Error(`POST /admin/verify answered ${started.status}: ${await started.text()}`);
  const job = (await started.json()) as { id: string };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = (await (await fetch(`${url}/admin/replay/${job.id}`, { headers })).json()) as {
      status: string;
      result?: Record<string, unknown>;
      error?: unknown;
    };
    if (view.status === 'succeeded' && view.result) return { available: true, equal: view.result.equal === true, report: view.result };
    if (view.status !== 'running') throw new Error(`verify job ${job.id} ended ${view.status}: ${JSON.stringify(view.error)}`);
    if (Date.now() > deadline) throw new Error(`verify job ${job.id} did not finish within ${timeoutMs} ms`);
    await sleep(500);
  }
}
