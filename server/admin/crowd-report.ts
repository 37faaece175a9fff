/**
 * The crowd behind one sale, as the console shows it (issue #42 item 5): new accounts, and the
 * sale's shoppers grouped by sign-up address, sign-up device and real-name person. Pure: the
 * queries are in crowd.ts; this module turns their rows into the report, and the console imports
 * its types. Real-name keys and device ids never leave it whole, only as short prefixes.
 */

/** How far back an account counts as new. */
export const NEW_ACCOUNT_WINDOW_MS = 24 * 3600_000;
/** Groups shown per kind: the busiest first. */
export const CROWD_GROUP_LIMIT = 10;
/** Accounts listed per group (not yet blacklisted first); "Blacklist all" takes the listed ones. */
export const CROWD_MEMBER_LIMIT = 50;
/** Accounts one blacklisting call may name. */
export const MAX_BLACKLIST_BATCH = 500;

export type CrowdKind = "ADDRESS" | "DEVICE" | "PERSON";
export const CROWD_KINDS: readonly CrowdKind[] = ["ADDRESS", "DEVICE", "PERSON"];

/** A count as MySQL hands it back through a raw query: COUNT is BIGINT, a flag TINYINT. */
type Count = number | bigint | string;

/** One group of the sale's shoppers sharing a key (an address, a device, a person). */
export interface CrowdGroupRow {
  key: string;
  accounts: Count;
  orders: Count;
  blacklisted: Count;
  newAccounts: Count;
}

/** One of a group's accounts, with its orders in this sale. */
export interface CrowdMemberRow {
  key: string;
  id: Count;
  email: string;
  blacklisted: Count | boolean;
  orders: Count;
  createdAt: Date;
}

export interface CrowdAccount {
  userId: number;
  email: string;
  blacklisted: boolean;
  /** Orders in this sale, in any state. */
  orders: number;
  /** Created within NEW_ACCOUNT_WINDOW_MS of the reading. */
  newAccount: boolean;
}

export interface CrowdGroup {
  kind: CrowdKind;
  /** The key shortened for display: an address in full unless long, a device or person as a prefix. */
  label: string;
  /** The whole address (an operator may block it upstream); null for devices and persons. */
  fullAddress: string | null;
  /** The sale's shoppers in the group, and their orders in this sale. */
  accounts: number;
  orders: number;
  blacklisted: number;
  newAccounts: number;
  /** Up to CROWD_MEMBER_LIMIT of them, those not yet blacklisted first. */
  members: CrowdAccount[];
  /** Accounts of the group not listed. */
  unlisted: number;
}

export interface SaleCrowd {
  saleId: number;
  readAt: Date;
  /** Accounts created at or after this moment are new. */
  newSince: Date;
  /** Accounts holding or having held an order in this sale. */
  shoppers: number;
  blacklistedShoppers: number;
  newAccounts: { shoppers: number; overall: number };
  addresses: CrowdGroup[];
  devices: CrowdGroup[];
  persons: CrowdGroup[];
}

export interface CrowdRows {
  saleId: number;
  readAt: Date;
  summary: { shoppers: Count; blacklisted: Count; newShoppers: Count };
  newOverall: Count;
  groups: Record<CrowdKind, readonly CrowdGroupRow[]>;
  members: Record<CrowdKind, readonly CrowdMemberRow[]>;
}

const count = (value: Count | null | undefined): number => (value === null || value === undefined ? 0 : Number(value));

/** The moment from which an account is new, for a reading at `now`. */
export function newAccountsSince(now: Date): Date {
  return new Date(now.getTime() - NEW_ACCOUNT_WINDOW_MS);
}

/** A key as the console shows it: enough to tell groups apart, never a real-name key in full. */
export function crowdLabel(kind: CrowdKind, key: string): string {
  if (kind !== "ADDRESS") return key.length > 8 ? `${key.slice(0, 8)}…` : key;
  // An IPv4 address or an IPv6 /64 fits; anything longer keeps its ends.
  return key.length > 24 ? `${key.slice(0, 15)}…${key.slice(-8)}` : key;
}

/** The report from the rows of crowd.ts's queries. */
export function shapeCrowd(rows: CrowdRows): SaleCrowd {
  const since = newAccountsSince(rows.readAt);
  const groupsOf = (kind: CrowdKind): CrowdGroup[] => {
    const membersByKey = new Map<string, CrowdAccount[]>();
    for (const m of rows.members[kind]) {
      const list = membersByKey.get(m.key) ?? [];
      list.push({
        userId: count(m.id),
        email: m.email,
        blacklisted: typeof m.blacklisted === "boolean" ? m.blacklisted : count(m.blacklisted) !== 0,
        orders: count(m.orders),
        newAccount: m.createdAt.getTime() >= since.getTime(),
      });
      membersByKey.set(m.key, list);
    }
    return rows.groups[kind].map((g) => {
      const members = (membersByKey.get(g.key) ?? [])
        .sort((a, b) => Number(a.blacklisted) - Number(b.blacklisted) || a.userId - b.userId)
        .slice(0, CROWD_MEMBER_LIMIT);
      const accounts = count(g.accounts);
      return {
        kind,
        label: crowdLabel(kind, g.key),
        fullAddress: kind === "ADDRESS" ? g.key : null,
        accounts,
        orders: count(g.orders),
        blacklisted: count(g.blacklisted),
        newAccounts: count(g.newAccounts),
        members,
        unlisted: Math.max(0, accounts - members.length),
      };
    });
  };
  return {
    saleId: rows.saleId,
    readAt: rows.readAt,
    newSince: since,
    shoppers: count(rows.summary.shoppers),
    blacklistedShoppers: count(rows.summary.blacklisted),
    newAccounts: { shoppers: count(rows.summary.newShoppers), overall: count(rows.newOverall) },
    addresses: groupsOf("ADDRESS"),
    devices: groupsOf("DEVICE"),
    persons: groupsOf("PERSON"),
  };
}

/** The accounts "Blacklist all" takes from a group: the listed ones not yet blacklisted. */
export function toBlacklist(group: Pick<CrowdGroup, "members">): number[] {
  return group.members.filter((m) => !m.blacklisted).map((m) => m.userId);
}
