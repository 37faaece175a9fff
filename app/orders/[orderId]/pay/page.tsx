import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { orderIdInput } from "@/server/trpc/schemas";
import { PayPage } from "../../../_components/pay-page";

export const metadata: Metadata = { title: "Pay · Flash Sale" };

/** /orders/<id>/pay: choose how to pay for one of the shopper's orders (the page loads it for them). */
export default async function PayOrderPage({ params }: { params: Promise<{ orderId: string }> }) {
  const { orderId } = await params;
  const parsed = /^[1-9]\d{0,9}$/.test(orderId) ? orderIdInput.safeParse({ orderId: Number(orderId) }) : null;
  if (!parsed?.success) notFound();
  return <PayPage orderId={parsed.data.orderId} />;
}
