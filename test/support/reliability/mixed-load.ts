import type { DeltaSender } from './delta-sender';
import type { OperationResult } from './load-loops';
import type { ReadKind, ReadLoad } from './read-load';
import type { WriteLoad } from './write-load';

export type OperationKind = 'httpWrite' | 'kafkaDelta' | ReadKind;

export interface MixedResult extends OperationResult {
  kind: OperationKind;
  /** The write's delta id (HTTP writes and Kafka deltas). */
  deltaId?: string;
}

/**
 * The soak's fixed mix, in a cycle of ten operations: 3 HTTP writes, 2 Kafka deltas, 2 reads by key, 2 RQL lists and
 * 1 DSL search (half writes, half reads). A cycle rather than a random pick, so every window of the run has the mix.
 */
export const MIX: readonly OperationKind[] = [
  'httpWrite',
  'kafkaDelta',
  'readByKey',
  'rqlList',
  'httpWrite',
  'kafkaDelta',
  'readByKey',
  'rqlList',
  'httpWrite',
  'search',
];

export class MixedLoad {
  private next = 0;

  constructor(
    private readonly writes: WriteLoad,
    private readonly deltas: DeltaSender,
    private readonly reads: ReadLoad,
  ) {}

  async one(): Promise<MixedResult> {
    const kind = MIX[this.next++ % MIX.length] as OperationKind;
    switch (kind) {
      case 'httpWrite':
        return { kind, ...(await this.writes.one()) };
      case 'kafkaDelta':
        return { kind, ...(await this.deltas.one()) };
      default:
        return { kind, ...(await this.reads.one(kind)) };
    }
  }
}
