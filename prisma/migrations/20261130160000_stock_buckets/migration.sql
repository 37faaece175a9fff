-- AlterTable: a sale's Redis stock may be split into K buckets (hash tags) for a very hot item
ALTER TABLE `sales` ADD COLUMN `stock_buckets` INTEGER NOT NULL DEFAULT 1;

-- AlterTable: which bucket's Redis stock an order's unit came from, so a cancellation gives it
-- back there (and the ledger can be checked per bucket)
ALTER TABLE `orders` ADD COLUMN `stock_bucket` INTEGER NOT NULL DEFAULT 0;
