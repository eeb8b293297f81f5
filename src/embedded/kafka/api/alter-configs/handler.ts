import { ErrorCode } from '../../protocol/errors';
import type { BrokerContext } from '../../broker';
import { ResourceType } from '../describe-configs/codec';
import { repeatedNames } from '../repeated-names';
import type { ApiHandler } from '../types';
import type { KafkaPrincipal } from '../../security/authorizer';
import type { AlterConfigsRequest, AlterConfigsResourceResponse, AlterConfigsResponse } from './codec';

/** A topic's new explicit configs, or why they cannot be. */
export type NextConfigs = { configs: Record<string, string> } | { errorCode: number; message: string };

interface Resource {
  resourceType: number;
  resourceName: string;
  configs: readonly { name: string }[];
}

/**
 * Applies a config change to each resource on its own. Only topics can change: the broker's settings are
 * options fixed when it starts. `next` turns a topic's current explicit configs into the new ones, or names
 * why it cannot.
 */
export function alterEachResource<R extends Resource>(
  broker: BrokerContext,
  principal: KafkaPrincipal,
  resources: readonly R[],
  validateOnly: boolean,
  next: (resource: R, current: Readonly<Record<string, string>>) => NextConfigs,
): AlterConfigsResourceResponse[] {
  const key = (r: Resource): string => `${r.resourceType}:${r.resourceName}`;
  const repeated = repeatedNames(resources.map(key));
  return resources.map((res) => {
    const answer = (errorCode: number, errorMessage: string | null = null): AlterConfigsResourceResponse => ({
      errorCode,
      errorMessage,
      resourceType: res.resourceType,
      resourceName: res.resourceName,
    });
    if (repeated.has(key(res))) return answer(ErrorCode.INVALID_REQUEST, 'resource named twice in one request');
    if (repeatedNames(res.configs.map((c) => c.name)).size > 0) return answer(ErrorCode.INVALID_REQUEST, 'config named twice for one resource');
    if (res.resourceType === ResourceType.BROKER)
      return answer(ErrorCode.INVALID_CONFIG, 'broker configs of the embedded broker are options set when it starts');
    if (res.resourceType !== ResourceType.TOPIC) return answer(ErrorCode.INVALID_REQUEST, `resource type ${res.resourceType} not supported`);
    const verdict = broker.authorizer.topic(principal, 'alter', res.resourceName);
    if (verdict.errorCode !== ErrorCode.NONE) return answer(verdict.errorCode, verdict.message ?? null);
    const topic = broker.logs.topic(res.resourceName);
    if (!topic) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no topic '${res.resourceName}'`);
    const change = next(res, topic.configs);
    if ('errorCode' in change) return answer(change.errorCode, change.message);
    const outcome = broker.logs.setTopicConfigs(res.resourceName, change.configs, validateOnly);
    return answer(outcome.errorCode, outcome.message ?? null);
  });
}

/** The given configs become the topic's whole explicit set. */
export const handleAlterConfigs: ApiHandler<AlterConfigsRequest, AlterConfigsResponse> = (broker, req, ctx) => ({
  throttleTimeMs: 0,
  responses: alterEachResource(broker, ctx.session.principal, req.resources, req.validateOnly, (res) => {
    const configs: Record<string, string> = {};
    for (const c of res.configs) if (c.value !== null) configs[c.name] = c.value;
    return { configs };
  }),
});
