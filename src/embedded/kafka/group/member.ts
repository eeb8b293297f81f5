import { randomUUID } from 'node:crypto';
import type { GroupProtocol, JoinResult, SyncResult } from './group';

export interface JoinRequest {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: GroupProtocol[];
  clientId: string;
  clientHost: string;
}

/** One member of a group; the waiters hold its parked JoinGroup and SyncGroup answers. */
export interface Member {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocols: GroupProtocol[];
  assignment: Buffer;
  lastSeen: number;
  joinWaiter?: (r: JoinResult) => void;
  syncWaiter?: (r: SyncResult) => void;
}

/** Kafka's member ids: a static member's starts with its instance id, a dynamic member's with its client id. */
export const memberIdFor = (req: JoinRequest): string => `${req.groupInstanceId ?? (req.clientId || 'member')}-${randomUUID()}`;

export function newMember(req: JoinRequest): Member {
  return {
    memberId: memberIdFor(req),
    groupInstanceId: req.groupInstanceId,
    clientId: req.clientId,
    clientHost: req.clientHost,
    sessionTimeoutMs: req.sessionTimeoutMs,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs,
    protocols: req.protocols,
    assignment: Buffer.alloc(0),
    lastSeen: Date.now(),
  };
}

/** What a (re)join brings that the member keeps. */
export function updateMember(member: Member, req: JoinRequest): void {
  Object.assign(member, {
    sessionTimeoutMs: req.sessionTimeoutMs,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs,
    protocols: req.protocols,
    lastSeen: Date.now(),
  });
}

export const sameProtocols = (a: GroupProtocol[], b: GroupProtocol[]): boolean =>
  a.length === b.length && a.every((p, i) => p.name === b[i]!.name && p.metadata.equals(b[i]!.metadata));
