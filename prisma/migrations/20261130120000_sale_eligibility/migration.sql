-- AlterTable
ALTER TABLE `sales` ADD COLUMN `require_real_name` BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN `min_member_level` INTEGER NOT NULL DEFAULT 0;
