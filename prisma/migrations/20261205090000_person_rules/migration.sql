-- AlterTable
ALTER TABLE `users` ADD COLUMN `contact_verified_at` DATETIME(3) NULL,
    ADD COLUMN `real_name_key` VARCHAR(64) NULL;

-- CreateIndex
CREATE INDEX `users_real_name_key_idx` ON `users`(`real_name_key`);

-- AlterTable
ALTER TABLE `sales` ADD COLUMN `require_verified_contact` BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN `accounts_created_before` DATETIME(3) NULL;
