/**
 * Where Decline sends the buyer: the merchant's return path with `declined=1`, so My orders can
 * say plainly that nothing was paid instead of waiting for a payment that is not coming.
 */
export function declinedReturnUrl(returnUrl: string): string {
  const url = new URL(returnUrl, "http://this-shop.invalid");
  url.searchParams.set("declined", "1");
  return `${url.pathname}${url.search}${url.hash}`;
}
