import { awaitProjected, post, startTestService, type TestService } from '../support/service';

/** Seed 2.2 read (RQL → Postgres projection) and search (ES query DSL → search index), with field hiding per role. */
describe('storage broker reads and searches', () => {
  let t: TestService;
  let admin: string;
  let reader: string;
  let lastPosition: unknown;
  const positions: unknown[] = [];

  beforeAll(async () => {
    t = await startTestService();
    [admin, reader] = await Promise.all([t.token(['admin']), t.token(['reader'])]);
    const iban = (
      await post(
        `${t.url}/dispatch`,
        { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'DE89370400440532013000' },
        { authorization: `Bearer ${admin}` },
      )
    ).body.ciphertext;
    const merchants = [
      { merchantId: 'r-1', name: 'Ada Bakery', country: 'DE', mcc: 5462, status: 'active', iban },
      { merchantId: 'r-2', name: 'Bob Books', country: 'GB', mcc: 5942, status: 'active', iban },
      { merchantId: 'r-3', name: 'Cleo Cafe', country: 'DE', mcc: 5814, status: 'closed', iban },
      { merchantId: 'r-4', name: 'Dan Bakery Supplies', country: 'FR', mcc: 5462, status: 'active', iban },
    ];
    for (const payload of merchants) {
      const res = await post(`${t.url}/`, { dispatch: { entity: 'merchant_account', operation: 'create' }, payload }, { authorization: `Bearer ${admin}` });
      expect(res.status).toBe(201);
      positions.push(res.body.position);
    }
    // An update and a delete: the projections must show the newest state.
    const updated = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'update' }, payload: { merchantId: 'r-2', name: 'Bob Books Ltd', country: 'GB' } },
      { authorization: `Bearer ${admin}` },
    );
    const deleted = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'delete' }, payload: { merchantId: 'r-3' } },
      { authorization: `Bearer ${admin}` },
    );
    expect([updated.status, deleted.status]).toEqual([200, 200]);
    positions.push(updated.body.position, deleted.body.position);
    lastPosition = deleted.body.position;
    await awaitProjected(t.url, 'merchant_account', positions, admin);
  });
  afterAll(() => t.stop());

  const ask = (token: string, operation: 'read' | 'search', payload: unknown, after: unknown = lastPosition) =>
    post(`${t.url}/`, { dispatch: { entity: 'merchant_account', operation, after }, payload }, { authorization: `Bearer ${token}` });

  test('read: RQL after the last write sees it; sorting, paging and typed values work', async () => {
    const de = await ask(admin, 'read', 'eq(country,DE)&sort(+merchantId)');
    expect(de.status).toBe(200);
    expect((de.body.items as { merchantId: string }[]).map((i) => i.merchantId)).toEqual(['r-1']);
    const bakeries = await ask(admin, 'read', 'and(eq(mcc,5462),match(name,*bakery*))&sort(-merchantId)&limit(1)');
    expect(bakeries.body).toMatchObject({ count: 2, items: [{ merchantId: 'r-4' }] });
    expect(typeof bakeries.body.next).toBe('string');
    const page2 = await ask(admin, 'read', bakeries.body.next);
    expect((page2.body.items as { merchantId: string }[]).map((i) => i.merchantId)).toEqual(['r-1']);
    expect(page2.body.count).toBe(2);
    expect(page2.body.next).toBeUndefined();
    // A page past the end: the total still comes from counting.
    const pastEnd = await ask(admin, 'read', 'sort(+merchantId)&limit(2,10)');
    expect(pastEnd.body).toMatchObject({ count: 3, items: [] });
    const updated = await ask(admin, 'read', 'eq(merchantId,r-2)');
    expect(updated.body.items).toEqual([expect.objectContaining({ name: 'Bob Books Ltd', mcc: 5942 })]);
  });

  test('read: a reader never sees iban, and may not ask for it', async () => {
    const all = await ask(reader, 'read', 'sort(+merchantId)');
    expect(all.body.count).toBe(3);
    for (const item of all.body.items as Record<string, unknown>[]) expect(item).not.toHaveProperty('iban');
    const asked = await ask(reader, 'read', 'select(name,iban)');
    expect(asked.status).toBe(403);
    expect(asked.body).toMatchObject({ code: 'DB_FORBIDDEN', field: 'iban' });
  });

  test('read: bad RQL and unknown fields are refused naming them; values never reach SQL text', async () => {
    const unknown = await ask(admin, 'read', 'eq(colour,red)');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'DB_VALIDATION', field: 'colour', rule: 'unknown-field' });
    const syntax = await ask(admin, 'read', 'eq(country,');
    expect(syntax.body.code).toBe('DB_BAD_REQUEST');
    const injection = await ask(admin, 'read', "eq(name,x'%3B drop table tenant_acme.merchant_account%3B --)");
    expect(injection.status).toBe(200);
    expect(injection.body.count).toBe(0);
    expect((await ask(admin, 'read', 'ne(merchantId,none)')).body.count).toBe(3);
  });

  test('search: the ES query DSL against the entity index, newest state, fields hidden per role', async () => {
    const res = await ask(admin, 'search', { query: { match: { name: 'bakery' } }, sort: [{ merchantId: 'asc' }] });
    expect(res.status).toBe(200);
    const hits = res.body.hits as { total: { value: number }; hits: { _id: string; _source: Record<string, unknown> }[] };
    expect(hits.total.value).toBe(2);
    expect(hits.hits.map((h) => h._id)).toEqual(['r-1', 'r-4']);
    const asReader = await ask(reader, 'search', { query: { match_all: {} } });
    const readerHits = (asReader.body.hits as { hits: { _id: string; _source: Record<string, unknown> }[] }).hits;
    expect(readerHits.map((h) => h._id).sort()).toEqual(['r-1', 'r-2', 'r-4']);
    for (const hit of readerHits) expect(hit._source).not.toHaveProperty('iban');
  });

  test('search: unsupported clauses and other indices are refused naming them', async () => {
    const fuzzy = await ask(admin, 'search', { query: { bool: { must: [{ match_all: {} }, { fuzzy: { name: 'bakry' } }] } } });
    expect(fuzzy.status).toBe(400);
    expect(fuzzy.body).toMatchObject({ rule: 'unsupported-clause', field: 'payload.query.bool.must[1].fuzzy' });
    const other = await ask(admin, 'search', { index: 'acme_other', query: { match_all: {} } });
    expect(other.status).toBe(400);
  });

  test('a reader may not write, a writer may not read', async () => {
    const writer = await t.token(['writer']);
    const res = await ask(writer, 'read', 'eq(country,DE)');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'DB_FORBIDDEN', stage: 'read' });
  });
});
