-- CreateTable: the demo sales start-up created, one row per round. Processes starting at once on
-- a database with no open sale all try to create round N + 1; the primary key lets one of them.
CREATE TABLE `demo_sales` (
    `round` INTEGER NOT NULL,
    `sale_id` INTEGER NOT NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    UNIQUE INDEX `demo_sales_sale_id_key`(`sale_id`),
    PRIMARY KEY (`round`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- AddForeignKey
ALTER TABLE `demo_sales` ADD CONSTRAINT `demo_sales_sale_id_fkey` FOREIGN KEY (`sale_id`) REFERENCES `sales`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;
