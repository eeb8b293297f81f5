import type { Logger } from '../../../logger';
import { ErrorCode } from '../protocol/errors';
import { Group, type JoinResult, type SyncResult } from './group';
import { type JoinRequest, type Member, memberIdFor, newMember, sameProtocols, updateMember } from './member';
import type { OffsetCommitEntry, OffsetStore } from './offset-store';

export interface CoordinatorOptions {
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  /** Delay before the first rebalance of an empty group completes, so members starting together share it. */
  initialRebalanceDelayMs: number;
  /** How often member sessions are checked. */
  sessionCheckIntervalMs: number;
}

export interface MemberRef {
  groupId: string;
  generationId: number;
  memberId: string;
  /** Sent by static members (Heartbeat v3+, SyncGroup v3+, OffsetCommit v7+). */
  groupInstanceId?: string | null;
}

const failJoin = (errorCode: number, memberId = ''): JoinResult => ({
  errorCode,
  generationId: -1,
  protocolName: null,
  leader: '',
  memberId,
  members: [],
});

/**
 * The group coordinator: classic consumer-group protocol (JoinGroup / SyncGroup / Heartbeat / LeaveGroup)
 * with Kafka's state machine, session-timeout eviction, and committed offsets in the OffsetStore.
 * JoinGroup and SyncGroup answers wait (their connection is parked) until the rebalance step completes.
 */
