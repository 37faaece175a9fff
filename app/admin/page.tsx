import { SalesConsole } from "./_components/sales-console";

export default function AdminHomePage() {
  return <SalesConsole />;
}
