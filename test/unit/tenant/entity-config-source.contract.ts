/**
 * The contract every EntityConfigSource adapter keeps. Run against the in-memory and file adapters
 * (unit) and the HTTP tenant API client (integration).
 */
import { parseEntityConfig, type EntityConfigSource } from '../../../src/tenant';
import { defaultConfigInput, minimalInput } from './fixtures';

export interface ContractSubject {
  source: EntityConfigSource;
  close?: () => Promise<void>;
}

/** Inputs the subject must serve: acme/merchant_account, acme/thing and t1/thing. */
export const contractInputs = (): Record<string, unknown>[] => [defaultConfigInput(), { ...minimalInput(), tenant: 'acme' }, minimalInput()];

export function entityConfigSourceContract(name: string, make: (inputs: Record<string, unknown>[]) => Promise<ContractSubject>): void {
  describe(`EntityConfigSource contract: ${name}`, () => {
    let subject: ContractSubject;
    beforeAll(async () => {
      subject = await make(contractInputs());
    });
    afterAll(async () => {
      await subject.close?.();
    });

    it('gets a configured entity, validated and normalised', async () => {
      expect(await subject.source.get('acme', 'merchant_account')).toEqual(parseEntityConfig(defaultConfigInput()));
      expect((await subject.source.get('t1', 'thing'))?.persistence.table).toBe('thing');
    });

    it('answers undefined for an entity or a tenant it does not have', async () => {
      expect(await subject.source.get('acme', 'nothing_here')).toBeUndefined();
      expect(await subject.source.get('nobody', 'merchant_account')).toBeUndefined();
    });

    it('answers undefined for names that cannot be configured, without looking further', async () => {
      for (const [t, e] of [
        ['../acme', 'merchant_account'],
        ['acme', '../acme/merchant_account'],
        ['Acme', 'merchant_account'],
        ['acme', 'merchant_account.yaml'],
        ['', ''],
      ]) {
        expect(await subject.source.get(t as string, e as string)).toBeUndefined();
      }
    });

    it('lists every entity sorted by tenant then entity, or those of one tenant', async () => {
      expect((await subject.source.list()).configs.map((c) => `${c.tenant}/${c.entity}`)).toEqual(['acme/merchant_account', 'acme/thing', 't1/thing']);
      expect((await subject.source.list('acme')).configs.map((c) => c.entity)).toEqual(['merchant_account', 'thing']);
      expect(await subject.source.list('nobody')).toEqual({ configs: [], refused: [] });
      expect((await subject.source.list()).refused).toEqual([]);
    });
  });
}
