import { describe, expect, it } from 'vitest';
import { AddressSlots } from '../../../src/http/address-slots.ts';

describe('per-address slots', () => {
  it('refuses an address past its cap until one of its requests leaves', () => {
    const slots = new AddressSlots(2);
    const first = slots.enter('192.0.2.1');
    expect(slots.enter('192.0.2.1')).toBe('192.0.2.1');
    expect(slots.enter('192.0.2.1')).toBeNull();
    expect(slots.enter('192.0.2.2')).toBe('192.0.2.2');
    slots.leave(first!);
    expect(slots.enter('192.0.2.1')).toBe('192.0.2.1');
    expect(slots.enter('192.0.2.1')).toBeNull();
  });

  it('counts an IPv6 /64 as one address', () => {
    const slots = new AddressSlots(1);
    expect(slots.enter('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(slots.enter('2001:db8:0:1::2')).toBeNull();
  });

  it('keeps every count through the sweep of addresses with nothing open', () => {
    const slots = new AddressSlots(1);
    expect(slots.enter('198.51.100.1')).not.toBeNull(); // held throughout
    for (let round = 0; round < 3; round++) {
      for (let index = 0; index < 5000; index++) {
        const address = `10.${round}.${index >> 8}.${index & 255}`;
        const slot = slots.enter(address);
        expect(slot).toBe(address);
        slots.leave(slot!);
        expect(slots.enter(address)).toBe(address); // its earlier request left: not counted
      }
    }
    expect(slots.enter('198.51.100.1')).toBeNull();
  });
});
