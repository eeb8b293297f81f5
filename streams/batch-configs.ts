import { DeltabrokerError, isDeltabrokerError } from '../src/errors';
import type { DeltaEnvelope } from '../src/log';
import type { EntityConfig, EntityConfigSource } from '../src/tenant';
import { STAGES } from '../src/log/topology';

/**
 * The entity configurations one batch of deltas needs, looked up once per (tenant, entity) before the batch is
 * decided, so stage 1 is a synchronous look-up. A configuration that is refused (invalid, or mapping onto another's
 * names: a refusal that is not retriable) is that batch's verdict for those deltas, so they reach the rejections
 * topic and the partition goes on; a tenant API that does not answer fails the batch, which is then retried.
 */
export class BatchConfigs {
  private constructor(private readonly found: ReadonlyMap<string, EntityConfig | undefined | DeltabrokerError>) {}

  static async load(source: EntityConfigSource, deltas: readonly DeltaEnvelope[]): Promise<BatchConfigs> {
    const pairs = new Map(deltas.map((d) => [keyOf(d.tenant, d.entity), d]));
    const found = new Map<string, EntityConfig | undefined | DeltabrokerError>();
    await Promise.all(
      [...pairs].map(async ([key, d]) => {
        try {
          found.set(key, await source.get(d.tenant, d.entity));
        } catch (cause) {
          if (isDeltabrokerError(cause) && !cause.retriable) return void found.set(key, cause);
          throw new DeltabrokerError(
            'DB_DEPENDENCY_UNAVAILABLE',
            'the tenant API did not answer',
            { field: 'dispatch.entity', stage: STAGES.entityConfig },
            { cause },
          );
        }
      }),
    );
    return new BatchConfigs(found);
  }

  /** The configuration, or undefined when the tenant has no such entity; throws the refusal of a refused one. */
  get(tenant: string, entity: string): EntityConfig | undefined {
    const config = this.found.get(keyOf(tenant, entity));
    if (config instanceof DeltabrokerError) throw config;
    return config;
  }
}

const keyOf = (tenant: string, entity: string): string => `${tenant}\u0000${entity}`;
