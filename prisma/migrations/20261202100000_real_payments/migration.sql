-- Real providers: one payment attempt per order and provider, our own unguessable trade number,
-- refunds of paid orders (REFUNDING), attempts closed at the provider (CLOSED).
ALTER TABLE `orders` MODIFY `status` ENUM('WAIT_PAY', 'PAID', 'CANCELLED', 'SHIPPED', 'REFUNDED', 'REFUNDING') NOT NULL DEFAULT 'WAIT_PAY';

ALTER TABLE `payments` MODIFY `status` ENUM('CREATED', 'SUCCEEDED', 'REFUND_PENDING', 'REFUNDED', 'CLOSED') NOT NULL DEFAULT 'CREATED',
    ADD COLUMN `out_trade_no` VARCHAR(32) NULL AFTER `provider`,
    ADD COLUMN `refund_no` VARCHAR(64) NULL AFTER `status`,
    ADD COLUMN `refund_error` VARCHAR(255) NULL AFTER `provider_refund_no`,
    ADD COLUMN `refund_requested_at` DATETIME(3) NULL AFTER `paid_at`,
    ADD COLUMN `closed_at` DATETIME(3) NULL AFTER `refunded_at`;

-- Payments made before this migration (sandbox ones) get a random number too.
UPDATE `payments` SET `out_trade_no` = MD5(CONCAT(`id`, '-', RAND(), '-', NOW(6)));

ALTER TABLE `payments` MODIFY `out_trade_no` VARCHAR(32) NOT NULL;
CREATE UNIQUE INDEX `payments_out_trade_no_key` ON `payments`(`out_trade_no`);
CREATE UNIQUE INDEX `payments_refund_no_key` ON `payments`(`refund_no`);
-- The composite index serves the order_id foreign key, so the old one can go after it.
CREATE UNIQUE INDEX `payments_order_id_provider_key` ON `payments`(`order_id`, `provider`);
DROP INDEX `payments_order_id_key` ON `payments`;
CREATE UNIQUE INDEX `payments_provider_provider_trade_no_key` ON `payments`(`provider`, `provider_trade_no`);
DROP INDEX `payments_provider_trade_no_key` ON `payments`;
