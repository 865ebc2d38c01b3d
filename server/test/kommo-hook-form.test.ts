import { describe, expect, it } from 'vitest';
import { kommoHookBodySchema } from '@masivo/contract/kommo-inbound';
import { HOOK_FORM_LIMITS, HookFormError, parseHookForm } from '../src/integrations/kommo/hook-form';

/** Kommo's documented webhook body: form-encoded, `entity[action][i][field]`, several items per POST. */
const form = (pairs: Array<[string, string | number]>) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');

describe('Kommo webhook form parser', () => {
  it('turns bracket keys into nested objects and item lists into arrays (several leads per POST)', () => {
    const body = form([
      ['leads[status][0][id]', 101],
      ['leads[status][0][status_id]', 142],
      ['leads[status][0][pipeline_id]', 7],
      ['leads[status][0][old_status_id]', 55],
      ['leads[status][0][updated_at]', 1_760_000_000],
      ['leads[status][1][id]', 102],
      ['leads[status][1][status_id]', 56],
      ['leads[status][1][pipeline_id]', 7],
      ['leads[status][1][old_status_id]', 55],
      ['leads[status][1][updated_at]', 1_760_000_001],
      ['account[id]', 9],
      ['account[subdomain]', 'miempresa'],
    ]);
    const parsed = parseHookForm(body);
    expect(JSON.parse(JSON.stringify(parsed))).toEqual({
      leads: {
        status: [
          { id: '101', status_id: '142', pipeline_id: '7', old_status_id: '55', updated_at: '1760000000' },
          { id: '102', status_id: '56', pipeline_id: '7', old_status_id: '55', updated_at: '1760000001' },
        ],
      },
      account: { id: '9', subdomain: 'miempresa' },
    });
    const typed = kommoHookBodySchema.parse(parsed);
    expect(typed.leads?.status).toEqual([
      { id: 101, status_id: 142, pipeline_id: 7, old_status_id: 55, updated_at: 1_760_000_000 },
      { id: 102, status_id: 56, pipeline_id: 7, old_status_id: 55, updated_at: 1_760_000_001 },
    ]);
    expect(typed.account).toEqual({ id: 9, subdomain: 'miempresa' });
  });

  it('keeps nested custom fields, then the schema ignores unknown fields and kinds', () => {
    const body = form([
      ['contacts[update][0][id]', 5],
      ['contacts[update][0][name]', 'Ana Pérez & Cía'],
      ['contacts[update][0][custom_fields][0][id]', 300],
      ['contacts[update][0][custom_fields][0][values][0][value]', '+54 9 11 1234-5678'],
      ['contacts[update][0][custom_fields][0][values][0][enum]', 'WORK'],
      ['contacts[update][0][custom_fields][1][id]', 301],
      ['contacts[update][0][custom_fields][1][values][0][value]', 'Córdoba'],
      ['companies[add][0][id]', 77],
      ['talk[add][0][talk_id]', 3],
      ['unsorted[add][0][uid]', 'abc'],
    ]);
    const parsed = parseHookForm(body) as { contacts: { update: Array<{ custom_fields: Array<{ values: Array<{ value: string }> }>; name: string }> } };
    expect(parsed.contacts.update[0].name).toBe('Ana Pérez & Cía');
    expect(parsed.contacts.update[0].custom_fields[1].values[0].value).toBe('Córdoba');
    const typed = kommoHookBodySchema.parse(parsed);
    expect(typed).toEqual({ contacts: { update: [{ id: 5 }] } });
  });

  it('drops an item that does not parse and keeps the others', () => {
    const typed = kommoHookBodySchema.parse(
      parseHookForm(form([['contacts[delete][0][id]', 'x'], ['contacts[delete][1][id]', 8], ['leads[add][0][id]', 4], ['leads[add][0][status_id]', 1]])),
    );
    expect(typed.contacts?.delete).toEqual([{ id: 8 }]);
    expect(typed.leads?.add).toEqual([]);
  });

  it('refuses keys that would reach a prototype, and never pollutes one', () => {
    for (const key of ['__proto__[x]', 'a[__proto__][x]', 'constructor[prototype][x]', 'a[b][constructor]', 'prototype']) {
      expect(() => parseHookForm(`${encodeURIComponent(key)}=1`), key).toThrow(HookFormError);
    }
    expect(() => parseHookForm('a%5B__proto__%5D=1')).toThrow(HookFormError);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('bounds depth, pairs, key length, items and size, and refuses malformed input', () => {
    expect(() => parseHookForm(`a${'[b]'.repeat(HOOK_FORM_LIMITS.depth + 1)}=1`)).toThrow('nested too deep');
    expect(parseHookForm(`a${'[b]'.repeat(HOOK_FORM_LIMITS.depth)}=1`)).toBeTruthy();
    expect(() => parseHookForm(Array.from({ length: HOOK_FORM_LIMITS.pairs + 1 }, (_, i) => `k${i}=1`).join('&'))).toThrow('too many pairs');
    expect(() => parseHookForm(`${'k'.repeat(HOOK_FORM_LIMITS.keyChars + 1)}=1`)).toThrow('key too long');
    expect(() => parseHookForm(Array.from({ length: HOOK_FORM_LIMITS.arrayItems + 1 }, (_, i) => `a[${i}]=1`).join('&'))).toThrow('too many items');
    expect(() => parseHookForm('x='.padEnd(HOOK_FORM_LIMITS.bodyBytes + 10, 'y'))).toThrow('body too large');
    expect(() => parseHookForm('a=%E0%A4%A')).toThrow('malformed percent-encoding');
    expect(() => parseHookForm('a[b=1')).toThrow('malformed key');
    expect(() => parseHookForm('a=1&a[b]=2')).toThrow(HookFormError);
    expect(() => parseHookForm('a[b]=2&a=1')).toThrow(HookFormError);
  });

  it('reads empty bodies, `+` as space, appended items and sparse indexes', () => {
    expect(parseHookForm('')).toEqual({});
    expect(JSON.parse(JSON.stringify(parseHookForm('a=x+y&l[]=1&l[]=2&s[0]=a&s[5]=b')))).toEqual({ a: 'x y', l: ['1', '2'], s: { 0: 'a', 5: 'b' } });
  });
});
