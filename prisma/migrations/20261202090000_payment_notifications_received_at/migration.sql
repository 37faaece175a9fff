-- The worker prunes processed notify ids older than PAYMENT_NOTIFY_KEEP_HOURS by this column.
CREATE INDEX `payment_notifications_received_at_idx` ON `payment_notifications`(`received_at`);
