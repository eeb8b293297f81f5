import { eventually, readTopic } from '../topics';
import { diffProjection, foldEvents } from './log-fold';
import { EVENTS_TOPIC, schemas, type ServiceUnderTest } from './service-harness';

export interface AppliedOnceReport {
  writes: number;
  /** Written deltas refused by the pipeline (none was meant to be), as `id: problem`. */
  refused: string[];
  /** Written deltas with no event on the persistence topic, or more than one. */
  notOnce: string[];
  events: number;
  tableRows: number;
  /** Differences between the projected table and a fresh fold of the persistence topic. */
  tableVsLog: string[];
}

/**
 * Waits until every written delta is decided and the table projector has caught up with the persistence topic, then
 * checks that each delta was accepted and has exactly one event, and that the table equals a fold of the log.
 */
export async function checkAppliedOnce(sut: ServiceUnderTest, deltaIds: readonly string[], timeoutMs = 300_000): Promise<AppliedOnceReport> {
  await eventually(
    () => sut.count(`select count(*) as n from delta_outcomes where delta_id = any($1)`, [deltaIds]),
    (n) => n >= deltaIds.length,
    timeoutMs,
  );
  const refused = await sut.pg.query<{ delta_id: string; problem: unknown }>(
    `select delta_id, problem from delta_outcomes where delta_id = any($1) and status <> 'accepted' limit 20`,
    [deltaIds],
  );

  const log = await sut.openLog();
  try {
    const events = await readTopic(log, EVENTS_TOPIC, schemas.EntityEvent);
    const perDelta = new Map<string, number>();
    for (const e of events) perDelta.set(e.value.deltaId, (perDelta.get(e.value.deltaId) ?? 0) + 1);
    const notOnce = deltaIds.filter((id) => perDelta.get(id) !== 1).map((id) => `${id}: ${perDelta.get(id) ?? 0} events`);

    await eventually(
      () =>
        sut.count(`select coalesce(sum(next_offset), 0) as n from projection_checkpoints where projector = 'deltabroker-projector-postgres' and topic = $1`, [
          EVENTS_TOPIC,
        ]),
      (n) => n >= events.length,
      timeoutMs,
    );
    const rows = await sut.pg.query<{ key: string; version: string; doc: Record<string, unknown> }>(
      `select _doc->>'merchantId' as key, _version as version, _doc as doc from tenant_acme.merchant_account`,
    );
    return {
      writes: deltaIds.length,
      refused: refused.rows.map((r) => `${r.delta_id}: ${JSON.stringify(r.problem)}`),
      notOnce: notOnce.slice(0, 20),
      events: events.length,
      tableRows: rows.rows.length,
      tableVsLog: diffProjection(
        foldEvents(events),
        rows.rows.map((r) => ({ key: r.key, version: Number(r.version), doc: r.doc })),
      ),
    };
  } finally {
    await log.close();
  }
}
