-- AlterTable
ALTER TABLE `orders` MODIFY `status` ENUM('WAIT_PAY', 'PAID', 'CANCELLED', 'SHIPPED', 'REFUNDED') NOT NULL DEFAULT 'WAIT_PAY',
    ADD COLUMN `cancel_reason` ENUM('TIMEOUT', 'USER') NULL;

-- CreateTable
CREATE TABLE `payments` (
    `id` INTEGER NOT NULL AUTO_INCREMENT,
    `order_id` INTEGER NOT NULL,
    `provider` VARCHAR(32) NOT NULL,
    `provider_trade_no` VARCHAR(64) NULL,
    `amount_cents` INTEGER NOT NULL,
    `status` ENUM('CREATED', 'SUCCEEDED', 'REFUND_PENDING', 'REFUNDED') NOT NULL DEFAULT 'CREATED',
    `provider_refund_no` VARCHAR(64) NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `paid_at` DATETIME(3) NULL,
    `refunded_at` DATETIME(3) NULL,
    `updated_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    UNIQUE INDEX `payments_order_id_key`(`order_id`),
    UNIQUE INDEX `payments_provider_trade_no_key`(`provider_trade_no`),
    INDEX `payments_status_idx`(`status`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `payment_notifications` (
    `id` INTEGER NOT NULL AUTO_INCREMENT,
    `provider` VARCHAR(32) NOT NULL,
    `notify_id` VARCHAR(64) NOT NULL,
    `payment_id` INTEGER NOT NULL,
    `received_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    INDEX `payment_notifications_payment_id_idx`(`payment_id`),
    UNIQUE INDEX `payment_notifications_provider_notify_id_key`(`provider`, `notify_id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- AddForeignKey
ALTER TABLE `payments` ADD CONSTRAINT `payments_order_id_fkey` FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `payment_notifications` ADD CONSTRAINT `payment_notifications_payment_id_fkey` FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;
