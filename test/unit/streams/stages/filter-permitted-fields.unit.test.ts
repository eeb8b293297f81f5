import { InMemoryEntityConfigSource } from '../../../../src/tenant';
import { filterPermittedFields } from '../../../../streams/stages/filter-permitted-fields';
import { defaultConfigInput } from '../../tenant/fixtures';
import { contextOf, refusalOf, runStage } from './stage-harness';

const payload = JSON.stringify({ merchantId: 'm-1', name: 'Ada', status: 'vip' });

describe('stage 6: permission filter', () => {
  test("strips the fields the proven actor's roles may not write (writeDenied: strip) and says which", () => {
    const out = runStage(filterPermittedFields(), { ctx: contextOf({ payload }, { actor: { user: 'w', roles: ['writer'] } }) });
    expect(out.refusal).toBeUndefined();
    expect(out.ctx.fields).toEqual({ merchantId: 'm-1', name: 'Ada' });
    expect(out.ctx.stripped).toEqual(['status']);
  });

  test('an admin writes every field', () => {
    const out = runStage(filterPermittedFields(), { ctx: contextOf({ payload }, { actor: { user: 'a', roles: ['admin'] } }) });
    expect(out.ctx).toMatchObject({ fields: { merchantId: 'm-1', name: 'Ada', status: 'vip' }, stripped: [] });
  });

  test('the proven roles decide, not the roles the envelope claims', () => {
    const out = runStage(filterPermittedFields(), {
      ctx: contextOf({ payload, actor: { user: 'w', roles: ['admin'] } }, { actor: { user: 'w', roles: ['writer'] } }),
    });
    expect(out.ctx.stripped).toEqual(['status']);
  });

  test('writeDenied: refuse names the first field refused', () => {
    const input = defaultConfigInput();
    const roles = input.roles as Record<string, Record<string, unknown>>;
    roles.writer = { ...roles.writer, writeDenied: 'refuse' };
    const config = new InMemoryEntityConfigSource().put(input);
    const out = runStage(filterPermittedFields(), { ctx: { ...contextOf({ payload }, { actor: { user: 'w', roles: ['writer'] } }), config } });
    expect(refusalOf(out)).toEqual({ code: 'DB_FORBIDDEN', stage: 'permission-filter', field: 'status', rule: 'field-not-writable' });
  });
});
