import { describe, expect, it } from "vitest";
import { StreamCaps, tooManyStreams } from "./stream-caps";

const alice = { shopper: "1", address: "198.51.100.7" };
const bob = { shopper: "2", address: "198.51.100.7" };

describe("StreamCaps: open streams per shopper and per address", () => {
  it("admits a shopper up to the cap and refuses the next, naming the shopper's cap", () => {
    const caps = new StreamCaps({ perShopper: 2, perAddress: 100 });
    expect(caps.open(alice).admitted).toBe(true);
    expect(caps.open(alice).admitted).toBe(true);
    expect(caps.open(alice)).toEqual({ admitted: false, over: "shopper" });
    // Another shopper behind the same address is not held to Alice's count.
    expect(caps.open(bob).admitted).toBe(true);
    expect(caps.openCount({ shopper: "1" })).toBe(2);
    expect(caps.openCount({ address: alice.address })).toBe(3);
  });

  it("refuses past the address's cap whoever the shopper, and a refusal counts nothing", () => {
    const caps = new StreamCaps({ perShopper: 2, perAddress: 3 });
    for (let shopper = 1; shopper <= 3; shopper++)
      expect(caps.open({ shopper: String(shopper), address: "203.0.113.5" }).admitted).toBe(true);
    expect(caps.open({ shopper: "4", address: "203.0.113.5" })).toEqual({ admitted: false, over: "address" });
    expect(caps.open({ shopper: null, address: "203.0.113.5" })).toEqual({ admitted: false, over: "address" });
    expect(caps.openCount({ shopper: "4" })).toBe(0);
    expect(caps.openCount({ address: "203.0.113.5" })).toBe(3);
    // Another address has its own count.
    expect(caps.open({ shopper: "4", address: "203.0.113.6" }).admitted).toBe(true);
  });

  it("does not leak: opened to the caps and all released, it admits as many again and keeps no entry", () => {
    const caps = new StreamCaps({ perShopper: 3, perAddress: 6 });
    for (let round = 0; round < 3; round++) {
      const slots = [alice, alice, alice, bob, bob, bob].map((owner) => caps.open(owner));
      expect(slots.every((slot) => slot.admitted)).toBe(true);
      expect(caps.open(bob).admitted).toBe(false);
      for (const slot of slots) if (slot.admitted) slot.release();
      expect(caps.openCount()).toBe(0);
      expect(caps.owners()).toEqual({ shoppers: 0, addresses: 0 });
    }
  });

  it("counts a release once, however often it is called (client gone, then the stream's end)", () => {
    const caps = new StreamCaps({ perShopper: 1, perAddress: 10 });
    const first = caps.open(alice);
    const second = caps.open({ ...alice, address: "192.0.2.1" });
    expect(second.admitted).toBe(false);
    if (!first.admitted) throw new Error("the first stream was refused");
    first.release();
    first.release();
    expect(caps.openCount()).toBe(0);
    const again = caps.open(alice);
    expect(again.admitted).toBe(true);
    expect(caps.open(alice).admitted).toBe(false);
  });

  it("counts a stream with no session by its address only; 0 is no cap", () => {
    const caps = new StreamCaps({ perShopper: 0, perAddress: 0 });
    for (let i = 0; i < 1000; i++) expect(caps.open(i % 2 ? alice : { shopper: null, address: alice.address }).admitted).toBe(true);
    expect(caps.openCount({ shopper: "1" })).toBe(500);
    expect(caps.openCount({ address: alice.address })).toBe(1000);
  });

  it("says why in both languages", () => {
    expect(tooManyStreams("shopper").en).toMatch(/^Too many pages of this shop/);
    expect(tooManyStreams("address").zh).toMatch(/^您所在的网络/);
  });
});
