import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SCRAM-SHA-256 (RFC 5802, RFC 7677) on the server side: what is stored per user, and the two-message
 * exchange (client-first → server-first, client-final → server-final). Pure: no sockets.
 */
export const SCRAM_ITERATIONS = 4096;

export interface ScramCredential {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

const hmac = (key: Buffer, data: string | Buffer): Buffer => createHmac('sha256', key).update(data).digest();
const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest();

/** The credential a server keeps for a password: the password itself is not needed afterwards. */
export function scramCredential(password: string, salt: Buffer = randomBytes(16), iterations = SCRAM_ITERATIONS): ScramCredential {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = hmac(salted, 'Client Key');
  return { salt, iterations, storedKey: sha256(clientKey), serverKey: hmac(salted, 'Server Key') };
}

/** `a=1,b=2` → {a:'1', b:'2'}; values may hold '='. */
function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq === 1) out.set(part[0]!, part.slice(2));
  }
  return out;
}

/** RFC 5802 5.1: '=2C' is ',' and '=3D' is '='. */
const decodeSaslName = (name: string): string => name.replaceAll('=2C', ',').replaceAll('=3D', '=');

export class ScramError extends Error {}

/** One SCRAM exchange of one connection. */
export class ScramExchange {
  private state: 'first' | 'final' | 'done' = 'first';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private credential: ScramCredential | undefined;
  /** The authenticated user, once the exchange succeeded. */
  user: string | undefined;
  private claimedUser = '';

  constructor(private readonly lookup: (user: string) => ScramCredential | undefined) {}

  /** Answers the client's next message; throws ScramError when authentication fails. */
  step(message: Buffer): Buffer {
    const text = message.toString('utf8');
    if (this.state === 'first') return this.first(text);
    if (this.state === 'final') return this.final(text);
    throw new ScramError('the SCRAM exchange is already complete');
  }

  private first(text: string): Buffer {
    // gs2 header: "n,," (no channel binding, no authzid) or "y,," ; "p=" (channel binding) is not offered.
    const match = /^([ny]),(?:a=[^,]*)?,(.*)$/s.exec(text);
    if (!match) throw new ScramError('malformed client-first message');
    this.clientFirstBare = match[2]!;
    const attrs = attributes(this.clientFirstBare);
    const user = attrs.get('n');
    const clientNonce = attrs.get('r');
    if (!user || !clientNonce) throw new ScramError('client-first message lacks the user or nonce');
    this.claimedUser = decodeSaslName(user);
    // An unknown user still gets a well-formed challenge (a random salt), so user names cannot be probed.
    this.credential = this.lookup(this.claimedUser);
    const salt = this.credential?.salt ?? randomBytes(16);
    this.nonce = clientNonce + randomBytes(18).toString('base64');
    this.serverFirst = `r=${this.nonce},s=${salt.toString('base64')},i=${this.credential?.iterations ?? SCRAM_ITERATIONS}`;
    this.state = 'final';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private final(text: string): Buffer {
    this.state = 'done';
    const proofAt = text.lastIndexOf(',p=');
    if (proofAt < 0) throw new ScramError('client-final message lacks the proof');
    const withoutProof = text.slice(0, proofAt);
    const attrs = attributes(text);
    // As Kafka's ScramSaslServer: the nonce must end with ours (librdkafka sends its own nonce before the whole of ours).
    if (!(attrs.get('r') ?? '').endsWith(this.nonce)) throw new ScramError('nonce mismatch');
    const proof = Buffer.from(attrs.get('p') ?? '', 'base64');
    const credential = this.credential;
    if (!credential || proof.length !== 32) throw new ScramError('authentication failed');
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = hmac(credential.storedKey, authMessage);
    const clientKey = Buffer.alloc(32);
    for (let i = 0; i < 32; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    if (!timingSafeEqual(sha256(clientKey), credential.storedKey)) throw new ScramError('authentication failed');
    this.user = this.claimedUser;
    return Buffer.from(`v=${hmac(credential.serverKey, authMessage).toString('base64')}`, 'utf8');
  }
}
