import { ErrorCode } from '../protocol/errors';
import type { Member } from './member';

/** State of one consumer group under the classic rebalance protocol (Kafka's GroupMetadata). */
export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable';

export interface GroupProtocol {
  name: string;
  metadata: Buffer;
}

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResult {
  errorCode: number;
  assignment: Buffer;
}

export class Group {
  state: GroupState = 'Empty';
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, Member>();
  /** Static members (KIP-345): group.instance.id → the member id that holds it now. */
  private readonly instances = new Map<string, string>();
  rebalanceTimer: NodeJS.Timeout | undefined;
  /** Running while an empty group's first rebalance waits for more members. */
  initialDelayTimer: NodeJS.Timeout | undefined;

  constructor(readonly id: string) {}

  add(m: Member): void {
    this.members.set(m.memberId, m);
    if (m.groupInstanceId !== null) this.instances.set(m.groupInstanceId, m.memberId);
  }

  remove(m: Member): void {
    this.members.delete(m.memberId);
    if (m.groupInstanceId !== null && this.instances.get(m.groupInstanceId) === m.memberId) this.instances.delete(m.groupInstanceId);
  }

  staticMember(groupInstanceId: string): Member | undefined {
    const memberId = this.instances.get(groupInstanceId);
    return memberId === undefined ? undefined : this.members.get(memberId);
  }

  /**
   * A static member came back under a new member id: it takes the old one's place (assignment, leadership)
   * so the group needs no rebalance; the old id is fenced from then on.
   */
  replaceStaticMember(old: Member, newMemberId: string): Member {
    const member: Member = { ...old, memberId: newMemberId, joinWaiter: undefined, syncWaiter: undefined };
    this.remove(old);
    this.add(member);
    if (this.leaderId === old.memberId) this.leaderId = newMemberId;
    return member;
  }

  /**
   * Kafka's check of a member's identity: with an instance id, that instance must be held by this member id
   * (another id is FENCED_INSTANCE_ID: a newer process took it over); without, the member id must be known.
   */
  memberError(memberId: string, groupInstanceId: string | null | undefined): number {
    if (groupInstanceId == null) return this.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
    const current = this.instances.get(groupInstanceId);
    if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    return current === memberId ? ErrorCode.NONE : ErrorCode.FENCED_INSTANCE_ID;
  }

  /** Protocol names every member supports (all of them when the group has no members). */
  private commonProtocols(): Set<string> | null {
    let common: string[] | null = null;
    for (const m of this.members.values()) {
      const names = m.protocols.map((p) => p.name);
      common = common === null ? names : common.filter((n) => names.includes(n));
    }
    return common === null ? null : new Set(common);
  }

  /** Whether a (re)joining member fits the group's protocol type and shares a protocol with the rest. */
  accepts(protocolType: string, protocols: GroupProtocol[], memberId: string): boolean {
    if (this.members.size === 0 || (this.members.size === 1 && this.members.has(memberId))) return protocols.length > 0;
    if (this.protocolType !== protocolType) return false;
    const others = [...this.members.values()].filter((m) => m.memberId !== memberId);
    return protocols.some((p) => others.every((m) => m.protocols.some((q) => q.name === p.name)));
  }

  /** The protocol all members support that most members list first (Kafka's vote). */
  selectProtocol(): string | null {
    const common = this.commonProtocols();
    if (!common || common.size === 0) return null;
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const pick = m.protocols.find((p) => common.has(p.name));
      if (pick) votes.set(pick.name, (votes.get(pick.name) ?? 0) + 1);
    }
    return [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  }

  allJoined(): boolean {
    for (const m of this.members.values()) if (!m.joinWaiter) return false;
    return this.members.size > 0;
  }

  maxRebalanceTimeout(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }
}
