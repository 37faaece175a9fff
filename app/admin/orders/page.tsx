import { OrdersConsole } from "../_components/orders-console";

export default function AdminOrdersPage() {
  return <OrdersConsole />;
}
