import { MyOrders } from "../_components/my-orders";

/** `?order=<id>`: the buyer is back from the payment provider with this order. */
export default async function OrdersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { order } = await searchParams;
  const returnedOrderId = typeof order === "string" && /^[1-9]\d{0,9}$/.test(order) ? Number(order) : null;
  return <MyOrders returnedOrderId={returnedOrderId} />;
}
