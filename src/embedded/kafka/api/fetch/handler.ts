import { ErrorCode } from '../../protocol/errors';
import type { PartitionLog } from '../../storage/partition-log';
import type { BrokerContext } from '../../broker';
import type { ApiHandler } from '../types';
import type { FetchPartitionResponse, FetchRequest, FetchResponse } from './codec';

/** Fetch's isolation level 1: only records of committed transactions (and of no transaction). */
const READ_COMMITTED = 1;

/**
 * Serves whole stored batches from the one containing the fetch offset, up to the high watermark, or for
 * read_committed up to the last stable offset, with the aborted transactions in that range so the client drops
 * their records (KIP-98). read_uncommitted gets everything; clients skip the control batches themselves.
 * Long-polls: with fewer than minBytes available the request is parked until a partition it reads
 * advances, maxWaitMs passes, or the broker stops. Never spins.
 */
export const handleFetch: ApiHandler<FetchRequest, FetchResponse> = async (broker, req) => {
  const deadline = Date.now() + Math.max(0, req.maxWaitMs);
  for (;;) {
    const logs = watchedLogs(broker, req);
    const marks = logs.map((l) => l.highWatermark);
    const { response, bytes, failed } = await readOnce(broker, req);
    const left = deadline - Date.now();
    if (bytes >= req.minBytes || failed || left <= 0 || broker.stopping.aborted) return response;
    await waitForData(broker, logs, marks, left);
  }
};

function watchedLogs(broker: BrokerContext, req: FetchRequest): PartitionLog[] {
  const logs: PartitionLog[] = [];
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const log = broker.logs.partition(t.topic, p.partition);
      if (log) logs.push(log);
    }
  }
  return logs;
}

async function readOnce(broker: BrokerContext, req: FetchRequest): Promise<{ response: FetchResponse; bytes: number; failed: boolean }> {
  let budget = req.maxBytes;
  let bytes = 0;
  let failed = false;
  const responses: FetchResponse['responses'] = [];
  for (const t of req.topics) {
    const partitions: FetchPartitionResponse[] = [];
    for (const p of t.partitions) {
      const log = broker.logs.partition(t.topic, p.partition);
      if (!log) {
        failed = true;
        partitions.push({
          partitionIndex: p.partition,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          highWatermark: -1,
          lastStableOffset: -1,
          logStartOffset: -1,
          abortedTransactions: null,
          records: null,
        });
        continue;
      }
      // At least one whole batch per partition, even past the limits (KIP-74), so big batches never stall.
      const limit = Math.max(0, Math.min(p.partitionMaxBytes, budget));
      const committedOnly = req.isolationLevel === READ_COMMITTED;
      const upTo = committedOnly ? log.lastStableOffset : log.highWatermark;
      // Between the last stable offset and the high watermark a read_committed reader waits: nothing yet, no error.
      const waiting = committedOnly && p.fetchOffset > upTo && p.fetchOffset <= log.highWatermark;
      const read = waiting ? { errorCode: ErrorCode.NONE, records: null } : await log.read(p.fetchOffset, limit, upTo);
      if (read.errorCode !== ErrorCode.NONE) failed = true;
      const size = read.records?.length ?? 0;
      bytes += size;
      budget -= size;
      partitions.push({
        partitionIndex: p.partition,
        errorCode: read.errorCode,
        highWatermark: log.highWatermark,
        lastStableOffset: log.lastStableOffset,
        logStartOffset: log.logStartOffset,
        abortedTransactions: committedOnly
          ? log.transactions.abortedBetween(p.fetchOffset, upTo).map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset }))
          : null,
        records: read.records ? [read.records] : null,
      });
    }
    responses.push({ topic: t.topic, partitions });
  }
  return { response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses }, bytes, failed };
}

/** Resolves when any log moved past its mark, after `ms`, or when the broker stops. */
function waitForData(broker: BrokerContext, logs: PartitionLog[], marks: number[], ms: number): Promise<void> {
  if (logs.some((l, i) => l.highWatermark !== marks[i])) return Promise.resolve();
  return new Promise((resolve) => {
    const offs: (() => void)[] = [];
    const done = (): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      broker.stopping.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const l of logs) offs.push(l.onAdvance(done));
    broker.stopping.addEventListener('abort', done);
  });
}
