/** Tag colours for the states an operator scans for: paid work to do stands out, finished states are grey. */
export const ORDER_STATUS_COLOR: Record<string, string> = {
  WAIT_PAY: "gold",
  PAID: "blue",
  SHIPPED: "green",
  CANCELLED: "default",
  REFUNDING: "orange",
  REFUNDED: "purple",
};

export const PAYMENT_STATUS_COLOR: Record<string, string> = {
  CREATED: "default",
  SUCCEEDED: "green",
  REFUND_PENDING: "orange",
  REFUNDED: "purple",
  CLOSED: "default",
};
