import {
  PIPELINE_GROUPS,
  REJECTION_METRICS_GROUP,
  SEARCH_PROJECTOR_GROUP,
  SUBJECT_ERASURE_GROUPS,
  TABLE_PROJECTOR_GROUP,
  isLastingServiceGroup,
  outcomeWaiterGroup,
} from '../../../src/log/topology';

/** Which of the service's groups the embedded broker keeps forever, and which expire once nobody is in them. */
describe('lasting service groups', () => {
  test.each([
    PIPELINE_GROUPS.pipeline,
    PIPELINE_GROUPS.globalEmitter,
    PIPELINE_GROUPS.localEmitter('dc2'),
    TABLE_PROJECTOR_GROUP,
    SEARCH_PROJECTOR_GROUP,
    ...Object.values(SUBJECT_ERASURE_GROUPS),
    REJECTION_METRICS_GROUP,
  ])('%s outlives any instance', (group) => {
    expect(isLastingServiceGroup(group)).toBe(true);
  });

  test.each([
    ['an instance’s outcome group', outcomeWaiterGroup('5b0c9d1e-7f6a-4c1b-9e0d-2a3b4c5d6e7f')],
    ['a replay’s temporary group', 'deltabroker-replay-acme.merchant_account.events-5b0c9d1e'],
    ['a client’s group', 'reporting'],
    ['a client’s replay group', 'log-tool-replay-deltas-5b0c9d1e'],
  ])('%s expires', (_what, group) => {
    expect(isLastingServiceGroup(group)).toBe(false);
  });
});
