import { InMemoryRecordStateStore } from '../../../src/store/record-states/in-memory-record-states';
import { describeRecordStateContract } from '../../support/record-state-contract';

describeRecordStateContract('in memory', async () => new InMemoryRecordStateStore());
