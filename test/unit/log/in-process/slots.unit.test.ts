import { Slots } from '../../../../src/log/in-process/slots';

test('at most `size` holders; waiters are served in order; an aborted waiter gives up without holding', async () => {
  const slots = new Slots(1);
  const never = new AbortController().signal;
  expect(await slots.acquire(never)).toBe(true);
  const order: string[] = [];
  const gaveUp = new AbortController();
  const a = slots.acquire(never).then((ok) => order.push(`a:${ok}`));
  const b = slots.acquire(gaveUp.signal).then((ok) => order.push(`b:${ok}`));
  const c = slots.acquire(never).then((ok) => order.push(`c:${ok}`));
  gaveUp.abort();
  await b;
  slots.release();
  await a;
  slots.release();
  await c;
  expect(order).toEqual(['b:false', 'a:true', 'c:true']);
  expect(await slots.acquire(gaveUp.signal)).toBe(false);
});
