/** Metrics, lag and the log admin port: what the composition root, the /metrics route and the CLI use. */
export { METRIC_NAMES, ServiceMetrics, type LagSnapshot, type LagSource, type ServiceMetricsOptions } from './metrics';
export { instrumentHttp } from './http-metrics';
export { timeEncryption } from './crypto-timing';
export { countVerdict, countProjected } from './pipeline-metrics';
export { countRejections, rejectionLabels } from './rejection-metrics';
export { serviceLagSource, readCheckpoints, type ServiceLagOptions } from './service-lag';
export { consumerLag, projectionLag, watermarks, lagOf, type PartitionLag, type Checkpoint } from './lag';
export { serviceGroups, persistenceTopics, PROJECTORS, type GroupTopics } from './consumer-groups';
export { pipelineBacklog } from './service-lag';
