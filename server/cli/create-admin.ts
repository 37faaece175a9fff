import { parseArgs } from "node:util";
import { env } from "../platform/env";
import { createServices } from "../composition";
import { credentialsInput } from "../trpc/schemas";
import { ensureAdmin } from "../gateway/accounts";

/**
 * npm run admin:create -- --email ops@example.com --password '…'
 * Creates the account as an admin, or makes an existing account an admin with this password.
 */
const { values } = parseArgs({ options: { email: { type: "string" }, password: { type: "string" } } });
const parsed = credentialsInput.safeParse(values);
if (!parsed.success) {
  console.error("usage: npm run admin:create -- --email <email> --password <at least 8 characters>");
  process.exit(2);
}
const services = await createServices(env());
try {
  const admin = await ensureAdmin(services, parsed.data);
  console.log(`${admin.created ? "created" : "updated"} admin ${parsed.data.email} (user ${admin.id})`);
} finally {
  await services.close();
}
