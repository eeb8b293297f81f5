/** What a replay or a verify of an entity's projections is asked to do. */

export type ReplayFrom =
  { readonly kind: 'beginning' } | { readonly kind: 'offset'; readonly offset: bigint } | { readonly kind: 'time'; readonly timestamp: number };
export type TargetChoice = 'postgres' | 'search' | 'all';
/** One projection a replay rebuilds. */
export type ReplayTargetKind = 'postgres' | 'search';

export interface ReplayRequest {
  readonly tenant: string;
  readonly entity: string;
  /** Default `all`. */
  readonly target?: TargetChoice;
  /** Default from the beginning. */
  readonly from?: ReplayFrom;
}

export interface VerifyRequest {
  readonly tenant: string;
  readonly entity: string;
}
