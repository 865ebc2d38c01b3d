import { describe, expect, it } from 'vitest';
import { createCallbackData } from '../src/engine/campaigns/callback-data';

describe('callback data: authentic strings are remembered, nothing else', () => {
  it('verifies what it signed, and what another process signed with the same secret', () => {
    const here = createCallbackData('secret-one');
    const there = createCallbackData('secret-one');
    const opaque = there.sign({ campaignId: 7, recipientId: 42 });
    expect(here.verify(opaque)).toEqual({ campaignId: 7, recipientId: 42 });
    // Met again (the delivered and read statuses of the same send): the same answer.
    expect(here.verify(opaque)).toEqual({ campaignId: 7, recipientId: 42 });
    expect(here.verify(here.sign({ campaignId: 7, recipientId: 43 }))).toEqual({ campaignId: 7, recipientId: 43 });
  });

  it('refuses a forged tag, another secret, and a changed id, even right after the authentic string', () => {
    const cb = createCallbackData('secret-one');
    const opaque = cb.sign({ campaignId: 7, recipientId: 42 });
    expect(cb.verify(opaque)).not.toBeNull();
    const tag = opaque.split(':')[3];
    const flipped = `${tag.slice(0, -1)}${tag.endsWith('0') ? '1' : '0'}`;
    expect(cb.verify(`masivo:7:42:${flipped}`)).toBeNull();
    expect(cb.verify(`masivo:7:43:${tag}`)).toBeNull();
    expect(cb.verify(createCallbackData('secret-two').sign({ campaignId: 7, recipientId: 42 }))).toBeNull();
    expect(cb.verify(`${opaque} `)).toBeNull();
    expect(cb.verify('')).toBeNull();
    expect(cb.verify(null)).toBeNull();
  });

  it('a caller that changes its answer does not change the next one', () => {
    const cb = createCallbackData('secret-one');
    const opaque = cb.sign({ campaignId: 1, recipientId: 2 });
    const first = cb.verify(opaque)!;
    first.recipientId = 999;
    expect(cb.verify(opaque)).toEqual({ campaignId: 1, recipientId: 2 });
  });

  it('keeps at most its bound, and an evicted string still verifies by its HMAC', () => {
    const cb = createCallbackData('secret-one', 3);
    const all = [1, 2, 3, 4, 5].map((id) => cb.sign({ campaignId: 9, recipientId: id }));
    for (const [i, opaque] of all.entries()) expect(cb.verify(opaque)).toEqual({ campaignId: 9, recipientId: i + 1 });
  });
});
