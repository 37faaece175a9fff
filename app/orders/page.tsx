import { MyOrders } from "../_components/my-orders";

/** `?order=<id>`: the buyer is back from the payment provider with this order; `&declined=1`: they said no there. */
export default async function OrdersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { order, declined } = await searchParams;
  const returnedOrderId = typeof order === "string" && /^[1-9]\d{0,9}$/.test(order) ? Number(order) : null;
  return <MyOrders returnedOrderId={returnedOrderId} declined={declined === "1"} />;
}
