import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { GroupCoordinator } from '../../../src/embedded/kafka/group/coordinator';
import { OffsetStore } from '../../../src/embedded/kafka/group/offset-store';

/**
 * A group coordinator on a fresh offset store for each test of the file (short session bounds, no initial rebalance
 * delay); `current()` is the test's coordinator.
 */
export function coordinatorPerTest(prefix: string): { current: () => GroupCoordinator } {
  let dir: string;
  let store: OffsetStore;
  let coordinator: GroupCoordinator;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    store = OffsetStore.open(dir, 'never', 1000, silentLogger());
    coordinator = new GroupCoordinator(
      store,
      { minSessionTimeoutMs: 100, maxSessionTimeoutMs: 60_000, initialRebalanceDelayMs: 0, sessionCheckIntervalMs: 20 },
      silentLogger(),
    );
  });
  afterEach(async () => {
    coordinator.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { current: () => coordinator };
}
