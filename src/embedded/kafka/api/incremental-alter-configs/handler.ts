import { ErrorCode } from '../../protocol/errors';
import type { AlterConfigsResponse } from '../alter-configs/codec';
import { alterEachResource, type NextConfigs } from '../alter-configs/handler';
import type { ApiHandler } from '../types';
import { ConfigOperation, type IncrementalAlterConfigsRequest, type IncrementalConfigChange } from './codec';

/** Topic configs whose value is a comma-separated list (the only ones APPEND and SUBTRACT apply to), with their defaults. */
const LIST_CONFIGS = new Map([['cleanup.policy', 'delete']]);

function apply(current: Readonly<Record<string, string>>, changes: readonly IncrementalConfigChange[]): NextConfigs {
  const configs = { ...current };
  for (const c of changes) {
    if (c.operation === ConfigOperation.DELETE) {
      delete configs[c.name];
      continue;
    }
    if (c.value === null) return { errorCode: ErrorCode.INVALID_REQUEST, message: `null value for ${c.name}` };
    if (c.operation === ConfigOperation.SET) {
      configs[c.name] = c.value;
      continue;
    }
    if (c.operation !== ConfigOperation.APPEND && c.operation !== ConfigOperation.SUBTRACT) {
      return { errorCode: ErrorCode.INVALID_REQUEST, message: `unknown config operation ${c.operation}` };
    }
    if (!LIST_CONFIGS.has(c.name)) return { errorCode: ErrorCode.INVALID_CONFIG, message: `${c.name} is not a list; APPEND and SUBTRACT apply to lists` };
    // As in Kafka, a list that was never set starts from its default.
    const items = (configs[c.name] ?? LIST_CONFIGS.get(c.name) ?? '').split(',').filter((x) => x !== '');
    const given = c.value.split(',').filter((x) => x !== '');
    const list = c.operation === ConfigOperation.APPEND ? [...items, ...given.filter((x) => !items.includes(x))] : items.filter((x) => !given.includes(x));
    if (list.length === 0) delete configs[c.name];
    else configs[c.name] = list.join(',');
  }
  return { configs };
}

/** Each named config is set, reset to its default (DELETE), or has list items added or removed. */
export const handleIncrementalAlterConfigs: ApiHandler<IncrementalAlterConfigsRequest, AlterConfigsResponse> = (broker, req, ctx) => ({
  throttleTimeMs: 0,
  responses: alterEachResource(broker, ctx.session.principal, req.resources, req.validateOnly, (res, current) => apply(current, res.configs)),
});
