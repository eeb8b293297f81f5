/** Who is calling, from a verified token: user (`sub`), tenant and roles. */
export interface Principal {
  user: string;
  tenant: string;
  roles: readonly string[];
}

/** Verifies a bearer token and returns its principal; throws DB_UNAUTHENTICATED otherwise. */
export interface TokenVerifier {
  /** `at`: judge `exp` and `nbf` at this moment instead of now (a delta's token, at the delta's record timestamp). */
  verify(token: string, at?: Date): Promise<Principal>;
}
