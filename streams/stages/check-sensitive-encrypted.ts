import { parseCiphertext } from '../../src/crypto/ciphertext';
import { NONCE_BYTES, TAG_BYTES } from '../../src/crypto/aes-gcm';
import { DeltabrokerError, isDeltabrokerError } from '../../src/errors';
import { acceptsMethod } from '../../src/tenant';
import { required } from '../context';
import { STAGES } from '../../src/log/topology';
import { checkPersonalFields } from './personal-fields';
import { stage } from './stage-operator';

/**
 * Stage 7: every sensitive field present is a ciphertext this service produced (its self-describing format,
 * a method the field accepts, a body long enough for nonce and tag). A plaintext is refused; its value is
 * never repeated in the refusal. Personal fields must also be sealed under their record's subject key.
 */
export const checkSensitiveEncrypted = () =>
  stage(STAGES.encryption, (ctx) => {
    const config = required(ctx, 'config');
    const fields = required(ctx, 'fields');
    for (const name in config.fields) {
      const spec = config.fields[name]!;
      const value = fields[name];
      if (!spec.sensitive || value === undefined || value === null) continue;
      const refuse = (rule: string, message: string): never => {
        throw new DeltabrokerError('DB_VALIDATION', `${name} is sensitive: ${message}`, { field: `payload.${name}`, rule });
      };
      if (typeof value !== 'string') refuse('encrypted', 'it must be a ciphertext string from POST /dispatch');
      let method: string;
      let bodyLength: number;
      try {
        const parsed = parseCiphertext(value as string, `payload.${name}`);
        method = parsed.method;
        bodyLength = parsed.sealed.length;
      } catch (error) {
        if (!isDeltabrokerError(error)) throw error;
        return refuse('encrypted', 'it arrived in plaintext; encrypt it with POST /dispatch first');
      }
      if (bodyLength < NONCE_BYTES + TAG_BYTES) refuse('encrypted', 'the ciphertext is truncated');
      if (!acceptsMethod(spec, method)) refuse('encryption-method', `method ${method} is not accepted (${spec.sensitive.methods.join(', ')})`);
    }
    checkPersonalFields(ctx);
  });
