/**
 * Who may buy in a sale. Pure: the sale's rules and a shopper's standing give one code, which
 * warm-up writes to Redis so that the purchase scripts can refuse inside the same atomic round trip.
 */
export interface EligibilityRules {
  requireRealName: boolean;
  minMemberLevel: number;
  requireVerifiedContact: boolean;
  /** Accounts created at or after this moment may not buy; null = any account may. */
  accountsCreatedBefore: Date | null;
}

/** The sale columns the rules are read from (a Prisma `select`). */
export const ELIGIBILITY_RULE_FIELDS = {
  requireRealName: true,
  minMemberLevel: true,
  requireVerifiedContact: true,
  accountsCreatedBefore: true,
} as const;

export interface Standing {
  memberLevel: number;
  realNameVerified: boolean;
  blacklisted: boolean;
  contactVerifiedAt: Date | null;
  createdAt: Date;
  /** The real-name identity's keyed hash (real-name.ts); accounts sharing it share a unit limit. */
  realNameKey: string | null;
}

/** The user columns a standing is read from (a Prisma `select`). */
export const STANDING_FIELDS = {
  memberLevel: true,
  realNameVerified: true,
  blacklisted: true,
  contactVerifiedAt: true,
  createdAt: true,
  realNameKey: true,
} as const;

/** Codes as stored in Redis; the purchase scripts (server/seckill/includes/check-purchase.lua) map each refusal to its own return code. */
export const ELIGIBILITY = {
  ELIGIBLE: 0,
  BLACKLISTED: 1,
  REAL_NAME_REQUIRED: 2,
  MEMBER_LEVEL_TOO_LOW: 3,
  CONTACT_NOT_VERIFIED: 4,
  ACCOUNT_TOO_NEW: 5,
} as const;
export type EligibilityCode = (typeof ELIGIBILITY)[keyof typeof ELIGIBILITY];

/**
 * A shopper not listed in a sale's table: an account made after every cutoff, with nothing
 * verified. Accounts made since warm-up are written in by sign-up (refreshSaleStanding).
 */
export const NEW_ACCOUNT: Standing = {
  memberLevel: 0,
  realNameVerified: false,
  blacklisted: false,
  contactVerifiedAt: null,
  createdAt: new Date(8.64e15),
  realNameKey: null,
};

/** In the order a shopper can act on them: nothing helps a blacklisted or too new account. */
export function eligibilityOf(standing: Standing, rules: EligibilityRules): EligibilityCode {
  if (standing.blacklisted) return ELIGIBILITY.BLACKLISTED;
  if (rules.accountsCreatedBefore && standing.createdAt >= rules.accountsCreatedBefore) return ELIGIBILITY.ACCOUNT_TOO_NEW;
  if (rules.requireVerifiedContact && !standing.contactVerifiedAt) return ELIGIBILITY.CONTACT_NOT_VERIFIED;
  if (rules.requireRealName && !standing.realNameVerified) return ELIGIBILITY.REAL_NAME_REQUIRED;
  if (standing.memberLevel < rules.minMemberLevel) return ELIGIBILITY.MEMBER_LEVEL_TOO_LOW;
  return ELIGIBILITY.ELIGIBLE;
}

/**
 * The person a real-name sale counts this shopper's units under, besides the account: only
 * in a real-name sale, and only for a verified identity.
 */
export function personOf(standing: Standing, rules: EligibilityRules): string | null {
  return rules.requireRealName && standing.realNameVerified ? standing.realNameKey : null;
}

/**
 * The per-sale table Redis holds: the code every shopper not listed gets (that of a new
 * account), the shoppers who differ, and, in a real-name sale, each shopper's person.
 */
export function eligibilityTable(
  shoppers: Iterable<Standing & { id: number }>,
  rules: EligibilityRules,
): { defaultCode: EligibilityCode; overrides: Map<number, EligibilityCode>; persons: Map<number, string> } {
  const defaultCode = eligibilityOf(NEW_ACCOUNT, rules);
  const overrides = new Map<number, EligibilityCode>();
  const persons = new Map<number, string>();
  for (const shopper of shoppers) {
    const code = eligibilityOf(shopper, rules);
    if (code !== defaultCode) overrides.set(shopper.id, code);
    const person = personOf(shopper, rules);
    if (person) persons.set(shopper.id, person);
  }
  return { defaultCode, overrides, persons };
}

/** Accounts whose standing in a sale with these rules may differ from a new account's: the only ones warm-up must read. */
export function nonDefaultStanding(rules: EligibilityRules) {
  return {
    OR: [
      { blacklisted: true },
      { realNameVerified: true },
      { memberLevel: { gt: 0 } },
      ...(rules.requireVerifiedContact ? [{ contactVerifiedAt: { not: null } }] : []),
      ...(rules.accountsCreatedBefore ? [{ createdAt: { lt: rules.accountsCreatedBefore } }] : []),
    ],
  };
}
