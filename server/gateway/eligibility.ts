/**
 * Who may buy in a sale. Pure: the sale's rules and a shopper's standing give one code, which
 * warm-up writes to Redis so that the purchase scripts can refuse inside the same atomic round trip.
 */
export interface EligibilityRules {
  requireRealName: boolean;
  minMemberLevel: number;
}

export interface Standing {
  memberLevel: number;
  realNameVerified: boolean;
  blacklisted: boolean;
}

/** Codes as stored in Redis; the purchase scripts (server/seckill/includes/check-purchase.lua) map each refusal to its own return code. */
export const ELIGIBILITY = {
  ELIGIBLE: 0,
  BLACKLISTED: 1,
  REAL_NAME_REQUIRED: 2,
  MEMBER_LEVEL_TOO_LOW: 3,
} as const;
export type EligibilityCode = (typeof ELIGIBILITY)[keyof typeof ELIGIBILITY];

/** Every account starts like this; only accounts that differ need an entry in Redis. */
export const NEW_ACCOUNT: Standing = { memberLevel: 0, realNameVerified: false, blacklisted: false };

export function eligibilityOf(standing: Standing, rules: EligibilityRules): EligibilityCode {
  if (standing.blacklisted) return ELIGIBILITY.BLACKLISTED;
  if (rules.requireRealName && !standing.realNameVerified) return ELIGIBILITY.REAL_NAME_REQUIRED;
  if (standing.memberLevel < rules.minMemberLevel) return ELIGIBILITY.MEMBER_LEVEL_TOO_LOW;
  return ELIGIBILITY.ELIGIBLE;
}

/**
 * The per-sale table Redis holds: the code every shopper not listed gets (that of a new
 * account, so sign-ups after warm-up are judged correctly), and the shoppers who differ.
 */
export function eligibilityTable(
  shoppers: Iterable<Standing & { id: number }>,
  rules: EligibilityRules,
): { defaultCode: EligibilityCode; overrides: Map<number, EligibilityCode> } {
  const defaultCode = eligibilityOf(NEW_ACCOUNT, rules);
  const overrides = new Map<number, EligibilityCode>();
  for (const shopper of shoppers) {
    const code = eligibilityOf(shopper, rules);
    if (code !== defaultCode) overrides.set(shopper.id, code);
  }
  return { defaultCode, overrides };
}

/** Accounts whose standing differs from a new account's: the only ones warm-up must read. */
export const NON_DEFAULT_STANDING = {
  OR: [{ blacklisted: true }, { realNameVerified: true }, { memberLevel: { gt: 0 } }],
};