export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();
  private readonly sessionTimer: NodeJS.Timeout;

  constructor(
    private readonly offsets: OffsetStore,
    private readonly opts: CoordinatorOptions,
    private readonly logger: Logger,
  ) {
    this.sessionTimer = setInterval(() => this.expireSessions(), opts.sessionCheckIntervalMs).unref();
  }

  private group(id: string): Group {
    let g = this.groups.get(id);
    if (!g) this.groups.set(id, (g = new Group(id)));
    return g;
  }

  join(req: JoinRequest): Promise<JoinResult> {
    if (!req.groupId) return Promise.resolve(failJoin(ErrorCode.INVALID_GROUP_ID));
    if (req.sessionTimeoutMs < this.opts.minSessionTimeoutMs || req.sessionTimeoutMs > this.opts.maxSessionTimeoutMs) {
      return Promise.resolve(failJoin(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId));
    }
    const g = this.group(req.groupId);
    if (req.memberId !== '') {
      const memberError = g.memberError(req.memberId, req.groupInstanceId);
      if (memberError !== ErrorCode.NONE) return Promise.resolve(failJoin(memberError, req.memberId));
    }
    const returning = req.memberId === '' && req.groupInstanceId !== null ? g.staticMember(req.groupInstanceId) : undefined;
    if (!g.accepts(req.protocolType, req.protocols, returning?.memberId ?? req.memberId)) {
      return Promise.resolve(failJoin(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.memberId));
    }
    if (returning) return this.rejoinStatic(g, returning, req);
    return new Promise<JoinResult>((resolve) => {
      const existing = g.members.get(req.memberId);
      if (existing && g.state === 'Stable' && existing.memberId !== g.leaderId && sameProtocols(existing.protocols, req.protocols)) {
        // A follower rejoining with nothing new: hand back the current generation, no rebalance.
        existing.lastSeen = Date.now();
        resolve(this.joinAnswer(g, existing));
        return;
      }
      const member = existing ?? newMember(req);
      updateMember(member, req);
      member.joinWaiter?.(failJoin(ErrorCode.UNKNOWN_MEMBER_ID, member.memberId));
      member.joinWaiter = resolve;
      if (g.members.size === 0) {
        g.protocolType = req.protocolType;
        this.offsets.groupHasMembers(g.id);
      }
      g.add(member);
      if (g.state !== 'PreparingRebalance') this.prepareRebalance(g, existing ? 'member rejoined' : 'member joined');
      else this.maybeCompleteJoin(g);
    });
  }

  /**
   * KIP-345: a static member joining with no member id while its instance id is held (it restarted) takes the
   * old member's place. In a Stable group whose protocol stays, it gets the current generation and its old
   * assignment with no rebalance; the answer names the leader as it was, so a returning leader does not
   * assign again (a Stable group would not pass its SyncGroup on). Mid-rebalance it joins that rebalance.
   */
  private rejoinStatic(g: Group, old: Member, req: JoinRequest): Promise<JoinResult> {
    const leaderBefore = g.leaderId ?? '';
    old.joinWaiter?.(failJoin(ErrorCode.FENCED_INSTANCE_ID, old.memberId));
    this.answerSync(old, { errorCode: ErrorCode.FENCED_INSTANCE_ID, assignment: Buffer.alloc(0) });
    const member = g.replaceStaticMember(old, memberIdFor(req));
    updateMember(member, req);
    Object.assign(member, { clientId: req.clientId, clientHost: req.clientHost });
    this.logger.info({ group: g.id, instance: req.groupInstanceId, old: old.memberId, member: member.memberId }, 'static member replaced');
    if (g.state === 'Stable' && g.selectProtocol() === g.protocolName) {
      return Promise.resolve({ ...this.joinAnswer(g, member), leader: leaderBefore, members: [] });
    }
    return new Promise<JoinResult>((resolve) => {
      member.joinWaiter = resolve;
      if (g.state === 'PreparingRebalance') this.maybeCompleteJoin(g);
      // CompletingRebalance: the leader may have assigned to the old id already, so the group rebalances.
      else this.prepareRebalance(g, 'static member rejoined');
    });
  }

  private prepareRebalance(g: Group, reason: string): void {
    const delay = g.state === 'Empty' ? this.opts.initialRebalanceDelayMs : 0;
    if (g.state === 'CompletingRebalance') {
      for (const m of g.members.values()) this.answerSync(m, { errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: Buffer.alloc(0) });
    }
    g.state = 'PreparingRebalance';
    this.logger.debug({ group: g.id, reason, generation: g.generationId }, 'group rebalancing');
    clearTimeout(g.rebalanceTimer);
    const deadline = Math.max(g.maxRebalanceTimeout(), delay);
    g.rebalanceTimer = setTimeout(() => this.rebalanceDeadline(g), deadline).unref();
    if (delay > 0) {
      // Hold completion until the initial delay passes even if everyone has joined.
      g.initialDelayTimer = setTimeout(() => {
        g.initialDelayTimer = undefined;
        this.maybeCompleteJoin(g);
      }, delay).unref();
    } else {
      this.maybeCompleteJoin(g);
    }
  }

  private maybeCompleteJoin(g: Group): void {
    if (g.state !== 'PreparingRebalance' || g.initialDelayTimer) return;
    if (g.members.size === 0) return this.becomeEmpty(g);
    if (g.allJoined()) this.completeJoin(g);
  }

  /**
   * Dynamic members that did not rejoin within the rebalance timeout are dropped; static members stay until
   * their session times out (KIP-345). With no member rejoined there is no leader yet: wait another timeout.
   */
  private rebalanceDeadline(g: Group): void {
    if (g.state !== 'PreparingRebalance') return;
    clearTimeout(g.initialDelayTimer);
    g.initialDelayTimer = undefined;
    for (const m of [...g.members.values()]) {
      if (!m.joinWaiter && m.groupInstanceId === null) {
        g.remove(m);
        this.logger.info({ group: g.id, member: m.memberId }, 'member did not rejoin in time; removed');
      }
    }
    if (g.members.size === 0) return this.becomeEmpty(g);
    if ([...g.members.values()].some((m) => m.joinWaiter)) return this.completeJoin(g);
    g.rebalanceTimer = setTimeout(() => this.rebalanceDeadline(g), g.maxRebalanceTimeout()).unref();
  }

  private becomeEmpty(g: Group): void {
    clearTimeout(g.rebalanceTimer);
    if (g.state !== 'Empty') this.offsets.groupEmptied(g.id);
    g.state = 'Empty';
    g.leaderId = null;
    g.protocolName = null;
    g.generationId++;
  }

  private completeJoin(g: Group): void {
    clearTimeout(g.rebalanceTimer);
    g.generationId++;
    g.protocolName = g.selectProtocol();
    // The leader must be a member that rejoined (a static member may be absent); it stays while it can.
    if (!g.members.get(g.leaderId ?? '')?.joinWaiter) g.leaderId = [...g.members.values()].find((m) => m.joinWaiter)?.memberId ?? null;
    g.state = 'CompletingRebalance';
    const now = Date.now();
    this.logger.info({ group: g.id, generation: g.generationId, members: g.members.size, protocol: g.protocolName }, 'group rebalanced');
    for (const m of g.members.values()) {
      m.assignment = Buffer.alloc(0);
      m.lastSeen = now;
      const waiter = m.joinWaiter;
      m.joinWaiter = undefined;
      waiter?.(this.joinAnswer(g, m));
    }
  }

  private joinAnswer(g: Group, m: Member): JoinResult {
    const isLeader = m.memberId === g.leaderId;
    const protocol = g.protocolName;
    return {
      errorCode: ErrorCode.NONE,
      generationId: g.generationId,
      protocolName: protocol,
      leader: g.leaderId ?? '',
      memberId: m.memberId,
      members: isLeader
        ? [...g.members.values()].map((x) => ({
            memberId: x.memberId,
            groupInstanceId: x.groupInstanceId,
            metadata: x.protocols.find((p) => p.name === protocol)?.metadata ?? Buffer.alloc(0),
          }))
        : [],
    };
  }

  private answerSync(m: Member, r: SyncResult): void {
    const waiter = m.syncWaiter;
    m.syncWaiter = undefined;
    waiter?.(r);
  }

  /** Checks a member's identity and generation; returns an error code or NONE. */
  private check(ref: MemberRef): { errorCode: number; group?: Group; member?: Member } {
    const g = this.groups.get(ref.groupId);
    if (!g) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    const memberError = g.memberError(ref.memberId, ref.groupInstanceId);
    const m = g.members.get(ref.memberId);
    if (memberError !== ErrorCode.NONE || !m) return { errorCode: memberError === ErrorCode.NONE ? ErrorCode.UNKNOWN_MEMBER_ID : memberError };
    m.lastSeen = Date.now();
    if (ref.generationId !== g.generationId) return { errorCode: ErrorCode.ILLEGAL_GENERATION, group: g, member: m };
    return { errorCode: ErrorCode.NONE, group: g, member: m };
  }

  sync(ref: MemberRef, assignments: { memberId: string; assignment: Buffer }[]): Promise<SyncResult> {
    const { errorCode, group: g, member: m } = this.check(ref);
    const empty = Buffer.alloc(0);
    if (errorCode !== ErrorCode.NONE || !g || !m) return Promise.resolve({ errorCode, assignment: empty });
    if (g.state === 'PreparingRebalance') return Promise.resolve({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: empty });
    if (g.state === 'Stable') return Promise.resolve({ errorCode: ErrorCode.NONE, assignment: m.assignment });
    return new Promise<SyncResult>((resolve) => {
      this.answerSync(m, { errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: empty });
      m.syncWaiter = resolve;
      if (m.memberId !== g.leaderId) return;
      const given = new Map(assignments.map((a) => [a.memberId, a.assignment]));
      g.state = 'Stable';
      for (const x of g.members.values()) {
        x.assignment = given.get(x.memberId) ?? empty;
        this.answerSync(x, { errorCode: ErrorCode.NONE, assignment: x.assignment });
      }
    });
  }

  heartbeat(ref: MemberRef): number {
    const { errorCode, group: g } = this.check(ref);
    if (errorCode !== ErrorCode.NONE || !g) return errorCode;
    return g.state === 'PreparingRebalance' ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  /**
   * LeaveGroup of one member. Named by instance id (v3+, how an admin removes a static member), the member
   * id may be empty; a member id that no longer holds the instance is FENCED_INSTANCE_ID.
   */
  leave(groupId: string, memberId: string, groupInstanceId: string | null = null): number {
    const g = this.groups.get(groupId);
    const m = groupInstanceId === null ? g?.members.get(memberId) : g?.staticMember(groupInstanceId);
    if (!g || !m) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberId !== '' && memberId !== m.memberId) return ErrorCode.FENCED_INSTANCE_ID;
    this.remove(g, m, 'member left');
    return ErrorCode.NONE;
  }

  private remove(g: Group, m: Member, reason: string): void {
    g.remove(m);
    m.joinWaiter?.(failJoin(ErrorCode.UNKNOWN_MEMBER_ID, m.memberId));
    this.answerSync(m, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, assignment: Buffer.alloc(0) });
    this.logger.info({ group: g.id, member: m.memberId, reason }, 'member removed');
    if (g.state === 'Stable' || g.state === 'CompletingRebalance') {
      if (g.members.size === 0) this.becomeEmpty(g);
      else this.prepareRebalance(g, reason);
    } else {
      this.maybeCompleteJoin(g);
    }
  }

  private expireSessions(): void {
    const now = Date.now();
    for (const g of this.groups.values()) {
      for (const m of [...g.members.values()]) {
        if (!m.joinWaiter && now - m.lastSeen > m.sessionTimeoutMs) this.remove(g, m, 'session timed out');
      }
    }
  }

  /** Validates an OffsetCommit's member fields; generation -1 with no member is a standalone commit. */
  commitAllowed(ref: MemberRef): number {
    const g = this.groups.get(ref.groupId);
    if (ref.generationId < 0 && ref.memberId === '' && !ref.groupInstanceId) {
      return !g || g.members.size === 0 ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
    }
    const { errorCode, group } = this.check(ref);
    if (errorCode !== ErrorCode.NONE || !group) return errorCode;
    return group.state === 'CompletingRebalance' ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  /** `durable`: see OffsetStore.commit. */
  commitOffsets(groupId: string, entries: OffsetCommitEntry[], durable = true): Promise<void> {
    return this.offsets.commit(groupId, entries, durable);
  }

  get offsetStore(): OffsetStore {
    return this.offsets;
  }

  /** Current groups, for tests and introspection. */
  describe(groupId: string): { state: string; generationId: number; members: string[] } | undefined {
    const g = this.groups.get(groupId);
    return g && { state: g.state, generationId: g.generationId, members: [...g.members.keys()] };
  }

  /** A group's live state, when it has any (group administration reads it; see group-admin.ts). */
  peek(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  /** Groups with live state (members now or earlier in this run). */
  liveGroupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** Drops the live state of a group without members (DeleteGroups). */
  forget(groupId: string): void {
    const g = this.groups.get(groupId);
    if (!g || g.members.size > 0) return;
    clearTimeout(g.rebalanceTimer);
    clearTimeout(g.initialDelayTimer);
    this.groups.delete(groupId);
  }

  close(): void {
    clearInterval(this.sessionTimer);
    for (const g of this.groups.values()) {
      clearTimeout(g.rebalanceTimer);
      clearTimeout(g.initialDelayTimer);
      for (const m of g.members.values()) {
        m.joinWaiter?.(failJoin(ErrorCode.COORDINATOR_NOT_AVAILABLE, m.memberId));
        this.answerSync(m, { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, assignment: Buffer.alloc(0) });
      }
    }
    this.groups.clear();
  }
}
