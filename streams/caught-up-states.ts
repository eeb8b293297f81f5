import { DeltabrokerError } from '../src/errors';
import type { DeltaEnvelope } from '../src/log';
import type { RecordStateStore } from '../src/store/record-states/port';
import { BatchStateView } from './batch-state-view';

/**
 * Deciding only on states the store still has. The store may keep the pipeline's verdicts less durably than the log
 * (PostgreSQL commits them without waiting for the WAL flush) and says when it may have lost some; the events are on
 * the log, so a catch-up brings the states back before any delta is decided on them.
 */

/** Catch-ups that find the store's mark lost again straight after: the batch fails and is retried later. */
const CATCH_UPS_PER_BATCH = 3;

/**
 * The catch-up, preceded by this process's mark in the store (a store that loses verdicts later loses the mark
 * too) and shared: rounds that find the mark lost at once wait for one catch-up.
 */
export function markedCatchUp(states: RecordStateStore, catchUp: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () =>
    (running ??= (async () => {
      await states.markCaughtUp();
      await catchUp();
    })().finally(() => {
      running = undefined;
    }));
}

/**
 * The batch's states, read from a store that kept every verdict since this process's last catch-up: when it may have
 * lost some (a database's crash recovery, a promoted replica), the store is caught up with the log and read again.
 */
export async function caughtUpStates(
  store: RecordStateStore,
  deltas: readonly DeltaEnvelope[],
  catchUp: (() => Promise<void>) | undefined,
): Promise<BatchStateView> {
  for (let catchUps = 0; ; catchUps++) {
    const view = await BatchStateView.load(store, deltas);
    if (!view.markLost || !catchUp) return view;
    if (catchUps === CATCH_UPS_PER_BATCH)
      throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'the state store lost its catch-up mark again after each catch-up', { stage: 'pipeline' });
    await catchUp();
  }
}
