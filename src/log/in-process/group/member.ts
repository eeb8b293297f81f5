/**
 * One member of a consumer group, talking to the broker's GroupCoordinator directly instead of through
 * JoinGroup/SyncGroup/Heartbeat/LeaveGroup requests: the same state machine, generations and session
 * timeouts, so it shares a group with kafkajs (or Java) members. When it leads, it computes the assignment
 * for every member, its own and theirs, under the `RoundRobinAssigner` protocol.
 */
import type { GroupCoordinator, MemberRef } from '../../../embedded/kafka/group/coordinator';
import { ErrorCode } from '../../../embedded/kafka/protocol/errors';
import {
  type Assignment,
  CONSUMER_PROTOCOL_TYPE,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  ROUND_ROBIN,
} from './consumer-protocol';
import { assignRoundRobin, type Subscriber } from './round-robin';

export interface GroupMemberOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly clientId: string;
  /** As kafkajs's defaults: 30 s without a heartbeat evicts a member; 60 s to rejoin during a rebalance. */
  readonly sessionTimeoutMs?: number;
  readonly rebalanceTimeoutMs?: number;
}

export interface Generation {
  readonly generationId: number;
  readonly memberId: string;
  readonly assignment: Assignment;
}

/** A coordinator answer that retrying cannot mend (a bad group id, a protocol no other member speaks, …). */
export class GroupJoinError extends Error {
  constructor(
    readonly groupId: string,
    readonly errorCode: number,
  ) {
    super(`joining consumer group '${groupId}' failed with Kafka error ${errorCode}`);
    this.name = 'GroupJoinError';
  }
}

/** Errors after which the member simply joins again. */
const REJOIN = new Set<number>([ErrorCode.REBALANCE_IN_PROGRESS, ErrorCode.ILLEGAL_GENERATION, ErrorCode.UNKNOWN_MEMBER_ID]);

export class GroupMember {
  private memberId = '';
  private generationId = -1;
  private readonly subscription: Buffer;

  constructor(
    private readonly groups: GroupCoordinator,
    private readonly partitionsOf: (topic: string) => number,
    private readonly o: GroupMemberOptions,
  ) {
    this.subscription = encodeSubscription(o.topics);
  }

  get ref(): MemberRef {
    return { groupId: this.o.groupId, generationId: this.generationId, memberId: this.memberId };
  }

  /** Joins (or rejoins) the group and answers this member's partitions; null when `signal` aborted first. */
  async join(signal: AbortSignal): Promise<Generation | null> {
    while (!signal.aborted) {
      const joined = await this.groups.join({
        groupId: this.o.groupId,
        sessionTimeoutMs: this.o.sessionTimeoutMs ?? 30_000,
        rebalanceTimeoutMs: this.o.rebalanceTimeoutMs ?? 60_000,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocols: [{ name: ROUND_ROBIN, metadata: this.subscription }],
        clientId: this.o.clientId,
        clientHost: 'in-process',
      });
      if (joined.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
        this.memberId = '';
        continue;
      }
      if (joined.errorCode !== ErrorCode.NONE) throw new GroupJoinError(this.o.groupId, joined.errorCode);
      this.memberId = joined.memberId;
      this.generationId = joined.generationId;
      const assignments = joined.leader === joined.memberId ? this.assign(joined.members) : [];
      if (signal.aborted) break;
      const synced = await this.groups.sync(this.ref, assignments);
      if (REJOIN.has(synced.errorCode)) {
        if (synced.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
        continue;
      }
      if (synced.errorCode !== ErrorCode.NONE) throw new GroupJoinError(this.o.groupId, synced.errorCode);
      const assignment = decodeAssignment(synced.assignment);
      if (!assignment) throw new GroupJoinError(this.o.groupId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      return { generationId: this.generationId, memberId: this.memberId, assignment };
    }
    return null;
  }

  private assign(members: readonly { memberId: string; metadata: Buffer }[]): { memberId: string; assignment: Buffer }[] {
    const subscribers: Subscriber[] = members.map((m) => ({ memberId: m.memberId, topics: decodeSubscription(m.metadata) ?? [] }));
    const plan = assignRoundRobin(subscribers, this.partitionsOf);
    return [...plan].map(([memberId, assignment]) => ({ memberId, assignment: encodeAssignment(assignment) }));
  }

  /** Keeps the session alive; NONE, or the error that says this member must join again. */
  heartbeat(): number {
    return this.groups.heartbeat(this.ref);
  }

  /** Whether this member may commit now (its generation is current): NONE or the coordinator's error. */
  mayCommit(): number {
    return this.groups.commitAllowed(this.ref);
  }

  leave(): void {
    if (this.memberId) this.groups.leave(this.o.groupId, this.memberId);
    this.memberId = '';
    this.generationId = -1;
  }
}
