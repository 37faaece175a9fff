/**
 * Tag colours for the states an operator scans for. Dark hues, which antd draws as solid tags with
 * white text: its preset light tags (green on pale green) fail WCAG contrast (axe: color-contrast).
 */
export const TAG = {
  gold: "#8a5a00",
  red: "#b42318",
  green: "#1f7a3f",
  orange: "#9a3412",
  blue: "#1d4ed8",
  purple: "#6d28d9",
  grey: "default",
} as const;

export const ORDER_STATUS_COLOR: Record<string, string> = {
  WAIT_PAY: TAG.gold,
  PAID: TAG.blue,
  SHIPPED: TAG.green,
  CANCELLED: TAG.grey,
  REFUNDING: TAG.orange,
  REFUNDED: TAG.purple,
};

export const PAYMENT_STATUS_COLOR: Record<string, string> = {
  CREATED: TAG.grey,
  SUCCEEDED: TAG.green,
  REFUND_PENDING: TAG.orange,
  REFUNDED: TAG.purple,
  CLOSED: TAG.grey,
};
