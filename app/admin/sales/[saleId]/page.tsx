import { notFound } from "next/navigation";
import { SaleConsole } from "../../_components/sale-console";

export default async function AdminSalePage({ params }: { params: Promise<{ saleId: string }> }) {
  const { saleId } = await params;
  if (!/^[1-9]\d{0,9}$/.test(saleId)) notFound();
  return <SaleConsole saleId={Number(saleId)} />;
}
