import type { Client } from 'pg';

/** COPY … FROM STDIN in text format on a plain pg client (pg's Submittable interface; no extra package). */
export function copyIn(client: Client, statement: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let failure: Error | undefined;
    const copy = {
      submit: (connection: { query(text: string): void }) => connection.query(statement),
      handleCopyInResponse: (connection: { sendCopyFromChunk(b: Buffer): void; endCopyFrom(): void }) => {
        for (let at = 0; at < data.length; at += 64 * 1024) connection.sendCopyFromChunk(data.subarray(at, at + 64 * 1024));
        connection.endCopyFrom();
      },
      handleCommandComplete: () => undefined,
      handleError: (error: Error) => (failure = error),
      handleReadyForQuery: () => {
        if (settled) return;
        settled = true;
        if (failure === undefined) resolve();
        else reject(failure);
      },
    };
    client.query(copy as never);
  });
}

/** One value in COPY's text format. */
export const copyText = (value: unknown): string =>
  value === null || value === undefined ? '\\N' : String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

/** Rows (arrays of values) as one COPY text payload. */
export const copyRows = (rows: readonly (readonly unknown[])[]): Buffer => Buffer.from(rows.map((row) => `${row.map(copyText).join('\t')}\n`).join(''));

/**
 * The fastest of `tries` COPYs of `data` into `table` (emptied before each), in seconds. One COPY of a benchmark's
 * rows ranged from 88k to 376k rows/s within one run (a checkpoint or earlier writes landing on it); the baseline is
 * what the machine allows, so the fastest try stands for it.
 */
export async function bestCopySeconds(client: Client, table: string, data: Buffer, tries = 3): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries; i++) {
    await client.query(`truncate ${table}`);
    const started = process.hrtime.bigint();
    await copyIn(client, `copy ${table} from stdin`, data);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  }
  return best;
}
