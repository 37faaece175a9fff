-- Canonical identities and sign-up origins (issue #42). `email_canonical` is one account per
-- mailbox (server/gateway/email-identity.ts); nullable so existing rows can be filled after this
-- runs: the migrator's data step (server/db/canonical-emails.ts) fills them, and leaves NULL on a
-- row whose mailbox an earlier row already holds, reporting both ids. Binary collation: the
-- canonical form is already folded, and unicode_ci would also equate é with e.
ALTER TABLE `users` ADD COLUMN `email_canonical` VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    ADD COLUMN `signup_address` VARCHAR(64) NULL,
    ADD COLUMN `signup_device` VARCHAR(64) NULL;

-- CreateIndex
CREATE UNIQUE INDEX `users_email_canonical_key` ON `users`(`email_canonical`);

-- CreateIndex
CREATE INDEX `users_signup_address_idx` ON `users`(`signup_address`);

-- CreateIndex
CREATE INDEX `users_signup_device_idx` ON `users`(`signup_device`);
