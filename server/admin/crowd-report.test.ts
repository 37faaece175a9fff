import { describe, expect, it } from "vitest";
import { CROWD_MEMBER_LIMIT, crowdLabel, newAccountsSince, shapeCrowd, toBlacklist, type CrowdRows } from "./crowd-report";

const readAt = new Date("2026-12-05T12:00:00Z");
const hoursAgo = (h: number) => new Date(readAt.getTime() - h * 3600_000);
const personKey = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";

const rows = (overrides: Partial<CrowdRows> = {}): CrowdRows => ({
  saleId: 7,
  readAt,
  // As MySQL answers a raw query: BIGINT counts, TINYINT flags.
  summary: { shoppers: 12n, blacklisted: 1n, newShoppers: 3n },
  newOverall: 40n,
  groups: {
    ADDRESS: [{ key: "203.0.113.9", accounts: 3n, orders: 4n, blacklisted: 1n, newAccounts: 2n }],
    DEVICE: [],
    PERSON: [{ key: personKey, accounts: 2n, orders: 2n, blacklisted: 0n, newAccounts: 0n }],
  },
  members: {
    ADDRESS: [
      { key: "203.0.113.9", id: 5n, email: "e@x.test", blacklisted: 1, orders: 1n, createdAt: hoursAgo(1) },
      { key: "203.0.113.9", id: 9n, email: "i@x.test", blacklisted: 0, orders: 2n, createdAt: hoursAgo(23.9) },
      { key: "203.0.113.9", id: 2n, email: "b@x.test", blacklisted: 0, orders: 1n, createdAt: hoursAgo(30) },
    ],
    DEVICE: [],
    PERSON: [
      { key: personKey, id: 3n, email: "c@x.test", blacklisted: 0, orders: 1n, createdAt: hoursAgo(48) },
      { key: personKey, id: 4n, email: "d@x.test", blacklisted: 0, orders: 1n, createdAt: hoursAgo(48) },
    ],
  },
  ...overrides,
});

describe("shapeCrowd", () => {
  it("turns MySQL's counts into numbers and dates the window 24 hours back", () => {
    const crowd = shapeCrowd(rows());
    expect(crowd).toMatchObject({ saleId: 7, shoppers: 12, blacklistedShoppers: 1, newAccounts: { shoppers: 3, overall: 40 } });
    expect(crowd.newSince).toEqual(hoursAgo(24));
    expect(newAccountsSince(readAt)).toEqual(hoursAgo(24));
  });

  it("hangs each group's accounts under it, those still to blacklist first, with who is new", () => {
    const [group] = shapeCrowd(rows()).addresses;
    expect(group).toEqual({
      kind: "ADDRESS",
      label: "203.0.113.9",
      fullAddress: "203.0.113.9",
      accounts: 3,
      orders: 4,
      blacklisted: 1,
      newAccounts: 2,
      unlisted: 0,
      members: [
        { userId: 2, email: "b@x.test", blacklisted: false, orders: 1, newAccount: false },
        { userId: 9, email: "i@x.test", blacklisted: false, orders: 2, newAccount: true },
        { userId: 5, email: "e@x.test", blacklisted: true, orders: 1, newAccount: true },
      ],
    });
    expect(toBlacklist(group!)).toEqual([2, 9]);
  });

  it("never hands out a real-name key or a device id whole", () => {
    const device = "d3v1c3-0123456789abcdef";
    const crowd = shapeCrowd(
      rows({
        groups: { ...rows().groups, DEVICE: [{ key: device, accounts: 2n, orders: 2n, blacklisted: 0n, newAccounts: 0n }] },
      }),
    );
    expect(crowd.persons[0]).toMatchObject({ label: "a1b2c3d4…", fullAddress: null });
    expect(crowd.devices[0]).toMatchObject({ label: "d3v1c3-0…", fullAddress: null, members: [], unlisted: 2 });
    const text = JSON.stringify(crowd);
    expect(text).not.toContain(personKey.slice(0, 9));
    expect(text).not.toContain(device);
  });

  it("counts the accounts of a group beyond the listed ones", () => {
    const many = Array.from({ length: CROWD_MEMBER_LIMIT + 5 }, (_, i) => ({
      key: "198.51.100.1",
      id: i + 1,
      email: `s${i}@x.test`,
      blacklisted: false,
      orders: 1,
      createdAt: hoursAgo(100),
    }));
    const crowd = shapeCrowd(
      rows({
        groups: {
          ADDRESS: [{ key: "198.51.100.1", accounts: 80, orders: "80", blacklisted: null as unknown as number, newAccounts: 0 }],
          DEVICE: [],
          PERSON: [],
        },
        members: { ADDRESS: many, DEVICE: [], PERSON: [] },
      }),
    );
    expect(crowd.addresses[0]).toMatchObject({ accounts: 80, orders: 80, blacklisted: 0, unlisted: 80 - CROWD_MEMBER_LIMIT });
    expect(crowd.addresses[0]!.members).toHaveLength(CROWD_MEMBER_LIMIT);
  });

  it("reads an empty sale as zeros", () => {
    const crowd = shapeCrowd(
      rows({
        summary: { shoppers: 0n, blacklisted: null as unknown as bigint, newShoppers: null as unknown as bigint },
        newOverall: 0n,
        groups: { ADDRESS: [], DEVICE: [], PERSON: [] },
        members: { ADDRESS: [], DEVICE: [], PERSON: [] },
      }),
    );
    expect(crowd).toMatchObject({
      shoppers: 0,
      blacklistedShoppers: 0,
      newAccounts: { shoppers: 0, overall: 0 },
      addresses: [],
      devices: [],
      persons: [],
    });
  });
});

describe("crowdLabel", () => {
  it("keeps an IPv4 address and an IPv6 /64 whole, and a longer key's ends", () => {
    expect(crowdLabel("ADDRESS", "203.0.113.9")).toBe("203.0.113.9");
    expect(crowdLabel("ADDRESS", "2001:db8:85a3:8d3::/64")).toBe("2001:db8:85a3:8d3::/64");
    expect(crowdLabel("ADDRESS", "2001:0db8:85a3:08d3:1319:8a2e:0370:7344")).toBe("2001:0db8:85a3:…370:7344");
  });

  it("shows a device or a person as its first 8 characters", () => {
    expect(crowdLabel("DEVICE", "abcdefghijkl")).toBe("abcdefgh…");
    expect(crowdLabel("PERSON", "short")).toBe("short");
  });
});
