/**
 * The server's own sentences in English: refusals, tRPC errors, form field errors. English defines
 * the keys; server/platform/sentences/zh.ts is typed by them. A part said in the reader's language
 * (a wait, an order status, a provider) comes in as a string, picked from the same catalog by the
 * caller (server/platform/sentences/sentence.ts).
 */
const tryAgainInSeconds = (seconds: number) => `Try again in ${seconds} s.`;

export const en = {
  common: {
    busy: "We are very busy right now. Please try again in a moment.",
    saleDoesNotExist: (saleId: number) => `Sale ${saleId} does not exist.`,
    saleNumberDoesNotExist: (saleId: number) => `Sale #${saleId} does not exist.`,
    saleWithdrawn: "This sale does not exist or has been withdrawn.",
    tryAgainInSeconds,
    seconds: (seconds: number) => (seconds === 1 ? "1 second" : `${seconds} seconds`),
    minutes: (minutes: number) => (minutes === 1 ? "1 minute" : `${minutes} minutes`),
    signInToContinue: "Sign in to continue.",
    accountGone: "Your account no longer exists; sign in again.",
    orderDoesNotExist: (orderId: number) => `Order #${orderId} does not exist.`,
    bodyTooLarge: (maxBytes: number) => `The request body is over ${maxBytes} bytes.`,
  },

  /**
   * The words of pages served outside React: the front door's "starting…" page
   * (server/cli/starting-page.ts) and the queue board's refusal and way back
   * (server/admin/queue-board.ts). Plain strings, so the launcher can use them before Next.js is up.
   */
  pages: {
    startingTitle: "Starting…",
    startingHeading: "The shop is starting",
    startingBody: "It will be ready in a few seconds. This page reloads by itself.",
    startingReload: "Reload now",
    startingApi: "The shop is starting; try again in a few seconds.",
    adminsOnlyTitle: "Admins only",
    adminsOnlyHeading: "This page is for the shop's admins",
    adminsOnlyBody: "You are signed in with a shopper's account. Sign in as an admin to see the queues.",
    backToShop: "Back to the shop",
    adminConsole: "Admin console",
    backToConsole: "← Admin console",
    signInAsAdmin: "Sign in as an admin to see the queues.",
  },

  trpc: {
    unexpectedError: "Something went wrong on our side.",
    invalidInput: "Invalid input: ",
    adminsOnly: "Admins only.",
    notYourTicket: "This ticket is not yours for this sale: join the waiting room again.",
  },

  /** The custom messages of server/trpc/schemas.ts: they name the API's fields on purpose. */
  input: {
    saleId: "saleId must be a number",
    token:
      "token is required: get one from seckill.token once the sale starts (in a sale with a waiting room, send the ticket from room.join instead)",
    tokenMalformed: "token is malformed",
    ticketMalformed: "ticket is malformed: send the ticket room.join gave",
    solutionMalformed: "solution is malformed",
    again: "again must be true or false",
    reservationIdMalformed: "reservationId is malformed",
    orderId: "orderId must be a number",
    provider: (providers: string) => `provider must be one of ${providers}`,
    providersBetween: ", ",
    device: "device must be desktop or phone",
    email: "Enter a valid email address",
    passwordTooShort: "Use at least 8 characters",
    userIds: "userIds must be a list of account numbers",
    userIdsEmpty: "Choose at least one account",
    userIdsTooMany: (max: number) => `At most ${max} accounts at once`,
    verificationToken: "token is malformed: open the whole link from the email",
    standingChange: "Change at least one of blacklisted, realNameVerified, memberLevel, realNameId",
  },

  /** The sale form's field messages (server/admin/sale-form.ts), shown beside the field. */
  saleForm: {
    amountNotANumber: (amount: string) => `${amount} must be a number`,
    amountTooLarge: (amount: string) => `${amount} is too large`,
    amountNotWholeCents: (amount: string) => `${amount} must be whole cents`,
    amountBelowOneCent: (amount: string) => `${amount} must be at least 1 cent`,
    originalPrice: "The original price",
    salePrice: "The sale price",
    imageUrlTooLong: "Keep the image URL under 500 characters",
    imageUrlNotAllowed: "Use a path on this site (starting with /) or an https:// address",
    nameMissing: "Enter the product's name",
    nameTooLong: "Keep the name under 191 characters",
    descriptionTooLong: "Keep the description under 2000 characters",
    unitLimitNotANumber: "Units per shopper must be a number",
    unitLimitNotWhole: "Units per shopper must be a whole number",
    unitLimitTooSmall: "Allow at least 1 unit per shopper",
    unitLimitTooLarge: "At most 100 units per shopper",
    startMissing: "Enter when the sale starts",
    endMissing: "Enter when the sale ends",
    accountsCreatedBeforeInvalid: "Enter a valid moment for the newest accounts allowed, or leave it empty",
    memberLevelNotANumber: "The member level must be a number",
    memberLevelNotWhole: "The member level must be a whole number",
    memberLevelTooSmall: "Member levels start at 0",
    memberLevelTooLarge: "Member levels go up to 100",
    admissionRateNotANumber: "The admission rate must be a number",
    admissionRateNotWhole: "The admission rate must be a whole number of places per second",
    admissionRateNegative: "The admission rate cannot be negative (0 = no waiting room)",
    admissionRateTooLarge: "At most 1,000,000 places per second",
    arrivalOrderMissing: "Choose how early arrivals are ordered",
    challengeWithoutRoom: "The proof-of-work challenge needs a waiting room: set an admission rate above 0, or turn the challenge off",
    realNameOneBucket: "A real-name sale keeps its stock in 1 part, so one person's accounts share one limit",
    endsBeforeStart: "The sale must end after it starts",
    priceAboveOriginal: "The sale price cannot be above the original price",
    startInPast: "The sale's start is in the past. Choose a start from now on; a sale that should open at once can start in a minute.",
    stockNotANumber: "Stock must be a number",
    stockNotWhole: "Stock must be whole units",
    stockTooSmall: "Stock must be at least 1",
    stockTooLarge: "At most 10,000,000 units",
    bucketsNotANumber: "The number of parts must be a number",
    bucketsNotWhole: "Whole parts only",
    bucketsTooFew: "At least 1 part",
    bucketsTooMany: (max: number) => `At most ${max} parts`,
    bucketsAboveStock: "No more parts than units",
    deltaNotANumber: "Enter how many units to add (negative to remove)",
    deltaNotWhole: "Whole units only",
    deltaZero: "Enter a change other than 0",
    deltaTooLarge: "At most 10,000,000 units at once",
  },

  gateway: {
    wrongCredentials: "Email or password is wrong.",
    passwordTooLong: (maxCharacters: number) => `Use at most ${maxCharacters} characters`,
    passwordTooLongSentence: (maxCharacters: number) => `The password is too long. Use at most ${maxCharacters} characters.`,
    alreadyRegistered: "An account with this email already exists. Sign in instead.",
    tooManyStreamsForShopper: (seconds: number) =>
      `Too many pages of this shop are following live updates for your account. Close one, or try again in ${seconds} seconds.`,
    tooManyStreamsFromAddress: (seconds: number) =>
      `Too many live updates are open from your network right now. Try again in ${seconds} seconds.`,
    crossSite: "Refused: a request with this site's session cookie must come from this site's own pages.",
    jsonOnly: "Send the request body as JSON (Content-Type: application/json); form and text bodies are refused.",
    tooManyFromYourAddress: (seconds: number) => `Too many requests from your address. ${tryAgainInSeconds(seconds)}`,
    tooManyRequests: (seconds: number) => `Too many requests. ${tryAgainInSeconds(seconds)}`,
    linkInvalid: "This verification link is not valid. Open the latest link we sent you, or ask for a new one.",
    linkExpired: "This verification link has expired. Ask for a new one.",
    linkUsed: "This verification link has already been used.",
    verificationSubject: "Confirm your email",
    verificationBody: (shop: string, link: string, hours: number) =>
      `Confirm your email address for ${shop} by opening this link (good for ${hours === 1 ? "1 hour" : `${hours} hours`}, once):\n\n${link}\n\nIf you did not sign up, ignore this email.`,
    emailNotSent: "We could not send the email just now. Try again in a minute.",
    resendTooSoon: (wait: string) => `A new link was sent a moment ago. Ask again in ${wait}.`,
    tooManySignUps: (scope: "address" | "device", wait: string) =>
      `Too many sign-ups ${scope === "address" ? "from your address" : "from this browser"}. Try again in ${wait}.`,
    tooManyFailedSignIns: (scope: "account" | "address", wait: string) =>
      `Too many failed sign-ins ${scope === "account" ? "for this account" : "from your address"}. Try again in ${wait}.`,
    procedureNameNotEncoded: "The procedure's name in the address is not valid URL-encoding.",
    authCallsUnbatched: "auth.* calls cannot be batched: send each one in a request of its own.",
    batchTooLarge: (maxCalls: number, calls: number) => `A batch may carry at most ${maxCalls} calls; this one has ${calls}.`,
    passwordsBusy: (seconds: number) => `Too many sign-ins and sign-ups at once. Please try again in ${seconds} s.`,
    notAnIdentityNumber: "That is not an identity number: use the 6 to 32 letters and digits of the ID card or passport.",
    userDoesNotExist: (userId: number) => `User ${userId} does not exist.`,
    cannotBlacklistYourself: "You cannot blacklist your own account.",
    noSuchUsers: (list: string) => `No such user: ${list}. Nothing was changed.`,
    sessionEnded: "Your session has ended. Sign in again.",
    sessionsNotEnded: "We could not end the account's sessions just now. Please try again in a moment.",
    metricsTokenNeeded:
      "Metrics are for the monitoring system: scrape from a private address or send Authorization: Bearer <METRICS_TOKEN>.",
    healthTokenNeeded:
      "The detailed health view is for operators: ask from a private address or send Authorization: Bearer <METRICS_TOKEN>. Probes ask /api/live and /api/ready.",
  },

  seckill: {
    notOpenYet: "This sale is getting ready to open; try again in a moment.",
    roomRequired: "This sale has a waiting room: join it to buy.",
    backlogFull: "Orders are backing up while we catch up. Your purchase was not taken; please try again in a minute.",
    noSuchReservation: "No such reservation for this account.",
    stockBusy: (saleId: number) =>
      `Sale ${saleId}'s stock is being changed or loaded right now (a stock change, another warm-up or the reconciler); nothing was loaded. Try again in a moment.`,
    warmUpRaced: (saleId: number, attempts: number, fromBucket: number) =>
      `Sale ${saleId} changed under ${attempts} warm-up attempts in a row (purchases still settling); ${fromBucket === 0 ? "nothing was changed" : `its buckets from ${fromBucket} on were not loaded`}. Try again in a moment.`,
    noStockRow: (saleId: number) => `Sale ${saleId} has no stock row.`,
    noWaitingRoom: "This sale has no waiting room: buy directly.",
    roomRaced: (saleId: number, attempts: number) =>
      `Sale ${saleId}'s waiting room changed under ${attempts} warm-up attempts in a row (shoppers joining); its room was not loaded. Try again in a moment.`,
  },

  /** The seckill service's and the front door's own refusals, before any procedure runs. */
  edges: {
    notFoundOnService: (paths: string) => `Not found: this service answers ${paths} only.`,
    and: " and ",
    mutationNeedsPost: (path: string) => `${path} is a mutation: send it with POST.`,
    notJson: "The request body is not valid JSON.",
    bodyOnGet: "A GET or HEAD request may not carry a body.",
    tooManyConnections: "Too many open connections from your address. Close some and try again.",
    webUnavailable: "The shop is not answering right now. Try again in a moment.",
  },

  orders: {
    /** A status as a refusal names it ("Order #7 is paid; …"). */
    status: {
      WAIT_PAY: "wait_pay",
      PAID: "paid",
      SHIPPED: "shipped",
      CANCELLED: "cancelled",
      REFUNDING: "refunding",
      REFUNDED: "refunded",
    },
    noSuchOrder: (orderId: number) => `No order #${orderId} for this account.`,
    onlyPaidShip: (orderId: number, status: string) => `Order #${orderId} is ${status}; only paid orders can be shipped.`,
    cannotCancel: (orderId: number, status: string) => `Order #${orderId} is ${status}; it can no longer be cancelled.`,
    orderNumberInvalid: "An order number is digits only, like 1024.",
    saleNumberInvalid: "A sale number is digits only, like 3.",
  },

  payments: {
    /** A provider as a sentence names it: its configured name in English, its brand in Chinese. */
    provider: { alipay: "alipay", wechatpay: "wechatpay", sandbox: "sandbox" },
    notSetUp: "Payments are not set up on this shop.",
    signInToPay: "Sign in to pay for this order.",
    requestTooLarge: "This payment request is too large to be genuine.",
    providerNotTaken: (asked: string, choices: string) => `This shop does not take payments through ${asked}; choose ${choices}.`,
    or: " or ",
    providerUnreachable: (provider: string) =>
      `We could not reach ${provider} just now, so nothing was changed. Please try again in a moment.`,
    alreadyPaidThrough: (orderId: number, provider: string) => `Order #${orderId} is already paid through ${provider}.`,
    nothingToPay: (orderId: number, status: string) => `Order #${orderId} is ${status}; there is nothing to pay.`,
    timeToPayOver: (orderId: number) => `The time to pay for order #${orderId} has run out.`,
    tradeClosed: "This payment was closed and can no longer be paid. Go back to your order to pay it again.",
    notGenuine: "This payment request is not genuine.",
    noSuchPayment: "There is no such payment for this account.",
    requestExpired: "This payment request has expired.",
  },

  refunds: {
    nothingSettled: (orderId: number) => `Order #${orderId} is paid but has no settled payment to refund.`,
    providerUnreachable: (orderId: number, provider: string) =>
      `Order #${orderId} is being refunded: ${provider} could not be reached, and is asked again automatically.`,
    providerRefused: (orderId: number, reason: string) =>
      `Order #${orderId}: the provider refused the refund (${reason}). Refund it again to retry.`,
    providerProcessing: (orderId: number) => `Order #${orderId} is being refunded; the provider is processing it.`,
    refunded: (orderId: number) => `Order #${orderId} is refunded.`,
    refundedAlready: (orderId: number) => `Order #${orderId} was refunded already.`,
    refunding: (orderId: number) => `Order #${orderId} is being refunded.`,
    notPaid: (orderId: number) => `Order #${orderId} is not paid; there is nothing to refund.`,
    cancelledUnpaid: (orderId: number) => `Order #${orderId} was cancelled without payment; there is nothing to refund.`,
    shipped: (orderId: number) => `Order #${orderId} has shipped; only paid orders not yet shipped can be refunded.`,
    notRefundable: (orderId: number, status: string) => `Order #${orderId} is ${status}; it cannot be refunded.`,
  },

  /** The stock ledger's problems (server/recovery/invariants.ts), as the console shows them. */
  /** The console's refusals: roles, refunds in bulk, stock changes, the queue board. */
  admin: {
    ownRole: "You cannot change your own role; ask another admin.",
    noSuchUser: (userId: number) => `User ${userId} does not exist.`,
    refundBatch: (max: number) => `Choose between 1 and ${max} orders to refund.`,
    queueBoardReadOnly:
      "The queue board only shows jobs and retries failed create-order, payment-notify and refund-payment jobs. Adding, editing, promoting, " +
      "cleaning or emptying jobs would bypass the sale's own rules (orders that never passed Redis, pay deadlines cut short); " +
      "use the admin console's actions instead.",
    cannotLowerStock: (saleId: number, by: number, unsold: number) =>
      `Cannot lower sale ${saleId}'s stock by ${by}: only ${unsold} unit(s) are unsold; the rest are already sold or reserved.`,
    cannotLowerStockInBucket: (saleId: number, by: number, unsold: number, bucket: number) =>
      `Cannot lower sale ${saleId}'s stock by ${by}: only ${unsold} unit(s) are unsold in its stock bucket ${bucket}, which must give up its share of the change; the rest are already sold or reserved.`,
    stockBusy: (saleId: number) =>
      `Sale ${saleId}'s stock is being changed or loaded into Redis right now (another stock change, a warm-up or the reconciler); try again in a moment.`,
    stockRebuilding: (saleId: number) =>
      `Sale ${saleId}'s Redis state is being rebuilt (a re-warm from MySQL is due), so its reserved units cannot be told from its unsold ones; nothing was changed. Lower it again once the sale is warm.`,
    stockRaisedRedisSilent: (saleId: number, totalStock: number) =>
      `Sale ${saleId}'s stock was raised to ${totalStock} in MySQL, but Redis did not answer; the reconciler adds the new units to Redis at its next quiet round.`,
    stockReloaded: (saleId: number) =>
      `Sale ${saleId}'s Redis stock was reloaded while this change started; nothing was changed. Try again.`,
    stockOutcomeUnknown: (saleId: number) =>
      `MySQL did not confirm sale ${saleId}'s stock change; it may or may not have been made. Redis offers no more than MySQL has either way, and the reconciler brings the two in step: check the sale's stock in a moment.`,
  },

  ledger: {
    units: (units: number) => (units === 1 ? "1 unit" : `${units} units`),
    inBucket: (bucket: number) => `Bucket ${bucket}: `,
    unitsMissingInRedis: (where: string, units: string, missing: number) =>
      `${where}${units} of stock ${missing === 1 ? "is" : "are"} missing from Redis: fewer units are on sale than MySQL says are left. The reconciler repairs drift it can prove within a round; if this stays red, pause the sale and warm it up again.`,
    unitsExtraInRedis: (where: string, units: string) =>
      `${where}Redis offers ${units} more than the stock allows: the sale could oversell. Pause the sale now, then warm it up again from MySQL.`,
    redisStockBelowZero: (where: string, stock: number) => `${where}Redis stock is below zero (${stock}).`,
    dbStockOutOfStep: (dbStock: number, totalStock: number, activeOrders: number) =>
      `MySQL stock is ${dbStock}, but the total ${totalStock} less ${activeOrders} active orders leaves ${totalStock - activeOrders}. The reconciler repairs what it can prove; if this stays red, stop the worker and check the stock row.`,
    dbStockBelowZero: (dbStock: number) => `MySQL stock is below zero (${dbStock}).`,
    overUnitLimit: (shoppers: number, unitLimit: number) =>
      `${shoppers} shopper(s) hold more than the unit limit of ${unitLimit} per shopper.`,
  },
} satisfies Catalog;

/** A group of sentences: each a sentence, a function making one, or a group of its own. */
interface Catalog {
  readonly [key: string]: string | ((...args: never[]) => string) | Catalog;
}

/** The shape every language's catalog has: English's keys and parameters, any words. */
export type Sentences = typeof en;
