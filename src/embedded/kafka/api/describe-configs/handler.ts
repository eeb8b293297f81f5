import { ErrorCode } from '../../protocol/errors';
import { topicConfigEntries } from '../../storage/log-config';
import type { BrokerContext } from '../../broker';
import type { ApiHandler } from '../types';
import { ConfigSource, type DescribeConfigsRequest, type DescribeConfigsResponse, type DescribedConfig, ResourceType } from './codec';

function brokerConfigs(broker: BrokerContext): DescribedConfig[] {
  const o = broker.options;
  const values: Record<string, string> = {
    'num.partitions': String(o.defaultPartitions),
    'auto.create.topics.enable': String(o.autoCreateTopics),
    'default.replication.factor': '1',
    'offsets.topic.replication.factor': '1',
    'log.retention.ms': String(o.log.retentionMs),
    'log.retention.bytes': String(o.log.retentionBytes),
    'log.segment.bytes': String(o.log.segmentBytes),
    'message.max.bytes': String(o.log.maxMessageBytes),
    'log.message.timestamp.type': o.log.messageTimestampType,
    'socket.request.max.bytes': String(o.maxFrameBytes),
    'group.min.session.timeout.ms': String(o.groupMinSessionTimeoutMs),
    'group.max.session.timeout.ms': String(o.groupMaxSessionTimeoutMs),
    'group.initial.rebalance.delay.ms': String(o.groupInitialRebalanceDelayMs),
  };
  return Object.entries(values).map(([name, value]) => ({
    name,
    value,
    readOnly: true,
    isDefault: false,
    configSource: ConfigSource.STATIC_BROKER,
    isSensitive: false,
  }));
}

/** Topic configs (explicit and defaulted) and the node's static settings; read-only. */
export const handleDescribeConfigs: ApiHandler<DescribeConfigsRequest, DescribeConfigsResponse> = (broker, req) => ({
  throttleTimeMs: 0,
  results: req.resources.map((res) => {
    const base = { errorCode: ErrorCode.NONE as number, errorMessage: null as string | null, resourceType: res.resourceType, resourceName: res.resourceName };
    let configs: DescribedConfig[];
    if (res.resourceType === ResourceType.TOPIC) {
      const topic = broker.logs.topic(res.resourceName);
      if (!topic) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'unknown topic', configs: [] };
      configs = topicConfigEntries(topic.config, topic.configs).map((e) => ({
        name: e.name,
        value: e.value,
        readOnly: false,
        isDefault: e.isDefault,
        configSource: e.isDefault ? ConfigSource.DEFAULT : ConfigSource.TOPIC,
        isSensitive: false,
      }));
    } else if (res.resourceType === ResourceType.BROKER) {
      configs = brokerConfigs(broker);
    } else {
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `resource type ${res.resourceType} not supported`, configs: [] };
    }
    const keys = res.configurationKeys;
    return { ...base, configs: keys === null || keys.length === 0 ? configs : configs.filter((c) => keys.includes(c.name)) };
  }),
});
