import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buyAsShopper, createLiveSale, createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { joinRoom } from "../room-join/join";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { signSession } from "./session";
import { signUp } from "./accounts";
import { refreshSaleStanding } from "./standing";
import { releaseInRedis } from "../seckill/release";

/**
 * The rules that follow the person (issue #42), against real Redis and MariaDB through the real
 * purchase and join: a verified email, a moment for the newest accounts, and a real-name sale's
 * limit counted per person over all their accounts.
 */

let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("person_rules", { REQUEST_RATE_PER_IP: "0" });
});
afterAll(() => t?.cleanup());

const HOUR = 3600_000;
const buy = (shopper: { id: number }, saleId: number) => buyAsShopper(t.services, { userId: shopper.id, saleId });
const join = (shopper: { id: number }, saleId: number) => joinRoom(t.services, { userId: shopper.id, saleId });
const status = (answer: unknown) => (answer as { status: string }).status;

async function roomSale(rules: Parameters<typeof createLiveSale>[1]) {
  const { saleId } = await createLiveSale(t.services, {
    admissionRate: 100,
    startsAt: new Date(Date.now() + HOUR),
    endsAt: new Date(Date.now() + 2 * HOUR),
    ...rules,
  });
  await warmUpSale(t.services, saleId);
  return saleId;
}

describe("a sale that requires a verified email", () => {
  it("refuses an unverified shopper at the purchase and at the join (CONTACT_NOT_VERIFIED), and lets them in once verified", async () => {
    const [unverified] = await createShoppers(t.services, 1, { emailPrefix: "unverified", contactVerified: false });
    const [verified] = await createShoppers(t.services, 1, { emailPrefix: "verified" });
    const { saleId } = await createLiveSale(t.services, { stock: 5, requireVerifiedContact: true });
    await warmUpSale(t.services, saleId);
    const roomSaleId = await roomSale({ stock: 5, requireVerifiedContact: true });

    expect(status(await buy(unverified!, saleId))).toBe("CONTACT_NOT_VERIFIED");
    expect(status(await join(unverified!, roomSaleId))).toBe("CONTACT_NOT_VERIFIED");
    expect(status(await buy(verified!, saleId))).toBe("QUEUED");

    // The verification link's effect (server/gateway/contact-verification): MySQL, then the open sales at once.
    await t.services.db.user.update({ where: { id: unverified!.id }, data: { contactVerifiedAt: new Date() } });
    await refreshSaleStanding(t.services, unverified!.id);
    expect(status(await buy(unverified!, saleId))).toBe("QUEUED");
    expect(status(await join(unverified!, roomSaleId))).toBe("WAITING");
  });
});

describe("a sale with a moment for the newest accounts", () => {
  it("refuses an account made at or after it at the purchase and the join (ACCOUNT_TOO_NEW); an older one buys", async () => {
    const [older, younger] = await createShoppers(t.services, 2, { emailPrefix: "age" });
    const announced = new Date(Date.now() - 60_000);
    await t.services.db.user.update({ where: { id: older!.id }, data: { createdAt: new Date(announced.getTime() - 1) } });
    await t.services.db.user.update({ where: { id: younger!.id }, data: { createdAt: announced } });
    const { saleId } = await createLiveSale(t.services, { stock: 5, accountsCreatedBefore: announced });
    await warmUpSale(t.services, saleId);
    const roomSaleId = await roomSale({ stock: 5, accountsCreatedBefore: announced });

    expect(status(await buy(younger!, saleId))).toBe("ACCOUNT_TOO_NEW");
    expect(status(await join(younger!, roomSaleId))).toBe("ACCOUNT_TOO_NEW");
    expect(status(await buy(older!, saleId))).toBe("QUEUED");
    expect(status(await join(older!, roomSaleId))).toBe("WAITING");
  });

  it("with the moment still ahead at warm-up, an account signed up after warm-up but before the moment buys", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 5, accountsCreatedBefore: new Date(Date.now() + HOUR) });
    await warmUpSale(t.services, saleId);
    const signedUp = await signUp(
      t.services,
      { email: `late-${Date.now()}@example.test`, password: "long-enough-pw" },
      { clientAddress: "127.0.0.1", device: null },
    );
    expect(status(await buy({ id: signedUp.user.id }, saleId))).toBe("QUEUED");
  });
});

describe("a real-name sale with a limit of 1", () => {
  const adminCaller = async () => {
    const [admin] = await createShoppers(t.services, 1, { emailPrefix: `admin-${Date.now()}` });
    await t.services.db.user.update({ where: { id: admin!.id }, data: { role: "ADMIN" } });
    const token = await signSession({ id: admin!.id, role: "ADMIN" }, t.env.SESSION_SECRET, 600);
    return createCaller(await createContext(t.services, new Headers({ authorization: `Bearer ${token}` })));
  };

  it("sells one unit to two accounts sharing one identity, however the number was typed, and another person buys", async () => {
    const admin = await adminCaller();
    const [first, second, stranger] = await createShoppers(t.services, 3, { emailPrefix: "realname" });
    // One account verified before warm-up (warm-up copies its person), one after (written at once).
    await admin.admin.updateStanding({ userId: first!.id, realNameId: "11010119900101123X" });
    const { saleId } = await createLiveSale(t.services, { stock: 5, unitLimit: 1, requireRealName: true });
    await warmUpSale(t.services, saleId);
    await admin.admin.updateStanding({ userId: second!.id, realNameId: "1101 0119 9001 0112 3x" });
    await admin.admin.updateStanding({ userId: stranger!.id, realNameId: "110101199202021234" });

    const stored = await t.services.db.user.findMany({ where: { id: { in: [first!.id, second!.id] } }, select: { realNameKey: true } });
    expect(stored[0]!.realNameKey).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[1]!.realNameKey).toBe(stored[0]!.realNameKey);
    expect(JSON.stringify(stored)).not.toContain("110101");

    // At once, as a scalper would: one of the two accounts gets the unit.
    const answers = await Promise.all([buy(first!, saleId), buy(second!, saleId)]);
    expect(answers.map(status).sort()).toEqual(["QUEUED", "UNIT_LIMIT_REACHED"]);
    expect(status(await buy(stranger!, saleId))).toBe("QUEUED");
    expect(await t.services.db.user.count({ where: { realNameKey: stored[0]!.realNameKey } })).toBe(2);

    // The unit released (an unpaid order timing out, a reservation given up): the person may buy again.
    const queued = answers.find((answer) => answer.status === "QUEUED") as { reservationId: string };
    const holder = answers[0]!.status === "QUEUED" ? first! : second!;
    await releaseInRedis(t.services, { reservationId: queued.reservationId, saleId, userId: holder.id }, 1, true);
    const other = answers[0]!.status === "QUEUED" ? second! : first!;
    expect(status(await buy(other, saleId))).toBe("QUEUED");
  });

  it("refuses an identity number that is not one, changing nothing", async () => {
    const admin = await adminCaller();
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "bad-id" });
    await expect(admin.admin.updateStanding({ userId: shopper!.id, realNameId: "12<3>" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(
      await t.services.db.user.findUnique({ where: { id: shopper!.id }, select: { realNameVerified: true, realNameKey: true } }),
    ).toEqual({
      realNameVerified: false,
      realNameKey: null,
    });
  });
});
