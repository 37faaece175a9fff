import { env } from "@/server/platform/env";
import { SalesConsole } from "./_components/sales-console";

// Read at request time: the shop's default comes from the running process's env, not the build's.
export const dynamic = "force-dynamic";

export default function AdminHomePage() {
  return <SalesConsole verifiedContactByDefault={env().NODE_ENV === "production"} />;
}
