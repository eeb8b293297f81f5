import { DeltabrokerError } from '../../src/errors';
import { required } from '../context';
import { STAGES, hasReservedPersistenceTopic } from '../../src/log/topology';
import { stage } from './stage-operator';

/** Stage 4: the entity's persistence topic, from its configuration; a reserved topic is refused. */
export const locatePersistenceTopic = () =>
  stage(STAGES.locate, (ctx) => {
    const config = required(ctx, 'config');
    const topic = config.persistence.topic;
    if (hasReservedPersistenceTopic(config)) {
      throw new DeltabrokerError('DB_VALIDATION', `the persistence topic '${topic}' of ${config.entity} is reserved; fix the entity configuration`, {
        field: 'persistence.topic',
        rule: 'reserved-topic',
      });
    }
    ctx.persistenceTopic = topic;
  });
