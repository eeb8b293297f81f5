import { authenticatePlain } from './plain';
import { type ScramCredential, ScramError, ScramExchange, scramCredential } from './scram';
import type { KafkaPrincipal } from './authorizer';

export const SASL_MECHANISMS = ['SCRAM-SHA-256', 'PLAIN'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/** The users SASL accepts. Passwords are kept only as SCRAM credentials and a PLAIN digest check. */
export class SaslUsers {
  private readonly scram = new Map<string, ScramCredential>();

  constructor(private readonly passwords: Readonly<Record<string, string>>) {
    for (const [user, password] of Object.entries(passwords)) this.scram.set(user, scramCredential(password));
  }

  passwordOf = (user: string): string | undefined => (Object.hasOwn(this.passwords, user) ? this.passwords[user] : undefined);
  scramOf = (user: string): ScramCredential | undefined => this.scram.get(user);
}

/** One connection's SASL exchange, from the handshake that chose the mechanism to the authenticated user. */
export class SaslExchange {
  private readonly scram: ScramExchange | undefined;
  /** Handshake v0: the tokens that follow come as bare size-prefixed frames, not SaslAuthenticate requests. */
  readonly rawTokens: boolean;

  constructor(
    readonly mechanism: SaslMechanism,
    private readonly users: SaslUsers,
    handshakeVersion: number,
  ) {
    this.rawTokens = handshakeVersion === 0;
    if (mechanism === 'SCRAM-SHA-256') this.scram = new ScramExchange(users.scramOf);
  }

  /**
   * Answers one client token: the reply token, and the principal once the exchange is complete; or
   * `failed` with the reason (the connection is then closed).
   */
  step(token: Buffer): { reply: Buffer; principal?: KafkaPrincipal } | { failed: string } {
    const failure = `Authentication failed: invalid credentials with SASL mechanism ${this.mechanism}`;
    if (!this.scram) {
      const user = authenticatePlain(token, this.users.passwordOf);
      return user === undefined ? { failed: failure } : { reply: Buffer.alloc(0), principal: { name: user, authenticated: true } };
    }
    try {
      const reply = this.scram.step(token);
      const user = this.scram.user;
      return user === undefined ? { reply } : { reply, principal: { name: user, authenticated: true } };
    } catch (error) {
      if (error instanceof ScramError) return { failed: failure };
      throw error;
    }
  }
}
