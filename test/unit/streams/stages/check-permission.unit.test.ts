import { DeltabrokerError } from '../../../../src/errors';
import type { Actor } from '../../../../src/log';
import type { ActorProofVerifier } from '../../../../src/auth/actor-proof';
import { BatchActors } from '../../../../streams/batch-actors';
import type { DeltaContext } from '../../../../streams/context';
import { checkPermission } from '../../../../streams/stages/check-permission';
import { contextOf, refusalOf, runStage } from './stage-harness';

/** A verifier that knows each delta's proven actor by delta id, and refuses deltas without proof. */
const verifierOf = (proven: Record<string, Actor>): ActorProofVerifier => ({
  prove: async (ctx) => {
    const actor = proven[ctx.delta.id];
    if (actor === undefined) throw new DeltabrokerError('DB_UNAUTHENTICATED', 'no proof of the actor', { field: 'headers.authorization', rule: 'actor-proof' });
    return actor;
  },
});

async function check(ctx: DeltaContext, proven: Actor | undefined) {
  const actors = await BatchActors.prove(verifierOf(proven ? { [ctx.delta.id]: proven } : {}), [ctx]);
  return runStage(checkPermission(actors), { ctx });
}

describe('stage 5: permission', () => {
  test('sets the proven actor when one of its roles may do the operation', async () => {
    const out = await check(contextOf({ actor: { user: 'claimed', roles: ['admin'] } }), { user: 'w', roles: ['writer'] });
    expect(out.refusal).toBeUndefined();
    expect(out.ctx.actor).toEqual({ user: 'w', roles: ['writer'] });
  });

  test('roles the envelope merely claims count for nothing', async () => {
    const out = await check(contextOf({ actor: { user: 'r', roles: ['admin'] } }), { user: 'r', roles: ['reader'] });
    expect(refusalOf(out)).toEqual({ code: 'DB_FORBIDDEN', stage: 'permission', field: 'dispatch.operation', rule: 'operation' });
  });

  test('a delta without valid proof is refused by stage 5 with the proof refusal', async () => {
    expect(refusalOf(await check(contextOf(), undefined))).toEqual({
      code: 'DB_UNAUTHENTICATED',
      stage: 'permission',
      field: 'headers.authorization',
      rule: 'actor-proof',
    });
  });

  test('a verifier that cannot answer fails the batch instead of refusing', async () => {
    const down: ActorProofVerifier = { prove: () => Promise.reject(new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'JWKS down')) };
    await expect(BatchActors.prove(down, [contextOf()])).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE' });
  });
});
