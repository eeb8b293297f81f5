/**
 * A topic's compaction settings, from its explicit configs as Kafka names them. Only topics whose
 * `cleanup.policy` includes `compact` are cleaned.
 */
export interface CompactionConfig {
  /** `delete.retention.ms`: how long a tombstone (null value) stays readable once it is the latest of its key. */
  deleteRetentionMs: number;
  /** `min.cleanable.dirty.ratio`: clean when the not-yet-cleaned share of closed segments' bytes reaches this. */
  minCleanableDirtyRatio: number;
}

export const DEFAULT_COMPACTION: CompactionConfig = { deleteRetentionMs: 24 * 3600 * 1000, minCleanableDirtyRatio: 0.5 };

const isCompacted = (policy: string | undefined): boolean => policy !== undefined && policy.split(',').includes('compact');

/** The name of the first invalid compaction config, if any (CreateTopics and AlterConfigs refuse it). */
export function invalidCompactionConfig(configs: Record<string, string>): string | undefined {
  const retention = configs['delete.retention.ms'];
  if (retention !== undefined && !(Number.isSafeInteger(Number(retention)) && Number(retention) >= 0)) return 'delete.retention.ms';
  const ratio = configs['min.cleanable.dirty.ratio'];
  if (ratio !== undefined && !(ratio.trim() !== '' && Number(ratio) >= 0 && Number(ratio) <= 1)) return 'min.cleanable.dirty.ratio';
  return undefined;
}

/** Null when the topic is not compacted. */
export function compactionConfig(configs: Record<string, string>): CompactionConfig | null {
  if (!isCompacted(configs['cleanup.policy'])) return null;
  const retention = configs['delete.retention.ms'];
  const ratio = configs['min.cleanable.dirty.ratio'];
  return {
    deleteRetentionMs: retention === undefined ? DEFAULT_COMPACTION.deleteRetentionMs : Number(retention),
    minCleanableDirtyRatio: ratio === undefined ? DEFAULT_COMPACTION.minCleanableDirtyRatio : Number(ratio),
  };
}
