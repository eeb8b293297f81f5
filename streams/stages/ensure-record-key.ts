import { DeltabrokerError } from '../../src/errors';
import type { LoadedStates } from '../batch-state-view';
import { required } from '../context';
import { STAGES } from '../../src/log/topology';
import { stage } from './stage-operator';

/**
 * Stage 3: the tenant has the entity with this key — a create needs a new (or deleted) key, an update or delete
 * an existing one — and, when the delta names an expectedVersion, the record is at that version.
 */
export const ensureRecordKey = (states: LoadedStates) =>
  stage(STAGES.recordKey, (ctx) => {
    const config = required(ctx, 'config');
    const { delta } = ctx;
    const current = states.get({ tenant: delta.tenant, entity: delta.entity, key: delta.key });
    const exists = current.version > 0 && !current.deleted;
    if (delta.operation === 'create' && exists) {
      conflict('already-exists', `${config.entity} '${delta.key.slice(0, 64)}' already exists (version ${current.version})`);
    }
    if (delta.operation !== 'create' && !exists) {
      throw new DeltabrokerError('DB_NOT_FOUND', `${config.entity} '${delta.key.slice(0, 64)}' does not exist`, { field: 'key', rule: 'exists' });
    }
    if (delta.expectedVersion !== null && delta.expectedVersion !== (exists ? current.version : 0)) {
      conflict('expected-version', `expected version ${delta.expectedVersion}, the record is at ${exists ? current.version : 0}`);
    }
    ctx.current = current;
    ctx.nextVersion = current.version + 1;
  });

function conflict(rule: string, message: string): never {
  throw new DeltabrokerError('DB_CONFLICT', message, { field: rule === 'expected-version' ? 'expectedVersion' : 'key', rule });
}
