/** The account journeys' own words: the header, My orders' cancel step, the cashier, the 404 page, email verification. */
export const en = {
  // Header
  signedInAs: (email: string) => `Signed in as ${email}`,
  // My orders: the step before giving up a won unit
  confirmCancel: (orderId: number) => `Give up order #${orderId}? The unit goes back on sale.`,
  confirmCancelYes: "Give up order",
  confirmCancelNo: "Keep order",
  cancelling: "Cancelling…",
  productImage: (name: string) => name,
  noProductImage: "No picture",
  // Back from the cashier after Decline
  paymentDeclined: (orderId: number) => `You declined the payment for order #${orderId}: nothing was paid.`,
  payAgain: "Pay again",
  // The sandbox cashier, reached again (Back) after the payment
  alreadyPaid: "Already paid — see My orders",
  alreadyPaidNote: "This payment went through; there is nothing more to confirm.",
  tradeClosedSeeOrders: "Back to My orders",
  // 404
  pageNotFoundTitle: "Page not found",
  pageNotFoundText: "There is nothing at this address. It may have moved, or the link may be mistyped.",
  // Verified contacts: the /verify page and the "not verified" line beside Buy
  verifyTitle: "Email verification",
  verifying: "Verifying your email…",
  verified: "Your email is verified. Thank you!",
  linkUsed: "This link has already been used.",
  linkExpired: "This link has expired.",
  linkInvalid: "This link is not valid. Open the latest link we sent you.",
  linkMissing: "Open this page from the link in your email.",
  alreadyVerified: "Your email is verified.",
  signInToResend: "Sign in to get a new link.",
  notVerified: "Your email is not verified",
  sendAgain: "Send again",
  sending: "Sending…",
  sentTo: (email: string) => `We sent a new link to ${email}. It may take a minute to arrive.`,
};

export type AccountMessages = typeof en;
