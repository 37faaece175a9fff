import type { Metadata } from "next";
import { VerifyContact } from "../_components/verify-contact";

export const metadata: Metadata = { title: "Email verification · Flash Sale" };
export const dynamic = "force-dynamic";

/** Where the mailed verification link lands: `/verify?token=…` (server/gateway/contact-verification.ts). */
export default async function VerifyPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await searchParams;
  return <VerifyContact token={typeof token === "string" && token ? token : null} />;
}
