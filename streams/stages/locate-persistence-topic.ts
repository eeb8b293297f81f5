import { DeltabrokerError } from '../../src/errors';
import { required, STAGES } from '../context';
import { PIPELINE_TOPICS } from '../topics';
import { stage } from './stage-operator';

const RESERVED = new Set<string>(Object.values(PIPELINE_TOPICS));

/**
 * Stage 4: the entity's persistence topic, from its configuration. A topic the pipeline itself reads or
 * writes (deltas, rejections, outcomes, the entity's action topics) is refused: writing events there would
 * loop them back into the pipeline or mix them with notifications.
 */
export const locatePersistenceTopic = () =>
  stage(STAGES.locate, (ctx) => {
    const config = required(ctx, 'config');
    const topic = config.persistence.topic;
    const { globalTopic, localTopicPrefix } = config.notifications;
    if (RESERVED.has(topic) || topic === globalTopic || topic.startsWith(`${localTopicPrefix}.`)) {
      throw new DeltabrokerError('DB_VALIDATION', `the persistence topic '${topic}' of ${config.entity} is reserved; fix the entity configuration`, {
        field: 'persistence.topic',
        rule: 'reserved-topic',
      });
    }
    return { ...ctx, persistenceTopic: topic };
  });
