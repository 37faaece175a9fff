import { Storefront } from "./_components/storefront";

export default function HomePage() {
  return <Storefront />;
}
